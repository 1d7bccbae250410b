// Every known failure of known-failures.ts, replayed from its recorded counterexample: it must still fail exactly
// as recorded. When a product fix makes one pass, this test fails and names the entry to delete, so the list only
// ever holds failures that are real today (and the fuzz loop's property then guards the fix).
import { describe, expect, it } from "vitest";
import type { Damage } from "./fuzz-damage.js";
import { replayCase } from "./fuzz-support.js";
import { FORMER_FAILURES, KNOWN_FAILURES } from "./known-failures.js";

describe("the known failures still fail as recorded", () => {
  // An empty list (every failure fixed) is the goal, not a missing test.
  if (KNOWN_FAILURES.length === 0) it("none are known", () => expect(KNOWN_FAILURES).toEqual([]));
  it.each(KNOWN_FAILURES.flatMap((k) => k.formats.map((format) => [k.id, format, k] as const)))("%s (%s)", async (id, format, known) => {
    const counterexample = known.counterexamples[format];
    if (counterexample === undefined) return;
    const outcome = await replayCase(format, JSON.parse(counterexample) as Damage[]);
    expect(outcome.failures, "failures the list does not know").toEqual([]);
    expect(
      outcome.known.some((f) => known.property === f.property && known.detail.test(f.detail)),
      `${id} no longer fails on ${format} with ${counterexample}: the fix has landed, delete its entry from known-failures.ts`,
    ).toBe(true);
  });
});

describe("the failures the harness found and that are fixed hold every property", () => {
  it.each(FORMER_FAILURES.map((f) => [f.id, f.format, f] as const))("%s (%s)", async (_id, format, former) => {
    const outcome = await replayCase(format, JSON.parse(former.counterexample) as Damage[]);
    expect(outcome.failures, `was: ${former.was}`).toEqual([]);
    expect(outcome.known, `was: ${former.was}`).toEqual([]);
  });
});
