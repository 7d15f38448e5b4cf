import type { JupyterFrontEnd } from '@jupyterlab/application';

interface ICellLike {
  id?: string;
}

/** A notebook's cell ids in order, read at most once in this long (ms) per path. */
const FRESH_MS = 5000;

/**
 * A proposal names the cell its quote came from by the cell's id, which a
 * person never sees; she knows "cell 6". The place comes from the notebook
 * itself: the open one as it is now, else the saved file.
 */
export class CellNumbers {
  constructor(private readonly app: JupyterFrontEnd) {}

  /** The cell's place (1-based) in the notebook at `path`, or null when it holds no such cell. */
  async number(path: string, cellId: string): Promise<number | null> {
    const ids = this.openIds(path) ?? (await this.savedIds(path));
    const at = ids.indexOf(cellId);
    return at >= 0 ? at + 1 : null;
  }

  private openIds(path: string): string[] | null {
    for (const widget of Array.from(this.app.shell.widgets('main'))) {
      const context = (
        widget as {
          context?: {
            path?: string;
            model?: { sharedModel?: { cells?: ICellLike[] } };
          };
        }
      ).context;
      const cells = context?.model?.sharedModel?.cells;
      if (context?.path === path && cells) {
        return cells.map(c => String(c.id ?? ''));
      }
    }
    return null;
  }

  private savedIds(path: string): Promise<string[]> {
    const cached = this._saved.get(path);
    if (cached && performance.now() - cached.at < FRESH_MS) {
      return cached.ids;
    }
    const ids = this.app.serviceManager.contents
      .get(path, { type: 'notebook', content: true })
      .then(model => {
        const cells = (model.content as { cells?: ICellLike[] } | null)?.cells;
        return (cells ?? []).map(c => String(c.id ?? ''));
      })
      .catch(() => [] as string[]); // gone or unreadable: no number, the name still shows
    this._saved.set(path, { at: performance.now(), ids });
    return ids;
  }

  private readonly _saved = new Map<
    string,
    { at: number; ids: Promise<string[]> }
  >();
}
