import { InputDialog, Notification } from '@jupyterlab/apputils';
import { Panel, Widget } from '@lumino/widgets';

import { errorMessage, IProject, ISettings, postJSON, requestAPI } from './api';
import { CasesView } from './cases';
import { el } from './dom';
import { FocusLine } from './focus';
import type { Trans } from './i18n';
import { KnowledgeView } from './knowledge';
import { LearningView } from './learning';
import { MemoriesView } from './memories';
import { QueueView } from './queue';
import type { IReviewCount } from './schemas';
import { SettingsView } from './settings';
import { TabStrip } from './tabs';

export type TabName =
  'queue' | 'user' | 'project' | 'settings' | 'memories' | 'learning' | 'cases';

function tabs(trans: Trans): [TabName, string][] {
  return [
    ['queue', trans._p('panel tab', 'Queued')],
    ['user', trans._p('panel tab', 'User')],
    ['project', trans._p('panel tab', 'Project')],
    ['settings', trans._p('panel tab', 'Settings')],
    ['memories', trans._p('panel tab', 'Memories')],
    ['learning', trans._p('panel tab', 'Learning')],
    ['cases', trans._p('panel tab', 'Cases')]
  ];
}

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
  readonly learning: LearningView;
  readonly cases: CasesView;
  /** The project in use for the active notebook (header). */
  readonly focusLine: FocusLine;

  constructor(private readonly trans: Trans) {
    super();
    this.id = 'jupyter-memory-panel';
    this.addClass('jm-panel');
    this.title.caption = trans.__('Agent Memory');
    this.queue = new QueueView(trans, (count, enabled) =>
      this.setBadge(count, enabled)
    );
    this.user = new KnowledgeView(trans, 'user');
    this.user.title.label = trans._p('panel tab', 'User');
    this.projectKnowledge = new KnowledgeView(trans, 'project');
    this.projectKnowledge.title.label = trans._p('panel tab', 'Project');
    this.settingsView = new SettingsView(trans, settings =>
      this.onSettings(settings)
    );
    this.memories = new MemoriesView(trans);
    this.learning = new LearningView(trans);
    this.cases = new CasesView(trans);
    this.focusLine = new FocusLine(trans);
    const pick = () => void this.pickProject();
    this.queue.onPickProject = pick;
    this.projectKnowledge.onPickProject = pick;
    this.focusLine.onFocus = project => {
      this.projectKnowledge.setFocused(project);
      this.memories.setProject(project);
    };
    this.focusLine.onAddFolder = () => this.pickProject();

    this._badge = el('span', {
      className: 'jm-badge jm-queue-badge',
      attrs: { 'aria-label': trans.__('pending proposals') }
    });
    this._badge.hidden = true;
    // Memories a digest stored wait for review (issue 32 item 8): counted on their tab.
    this._reviewBadge = el('span', {
      className: 'jm-badge jm-review-badge',
      attrs: { 'aria-label': trans.__('memories waiting for review') }
    });
    this._reviewBadge.hidden = true;
    const views = this.viewsByName();
    this._strip = new TabStrip<TabName>(
      trans,
      tabs(trans).map(([name, label]) => ({
        name,
        label,
        panelId: views[name].id
      })),
      name => this.showTab(name)
    );
    for (const [name, view] of Object.entries(views) as [TabName, Widget][]) {
      // Each view is the tabpanel of its tab (screen readers announce the pair).
      view.node.setAttribute('role', 'tabpanel');
      view.node.setAttribute('aria-labelledby', `jm-tab-${name}`);
    }
    this._strip.tab('queue').appendChild(this._badge);
    this._strip.tab('memories').appendChild(this._reviewBadge);
    const title = el('div', {
      className: 'jm-title',
      text: trans.__('Agent Memory')
    });
    const header = new Widget({
      node: el('div', { className: 'jm-header' }, [
        title,
        this.focusLine.node,
        this._strip.node
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
    return this.viewsByName()[name];
  }

  private viewsByName(): Record<TabName, Widget> {
    return {
      queue: this.queue,
      user: this.user,
      project: this.projectKnowledge,
      settings: this.settingsView,
      memories: this.memories,
      learning: this.learning,
      cases: this.cases
    };
  }

  showTab(name: TabName): void {
    this._current = name;
    this._strip.setSelected(name);
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

  /**
   * Load everything; called on first show and on every change event. One load at a
   * time: a call while one runs is answered by one more load after it, which every
   * call meanwhile shares. A burst of change events (5,000 proposals written at once
   * made nine within a second) had made one full listing each, one after another on
   * the server's read lane: tens of seconds of its CPU on a busy machine.
   */
  refresh(): Promise<void> {
    if (this._loading) {
      this._reload ??= this._loading
        .catch(() => undefined)
        .then(() => {
          this._reload = null;
          return this.refresh();
        });
      return this._reload;
    }
    this._loading = this.load().finally(() => {
      this._loading = null;
    });
    return this._loading;
  }

  private async load(): Promise<void> {
    await Promise.all([
      this.queue.refresh(),
      this.settingsView.refresh(),
      this.user.refresh(),
      this.refreshProjects(),
      this.focusLine.refresh(),
      this.learning.refresh(),
      this.refreshReviewCount()
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
      Notification.error(
        this.trans.__('Could not list projects: %1', errorMessage(error))
      );
    }
    await this.projectKnowledge.refresh();
  }

  /** The count of memories waiting for review, on the Memories tab. */
  async refreshReviewCount(): Promise<void> {
    try {
      const data = await requestAPI<IReviewCount>('review/count');
      const n = data.unreviewed;
      this._reviewBadge.textContent = String(n);
      this._reviewBadge.hidden = n === 0;
      this._strip.tab('memories').title = n
        ? this.trans._n(
            '%1 memory waits for review: %memories --review',
            '%1 memories wait for review: %memories --review',
            n
          )
        : this.trans._p('panel tab', 'Memories');
      this._strip.layout(); // the badge changed the tab's width
      this.node.dataset.unreviewed = String(n);
    } catch (error) {
      // The count is a hint: a failed read leaves the last one and says why.
      this._reviewBadge.title = errorMessage(error);
    }
  }

  /** The active notebook changed (its path under the Jupyter root, or null). */
  async setNotebook(path: string | null): Promise<void> {
    this.memories.setNotebook(path);
    if (path !== this.focusLine.notebook) {
      await this.focusLine.track(path);
    }
  }

  /** Add a folder under the Jupyter root as a project; answers its id, or null. */
  async pickProject(): Promise<string | null> {
    const result = await InputDialog.getText({
      title: this.trans.__('Pick project'),
      // %memory focus takes a path from the notebook's folder; this dialog has
      // no notebook to start from: the top of the file browser, said so.
      label: this.trans.__(
        'Project folder, relative to the top of the file browser (the Jupyter root), not to the notebook:'
      ),
      placeholder: this.trans.__('e.g. analyses/sales-q3')
    });
    if (!result.button.accept || !result.value) {
      return null;
    }
    try {
      const project = await postJSON<IProject>('projects', {
        path: result.value
      });
      Notification.success(this.trans.__('Project %1 added', project.id), {
        autoClose: 3000
      });
      this._justAdded = project.id; // show the new project in the Project tab
      await this.refreshProjects();
      await this.queue.refresh();
      return project.id;
    } catch (error) {
      Notification.error(
        this.trans.__('Could not add the project: %1', errorMessage(error))
      );
      return null;
    }
  }

  private setBadge(count: number, enabled: boolean): void {
    this._enabled = enabled;
    this._badge.textContent = String(count);
    this._badge.hidden = !enabled || count === 0;
    this.node.dataset.pending = String(count);
    this._strip.layout();
  }

  private onSettings(settings: ISettings): void {
    this.user.setSettings(settings);
    this.projectKnowledge.setSettings(settings);
    if (settings.enabled !== this._enabled) {
      void this.queue.refresh();
    }
  }

  private _current: TabName = 'queue';
  private _enabled = true;
  private _refreshes = 0;
  private _loading: Promise<void> | null = null; // the load running now
  private _reload: Promise<void> | null = null; // the one load after it, shared
  private _justAdded: string | null = null;
  private readonly _badge: HTMLSpanElement;
  private readonly _reviewBadge: HTMLSpanElement;
  private readonly _strip: TabStrip<TabName>;
  private readonly _stack = new Panel();
}
