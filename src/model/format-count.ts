/**
 * A count as the messages print it: 1,234,567 (en-US grouping, whatever the user's locale). One formatter for the
 * whole run: `n.toLocaleString("en-US")` builds a new one on every call, which cost a scan with many findings
 * more than the findings themselves. Made on first use: building it loads ICU's locale data (20-30 ms), which a
 * run that prints no count (`--help`, `--version`) must not pay.
 */
let enUs: Intl.NumberFormat | undefined;

export function formatCount(n: number): string {
  enUs ??= new Intl.NumberFormat("en-US");
  return enUs.format(n);
}

/** "1 finding", "1,234 findings": a count and its noun (English plurals in -s). */
export function plural(n: number, word: string): string {
  return `${formatCount(n)} ${word}${n === 1 ? "" : "s"}`;
}
