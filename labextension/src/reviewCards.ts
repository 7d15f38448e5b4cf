import type { IRenderMime } from '@jupyterlab/rendermime-interfaces';

import { errorMessage, MemoryApiError, postJSON, requestAPI } from './api';
import { button, clear, el } from './dom';
import type { Trans } from './i18n';
import { BATCH, CardFrame, LiveCardHub, liveCardsFactory } from './liveCards';
import { memoryTierLabel, memoryTypeLabel, quoteSourceLabel } from './labels';
import { sourceLabels } from './decided';
import type {
  IProposal,
  IReviewDecision,
  IReviewState,
  IReviewStates
} from './schemas';

/**
 * Review cards of `%memories --review` in notebooks: outputs of our own MIME
 * type, drawn from each memory's live review state over REST instead of from
 * kernel state (they used to be ipywidgets, which said "model not found" after
 * a kernel restart), so a card reads the same after a save, a reload, a kernel
 * restart and with no kernel at all, and follows a decision made anywhere.
 */

export const REVIEW_MIME = 'application/vnd.jupyter-memory.review+json';

/** One card as the kernel wrote it into the output (widgets/review_cards.py). */
export interface IReviewSnapshot {
  id: string;
  home: string;
  state: string;
  title: string;
  text: string;
  kind: string;
  tier: string;
  source: string;
  scene: string | null;
  layer: string;
  project: string | null;
  quotes: { quote: string; source: string | null }[];
  promotable: boolean;
  promoted_to: string | null;
  note: string | null;
}

export type ReviewCardState =
  | 'snapshot'
  | 'unreviewed'
  | 'kept'
  | 'promoted'
  | 'discarded'
  | 'missing'
  | 'offline';

const DECIDED: ReviewCardState[] = ['kept', 'promoted', 'discarded'];

function decideHint(id: string): string {
  return `%memory keep ${id} · %memory discard ${id} · %memory promote ${id} --kind rule|info`;
}

/** What became of a promoted memory's proposal, in the card's words. */
export function promotedText(
  trans: Trans,
  proposalId: string,
  proposal: IProposal | null
): string {
  switch (proposal?.status) {
    case 'pending':
      return trans.__(
        'Promoted to knowledge · proposal %1 waits in the queue',
        proposalId
      );
    case 'applied':
      return proposal.applied_to === 'project'
        ? trans.__(
            'Promoted to knowledge · proposal %1 saved to Project · %2',
            proposalId,
            proposal.applied_project ?? ''
          )
        : trans.__(
            'Promoted to knowledge · proposal %1 saved to User',
            proposalId
          );
    case 'dismissed':
      return trans.__(
        'Promoted to knowledge · proposal %1 dismissed',
        proposalId
      );
    default:
      return trans.__('Promoted to knowledge · proposal %1', proposalId);
  }
}

/**
 * Every live review card of the page (see liveCards.ts): one request per
 * project for the cards rendered together, and a change event (a memory
 * written, the queue, the projects) asks for all again.
 */
export class ReviewHub extends LiveCardHub<ReviewCard> {
  constructor(trans: Trans) {
    super(trans, 'jmReviewCards');
  }

  protected changed(area: string): void {
    // A promoted memory's card follows its proposal too (area queue).
    if (['memories', 'queue', 'projects'].includes(area)) {
      this.refreshAll();
    }
  }

  protected waiting(card: ReviewCard): boolean {
    return card.state === 'unreviewed' || card.state === 'offline';
  }

  protected async fetch(cards: ReviewCard[]): Promise<void> {
    // A project-layer memory is looked up in its project (the server focuses none).
    const byProject = new Map<string, Set<string>>();
    for (const card of cards) {
      const key = card.snapshot.project ?? '';
      const ids = byProject.get(key) ?? new Set<string>();
      ids.add(card.id);
      byProject.set(key, ids);
    }
    for (const [project, idSet] of byProject) {
      const ids = Array.from(idSet);
      for (let i = 0; i < ids.length; i += BATCH) {
        await this.askChunk(project, ids.slice(i, i + BATCH));
      }
    }
  }

  private async askChunk(project: string, chunk: string[]): Promise<void> {
    const mine = (card: ReviewCard) =>
      chunk.includes(card.id) && (card.snapshot.project ?? '') === project;
    try {
      const states = await requestAPI<IReviewStates>(
        'review',
        {},
        { ids: chunk.join(','), project }
      );
      const byId = new Map(states.items.map(s => [s.id, s]));
      for (const card of this.cards) {
        if (!mine(card)) {
          continue;
        }
        const live = byId.get(card.id);
        if (live) {
          card.showLive(live);
        } else if (states.missing.includes(card.id)) {
          card.showGone(states.home);
        }
      }
    } catch (error) {
      for (const card of this.cards) {
        if (mine(card)) {
          card.showOffline(errorMessage(error));
        }
      }
    }
  }
}

/** One memory's review card: drawn from the snapshot, then from the live state. */
export class ReviewCard extends CardFrame {
  constructor(
    readonly snapshot: IReviewSnapshot,
    private readonly hub: ReviewHub,
    private readonly onLive: () => void
  ) {
    super(snapshot.id, 'jm-card jm-review-card', 'jm-card-note jm-review-note');
    this.trans = hub.trans;
    this.drawBody(snapshot);
    this._actions.appendChild(
      el('span', {
        className: 'jm-review-checking',
        text: this.trans.__('Checking the memory…')
      })
    );
  }

  live = false;

  get state(): ReviewCardState {
    return (this.node.dataset.state as ReviewCardState) ?? 'snapshot';
  }

  /** The memory's review as the server reads it now. */
  showLive(s: IReviewState): void {
    if (s.state === 'unreviewed' && DECIDED.includes(this.state)) {
      return; // an answer older than the decision: a review is never undone
    }
    this.drawBody(s);
    if (s.state === 'kept') {
      // A click that met a Keep made elsewhere keeps saying so.
      if (!this._elsewhere) {
        this.decided('kept', this.trans.__('Kept'));
      }
    } else if (s.state === 'promoted') {
      this.decided(
        'promoted',
        promotedText(this.trans, s.promoted_to ?? '', s.proposal)
      );
      if (s.proposal && s.proposal.status !== 'pending') {
        this.say(''); // "still waits for Apply" no longer holds
      }
    } else if (this.state !== 'unreviewed') {
      this.node.dataset.state = 'unreviewed';
      this.drawButtons(s.promotable);
    }
    this.markLive();
  }

  /**
   * Not in the memory home this server reads: discarded or forgotten there when
   * the card was made in that home, else it lives in another one.
   */
  showGone(serverHome: string): void {
    if (serverHome === this.snapshot.home) {
      this.decided('discarded', this.trans.__('Discarded'));
    } else {
      this.node.dataset.state = 'missing';
      clear(this._actions);
      this.say(
        this.trans.__(
          'Memory %1 is not in the memory home this Jupyter server reads. Review it where it was made: %2',
          this.id,
          decideHint(this.id)
        )
      );
    }
    this.markLive();
  }

  /** No answer from the REST API: keep the snapshot and say how to review anyway. */
  showOffline(message: string): void {
    if (this.live && this.state !== 'unreviewed') {
      return; // a decided card stays decided
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

  private drawBody(m: IReviewSnapshot | IReviewState): void {
    clear(this._body);
    const trans = this.trans;
    const scene = m.scene ? trans.__('scene %1', m.scene) : '';
    const source = m.source
      ? ((sourceLabels(trans) as Record<string, string>)[m.source] ?? m.source)
      : '';
    const what = [
      memoryTypeLabel(trans, m.kind),
      memoryTierLabel(trans, m.tier),
      scene,
      source
    ]
      .filter(Boolean)
      .join(' · ');
    this._body.appendChild(
      el('div', { className: 'jm-card-head' }, [
        el('strong', { className: 'jm-review-title', text: m.title }),
        el('span', { className: 'jm-card-quote', text: ` · ${what}` })
      ])
    );
    // A digest's title is often the text's first words: say it once.
    if (m.text.trim() !== m.title.trim()) {
      this._body.appendChild(
        el('div', { className: 'jm-card-text', text: m.text })
      );
    }
    for (const q of m.quotes) {
      this._body.appendChild(
        el('div', { className: 'jm-card-quote' }, [
          el('span', { text: `“${q.quote}”` }),
          el('span', {
            className: 'jm-card-origin',
            text: q.source ? ` — ${quoteSourceLabel(trans, q.source)}` : ''
          })
        ])
      );
    }
    if (m.quotes.length === 0) {
      this._body.appendChild(
        el('div', {
          className: 'jm-card-quote',
          text: trans.__('(no words of yours: from agent replies)')
        })
      );
    }
  }

  private decided(state: ReviewCardState, text: string): void {
    this.node.dataset.state = state;
    clear(this._actions);
    this._actions.appendChild(
      el('div', { className: 'jm-card-outcome jm-review-outcome', text })
    );
  }

  private drawButtons(promotable: boolean): void {
    const trans = this.trans;
    clear(this._actions);
    this.say('');
    const kind = el('select', {
      className: 'jm-review-kind',
      attrs: { 'aria-label': trans.__('Promote as') }
    });
    kind.append(
      el('option', { text: trans.__('Rule'), attrs: { value: 'rule' } }),
      el('option', { text: trans.__('Info'), attrs: { value: 'info' } })
    );
    const promote = button(
      trans.__('Promote to knowledge'),
      () => void this.decide('promote', { kind: kind.value }),
      {
        className: 'jm-review-promote',
        title: promotable
          ? trans.__('Queue a knowledge proposal quoting your original words')
          : trans.__(
              'No words of yours to quote (it came from agent replies): it cannot become a proposal'
            )
      }
    );
    promote.disabled = !promotable;
    kind.disabled = !promotable;
    this._actions.append(
      button(trans.__('Keep'), () => void this.decide('keep'), {
        className: 'jm-review-keep',
        title: trans.__('Keep it as a reviewed memory')
      }),
      button(trans.__('Discard'), () => void this.decide('discard'), {
        className: 'jm-review-discard',
        title: trans.__('Forget this memory')
      }),
      promote,
      kind
    );
  }

  private async decide(
    decision: 'keep' | 'discard' | 'promote',
    extra: Record<string, string> = {}
  ): Promise<void> {
    const trans = this.trans;
    const controls = Array.from(
      this._actions.querySelectorAll('button, select')
    ) as (HTMLButtonElement | HTMLSelectElement)[];
    for (const c of controls) {
      c.disabled = true; // one decision per click
    }
    try {
      const result = await postJSON<IReviewDecision>(
        `review/${encodeURIComponent(this.id)}/${decision}`,
        { project: this.snapshot.project, ...extra }
      );
      if (result.status === 'kept') {
        this.decided('kept', trans.__('Kept'));
        this.say(trans.__('Reviewed: agents may recall it.'));
      } else if (result.status === 'discarded') {
        this.decided('discarded', trans.__('Discarded'));
        this.say(trans.__('Forgotten.'));
      } else if (result.status === 'promoted') {
        const pid = String(result.proposal?.id ?? '');
        // The queue's answer carries the new proposal (pending), as GET review would.
        const queued =
          (result.proposal?.proposal as IProposal | undefined) ?? null;
        this.decided('promoted', promotedText(trans, pid, queued));
        this.say(trans.__('It still waits for Apply in the queue.'));
      } else {
        this.say(
          trans.__(
            'Not queued: %1',
            result.reason ?? trans.__('the queue already has it')
          )
        );
        for (const c of controls) {
          c.disabled = false;
        }
      }
    } catch (error) {
      const elsewhere = this.decidedElsewhere(error);
      if (elsewhere) {
        this.say(trans.__('Nothing was written.'));
        // The live state says exactly what happened (a promotion's proposal too).
        this.hub.refreshAll();
        return;
      }
      this.say(errorMessage(error), 'error');
      for (const c of controls) {
        c.disabled = false;
      }
    }
  }

  /** A 409 (reviewed meanwhile) or 404 (discarded meanwhile) is news, not a failure. */
  private decidedElsewhere(error: unknown): boolean {
    if (!(error instanceof MemoryApiError)) {
      return false;
    }
    const trans = this.trans;
    const state = error.payload?.state;
    this._elsewhere = true;
    if (error.status === 409 && state === 'already_kept') {
      this.decided('kept', trans.__('Already kept elsewhere'));
      return true;
    }
    if (error.status === 409 && state === 'already_promoted') {
      this.decided('promoted', trans.__('Already promoted elsewhere'));
      return true;
    }
    if (error.status === 404 && error.payload?.field === undefined) {
      this.decided('discarded', trans.__('Already discarded elsewhere'));
      return true;
    }
    this._elsewhere = false;
    return false;
  }

  private readonly trans: Trans;
  private _elsewhere = false;
}

/** The rendermime factory of review cards (liveCards.ts). */
export function reviewRendererFactory(
  hub: ReviewHub
): IRenderMime.IRendererFactory {
  return liveCardsFactory<IReviewSnapshot, ReviewCard>(
    REVIEW_MIME,
    hub,
    (snapshot, onLive) => new ReviewCard(snapshot, hub, onLive),
    ['jm-cards', 'jm-review-cards']
  );
}
