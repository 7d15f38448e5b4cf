/**
 * A line-based three-way merge for a knowledge file (two sections of bullets).
 *
 * Starts from the newer server text (`theirs`), removes the lines the person
 * deleted from the text they started from (`base`), and adds the lines they
 * added, each after the line it followed in their text (`mine`). The result
 * goes into the editor for the person to review before saving: it proposes,
 * the person decides.
 */
export function mergeKnowledge(
  base: string,
  mine: string,
  theirs: string
): string {
  const baseLines = base.split('\n');
  const mineLines = mine.split('\n');
  const result = theirs.split('\n');

  const baseCount = countLines(baseLines);
  const mineCount = countLines(mineLines);

  // Lines the person deleted: drop as many copies from the server text.
  for (const [line, count] of baseCount) {
    let deleted = count - (mineCount.get(line) ?? 0);
    while (deleted > 0) {
      const at = result.indexOf(line);
      if (at < 0) {
        break;
      }
      result.splice(at, 1);
      deleted--;
    }
  }

  // Lines the person added: the copies of a line beyond its count in the base.
  const seen = new Map<string, number>();
  let pos = 0;
  for (const line of mineLines) {
    const n = (seen.get(line) ?? 0) + 1;
    seen.set(line, n);
    const added = n > (baseCount.get(line) ?? 0);
    if (!added) {
      // A line the person kept: later additions go after it.
      let at = result.indexOf(line, pos);
      if (at < 0) {
        at = result.indexOf(line);
      }
      if (at >= 0) {
        pos = at + 1;
      }
      continue;
    }
    if (line.trim() !== '' && result.includes(line)) {
      continue; // the server already has it (e.g. the same entry applied)
    }
    result.splice(pos, 0, line);
    pos++;
  }
  return result.join('\n');
}

function countLines(lines: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of lines) {
    counts.set(line, (counts.get(line) ?? 0) + 1);
  }
  return counts;
}
