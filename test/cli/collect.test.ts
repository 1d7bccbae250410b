import { describe, expect, it } from "vitest";
import { collect } from "../../src/model/collect.js";

// collect replaces flatMap on the scan's per-record paths for speed alone: it must give exactly what flatMap gives.
describe("collect", () => {
  it("gives what flatMap gives, in order, with each item's index", () => {
    const cases: number[][] = [[], [0], [1, 2, 3], [3, 0, 2, 0, 1]];
    const each = (n: number, i: number) => Array.from({ length: n }, (_, k) => `${i}.${k}`);
    for (const items of cases) expect(collect(items, each)).toEqual(items.flatMap(each));
    expect(collect([1, 2, 3], (n) => (n === 2 ? [] : [n, -n]))).toEqual([1, -1, 3, -3]);
  });

  it("keeps nested arrays as items, flattening one level only", () => {
    expect(collect([1, 2], (n) => [[n], [n, n]])).toEqual([1, 2].flatMap((n) => [[n], [n, n]]));
  });
});
