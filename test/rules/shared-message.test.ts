import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { BuiltSession, Transcript } from "../support/opencode-fixtures.js";
import { HOUR, lastWrite, scan, sessionOf, spots, START, storeOf } from "./harness.js";

describe("shared-message (json store)", () => {
  const chat = (question: string, answer: string) => (w: Transcript) => [w.user(question), w.assistant([w.stepStart(), w.text(answer), w.stepFinish("stop")])];
  const built = storeOf(
    sessionOf(chat("Which Node version do we target?", "Node 20, per package.json engines."), { start: START, opening: false }),
    sessionOf(chat("Is the lockfile committed?", "Yes, package-lock.json is tracked."), { start: START + 24 * HOUR, opening: false }),
  );
  const [owner, holder] = built.sessions;
  const shared = owner!.messages[1]!;
  // A copy of one of the owner's message files in the other session's folder (its parts stay where they are, once).
  const copy = (dir: string) => {
    const messages = path.join(dir, "storage", "message");
    fs.copyFileSync(path.join(messages, owner!.id, `${shared.id}.json`), path.join(messages, holder!.id, `${shared.id}.json`));
  };
  const now = lastWrite(built) + HOUR;

  it.each(["lean", "full"] as const)("reports the copy in both sessions, naming the other and the session its record names (%s load)", (mode) => {
    const pairs: [BuiltSession, BuiltSession][] = [
      [owner!, holder!],
      [holder!, owner!],
    ];
    for (const [session, other] of pairs) {
      const findings = scan("json", built, { now, mode, sessionId: session.id, tamper: copy });
      const copyFinding = findings.find((f) => f.rule === "shared-message")!;
      // In the holder the copy (an earlier answer) sorts first: what opencode sends there begins with an assistant
      // turn, a real error the API refuses, reported by leading-assistant and left unfixed (the record is shared).
      const leading = session === holder ? [{ rule: "leading-assistant", severity: "error", messageId: shared.id }] : [];
      expect(spots(findings).map(({ partId: _, ...spot }) => spot)).toEqual([
        ...leading,
        { rule: "shared-message", severity: "warning", messageId: shared.id },
      ]);
      expect(copyFinding.message).toContain(`also filed under session ${other.id}`);
      expect(copyFinding.message).toContain(`its record names session ${owner!.id}`);
      expect(copyFinding.fixable).toBe(false);
    }
  });

  it("a store without copies has no such finding", () => {
    expect(scan("json", built, { now, sessionId: holder!.id })).toEqual([]);
  });
});
