import { describe, expect, it } from "vitest";
import { healthySession, MINUTE } from "../support/opencode-fixtures.js";
import { FORMATS, HOUR, lastWrite, scan, storeOf, withStore } from "./harness.js";

/** The 48-bit time field of opencode ids wrapped here: ids minted from now on sort before all earlier ones. */
const WRAP = Date.parse("2026-08-14T11:19:55.136Z");

describe.each(FORMATS)("a session spanning the id wrap of 2026-08-14 (%s store)", (format) => {
  const built = storeOf(healthySession({ start: WRAP - 3 * MINUTE, turns: 6, title: "Validate config across the wrap" }));
  const session = built.sessions[0]!;
  const chronological = session.messages.map((m) => m.id);

  it("really has messages on both sides of the wrap, with later ids sorting first", () => {
    const before = session.messages.filter((m) => m.created < WRAP);
    const after = session.messages.filter((m) => m.created >= WRAP);
    expect(before.length).toBeGreaterThan(0);
    expect(after.length).toBeGreaterThan(0);
    expect(after[0]!.id < before.at(-1)!.id).toBe(true);
    expect([...chronological].sort()).not.toEqual(chronological);
  });

  it("loads messages in true chronological order, lean and full", () => {
    withStore(format, built, (store) => {
      expect(store.loadSession(session.id, "lean").messages.map((m) => m.ref.id)).toEqual(chronological);
      expect(store.loadSession(session.id, "full").messages.map((m) => m.ref.id)).toEqual(chronological);
    });
  });

  it("keeps each message's parts in the order they were written", () => {
    const loaded = withStore(format, built, (store) => store.loadSession(session.id, "lean"));
    expect(loaded.messages.map((m) => m.parts.map((p) => p.ref.id))).toEqual(session.messages.map((m) => m.parts.map((p) => p.id)));
  });

  it("yields zero findings", () => {
    expect(scan(format, built, { now: lastWrite(built) + HOUR })).toEqual([]);
  });
});
