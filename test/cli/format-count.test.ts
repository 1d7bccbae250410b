import { describe, expect, it } from "vitest";
import { formatCount, plural } from "../../src/model/format-count.js";

// The counts are grouped by hand (an Intl.NumberFormat costs a one-session scan 15-30 ms of ICU loading); what is
// printed must still be exactly what en-US formatting prints.
describe("formatCount", () => {
  const intl = new Intl.NumberFormat("en-US");

  it("prints every number the way en-US formatting does", () => {
    const samples = [0, -0, 1, 9, 10, 99, 100, 999, 1000, 1001, 9999, 10000, 123456, 999999, 1000000, 1234567, -1, -999, -1000, -1234567];
    for (let k = 0; k <= 15; k++) samples.push(10 ** k, 10 ** k - 1, -(10 ** k));
    samples.push(Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, 2 ** 53 + 2, 1.5, 1234.5678, -0.25, Number.NaN, Number.POSITIVE_INFINITY);
    let seed = 7;
    for (let i = 0; i < 2000; i++) {
      seed = (seed * 48271) % 2147483647;
      samples.push(Math.floor(seed / 2 ** (seed % 31)) * (i % 2 ? 1 : -1));
    }
    for (const n of samples) expect(formatCount(n), String(n)).toBe(intl.format(n));
  });

  it("groups in threes and counts nouns", () => {
    expect(formatCount(1234567)).toBe("1,234,567");
    expect(plural(1, "finding")).toBe("1 finding");
    expect(plural(1234, "finding")).toBe("1,234 findings");
  });
});
