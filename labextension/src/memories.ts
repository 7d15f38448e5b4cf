import { Widget } from '@lumino/widgets';

import { errorMessage, requestAPI } from './api';
import { IMemories, IMemoryHit } from './schemas';
import { button, clear, el, setStatus } from './dom';
import type { Trans } from './i18n';
import { memoryProvenance, memoryTierLabel, memoryTypeLabel } from './labels';

const PAGE = 20;

/** A hit's type, tier and layer in the page's language, then where it lives and its id. */
function hitMeta(trans: Trans, hit: IMemoryHit): HTMLElement {
  const layer =
    hit.layer === 'project'
      ? trans._p('memory layer', 'project')
      : trans._p('memory layer', 'user');
  const project = hit.project ? ` · ${hit.project}` : '';
  // The id whole on one line (it is copied to %recall or the CLI), the words may wrap.
  return el('div', { className: 'jm-hit-meta' }, [
    el('span', {
      text: `${memoryTypeLabel(trans, hit.type)} · ${memoryTierLabel(trans, hit.tier)} · ${layer}${project} · `
    }),
    el('span', { className: 'jm-id', text: hit.id, title: hit.id })
  ]);
}

/** The title is the text's start (a title made from the text): show the text alone. */
function sameStart(title: string, text: string): boolean {
  const words = (t: string) => t.split(/\s+/).join(' ').trim();
  const head = words(title).replace(/[….\s]+$/, '');
  return head.length > 0 && words(text).startsWith(head);
}

/** Search memories (English and Chinese), shown at snippet level, read-only. */
export class MemoriesView extends Widget {
  constructor(private readonly trans: Trans) {
    super();
    this.addClass('jm-memories');
    this.id = 'jm-memories';
    this._query = el('input', {
      className: 'jm-search',
      attrs: {
        type: 'search',
        placeholder: trans.__('Search memories…'),
        'aria-label': trans.__('Search memories')
      }
    });
    this._type = el('select', {
      className: 'jm-filter-type',
      attrs: { 'aria-label': trans.__('Type') }
    });
    for (const [t, label] of [
      ['', trans.__('any type')],
      ['episodic', trans._p('memory type', 'episodic')],
      ['semantic', trans._p('memory type', 'semantic')],
      ['procedural', trans._p('memory type', 'procedural')],
      ['reflective', trans._p('memory type', 'reflective')]
    ]) {
      this._type.appendChild(
        el('option', { text: label, attrs: { value: t } })
      );
    }
    this._recent = el('select', {
      className: 'jm-filter-recent',
      attrs: { 'aria-label': trans.__('Recent') }
    });
    for (const [value, label] of [
      ['', trans.__('any time')],
      ['1d', trans.__('last day')],
      ['7d', trans.__('last 7 days')],
      ['30d', trans.__('last 30 days')]
    ]) {
      this._recent.appendChild(el('option', { text: label, attrs: { value } }));
    }
    this._query.addEventListener('keydown', event => {
      if (event.key === 'Enter') {
        void this.search();
      }
    });
    this._status = el('div', {
      className: 'jm-status',
      attrs: { role: 'status' }
    });
    this._results = el('ul', {
      className: 'jm-results',
      attrs: { role: 'list' }
    });
    // One page of hits at a time (issue 16); "More" asks for the next one.
    this._more = button(trans.__('More'), () => void this.search(this._shown), {
      className: 'jm-memories-more'
    });
    this._more.hidden = true;
    this.node.append(
      el('div', { className: 'jm-toolbar' }, [
        this._query,
        button(trans.__('Search'), () => void this.search(), {
          className: 'jm-search-button'
        })
      ]),
      el('div', { className: 'jm-toolbar' }, [this._type, this._recent]),
      this._status,
      this._results,
      this._more
    );
  }

  focusSearch(): void {
    this._query.focus();
  }

  /**
   * The active notebook (its path under the Jupyter root, or null): the search
   * sends it, and the server searches the project in use for it, the one its
   * kernel's `%recall` searches (issue 30).
   */
  setNotebook(path: string | null): void {
    this._notebook = path;
  }

  /** The project in use changed: hits already shown are searched again. */
  setProject(project: string | null): void {
    if (project === this._project) {
      return;
    }
    this._project = project;
    if (this.node.dataset.loaded === 'true') {
      void this.search();
    }
  }

  /** The first page of hits for the query, or (``offset`` > 0) the next page below. */
  async search(offset = 0): Promise<void> {
    try {
      const data = await requestAPI<IMemories>(
        'memories',
        {},
        {
          q: this._query.value,
          type: this._type.value,
          recent: this._recent.value,
          limit: String(PAGE),
          offset: String(offset),
          path: this._notebook
        }
      );
      if (offset === 0) {
        clear(this._results);
      }
      for (const hit of data.hits) {
        this._results.appendChild(
          el(
            'li',
            {
              className: 'jm-hit',
              attrs: { tabindex: '0', 'data-id': hit.id }
            },
            [
              // the text once: a title that is the text's start is not shown above it
              sameStart(hit.title, hit.text)
                ? null
                : el('div', { className: 'jm-hit-title', text: hit.title }),
              hit.superseded_by
                ? el('div', {
                    className: 'jm-hit-superseded',
                    text: this.trans.__('superseded by %1', hit.superseded_by)
                  })
                : null,
              el('div', { className: 'jm-hit-text', text: hit.text }),
              // spec 003's snippet level: the evidence, then where it comes from
              ...hit.evidence.map(quote =>
                el('div', { className: 'jm-hit-evidence', text: `> ${quote}` })
              ),
              hit.provenance
                ? el('div', {
                    className: 'jm-hit-provenance',
                    text: memoryProvenance(this.trans, hit)
                  })
                : null,
              hitMeta(this.trans, hit)
            ]
          )
        );
      }
      this._shown = offset + data.hits.length;
      this._more.hidden = !data.more;
      setStatus(
        this._status,
        data.more
          ? this.trans.__('first %1 shown; more below', this._shown)
          : this.trans.__('%1 found', this._shown),
        'info'
      );
      this.node.dataset.loaded = 'true';
    } catch (error) {
      setStatus(
        this._status,
        this.trans.__('Search failed: %1', errorMessage(error)),
        'error'
      );
    }
  }

  private _shown = 0;
  private _notebook: string | null = null;
  private _project: string | null = null;
  private readonly _more: HTMLButtonElement;
  private readonly _query: HTMLInputElement;
  private readonly _type: HTMLSelectElement;
  private readonly _recent: HTMLSelectElement;
  private readonly _status: HTMLDivElement;
  private readonly _results: HTMLUListElement;
}
