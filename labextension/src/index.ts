import {
  ILabShell,
  ILayoutRestorer,
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { ICommandPalette } from '@jupyterlab/apputils';
import { IStatusBar } from '@jupyterlab/statusbar';
import { ITranslator } from '@jupyterlab/translation';
import { LabIcon } from '@jupyterlab/ui-components';

// The panel is added to the shell at activation, so it is needed at once.
// eslint-disable-next-line jupyter/prefer-lazy-imports
import { MemoryPanel } from './panel';
import { cardsPlugin } from './cardsPlugin';
import { reviewCardsPlugin } from './reviewCardsPlugin';
// The status bar item follows the panel's focus line from the start too.
// eslint-disable-next-line jupyter/prefer-lazy-imports
import { FocusStatus } from './focus';
import { setBusyTrans } from './api';
import { CellNumbers } from './cellNumbers';
import { loadTrans } from './i18n';

/** The id of the Jupyter Server event the server emits when memory changed. */
export const CHANGED_SCHEMA =
  'https://jupyter-memory.github.io/events/changed/v1';

const ICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 24 24">' +
  '<path class="jp-icon3" fill="#616161" d="M12 2a7 7 0 0 0-7 7c0 2.4 1.2 4.5 3 5.7V17a1 1 0 0 0 1 1h6a1 1 0 0 0 1-1v-2.3c1.8-1.2 3-3.3 3-5.7a7 7 0 0 0-7-7zm-3 18h6v1a1 1 0 0 1-1 1h-4a1 1 0 0 1-1-1v-1z"/>' +
  '</svg>';

const memoryIcon = new LabIcon({
  name: 'jupyter-memory:icon',
  svgstr: ICON_SVG
});

/** None of the commands takes arguments: each acts on the panel's current state. */
const NO_ARGS = { args: { type: 'object' as const, properties: {} } };

namespace CommandIDs {
  export const open = 'jupyter-memory:open';
  export const refresh = 'jupyter-memory:refresh';
  export const applyUser = 'jupyter-memory:apply-user';
  export const applyProject = 'jupyter-memory:apply-project';
  export const dismiss = 'jupyter-memory:dismiss';
  export const processAll = 'jupyter-memory:process-all';
  export const userKnowledge = 'jupyter-memory:user-knowledge';
  export const projectKnowledge = 'jupyter-memory:project-knowledge';
  export const saveKnowledge = 'jupyter-memory:save-knowledge';
  export const reorganize = 'jupyter-memory:reorganize';
  export const pickProject = 'jupyter-memory:pick-project';
  export const toggleEnabled = 'jupyter-memory:toggle-enabled';
  export const toggleSuggestions = 'jupyter-memory:toggle-auto-suggestions';
  export const searchMemories = 'jupyter-memory:search-memories';
  export const browseCases = 'jupyter-memory:browse-cases';
}

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyter-memory:plugin',
  description:
    'Agent Memory: review queued knowledge, edit knowledge files, switches, memories and cases.',
  autoStart: true,
  optional: [
    ICommandPalette,
    ILayoutRestorer,
    ILabShell,
    IStatusBar,
    ITranslator
  ],
  activate: (
    app: JupyterFrontEnd,
    palette: ICommandPalette | null,
    restorer: ILayoutRestorer | null,
    labShell: ILabShell | null,
    statusBar: IStatusBar | null,
    translator: ITranslator | null
  ) => {
    // The language the person picked in JupyterLab (Settings → Language).
    const trans = loadTrans(translator);
    setBusyTrans(trans); // the "busy, retrying…" notice of every route (api.ts)
    const panel = new MemoryPanel(trans);
    panel.title.icon = memoryIcon;
    const cells = new CellNumbers(app);
    panel.queue.cellNumber = (path, cellId) => cells.number(path, cellId);
    app.shell.add(panel, 'left', { rank: 600 });
    if (restorer) {
      restorer.add(panel, 'jupyter-memory');
    }
    let loaded = false;
    const load = () => {
      loaded = true;
      void panel.refresh();
    };
    // Load when first shown, and at start so the badge is right while hidden.
    void app.restored.then(load);

    // The header shows the project of the active notebook; another kind of
    // document (a chat, a console) leaves the last notebook's line in place.
    // A rename or a move of that notebook (file browser, title, a folder
    // rename) changes its context's path: the header and the status bar ask
    // again at once, for the new path the server moved the choice to
    // (server/contents_follow.py).
    let watched: INotebookContext | null = null;
    const pathChanged = (_: unknown, path: string) => {
      if (path.endsWith('.ipynb')) {
        void panel.setNotebook(path);
      }
    };
    const trackNotebook = () => {
      const context = notebookContext(labShell?.currentWidget ?? null);
      if (!context) {
        return;
      }
      if (context !== watched) {
        watched?.pathChanged.disconnect(pathChanged);
        context.pathChanged.connect(pathChanged);
        watched = context;
      }
      void panel.setNotebook(context.path);
    };
    labShell?.currentChanged.connect(trackNotebook);
    void app.restored.then(trackNotebook);
    // The status bar names the same project; a click opens the panel to change it.
    statusBar?.registerStatusItem('jupyter-memory:focus', {
      item: new FocusStatus(trans, panel.focusLine, () =>
        app.shell.activateById(panel.id)
      ),
      align: 'left',
      rank: 10
    });

    // Changes made by this server or noticed by its file watcher (other processes).
    app.serviceManager.events.stream.connect((_, event) => {
      if (event.schema_id === CHANGED_SCHEMA && loaded) {
        void panel.refresh();
      }
    });

    const { commands } = app;
    const knowledgeView = () =>
      panel.current === 'project' ? panel.projectKnowledge : panel.user;
    const showPanel = (tab?: Parameters<MemoryPanel['showTab']>[0]) => {
      app.shell.activateById(panel.id);
      if (tab) {
        panel.showTab(tab);
      }
    };
    commands.addCommand(CommandIDs.open, {
      label: trans.__('Agent Memory: Open Queued Knowledge'),
      describedBy: NO_ARGS,
      execute: () => showPanel('queue')
    });
    commands.addCommand(CommandIDs.refresh, {
      label: trans.__('Agent Memory: Refresh'),
      describedBy: NO_ARGS,
      execute: () => panel.refresh()
    });
    commands.addCommand(CommandIDs.applyUser, {
      label: trans.__('Agent Memory: Apply Selected Proposal to User'),
      describedBy: NO_ARGS,
      execute: () => {
        const id = panel.queue.focusedId;
        return id ? panel.queue.apply(id, 'user', null) : undefined;
      }
    });
    commands.addCommand(CommandIDs.applyProject, {
      label: trans.__('Agent Memory: Apply Selected Proposal to Project'),
      describedBy: NO_ARGS,
      execute: () => {
        const id = panel.queue.focusedId;
        const project = panel.projectKnowledge.project;
        if (!id) {
          return;
        }
        if (!project) {
          return panel.pickProject();
        }
        return panel.queue.apply(id, 'project', project);
      }
    });
    commands.addCommand(CommandIDs.dismiss, {
      label: trans.__('Agent Memory: Dismiss Selected Proposal'),
      describedBy: NO_ARGS,
      execute: () => {
        const id = panel.queue.focusedId;
        return id ? panel.queue.dismiss(id) : undefined;
      }
    });
    commands.addCommand(CommandIDs.processAll, {
      label: trans.__('Agent Memory: Process All Queued Knowledge'),
      describedBy: NO_ARGS,
      execute: () => panel.queue.processAll()
    });
    commands.addCommand(CommandIDs.userKnowledge, {
      label: trans.__('Agent Memory: Edit User Knowledge'),
      describedBy: NO_ARGS,
      execute: () => showPanel('user')
    });
    commands.addCommand(CommandIDs.projectKnowledge, {
      label: trans.__('Agent Memory: Edit Project Knowledge'),
      describedBy: NO_ARGS,
      execute: () => showPanel('project')
    });
    commands.addCommand(CommandIDs.saveKnowledge, {
      label: trans.__('Agent Memory: Save Knowledge'),
      describedBy: NO_ARGS,
      execute: () => knowledgeView().save()
    });
    commands.addCommand(CommandIDs.reorganize, {
      label: trans.__('Agent Memory: Reorganize Knowledge'),
      describedBy: NO_ARGS,
      isEnabled: () => !knowledgeView().dirty,
      execute: () => knowledgeView().reorganize()
    });
    commands.addCommand(CommandIDs.pickProject, {
      label: trans.__('Agent Memory: Pick Project…'),
      describedBy: NO_ARGS,
      execute: () => panel.pickProject()
    });
    commands.addCommand(CommandIDs.toggleEnabled, {
      label: trans.__('Agent Memory: Toggle Enabled'),
      describedBy: NO_ARGS,
      execute: () =>
        panel.settingsView.set(
          'enabled',
          panel.settingsView.node.dataset.enabled !== 'true'
        )
    });
    commands.addCommand(CommandIDs.toggleSuggestions, {
      label: trans.__('Agent Memory: Toggle Automatic Suggestions'),
      describedBy: NO_ARGS,
      execute: () => {
        showPanel('settings');
        const input = panel.settingsView.node.querySelector(
          '.jm-switch-auto_suggestions'
        ) as HTMLInputElement | null;
        return input
          ? panel.settingsView.set('auto_suggestions', !input.checked)
          : undefined;
      }
    });
    commands.addCommand(CommandIDs.searchMemories, {
      label: trans.__('Agent Memory: Search Memories'),
      describedBy: NO_ARGS,
      execute: () => {
        showPanel('memories');
        panel.memories.focusSearch();
      }
    });
    commands.addCommand(CommandIDs.browseCases, {
      label: trans.__('Agent Memory: Browse Cases'),
      describedBy: NO_ARGS,
      execute: () => showPanel('cases')
    });
    if (palette) {
      for (const command of Object.values(CommandIDs)) {
        palette.addItem({ command, category: trans.__('Agent Memory') });
      }
    }
  }
};

/** What the header needs of a document's context: its path, and when it changes. */
interface INotebookContext {
  readonly path: string;
  readonly pathChanged: {
    connect(slot: (sender: unknown, path: string) => void): boolean;
    disconnect(slot: (sender: unknown, path: string) => void): boolean;
  };
}

/** The context of a notebook document widget (path under the Jupyter root), else null. */
function notebookContext(widget: unknown): INotebookContext | null {
  const context = (widget as { context?: Partial<INotebookContext> } | null)
    ?.context;
  return typeof context?.path === 'string' &&
    context.path.endsWith('.ipynb') &&
    context.pathChanged
    ? (context as INotebookContext)
    : null;
}

export default [plugin, cardsPlugin, reviewCardsPlugin];
