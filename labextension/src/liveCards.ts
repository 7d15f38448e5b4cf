import type { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import type { Event } from '@jupyterlab/services';
import { Widget } from '@lumino/widgets';

import { clear, el, shown } from './dom';
import type { Trans } from './i18n';

/**
 * What proposal cards and review cards share: an output of our own MIME type
 * whose cards draw themselves from the live state on the server, and one hub
 * per kind that asks the server about every card of the page in batches, again
 * on each change event and, while the event stream may be down, by a slow poll.
 */

/** The server event announcing a change (changes.py); mirrors index.ts. */
export const CHANGED_SCHEMA =
  'https://jupyter-memory.github.io/events/changed/v1';

/** The server answers at most this many ids per request (queue/review routes). */
export const BATCH = 200;

/**
 * A second way to notice decisions while the event stream is down (a lost
 * websocket): undecided cards ask again this often. The change feed is the fast path.
 */
const SAFETY_POLL_MS = 10_000;

export interface ILiveCard {
  readonly id: string;
  readonly node: HTMLElement;
}

/**
 * A card's frame: its node (with the id and state the tests and styles read), a
 * body, an action row and a status note that says what a click did.
 */
export abstract class CardFrame implements ILiveCard {
  constructor(
    readonly id: string,
    className: string,
    noteClassName: string
  ) {
    this.node = el('div', {
      className,
      attrs: { 'data-id': id, 'data-state': 'snapshot' }
    });
    this._body = el('div', { className: 'jm-card-body' });
    this._actions = el('div', { className: 'jm-card-actions' });
    this._note = el('div', {
      className: noteClassName,
      attrs: { role: 'status' }
    });
    this.node.append(this._body, this._actions, this._note);
  }

  protected say(text: string, tone: 'info' | 'error' = 'info'): void {
    this._note.textContent = shown(text);
    this._note.dataset.tone = tone;
  }

  readonly node: HTMLDivElement;
  protected readonly _body: HTMLDivElement;
  protected readonly _actions: HTMLDivElement;
  protected readonly _note: HTMLDivElement;
}

export abstract class LiveCardHub<C extends ILiveCard> {
  /** `counter`: the body's data attribute that says how many cards are followed. */
  constructor(
    readonly trans: Trans,
    private readonly counter: string
  ) {}

  /** Listen to the server's change feed (the same events the panel follows). */
  follow(events: Event.IManager): void {
    events.stream.connect((_, event) => {
      if (event.schema_id === CHANGED_SCHEMA) {
        this.changed(String(event.area));
      }
    });
  }

  add(card: C): void {
    this._cards.add(card);
    this.count();
    this.ask([card]);
    if (this._poll === null) {
      this._poll = window.setInterval(() => this.poll(), SAFETY_POLL_MS);
    }
  }

  /** A card whose output was cleared or closed: no longer asked about. */
  remove(card: C): void {
    this._cards.delete(card);
    this.count();
    if (this._cards.size === 0 && this._poll !== null) {
      window.clearInterval(this._poll);
      this._poll = null;
    }
  }

  get size(): number {
    return this._cards.size;
  }

  refreshAll(): void {
    this.ask(Array.from(this._cards));
  }

  /** A change event of this area of the server's state. */
  protected abstract changed(area: string): void;

  /** Still undecided (or unreachable): asked again by the safety poll. */
  protected abstract waiting(card: C): boolean;

  /** Ask the server about these cards and show what it says on every card of their ids. */
  protected abstract fetch(cards: C[]): Promise<void>;

  /** Every followed card (a notebook can show one proposal twice). */
  protected get cards(): ReadonlySet<C> {
    return this._cards;
  }

  /** How many cards are followed, on the page for tests (nothing outlives its output). */
  private count(): void {
    document.body.dataset[this.counter] = String(this._cards.size);
  }

  private poll(): void {
    if (document.visibilityState !== 'visible') {
      return;
    }
    this.ask(Array.from(this._cards).filter(card => this.waiting(card)));
  }

  /** Ask in the next batch (the renderers of a notebook arrive together). */
  private ask(cards: C[]): void {
    for (const card of cards) {
      this._wanted.add(card);
    }
    if (this._wanted.size && this._timer === null) {
      this._timer = window.setTimeout(() => void this.flush(), 0);
    }
  }

  private async flush(): Promise<void> {
    this._timer = null;
    const cards = Array.from(this._wanted);
    this._wanted.clear();
    await this.fetch(cards);
  }

  private readonly _cards = new Set<C>();
  private readonly _wanted = new Set<C>();
  private _timer: number | null = null;
  private _poll: number | null = null;
}

/** The output: one card per snapshot in the payload, each followed by the hub. */
export class LiveCardsOutput<S, C extends ILiveCard>
  extends Widget
  implements IRenderMime.IRenderer
{
  constructor(
    private readonly mime: string,
    private readonly hub: LiveCardHub<C>,
    private readonly make: (snapshot: S, onLive: () => void) => C,
    classes: string[]
  ) {
    super();
    for (const name of classes) {
      this.addClass(name);
    }
  }

  async renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    const started = performance.now();
    // The kernel's payload: { version, cards: [snapshot, …] }.
    const payload = model.data[this.mime] as { cards?: unknown } | undefined;
    this.forget();
    clear(this.node);
    const snapshots = Array.isArray(payload?.cards)
      ? (payload.cards as S[])
      : [];
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
      const card = this.make(snapshot, onLive);
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

  private _cards: C[] = [];
}

/** The rendermime factory: safe, since every stored string goes in as text. */
export function liveCardsFactory<S, C extends ILiveCard>(
  mime: string,
  hub: LiveCardHub<C>,
  make: (snapshot: S, onLive: () => void) => C,
  classes: string[]
): IRenderMime.IRendererFactory {
  return {
    safe: true,
    mimeTypes: [mime],
    defaultRank: 10,
    createRenderer: () => new LiveCardsOutput<S, C>(mime, hub, make, classes)
  };
}
