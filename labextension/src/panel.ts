import { InputDialog, Notification } from '@jupyterlab/apputils';
import { Panel, Widget } from '@lumino/widgets';

import { errorMessage, IProject, ISettings, postJSON, requestAPI } from './api';
import { CasesView } from './cases';
import { button, el } from './dom';
import { FocusLine } from './focus';
import { KnowledgeView } from './knowledge';
import { LearningView } from './learning';
import { MemoriesView } from './memories';
import { QueueView } from './queue';
import { SettingsView } from './settings';

export type TabName =
  'queue' | 'user' | 'project' | 'settings' | 'memories' | 'learning' | 'cases';

const TABS: [TabName, string][] = [
  ['queue', 'Queued'],
  ['user', 'User'],
  ['project', 'Project'],
  ['settings', 'Settings'],
  ['memories', 'Memories'],
  ['learning', 'Learning'],
  ['cases', 'Cases']
];

/**
 * The "Agent Memory" left panel. `data-jm-loaded="true"` on its node marks
 * that every view has loaded its data once (tests wait on it).
 */
export class MemoryPanel extends Panel {
  readonly queue: QueueView;
  readonly user: KnowledgeView;
  readonly projectKnowledge: KnowledgeView;
  readonly settingsView: SettingsView;
  readonly memories: MemoriesView;
  readonly learning = new LearningView();
  readonly cases: CasesView;
  /** The project in use for the active notebook (header). */
  readonly focusLine = new FocusLine();

  constructor() {
    super();
    this.id = 'jupyter-memory-panel';
    this.addClass('jm-panel');
    this.title.caption = 'Agent Memory';
    this.queue = new QueueView((count, enabled) =>
      this.setBadge(count, enabled)
    );
    this.user = new KnowledgeView('user');
    this.user.title.label = 'User';
    this.projectKnowledge = new KnowledgeView('project');
    this.projectKnowledge.title.label = 'Project';
    this.settingsView = new SettingsView(settings => this.onSettings(settings));
    this.memories = new MemoriesView();
    this.cases = new CasesView();
    const pick = () => void this.pickProject();
    this.queue.onPickProject = pick;
    this.projectKnowledge.onPickProject = pick;
    this.focusLine.onFocus = project =>
      this.projectKnowledge.setFocused(project);
    this.focusLine.onAddFolder = () => this.pickProject();

    this._badge = el('span', {
      className: 'jm-badge',
      attrs: { 'aria-label': 'pending proposals' }
    });
    this._badge.hidden = true;
    const strip = el('div', {
      className: 'jm-tabs',
      attrs: { role: 'tablist' }
    });
    for (const [name, label] of TABS) {
      const tab = button(label, () => this.showTab(name), {
        className: `jm-tab jm-tab-${name}`,
        attrs: { role: 'tab', 'data-tab': name }
      });
      if (name === 'queue') {
        tab.appendChild(this._badge);
      }
      this._tabs.set(name, tab);
      strip.appendChild(tab);
    }
    const header = new Widget({
      node: el('div', { className: 'jm-header' }, [
        el('div', { className: 'jm-title', text: 'Agent Memory' }),
        this.focusLine.node,
        strip
      ])
    });
    this.addWidget(header);
    this._stack.addClass('jm-stack');
    for (const view of this.views()) {
      this._stack.addWidget(view);
    }
    this.addWidget(this._stack);
    this.showTab('queue');
  }

  private views(): Widget[] {
    return [
      this.queue,
      this.user,
      this.projectKnowledge,
      this.settingsView,
      this.memories,
      this.learning,
      this.cases
    ];
  }

  private view(name: TabName): Widget {
    return {
      queue: this.queue,
      user: this.user,
      project: this.projectKnowledge,
      settings: this.settingsView,
      memories: this.memories,
      learning: this.learning,
      cases: this.cases
    }[name];
  }

  showTab(name: TabName): void {
    this._current = name;
    for (const [tab, node] of this._tabs) {
      node.setAttribute('aria-selected', tab === name ? 'true' : 'false');
    }
    for (const view of this.views()) {
      view.setHidden(view !== this.view(name));
    }
    this.node.dataset.tab = name;
    if (name === 'learning') {
      void this.learning.refresh();
    }
    if (name === 'cases' && this.cases.node.dataset.loaded !== 'true') {
      void this.cases.refresh();
    }
  }

  get current(): TabName {
    return this._current;
  }

  /** Load everything; called on first show and on every change event. */
  async refresh(): Promise<void> {
    await Promise.all([
      this.queue.refresh(),
      this.settingsView.refresh(),
      this.user.refresh(),
      this.refreshProjects(),
      this.focusLine.refresh(),
      this.learning.refresh()
    ]);
    this.node.dataset.jmLoaded = 'true';
    this.node.dataset.refreshes = String(++this._refreshes);
  }

  async refreshProjects(): Promise<void> {
    try {
      const data = await requestAPI<{ projects: IProject[] }>('projects');
      this.projectKnowledge.setProjects(data.projects, this._justAdded);
      this.focusLine.setProjects(data.projects);
      this._justAdded = null;
    } catch (error) {
      Notification.error(`Could not list projects: ${errorMessage(error)}`);
    }
    await this.projectKnowledge.refresh();
  }

  /** The active notebook changed (its path under the Jupyter root, or null). */
  async setNotebook(path: string | null): Promise<void> {
    if (path !== this.focusLine.notebook) {
      await this.focusLine.track(path);
    }
  }

  /** Add a folder under the Jupyter root as a project; answers its id, or null. */
  async pickProject(): Promise<string | null> {
    const result = await InputDialog.getText({
      title: 'Pick project',
      label: 'Project folder, relative to the Jupyter root:',
      placeholder: 'e.g. analyses/sales-q3'
    });
    if (!result.button.accept || !result.value) {
      return null;
    }
    try {
      const project = await postJSON<IProject>('projects', {
        path: result.value
      });
      Notification.success(`Project ${project.id} added`, { autoClose: 3000 });
      this._justAdded = project.id; // show the new project in the Project tab
      await this.refreshProjects();
      await this.queue.refresh();
      return project.id;
    } catch (error) {
      Notification.error(`Could not add the project: ${errorMessage(error)}`);
      return null;
    }
  }

  private setBadge(count: number, enabled: boolean): void {
    this._enabled = enabled;
    this._badge.textContent = String(count);
    this._badge.hidden = !enabled || count === 0;
    this.node.dataset.pending = String(count);
  }

  private onSettings(settings: ISettings): void {
    if (settings.enabled !== this._enabled) {
      void this.queue.refresh();
    }
  }

  private _current: TabName = 'queue';
  private _enabled = true;
  private _refreshes = 0;
  private _justAdded: string | null = null;
  private readonly _badge: HTMLSpanElement;
  private readonly _tabs = new Map<TabName, HTMLButtonElement>();
  private readonly _stack = new Panel();
}
