import { Notification } from '@jupyterlab/apputils';
import { Widget } from '@lumino/widgets';

import {
  errorMessage,
  IKnowledge,
  ILibraryStatus,
  IProject,
  IReorganizeJob,
  Layer,
  postJSON,
  putJSON,
  requestAPI
} from './api';
import { button, clear, el, setStatus } from './dom';

export const SAVE_LIMIT = 8000;

function formatUpdated(value: string | null | undefined): string {
  if (!value) {
    return 'never saved';
  }
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date.toLocaleString();
}

/**
 * The editor of one knowledge file (User, or the picked Project) with Save,
 * Reorganize and Library status. Counts come from the saved file only.
 */
export class KnowledgeView extends Widget {
  constructor(readonly layer: Layer) {
    super();
    this.addClass('jm-knowledge');
    this.id = `jm-knowledge-${layer}`;
    this._editor = el('textarea', {
      className: 'jm-editor',
      attrs: { spellcheck: 'false', 'aria-label': `${layer} knowledge` }
    });
    this._editor.addEventListener('input', () => this.onEdit());
    this._counter = el('span', { className: 'jm-counter' });
    this._saveButton = button('Save', () => void this.save(), {
      className: 'jm-save'
    });
    this._reorganizeButton = button(
      'Reorganize',
      () => void this.reorganize(),
      {
        className: 'jm-reorganize',
        title: 'Back up, dedupe, condense and regroup the saved file'
      }
    );
    this._status = el('div', {
      className: 'jm-status',
      attrs: { role: 'status' }
    });
    this._library = el('dl', { className: 'jm-library' });
    this._dirtyNote = el('div', {
      className: 'jm-dirty-note',
      text: 'Counts update after Save'
    });
    this._mask = el('div', { className: 'jm-mask', attrs: { role: 'status' } });
    this._mask.hidden = true;
    this._projectSelect = el('select', {
      className: 'jm-project-select',
      attrs: { 'aria-label': 'Project' }
    });
    this._projectSelect.addEventListener('change', () => {
      this._project = this._projectSelect.value || null;
      void this.refresh(true);
    });
    const pick = button('Pick project', () => this.onPickProject(), {
      className: 'jm-pick-project'
    });
    const header =
      layer === 'project'
        ? el('div', { className: 'jm-toolbar' }, [
            el('label', { text: 'Project ' }, [this._projectSelect]),
            pick
          ])
        : el('div', { className: 'jm-toolbar' }, [
            el('span', {
              className: 'jm-layer-title',
              text: 'User knowledge (all projects)'
            })
          ]);
    const editorWrap = el('div', { className: 'jm-editor-wrap' }, [
      this._editor,
      this._mask
    ]);
    this.node.append(
      header,
      editorWrap,
      el('div', { className: 'jm-toolbar' }, [
        this._saveButton,
        this._reorganizeButton,
        this._counter
      ]),
      this._status,
      el('div', { className: 'jm-library-box' }, [
        el('div', { className: 'jm-library-title', text: 'Library status' }),
        this._library,
        this._dirtyNote
      ])
    );
    this.updateControls();
  }

  /** Set by the panel: add a project folder, then refresh the projects. */
  onPickProject: () => void = () => undefined;

  get dirty(): boolean {
    return this._editor.value !== this._saved;
  }

  get project(): string | null {
    return this._project;
  }

  setProjects(projects: IProject[], preferred: string | null = null): void {
    const current = preferred ?? this._project;
    clear(this._projectSelect);
    this._projectSelect.appendChild(
      el('option', {
        text: projects.length ? 'Pick project…' : 'No project yet',
        attrs: { value: '' }
      })
    );
    for (const p of projects) {
      this._projectSelect.appendChild(
        el('option', { text: p.id, title: p.folder, attrs: { value: p.id } })
      );
    }
    const known = projects.some(p => p.id === current);
    this._project = known
      ? current
      : projects.length === 1
        ? projects[0].id
        : null;
    this._projectSelect.value = this._project ?? '';
  }

  /** Reload from the server; unsaved edits are kept unless `force`. */
  async refresh(force = false): Promise<void> {
    if (this.layer === 'project' && !this._project) {
      this._editor.value = '';
      this._saved = '';
      this._editor.disabled = true;
      clear(this._library);
      setStatus(this._status, 'Pick a project to edit its knowledge.', 'info');
      this.node.dataset.loaded = 'true';
      this.updateControls();
      return;
    }
    try {
      const data = await requestAPI<IKnowledge>(
        `knowledge/${this.layer}`,
        {},
        { project: this._project }
      );
      if (force || !this.dirty) {
        this._editor.value = data.text;
      }
      this._saved = data.text;
      this._editor.disabled = this._busy;
      this.renderStatus(data.status);
      this.node.dataset.loaded = 'true';
    } catch (error) {
      setStatus(
        this._status,
        `Could not load: ${errorMessage(error)}`,
        'error'
      );
    }
    this.updateControls();
  }

  async save(): Promise<void> {
    // The server enforces the 8,000-character cap and answers 413 with its message.
    const text = this._editor.value;
    try {
      const data = await putJSON<any>(
        `knowledge/${this.layer}`,
        { text },
        { project: this._project }
      );
      this._saved = data.text;
      this._editor.value = data.text;
      this.renderStatus(data.status);
      delete this.node.dataset.saveError;
      setStatus(this._status, 'Saved.', 'ok');
    } catch (error) {
      this.node.dataset.saveError = 'failed';
      setStatus(this._status, `Not saved: ${errorMessage(error)}`, 'error');
    }
    this.updateControls();
  }

  async reorganize(): Promise<void> {
    if (this.dirty || this._busy) {
      return;
    }
    const where = { project: this._project };
    const path = `knowledge/${this.layer}/reorganize`;
    this.setBusy(true, 'Reorganizing… starting');
    try {
      let job = await postJSON<IReorganizeJob>(path, {}, where);
      while (job.state === 'running') {
        this._mask.textContent = `Reorganizing… ${job.stage} · ${Math.round(job.elapsed)} s (stops at ${job.timeout} s)`;
        await new Promise(resolve => setTimeout(resolve, 400));
        job = await requestAPI<IReorganizeJob>(path, {}, where);
      }
      if (job.state === 'done') {
        Notification.success(
          `${this.title.label} knowledge reorganized (backup kept)`,
          {
            autoClose: 4000
          }
        );
        setStatus(
          this._status,
          'Reorganized. The previous file is kept as knowledge.md.bak.',
          'ok'
        );
      } else {
        setStatus(
          this._status,
          `Reorganize ${job.state.replace('_', ' ')}: ${job.error?.message ?? ''}`,
          'error'
        );
      }
    } catch (error) {
      setStatus(
        this._status,
        `Reorganize failed: ${errorMessage(error)}`,
        'error'
      );
    }
    this.setBusy(false);
    await this.refresh(true);
  }

  private setBusy(busy: boolean, message = ''): void {
    this._busy = busy;
    this._mask.hidden = !busy;
    this._mask.textContent = message;
    this._editor.disabled = busy;
    this.node.dataset.busy = busy ? 'true' : 'false';
    this.updateControls();
  }

  private onEdit(): void {
    this.updateControls();
  }

  private updateControls(): void {
    const length = this._editor.value.length;
    this._counter.textContent = `${length} / ${SAVE_LIMIT}`;
    this._counter.dataset.over = length > SAVE_LIMIT ? 'true' : 'false';
    const noFile = this.layer === 'project' && !this._project;
    this._saveButton.disabled = this._busy || noFile;
    this._reorganizeButton.disabled = this._busy || noFile || this.dirty;
    this._reorganizeButton.title = this.dirty
      ? 'Save your changes first'
      : 'Back up, dedupe, condense and regroup the saved file';
    this._dirtyNote.hidden = !this.dirty;
    this.node.dataset.dirty = this.dirty ? 'true' : 'false';
  }

  private renderStatus(status: ILibraryStatus): void {
    clear(this._library);
    const rows: [string, string][] = [
      ['Rules', String(status.rules)],
      ['Info', String(status.info)],
      ['Characters', `${status.chars} / ${status.budget} budget`],
      ['Last updated', formatUpdated(status.last_updated)],
      ['Mode', status.mode]
    ];
    for (const [label, value] of rows) {
      this._library.append(
        el('dt', { text: label }),
        el('dd', {
          text: value,
          attrs: { 'data-field': label.toLowerCase().replace(' ', '-') }
        })
      );
    }
  }

  private _saved = '';
  private _busy = false;
  private _project: string | null = null;
  private readonly _editor: HTMLTextAreaElement;
  private readonly _counter: HTMLSpanElement;
  private readonly _saveButton: HTMLButtonElement;
  private readonly _reorganizeButton: HTMLButtonElement;
  private readonly _status: HTMLDivElement;
  private readonly _library: HTMLDListElement;
  private readonly _dirtyNote: HTMLDivElement;
  private readonly _mask: HTMLDivElement;
  private readonly _projectSelect: HTMLSelectElement;
}
