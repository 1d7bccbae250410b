import { describe, expect, it } from "vitest";
import { MINUTE, truncateAfter } from "../support/opencode-fixtures.js";
import { expected, FORMATS, hasText, HOUR, lastWrite, messageWhere, messageWithText, partWhere, scan, sessionOf, spots, storeOf } from "./harness.js";

const SUITE_OUTPUT =
  " ✓ test/config.test.ts (5 tests) 6ms\n ✓ test/invoices.test.ts (12 tests) 41ms\n\n Test Files  2 passed (2)\n      Tests  17 passed (17)\n";

describe.each(FORMATS)("unreadable-record (%s store)", (format) => {
  it("a tool part whose JSON was cut off mid-write (torn write) is reported once, as unreadable, not as a schema violation", () => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("Run the whole suite."),
        w.assistant([
          w.stepStart(),
          w.reasoning("Run everything once to be sure."),
          w.text("Running the full suite."),
          { ...w.bash("npm test", "Run all tests", SUITE_OUTPUT), corrupt: truncateAfter("(12 tests)") },
          w.stepFinish("tool-calls"),
          w.stepStart(),
          w.text("All 17 tests pass."),
          w.stepFinish("stop"),
        ]),
      ]),
    );
    const torn = partWhere(built, (d) => d.type === "tool" && (d.state as { input: { command: string } }).input.command === "npm test");
    const findings = scan(format, built, { now: lastWrite(built) + HOUR });
    expect(spots(findings)).toEqual(expected({ rule: "unreadable-record", severity: "error", messageId: torn.messageId, partId: torn.partId }));
    expect(findings[0]!.message).toMatch(/torn write/);
  });

  it("a message record zero-filled by a power loss is reported on the message, and its parts raise nothing else", () => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("Run the whole suite."),
        {
          ...w.assistant([w.stepStart(), w.text("Running the full suite."), w.bash("npm test", "Run all tests", SUITE_OUTPUT), w.stepFinish("tool-calls")]),
          raw: Buffer.alloc(412),
        },
        w.user("Did it pass?", { gap: 5 * MINUTE }),
        w.assistant([w.stepStart(), w.text("Yes, all 17 tests passed."), w.stepFinish("stop")]),
      ]),
    );
    const zeroed = messageWhere(built, messageWithText("Running the full suite."));
    const findings = scan(format, built, { now: lastWrite(built) + HOUR });
    expect(spots(findings)).toEqual(expected({ rule: "unreadable-record", severity: "error", messageId: zeroed }));
  });

  it("a tool output that is itself a truncated JSON document is just text: the record is fine", () => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("What's in package.json? It looks broken."),
        w.assistant([
          w.stepStart(),
          w.text("Reading it."),
          w.read("package.json", '{\n  "name": "invoice-api",\n  "version": "1.4.0",\n  "scripts": {\n    "test": "vitest'),
          w.stepFinish("tool-calls"),
          w.stepStart(),
          w.text("package.json ends in the middle of the test script: the file itself was cut off. Restore it from git."),
          w.stepFinish("stop"),
        ]),
      ]),
    );
    expect(scan(format, built, { now: lastWrite(built) + HOUR })).toEqual([]);
  });

  // Only the reasoning is readable, so the message would look thinking-only (and end in thinking): that is the
  // same torn write, reported once.
  it("a torn text part after signed reasoning is one defect: unreadable-record only", () => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("Summarise the fix in one sentence."),
        w.assistant([
          w.stepStart(),
          w.reasoning("One sentence: integer cents, single rounding."),
          { ...w.text("Totals are now summed in integer cents and rounded once."), corrupt: truncateAfter("summed in") },
          w.stepFinish("stop"),
        ]),
      ]),
    );
    const torn = partWhere(built, hasText("summed in integer cents"));
    expect(spots(scan(format, built, { now: lastWrite(built) + HOUR }))).toEqual(
      expected({ rule: "unreadable-record", severity: "error", messageId: torn.messageId, partId: torn.partId }),
    );
  });

  it("a torn text part in the last step, after its reasoning, is not also trailing thinking", () => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("Check the tax module, then summarise."),
        w.assistant([
          w.stepStart(),
          w.reasoning("Read the tax module first."),
          w.read("src/invoices/tax.ts", "export const tax = (subtotalCents: number) => Math.round(subtotalCents * 0.2);"),
          w.stepFinish("tool-calls"),
          w.stepStart(),
          w.reasoning("Fine as is."),
          { ...w.text("The tax module already rounds once from integer cents."), corrupt: truncateAfter("already rounds") },
          w.stepFinish("stop"),
        ]),
      ]),
    );
    const torn = partWhere(built, hasText("already rounds once"));
    expect(spots(scan(format, built, { now: lastWrite(built) + HOUR }))).toEqual(
      expected({ rule: "unreadable-record", severity: "error", messageId: torn.messageId, partId: torn.partId }),
    );
  });
});
