// Every known failure of known-failures.ts, replayed from its recorded counterexample: it must still fail exactly
// as recorded. When a product fix makes one pass, this test fails and names the entry to delete, so the list only
// ever holds failures that are real today (and the fuzz loop's property then guards the fix).
import { describe, expect, it } from "vitest";
import type { Damage } from "./fuzz-damage.js";
import { replayCase } from "./fuzz-support.js";
import { KNOWN_FAILURES } from "./known-failures.js";

describe("the known failures still fail as recorded", () => {
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
