import { MemoryApiError } from './api';
import type { Trans } from './i18n';
import type { IDecidedProposal, IProposal } from './schemas';

/**
 * What happened to a proposal, said the same way by the notebook's cards and
 * the panel; null while it is pending.
 */
export function outcomeText(trans: Trans, p: IProposal): string | null {
  switch (p.status) {
    case 'applied':
      return savedText(trans, p.applied_to, p.applied_project);
    case 'dismissed':
      return p.reverted_at
        ? trans.__('Reverted · dismissed')
        : trans.__('Dismissed');
    case 'superseded':
      // In words, not ids: the person knows the rule, not its id (issue 32).
      if (p.superseded_by_text) {
        return trans.__('Replaced by: “%1”', p.superseded_by_text);
      }
      return p.superseded_by
        ? trans.__('Superseded by %1', p.superseded_by)
        : trans.__('Superseded');
    default:
      return null;
  }
}

/**
 * The server's 409 for an Apply or Dismiss of a proposal someone already
 * decided (another card, the panel, the CLI, another kernel) is news, not a
 * failure: its text, or null when the error is something else.
 */
export function alreadyDecided(trans: Trans, error: unknown): string | null {
  if (!(error instanceof MemoryApiError) || error.status !== 409) {
    return null;
  }
  const result = error.payload?.result as IDecidedProposal | undefined;
  switch (error.payload?.state) {
    case 'already_saved':
      return result?.layer === 'project'
        ? trans.__(
            'Already saved elsewhere · Project · %1',
            result.project ?? ''
          )
        : result?.layer === 'user'
          ? trans.__('Already saved elsewhere · User')
          : trans.__('Already saved elsewhere');
    case 'already_dismissed':
      return trans.__('Already dismissed elsewhere');
    case 'already_superseded':
      return trans.__('Already replaced by a newer proposal');
    default:
      return null;
  }
}

/**
 * A proposal's source in words, as the kernel's cards say it too
 * (widgets/cards.py): an extracted proposal whose quote is a notebook cell's
 * is "from a cell", else "from a chat" (one vocabulary: docs/design.md,
 * "Words on the screen").
 */
export function sourceLabel(
  trans: Trans,
  source: string,
  fromCell: boolean
): string {
  if (source === 'chat-extraction' && fromCell) {
    return trans._p('proposal source', 'from a cell');
  }
  return (sourceLabels(trans) as Record<string, string>)[source] ?? source;
}

/** Its quote came from a notebook cell, not a chat message. */
export function fromCell(p: IProposal): boolean {
  const origin = p.quote_origin ?? {};
  return Boolean(origin.cell_id) && !origin.message_id;
}

/**
 * The result of an Apply, the same words in the card, the panel's toast and a
 * card drawn again: "Saved to User" / "Saved to Project · sales-q3".
 */
export function savedText(
  trans: Trans,
  layer: string | null | undefined,
  project: string | null | undefined
): string {
  return layer === 'project'
    ? trans.__('Saved to Project · %1', project ?? '')
    : trans.__('Saved to User');
}

/**
 * A proposal's source as the panel and the cards name it. Typed by the REST
 * schema's enum: a source the server can send has a label.
 */
export function sourceLabels(
  trans: Trans
): Record<IProposal['source'], string> {
  return {
    'chat-extraction': trans._p('proposal source', 'from a chat'),
    agent: trans._p('proposal source', 'from an agent'),
    correction: trans._p('proposal source', 'correction'),
    gotcha: trans._p('proposal source', 'gotcha'),
    manual: trans._p('proposal source', 'manual'),
    'session-digest': trans._p('proposal source', 'session digest'),
    import: trans._p('proposal source', 'from an import')
  };
}
