import { errorMessage, requestAPI } from './api';
import { el } from './dom';
import type { IFocus } from './schemas';

const HOW: Record<IFocus['source'], string> = {
  explicit: 'chosen for this notebook',
  beside: 'chosen for a notebook in this folder',
  folder: "this notebook's folder is in it",
  none: ''
};

/**
 * The panel header's "project in use" line for the active notebook: the same
 * project its kernel, a Jupyter AI chat beside it and `mcp --project auto`
 * use (GET /jupyter-memory/focus). `data-project` on the node is the id, or
 * empty (tests read it).
 */
export class FocusLine {
  readonly node: HTMLDivElement;

  /** Called with the focused project id (or null) after each answer. */
  onFocus: (project: string | null) => void = () => undefined;

  constructor() {
    this._name = el('span', { className: 'jm-focus-project' });
    this._how = el('span', { className: 'jm-focus-how' });
    this.node = el(
      'div',
      { className: 'jm-focus', attrs: { role: 'status' } },
      [
        el('span', { className: 'jm-focus-label', text: 'Project in use: ' }),
        this._name,
        this._how
      ]
    );
    this.show(null);
  }

  /** The notebook whose focus to show (its path under the Jupyter root), or null. */
  get notebook(): string | null {
    return this._notebook;
  }

  async track(path: string | null): Promise<void> {
    this._notebook = path;
    await this.refresh();
  }

  async refresh(): Promise<void> {
    const path = this._notebook;
    if (!path) {
      this.show(null);
      return;
    }
    try {
      const focus = await requestAPI<IFocus>('focus', {}, { path });
      if (path === this._notebook) {
        this.show(focus);
      }
    } catch (error) {
      this.node.dataset.project = '';
      this._name.textContent = 'unknown';
      this._how.textContent = ` · ${errorMessage(error)}`;
    }
  }

  private show(focus: IFocus | null): void {
    const project = focus?.project ?? null;
    this.node.dataset.project = project ?? '';
    this.node.dataset.source = focus?.source ?? '';
    const name = this._notebook?.split('/').pop() ?? '';
    if (!focus) {
      this._name.textContent = 'none';
      this._how.textContent = ' · no notebook open';
    } else if (project) {
      this._name.textContent = project;
      this._name.title = focus.folder ?? '';
      this._how.textContent = ` · ${name}: ${HOW[focus.source]}`;
    } else {
      this._name.textContent = 'none';
      this._how.textContent = focus.unregistered_path
        ? ` · ${name}: ${focus.unregistered_path} holds a project you never picked`
        : ` · ${name}: %memory focus FOLDER picks one`;
    }
    this.onFocus(project);
  }

  private _notebook: string | null = null;
  private readonly _name: HTMLSpanElement;
  private readonly _how: HTMLSpanElement;
}
