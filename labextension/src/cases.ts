import { Widget } from '@lumino/widgets';

import {
  errorMessage,
  ICaseEntry,
  ICaseSearch,
  ICaseSummary,
  requestAPI
} from './api';
import { button, clear, el, setStatus, shown } from './dom';
import type { Trans } from './i18n';
import type { ICase } from './schemas';

const TYPES = ['discuss', 'hesitate', 'insight', 'observe', 'think'];

function columns(trans: Trans): string[] {
  return [
    trans._p('case index column', 'Date'),
    trans._p('case index column', 'Type'),
    trans._p('case index column', 'Summary'),
    trans._p('case index column', 'Evidence'),
    trans._p('case index column', 'Status')
  ];
}

/** An entry type's label (the stored value is the English word). */
function typeLabel(trans: Trans, type: string): string {
  switch (type) {
    case 'discuss':
      return trans._p('case entry type', 'discuss');
    case 'hesitate':
      return trans._p('case entry type', 'hesitate');
    case 'insight':
      return trans._p('case entry type', 'insight');
    case 'observe':
      return trans._p('case entry type', 'observe');
    case 'think':
      return trans._p('case entry type', 'think');
    default:
      return type;
  }
}

/** A legacy v1 entry whose 后续状态 cannot be told has the state ''. */
function stateText(trans: Trans, status: string): string {
  return status || trans.__('— (unknown)');
}

/**
 * Browse investigation cases: INDEX tables and single entries, read-only.
 * Entries can be filtered by type, evidence id and hypothesis id (all must
 * match); files the server could not read are listed under their case.
 */
export class CasesView extends Widget {
  constructor(private readonly trans: Trans) {
    super();
    this.addClass('jm-cases');
    this.id = 'jm-cases';
    this._query = el('input', {
      className: 'jm-search',
      attrs: {
        type: 'search',
        placeholder: trans.__('Search all cases…'),
        'aria-label': trans.__('Search cases')
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
    this._type = el('select', {
      className: 'jm-case-type',
      attrs: { 'aria-label': trans.__('Filter entries by type') }
    });
    for (const value of ['', ...TYPES]) {
      this._type.appendChild(
        el('option', {
          text: value ? typeLabel(trans, value) : trans.__('All types'),
          attrs: { value }
        })
      );
    }
    const input = (className: string, placeholder: string, label: string) =>
      el('input', {
        className,
        attrs: { type: 'text', placeholder, 'aria-label': label }
      });
    this._evidence = input(
      'jm-case-evidence',
      trans.__('Evidence, e.g. E-007'),
      trans.__('Filter entries by evidence id')
    );
    this._hypothesis = input(
      'jm-case-hypothesis',
      trans.__('Hypothesis, e.g. H-2'),
      trans.__('Filter entries by hypothesis id')
    );
    for (const field of [this._evidence, this._hypothesis]) {
      field.addEventListener('keydown', event => {
        if (event.key === 'Enter') {
          void this.applyFilters();
        }
      });
    }
    this.node.append(
      el('div', { className: 'jm-toolbar' }, [
        this._query,
        button(trans.__('Search'), () => void this.search()),
        button(trans.__('All cases'), () => void this.refresh(), {
          className: 'jm-all-cases'
        })
      ]),
      el('div', { className: 'jm-toolbar jm-case-filters' }, [
        this._type,
        this._evidence,
        this._hypothesis,
        button(trans.__('Filter entries'), () => void this.applyFilters(), {
          className: 'jm-case-filter'
        })
      ]),
      this._status,
      this._body
    );
  }

  /** The filters as query parameters (only those set). */
  private filters(): Record<string, string> {
    const params: Record<string, string> = {};
    const type = this._type.value;
    const evidence = this._evidence.value.trim();
    const hypothesis = this._hypothesis.value.trim();
    if (type) {
      params.type = type;
    }
    if (evidence) {
      params.evidence = evidence;
    }
    if (hypothesis) {
      params.hypothesis = hypothesis;
    }
    return params;
  }

  /** Open every case and list its entries under the current filters. */
  async applyFilters(): Promise<void> {
    const sections = Array.from(
      this._body.querySelectorAll<HTMLDetailsElement>('details.jm-case')
    );
    if (sections.length === 0) {
      await this.refresh();
    }
    for (const section of Array.from(
      this._body.querySelectorAll<HTMLDetailsElement>('details.jm-case')
    )) {
      const target = section.querySelector<HTMLElement>('.jm-case-entries');
      if (target && section.dataset.case) {
        section.open = true;
        await this.loadEntries(section.dataset.case, target);
      }
    }
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
          this.trans.__('No cases under %1/cases', data.workspace),
          'info'
        );
      } else {
        setStatus(
          this._status,
          this.trans._n('%1 case', '%1 cases', data.cases.length),
          'info'
        );
      }
      for (const c of data.cases) {
        this._body.appendChild(this.renderCase(c));
      }
      this.node.dataset.loaded = 'true';
    } catch (error) {
      setStatus(
        this._status,
        this.trans.__('Could not load cases: %1', errorMessage(error)),
        'error'
      );
    }
  }

  private renderCase(c: ICaseSummary): HTMLElement {
    const trans = this.trans;
    const table = el('table', { className: 'jm-case-index' });
    const head = el('tr');
    for (const col of columns(trans)) {
      head.appendChild(el('th', { text: col }));
    }
    table.appendChild(el('thead', {}, [head]));
    const body = el('tbody');
    // Each cell names its column: in the narrow sidebar a row is drawn as a
    // block of labelled lines (style/base.css), the header row hidden.
    const names = columns(trans);
    const cell = (at: number, text: string) =>
      el('td', { text, attrs: { 'data-label': names[at] ?? '' } });
    for (const row of c.rows) {
      body.appendChild(
        el('tr', {}, [
          cell(0, row.date),
          cell(1, typeLabel(trans, row.type)),
          cell(2, row.summary),
          cell(3, row.evidence.join(', ')),
          cell(4, stateText(trans, row.status))
        ])
      );
    }
    table.appendChild(body);
    const entries = el('div', { className: 'jm-case-entries' });
    // Files the server could not read (or two owning one row): reported, not hidden.
    const problems = el('ul', { className: 'jm-case-problems' });
    for (const problem of c.problems) {
      problems.appendChild(
        el('li', { className: 'jm-case-problem', text: problem })
      );
    }
    const section = el(
      'details',
      { className: 'jm-case', attrs: { 'data-case': c.id } },
      [
        el('summary', {
          text: `${c.id} — ${c.name} (${c.period || trans.__('no entries')})`
        }),
        c.problems.length ? problems : null,
        table,
        button(
          trans.__('Entries'),
          () => void this.loadEntries(c.id, entries),
          {
            className: 'jm-case-entries-button'
          }
        ),
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
      const filters = this.filters();
      const data = await requestAPI<ICase>(
        `cases/${encodeURIComponent(caseId)}`,
        {},
        filters
      );
      clear(target);
      const filtered = Object.keys(filters).length > 0;
      target.dataset.count = String(data.entries.length);
      target.appendChild(
        el('div', {
          className: 'jm-case-count',
          text: filtered
            ? this.trans._n(
                '%1 entry matches %2',
                '%1 entries match %2',
                data.entries.length,
                Object.values(filters).join(' · ')
              )
            : this.trans._n('%1 entry', '%1 entries', data.entries.length)
        })
      );
      for (const entry of data.entries) {
        const body = el('pre', { className: 'jm-entry-body' });
        const item = el('div', { className: 'jm-entry' }, [
          button(
            `${entry.date} · ${typeLabel(this.trans, entry.type)} · ${entry.title} · ${stateText(this.trans, entry.status)}`,
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
        this.trans.__('Could not load entries: %1', errorMessage(error)),
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
      const links = [
        this.trans.__('evidence: %1', entry.evidence.join(', ') || '—'),
        this.trans.__('hypotheses: %1', entry.hypotheses.join(', ') || '—')
      ].join(' · ');
      target.textContent = shown(
        `${entry.title}\n${stateText(this.trans, entry.status)} · ${links}\n\n${entry.body ?? ''}`
      );
    } catch (error) {
      setStatus(
        this._status,
        this.trans.__('Could not read the entry: %1', errorMessage(error)),
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
      setStatus(this._status, this.trans.__('%1 found', data.count), 'info');
    } catch (error) {
      setStatus(
        this._status,
        this.trans.__('Search failed: %1', errorMessage(error)),
        'error'
      );
    }
  }

  private readonly _query: HTMLInputElement;
  private readonly _type: HTMLSelectElement;
  private readonly _evidence: HTMLInputElement;
  private readonly _hypothesis: HTMLInputElement;
  private readonly _status: HTMLDivElement;
  private readonly _body: HTMLDivElement;
}
