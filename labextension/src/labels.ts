import type { Trans } from './i18n';
import { IMemoryHit } from './schemas';

/**
 * A memory's type and tier in the page's language. The memories search and the
 * review cards show the same words; a value the server adds later reads as sent.
 */
export function memoryTypeLabel(trans: Trans, type: string): string {
  const labels: Record<IMemoryHit['type'], string> = {
    episodic: trans._p('memory type', 'episodic'),
    semantic: trans._p('memory type', 'semantic'),
    procedural: trans._p('memory type', 'procedural'),
    reflective: trans._p('memory type', 'reflective')
  };
  // A digested memory's work type (a review card's kind), as widgets/review_cards.py says it.
  const work: Record<string, string> = {
    work_fact: trans._p('memory type', 'fact'),
    work_method: trans._p('memory type', 'method'),
    work_task: trans._p('memory type', 'task'),
    work_artifact: trans._p('memory type', 'artifact')
  };
  return (labels as Record<string, string>)[type] ?? work[type] ?? type;
}

/**
 * Where a digested memory's quote came from, as a person knows it: the digest
 * writes `kernel-<session id>#<message>` or `mcp:<conversation>#<message>`.
 */
export function quoteSourceLabel(
  trans: Trans,
  source: string | null | undefined
): string {
  if (!source) {
    return '';
  }
  const session = source.split('#', 1)[0];
  if (session.startsWith('kernel-')) {
    return trans.__('a notebook session');
  }
  if (session.startsWith('ipython-')) {
    return trans.__('an IPython session');
  }
  if (session.startsWith('mcp:')) {
    return trans.__('agent chat %1', session.slice('mcp:'.length));
  }
  return source;
}

export function memoryTierLabel(trans: Trans, tier: string): string {
  const labels: Record<IMemoryHit['tier'], string> = {
    session: trans._p('memory tier', 'session'),
    daily: trans._p('memory tier', 'daily'),
    durable: trans._p('memory tier', 'durable')
  };
  return (labels as Record<string, string>)[tier] ?? tier;
}

/**
 * Where a recall hit comes from (the snippet level's provenance), in the panel's
 * language: the server's `provenance` string is the agents' English line, built
 * from these same fields (core/memories/disclosure.py).
 */
export function memoryProvenance(trans: Trans, hit: IMemoryHit): string {
  const sources: Record<string, string> = {
    manual: trans._p('memory source', 'manual'),
    'session-digest': trans._p('memory source', 'session digest'),
    agent: trans._p('memory source', 'from an agent'),
    import: trans._p('memory source', 'from an import'),
    correction: trans._p('memory source', 'correction'),
    gotcha: trans._p('memory source', 'gotcha')
  };
  const layer =
    hit.layer === 'project'
      ? trans._p('memory layer', 'project')
      : trans._p('memory layer', 'user');
  const parts = [
    sources[hit.source] ?? hit.source,
    hit.created.slice(0, 10),
    hit.project ? `${layer}/${hit.project}` : layer
  ];
  parts.push(hit.reviewed ? trans.__('reviewed') : trans.__('unreviewed'));
  return parts.join(' · ');
}
