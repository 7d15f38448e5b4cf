import {
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { ITranslator } from '@jupyterlab/translation';

import { loadTrans } from './i18n';
// The renderer factory is registered at activation, before any notebook opens.
// eslint-disable-next-line jupyter/prefer-lazy-imports
import { ReviewHub, reviewRendererFactory } from './reviewCards';

/**
 * Review cards of `%memories --review` in notebooks (JupyterLab and Notebook
 * 7): a renderer of our review MIME type in the application's rendermime
 * registry. A plugin of its own, like the proposal cards', so the cards work
 * in a front end without the panel.
 */
export const reviewCardsPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyter-memory:review-cards',
  description:
    'Review cards (Keep / Discard / Promote) in notebook outputs, drawn from the live memory.',
  autoStart: true,
  requires: [IRenderMimeRegistry],
  // The language the person picked in JupyterLab (Settings → Language).
  optional: [ITranslator],
  activate: (
    app: JupyterFrontEnd,
    rendermime: IRenderMimeRegistry,
    translator: ITranslator | null
  ) => {
    const hub = new ReviewHub(loadTrans(translator));
    hub.follow(app.serviceManager.events);
    const factory = reviewRendererFactory(hub);
    // Ahead of text/html (rank 50), which is only the fallback for other viewers.
    rendermime.addFactory(factory, factory.defaultRank);
  }
};
