/**
 * `items.flatMap(each)` for the per-record paths of a scan. V8 (Node 20) runs Array.prototype.flatMap through a
 * generic path that costs about 1 µs a call on the short arrays a record holds, ~8× this loop; a scan makes one
 * such call per transcript line or opencode message.
 */
export function collect<T, U>(items: readonly T[], each: (item: T, index: number) => readonly U[]): U[] {
  const out: U[] = [];
  for (let i = 0; i < items.length; i++) {
    const produced = each(items[i]!, i);
    for (let j = 0; j < produced.length; j++) out.push(produced[j]!);
  }
  return out;
}
