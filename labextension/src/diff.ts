/**
 * A line diff for the editor's Reorganize preview: what leaves the file and
 * what comes in, shown before anything is saved (issue 32). Knowledge files
 * are at most a few hundred lines, so the plain LCS table is small.
 */

export interface IDiffLine {
  kind: 'same' | 'del' | 'add';
  text: string;
}

export function diffLines(before: string, after: string): IDiffLine[] {
  const a = before.replace(/\n$/, '').split('\n');
  const b = after.replace(/\n$/, '').split('\n');
  // lcs[i][j]: the longest common subsequence of a[i:] and b[j:].
  const lcs: number[][] = Array.from({ length: a.length + 1 }, () =>
    new Array<number>(b.length + 1).fill(0)
  );
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i][j] =
        a[i] === b[j]
          ? lcs[i + 1][j + 1] + 1
          : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const out: IDiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      out.push({ kind: 'same', text: a[i] });
      i++;
      j++;
    } else if (lcs[i + 1][j] >= lcs[i][j + 1]) {
      out.push({ kind: 'del', text: a[i++] });
    } else {
      out.push({ kind: 'add', text: b[j++] });
    }
  }
  while (i < a.length) {
    out.push({ kind: 'del', text: a[i++] });
  }
  while (j < b.length) {
    out.push({ kind: 'add', text: b[j++] });
  }
  return out;
}
