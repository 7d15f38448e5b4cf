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
  return (labels as Record<string, string>)[type] ?? type;
}

export function memoryTierLabel(trans: Trans, tier: string): string {
  const labels: Record<IMemoryHit['tier'], string> = {
    session: trans._p('memory tier', 'session'),
    daily: trans._p('memory tier', 'daily'),
    durable: trans._p('memory tier', 'durable')
  };
  return (labels as Record<string, string>)[tier] ?? tier;
}
