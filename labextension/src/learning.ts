import { InputDialog, Notification } from '@jupyterlab/apputils';
import { Widget } from '@lumino/widgets';

import { errorMessage, postJSON, requestAPI } from './api';
import { button, clear, el, setStatus } from './dom';
import type {
  ILearnedProposal,
  ILearning,
  ILearningCandidate
} from './schemas';

const STATUS_TEXT: Record<ILearningCandidate['status'], string> = {
  collecting: 'collecting evidence',
  ready: 'ready to propose',
  blocked: 'blocked: no quote long enough for a proposal',
  proposed: 'in the queue',
  rejected: 'rejected: waits for new evidence'
};

/**
 * Self-learning (spec 003): the candidate rules the learner collects evidence
 * for, with their confidence and the thresholds they must pass to become a
 * proposal. The person rejects one with a reason or proposes it now; nothing
 * here applies knowledge. Every stored string goes in as text (invariant 6).
 */
export class LearningView extends Widget {
  constructor() {
    super();
    this.addClass('jm-learning');
    this.id = 'jm-learning';
    this._thresholds = el('div', { className: 'jm-learning-thresholds' });
    this._status = el('div', {
      className: 'jm-status',
      attrs: { role: 'status' }
    });
    this._list = el('ul', {
      className: 'jm-learning-list',
      attrs: { role: 'list' }
    });
    this.node.append(this._thresholds, this._status, this._list);
  }

  async refresh(): Promise<void> {
    try {
      const data = await requestAPI<ILearning>('learning');
      this.render(data);
      this.node.dataset.loaded = 'true';
    } catch (error) {
      setStatus(
        this._status,
        `Could not load the learning candidates: ${errorMessage(error)}`,
        'error'
      );
    }
  }

  private render(data: ILearning): void {
    const t = data.thresholds;
    this._thresholds.textContent =
      `A rule is proposed once its confidence is over ${t.min_confidence} ` +
      `with at least ${t.min_evidence} pieces of evidence (one per session; ` +
      `confidence halves every ${t.half_life_days} days without new evidence; ` +
      `a gotcha is one error ${t.gotcha_repeats} times in a session).`;
    setStatus(
      this._status,
      data.count
        ? `${data.count} candidate rule(s)`
        : 'No candidate rules yet: corrections and repeated errors appear here.',
      'info'
    );
    clear(this._list);
    for (const cand of data.candidates) {
      this._list.appendChild(this.item(cand, t.min_evidence));
    }
    this.node.dataset.count = String(data.count);
  }

  private item(cand: ILearningCandidate, needed: number): HTMLLIElement {
    const evidence = el('ul', { className: 'jm-learning-evidence' });
    for (const piece of cand.evidence_items) {
      evidence.appendChild(
        el(
          'li',
          {
            className: piece.live ? 'jm-evidence' : 'jm-evidence jm-stale',
            title: piece.live ? '' : 'before a rejection: no longer counted'
          },
          [
            el('span', {
              className: 'jm-evidence-meta',
              text: `${piece.at.slice(0, 16)} · ${piece.session}: `
            }),
            el('q', { className: 'jm-quote', text: piece.quote })
          ]
        )
      );
    }
    for (const d of cand.dismissals) {
      evidence.appendChild(
        el('li', {
          className: 'jm-rejection',
          text: `rejected ${d.at.slice(0, 16)}: ${d.reason}`
        })
      );
    }
    const actions = el('div', { className: 'jm-actions' });
    if (cand.status !== 'proposed') {
      actions.append(
        button('Propose now', () => void this.promote(cand), {
          className: 'jm-promote',
          title: 'Queue this rule as a proposal now, below the thresholds'
        }),
        button('Reject…', () => void this.reject(cand), {
          className: 'jm-reject',
          title: 'Say why this rule is wrong; it waits for new evidence'
        })
      );
    }
    const percent = Math.round(cand.confidence * 100);
    return el(
      'li',
      {
        className: `jm-candidate jm-candidate-${cand.status}`,
        attrs: { 'data-key': cand.key, 'data-status': cand.status }
      },
      [
        el('div', { className: 'jm-candidate-rule', text: cand.rule }),
        el('div', {
          className: 'jm-candidate-meta',
          text:
            `${STATUS_TEXT[cand.status]} · ${cand.source} · confidence ` +
            `${percent}% · evidence ${cand.evidence}/${needed}` +
            (cand.proposal_id ? ` · ${cand.proposal_id}` : '')
        }),
        el('progress', {
          className: 'jm-confidence',
          attrs: {
            max: '100',
            value: String(percent),
            'aria-label': `confidence ${percent}%`
          }
        }),
        evidence,
        actions
      ]
    );
  }

  private async reject(cand: ILearningCandidate): Promise<void> {
    const result = await InputDialog.getText({
      title: 'Reject candidate rule',
      label: `Why is “${cand.rule}” wrong? (recorded)`,
      placeholder: 'e.g. this project uses pnpm'
    });
    const reason = (result.value ?? '').trim();
    if (!result.button.accept) {
      return;
    }
    if (!reason) {
      Notification.warning('A rejection needs a reason.', { autoClose: 3000 });
      return;
    }
    try {
      await postJSON<ILearningCandidate>('learning/reject', {
        key: cand.key,
        reason
      });
      Notification.success('Rejected; it waits for new evidence.', {
        autoClose: 3000
      });
    } catch (error) {
      Notification.error(`Could not reject: ${errorMessage(error)}`);
    }
    await this.refresh();
  }

  private async promote(cand: ILearningCandidate): Promise<void> {
    try {
      const result = await postJSON<ILearnedProposal>('learning/promote', {
        key: cand.key
      });
      Notification.success(
        result.status === 'already_pending'
          ? 'Already in the queue.'
          : 'Proposed: review it in Queued.',
        { autoClose: 3000 }
      );
    } catch (error) {
      Notification.error(`Could not propose: ${errorMessage(error)}`);
    }
    await this.refresh();
  }

  private readonly _thresholds: HTMLDivElement;
  private readonly _status: HTMLDivElement;
  private readonly _list: HTMLUListElement;
}
