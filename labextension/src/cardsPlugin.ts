import {
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { ITranslator } from '@jupyterlab/translation';

// The renderer factory is registered at activation, before any notebook opens.
// eslint-disable-next-line jupyter/prefer-lazy-imports
import { CardHub, cardRendererFactory } from './cards';
import { setBusyTrans } from './api';
import { loadTrans } from './i18n';

/**
 * Proposal cards in notebooks (JupyterLab and Notebook 7): a renderer of our
 * MIME type in the application's rendermime registry, which every notebook's
 * output area uses. A plugin of its own, so the cards work in a front end
 * where the panel's plugin has nothing to attach to.
 */
export const cardsPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyter-memory:cards',
  description:
    'Proposal cards in notebook outputs, drawn from the live knowledge queue.',
  autoStart: true,
  requires: [IRenderMimeRegistry],
  // The language the person picked in JupyterLab (Settings → Language).
  optional: [ITranslator],
  activate: (
    app: JupyterFrontEnd,
    rendermime: IRenderMimeRegistry,
    translator: ITranslator | null
  ) => {
    const trans = loadTrans(translator);
    setBusyTrans(trans); // Notebook 7 has no panel to hand it (api.ts)
    const hub = new CardHub(trans);
    hub.follow(app.serviceManager.events);
    const factory = cardRendererFactory(hub);
    // Ahead of text/html (rank 50), which is only the fallback for other viewers.
    rendermime.addFactory(factory, factory.defaultRank);
  }
};
