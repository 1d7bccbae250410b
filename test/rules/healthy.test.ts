import { describe, expect, it } from "vitest";
import { healthySession, SECOND } from "../support/opencode-fixtures.js";
import { FORMATS, HOUR, lastWrite, scan, START, storeOf, withStore } from "./harness.js";

describe.each(FORMATS)("a healthy session (%s store)", (format) => {
  const built = storeOf(healthySession({ start: START, turns: 6 }));
  const session = built.sessions[0]!;

  it("is what it claims: several turns, signed reasoning, tool calls and multi-step replies", () => {
    const parts = session.messages.flatMap((m) => m.parts.map((p) => p.data!));
    expect(session.messages.filter((m) => m.role === "user").length).toBe(6);
    expect(parts.filter((d) => d.type === "reasoning").length).toBeGreaterThan(4);
    expect(parts.filter((d) => d.type === "tool").length).toBeGreaterThan(4);
    expect(session.messages.some((m) => m.parts.filter((p) => p.data?.type === "step-start").length > 1)).toBe(true);
    const loaded = withStore(format, built, (store) => store.loadSession(session.id, "lean"));
    expect(loaded.messages.map((m) => m.ref.id)).toEqual(session.messages.map((m) => m.id));
  });

  it("yields zero findings an hour after its last turn", () => {
    expect(scan(format, built, { now: lastWrite(built) + HOUR })).toEqual([]);
  });

  it("yields zero findings seconds after its last turn, and in a full load", () => {
    expect(scan(format, built, { now: lastWrite(built) + 2 * SECOND, mode: "full" })).toEqual([]);
  });
});
