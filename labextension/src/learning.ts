import { InputDialog, Notification } from '@jupyterlab/apputils';
import { Widget } from '@lumino/widgets';

import { errorMessage, postJSON, requestAPI } from './api';
import { sourceLabels } from './decided';
import { button, el, placeChildren, setStatus } from './dom';
import type { Trans } from './i18n';
import type {
  ILearnedProposal,
  ILearning,
  ILearningCandidate
} from './schemas';

function statusText(
  trans: Trans
): Record<ILearningCandidate['status'], string> {
  return {
    collecting: trans.__('collecting evidence'),
    ready: trans.__('ready to propose'),
    blocked: trans.__('blocked: no quote long enough for a proposal'),
    proposed: trans.__('in the queue'),
    rejected: trans.__('rejected: waits for new evidence')
  };
}

/**
 * Self-learning (spec 003): the candidate rules the learner collects evidence
 * for, with their confidence and the thresholds they must pass to become a
 * proposal. The person rejects one with a reason or proposes it now; nothing
 * here applies knowledge. Every stored string goes in as text (invariant 6).
 */
export class LearningView extends Widget {
  constructor(private readonly trans: Trans) {
    super();
    this._statusText = statusText(trans);
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
        this.trans.__(
          'Could not load the learning candidates: %1',
          errorMessage(error)
        ),
        'error'
      );
    }
  }

  private render(data: ILearning): void {
    const t = data.thresholds;
    this._thresholds.textContent = this.trans.__(
      'A rule is proposed once its confidence is over %1 with at least %2 pieces of evidence (one per session; confidence halves every %3 days without new evidence; a gotcha is one error %4 times in a session).',
      t.min_confidence,
      t.min_evidence,
      t.half_life_days,
      t.gotcha_repeats
    );
    setStatus(
      this._status,
      data.count
        ? this.trans._n('%1 candidate rule', '%1 candidate rules', data.count)
        : this.trans.__(
            'No candidate rules yet: corrections and repeated errors appear here.'
          ),
      'info'
    );
    // Every live refresh of the panel (any change anywhere) lands here. A
    // candidate drawn as it already is keeps its node, and with it the button
    // under the person's pointer: a button made again between the press and the
    // release of a click loses the click, and the focus goes out of the list.
    const kept = new Map<string, HTMLLIElement>();
    for (const node of Array.from(this._list.children)) {
      const key = (node as HTMLElement).dataset.key;
      if (key !== undefined) {
        kept.set(key, node as HTMLLIElement);
      }
    }
    placeChildren(
      this._list,
      data.candidates.map(cand => {
        const fresh = this.item(cand, t.min_evidence);
        const old = kept.get(cand.key);
        return old && old.isEqualNode(fresh) ? old : fresh;
      })
    );
    this.node.dataset.count = String(data.count);
  }

  private item(cand: ILearningCandidate, needed: number): HTMLLIElement {
    const trans = this.trans;
    const evidence = el('ul', { className: 'jm-learning-evidence' });
    for (const piece of cand.evidence_items) {
      evidence.appendChild(
        el(
          'li',
          {
            className: piece.live ? 'jm-evidence' : 'jm-evidence jm-stale',
            title: piece.live
              ? ''
              : trans.__('before a rejection: no longer counted')
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
          text: trans.__('rejected %1: %2', d.at.slice(0, 16), d.reason)
        })
      );
    }
    const actions = el('div', { className: 'jm-actions' });
    if (cand.status !== 'proposed') {
      actions.append(
        button(trans.__('Propose now'), () => void this.promote(cand), {
          className: 'jm-promote',
          title: trans.__(
            'Queue this rule as a proposal now, below the thresholds'
          )
        }),
        button(trans.__('Reject…'), () => void this.reject(cand), {
          className: 'jm-reject',
          title: trans.__(
            'Say why this rule is wrong; it waits for new evidence'
          )
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
            trans.__(
              '%1 · %2 · confidence %3% · evidence %4/%5',
              this._statusText[cand.status],
              sourceLabels(trans)[cand.source],
              percent,
              cand.evidence,
              needed
            ) + (cand.proposal_id ? ` · ${cand.proposal_id}` : '')
        }),
        el('progress', {
          className: 'jm-confidence',
          attrs: {
            max: '100',
            value: String(percent),
            'aria-label': trans.__('confidence %1%', percent)
          }
        }),
        evidence,
        actions
      ]
    );
  }

  private async reject(cand: ILearningCandidate): Promise<void> {
    const result = await InputDialog.getText({
      title: this.trans.__('Reject candidate rule'),
      label: this.trans.__('Why is “%1” wrong? (recorded)', cand.rule),
      placeholder: this.trans.__('e.g. this project uses pnpm')
    });
    const reason = (result.value ?? '').trim();
    if (!result.button.accept) {
      return;
    }
    if (!reason) {
      Notification.warning(this.trans.__('A rejection needs a reason.'), {
        autoClose: 3000
      });
      return;
    }
    try {
      await postJSON<ILearningCandidate>('learning/reject', {
        key: cand.key,
        reason
      });
      Notification.success(
        this.trans.__('Rejected; it waits for new evidence.'),
        { autoClose: 3000 }
      );
    } catch (error) {
      Notification.error(
        this.trans.__('Could not reject: %1', errorMessage(error))
      );
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
          ? this.trans.__('Already in the queue.')
          : this.trans.__('Proposed: review it in Queued.'),
        { autoClose: 3000 }
      );
    } catch (error) {
      Notification.error(
        this.trans.__('Could not propose: %1', errorMessage(error))
      );
    }
    await this.refresh();
  }

  private readonly _statusText: Record<ILearningCandidate['status'], string>;
  private readonly _thresholds: HTMLDivElement;
  private readonly _status: HTMLDivElement;
  private readonly _list: HTMLUListElement;
}
