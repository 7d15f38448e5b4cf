import {
  Dialog,
  InputDialog,
  Notification,
  showDialog
} from '@jupyterlab/apputils';
import { Widget } from '@lumino/widgets';

import {
  errorMessage,
  IAppliedProposal,
  IProcessAllResult,
  INeighbour,
  IProject,
  IProposal,
  IQueue,
  postJSON,
  requestAPI
} from './api';
import {
  alreadyDecided,
  fromCell,
  savedText,
  sourceLabel,
  sourceLabels
} from './decided';
import type { IAppliedList, IProcessAllPlan, IRevertResult } from './schemas';
import { button, clear, el, setStatus } from './dom';
import type { Trans } from './i18n';

/** The last part of a path: `orders.ipynb` for `analyses/orders.ipynb`. */
function baseName(path: string): string {
  return path.split('/').pop() || path;
}

/**
 * Where the evidence quote came from, as a person knows it: "cell 6 ·
 * orders.ipynb" (the cell's place in its notebook, when the notebook says),
 * "a cell · orders.ipynb" before that, "chat message · team.chat". The full
 * path and the raw ids go to the tooltip (`originTitle`), never the line.
 */
export function originLine(
  trans: Trans,
  p: IProposal,
  cellNumber: number | null = null
): string {
  const origin = p.quote_origin ?? {};
  const file = origin.notebook_path
    ? baseName(String(origin.notebook_path))
    : '';
  let where = '';
  if (origin.message_id) {
    where = trans.__('chat message');
  } else if (origin.cell_id) {
    where =
      cellNumber === null
        ? trans.__('a cell')
        : trans.__('cell %1', cellNumber);
  }
  const parts = [where, file].filter(Boolean);
  return parts.length ? parts.join(' · ') : trans.__('origin not recorded');
}

/** The tooltip of the origin line: the notebook's path and the raw ids. */
export function originTitle(trans: Trans, p: IProposal): string {
  const origin = p.quote_origin ?? {};
  const parts: string[] = [];
  if (origin.notebook_path) {
    parts.push(String(origin.notebook_path));
  }
  if (origin.cell_id) {
    parts.push(trans.__('cell id %1', String(origin.cell_id)));
  }
  if (origin.message_id) {
    parts.push(trans.__('message id %1', String(origin.message_id)));
  }
  return parts.join(' · ');
}

/** Text and quote read the same (case, width and spacing aside): show it once. */
function sameWords(a: string, b: string): boolean {
  const fold = (t: string) =>
    t.normalize('NFKC').toLocaleLowerCase().replace(/\s+/g, ' ').trim();
  return fold(a) === fold(b);
}

/** The filters of the queue's toolbar: the values GET queue takes. */
interface IQueueFilters {
  q: string;
  layer: string;
  kind: string;
  source: string;
}

/** Pending items per page of the queue (the server answers at most MAX_PAGE). */
const PAGE = 100;
const MAX_PAGE = 500;
/** Up to this many loaded items are all in the page; past it, only those near the view. */
const WINDOW_FROM = 40;
/** How far (px) above and below the view items stay drawn. */
const OVERSCAN = 800;
/** A compact item's height (px, margin included) before it was measured. */
const ESTIMATE = 110;

/**
 * Queued Knowledge: pending proposals only, with Apply to User / Project,
 * Dismiss and Process all; a search and filters (layer, kind, source) asked of
 * the server, so they reach items not loaded yet.
 *
 * Keyboard (roving tabindex): the list is one Tab stop, the item last
 * visited; ArrowUp/ArrowDown (Home/End) move between items, ArrowRight/
 * ArrowLeft through the item's buttons, Escape back to the item; on an item,
 * Enter applies it where it was suggested, U applies to User, P to Project,
 * D or Delete dismisses. After a decision the focus goes to the next item.
 *
 * A long list is windowed: only the items near the scrolled view are in the
 * page (spacers of their measured height stand for the others).
 */
export class QueueView extends Widget {
  constructor(
    private readonly trans: Trans,
    private readonly onCount: (count: number, enabled: boolean) => void
  ) {
    super();
    this.addClass('jm-queue');
    this.id = 'jm-queue';
    // Spec 002: no layer to choose; each item goes where it was suggested.
    const processAll = button(
      trans.__('Process all'),
      () => void this.processAll(),
      {
        className: 'jm-process-all',
        title: trans.__(
          'Apply every pending item to the layer it was suggested for; items that still need a project are skipped and listed'
        )
      }
    );
    this._search = el('input', {
      className: 'jm-queue-search',
      attrs: {
        type: 'search',
        placeholder: trans.__('Search the queue'),
        'aria-label': trans.__('Search the queue')
      }
    });
    this._search.addEventListener('input', () => this.filtersChanged(300));
    this._search.addEventListener('keydown', event => {
      if (event.key === 'Enter') {
        this.filtersChanged(0);
      } else if (event.key === 'ArrowDown') {
        event.preventDefault();
        this.focusIndex(0);
      }
    });
    // The empty choice reads as the filter's name: the three fit side by side.
    this._layer = this.filterSelect('jm-queue-layer', trans.__('Layer'), [
      ['', trans.__('Layer')],
      ['user', trans.__('User')],
      ['project', trans.__('Project')]
    ]);
    this._kind = this.filterSelect('jm-queue-kind', trans.__('Kind'), [
      ['', trans.__('Kind')],
      ['rule', trans.__('Rule')],
      ['info', trans.__('Info')]
    ]);
    const labels = sourceLabels(trans);
    this._source = this.filterSelect('jm-queue-source', trans.__('Source'), [
      ['', trans.__('Source')],
      ['cell', trans._p('proposal source', 'from a cell')],
      ['chat', labels['chat-extraction']],
      ['agent', labels.agent],
      ['import', labels.import],
      ['correction', labels.correction],
      ['gotcha', labels.gotcha],
      ['manual', labels.manual],
      ['session-digest', labels['session-digest']]
    ]);
    this._status = el('div', {
      className: 'jm-status',
      attrs: { role: 'status' }
    });
    this._skipped = el('ul', { className: 'jm-skipped' });
    // Recently applied, each with Revert (issue 32): an Apply can be undone here.
    this._appliedHead = el('div', {
      className: 'jm-applied-head',
      text: trans.__('Recently applied (Revert takes an entry out again)')
    });
    this._applied = el('ul', {
      className: 'jm-applied-list',
      attrs: { 'aria-label': trans.__('Recently applied') }
    });
    this._list = el('ul', {
      className: 'jm-queue-list',
      // focusable from code only (not a Tab stop): it holds the focus while an item goes
      attrs: {
        role: 'list',
        'aria-label': trans.__('Queued knowledge'),
        tabindex: '-1'
      }
    });
    this._list.addEventListener('keydown', event => this.onKey(event));
    this._list.addEventListener('focusin', event => {
      const item = (event.target as HTMLElement).closest(
        '.jm-queue-item'
      ) as HTMLElement | null;
      if (item?.dataset.id) {
        this.setActive(item.dataset.id);
      }
    });
    // The queue comes one page at a time (issue 16): 5,000 items drawn at
    // once froze the page; "Show more" asks for the next page.
    this._more = button(trans.__('Show more'), () => void this.loadMore(), {
      className: 'jm-queue-more'
    });
    this._more.hidden = true;
    this.node.append(
      el('div', { className: 'jm-toolbar jm-queue-toolbar' }, [
        this._search,
        processAll
      ]),
      el('div', { className: 'jm-toolbar jm-queue-filters' }, [
        this._layer,
        this._kind,
        this._source
      ]),
      this._status,
      this._skipped,
      this._list,
      this._more,
      this._appliedHead,
      this._applied
    );
  }

  /**
   * Set by the panel: the place (1-based) of a cell in its notebook, or null
   * when the notebook does not hold it (any more).
   */
  cellNumber: (path: string, cellId: string) => Promise<number | null> =
    async () => null;

  /** The proposal whose item has focus (for the command palette actions). */
  get focusedId(): string | null {
    const item = (document.activeElement as HTMLElement | null)?.closest?.(
      '.jm-queue-item'
    ) as HTMLElement | null;
    if (item && this._list.contains(item)) {
      return item.dataset.id ?? null;
    }
    return this._active ?? this._items[0]?.id ?? null;
  }

  private filterSelect(
    className: string,
    label: string,
    options: [string, string][]
  ): HTMLSelectElement {
    const select = el('select', {
      className: `jm-queue-filter ${className}`,
      attrs: { 'aria-label': label },
      title: label
    });
    for (const [value, text] of options) {
      select.appendChild(el('option', { text, attrs: { value } }));
    }
    select.addEventListener('change', () => this.filtersChanged(0));
    return select;
  }

  private filters(): IQueueFilters {
    return {
      q: this._search.value.trim(),
      layer: this._layer.value,
      kind: this._kind.value,
      source: this._source.value
    };
  }

  private filtered(): boolean {
    const f = this.filters();
    return Boolean(f.q || f.layer || f.kind || f.source);
  }

  private filtersChanged(delay: number): void {
    window.clearTimeout(this._typing);
    this._typing = window.setTimeout(() => {
      this._shown = 0; // a new search starts at its first page
      void this.refresh();
    }, delay);
  }

  async refresh(): Promise<void> {
    const gen = ++this._generation;
    this._refreshing++;
    try {
      const [queue, projects] = await Promise.all([
        requestAPI<IQueue>(
          'queue',
          {},
          {
            // What was shown stays shown after a change (up to the server's page cap).
            limit: String(Math.min(Math.max(PAGE, this._shown), MAX_PAGE)),
            ...this.filters()
          }
        ),
        requestAPI<{ projects: IProject[] }>('projects')
      ]);
      if (gen !== this._generation) {
        return; // a newer refresh is on its way
      }
      const answered = performance.now();
      this._projects = projects.projects;
      this.render(queue);
      this.onCount(queue.count, queue.enabled);
      await this.renderApplied();
      requestAnimationFrame(() => {
        this.node.dataset.renderMs = String(
          Math.round(performance.now() - answered)
        );
      });
    } catch (error) {
      setStatus(
        this._status,
        this.trans.__('Could not load the queue: %1', errorMessage(error)),
        'error'
      );
    } finally {
      this._refreshing--;
    }
  }

  /** The next page of pending items, added below those shown. */
  async loadMore(): Promise<void> {
    // A refresh still on its way was asked for as many items as were shown before
    // this click: drawn after this page, it would take the page away again (the
    // person's "Show more" undone). Its answer is dropped, and the list asked for
    // again, with the new page, once this page is in.
    const overtaken = this._refreshing > 0;
    const gen = ++this._generation;
    try {
      const queue = await requestAPI<IQueue>(
        'queue',
        {},
        {
          offset: String(this._shown),
          limit: String(PAGE),
          ...this.filters()
        }
      );
      if (gen !== this._generation) {
        // A refresh redrew the list meanwhile, with as many items as were shown
        // before the click: ask again for what the person asked to see.
        this._shown = Math.max(this._shown, queue.offset + queue.items.length);
        void this.refresh();
        return;
      }
      this.append(queue);
      if (overtaken) {
        void this.refresh();
      }
    } catch (error) {
      setStatus(
        this._status,
        this.trans.__('Could not load more: %1', errorMessage(error)),
        'error'
      );
      if (overtaken) {
        void this.refresh(); // the dropped answer is still owed
      }
    }
  }

  private append(queue: IQueue): void {
    this._items.push(...queue.items);
    this._shown = queue.offset + queue.items.length;
    this._last = queue;
    this.node.dataset.shown = String(this._shown);
    this._more.hidden = queue.more === 0;
    this._more.textContent = this.trans.__(
      'Show %1 more (%2 not shown)',
      Math.min(PAGE, queue.more),
      queue.more
    );
    this.updateStatus(); // the count says what is shown now, also after "Show more"
    this.draw();
  }

  private render(queue: IQueue): void {
    // A redraw (any change event) keeps the focus where it was: on the same
    // item, on the same control in it. The list holds the focus while the
    // items are drawn again, so it never drops to the page body.
    const active = document.activeElement as HTMLElement | null;
    const focused = active?.closest?.('.jm-queue-item') as HTMLElement | null;
    const keep =
      focused && this._list.contains(focused) ? focused.dataset.id! : null;
    const control =
      keep !== null && active !== focused
        ? (Array.from(active!.classList).find(
            c => c.startsWith('jm-') && c !== 'jm-button'
          ) ?? null)
        : null;
    const keepAt = keep ? this._items.findIndex(p => p.id === keep) : -1;
    if (keep !== null) {
      this._list.focus();
    }
    this._items = [];
    this._nodes.clear();
    this._cells.clear(); // cells move: ask again (the last answer shows meanwhile)
    this.append(queue);
    if (keep !== null) {
      const at = this._items.findIndex(p => p.id === keep);
      if (at < 0) {
        this.focusAfterDecision(Math.max(0, keepAt)); // decided elsewhere meanwhile
      } else {
        this.focusIndex(at);
        if (control) {
          (
            this._nodes.get(keep)?.querySelector(`.${control}`) as HTMLElement
          )?.focus();
        }
      }
    }
    this.node.dataset.count = String(queue.count);
    this.node.dataset.matched = String(queue.matched);
    this.node.dataset.loaded = 'true';
  }

  private updateStatus(): void {
    const queue = this._last;
    if (!queue) {
      return;
    }
    const trans = this.trans;
    let text: string;
    if (!queue.enabled) {
      text = trans.__(
        'Memory is disabled: nothing is captured or injected. Review still works.'
      );
    } else if (queue.count === 0) {
      text = trans.__('No pending proposals.');
    } else if (this.filtered()) {
      text =
        queue.matched === 0
          ? trans.__('%1 pending · none matches', queue.count)
          : queue.more > 0
            ? trans.__(
                '%1 pending · %2 match · %3 shown',
                queue.count,
                queue.matched,
                this._shown
              )
            : trans.__('%1 pending · %2 match', queue.count, queue.matched);
    } else if (queue.more > 0) {
      text = trans.__('%1 pending · %2 shown', queue.count, this._shown);
    } else {
      text = trans.__('%1 pending', queue.count);
    }
    setStatus(this._status, text, 'info');
  }

  /** The scrolling box the list lives in (the panel's stack), found once shown. */
  private scroller(): HTMLElement | null {
    if (!this._scroller) {
      const box = this.node.closest('.jm-stack') as HTMLElement | null;
      if (box) {
        this._scroller = box;
        box.addEventListener('scroll', () => this.scheduleDraw(), {
          passive: true
        });
        new ResizeObserver(() => this.scheduleDraw()).observe(box);
      }
    }
    return this._scroller;
  }

  private scheduleDraw(): void {
    if (this._frame || this.isHidden) {
      return;
    }
    this._frame = requestAnimationFrame(() => {
      this._frame = 0;
      this.draw();
    });
  }

  private height(id: string): number {
    return this._heights.get(id) ?? ESTIMATE;
  }

  /** Which items to draw: all of a short list, the ones near the view of a long one. */
  private range(): [number, number] {
    const n = this._items.length;
    const box = this.scroller();
    if (n <= WINDOW_FROM || !box || box.clientHeight === 0) {
      return [0, Math.min(n, WINDOW_FROM)];
    }
    const listTop =
      this._list.getBoundingClientRect().top -
      box.getBoundingClientRect().top +
      box.scrollTop;
    const top = box.scrollTop - listTop - OVERSCAN;
    const bottom = box.scrollTop - listTop + box.clientHeight + OVERSCAN;
    let y = 0;
    let start = 0;
    while (start < n && y + this.height(this._items[start].id) < top) {
      y += this.height(this._items[start].id);
      start++;
    }
    let end = start;
    while (end < n && y < bottom) {
      y += this.height(this._items[end].id);
      end++;
    }
    return [Math.min(start, n), Math.max(end, Math.min(start + 1, n))];
  }

  /** Draw the items of the range between two spacers; those kept stay in place (and focused). */
  private draw(range: [number, number] = this.range()): void {
    const [start, end] = range;
    const ids = new Set(this._items.slice(start, end).map(p => p.id));
    for (const node of Array.from(this._list.children) as HTMLElement[]) {
      const id = node.dataset.id;
      // out of the range, a spacer, or an item drawn again since (a refresh)
      if (!id || !ids.has(id) || this._nodes.get(id) !== node) {
        node.remove();
      }
    }
    let before: Element | null = this._list.firstElementChild;
    for (let i = start; i < end; i++) {
      const p = this._items[i];
      let node = this._nodes.get(p.id);
      if (!node) {
        node = this.renderItem(p);
        this._nodes.set(p.id, node);
      }
      node.setAttribute('aria-posinset', String(i + 1));
      node.setAttribute(
        'aria-setsize',
        String(this._last?.matched ?? this._items.length)
      );
      if (node === before) {
        before = node.nextElementSibling;
      } else {
        this._list.insertBefore(node, before);
      }
    }
    const above = this._items
      .slice(0, start)
      .reduce((sum, p) => sum + this.height(p.id), 0);
    const below = this._items
      .slice(end)
      .reduce((sum, p) => sum + this.height(p.id), 0);
    if (above > 0) {
      this._list.insertBefore(this.spacer(above), this._list.firstChild);
    }
    if (below > 0) {
      this._list.appendChild(this.spacer(below));
    }
    for (let i = start; i < end; i++) {
      const node = this._nodes.get(this._items[i].id)!;
      if (node.offsetHeight > 0) {
        this._heights.set(this._items[i].id, node.offsetHeight + 6);
      }
    }
    this._range = [start, end];
    this.node.dataset.rendered = String(end - start);
    this.updateTabStop();
  }

  private spacer(height: number): HTMLElement {
    const node = el('li', {
      className: 'jm-queue-spacer',
      attrs: { 'aria-hidden': 'true', role: 'presentation' }
    });
    node.style.height = `${Math.round(height)}px`;
    return node;
  }

  /** One Tab stop: the active item if drawn, else the first drawn one. */
  private updateTabStop(): void {
    const drawn = Array.from(
      this._list.querySelectorAll('.jm-queue-item')
    ) as HTMLElement[];
    const stop =
      drawn.find(n => n.dataset.id === this._active) ?? drawn[0] ?? null;
    for (const node of drawn) {
      node.tabIndex = node === stop ? 0 : -1;
    }
  }

  private setActive(id: string): void {
    this._active = id;
    this.updateTabStop();
  }

  /** Focus the item at `index` of those loaded, drawing it first when it is not drawn. */
  private focusIndex(index: number): void {
    const p = this._items[index];
    if (!p) {
      return;
    }
    const [start, end] = this._range;
    if (index < start || index >= end) {
      const box = this.scroller();
      if (box) {
        const listTop =
          this._list.getBoundingClientRect().top -
          box.getBoundingClientRect().top +
          box.scrollTop;
        const y = this._items
          .slice(0, index)
          .reduce((sum, q) => sum + this.height(q.id), 0);
        box.scrollTop = Math.max(0, listTop + y - box.clientHeight / 3);
      }
      this.draw([
        Math.max(0, Math.min(index, this.range()[0])),
        Math.max(index + 1, this.range()[1])
      ]);
    }
    this.setActive(p.id);
    const node = this._nodes.get(p.id);
    node?.focus();
    node?.scrollIntoView({ block: 'nearest' });
  }

  /**
   * After an Apply or Dismiss the focus goes to the item that took the
   * decided one's place (the next, or the last when it was the last), or
   * to the search box when the queue is empty: never to the page body.
   */
  private focusAfterDecision(index: number): void {
    if (this._items.length) {
      this.focusIndex(Math.min(index, this._items.length - 1));
    } else if (!this.isHidden) {
      this._search.focus();
    }
  }

  private renderItem(p: IProposal): HTMLElement {
    const item = el('li', {
      className: 'jm-queue-item',
      attrs: { tabindex: '-1', role: 'listitem', 'data-id': p.id }
    });
    const trans = this.trans;
    const kind = p.kind === 'rule' ? trans.__('Rule') : trans.__('Info');
    const source = sourceLabel(trans, p.source, fromCell(p));
    const target =
      p.suggested_layer === 'project'
        ? p.project
          ? trans.__('suggested: Project · %1', p.project)
          : trans.__('suggested: Project')
        : trans.__('suggested: User');
    const head = el('div', { className: 'jm-item-head' }, [
      el('span', { className: `jm-kind jm-kind-${p.kind}`, text: kind }),
      el('span', { className: 'jm-source', text: source }),
      el('span', { className: 'jm-target', text: target, title: target })
    ]);
    const text = el('div', { className: 'jm-item-text', text: p.text });
    item.append(head, text);
    // The quote only when it says something the text does not (it often is the text).
    if (!sameWords(p.text, p.evidence_quote)) {
      item.appendChild(
        el('blockquote', { className: 'jm-evidence', text: p.evidence_quote })
      );
    } else {
      text.title = trans.__('Your words: “%1”', p.evidence_quote);
    }
    const origin = p.quote_origin ?? {};
    const originNode = el('div', {
      className: 'jm-origin',
      text: originLine(trans, p, this.knownCell(p)),
      title: originTitle(trans, p)
    });
    item.appendChild(originNode);
    if (origin.notebook_path && origin.cell_id && !origin.message_id) {
      const key = `${origin.notebook_path}\n${origin.cell_id}`;
      if (!this._cells.has(key)) {
        this._cells.set(
          key,
          this.cellNumber(String(origin.notebook_path), String(origin.cell_id))
            .catch(() => null)
            .then(n => {
              this._cellNumbers.set(key, n);
              return n;
            })
        );
      }
      void this._cells.get(key)!.then(n => {
        if (n !== null) {
          originNode.textContent = originLine(trans, p, n);
        }
      });
    }
    for (const n of p.neighbours ?? []) {
      item.appendChild(this.renderNeighbour(p, n));
    }
    if (p.proposed_by) {
      // A team project's shared queue: who of the team proposed it.
      item.append(
        el('div', {
          className: 'jm-proposed-by',
          text: trans.__('proposed by %1', p.proposed_by)
        })
      );
    }
    const actions = el('div', { className: 'jm-actions' });
    actions.appendChild(
      button(
        trans.__('Apply to User'),
        () => void this.apply(p.id, 'user', null),
        {
          className: 'jm-apply-user',
          attrs: { 'aria-keyshortcuts': 'U' }
        }
      )
    );
    if (p.project) {
      actions.appendChild(
        button(
          trans.__('Apply to Project'),
          () => void this.apply(p.id, 'project', p.project ?? null),
          {
            className: 'jm-apply-project',
            title: trans.__('Apply to project %1', p.project),
            attrs: { 'aria-keyshortcuts': 'P' }
          }
        )
      );
    } else {
      actions.appendChild(this.projectPicker(p.id));
    }
    actions.appendChild(
      button(trans.__('Dismiss'), () => void this.dismiss(p.id, p.source), {
        className: 'jm-dismiss',
        attrs: { 'aria-keyshortcuts': 'D Delete' }
      })
    );
    item.appendChild(actions);
    // Inside an item the controls are reached with the arrow keys, not Tab.
    for (const control of Array.from(
      item.querySelectorAll('button, select')
    ) as HTMLElement[]) {
      control.tabIndex = -1;
    }
    item.setAttribute(
      'aria-description',
      trans.__(
        'Enter: apply where suggested · U: to User · P: to Project · D: dismiss · arrows: move'
      )
    );
    return item;
  }

  /** The cell's place when it was already looked up (a redrawn item shows it at once). */
  private knownCell(p: IProposal): number | null {
    const origin = p.quote_origin ?? {};
    return (
      this._cellNumbers.get(`${origin.notebook_path}\n${origin.cell_id}`) ??
      null
    );
  }

  /**
   * An approved or pending entry near the item (issue 32): the person decides
   * with it in view. An approved entry it contradicts can be replaced by it in
   * one click (an Apply with ``replaces``, audited as such).
   */
  private renderNeighbour(p: IProposal, n: INeighbour): HTMLElement {
    const trans = this.trans;
    const text =
      n.relation === 'contradicts'
        ? trans.__('May conflict with: “%1”', n.text)
        : n.relation === 'update'
          ? trans.__('Updates: “%1”', n.text)
          : n.relation === 'same'
            ? trans.__('Same as: “%1”', n.text)
            : trans.__('Similar to: “%1”', n.text);
    const line = el('div', {
      className: `jm-neighbour jm-neighbour-${n.relation}`,
      text
    });
    if (n.relation === 'contradicts' && n.where === 'knowledge') {
      const project = n.ref.startsWith('project ') ? n.ref.slice(8) : null;
      line.appendChild(
        button(
          trans.__('Replace it'),
          () =>
            void this.apply(
              p.id,
              project ? 'project' : 'user',
              project,
              n.text
            ),
          {
            className: 'jm-replace',
            title: trans.__('Apply this in place of “%1”', n.text)
          }
        )
      );
    }
    return line;
  }

  /** For an item with no project: pick one of the known projects, then apply. */
  private projectPicker(id: string): HTMLElement {
    const trans = this.trans;
    const wrap = el('span', { className: 'jm-pick' });
    if (this._projects.length === 0) {
      wrap.appendChild(
        button(trans.__('Pick project'), () => this.onPickProject(), {
          className: 'jm-pick-project',
          title: trans.__('No project is known yet: add a folder as a project')
        })
      );
      return wrap;
    }
    const select = el('select', {
      className: 'jm-project-select',
      attrs: { 'aria-label': trans.__('Pick project') }
    });
    select.appendChild(
      el('option', { text: trans.__('Pick project…'), attrs: { value: '' } })
    );
    for (const project of this._projects) {
      select.appendChild(
        el('option', { text: project.id, attrs: { value: project.id } })
      );
    }
    // A refresh (any change event) redraws the list: keep what was picked.
    select.value = this._picked.get(id) ?? '';
    select.addEventListener('change', () => this._picked.set(id, select.value));
    const apply = button(
      trans.__('Apply to Project'),
      () => {
        if (!select.value) {
          setStatus(this._status, trans.__('Pick a project first.'), 'error');
          select.focus();
          return;
        }
        void this.apply(id, 'project', select.value);
      },
      { className: 'jm-apply-project' }
    );
    wrap.append(select, apply);
    return wrap;
  }

  /** Set by the panel: add a project folder, then refresh. */
  onPickProject: () => void = () => undefined;

  async apply(
    id: string,
    to: 'user' | 'project',
    project: string | null,
    replaces: string | null = null
  ): Promise<void> {
    try {
      const result = await postJSON<IAppliedProposal>(
        `queue/${encodeURIComponent(id)}/apply`,
        replaces === null ? { to, project } : { to, project, replaces }
      );
      Notification.success(
        savedText(this.trans, result.layer, result.project),
        { autoClose: 4000 }
      );
      this.removeItem(id);
    } catch (error) {
      if (!this.decidedElsewhere(id, error)) {
        setStatus(
          this._status,
          this.trans.__('Apply failed: %1', errorMessage(error)),
          'error'
        );
      }
    }
    await this.refresh();
  }

  /**
   * An Apply or Dismiss that met a decision made elsewhere (a card, the CLI,
   * another kernel or tab) is news, not a failure: say what happened.
   */
  private decidedElsewhere(id: string, error: unknown): boolean {
    const already = alreadyDecided(this.trans, error);
    if (already === null) {
      return false;
    }
    Notification.info(this.trans.__('%1; nothing changed', already), {
      autoClose: 4000
    });
    this.removeItem(id);
    return true;
  }

  async dismiss(id: string, source?: string): Promise<void> {
    const body: { reason?: string } = {};
    if (source === 'correction' || source === 'gotcha') {
      // A learned rule: the self-learner records why, so it waits for new evidence.
      const answer = await InputDialog.getText({
        title: this.trans.__('Dismiss learned rule'),
        label: this.trans.__(
          'Why is it wrong? (optional, recorded by the learner)'
        )
      });
      if (!answer.button.accept) {
        return;
      }
      if (answer.value?.trim()) {
        body.reason = answer.value.trim();
      }
    }
    try {
      await postJSON(`queue/${encodeURIComponent(id)}/dismiss`, body);
      Notification.info(
        // the card's own words: its outcome, then its note
        `${this.trans.__('Dismissed')} · ${this.trans.__('It will not be suggested again.')}`,
        { autoClose: 3000 }
      );
      this.removeItem(id);
    } catch (error) {
      if (!this.decidedElsewhere(id, error)) {
        setStatus(
          this._status,
          this.trans.__('Dismiss failed: %1', errorMessage(error)),
          'error'
        );
      }
    }
    await this.refresh();
  }

  /** The plan as lines: how many go to each file, and how many wait for a project. */
  private planLines(plan: IProcessAllPlan): string[] {
    const trans = this.trans;
    const lines = plan.targets.map(t =>
      t.layer === 'project'
        ? trans.__('Project · %1: %2', t.project ?? '', t.count)
        : trans.__('User: %1', t.count)
    );
    if (plan.pick_a_project) {
      lines.push(
        trans.__(
          '%1 still need a project picked and stay in the queue',
          plan.pick_a_project
        )
      );
    }
    return lines;
  }

  /** Says first what it will do (counts per layer and project), asks, then applies. */
  async processAll(): Promise<void> {
    clear(this._skipped);
    const trans = this.trans;
    let plan: IProcessAllPlan;
    try {
      plan = await requestAPI<IProcessAllPlan>('queue/process-all/plan');
    } catch (error) {
      setStatus(
        this._status,
        trans.__('Process all failed: %1', errorMessage(error)),
        'error'
      );
      return;
    }
    if (plan.total === 0) {
      setStatus(
        this._status,
        plan.pick_a_project
          ? trans.__(
              'Nothing to apply: %1 item(s) still need a project picked.',
              plan.pick_a_project
            )
          : trans.__('No pending proposals.'),
        'info'
      );
      return;
    }
    const body = el('div', { className: 'jm-process-plan' }, [
      el('p', {
        text: trans.__(
          'Apply %1 proposal(s) to the layer each was suggested for?',
          plan.total
        )
      }),
      el(
        'ul',
        {},
        this.planLines(plan).map(line =>
          el('li', { className: 'jm-plan-line', text: line })
        )
      )
    ]);
    const answer = await showDialog({
      title: trans.__('Process all'),
      body: new Widget({ node: body }),
      buttons: [
        Dialog.cancelButton({ label: trans.__('Cancel') }),
        Dialog.okButton({ label: trans.__('Apply %1', plan.total) })
      ]
    });
    if (!answer.button.accept) {
      return;
    }
    try {
      // What runs is what was shown: refused if the queue changed meanwhile.
      const result = await postJSON<IProcessAllResult>('queue/process-all', {
        expect: plan.total
      });
      const where = { user: 0, project: 0 };
      for (const a of result.applied) {
        if (a.status === 'applied') {
          where[a.layer === 'project' ? 'project' : 'user'] += 1;
        }
      }
      const failed = result.failures.reduce((n, f) => n + f.count, 0);
      // The act's own result words (docs/design.md, "Words on the screen"):
      // what was saved where, and what stays in the queue.
      const summary = trans.__(
        'Saved to User: %1 · to Project: %2 · still in the queue: %3',
        where.user,
        where.project,
        result.skipped.length
      );
      // Never green when something failed.
      if (result.ok) {
        Notification.success(summary, { autoClose: 4000 });
      } else {
        Notification.error(trans.__('%1 · not applied: %2', summary, failed), {
          autoClose: false
        });
      }
      this.node.dataset.processed = result.ok ? 'ok' : 'failed';
      const picks = result.skipped.filter(s => s.reason === 'pick a project');
      if (picks.length) {
        this._skipped.appendChild(
          el('li', {
            className: 'jm-skipped-head',
            text: trans.__('Skipped, still in the queue:')
          })
        );
        for (const s of picks) {
          this._skipped.appendChild(
            el('li', {
              className: 'jm-skipped-item',
              text: `${s.text} — ${s.reason}`,
              attrs: { 'data-id': s.id }
            })
          );
        }
      }
      // Each failure once, with how many items it stopped.
      if (result.failures.length) {
        this._skipped.appendChild(
          el('li', {
            className: 'jm-skipped-head jm-failures-head',
            text: trans.__('Not applied, still in the queue:')
          })
        );
        for (const f of result.failures) {
          this._skipped.appendChild(
            el('li', {
              className: 'jm-failure-item',
              text: trans.__('%1 item(s): %2', f.count, f.reason),
              attrs: { 'data-count': String(f.count) }
            })
          );
        }
      }
    } catch (error) {
      setStatus(
        this._status,
        trans.__('Process all failed: %1', errorMessage(error)),
        'error'
      );
    }
    await this.refresh();
  }

  /** The latest applied proposals, each with Revert. */
  private async renderApplied(): Promise<void> {
    let applied: IAppliedList;
    try {
      applied = await requestAPI<IAppliedList>(
        'queue/applied',
        {},
        { limit: '10' }
      );
    } catch {
      return; // the queue itself said what failed
    }
    clear(this._applied);
    this._appliedHead.hidden = applied.items.length === 0;
    const trans = this.trans;
    for (const p of applied.items) {
      const where =
        p.applied_to === 'project'
          ? trans.__('Project · %1', p.applied_project ?? '')
          : trans.__('User');
      this._applied.appendChild(
        el('li', { className: 'jm-applied-item', attrs: { 'data-id': p.id } }, [
          el('span', { className: 'jm-applied-text', text: p.text }),
          el('span', { className: 'jm-applied-where', text: where }),
          button(trans.__('Revert'), () => void this.revert(p.id, p.text), {
            className: 'jm-revert',
            title: trans.__('Take this entry out of its knowledge file again')
          })
        ])
      );
    }
    this.node.dataset.applied = String(applied.items.length);
  }

  /** Undo an Apply: the person chooses whether the proposal goes back or away. */
  async revert(id: string, text: string): Promise<void> {
    const trans = this.trans;
    const answer = await showDialog({
      title: trans.__('Revert this Apply?'),
      body: trans.__(
        '“%1” leaves the knowledge file. What becomes of the proposal?',
        text
      ),
      buttons: [
        Dialog.cancelButton({ label: trans.__('Cancel') }),
        Dialog.warnButton({
          label: trans.__('Revert and dismiss'),
          className: 'jm-revert-dismiss'
        }),
        Dialog.okButton({
          label: trans.__('Revert, back to the queue'),
          className: 'jm-revert-pending'
        })
      ]
    });
    if (!answer.button.accept) {
      return;
    }
    const then = answer.button.displayType === 'warn' ? 'dismissed' : 'pending';
    try {
      const result = await postJSON<IRevertResult>(
        `queue/${encodeURIComponent(id)}/revert`,
        { then }
      );
      Notification.info(
        result.status === 'pending'
          ? trans.__(
              'Reverted: the entry left %1; back in the queue',
              result.path
            )
          : trans.__('Reverted: the entry left %1; dismissed', result.path),
        { autoClose: 4000 }
      );
    } catch (error) {
      setStatus(
        this._status,
        trans.__('Revert failed: %1', errorMessage(error)),
        'error'
      );
    }
    await this.refresh();
  }

  /** The focus is in the queue (or nowhere): a decision may move it on. */
  private focusInside(): boolean {
    const active = document.activeElement;
    return !active || active === document.body || this.node.contains(active);
  }

  /** A decided item leaves the list at once; the focus goes to the one after it. */
  private removeItem(id: string): void {
    const index = this._items.findIndex(p => p.id === id);
    if (index < 0) {
      return;
    }
    const moveFocus = this.focusInside();
    // A refresh asked before this decision would draw the item again: drop its answer
    // (the refresh that follows every decision is the one that counts).
    this._generation++;
    if (moveFocus) {
      this._list.focus(); // held in the list, not dropped to the body, while the item goes
    }
    this._items.splice(index, 1);
    this._nodes.get(id)?.remove();
    this._nodes.delete(id);
    // _shown stays: the refresh that follows asks for as many, refilling from below.
    this.draw();
    if (moveFocus) {
      this.focusAfterDecision(index);
    }
  }

  /** Enter on an item: Apply where it was suggested (a project still to pick: the picker). */
  private applySuggested(p: IProposal, item: HTMLElement): void {
    if (p.suggested_layer !== 'project') {
      void this.apply(p.id, 'user', null);
    } else if (p.project) {
      void this.apply(p.id, 'project', p.project);
    } else {
      this.pickFirst(item);
    }
  }

  private pickFirst(item: HTMLElement): void {
    setStatus(this._status, this.trans.__('Pick a project first.'), 'error');
    (
      item.querySelector('.jm-project-select, .jm-pick-project') as HTMLElement
    )?.focus();
  }

  private onKey(event: KeyboardEvent): void {
    const target = event.target as HTMLElement;
    const item = target.closest('.jm-queue-item') as HTMLElement | null;
    if (!item || event.altKey || event.ctrlKey || event.metaKey) {
      return;
    }
    const index = this._items.findIndex(p => p.id === item.dataset.id);
    const p = this._items[index];
    if (!p) {
      return;
    }
    const onItem = target === item;
    const inSelect = target.tagName === 'SELECT';
    const controls = (
      Array.from(item.querySelectorAll('button, select')) as HTMLElement[]
    ).filter(c => !(c as HTMLButtonElement).disabled && c.offsetParent);
    const at = controls.indexOf(target);
    let handled = true;
    switch (event.key) {
      case 'ArrowDown':
        if (inSelect) {
          handled = false; // the select's own choice
        } else if (index < this._items.length - 1) {
          this.focusIndex(index + 1);
        }
        break;
      case 'ArrowUp':
        if (inSelect) {
          handled = false;
        } else if (index > 0) {
          this.focusIndex(index - 1);
        } else {
          this._search.focus();
        }
        break;
      case 'Home':
        this.focusIndex(0);
        break;
      case 'End':
        this.focusIndex(this._items.length - 1);
        break;
      case 'ArrowRight':
        controls[Math.min(at + 1, controls.length - 1)]?.focus();
        break;
      case 'ArrowLeft':
        if (at <= 0) {
          item.focus();
        } else {
          controls[at - 1].focus();
        }
        break;
      case 'Escape':
        handled = !onItem;
        item.focus();
        break;
      default:
        handled = onItem && this.onItemKey(event.key, p, item);
    }
    if (handled) {
      event.preventDefault();
      event.stopPropagation();
    }
  }

  /** The shortcuts of a focused item (not of its controls): what a key did, or false. */
  private onItemKey(key: string, p: IProposal, item: HTMLElement): boolean {
    switch (key.toLowerCase()) {
      case 'enter':
        this.applySuggested(p, item);
        return true;
      case 'u':
        void this.apply(p.id, 'user', null);
        return true;
      case 'p':
        if (p.project) {
          void this.apply(p.id, 'project', p.project);
        } else {
          this.pickFirst(item);
        }
        return true;
      case 'd':
      case 'delete':
        void this.dismiss(p.id, p.source);
        return true;
      default:
        return false;
    }
  }

  private _generation = 0;
  /** Refreshes asked and not yet answered. */
  private _refreshing = 0;
  private _shown = 0;
  private _typing = 0;
  private _frame = 0;
  private _items: IProposal[] = [];
  private _last: IQueue | null = null;
  private _active: string | null = null;
  private _range: [number, number] = [0, 0];
  private _scroller: HTMLElement | null = null;
  private readonly _nodes = new Map<string, HTMLElement>();
  private readonly _heights = new Map<string, number>();
  private readonly _cells = new Map<string, Promise<number | null>>();
  private readonly _cellNumbers = new Map<string, number | null>();
  private readonly _search: HTMLInputElement;
  private readonly _layer: HTMLSelectElement;
  private readonly _kind: HTMLSelectElement;
  private readonly _source: HTMLSelectElement;
  private readonly _more: HTMLButtonElement;
  private readonly _picked = new Map<string, string>();
  private _projects: IProject[] = [];
  private readonly _list: HTMLUListElement;
  private readonly _skipped: HTMLUListElement;
  private readonly _applied: HTMLUListElement;
  private readonly _appliedHead: HTMLDivElement;
  private readonly _status: HTMLDivElement;
}
