import type { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import type { Event } from '@jupyterlab/services';
import { Widget } from '@lumino/widgets';

import { errorMessage, MemoryApiError, postJSON, requestAPI } from './api';
import { button, clear, el } from './dom';
import type { Trans } from './i18n';
import { memoryTierLabel, memoryTypeLabel } from './labels';
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

/** The server event announcing a change (changes.py); mirrors index.ts. */
const CHANGED_SCHEMA = 'https://jupyter-memory.github.io/events/changed/v1';

/** The server answers at most this many ids per request (review_routes.py). */
const BATCH = 200;

/** While the event stream is down, undecided cards ask again this often. */
const SAFETY_POLL_MS = 10_000;

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

interface IPayload {
  version: number;
  cards: IReviewSnapshot[];
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
 * Every live review card of the page, and the one place that asks the server
 * about them: one request per project for the cards rendered together, and a
 * change event (a memory written, the queue, the projects) asks for all again.
 */
export class ReviewHub {
  constructor(readonly trans: Trans) {}

  follow(events: Event.IManager): void {
    events.stream.connect((_, event) => {
      if (event.schema_id !== CHANGED_SCHEMA) {
        return;
      }
      // A promoted memory's card follows its proposal too (area queue).
      if (['memories', 'queue', 'projects'].includes(String(event.area))) {
        this.refreshAll();
      }
    });
  }

  add(card: ReviewCard): void {
    this._cards.add(card);
    this.count();
    this.ask([card]);
    if (this._poll === null) {
      this._poll = window.setInterval(() => this.poll(), SAFETY_POLL_MS);
    }
  }

  /** A card whose output was cleared or closed: no longer asked about. */
  remove(card: ReviewCard): void {
    this._cards.delete(card);
    this.count();
    if (this._cards.size === 0 && this._poll !== null) {
      window.clearInterval(this._poll);
      this._poll = null;
    }
  }

  refreshAll(): void {
    this.ask(Array.from(this._cards));
  }

  private count(): void {
    document.body.dataset.jmReviewCards = String(this._cards.size);
  }

  private poll(): void {
    if (document.visibilityState !== 'visible') {
      return;
    }
    this.ask(
      Array.from(this._cards).filter(
        card => card.state === 'unreviewed' || card.state === 'offline'
      )
    );
  }

  private ask(cards: ReviewCard[]): void {
    for (const card of cards) {
      this._wanted.add(card);
    }
    if (this._wanted.size && this._timer === null) {
      this._timer = window.setTimeout(() => void this.flush(), 0);
    }
  }

  private async flush(): Promise<void> {
    this._timer = null;
    // A project-layer memory is looked up in its project (the server focuses none).
    const byProject = new Map<string, Set<string>>();
    for (const card of this._wanted) {
      const key = card.snapshot.project ?? '';
      const ids = byProject.get(key) ?? new Set<string>();
      ids.add(card.id);
      byProject.set(key, ids);
    }
    this._wanted.clear();
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
      for (const card of this._cards) {
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
      for (const card of this._cards) {
        if (mine(card)) {
          card.showOffline(errorMessage(error));
        }
      }
    }
  }

  private readonly _cards = new Set<ReviewCard>();
  private readonly _wanted = new Set<ReviewCard>();
  private _timer: number | null = null;
  private _poll: number | null = null;
}

/** One memory's review card: drawn from the snapshot, then from the live state. */
export class ReviewCard {
  constructor(
    readonly snapshot: IReviewSnapshot,
    private readonly hub: ReviewHub,
    private readonly onLive: () => void
  ) {
    this.id = snapshot.id;
    this.trans = hub.trans;
    this.node = el('div', {
      className: 'jm-card jm-review-card',
      attrs: { 'data-id': this.id, 'data-state': 'snapshot' }
    });
    this._body = el('div', { className: 'jm-card-body' });
    this._actions = el('div', { className: 'jm-card-actions' });
    this._note = el('div', {
      className: 'jm-card-note jm-review-note',
      attrs: { role: 'status' }
    });
    this.node.append(this._body, this._actions, this._note);
    this.drawBody(snapshot);
    this._actions.appendChild(
      el('span', {
        className: 'jm-review-checking',
        text: this.trans.__('Checking the memory…')
      })
    );
  }

  readonly id: string;
  readonly node: HTMLDivElement;
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
            text: q.source ? ` — ${q.source}` : ''
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

  private say(text: string, tone: 'info' | 'error' = 'info'): void {
    this._note.textContent = text;
    this._note.dataset.tone = tone;
  }

  private readonly trans: Trans;
  private _elsewhere = false;
  private readonly _body: HTMLDivElement;
  private readonly _actions: HTMLDivElement;
  private readonly _note: HTMLDivElement;
}

/** The output: one card per memory in the payload. */
export class ReviewCardsRenderer
  extends Widget
  implements IRenderMime.IRenderer
{
  constructor(private readonly hub: ReviewHub) {
    super();
    this.addClass('jm-cards');
    this.addClass('jm-review-cards');
  }

  async renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    const started = performance.now();
    const payload = model.data[REVIEW_MIME] as unknown as IPayload;
    this.forget();
    clear(this.node);
    const snapshots = Array.isArray(payload?.cards) ? payload.cards : [];
    let waiting = snapshots.length;
    const onLive = () => {
      waiting -= 1;
      if (waiting === 0) {
        // From the output's render to every card showing the live state.
        this.node.dataset.renderMs = String(
          Math.round(performance.now() - started)
        );
        this.node.dataset.live = 'true';
      }
    };
    for (const snapshot of snapshots) {
      const card = new ReviewCard(snapshot, this.hub, onLive);
      this._cards.push(card);
      this.node.appendChild(card.node);
      this.hub.add(card);
    }
  }

  dispose(): void {
    this.forget();
    super.dispose();
  }

  private forget(): void {
    for (const card of this._cards) {
      this.hub.remove(card);
    }
    this._cards = [];
  }

  private _cards: ReviewCard[] = [];
}

/** The rendermime factory: safe, since every stored string goes in as text. */
export function reviewRendererFactory(
  hub: ReviewHub
): IRenderMime.IRendererFactory {
  return {
    safe: true,
    mimeTypes: [REVIEW_MIME],
    defaultRank: 10,
    createRenderer: () => new ReviewCardsRenderer(hub)
  };
}
