// New part ids must sort exactly where the fix puts them: opencode orders a message's parts by id string, and
// recover orders them by unwrapped id time (the 2026-08-14 wrap).
import { describe, expect, it } from "vitest";
import { idAfter, unwrappedIdTime } from "../../src/stores/opencode/ids.js";
import { ascendingId, mulberry32 } from "../support/opencode-fixtures.js";

const SHAPE = /^prt_[0-9a-f]{12}[0-9A-Za-z]{14}$/;
const WRAP_MS = Date.UTC(2026, 7, 14, 11, 19, 55, 136);

describe("idAfter", () => {
  const rand = mulberry32(7);
  const t = Date.UTC(2026, 9, 1, 9, 0, 0);

  it("sorts right after the previous part and before the next, in opencode's shape", () => {
    const previous = ascendingId("prt", t, 1, rand);
    const next = ascendingId("prt", t + 5, 1, rand);
    const id = idAfter("prt", previous, next, t);
    expect(id).toMatch(SHAPE);
    expect(previous < id && id < next).toBe(true);
    expect(unwrappedIdTime(id, t)!).toBeGreaterThan(unwrappedIdTime(previous, t)!);
    expect(unwrappedIdTime(id, t)!).toBeLessThan(unwrappedIdTime(next, t)!);
  });

  it("at the end of a message, sorts after the last part", () => {
    const last = ascendingId("prt", t, 3, rand);
    const id = idAfter("prt", last, undefined, t);
    expect(id > last).toBe(true);
    expect(id.slice(4, 16)).toBe((Number.parseInt(last.slice(4, 16), 16) + 1).toString(16).padStart(12, "0"));
  });

  it("when the next part is one tick later, still lands strictly between them (time field or random tail)", () => {
    for (let i = 0; i < 50; i++) {
      const previous = ascendingId("prt", t, 1, rand);
      const next = ascendingId("prt", t, 2, rand);
      const id = idAfter("prt", previous, next, t, rand);
      expect(id).toMatch(SHAPE);
      expect(previous < id && id < next, `${previous} < ${id} < ${next}`).toBe(true);
    }
  });

  it("after the id wrap, the new id still unwraps next to the part it follows", () => {
    const after = WRAP_MS + 60_000;
    const previous = ascendingId("prt", after, 1, rand);
    expect(previous.slice(4, 6)).toBe("00");
    const id = idAfter("prt", previous, undefined, after);
    expect(unwrappedIdTime(id, after)! - unwrappedIdTime(previous, after)!).toBe(1);
  });

  it("refuses when no id can sort between two parts", () => {
    const previous = "prt_0c9384dae001zzzzzzzzzzzzzz";
    const next = "prt_0c9384dae002000000000000000".slice(0, 30);
    expect(() => idAfter("prt", previous, next, t)).toThrow(/no id sorts between/);
  });
});
