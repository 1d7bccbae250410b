/**
 * A count as the messages print it: 1,234,567 (en-US grouping, whatever the user's locale). Whole numbers, which
 * is what every caller passes, are grouped here: building an `Intl.NumberFormat` loads ICU's locale data, 15-30 ms
 * of start-up that a one-session scan would pay for printing "1 finding". Anything else (a fraction, NaN, -0, a value
 * beyond 2^53) goes to one lazily built `Intl.NumberFormat`, so the output is the same for every number.
 */
let enUs: Intl.NumberFormat | undefined;

export function formatCount(n: number): string {
  if (!Number.isSafeInteger(n) || Object.is(n, -0)) {
    enUs ??= new Intl.NumberFormat("en-US");
    return enUs.format(n);
  }
  const digits = String(Math.abs(n));
  let grouped = digits.slice(0, ((digits.length - 1) % 3) + 1);
  for (let i = grouped.length; i < digits.length; i += 3) grouped += `,${digits.slice(i, i + 3)}`;
  return n < 0 ? `-${grouped}` : grouped;
}

/** "1 finding", "1,234 findings": a count and its noun (English plurals in -s). */
export function plural(n: number, word: string): string {
  return `${formatCount(n)} ${word}${n === 1 ? "" : "s"}`;
}
