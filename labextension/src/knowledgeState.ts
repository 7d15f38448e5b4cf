/**
 * The knowledge editor's state, apart from the DOM (issue 28).
 *
 * One value says everything the editor shows: the text in the box, the server
 * text it builds on and that text's version (a save names it), the conflict
 * being resolved, what is running, the Reorganize diff on view and the line
 * of status. `transition(state, event)` is pure: the view (knowledge.ts)
 * sends an event for each click, keystroke and server answer, renders the
 * state it gets back, and makes the requests; nothing here touches the DOM
 * or the network, so the rules are unit-tested (test/knowledgeState.test.ts).
 *
 * The two kinds of conflict, each with its own meaning of the three buttons:
 * - `stale`: a save (or a refresh under unsaved edits) met newer server text
 *   (an Apply, another tab). Merge / Keep mine / Take theirs then build on
 *   that newer version: a save names it.
 * - `git`: a git pull left both clones' versions of an item in a project
 *   file (docs/teams.md). The editor holds this clone's side; only a Save of
 *   a clean text resolves it.
 * Merging asks the server (`POST knowledge/{layer}/merge`, the merge by item
 * git's driver makes): `mergeRequest` says what to send.
 */

import type { IKnowledgeVersion } from './api';
import type {
  IKnowledge,
  ILibraryStatus,
  IKnowledgeMerge,
  IKnowledgeMergeConflict,
  IReorganizeJob,
  IReorganizeResult
} from './schemas';

export const SAVE_LIMIT = 8000;

export type Conflict =
  | { kind: 'stale'; theirs: IKnowledgeVersion }
  | { kind: 'git'; merge: IKnowledgeMergeConflict };

/** What runs now; at most one at a time. */
export type Activity = 'idle' | 'saving' | 'merging' | 'reorganizing';

/** The Reorganize diff on view: of unsaved text (`preview`, usable) or of what was written. */
export interface IPreview {
  mode: 'preview' | 'done';
  result: IReorganizeResult;
  before: string;
}

/** The status line, as a key the view translates (tone by `noticeTone`). */
export type Notice =
  | { key: 'pick-project' }
  | { key: 'load-failed'; message: string }
  | { key: 'changed-under-edits' }
  | { key: 'saved' }
  | { key: 'save-conflict' }
  | { key: 'save-failed'; message: string }
  | { key: 'merged'; overCap: boolean }
  | { key: 'merged-both'; overCap: boolean }
  | { key: 'merge-failed'; message: string }
  | { key: 'took-theirs' }
  | { key: 'took-other-clone' }
  | { key: 'nothing-to-reorganize' }
  | { key: 'reorganized' }
  | { key: 'reorganize-timed-out'; message: string }
  | { key: 'reorganize-failed'; message: string }
  | { key: 'preview-ready' }
  | { key: 'preview-used' };

export interface IEditorState {
  /** False for the Project tab until a project is picked: nothing to edit. */
  file: boolean;
  /** The text in the editor. */
  text: string;
  /** The server text the editor builds on, and its version (sent as `base`). */
  saved: string;
  version: string;
  conflict: Conflict | null;
  activity: Activity;
  /** The reorganize job's progress line while it runs (null: starting). */
  progress: { stage: string; elapsed: number; timeout: number } | null;
  preview: IPreview | null;
  notice: Notice | null;
  /** Why the last save failed (the node's `data-save-error`), or null. */
  saveError: 'conflict' | 'failed' | null;
  /** The Library status of the last read or save. */
  library: ILibraryStatus | null;
  loaded: boolean;
}

export type EditorEvent =
  /** The Project tab has no project picked. */
  | { type: 'no-file' }
  /** A read of the file; `force` drops unsaved edits (a project switch, after Reorganize). */
  | { type: 'loaded'; data: IKnowledge; force: boolean }
  | { type: 'load-failed'; message: string }
  | { type: 'edit'; text: string }
  | { type: 'save-start' }
  /** `sent` is the text the save carried: keys typed during the request stay. */
  | { type: 'saved'; data: IKnowledge; sent: string }
  | { type: 'save-conflict'; current: IKnowledgeVersion }
  | { type: 'save-failed'; message: string }
  | { type: 'merge-start' }
  /** `of`: the conflict the merge was asked for (a newer one makes it stale). */
  | { type: 'merged'; result: IKnowledgeMerge; of: Conflict }
  | { type: 'merge-failed'; message: string }
  /** Keep mine: the text to save now (the view saves right after). */
  | { type: 'keep-mine' }
  | { type: 'take-theirs' }
  | { type: 'reorganize-start' }
  | { type: 'reorganize-progress'; job: IReorganizeJob }
  | {
      type: 'reorganize-end';
      job: IReorganizeJob | null;
      before: string;
      message?: string;
    }
  | { type: 'previewed'; result: IReorganizeResult; before: string }
  | { type: 'preview-failed'; message: string }
  | { type: 'use-preview' }
  | { type: 'close-preview' };

export function initialState(): IEditorState {
  return {
    file: true,
    text: '',
    saved: '',
    version: '',
    conflict: null,
    activity: 'idle',
    progress: null,
    preview: null,
    notice: null,
    saveError: null,
    library: null,
    loaded: false
  };
}

export function isDirty(state: IEditorState): boolean {
  return state.text !== state.saved;
}

export function isOverCap(state: IEditorState): boolean {
  return state.text.length > SAVE_LIMIT;
}

/**
 * One name for the state, for `data-state` and tests: what runs first, then
 * the conflict, the Reorganize preview of unsaved text, the cap, dirty/clean.
 */
export type StateName =
  | 'no-file'
  | 'saving'
  | 'merging'
  | 'reorganizing'
  | 'conflict-stale'
  | 'conflict-git'
  | 'reorganize-preview'
  | 'over-cap'
  | 'dirty'
  | 'clean';

export function stateName(state: IEditorState): StateName {
  if (!state.file) {
    return 'no-file';
  }
  if (state.activity !== 'idle') {
    return state.activity;
  }
  if (state.conflict) {
    return state.conflict.kind === 'stale' ? 'conflict-stale' : 'conflict-git';
  }
  if (state.preview?.mode === 'preview') {
    return 'reorganize-preview';
  }
  if (isOverCap(state)) {
    return 'over-cap';
  }
  return isDirty(state) ? 'dirty' : 'clean';
}

export interface IControls {
  editorDisabled: boolean;
  saveDisabled: boolean;
  reorganizeDisabled: boolean;
  /** Merge / Keep mine / Take theirs. */
  conflictDisabled: boolean;
  /** Reorganize on unsaved text previews it; on the saved file it runs the job. */
  reorganizePreviews: boolean;
}

export function controls(state: IEditorState): IControls {
  const busy = state.activity === 'reorganizing';
  const running = state.activity !== 'idle';
  return {
    editorDisabled: !state.file || busy || state.activity === 'merging',
    saveDisabled: !state.file || running,
    // Unsaved text (over the save limit, say) can be reorganized too: a preview.
    reorganizeDisabled: !state.file || running || state.conflict !== null,
    conflictDisabled: running,
    reorganizePreviews: isDirty(state)
  };
}

export function noticeTone(notice: Notice | null): 'info' | 'error' | 'ok' {
  switch (notice?.key) {
    case 'saved':
    case 'reorganized':
      return 'ok';
    case 'load-failed':
    case 'changed-under-edits':
    case 'save-conflict':
    case 'save-failed':
    case 'merge-failed':
    case 'reorganize-timed-out':
    case 'reorganize-failed':
      return 'error';
    default:
      return 'info';
  }
}

/** The text both sides share: the file without the lines of its conflict blocks. */
export function commonText(conflict: IKnowledgeMergeConflict): string {
  const inBlocks = new Set<string>();
  for (const hunk of conflict.hunks) {
    hunk.ours.split('\n').forEach(line => inBlocks.add(line));
  }
  return conflict.ours
    .split('\n')
    .filter(line => !inBlocks.has(line))
    .join('\n');
}

/**
 * What "Merge both into the editor" sends the server, or null without a conflict.
 * Stale: the person's text on top of the newer server text, from what the
 * editor loaded. Git: both clones' sides from the text they share, so every
 * item a side changed comes back, in both versions where both changed it.
 */
export function mergeRequest(
  state: IEditorState
): { base: string; ours: string; theirs: string } | null {
  const conflict = state.conflict;
  if (!conflict) {
    return null;
  }
  if (conflict.kind === 'stale') {
    return {
      base: state.saved,
      ours: state.text,
      theirs: conflict.theirs.text
    };
  }
  return {
    base: commonText(conflict.merge),
    ours: conflict.merge.ours,
    theirs: conflict.merge.theirs
  };
}

/** The editor now builds on `theirs`: a save names its version. */
function rebase(state: IEditorState, theirs: IKnowledgeVersion): IEditorState {
  return {
    ...state,
    saved: theirs.text,
    version: theirs.version,
    conflict: null
  };
}

function loaded(
  state: IEditorState,
  data: IKnowledge,
  force: boolean
): IEditorState {
  const base = { ...state, file: true, library: data.status, loaded: true };
  const dirty = isDirty(state);
  const inGit = state.conflict?.kind === 'git';
  if (data.conflict && (force || !dirty || !inGit)) {
    // A git merge left both versions in the file: resolve, then Save.
    return {
      ...base,
      saved: data.text,
      version: data.version,
      text: data.conflict.ours,
      conflict: { kind: 'git', merge: data.conflict }
    };
  }
  if (force || !dirty || state.text === data.text) {
    return {
      ...base,
      text: data.text,
      saved: data.text,
      version: data.version,
      conflict: null
    };
  }
  if (data.version === state.version) {
    return base; // unsaved edits over the file as it still is
  }
  if (data.conflict) {
    // The conflicted file changed again under edits of its merge: its newer sides.
    return {
      ...base,
      saved: data.text,
      version: data.version,
      conflict: { kind: 'git', merge: data.conflict },
      notice: { key: 'changed-under-edits' }
    };
  }
  // Unsaved edits over an older version: show both, never keep one silently.
  return {
    ...base,
    conflict: {
      kind: 'stale',
      theirs: { text: data.text, version: data.version }
    },
    notice: { key: 'changed-under-edits' }
  };
}

function reorganizeEnd(
  state: IEditorState,
  job: IReorganizeJob | null,
  before: string,
  message: string | undefined
): IEditorState {
  const idle: IEditorState = { ...state, activity: 'idle', progress: null };
  if (!job) {
    return {
      ...idle,
      notice: { key: 'reorganize-failed', message: message ?? '' }
    };
  }
  const result = job.state === 'done' ? job.result : null;
  const shown = result
    ? { ...idle, preview: { mode: 'done' as const, result, before } }
    : idle;
  if (result && !result.written) {
    // Nothing a reorganize may change: nothing was written, no backup made.
    return { ...shown, notice: { key: 'nothing-to-reorganize' } };
  }
  if (job.state === 'done') {
    return { ...shown, notice: { key: 'reorganized' } };
  }
  const why = job.error?.message ?? '';
  return {
    ...shown,
    notice:
      job.state === 'timed_out'
        ? { key: 'reorganize-timed-out', message: why }
        : { key: 'reorganize-failed', message: why }
  };
}

export function transition(
  state: IEditorState,
  event: EditorEvent
): IEditorState {
  switch (event.type) {
    case 'no-file':
      return {
        ...state,
        file: false,
        text: '',
        saved: '',
        version: '',
        conflict: null,
        library: null,
        notice: { key: 'pick-project' },
        loaded: true
      };
    case 'loaded':
      return loaded(state, event.data, event.force);
    case 'load-failed':
      return {
        ...state,
        notice: { key: 'load-failed', message: event.message }
      };
    case 'edit':
      return {
        ...state,
        text: event.text,
        // "Saved." was about the text before this edit (it may now be over the limit)
        notice: noticeTone(state.notice) === 'ok' ? null : state.notice
      };
    case 'save-start':
      return { ...state, activity: 'saving' };
    case 'saved': {
      const data = event.data;
      return {
        ...state,
        activity: 'idle',
        text: state.text === event.sent ? data.text : state.text,
        saved: data.text,
        version: data.version,
        conflict: data.conflict ? { kind: 'git', merge: data.conflict } : null,
        library: data.status,
        saveError: null,
        notice: { key: 'saved' }
      };
    }
    case 'save-conflict':
      return {
        ...state,
        activity: 'idle',
        conflict: { kind: 'stale', theirs: event.current },
        saveError: 'conflict',
        notice: { key: 'save-conflict' }
      };
    case 'save-failed':
      return {
        ...state,
        activity: 'idle',
        saveError: 'failed',
        notice: { key: 'save-failed', message: event.message }
      };
    case 'merge-start':
      return state.conflict ? { ...state, activity: 'merging' } : state;
    case 'merged': {
      const conflict = state.conflict;
      if (state.activity !== 'merging') {
        return state;
      }
      if (conflict === null || conflict !== event.of) {
        // A refresh ended or replaced the conflict meanwhile: this merge is of
        // text no longer shown; the person merges the new conflict, if any.
        return { ...state, activity: 'idle' };
      }
      const overCap = event.result.over_cap;
      const next = {
        ...state,
        activity: 'idle' as const,
        text: event.result.text
      };
      if (conflict.kind === 'git') {
        // Still conflicted on disk until the person saves a clean text.
        return { ...next, notice: { key: 'merged-both', overCap } };
      }
      return {
        ...rebase(next, conflict.theirs),
        notice: event.result.clean
          ? { key: 'merged', overCap }
          : { key: 'merged-both', overCap }
      };
    }
    case 'merge-failed':
      return {
        ...state,
        activity: 'idle',
        notice: { key: 'merge-failed', message: event.message }
      };
    case 'keep-mine': {
      const conflict = state.conflict;
      if (!conflict) {
        return state;
      }
      return conflict.kind === 'git'
        ? { ...state, text: conflict.merge.ours }
        : rebase(state, conflict.theirs);
    }
    case 'take-theirs': {
      const conflict = state.conflict;
      if (!conflict) {
        return state;
      }
      if (conflict.kind === 'git') {
        return {
          ...state,
          text: conflict.merge.theirs,
          notice: { key: 'took-other-clone' }
        };
      }
      return {
        ...rebase(state, conflict.theirs),
        text: conflict.theirs.text,
        notice: { key: 'took-theirs' }
      };
    }
    case 'reorganize-start':
      return {
        ...state,
        activity: 'reorganizing',
        progress: null,
        preview: null
      };
    case 'reorganize-progress':
      return {
        ...state,
        progress: {
          stage: event.job.stage,
          elapsed: event.job.elapsed,
          timeout: event.job.timeout
        }
      };
    case 'reorganize-end':
      return reorganizeEnd(state, event.job, event.before, event.message);
    case 'previewed':
      return {
        ...state,
        preview: {
          mode: 'preview',
          result: event.result,
          before: event.before
        },
        notice: event.result.changed
          ? { key: 'preview-ready' }
          : { key: 'nothing-to-reorganize' }
      };
    case 'preview-failed':
      return {
        ...state,
        notice: { key: 'reorganize-failed', message: event.message }
      };
    case 'use-preview': {
      const preview = state.preview;
      if (preview?.mode !== 'preview') {
        return state;
      }
      return {
        ...state,
        text: preview.result.text,
        preview: null,
        notice: { key: 'preview-used' }
      };
    }
    case 'close-preview':
      return { ...state, preview: null };
  }
}
