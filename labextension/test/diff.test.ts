/** The line diff the Reorganize preview shows (src/diff.ts). */

import { describe, expect, it } from 'vitest';

import { diffLines } from '../src/diff';

describe('diffLines', () => {
  it('marks what leaves and what comes in, in order', () => {
    const before = '## Rules\n\n- a\n- a\n- b\n';
    const after = '## Rules\n\n- a\n- c\n- b\n';
    expect(diffLines(before, after)).toEqual([
      { kind: 'same', text: '## Rules' },
      { kind: 'same', text: '' },
      { kind: 'same', text: '- a' },
      { kind: 'del', text: '- a' },
      { kind: 'add', text: '- c' },
      { kind: 'same', text: '- b' }
    ]);
  });

  it('a text against itself is all the same; one trailing newline is not a line', () => {
    const text = '## Rules\n\n- 金额以欧元计\n';
    const lines = diffLines(text, text);
    expect(lines.every(l => l.kind === 'same')).toBe(true);
    expect(lines).toHaveLength(3);
  });

  it('everything removed, everything added', () => {
    expect(diffLines('a\nb', '')).toEqual([
      { kind: 'del', text: 'a' },
      { kind: 'del', text: 'b' },
      { kind: 'add', text: '' }
    ]);
  });
});
