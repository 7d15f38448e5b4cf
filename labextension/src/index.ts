import {
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyter-memory:plugin',
  description: 'Agent Memory panel',
  autoStart: true,
  activate: (app: JupyterFrontEnd) => {
    console.log('jupyter-memory activated');
  }
};

export default plugin;
