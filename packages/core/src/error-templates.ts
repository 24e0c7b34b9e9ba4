import { describeValue } from './describe-value.js';

/**
 * The templates every package's table shares, so that the same mistake reads the same in every package,
 * each under the package's own code.
 */

/** The error for an argument of the wrong kind: `where: expected a function, received the string "x".` */
export function argumentErrorTemplates<C extends string>(code: C) {
  return {
    invalidArgument: {
      code,
      type: 'TypeError',
      message: (where: string, expected: string, received: unknown) =>
        `${where}: expected ${expected}, received ${describeValue(received)}.`,
    },
  } as const;
}

/**
 * The message templates of an option reader's two errors, for a package's table: every package words them the
 * same way, under its own code.
 */
export function optionErrorTemplates<C extends string>(code: C) {
  return {
    invalidOption: {
      code,
      message: (where: string, option: string, expected: string, received: unknown) =>
        `${where}: option "${option}" must be ${expected}, received ${describeValue(received)}.`,
    },
    unknownOption: {
      code,
      message: (where: string, option: string, known: readonly string[]) => {
        const suggestion = nearest(option, known);
        return (
          `${where}: unknown option "${option}".` +
          (suggestion === undefined ? '' : ` Did you mean "${suggestion}"?`) +
          ` Known options: ${known.join(', ')}.`
        );
      },
    },
  } as const;
}

/** The known name closest to a typo, if one is close enough to be what was meant. */
function nearest(typo: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const distance = editDistance(typo.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(best.length / 3)) ? best : undefined;
}

/** Levenshtein distance, with a swap of two neighbours counted as one edit (Damerau's restricted form). */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let distance = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        distance = Math.min(distance, rows[i - 2]![j - 2]! + 1);
      }
      rows[i]![j] = distance;
    }
  }
  return rows[a.length]![b.length]!;
}
