import type { IRenderMime } from '@jupyterlab/rendermime-interfaces';

import { errorMessage, IProject, postJSON, requestAPI } from './api';
import {
  alreadyDecided,
  fromCell,
  outcomeText,
  savedText,
  sourceLabel
} from './decided';
import { button, clear, el } from './dom';
import type { Trans } from './i18n';
import { BATCH, CardFrame, LiveCardHub, liveCardsFactory } from './liveCards';
import type {
  IAppliedProposal,
  IProposal,
  IProposalStates,
  IRevertResult
} from './schemas';

/**
 * Proposal cards in notebooks: outputs of our own MIME type, drawn from the
 * live queue over REST instead of from kernel state, so a card reads the same
 * after a save, a reload, a kernel restart, and with no kernel at all.
 */

export const PROPOSAL_MIME = 'application/vnd.jupyter-memory.proposal+json';

/** One card as the kernel wrote it into the output (widgets/cards.py). */
export interface ICardSnapshot {
  id: string;
  kind: string;
  text: string;
  evidence_quote: string;
  origin: string;
  source: string;
  status: string;
  outcome: string | null;
  project: string | null;
  note: string | null;
  /** Its quote is a notebook cell's: "from a cell" rather than "from a chat". */
  from_cell?: boolean;
  /** "Replaces: “…”", in the kernel's language, when it supersedes a pending proposal. */
  replaces?: string | null;
  /** The nearest approved and pending entries when the output was made ("May conflict with: “…”"). */
  context?: string[];
}

/** The magics that decide a proposal: code, the same in every language. */
function decideHint(id: string): string {
  return `%memory apply ${id} --to user · %memory dismiss ${id}`;
}

/**
 * Every live proposal card of the page (see liveCards.ts); a card with no
 * project offers the known projects, asked once and kept until they change.
 */
export class CardHub extends LiveCardHub<ProposalCard> {
  constructor(trans: Trans) {
    super(trans, 'jmCards');
  }

  /** Known projects for the picker of a card with no project (cached). */
  projects(): Promise<IProject[]> {
    if (this._projects === null) {
      this._projects = requestAPI<{ projects: IProject[] }>('projects').then(
        data => data.projects,
        () => []
      );
    }
    return this._projects;
  }

  protected changed(area: string): void {
    if (area === 'projects') {
      this._projects = null;
    }
    if (area === 'queue' || area === 'projects') {
      this.refreshAll();
    }
  }

  protected waiting(card: ProposalCard): boolean {
    return card.state === 'pending' || card.state === 'offline';
  }

  protected async fetch(cards: ProposalCard[]): Promise<void> {
    const ids = Array.from(new Set(cards.map(card => card.id)));
    for (let i = 0; i < ids.length; i += BATCH) {
      const chunk = ids.slice(i, i + BATCH);
      try {
        const states = await requestAPI<IProposalStates>(
          'queue/proposals',
          {},
          { ids: chunk.join(',') }
        );
        const byId = new Map(states.items.map(p => [p.id, p]));
        for (const card of this.cards) {
          const live = byId.get(card.id);
          if (live) {
            card.showLive(live);
          } else if (states.missing.includes(card.id)) {
            card.showMissing();
          }
        }
      } catch (error) {
        for (const card of this.cards) {
          if (chunk.includes(card.id)) {
            card.showOffline(errorMessage(error));
          }
        }
      }
    }
  }

  private _projects: Promise<IProject[]> | null = null;
}

export type CardState =
  | 'snapshot'
  | 'pending'
  | 'applied'
  | 'dismissed'
  | 'superseded'
  | 'decided-elsewhere'
  | 'missing'
  | 'offline';

/** One proposal's card: drawn from the snapshot, then from the live proposal. */
export class ProposalCard extends CardFrame {
  constructor(
    readonly snapshot: ICardSnapshot,
    private readonly hub: CardHub,
    private readonly onLive: () => void
  ) {
    super(snapshot.id, 'jm-card', 'jm-card-note');
    this.trans = hub.trans;
    this.drawBody(
      snapshot.kind,
      snapshot.text,
      snapshot.evidence_quote,
      snapshot.replaces ?? null
    );
    if (snapshot.outcome) {
      this.setOutcome(snapshot.outcome);
    }
  }

  private readonly trans: Trans;
  live = false;

  get state(): CardState {
    return (this.node.dataset.state as CardState) ?? 'snapshot';
  }

  private get decided(): boolean {
    return ['applied', 'dismissed', 'superseded', 'decided-elsewhere'].includes(
      this.state
    );
  }

  /** The proposal as the queue holds it now. */
  showLive(p: IProposal): void {
    // An answer older than the decision is stale, unless the Apply was reverted since
    // (issue 32): then the proposal is pending again and the card turns back.
    const reverted = Boolean(p.reverted_at);
    if (p.status === 'pending' && this.decided && !reverted) {
      return;
    }
    this.drawBody(
      p.kind,
      p.text,
      p.evidence_quote,
      p.supersedes_text
        ? this.trans.__('Replaces: “%1”', p.supersedes_text)
        : null,
      fromCell(p) // the live proposal knows, also for an output made before from_cell
    );
    const outcome = outcomeText(this.trans, p);
    if (outcome) {
      // A card whose own click met a decision made elsewhere keeps saying so.
      if (this.state !== 'decided-elsewhere') {
        this.node.dataset.state = p.status;
        this.setOutcome(outcome);
        if (p.status === 'applied') {
          this.offerRevert();
        }
      }
    } else if (this.state !== 'pending') {
      this.node.dataset.state = 'pending';
      this.node.dataset.reverted = reverted ? 'true' : 'false';
      void this.drawPending(p);
    }
    this.markLive();
  }

  /** Not in the queue this server reads: another memory home, or a removed file. */
  showMissing(): void {
    this.node.dataset.state = 'missing';
    clear(this._actions);
    this.say(
      this.trans.__(
        'Proposal %1 is not in the queue this Jupyter server reads (another memory home, or its file was removed). Decide it where it was made: %2',
        this.id,
        decideHint(this.id)
      )
    );
    this.markLive();
  }

  /** No answer from the REST API: keep the snapshot and say how to decide anyway. */
  showOffline(message: string): void {
    if (this.live && this.state !== 'pending') {
      return; // a decided card stays decided; nothing can undo a decision
    }
    this.node.dataset.state = 'offline';
    clear(this._actions);
    this.say(
      this.trans.__(
        'Live state unavailable (%1). In a cell: %2',
        message,
        decideHint(this.id)
      ),
      'error'
    );
    this.markLive();
  }

  private markLive(): void {
    if (!this.live) {
      this.live = true;
      this.node.dataset.live = 'true';
      this.onLive();
    }
  }

  private drawBody(
    kind: string,
    text: string,
    quote: string,
    replaces: string | null = null,
    cell: boolean = !!this.snapshot.from_cell
  ): void {
    clear(this._body);
    const trans = this.trans;
    const source = this.snapshot.source
      ? sourceLabel(trans, this.snapshot.source, cell)
      : '';
    const origin = [this.snapshot.origin, source].filter(Boolean).join(' · ');
    this._body.append(
      el('div', { className: 'jm-card-head' }, [
        el('span', {
          className: `jm-kind jm-kind-${kind}`,
          text:
            kind === 'rule'
              ? trans.__('Rule')
              : kind === 'info'
                ? trans.__('Info')
                : kind
        }),
        el('span', { className: 'jm-card-text', text })
      ]),
      el('div', { className: 'jm-card-quote' }, [
        el('span', { text: `“${quote}”` }),
        el('span', {
          className: 'jm-card-origin',
          text: origin ? ` — ${origin}` : ''
        })
      ])
    );
    if (replaces) {
      // What it replaces, in words (issue 32): never a bare proposal id.
      this._body.appendChild(
        el('div', { className: 'jm-card-replaces', text: replaces })
      );
    }
    // What the kernel found near it: the person decides with it in view (issue 32).
    for (const line of this.snapshot.context ?? []) {
      this._body.appendChild(
        el('div', { className: 'jm-card-context', text: line })
      );
    }
  }

  private setOutcome(text: string): void {
    clear(this._actions);
    this._actions.appendChild(
      el('div', { className: 'jm-card-outcome', text })
    );
  }

  /** An applied card offers to undo it; the person picks what becomes of the proposal. */
  private offerRevert(): void {
    const trans = this.trans;
    const revert = button(trans.__('Revert'), () => choose(), {
      className: 'jm-card-revert',
      title: trans.__('Take this entry out of its knowledge file again')
    });
    const choose = (): void => {
      revert.remove();
      this._actions.append(
        button(
          trans.__('Back to the queue'),
          () => void this.revert('pending'),
          { className: 'jm-card-revert-pending' }
        ),
        button(
          trans.__('Revert and dismiss'),
          () => void this.revert('dismissed'),
          { className: 'jm-card-revert-dismiss' }
        )
      );
    };
    this._actions.appendChild(revert);
  }

  private async revert(then: 'pending' | 'dismissed'): Promise<void> {
    for (const b of Array.from(this._actions.querySelectorAll('button'))) {
      b.disabled = true;
    }
    try {
      const result = await postJSON<IRevertResult>(
        `queue/${encodeURIComponent(this.id)}/revert`,
        { then }
      );
      this.say(this.trans.__('Removed from %1', result.path));
      if (then === 'dismissed') {
        this.node.dataset.state = 'dismissed';
        this.setOutcome(this.trans.__('Reverted · dismissed'));
      }
      // Back to pending: the change event redraws this card with its buttons.
    } catch (error) {
      this.say(errorMessage(error), 'error');
      for (const b of Array.from(this._actions.querySelectorAll('button'))) {
        b.disabled = false;
      }
    }
  }

  private async drawPending(p: IProposal): Promise<void> {
    clear(this._actions);
    this.say('');
    const trans = this.trans;
    if (p.reverted_at) {
      this._actions.appendChild(
        el('div', {
          className: 'jm-card-reverted',
          text: trans.__('Reverted · back in the queue')
        })
      );
    }
    const user = button(
      trans._p('card button', 'User'),
      () => void this.apply('user', null),
      {
        className: 'jm-card-user',
        title: trans.__('Apply to your User knowledge')
      }
    );
    const dismiss = button(trans.__('Dismiss'), () => void this.dismiss(), {
      className: 'jm-card-dismiss',
      title: trans.__('Never suggest this again')
    });
    const project = p.project ?? this.snapshot.project;
    if (project) {
      this._actions.append(
        user,
        button(
          trans.__('Project · %1', project),
          () => void this.apply('project', project),
          {
            className: 'jm-card-project',
            title: trans.__('Apply to the Project knowledge of %1', project)
          }
        ),
        dismiss
      );
      return;
    }
    const select = el('select', {
      className: 'jm-card-project-select',
      attrs: { 'aria-label': trans.__('Pick project') }
    });
    select.appendChild(
      el('option', { text: trans.__('Pick project…'), attrs: { value: '' } })
    );
    const apply = button(
      trans._p('card button', 'Project'),
      () => {
        if (!select.value) {
          this.say(
            trans.__('Pick a project first (or focus one with %memory focus)'),
            'error'
          );
          return;
        }
        void this.apply('project', select.value);
      },
      { className: 'jm-card-project' }
    );
    this._actions.append(user, select, apply, dismiss);
    for (const known of await this.hub.projects()) {
      select.appendChild(
        el('option', { text: known.id, attrs: { value: known.id } })
      );
    }
  }

  private async apply(
    to: 'user' | 'project',
    project: string | null
  ): Promise<void> {
    await this.decide(async () => {
      const result = await postJSON<IAppliedProposal>(
        `queue/${encodeURIComponent(this.id)}/apply`,
        { to, project }
      );
      this.node.dataset.state = 'applied';
      this.setOutcome(savedText(this.trans, result.layer, result.project));
      this.offerRevert();
      this.say(this.trans.__('Written to %1', result.path));
    });
  }

  private async dismiss(): Promise<void> {
    await this.decide(async () => {
      await postJSON(`queue/${encodeURIComponent(this.id)}/dismiss`);
      this.node.dataset.state = 'dismissed';
      this.setOutcome(this.trans.__('Dismissed'));
      this.say(this.trans.__('It will not be suggested again.'));
    });
  }

  private async decide(act: () => Promise<void>): Promise<void> {
    for (const b of Array.from(this._actions.querySelectorAll('button'))) {
      b.disabled = true; // one decision per click
    }
    try {
      await act();
    } catch (error) {
      const already = alreadyDecided(this.trans, error);
      if (already) {
        this.node.dataset.state = 'decided-elsewhere';
        this.setOutcome(already);
        this.say(this.trans.__('Nothing was written.'));
      } else {
        this.say(errorMessage(error), 'error');
        for (const b of Array.from(this._actions.querySelectorAll('button'))) {
          b.disabled = false;
        }
        return;
      }
    }
    // Other cards of this proposal (this notebook, another tab) hear it through
    // the change event; this one stays as it is.
    this.focusOnwards();
  }

  /**
   * After a decision made here the focus goes on, not to the page body (the
   * clicked button is gone): the next pending card's first button in this output,
   * else the card, where Tab reaches what it offers now (Revert).
   */
  private focusOnwards(): void {
    const active = document.activeElement;
    if (active && active !== document.body && !this.node.contains(active)) {
      return; // the person has moved on meanwhile
    }
    const group = this.node.parentElement;
    const later = group
      ? Array.from(
          group.querySelectorAll<HTMLButtonElement>(
            '.jm-card-actions button:not(:disabled)'
          )
        ).find(
          b =>
            !this.node.contains(b) &&
            !!(
              this.node.compareDocumentPosition(b) &
              Node.DOCUMENT_POSITION_FOLLOWING
            )
        )
      : undefined;
    if (later) {
      later.focus();
      return;
    }
    // The card itself, not a button in it: the queue's change event redraws the
    // card's content (its outcome, its Revert) and would drop a focused child.
    this.node.tabIndex = -1;
    this.node.focus();
  }
}

/** The rendermime factory of proposal cards (liveCards.ts). */
export function cardRendererFactory(
  hub: CardHub
): IRenderMime.IRendererFactory {
  return liveCardsFactory<ICardSnapshot, ProposalCard>(
    PROPOSAL_MIME,
    hub,
    (snapshot, onLive) => new ProposalCard(snapshot, hub, onLive),
    ['jm-cards']
  );
}
