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
import { alreadyDecided, fromCell, savedText, sourceLabel } from './decided';
import type { IAppliedList, IProcessAllPlan, IRevertResult } from './schemas';
import { button, clear, el, setStatus } from './dom';
import type { Trans } from './i18n';

/** Where the evidence quote came from, as one line of text. */
export function originLine(trans: Trans, p: IProposal): string {
  const origin = p.quote_origin ?? {};
  const parts: string[] = [];
  if (origin.notebook_path) {
    parts.push(String(origin.notebook_path));
  }
  if (origin.cell_id) {
    parts.push(trans.__('cell %1', String(origin.cell_id)));
  }
  if (origin.message_id) {
    parts.push(trans.__('chat message %1', String(origin.message_id)));
  }
  return parts.length
    ? trans.__('from %1', parts.join(' · '))
    : trans.__('origin not recorded');
}

/** Pending items per page of the queue (the server answers at most MAX_PAGE). */
const PAGE = 100;
const MAX_PAGE = 500;

/**
 * Queued Knowledge: pending proposals only, with Apply to User / Project,
 * Dismiss and Process all. Items are focusable; arrow keys move between them.
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
      attrs: { role: 'list', 'aria-label': trans.__('Queued knowledge') }
    });
    this._list.addEventListener('keydown', event => this.onKey(event));
    // The queue comes one page at a time (issue 16): 5,000 items drawn at
    // once froze the page; "Show more" asks for the next page.
    this._more = button(trans.__('Show more'), () => void this.loadMore(), {
      className: 'jm-queue-more'
    });
    this._more.hidden = true;
    this.node.append(
      el('div', { className: 'jm-toolbar' }, [processAll]),
      this._status,
      this._skipped,
      this._list,
      this._more,
      this._appliedHead,
      this._applied
    );
  }

  /** The proposal whose item has focus (for the command palette actions). */
  get focusedId(): string | null {
    const item = (document.activeElement as HTMLElement | null)?.closest?.(
      '.jm-queue-item'
    ) as HTMLElement | null;
    if (item && this._list.contains(item)) {
      return item.dataset.id ?? null;
    }
    const first = this._list.querySelector(
      '.jm-queue-item'
    ) as HTMLElement | null;
    return first?.dataset.id ?? null;
  }

  async refresh(): Promise<void> {
    const gen = ++this._generation;
    try {
      const [queue, projects] = await Promise.all([
        requestAPI<IQueue>(
          'queue',
          {},
          // What was shown stays shown after a change (up to the server's page cap).
          { limit: String(Math.min(Math.max(PAGE, this._shown), MAX_PAGE)) }
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
    }
  }

  /** The next page of pending items, added below those shown. */
  async loadMore(): Promise<void> {
    const gen = this._generation;
    try {
      const queue = await requestAPI<IQueue>(
        'queue',
        {},
        { offset: String(this._shown), limit: String(PAGE) }
      );
      if (gen !== this._generation) {
        return; // a refresh redrew the list meanwhile
      }
      this.append(queue);
    } catch (error) {
      setStatus(
        this._status,
        this.trans.__('Could not load more: %1', errorMessage(error)),
        'error'
      );
    }
  }

  private append(queue: IQueue): void {
    const fragment = document.createDocumentFragment();
    for (const p of queue.items) {
      fragment.appendChild(this.renderItem(p));
    }
    this._list.appendChild(fragment);
    this._shown = queue.offset + queue.items.length;
    this.node.dataset.shown = String(this._shown);
    this._more.hidden = queue.more === 0;
    this._more.textContent = this.trans.__(
      'Show %1 more (%2 not shown)',
      Math.min(PAGE, queue.more),
      queue.more
    );
  }

  private render(queue: IQueue): void {
    clear(this._list);
    this.append(queue);
    this.node.dataset.count = String(queue.count);
    this.node.dataset.loaded = 'true';
    if (!queue.enabled) {
      setStatus(
        this._status,
        this.trans.__(
          'Memory is disabled: nothing is captured or injected. Review still works.'
        ),
        'info'
      );
    } else if (queue.count === 0) {
      setStatus(this._status, this.trans.__('No pending proposals.'), 'info');
    } else if (queue.more > 0) {
      setStatus(
        this._status,
        this.trans.__('%1 pending · first %2 shown', queue.count, this._shown),
        'info'
      );
    } else {
      setStatus(this._status, this.trans.__('%1 pending', queue.count), 'info');
    }
  }

  private renderItem(p: IProposal): HTMLElement {
    const item = el('li', {
      className: 'jm-queue-item',
      attrs: { tabindex: '0', role: 'listitem', 'data-id': p.id }
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
    item.append(
      el('div', { className: 'jm-item-head' }, [
        el('span', { className: `jm-kind jm-kind-${p.kind}`, text: kind }),
        el('span', { className: 'jm-source', text: source }),
        el('span', { className: 'jm-target', text: target })
      ]),
      el('div', { className: 'jm-item-text', text: p.text }),
      el('blockquote', { className: 'jm-evidence', text: p.evidence_quote }),
      el('div', { className: 'jm-origin', text: originLine(trans, p) })
    );
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
        { className: 'jm-apply-user' }
      )
    );
    if (p.project) {
      actions.appendChild(
        button(
          trans.__('Apply to Project'),
          () => void this.apply(p.id, 'project', p.project ?? null),
          {
            className: 'jm-apply-project',
            title: trans.__('Apply to project %1', p.project)
          }
        )
      );
    } else {
      actions.appendChild(this.projectPicker(p.id));
    }
    actions.appendChild(
      button(trans.__('Dismiss'), () => void this.dismiss(p.id, p.source), {
        className: 'jm-dismiss'
      })
    );
    item.appendChild(actions);
    return item;
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
      const summary = trans.__(
        'Processed: %1 to User, %2 to Project, %3 skipped',
        where.user,
        where.project,
        result.skipped.length
      );
      // Never green when something failed.
      if (result.ok) {
        Notification.success(summary, { autoClose: 4000 });
      } else {
        Notification.error(trans.__('%1 · %2 failed', summary, failed), {
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

  private removeItem(id: string): void {
    for (const node of Array.from(
      this._list.querySelectorAll('.jm-queue-item')
    )) {
      if ((node as HTMLElement).dataset.id === id) {
        node.remove();
      }
    }
  }

  private onKey(event: KeyboardEvent): void {
    const items = Array.from(
      this._list.querySelectorAll('.jm-queue-item')
    ) as HTMLElement[];
    const current = (event.target as HTMLElement).closest(
      '.jm-queue-item'
    ) as HTMLElement | null;
    const index = current ? items.indexOf(current) : -1;
    if (event.key === 'ArrowDown' && index < items.length - 1) {
      items[index + 1].focus();
      event.preventDefault();
    } else if (event.key === 'ArrowUp' && index > 0) {
      items[index - 1].focus();
      event.preventDefault();
    }
  }

  private _generation = 0;
  private _shown = 0;
  private readonly _more: HTMLButtonElement;
  private readonly _picked = new Map<string, string>();
  private _projects: IProject[] = [];
  private readonly _list: HTMLUListElement;
  private readonly _skipped: HTMLUListElement;
  private readonly _applied: HTMLUListElement;
  private readonly _appliedHead: HTMLDivElement;
  private readonly _status: HTMLDivElement;
}
