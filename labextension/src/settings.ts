import { Widget } from '@lumino/widgets';

import { errorMessage, ISettings, putJSON, requestAPI } from './api';
import { el, setStatus } from './dom';
import type { Trans } from './i18n';

function switches(trans: Trans): [keyof ISettings, string, string][] {
  return [
    [
      'enabled',
      trans.__('Enabled'),
      trans.__(
        'Master switch. Off: nothing is captured, extracted or injected; an agent sees no memory at all.'
      )
    ],
    [
      'auto_suggestions',
      trans.__('Automatic suggestions'),
      trans.__(
        'Off: no background extraction. Approved knowledge is still injected and the queue still works.'
      )
    ]
  ];
}

/** The two persisted switches, each with a one-line explanation. */
export class SettingsView extends Widget {
  constructor(
    private readonly trans: Trans,
    private readonly onChange: (settings: ISettings) => void
  ) {
    super();
    this.addClass('jm-settings');
    this.id = 'jm-settings';
    for (const [key, label, help] of switches(trans)) {
      const input = el('input', {
        className: `jm-switch jm-switch-${String(key)}`,
        attrs: { type: 'checkbox', role: 'switch' }
      });
      input.addEventListener('change', () => void this.set(key, input.checked));
      this._inputs.set(key, input);
      this.node.appendChild(
        el('div', { className: 'jm-setting' }, [
          el('label', { className: 'jm-setting-label' }, [
            input,
            el('span', { text: ` ${label}` })
          ]),
          el('div', { className: 'jm-setting-help', text: help })
        ])
      );
    }
    // Today's LLM spend against the daily budget (issue 32): read-only here;
    // set with %memory settings, settings.json or PUT settings.
    this._spend = el('div', { className: 'jm-setting-help jm-llm-spend' });
    this.node.appendChild(this._spend);
    this._status = el('div', {
      className: 'jm-status',
      attrs: { role: 'status' }
    });
    this.node.appendChild(this._status);
  }

  async refresh(): Promise<void> {
    try {
      this.render(await requestAPI<ISettings>('settings'));
    } catch (error) {
      setStatus(
        this._status,
        this.trans.__('Could not load settings: %1', errorMessage(error)),
        'error'
      );
    }
  }

  async set(key: keyof ISettings, value: boolean): Promise<void> {
    try {
      const settings = await putJSON<ISettings>('settings', { [key]: value });
      this.render(settings);
      setStatus(this._status, this.trans.__('Saved.'), 'ok');
    } catch (error) {
      setStatus(
        this._status,
        this.trans.__('Not saved: %1', errorMessage(error)),
        'error'
      );
      await this.refresh();
    }
  }

  private render(settings: ISettings): void {
    for (const [key, input] of this._inputs) {
      input.checked = Boolean(settings[key]);
    }
    const spend = settings.llm_spend;
    const budget = settings.llm_budget;
    this._spend.textContent = this.trans.__(
      'LLM today: %1 of %2 calls, %3 of %4 tokens (background extraction, digests and reorganize stop when spent)',
      String(spend.calls),
      String(budget.calls_per_day),
      spend.tokens.toLocaleString(),
      budget.tokens_per_day.toLocaleString()
    );
    this._spend.dataset.spent = String(spend.spent);
    this.node.dataset.loaded = 'true';
    this.node.dataset.enabled = String(settings.enabled);
    this.onChange(settings);
  }

  private readonly _inputs = new Map<keyof ISettings, HTMLInputElement>();
  private readonly _status: HTMLDivElement;
  private readonly _spend: HTMLDivElement;
}
