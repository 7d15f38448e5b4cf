import { Widget } from '@lumino/widgets';

import { errorMessage, putJSON, requestAPI } from './api';
import { clear, el } from './dom';
import type { Trans } from './i18n';
import type { IFocus, IProject } from './schemas';

/** Why the notebook works in its project, by the answer's `source`. */
function how(trans: Trans, source: IFocus['source']): string {
  switch (source) {
    case 'explicit':
      return trans.__('chosen for this notebook');
    case 'beside':
      return trans.__('chosen for a notebook in this folder');
    case 'folder':
      return trans.__("this notebook's folder is in it");
    default:
      return '';
  }
}

/** The select's values that are not project ids. */
const NO_PROJECT = '';
const ADD_FOLDER = '\u0000add-folder';

type FocusListener = (focus: IFocus | null, notebook: string | null) => void;

/**
 * The panel header's "project in use" line for the active notebook: the same
 * project its kernel, a Jupyter AI chat beside it and `mcp --project auto`
 * use (GET /jupyter-memory/focus). `data-project` on the node is the id, or
 * empty (tests read it).
 *
 * Below the line, a select sets it for this notebook (PUT /jupyter-memory/focus):
 * a registered project (the one in use offered first), no project, or a
 * folder to add as a project first. Setting the focus is the person's act in
 * the panel; no agent tool reaches it (docs/design.md invariant 9).
 */
export class FocusLine {
  readonly node: HTMLDivElement;

  /** Called with the focused project id (or null) after each answer. */
  onFocus: (project: string | null) => void = () => undefined;

  /**
   * Set by the panel: ask for a folder, register it as a project and answer
   * its id (null when the person cancelled or it failed).
   */
  onAddFolder: () => Promise<string | null> = async () => null;

  constructor(private readonly trans: Trans) {
    this._name = el('span', { className: 'jm-focus-project' });
    this._how = el('span', { className: 'jm-focus-how' });
    this._select = el('select', {
      className: 'jm-focus-select',
      attrs: { 'aria-label': trans.__('Project for this notebook') }
    });
    this._select.addEventListener('change', () => void this.choose());
    this._error = el('span', {
      className: 'jm-focus-error',
      attrs: { role: 'alert' }
    });
    this._control = el('label', { className: 'jm-focus-set' }, [
      el('span', {
        className: 'jm-focus-set-label',
        text: trans.__('Use for this notebook: ')
      }),
      this._select,
      this._error
    ]);
    this.node = el(
      'div',
      { className: 'jm-focus', attrs: { role: 'status' } },
      [
        (this._line = el('div', { className: 'jm-focus-line' }, [
          el('span', {
            className: 'jm-focus-label',
            text: trans.__('Project in use: ')
          }),
          this._name,
          this._how
        ])),
        this._control
      ]
    );
    this.show(null);
  }

  /** The notebook whose focus to show (its path under the Jupyter root), or null. */
  get notebook(): string | null {
    return this._notebook;
  }

  /** The last answer for the tracked notebook (null before one, or without a notebook). */
  get focus(): IFocus | null {
    return this._focus;
  }

  /** Call `listener` after every answer (the status bar item follows this way). */
  subscribe(listener: FocusListener): void {
    this._listeners.push(listener);
  }

  /** The registered projects the select offers (the panel passes each listing). */
  setProjects(projects: IProject[]): void {
    this._projects = projects;
    this.renderSelect();
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
      this._name.textContent = this.trans.__('unknown');
      this._how.textContent = ` · ${errorMessage(error)}`;
    }
  }

  /** The person picked in the select: record it for the active notebook. */
  async choose(): Promise<void> {
    const path = this._notebook;
    let value = this._select.value;
    if (!path) {
      return;
    }
    this._error.textContent = '';
    if (value === ADD_FOLDER) {
      const added = await this.onAddFolder();
      if (!added) {
        this.renderSelect(); // cancelled: show the focus as it is
        return;
      }
      value = added;
    }
    const project = value === NO_PROJECT ? null : value;
    this.node.dataset.saving = 'true';
    try {
      const focus = await putJSON<IFocus>('focus', { path, project });
      if (path === this._notebook) {
        this.show(focus);
      }
    } catch (error) {
      this._error.textContent = this.trans.__(
        ' Could not set it: %1',
        errorMessage(error)
      );
      this.renderSelect();
    } finally {
      delete this.node.dataset.saving;
    }
  }

  private show(focus: IFocus | null): void {
    this._focus = focus;
    const project = focus?.project ?? null;
    this.node.dataset.project = project ?? '';
    this.node.dataset.source = focus?.source ?? '';
    const name = this._notebook?.split('/').pop() ?? '';
    const trans = this.trans;
    if (!focus) {
      this._name.textContent = trans._p('project', 'none');
      this._how.textContent = trans.__(' · no notebook open');
    } else if (project) {
      this._name.textContent = project;
      this._name.title = focus.folder ?? '';
      this._how.textContent = ` · ${name}: ${how(trans, focus.source)}`;
    } else {
      this._name.textContent = trans._p('project', 'none');
      this._how.textContent = focus.unregistered_path
        ? trans.__(
            ' · %1: %2 holds a project you never picked',
            name,
            focus.unregistered_path
          )
        : trans.__(' · %1: pick one below', name);
    }
    // One line at any width, cut with an ellipsis: the whole of it on hover.
    this._line.title = this._line.textContent ?? '';
    this.renderSelect();
    this.onFocus(project);
    for (const listener of this._listeners) {
      listener(focus, this._notebook);
    }
  }

  private renderSelect(): void {
    const project = this._focus?.project ?? null;
    this._control.hidden = !this._notebook;
    clear(this._select);
    // The project in use first, then the others, no project, a new folder.
    const ordered = [
      ...this._projects.filter(p => p.id === project),
      ...this._projects.filter(p => p.id !== project)
    ];
    for (const p of ordered) {
      const text = p.id === project ? this.trans.__('%1 (in use)', p.id) : p.id;
      this._select.appendChild(
        el('option', { text, title: p.folder, attrs: { value: p.id } })
      );
    }
    this._select.appendChild(
      el('option', {
        text: this.trans.__('No project'),
        attrs: { value: NO_PROJECT }
      })
    );
    this._select.appendChild(
      el('option', {
        text: this.trans.__('Add a folder…'),
        attrs: { value: ADD_FOLDER }
      })
    );
    this._select.value = project ?? NO_PROJECT;
    this._select.title =
      this._select.selectedOptions[0]?.textContent ?? this._select.value;
  }

  private _notebook: string | null = null;
  private _focus: IFocus | null = null;
  private _projects: IProject[] = [];
  private readonly _listeners: FocusListener[] = [];
  private readonly _name: HTMLSpanElement;
  private readonly _how: HTMLSpanElement;
  private readonly _select: HTMLSelectElement;
  private readonly _error: HTMLSpanElement;
  private readonly _control: HTMLLabelElement;
  private _line!: HTMLDivElement;
}

/**
 * The status bar item: the project in use for the active notebook. A click
 * opens the Agent Memory panel, where the person can change it.
 */
export class FocusStatus extends Widget {
  constructor(
    private readonly trans: Trans,
    line: FocusLine,
    open: () => void
  ) {
    super();
    this.addClass('jm-focus-status');
    this.node.setAttribute('role', 'button');
    this.node.tabIndex = 0;
    this.node.addEventListener('click', open);
    this.node.addEventListener('keydown', event => {
      if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault();
        open();
      }
    });
    line.subscribe((focus, notebook) => this.render(focus, notebook));
    this.render(line.focus, line.notebook);
  }

  private render(focus: IFocus | null, notebook: string | null): void {
    const project = focus?.project ?? null;
    this.node.dataset.project = project ?? '';
    this.node.hidden = !notebook;
    const trans = this.trans;
    this.node.textContent = trans.__(
      'Project: %1',
      project ?? trans._p('project', 'none')
    );
    const name = notebook?.split('/').pop() ?? '';
    const why =
      focus && project
        ? how(trans, focus.source)
        : trans.__('no project in use');
    this.node.title = trans.__(
      '%1: %2. Click to open Agent Memory and change it.',
      name,
      why
    );
  }
}
