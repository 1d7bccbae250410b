import { describe, expect, it } from "vitest";
import { MINUTE } from "../support/opencode-fixtures.js";
import { ABORTED, expected, FORMATS, HOUR, lastWrite, messageWhere, messageWithText, scan, sessionOf, spots, storeOf } from "./harness.js";

describe.each(FORMATS)("thinking-only-message (%s store)", (format) => {
  it("a finished reply that holds only reasoning is reported once, on the message (not also as trailing-thinking)", () => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("Should we also round the tax line?"),
        w.assistant(
          [
            w.stepStart(),
            w.reasoning("Tax is computed on the rounded subtotal, so rounding it again would double-round. The answer is no."),
            w.stepFinish("stop"),
          ],
          { finish: "stop" },
        ),
        w.user("Well?", { gap: 4 * MINUTE }),
        w.assistant([w.stepStart(), w.text("No: tax is computed from the rounded subtotal, so it is already rounded once."), w.stepFinish("stop")]),
      ]),
    );
    const thinking = messageWhere(built, messageWithText("double-round"));
    const findings = scan(format, built, { now: lastWrite(built) + HOUR });
    expect(spots(findings)).toEqual(expected({ rule: "thinking-only-message", severity: "error", messageId: thinking }));
    expect(findings[0]!.partId).toBeUndefined();
  });

  it("Esc pressed right after the model finished thinking: opencode drops the aborted reasoning-only turn, nothing to report", () => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("Should we also round the tax line?"),
        w.assistant([w.stepStart(), w.reasoning("Tax is computed on the rounded subtotal, so rounding it again would double-round.")], ABORTED),
        w.user("Never mind, just answer briefly.", { gap: MINUTE }),
        w.assistant([w.stepStart(), w.text("No, the tax line needs no extra rounding."), w.stepFinish("stop")]),
      ]),
    );
    expect(scan(format, built, { now: lastWrite(built) + HOUR })).toEqual([]);
  });

  it("a reply with reasoning followed by a tool call is not thinking-only", () => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("Should we also round the tax line?"),
        w.assistant([
          w.stepStart(),
          w.reasoning("Check how tax is computed before answering."),
          w.read("src/invoices/tax.ts", "export const tax = (subtotalCents: number) => Math.round(subtotalCents * 0.2);"),
          w.stepFinish("tool-calls"),
          w.stepStart(),
          w.reasoning("Tax rounds once from integer cents already."),
          w.text("No: `tax` already rounds once from integer cents."),
          w.stepFinish("stop"),
        ]),
      ]),
    );
    expect(scan(format, built, { now: lastWrite(built) + HOUR })).toEqual([]);
  });
});
