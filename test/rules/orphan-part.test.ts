import { describe, expect, it } from "vitest";
import { ascendingId, mulberry32, SECOND } from "../support/opencode-fixtures.js";
import { dropSessionRecord, expected, FORMATS, HOUR, lastWrite, scan, sessionOf, spots, START, storeOf, withStore } from "./harness.js";

describe.each(FORMATS)("orphan-part (%s store)", (format) => {
  it("parts left behind by an interrupted message delete are reported on each part, naming the missing message", () => {
    const goneAt = START + 20 * 60 * SECOND;
    const gone = ascendingId("msg", goneAt, 1, mulberry32(99));
    const spec = sessionOf((w) => [w.user("Thanks, that's all.")]);
    spec.orphanParts = [
      {
        messageId: gone,
        parts: [
          { time: goneAt + 1 * SECOND, data: { type: "step-start", snapshot: "9f2c1e0d5b7a43e1c2d8f6a0b9e7c5d3a1f2e4b6" } },
          {
            time: goneAt + 2 * SECOND,
            data: { type: "text", text: "Reverting the rounding change.", time: { start: goneAt + 2 * SECOND, end: goneAt + 3 * SECOND } },
          },
        ],
      },
    ];
    const built = storeOf(spec);
    const [stepStart, text] = built.sessions[0]!.orphanParts;
    const findings = scan(format, built, { now: lastWrite(built) + HOUR });
    expect(spots(findings)).toEqual(
      expected(
        { rule: "orphan-part", severity: "warning", messageId: gone, partId: stepStart!.id },
        { rule: "orphan-part", severity: "warning", messageId: gone, partId: text!.id },
      ),
    );
    expect(findings[0]!.message).toContain(`message ${gone}, which does not exist`);
  });

  it("messages whose session record was deleted are each reported", () => {
    const built = storeOf(sessionOf(() => []));
    const session = built.sessions[0]!;
    const [user, assistant] = session.messages;
    const findings = scan(format, built, { now: lastWrite(built) + HOUR, tamper: dropSessionRecord(session) });
    expect(spots(findings)).toEqual(
      expected({ rule: "orphan-part", severity: "warning", messageId: user!.id }, { rule: "orphan-part", severity: "warning", messageId: assistant!.id }),
    );
  });

  it("a turn straddling the id wrap keeps all its parts, even those whose ids sort before the message id", () => {
    const WRAP = Date.parse("2026-08-14T11:19:55.136Z");
    const built = storeOf(sessionOf(() => [], { start: WRAP - 5 * SECOND }));
    const session = built.sessions[0]!;
    const assistant = session.messages[1]!;
    // Precondition: the reply was created before the wrap and some of its parts after it.
    const timeField = (id: string) => id.slice(4, 16);
    expect(assistant.parts.some((p) => timeField(p.id) < timeField(assistant.id))).toBe(true);
    expect(assistant.parts.some((p) => timeField(p.id) > timeField(assistant.id))).toBe(true);
    expect(scan(format, built, { now: lastWrite(built) + HOUR })).toEqual([]);
    const loaded = withStore(format, built, (store) => store.loadSession(session.id, "lean"));
    expect(loaded.orphanParts).toEqual([]);
    expect(loaded.messages[1]!.parts.map((p) => p.ref.id)).toEqual(assistant.parts.map((p) => p.id));
  });
});
