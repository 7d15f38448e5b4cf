import { Widget } from '@lumino/widgets';

import {
  errorMessage,
  ICaseEntry,
  ICaseSearch,
  ICaseSummary,
  requestAPI
} from './api';
import { button, clear, el, setStatus } from './dom';

const COLUMNS = ['Date', 'Type', 'Summary', 'Evidence', 'Status'];

/** Browse investigation cases: INDEX tables and single entries, read-only. */
export class CasesView extends Widget {
  constructor() {
    super();
    this.addClass('jm-cases');
    this.id = 'jm-cases';
    this._query = el('input', {
      className: 'jm-search',
      attrs: {
        type: 'search',
        placeholder: 'Search all cases… / 搜索案件…',
        'aria-label': 'Search cases'
      }
    });
    this._query.addEventListener('keydown', event => {
      if (event.key === 'Enter') {
        void this.search();
      }
    });
    this._status = el('div', {
      className: 'jm-status',
      attrs: { role: 'status' }
    });
    this._body = el('div', { className: 'jm-cases-body' });
    this.node.append(
      el('div', { className: 'jm-toolbar' }, [
        this._query,
        button('Search', () => void this.search()),
        button('All cases', () => void this.refresh(), {
          className: 'jm-all-cases'
        })
      ]),
      this._status,
      this._body
    );
  }

  async refresh(): Promise<void> {
    try {
      const data = await requestAPI<{
        cases: ICaseSummary[];
        workspace: string;
      }>('cases');
      clear(this._body);
      if (data.cases.length === 0) {
        setStatus(
          this._status,
          `No cases under ${data.workspace}/cases`,
          'info'
        );
      } else {
        setStatus(this._status, `${data.cases.length} cases`, 'info');
      }
      for (const c of data.cases) {
        this._body.appendChild(this.renderCase(c));
      }
      this.node.dataset.loaded = 'true';
    } catch (error) {
      setStatus(
        this._status,
        `Could not load cases: ${errorMessage(error)}`,
        'error'
      );
    }
  }

  private renderCase(c: ICaseSummary): HTMLElement {
    const table = el('table', { className: 'jm-case-index' });
    const head = el('tr');
    for (const col of COLUMNS) {
      head.appendChild(el('th', { text: col }));
    }
    table.appendChild(el('thead', {}, [head]));
    const body = el('tbody');
    for (const row of c.rows) {
      body.appendChild(
        el('tr', {}, [
          el('td', { text: row.date }),
          el('td', { text: row.type }),
          el('td', { text: row.summary }),
          el('td', { text: row.evidence.join(', ') }),
          el('td', { text: row.status })
        ])
      );
    }
    table.appendChild(body);
    const entries = el('div', { className: 'jm-case-entries' });
    const section = el(
      'details',
      { className: 'jm-case', attrs: { 'data-case': c.id } },
      [
        el('summary', {
          text: `${c.id} — ${c.name} (${c.period || 'no entries'})`
        }),
        table,
        button('Entries', () => void this.loadEntries(c.id, entries), {
          className: 'jm-case-entries-button'
        }),
        entries
      ]
    );
    return section;
  }

  private async loadEntries(
    caseId: string,
    target: HTMLElement
  ): Promise<void> {
    try {
      const data = await requestAPI<{ entries: ICaseEntry[] }>(
        `cases/${encodeURIComponent(caseId)}`
      );
      clear(target);
      for (const entry of data.entries) {
        const body = el('pre', { className: 'jm-entry-body' });
        const item = el('div', { className: 'jm-entry' }, [
          button(
            `${entry.date} · ${entry.type} · ${entry.title}`,
            () => void this.loadEntry(caseId, entry.file, body),
            {
              className: 'jm-entry-open'
            }
          ),
          body
        ]);
        target.appendChild(item);
      }
    } catch (error) {
      setStatus(
        this._status,
        `Could not load entries: ${errorMessage(error)}`,
        'error'
      );
    }
  }

  private async loadEntry(
    caseId: string,
    file: string,
    target: HTMLElement
  ): Promise<void> {
    try {
      const entry = await requestAPI<ICaseEntry>(
        `cases/${encodeURIComponent(caseId)}/entries/${encodeURIComponent(file)}`
      );
      target.textContent = `${entry.title}\n${entry.status} · evidence: ${entry.evidence.join(', ') || '—'}\n\n${entry.body ?? ''}`;
    } catch (error) {
      setStatus(
        this._status,
        `Could not read the entry: ${errorMessage(error)}`,
        'error'
      );
    }
  }

  async search(): Promise<void> {
    const q = this._query.value.trim();
    if (!q) {
      return this.refresh();
    }
    try {
      const data = await requestAPI<ICaseSearch>('cases', {}, { q });
      clear(this._body);
      const list = el('ul', { className: 'jm-results' });
      for (const hit of data.hits) {
        list.appendChild(
          el('li', { className: 'jm-hit' }, [
            el('div', {
              className: 'jm-hit-title',
              text: `${hit.case} · ${hit.date} · ${hit.title}`
            }),
            el('div', { className: 'jm-hit-text', text: hit.snippet })
          ])
        );
      }
      this._body.appendChild(list);
      setStatus(this._status, `${data.count} found`, 'info');
    } catch (error) {
      setStatus(this._status, `Search failed: ${errorMessage(error)}`, 'error');
    }
  }

  private readonly _query: HTMLInputElement;
  private readonly _status: HTMLDivElement;
  private readonly _body: HTMLDivElement;
}
