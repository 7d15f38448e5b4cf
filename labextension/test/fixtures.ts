/** Server answers for the editor's unit tests, shaped as the REST schemas pin them. */

import type {
  IKnowledge,
  IKnowledgeMerge,
  IKnowledgeMergeConflict,
  ILibraryStatus,
  IReorganizeJob,
  IReorganizeResult
} from '../src/schemas';

export function status(version: string, rules = 1): ILibraryStatus {
  return {
    layer: 'user',
    project: null,
    path: '/home/me/.jupyter-memory/knowledge.md',
    exists: true,
    rules,
    info: 0,
    chars: 40,
    budget: 4000,
    catalog_threshold: 60,
    mode: 'flat',
    last_updated: null,
    legacy_layout: false,
    version,
    conflicted: false,
    arrived: null
  };
}

export function knowledge(
  text: string,
  version: string,
  conflict: IKnowledgeMergeConflict | null = null
): IKnowledge {
  return {
    layer: 'user',
    project: null,
    text,
    version,
    status: status(version),
    conflict
  };
}

export function merge(
  text: string,
  clean = true,
  overCap = false
): IKnowledgeMerge {
  return {
    text,
    clean,
    over_cap: overCap,
    chars: text.length,
    both_kept: clean ? [] : [{ section: 'rules', ours: ['a'], theirs: ['b'] }]
  };
}

export function result(
  text: string,
  { changed = true, written = true } = {}
): IReorganizeResult {
  return {
    layer: 'user',
    project: null,
    path: 'knowledge.md',
    backup: 'knowledge.md.bak',
    grouped: false,
    duplicates_removed: 0,
    chars_before: 100,
    chars_after: text.length,
    used_llm: false,
    version: 'v-reorganized',
    changed,
    written,
    merged: [],
    condensed: [],
    groups: [],
    leaves_before: 2,
    leaves_after: 1,
    other_share: 0,
    over_budget: false,
    budget_note: null,
    text
  };
}

export function job(
  state: IReorganizeJob['state'],
  done: IReorganizeResult | null = null,
  message = ''
): IReorganizeJob {
  return {
    layer: 'user',
    project: null,
    state,
    stage: 'grouping',
    elapsed: 1.4,
    timeout: 120,
    result: done,
    error: message ? { message, error: 'timed_out' } : null,
    status: null
  };
}
