/**
 * The knowledge editor's state machine (src/knowledgeState.ts): every state and
 * what each event does in it, without a DOM or a server.
 */

import { describe, expect, it } from 'vitest';

import {
  commonText,
  controls,
  EditorEvent,
  IEditorState,
  initialState,
  isDirty,
  mergeRequest,
  noticeTone,
  SAVE_LIMIT,
  stateName,
  transition
} from '../src/knowledgeState';
import type { IKnowledgeMerge } from '../src/schemas';
import { job, knowledge, merge, result } from './fixtures';

const BASE = '## Rules\n\n- Revenue excludes refunds\n\n## Info\n';
const MINE = BASE.replace('## Info', '- 金额以欧元计\n\n## Info');
const NEWER = BASE.replace('## Info', '- Always label chart axes\n\n## Info');

/** The server's merge answer for the conflict the state shows. */
function merged(state: IEditorState, result: IKnowledgeMerge): EditorEvent {
  if (!state.conflict) {
    throw new Error('no conflict to merge');
  }
  return { type: 'merged', result, of: state.conflict };
}

function run(...events: EditorEvent[]): IEditorState {
  return events.reduce(transition, initialState());
}

const opened = (): IEditorState =>
  run({ type: 'loaded', data: knowledge(BASE, 'v1'), force: false });

function edited(text = MINE): IEditorState {
  return transition(opened(), { type: 'edit', text });
}

function staleConflict(): IEditorState {
  return transition(edited(), {
    type: 'save-conflict',
    current: { text: NEWER, version: 'v2' }
  });
}

const GIT = {
  ours: '## Rules\n\n- 收入不含退款和运费\n- Dates are UTC\n\n## Info\n',
  theirs:
    '## Rules\n\n- Revenue excludes refunds and <b>tax</b>\n- Dates are UTC\n\n## Info\n',
  line: 3,
  hunks: [
    {
      ours: '- 收入不含退款和运费',
      theirs: '- Revenue excludes refunds and <b>tax</b>'
    }
  ]
};
const MARKED =
  '## Rules\n\n<<<<<<< ours\n- 收入不含退款和运费\n=======\n- Revenue excludes refunds and <b>tax</b>\n>>>>>>> theirs\n- Dates are UTC\n\n## Info\n';

function gitConflict(): IEditorState {
  return run({
    type: 'loaded',
    data: knowledge(MARKED, 'g1', GIT),
    force: false
  });
}

describe('loading and editing', () => {
  it('starts unloaded, then is clean on the text it read', () => {
    expect(initialState().loaded).toBe(false);
    const state = opened();
    expect(stateName(state)).toBe('clean');
    expect(state).toMatchObject({ text: BASE, saved: BASE, version: 'v1' });
    expect(state.loaded).toBe(true);
    expect(state.library?.version).toBe('v1');
  });

  it('is dirty after an edit and clean again when the text is back', () => {
    const state = edited();
    expect(stateName(state)).toBe('dirty');
    expect(isDirty(state)).toBe(true);
    expect(controls(state).reorganizePreviews).toBe(true);
    const back = transition(state, { type: 'edit', text: BASE });
    expect(stateName(back)).toBe('clean');
    expect(controls(back).reorganizePreviews).toBe(false);
  });

  it('is over-cap past the save limit, at the limit not', () => {
    const at = transition(opened(), {
      type: 'edit',
      text: 'x'.repeat(SAVE_LIMIT)
    });
    expect(stateName(at)).toBe('dirty');
    const over = transition(at, {
      type: 'edit',
      text: 'x'.repeat(SAVE_LIMIT + 1)
    });
    expect(stateName(over)).toBe('over-cap');
    // Save stays possible: the server answers 413 with its message.
    expect(controls(over).saveDisabled).toBe(false);
    expect(controls(over).reorganizeDisabled).toBe(false);
  });

  it('an edit clears "Saved." but not an error', () => {
    const saved = transition(transition(edited(), { type: 'save-start' }), {
      type: 'saved',
      data: knowledge(MINE, 'v2'),
      sent: MINE
    });
    expect(noticeTone(saved.notice)).toBe('ok');
    expect(transition(saved, { type: 'edit', text: 'x' }).notice).toBeNull();
    const failed = transition(edited(), {
      type: 'save-failed',
      message: 'nope'
    });
    expect(transition(failed, { type: 'edit', text: 'y' }).notice).toEqual({
      key: 'save-failed',
      message: 'nope'
    });
  });

  it('a failed read says so and keeps the text', () => {
    const state = transition(edited(), {
      type: 'load-failed',
      message: 'offline'
    });
    expect(state.text).toBe(MINE);
    expect(state.notice).toEqual({ key: 'load-failed', message: 'offline' });
    expect(noticeTone(state.notice)).toBe('error');
  });

  it('the Project tab without a project has nothing to edit', () => {
    const state = transition(edited(), { type: 'no-file' });
    expect(stateName(state)).toBe('no-file');
    expect(state).toMatchObject({
      text: '',
      saved: '',
      version: '',
      conflict: null
    });
    expect(state.notice).toEqual({ key: 'pick-project' });
    const can = controls(state);
    expect(
      can.editorDisabled && can.saveDisabled && can.reorganizeDisabled
    ).toBe(true);
    const back = transition(state, {
      type: 'loaded',
      data: knowledge(BASE, 'p1'),
      force: true
    });
    expect(stateName(back)).toBe('clean');
  });
});

describe('a refresh', () => {
  it('replaces the text when clean, forced, or equal to the server text', () => {
    const newer = { type: 'loaded', data: knowledge(NEWER, 'v2') } as const;
    expect(transition(opened(), { ...newer, force: false }).text).toBe(NEWER);
    const forced = transition(edited(), { ...newer, force: true });
    expect(forced).toMatchObject({ text: NEWER, saved: NEWER, version: 'v2' });
    const same = transition(edited(NEWER), { ...newer, force: false });
    expect(stateName(same)).toBe('clean');
  });

  it('keeps unsaved edits over the same version', () => {
    const state = transition(edited(), {
      type: 'loaded',
      data: knowledge(BASE, 'v1'),
      force: false
    });
    expect(stateName(state)).toBe('dirty');
    expect(state.text).toBe(MINE);
  });

  it('shows newer server text beside unsaved edits, never dropping either', () => {
    const state = transition(edited(), {
      type: 'loaded',
      data: knowledge(NEWER, 'v2'),
      force: false
    });
    expect(stateName(state)).toBe('conflict-stale');
    expect(state.text).toBe(MINE);
    expect(state.version).toBe('v1'); // a save still names what the edits built on
    expect(state.conflict).toEqual({
      kind: 'stale',
      theirs: { text: NEWER, version: 'v2' }
    });
    expect(state.notice).toEqual({ key: 'changed-under-edits' });
    expect(controls(state).reorganizeDisabled).toBe(true);
  });
});

describe('saving', () => {
  it('saving, then clean on the saved text and version', () => {
    const saving = transition(edited(), { type: 'save-start' });
    expect(stateName(saving)).toBe('saving');
    expect(controls(saving).saveDisabled).toBe(true);
    expect(controls(saving).editorDisabled).toBe(false);
    const saved = transition(saving, {
      type: 'saved',
      data: knowledge(MINE, 'v2'),
      sent: MINE
    });
    expect(stateName(saved)).toBe('clean');
    expect(saved).toMatchObject({ version: 'v2', saveError: null });
    expect(saved.notice).toEqual({ key: 'saved' });
  });

  it('keeps what was typed while the save was on its way', () => {
    const saving = transition(edited(), { type: 'save-start' });
    const typed = transition(saving, { type: 'edit', text: MINE + '- more\n' });
    const saved = transition(typed, {
      type: 'saved',
      data: knowledge(MINE, 'v2'),
      sent: MINE
    });
    expect(saved.text).toBe(MINE + '- more\n');
    expect(saved).toMatchObject({ saved: MINE, version: 'v2' });
    expect(stateName(saved)).toBe('dirty');
  });

  it('a stale save is a conflict with both texts; the edits stay', () => {
    const state = staleConflict();
    expect(stateName(state)).toBe('conflict-stale');
    expect(state.text).toBe(MINE);
    expect(state.saveError).toBe('conflict');
    expect(state.notice).toEqual({ key: 'save-conflict' });
  });

  it('a failed save says why and changes nothing else', () => {
    const before = edited();
    const state = transition(transition(before, { type: 'save-start' }), {
      type: 'save-failed',
      message: 'over the cap'
    });
    expect(state).toMatchObject({
      text: MINE,
      version: 'v1',
      saveError: 'failed',
      activity: 'idle'
    });
  });
});

describe('a stale conflict', () => {
  it('asks the server to merge the edits onto the newer text from what was loaded', () => {
    expect(mergeRequest(staleConflict())).toEqual({
      base: BASE,
      ours: MINE,
      theirs: NEWER
    });
    expect(mergeRequest(edited())).toBeNull();
  });

  it('merging disables the editor and the buttons, then builds on the newer version', () => {
    const merging = transition(staleConflict(), { type: 'merge-start' });
    expect(stateName(merging)).toBe('merging');
    const can = controls(merging);
    expect(can.editorDisabled && can.conflictDisabled && can.saveDisabled).toBe(
      true
    );
    const both = NEWER.replace('## Info', '- 金额以欧元计\n\n## Info');
    const done = transition(merging, merged(merging, merge(both)));
    expect(done).toMatchObject({
      text: both,
      saved: NEWER,
      version: 'v2',
      conflict: null,
      activity: 'idle'
    });
    expect(stateName(done)).toBe('dirty');
    expect(done.notice).toEqual({ key: 'merged', overCap: false });
  });

  it('items changed on both sides say both versions are in the editor', () => {
    const merging = transition(staleConflict(), { type: 'merge-start' });
    const done = transition(merging, merged(merging, merge('x', false, true)));
    expect(done.notice).toEqual({ key: 'merged-both', overCap: true });
  });

  it('a merge answer without a merge asked for changes nothing', () => {
    const state = staleConflict();
    expect(transition(state, merged(state, merge('x')))).toBe(state);
    expect(transition(edited(), { type: 'merge-start' }).activity).toBe('idle');
  });

  it('a merge of a conflict a refresh ended or replaced is dropped', () => {
    const merging = transition(staleConflict(), { type: 'merge-start' });
    const asked = merged(merging, merge('old merge'));
    const forced = transition(merging, {
      type: 'loaded',
      data: knowledge(NEWER, 'v2'),
      force: true
    });
    const ended = transition(forced, asked);
    expect(ended).toMatchObject({ text: NEWER, activity: 'idle' });
    const newer = transition(merging, {
      type: 'loaded',
      data: knowledge(NEWER + '- third\n', 'v3'),
      force: false
    });
    const replaced = transition(newer, asked);
    expect(replaced.text).toBe(MINE); // the person's text, not a merge with v2
    expect(replaced.conflict).toEqual({
      kind: 'stale',
      theirs: { text: NEWER + '- third\n', version: 'v3' }
    });
    expect(stateName(replaced)).toBe('conflict-stale');
  });

  it('a failed merge keeps the conflict and both texts', () => {
    const merging = transition(staleConflict(), { type: 'merge-start' });
    const failed = transition(merging, {
      type: 'merge-failed',
      message: 'ours:4: bad'
    });
    expect(stateName(failed)).toBe('conflict-stale');
    expect(failed.text).toBe(MINE);
    expect(noticeTone(failed.notice)).toBe('error');
  });

  it('Keep mine builds the edits on the newer version, to save over it', () => {
    const state = transition(staleConflict(), { type: 'keep-mine' });
    expect(state).toMatchObject({
      text: MINE,
      saved: NEWER,
      version: 'v2',
      conflict: null
    });
  });

  it('Take theirs drops the edits and is clean on the newer text', () => {
    const state = transition(staleConflict(), { type: 'take-theirs' });
    expect(stateName(state)).toBe('clean');
    expect(state).toMatchObject({ text: NEWER, version: 'v2' });
    expect(state.notice).toEqual({ key: 'took-theirs' });
  });

  it('the buttons do nothing without a conflict', () => {
    const state = edited();
    expect(transition(state, { type: 'keep-mine' })).toBe(state);
    expect(transition(state, { type: 'take-theirs' })).toBe(state);
  });
});

describe('a git merge conflict', () => {
  it("holds this clone's side, with both sides shown", () => {
    const state = gitConflict();
    expect(stateName(state)).toBe('conflict-git');
    expect(state).toMatchObject({
      text: GIT.ours,
      saved: MARKED,
      version: 'g1'
    });
    expect(isDirty(state)).toBe(true); // only a save of a clean text resolves it
    expect(controls(state).reorganizeDisabled).toBe(true);
  });

  it('merges both sides from the text they share', () => {
    expect(commonText(GIT)).toBe('## Rules\n\n- Dates are UTC\n\n## Info\n');
    expect(mergeRequest(gitConflict())).toEqual({
      base: '## Rules\n\n- Dates are UTC\n\n## Info\n',
      ours: GIT.ours,
      theirs: GIT.theirs
    });
    const merging = transition(gitConflict(), { type: 'merge-start' });
    const done = transition(merging, merged(merging, merge('both')));
    expect(done.text).toBe('both');
    expect(stateName(done)).toBe('conflict-git'); // still conflicted on disk
    expect(done.notice).toEqual({ key: 'merged-both', overCap: false });
  });

  it("Take theirs loads the other clone's side, Keep mine this clone's", () => {
    const theirs = transition(gitConflict(), { type: 'take-theirs' });
    expect(theirs.text).toBe(GIT.theirs);
    expect(theirs.notice).toEqual({ key: 'took-other-clone' });
    expect(stateName(theirs)).toBe('conflict-git');
    const edited = transition(gitConflict(), { type: 'edit', text: 'mine' });
    expect(transition(edited, { type: 'keep-mine' }).text).toBe(GIT.ours);
  });

  it('a save of a clean text resolves it', () => {
    const saving = transition(gitConflict(), { type: 'save-start' });
    const saved = transition(saving, {
      type: 'saved',
      data: knowledge(GIT.ours, 'g2'),
      sent: GIT.ours
    });
    expect(stateName(saved)).toBe('clean');
  });

  it("a refresh keeps the person's resolving edits unless forced", () => {
    const editing = transition(gitConflict(), {
      type: 'edit',
      text: 'resolving'
    });
    const again = {
      type: 'loaded',
      data: knowledge(MARKED, 'g1', GIT)
    } as const;
    expect(transition(editing, { ...again, force: false }).text).toBe(
      'resolving'
    );
    expect(transition(editing, { ...again, force: true }).text).toBe(GIT.ours);
  });

  it('a conflicted file that changed again under those edits shows its new sides', () => {
    const editing = transition(gitConflict(), {
      type: 'edit',
      text: 'resolving'
    });
    const newer = { ...GIT, theirs: GIT.theirs.replace('tax', 'VAT') };
    const state = transition(editing, {
      type: 'loaded',
      data: knowledge(MARKED.replace('tax', 'VAT'), 'g3', newer),
      force: false
    });
    expect(state.text).toBe('resolving');
    expect(state.conflict).toEqual({ kind: 'git', merge: newer });
    expect(state.version).toBe('g3');
  });

  it('a stale conflict meeting a conflicted file switches to the git conflict', () => {
    const state = transition(staleConflict(), {
      type: 'loaded',
      data: knowledge(MARKED, 'g1', GIT),
      force: false
    });
    expect(stateName(state)).toBe('conflict-git');
  });
});

describe('Reorganize', () => {
  it('of the saved file: reorganizing, with progress, then the diff of what it wrote', () => {
    const start = transition(opened(), { type: 'reorganize-start' });
    expect(stateName(start)).toBe('reorganizing');
    expect(start.progress).toBeNull();
    const can = controls(start);
    expect(
      can.editorDisabled && can.saveDisabled && can.reorganizeDisabled
    ).toBe(true);
    const going = transition(start, {
      type: 'reorganize-progress',
      job: job('running')
    });
    expect(going.progress).toEqual({
      stage: 'grouping',
      elapsed: 1.4,
      timeout: 120
    });
    const done = transition(going, {
      type: 'reorganize-end',
      job: job('done', result('## Rules\n')),
      before: BASE
    });
    expect(stateName(done)).toBe('clean');
    expect(done.preview?.mode).toBe('done');
    expect(done.preview?.before).toBe(BASE);
    expect(done.notice).toEqual({ key: 'reorganized' });
    expect(noticeTone(done.notice)).toBe('ok');
  });

  it('with nothing to change writes nothing and says so', () => {
    const start = transition(opened(), { type: 'reorganize-start' });
    const done = transition(start, {
      type: 'reorganize-end',
      job: job('done', result(BASE, { changed: false, written: false })),
      before: BASE
    });
    expect(done.notice).toEqual({ key: 'nothing-to-reorganize' });
  });

  it('a timed-out, failed or unreachable job says so', () => {
    const start = transition(opened(), { type: 'reorganize-start' });
    const end = (j: Parameters<typeof job>[0] | null, message?: string) =>
      transition(start, {
        type: 'reorganize-end',
        job: j ? job(j, null, 'too slow') : null,
        before: BASE,
        message
      });
    expect(end('timed_out').notice).toEqual({
      key: 'reorganize-timed-out',
      message: 'too slow'
    });
    expect(end('failed').notice).toEqual({
      key: 'reorganize-failed',
      message: 'too slow'
    });
    const lost = end(null, 'offline');
    expect(lost.notice).toEqual({
      key: 'reorganize-failed',
      message: 'offline'
    });
    expect(lost.activity).toBe('idle');
    expect(lost.preview).toBeNull();
  });

  it('of unsaved text: a preview to use, then Save', () => {
    const over = 'x'.repeat(SAVE_LIMIT + 10);
    const dirty = transition(opened(), { type: 'edit', text: over });
    const shown = transition(dirty, {
      type: 'previewed',
      result: result('## Rules\n\n- short\n'),
      before: over
    });
    expect(stateName(shown)).toBe('reorganize-preview');
    expect(shown.notice).toEqual({ key: 'preview-ready' });
    const used = transition(shown, { type: 'use-preview' });
    expect(used.text).toBe('## Rules\n\n- short\n');
    expect(used.preview).toBeNull();
    expect(used.notice).toEqual({ key: 'preview-used' });
    expect(stateName(used)).toBe('dirty');
  });

  it('a preview that changes nothing says so, and Close drops it', () => {
    const shown = transition(edited(), {
      type: 'previewed',
      result: result(MINE, { changed: false, written: false }),
      before: MINE
    });
    expect(shown.notice).toEqual({ key: 'nothing-to-reorganize' });
    expect(transition(shown, { type: 'close-preview' }).preview).toBeNull();
  });

  it('the diff of a written reorganize cannot be used as text', () => {
    const start = transition(opened(), { type: 'reorganize-start' });
    const done = transition(start, {
      type: 'reorganize-end',
      job: job('done', result('## Rules\n')),
      before: BASE
    });
    expect(transition(done, { type: 'use-preview' })).toBe(done);
  });

  it('a preview failure says so', () => {
    const state = transition(edited(), {
      type: 'preview-failed',
      message: 'x'
    });
    expect(state.notice).toEqual({ key: 'reorganize-failed', message: 'x' });
  });
});

describe('the state name', () => {
  it('puts what runs first, then the conflict, the preview, the cap', () => {
    const conflict = staleConflict();
    expect(stateName(transition(conflict, { type: 'save-start' }))).toBe(
      'saving'
    );
    const preview = transition(
      transition(opened(), { type: 'edit', text: 'x'.repeat(SAVE_LIMIT + 1) }),
      { type: 'previewed', result: result('y'), before: 'x' }
    );
    expect(stateName(preview)).toBe('reorganize-preview');
    expect(stateName(transition(preview, { type: 'close-preview' }))).toBe(
      'over-cap'
    );
  });
});
