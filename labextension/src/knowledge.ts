import { Dialog, Notification, showDialog } from '@jupyterlab/apputils';
import { Widget } from '@lumino/widgets';

import {
  errorMessage,
  IKnowledge,
  IProject,
  IReorganizeJob,
  ISettings,
  isKnowledgeConflict,
  Layer,
  postJSON,
  putJSON,
  requestAPI
} from './api';
import { diffLines } from './diff';
import { button, clear, el, setStatus, shown } from './dom';
import type { Trans } from './i18n';
import {
  controls,
  EditorEvent,
  IEditorState,
  initialState,
  IPreview,
  isDirty,
  mergeRequest,
  Notice,
  noticeTone,
  SAVE_LIMIT,
  stateName,
  transition
} from './knowledgeState';
import {
  IKnowledgeMerge,
  ILibraryStatus,
  IReorganizeResult,
  ITeamStatus
} from './schemas';

export { SAVE_LIMIT };

function formatUpdated(trans: Trans, value: string | null | undefined): string {
  if (!value) {
    return trans.__('never saved');
  }
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) {
    return value;
  }
  // One form in every language, in local time: the browser's own locale (toLocaleString)
  // wrote "12/2/2026, 6:42:10 AM" into a Chinese panel.
  const two = (n: number) => String(n).padStart(2, '0');
  return (
    `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ` +
    `${two(date.getHours())}:${two(date.getMinutes())}`
  );
}

/**
 * The editor of one knowledge file (User, or the picked Project) with Save,
 * Reorganize and Library status. Counts come from the saved file only.
 *
 * Saves are compare-and-swap: each names the version the editor text was
 * loaded from. When the file changed meanwhile (an Apply, another tab), the
 * server refuses with both versions, and a refresh that finds newer server
 * text under unsaved edits does the same: the view shows the newer text
 * beside the person's and lets them merge, keep theirs or take the server's.
 * Newer server text is never dropped from view without the person's choice.
 *
 * Its state is one value (knowledgeState.ts): this class renders it, sends
 * an event for each click, keystroke and server answer, and makes the
 * requests. Merging is the server's (`POST knowledge/{layer}/merge`).
 */
export class KnowledgeView extends Widget {
  constructor(
    private readonly trans: Trans,
    readonly layer: Layer
  ) {
    super();
    this.addClass('jm-knowledge');
    this.id = `jm-knowledge-${layer}`;
    this._editor = el('textarea', {
      className: 'jm-editor',
      attrs: {
        spellcheck: 'false',
        'aria-label':
          layer === 'user'
            ? trans.__('user knowledge')
            : trans.__('project knowledge')
      }
    });
    this._editor.addEventListener('input', () =>
      this.dispatch({ type: 'edit', text: this._editor.value })
    );
    this._counter = el('span', { className: 'jm-counter' });
    this._saveButton = button(trans.__('Save'), () => void this.save(), {
      className: 'jm-save'
    });
    this._reorganizeButton = button(
      trans.__('Reorganize'),
      () => void this.reorganize(),
      {
        className: 'jm-reorganize',
        title: trans.__('Back up, dedupe, condense and regroup the saved file')
      }
    );
    // The Reorganize preview of unsaved text: its diff, shown before anything is saved.
    this._previewNote = el('div', { className: 'jm-preview-note' });
    this._previewDiff = el('pre', {
      className: 'jm-diff',
      attrs: { 'aria-label': trans.__('Changes Reorganize would make') }
    });
    this._previewMerged = el('ul', { className: 'jm-preview-merged' });
    this._previewUse = button(
      trans.__('Use this text'),
      () => this.usePreview(),
      {
        className: 'jm-preview-use',
        title: trans.__(
          'Put the reorganized text in the editor; nothing is saved until you Save'
        )
      }
    );
    this._previewBox = el(
      'div',
      { className: 'jm-preview', attrs: { role: 'region' } },
      [
        this._previewNote,
        this._previewMerged,
        this._previewDiff,
        el('div', { className: 'jm-toolbar' }, [
          this._previewUse,
          button(trans.__('Close'), () => this.closePreview(), {
            className: 'jm-preview-cancel'
          })
        ])
      ]
    );
    this._previewBox.hidden = true;
    this._status = el('div', {
      className: 'jm-status',
      attrs: { role: 'status' }
    });
    this._library = el('dl', { className: 'jm-library' });
    this._dirtyNote = el('div', {
      className: 'jm-dirty-note',
      text: trans.__('Counts update after Save')
    });
    this._mask = el('div', { className: 'jm-mask', attrs: { role: 'status' } });
    this._mask.hidden = true;
    // Read-only views (the editor stays the one textarea of the view).
    this._theirsText = el('pre', {
      className: 'jm-conflict-text jm-conflict-theirs',
      attrs: { 'aria-label': trans.__('Newer text on the server') }
    });
    this._mineText = el('pre', {
      className: 'jm-conflict-text jm-conflict-mine',
      attrs: { 'aria-label': trans.__('Your unsaved text') }
    });
    this._conflictNote = el('div', {
      className: 'jm-conflict-note'
    });
    this._theirsLabel = el('div', { className: 'jm-conflict-label' });
    this._mineLabel = el('div', { className: 'jm-conflict-label' });
    this._conflictButtons = [
      button(
        trans.__('Merge both into the editor'),
        () => void this.mergeConflict(),
        {
          className: 'jm-conflict-merge',
          title: trans.__(
            "Your additions and deletions on top of the server's newer text; review, then Save"
          )
        }
      ),
      button(trans.__('Keep mine'), () => void this.keepMine(), {
        className: 'jm-conflict-keep-mine',
        title: trans.__("Save your text over the server's newer text")
      }),
      button(trans.__('Take theirs'), () => this.takeTheirs(), {
        className: 'jm-conflict-take-theirs',
        title: trans.__("Drop your edits and load the server's text")
      })
    ];
    this._conflictBox = el(
      'div',
      { className: 'jm-conflict', attrs: { role: 'alert' } },
      [
        this._conflictNote,
        el('div', { className: 'jm-conflict-panes' }, [
          el('div', { className: 'jm-conflict-pane' }, [
            this._theirsLabel,
            this._theirsText
          ]),
          el('div', { className: 'jm-conflict-pane' }, [
            this._mineLabel,
            this._mineText
          ])
        ]),
        el('div', { className: 'jm-toolbar' }, this._conflictButtons)
      ]
    );
    this._conflictBox.hidden = true;
    this._teamNote = el('div', { className: 'jm-team-note' });
    this._teamNote.hidden = true;
    this._projectSelect = el('select', {
      className: 'jm-project-select',
      attrs: { 'aria-label': trans._p('panel tab', 'Project') }
    });
    this._projectSelect.addEventListener('change', () => {
      this._project = this._projectSelect.value || null;
      void this.refresh(true);
    });
    const pick = button(trans.__('Pick project'), () => this.onPickProject(), {
      className: 'jm-pick-project'
    });
    const header =
      layer === 'project'
        ? el('div', { className: 'jm-toolbar' }, [
            el('label', { text: trans.__('Project ') }, [this._projectSelect]),
            pick
          ])
        : el('div', { className: 'jm-toolbar' }, [
            el('span', {
              className: 'jm-layer-title',
              text: trans.__('User knowledge (all projects)')
            })
          ]);
    const editorWrap = el('div', { className: 'jm-editor-wrap' }, [
      this._editor,
      this._mask
    ]);
    this.node.append(
      header,
      this._teamNote,
      this._conflictBox,
      editorWrap,
      el('div', { className: 'jm-toolbar' }, [
        this._saveButton,
        this._reorganizeButton,
        this._counter
      ]),
      this._status,
      this._previewBox,
      el('div', { className: 'jm-library-box' }, [
        el('div', {
          className: 'jm-library-title',
          text: trans.__('Library status')
        }),
        this._library,
        this._dirtyNote
      ])
    );
    this.render();
  }

  /** Set by the panel: add a project folder, then refresh the projects. */
  onPickProject: () => void = () => undefined;

  get dirty(): boolean {
    return isDirty(this._state);
  }

  get project(): string | null {
    return this._project;
  }

  /** The editor's state (knowledgeState.ts); the view renders nothing else. */
  get state(): IEditorState {
    return this._state;
  }

  setProjects(projects: IProject[], preferred: string | null = null): void {
    this._projects = projects;
    const current = preferred ?? this._project ?? this._focused;
    clear(this._projectSelect);
    this._projectSelect.appendChild(
      el('option', {
        text: projects.length
          ? this.trans.__('Pick project…')
          : this.trans.__('No project yet'),
        attrs: { value: '' }
      })
    );
    // The project the active notebook works in is offered first.
    const ordered = [
      ...projects.filter(p => p.id === this._focused),
      ...projects.filter(p => p.id !== this._focused)
    ];
    for (const p of ordered) {
      const text =
        p.id === this._focused ? this.trans.__('%1 (in use)', p.id) : p.id;
      this._projectSelect.appendChild(
        el('option', { text, title: p.folder, attrs: { value: p.id } })
      );
    }
    const known = projects.some(p => p.id === current);
    this._project = known
      ? current
      : projects.length === 1
        ? projects[0].id
        : null;
    this._projectSelect.value = this._project ?? '';
  }

  /**
   * The project the active notebook works in: offered first, and selected
   * unless the person picked another one here.
   */
  setFocused(project: string | null): void {
    if (project === this._focused) {
      return;
    }
    const follow = this._project === null || this._project === this._focused;
    this._focused = project;
    const before = this._project;
    this.setProjects(this._projects, follow ? project : null);
    if (this._project !== before) {
      void this.refresh(true);
    }
  }

  /**
   * Reload from the server. Unsaved edits are kept unless `force`; when the
   * server's file changed under them, the conflict is shown instead. `fetched`:
   * the file as just read (after a reorganize), shown at once, with no wait.
   */
  async refresh(force = false, fetched?: IKnowledge): Promise<void> {
    if (this.layer === 'project' && !this._project) {
      this._teamNote.hidden = true;
      this.dispatch({ type: 'no-file' });
      return;
    }
    try {
      const data = fetched ?? (await this.fetchKnowledge());
      this.dispatch({ type: 'loaded', data, force });
      if (this.layer === 'project' && this._project) {
        this.renderTeam(
          await requestAPI<ITeamStatus>('team', {}, { project: this._project })
        );
      }
    } catch (error) {
      this.dispatch({ type: 'load-failed', message: errorMessage(error) });
    }
  }

  private fetchKnowledge(): Promise<IKnowledge> {
    return requestAPI<IKnowledge>(
      `knowledge/${this.layer}`,
      {},
      { project: this._project }
    );
  }

  async save(): Promise<void> {
    if (controls(this._state).saveDisabled) {
      return; // one save at a time (the palette's Save too)
    }
    // The server enforces the 8,000-character cap and answers 413 with its message.
    const sent = this._state.text;
    this.dispatch({ type: 'save-start' });
    try {
      const data = await putJSON<IKnowledge>(
        `knowledge/${this.layer}`,
        { text: sent, base: this._state.version },
        { project: this._project }
      );
      this.dispatch({ type: 'saved', data, sent });
    } catch (error) {
      if (isKnowledgeConflict(error)) {
        this.dispatch({
          type: 'save-conflict',
          current: error.payload.current
        });
      } else {
        this.dispatch({ type: 'save-failed', message: errorMessage(error) });
      }
    }
  }

  /**
   * The server merges the person's edits with the newer text by item (the
   * merge git's driver makes); the result goes into the editor to review and Save.
   */
  async mergeConflict(): Promise<void> {
    const request = mergeRequest(this._state);
    const of = this._state.conflict;
    if (!request || !of || this._state.activity !== 'idle') {
      return;
    }
    this.dispatch({ type: 'merge-start' });
    try {
      const result = await postJSON<IKnowledgeMerge>(
        `knowledge/${this.layer}/merge`,
        request,
        { project: this._project }
      );
      this.dispatch({ type: 'merged', result, of });
      this._editor.focus();
    } catch (error) {
      this.dispatch({ type: 'merge-failed', message: errorMessage(error) });
    }
  }

  /** Save the person's text over the newer server text they have now seen. */
  async keepMine(): Promise<void> {
    if (!this._state.conflict || this._state.activity !== 'idle') {
      return;
    }
    this.dispatch({ type: 'keep-mine' });
    await this.save();
  }

  /** Drop the unsaved edits and load the newer server text. */
  takeTheirs(): void {
    if (this._state.activity === 'idle') {
      this.dispatch({ type: 'take-theirs' });
    }
  }

  async reorganize(): Promise<void> {
    if (controls(this._state).reorganizeDisabled) {
      return;
    }
    if (this.dirty) {
      // Unsaved (perhaps over the save limit): reorganize the editor's text
      // and show the diff; the person uses it, then saves, or not.
      await this.previewReorganize();
      return;
    }
    if (!(await this.confirmOverBudget())) {
      return;
    }
    const where = { project: this._project };
    const path = `knowledge/${this.layer}/reorganize`;
    const before = this._state.text;
    let fetched: IKnowledge | undefined;
    this.dispatch({ type: 'reorganize-start' });
    try {
      let job = await postJSON<IReorganizeJob>(path, {}, where);
      while (job.state === 'running') {
        this.dispatch({ type: 'reorganize-progress', job });
        await new Promise(resolve => setTimeout(resolve, 400));
        job = await requestAPI<IReorganizeJob>(path, {}, where);
      }
      // The file the job wrote and its counts are read while the editor is still masked:
      // "done" then appears with them, never beside the counts of the file it replaced
      // (the refresh below used to bring them a moment after, on a busy machine seconds).
      fetched = await this.fetchKnowledge().catch(() => undefined);
      this.dispatch({ type: 'reorganize-end', job, before });
    } catch (error) {
      this.dispatch({
        type: 'reorganize-end',
        job: null,
        before,
        message: errorMessage(error)
      });
    }
    if (this._state.notice?.key === 'reorganized') {
      Notification.success(
        this.layer === 'user'
          ? this.trans.__('User knowledge reorganized (backup kept)')
          : this.trans.__('Project knowledge reorganized (backup kept)'),
        {
          autoClose: 4000
        }
      );
    }
    await this.refresh(true, fetched);
  }

  /** The settings' LLM state and today's spend (the panel hands them in). */
  setSettings(settings: ISettings): void {
    this._settings = settings;
  }

  /**
   * A person's Reorganize runs past a spent LLM budget, but says so first
   * (issue 32): with an LLM configured and today's budget spent, ask.
   */
  private async confirmOverBudget(): Promise<boolean> {
    const settings = this._settings;
    if (!settings?.llm_configured || !settings.llm_spend.spent) {
      return true;
    }
    const trans = this.trans;
    const answer = await showDialog({
      title: trans.__('LLM budget spent'),
      body: trans.__(
        "Today's LLM budget is spent (%1 of %2 calls, %3 of %4 tokens). Reorganize calls the LLM anyway and goes over it.",
        String(settings.llm_spend.calls),
        String(settings.llm_budget.calls_per_day),
        settings.llm_spend.tokens.toLocaleString(),
        settings.llm_budget.tokens_per_day.toLocaleString()
      ),
      buttons: [
        Dialog.cancelButton({ label: trans.__('Cancel') }),
        Dialog.okButton({ label: trans.__('Reorganize anyway') })
      ]
    });
    return answer.button.accept;
  }

  /** What Reorganize makes of the unsaved text, as a diff; nothing is written. */
  async previewReorganize(): Promise<void> {
    const text = this._state.text;
    try {
      const result = await postJSON<IReorganizeResult>(
        `knowledge/${this.layer}/reorganize-text`,
        { text },
        { project: this._project }
      );
      this.dispatch({ type: 'previewed', result, before: text });
    } catch (error) {
      this.dispatch({ type: 'preview-failed', message: errorMessage(error) });
    }
  }

  /** The previewed text goes into the editor (unsaved: Save writes it, with its base). */
  usePreview(): void {
    this.dispatch({ type: 'use-preview' });
  }

  closePreview(): void {
    this.dispatch({ type: 'close-preview' });
  }

  private dispatch(event: EditorEvent): void {
    this._state = transition(this._state, event);
    this.render();
  }

  /** The DOM from the state: nothing else decides what is shown. */
  private render(): void {
    const state = this._state;
    const trans = this.trans;
    if (this._editor.value !== state.text) {
      this._editor.value = state.text; // only when it changed: the caret stays
    }
    const can = controls(state);
    this._editor.disabled = can.editorDisabled;
    this._saveButton.disabled = can.saveDisabled;
    this._reorganizeButton.disabled = can.reorganizeDisabled;
    this._reorganizeButton.title = can.reorganizePreviews
      ? trans.__(
          'Reorganize the unsaved text: see the changes, then use them and Save'
        )
      : trans.__('Back up, dedupe, condense and regroup the saved file');
    for (const b of this._conflictButtons) {
      b.disabled = can.conflictDisabled;
    }
    const length = state.text.length;
    this._counter.textContent = trans.__(
      '%1 / %2 (save limit)',
      length,
      SAVE_LIMIT
    );
    this._counter.dataset.over = length > SAVE_LIMIT ? 'true' : 'false';
    this._dirtyNote.hidden = !this.dirty;
    const busy = state.activity === 'reorganizing';
    this._mask.hidden = !busy;
    this._mask.textContent = !busy
      ? ''
      : state.progress
        ? trans.__(
            'Reorganizing… %1 · %2 s (stops at %3 s)',
            state.progress.stage,
            Math.round(state.progress.elapsed),
            state.progress.timeout
          )
        : trans.__('Reorganizing… starting');
    this.renderConflict();
    this.renderPreview(state.preview);
    setStatus(
      this._status,
      this.noticeText(state.notice),
      noticeTone(state.notice)
    );
    if (state.library !== this._shownLibrary) {
      this._shownLibrary = state.library;
      if (state.library) {
        this.renderStatus(state.library);
      } else {
        clear(this._library);
      }
    }
    const data = this.node.dataset;
    data.state = stateName(state);
    data.dirty = this.dirty ? 'true' : 'false';
    data.busy = busy ? 'true' : 'false';
    data.conflict = state.conflict?.kind === 'stale' ? 'true' : 'false';
    data.mergeConflict = state.conflict?.kind === 'git' ? 'true' : 'false';
    data.preview = state.preview ? 'true' : 'false';
    if (state.saveError) {
      data.saveError = state.saveError;
    } else {
      delete data.saveError;
    }
    if (state.loaded) {
      data.loaded = 'true';
    }
  }

  private renderConflict(): void {
    const conflict = this._state.conflict;
    const trans = this.trans;
    this._conflictBox.hidden = conflict === null;
    if (!conflict) {
      this._theirsText.textContent = '';
      this._mineText.textContent = '';
      return;
    }
    // Text is data: textContent, never parsed as HTML.
    if (conflict.kind === 'stale') {
      this._conflictNote.textContent = trans.__(
        'This file changed on the server since you started editing (an Apply or another save). Nothing of yours is lost: compare both versions and choose.'
      );
      this._theirsLabel.textContent = trans.__('Newer on the server');
      this._mineLabel.textContent = trans.__('Your unsaved text');
      this._theirsText.textContent = shown(conflict.theirs.text);
      this._mineText.textContent = shown(this._state.text);
      return;
    }
    this._conflictNote.textContent = trans.__(
      "A git pull merged another clone's changes, and both clones changed the same item. Agents get your clone's last clean version until you resolve it here: merge both into the editor, keep yours or take theirs, then Save."
    );
    this._theirsLabel.textContent = trans.__('Theirs (from the other clone)');
    this._mineLabel.textContent = trans.__('Yours (this clone)');
    this._theirsText.textContent = shown(conflict.merge.theirs);
    this._mineText.textContent = shown(conflict.merge.ours);
  }

  private noticeText(notice: Notice | null): string {
    const trans = this.trans;
    const overCap = (text: string, over: boolean): string =>
      over
        ? text +
          ' ' +
          trans.__(
            'Still over the %1-character save limit: remove or shorten entries before saving.',
            SAVE_LIMIT
          )
        : text;
    switch (notice?.key) {
      case undefined:
        return '';
      case 'pick-project':
        return trans.__('Pick a project to edit its knowledge.');
      case 'load-failed':
        return trans.__('Could not load: %1', notice.message);
      case 'changed-under-edits':
        return trans.__(
          'The file changed on the server while you were editing: compare and choose below.'
        );
      case 'saved':
        return trans.__('Saved.');
      case 'save-conflict':
        return trans.__(
          'Not saved: the file changed on the server since you opened it. Compare both versions above and choose.'
        );
      case 'save-failed':
        return trans.__('Not saved: %1', notice.message);
      case 'merged':
        return overCap(
          trans.__(
            "Merged your edits into the server's newer text. Review, then Save."
          ),
          notice.overCap
        );
      case 'merged-both':
        return overCap(
          trans.__(
            'Both versions of each changed item are in the editor: keep what holds, then Save.'
          ),
          notice.overCap
        );
      case 'merge-failed':
        return trans.__('Could not merge: %1', notice.message);
      case 'took-theirs':
        return trans.__(
          "Loaded the server's text; your unsaved edits were dropped."
        );
      case 'took-other-clone':
        return trans.__(
          "Loaded the other clone's version: Save to resolve the conflict."
        );
      case 'nothing-to-reorganize':
        return trans.__(
          'Nothing to reorganize: no true duplicates, no filler, no shared topic to group.'
        );
      case 'reorganized':
        return trans.__(
          'Reorganized. The previous file is kept as knowledge.md.bak.'
        );
      case 'reorganize-timed-out':
        return trans.__('Reorganize timed out: %1', notice.message);
      case 'reorganize-failed':
        return trans.__('Reorganize failed: %1', notice.message);
      case 'preview-ready':
        return trans.__(
          'Reorganize would make the changes below (nothing is saved yet).'
        );
      case 'preview-used':
        return trans.__(
          'Reorganized text is in the editor: review it, then Save.'
        );
    }
  }

  /** The summary, the merges with why, and the line diff of a reorganize. */
  private renderPreview(preview: IPreview | null): void {
    this._previewBox.hidden = preview === null;
    if (preview === this._shownPreview) {
      return; // the diff of a large file is built once per preview
    }
    this._shownPreview = preview;
    if (!preview) {
      return;
    }
    const { result, before } = preview;
    const trans = this.trans;
    this._previewNote.textContent = trans.__(
      '%1 duplicate(s) merged, %2 entr(y/ies) condensed, %3 group(s) made; %4 → %5 characters; %6 of %7 entries kept.',
      result.merged.length,
      result.condensed.length,
      result.groups.length,
      result.chars_before,
      result.chars_after,
      result.leaves_after,
      result.leaves_before
    );
    if (result.chars_after > SAVE_LIMIT) {
      this._previewNote.textContent +=
        ' ' +
        trans.__(
          'Still over the %1-character save limit: remove or shorten entries before saving.',
          SAVE_LIMIT
        );
    }
    if (result.over_budget) {
      // A person's Reorganize runs past the daily LLM budget; it says so.
      this._previewNote.textContent +=
        ' ' +
        trans.__(
          "This reorganize went over today's LLM budget (it ran because you asked)."
        );
    }
    clear(this._previewMerged);
    for (const m of result.merged) {
      this._previewMerged.append(
        el('li', {
          className: 'jm-preview-merge',
          text: trans.__(
            '“%1” merged into “%2” (%3)',
            m.removed,
            m.kept,
            m.reason
          )
        })
      );
    }
    clear(this._previewDiff);
    for (const line of diffLines(before, result.text)) {
      const mark = line.kind === 'del' ? '-' : line.kind === 'add' ? '+' : ' ';
      this._previewDiff.append(
        el('span', {
          className: `jm-diff-${line.kind}`,
          text: `${mark} ${line.text}\n`
        })
      );
    }
    this._previewBox.dataset.mode = preview.mode;
    // A saved reorganize: the diff is of what was written, nothing to use.
    this._previewUse.hidden = preview.mode === 'done' || !result.changed;
  }

  /** What doctor says of this clone of a team project (issue 17); text only. */
  private renderTeam(team: ITeamStatus): void {
    clear(this._teamNote);
    const trans = this.trans;
    const lines: [string, string][] = [];
    if (team.fix) {
      lines.push([
        'jm-team-fix',
        trans.__(
          'This clone has no jupyter-memory git merge driver: Applies made in two clones would conflict on the next pull. Run: %1',
          team.fix
        )
      ]);
    }
    for (const c of team.contested) {
      lines.push(['jm-team-contested', c.message]);
    }
    if (team.team || team.storage.kind === 'network') {
      lines.push([
        'jm-team-info',
        team.shared_queue
          ? trans.__(
              'Team project · decisions recorded as %1 · shared queue on · %2 storage (%3)',
              team.person,
              team.storage.kind,
              team.storage.reason
            )
          : trans.__(
              'Team project · decisions recorded as %1 · shared queue off · %2 storage (%3)',
              team.person,
              team.storage.kind,
              team.storage.reason
            )
      ]);
    }
    for (const [className, text] of lines) {
      this._teamNote.append(el('div', { className, text }));
    }
    this._teamNote.hidden = lines.length === 0;
    this.node.dataset.teamFix = team.fix ? 'true' : 'false';
  }

  private renderStatus(status: ILibraryStatus): void {
    clear(this._library);
    const trans = this.trans;
    // The field names tests and styles read stay English in every language.
    // One limit per purpose, each with what it means (issue 32).
    const rows: [string, string, string][] = [
      ['rules', trans.__('Rules'), String(status.rules)],
      ['info', trans.__('Info'), String(status.info)],
      ['characters', trans.__('Characters'), String(status.chars)],
      [
        'save-limit',
        trans.__('Save limit'),
        trans.__(
          '%1 characters: a Save or an Apply past it is refused',
          SAVE_LIMIT
        )
      ],
      [
        'budget',
        trans.__('Agent budget'),
        trans.__(
          '%1 characters listed to an agent per request; past it the list stops with a notice',
          status.budget
        )
      ],
      [
        'last-updated',
        trans.__('Last updated'),
        formatUpdated(trans, status.last_updated)
      ],
      [
        'mode',
        trans.__('Mode'),
        status.mode === 'catalog'
          ? trans._p('library mode', 'catalog')
          : status.mode === 'flat'
            ? trans._p('library mode', 'flat')
            : status.mode
      ]
    ];
    // Committed by a teammate and pulled, never applied here (docs/teams.md).
    const arrived = status.arrived;
    if (arrived) {
      rows.push([
        'arrived',
        trans.__('Arrived by git'),
        arrived.over_cap
          ? trans.__(
              'from %1; %2 characters, over the %3 cap',
              arrived.by,
              arrived.chars.toLocaleString('en-US'),
              arrived.cap.toLocaleString('en-US')
            )
          : trans.__(
              'from %1 (commit %2), not applied in this clone',
              arrived.by,
              arrived.commit.slice(0, 10)
            )
      ]);
    }
    for (const [field, label, value] of rows) {
      this._library.append(
        el('dt', { text: label }),
        el('dd', { text: value, attrs: { 'data-field': field } })
      );
    }
    this.node.dataset.arrived = arrived
      ? arrived.over_cap
        ? 'over-cap'
        : 'true'
      : 'false';
  }

  private _state: IEditorState = initialState();
  // What the last render drew, so a keystroke does not rebuild them.
  private _shownPreview: IPreview | null = null;
  private _shownLibrary: ILibraryStatus | null = null;
  private readonly _previewBox: HTMLDivElement;
  private readonly _previewNote: HTMLDivElement;
  private readonly _previewDiff: HTMLPreElement;
  private readonly _previewMerged: HTMLUListElement;
  private readonly _previewUse: HTMLButtonElement;
  private _project: string | null = null;
  private readonly _editor: HTMLTextAreaElement;
  private readonly _counter: HTMLSpanElement;
  private readonly _saveButton: HTMLButtonElement;
  private readonly _reorganizeButton: HTMLButtonElement;
  private _settings: ISettings | null = null;
  private readonly _status: HTMLDivElement;
  private readonly _library: HTMLDListElement;
  private readonly _dirtyNote: HTMLDivElement;
  private readonly _mask: HTMLDivElement;
  private readonly _conflictBox: HTMLDivElement;
  private readonly _conflictButtons: HTMLButtonElement[];
  private readonly _conflictNote: HTMLDivElement;
  private readonly _teamNote: HTMLDivElement;
  private readonly _theirsLabel: HTMLDivElement;
  private readonly _mineLabel: HTMLDivElement;
  private readonly _theirsText: HTMLPreElement;
  private readonly _mineText: HTMLPreElement;
  private readonly _projectSelect: HTMLSelectElement;
  private _projects: IProject[] = [];
  private _focused: string | null = null;
}
