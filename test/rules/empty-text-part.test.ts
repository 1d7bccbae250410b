import { describe, expect, it } from "vitest";
import { SECOND } from "../support/opencode-fixtures.js";
import { expected, FORMATS, HOUR, lastWrite, partWhere, scan, sessionOf, spots, storeOf, textPart, UNFINISHED } from "./harness.js";

const isText = (text: string) => (d: Record<string, unknown>) => d.type === "text" && d.text === text;

/** The model opened a text block and went straight to a tool call, leaving `text` as it was (#2830). */
function emptyTextBeforeTool(text: string) {
  return storeOf(
    sessionOf((w) => [
      w.user("Now run the invoice tests."),
      w.assistant([
        w.stepStart(),
        w.reasoning("Run only the invoice tests; they cover the totals."),
        textPart(w, text),
        w.bash("npx vitest run test/invoices.test.ts", "Run invoice tests", " ✓ test/invoices.test.ts (12 tests) 38ms\n"),
        w.stepFinish("tool-calls"),
        w.stepStart(),
        w.text("All 12 invoice tests pass."),
        w.stepFinish("stop"),
      ]),
    ]),
  );
}

describe.each(FORMATS)("empty-text-part (%s store)", (format) => {
  it("an empty text part next to a tool call, in a message with signed reasoning, is reported on that part", () => {
    // opencode 1.18 sends such a "" as " " (captured: fixtures/opencode-1.18/edited-text-thinking): whitespace.
    const built = emptyTextBeforeTool("");
    const empty = partWhere(built, isText(""));
    const findings = scan(format, built, { now: lastWrite(built) + HOUR });
    expect(spots(findings)).toEqual(expected({ rule: "empty-text-part", severity: "error", messageId: empty.messageId, partId: empty.partId }));
    expect(findings[0]!.message).toMatch(/whitespace-only text part/);
  });

  it("an empty text part in a message without signed reasoning is not sent by opencode 1.18, so not reported", () => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("Now run the invoice tests."),
        w.assistant([
          w.stepStart(),
          textPart(w, ""),
          w.bash("npx vitest run test/invoices.test.ts", "Run invoice tests", " ✓ test/invoices.test.ts (12 tests) 38ms\n"),
          w.stepFinish("tool-calls"),
          w.stepStart(),
          w.text("All 12 invoice tests pass."),
          w.stepFinish("stop"),
        ]),
      ]),
    );
    expect(scan(format, built, { now: lastWrite(built) + HOUR }).filter((f) => f.rule === "empty-text-part")).toEqual([]);
  });

  it("a text part holding only newlines and spaces is reported as whitespace-only", () => {
    const built = emptyTextBeforeTool("\n\n  \n");
    const blank = partWhere(built, isText("\n\n  \n"));
    const findings = scan(format, built, { now: lastWrite(built) + HOUR });
    expect(spots(findings)).toEqual(expected({ rule: "empty-text-part", severity: "error", messageId: blank.messageId, partId: blank.partId }));
    expect(findings[0]!.message).toMatch(/whitespace-only/);
  });

  it("the text part the live last turn has just opened (still empty) is not reported", () => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("Now run the invoice tests."),
        w.assistant([w.stepStart(), w.reasoning("Run only the invoice tests."), textPart(w, "")], UNFINISHED),
      ]),
    );
    expect(scan(format, built, { now: lastWrite(built) + 3 * SECOND })).toEqual([]);
  });

  it("an empty text part in a turn that failed with a provider error (which opencode never sends) is not reported", () => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("Now run the invoice tests."),
        w.assistant([w.stepStart(), textPart(w, "")], {
          error: { name: "APIError", data: { message: "Internal server error", statusCode: 500, isRetryable: true } },
          finish: "error",
        }),
        w.user("Try again."),
        w.assistant([w.stepStart(), w.text("Running the invoice tests now: all 12 pass."), w.stepFinish("stop")]),
      ]),
    );
    expect(partWhere(built, isText(""))).toBeDefined();
    expect(scan(format, built, { now: lastWrite(built) + HOUR })).toEqual([]);
  });
});
