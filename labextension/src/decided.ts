import { MemoryApiError } from './api';
import type { IDecidedProposal, IProposal } from './schemas';

/**
 * What happened to a proposal, said the same way by the notebook's cards and
 * the panel; null while it is pending.
 */
export function outcomeText(p: IProposal): string | null {
  switch (p.status) {
    case 'applied':
      return p.applied_to === 'project'
        ? `Saved to Project · ${p.applied_project ?? ''}`
        : 'Saved to User';
    case 'dismissed':
      return 'Dismissed';
    case 'superseded':
      return p.superseded_by
        ? `Superseded by ${p.superseded_by}`
        : 'Superseded';
    default:
      return null;
  }
}

/**
 * The server's 409 for an Apply or Dismiss of a proposal someone already
 * decided (another card, the panel, the CLI, another kernel) is news, not a
 * failure: its text, or null when the error is something else.
 */
export function alreadyDecided(error: unknown): string | null {
  if (!(error instanceof MemoryApiError) || error.status !== 409) {
    return null;
  }
  const result = error.payload?.result as IDecidedProposal | undefined;
  switch (error.payload?.state) {
    case 'already_saved':
      return result?.layer === 'project'
        ? `Already saved elsewhere · Project · ${result.project ?? ''}`
        : result?.layer === 'user'
          ? 'Already saved elsewhere · User'
          : 'Already saved elsewhere';
    case 'already_dismissed':
      return 'Already dismissed elsewhere';
    case 'already_superseded':
      return 'Already replaced by a newer proposal';
    default:
      return null;
  }
}
