import { describe, expect, it } from "vitest";
import { MINUTE, SECOND } from "../support/opencode-fixtures.js";
import { ABORTED, expected, FORMATS, hasText, HOUR, lastWrite, partWhere, scan, sessionOf, spots, storeOf, UNFINISHED } from "./harness.js";

const TAX_TS = "export const tax = (subtotalCents: number) => Math.round(subtotalCents * 0.2);";

describe.each(FORMATS)("trailing-thinking (%s store)", (format) => {
  it("a reply whose last step produced only reasoning before the stream ended is reported on that reasoning", () => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("Check the tax module too."),
        w.assistant([
          w.stepStart(),
          w.reasoning("Read the tax module first."),
          w.text("Reading the tax module."),
          w.read("src/invoices/tax.ts", TAX_TS),
          w.stepFinish("tool-calls"),
          w.stepStart(),
          w.reasoning("It rounds once from integer cents, so nothing to change. Tell the user."),
          w.stepFinish("stop"),
        ]),
        w.user("So?", { gap: 2 * MINUTE }),
        w.assistant([w.stepStart(), w.text("The tax module is fine: it rounds once from integer cents."), w.stepFinish("stop")]),
      ]),
    );
    const last = partWhere(built, hasText("Tell the user"));
    const findings = scan(format, built, { now: lastWrite(built) + HOUR });
    expect(spots(findings)).toEqual(expected({ rule: "trailing-thinking", severity: "error", messageId: last.messageId, partId: last.partId }));
  });

  it("Esc pressed while the model was thinking in its second step leaves a sent turn ending in reasoning", () => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("Check the tax module too."),
        w.assistant(
          [
            w.stepStart(),
            w.reasoning("Read the tax module first."),
            w.text("Reading the tax module."),
            w.read("src/invoices/tax.ts", TAX_TS),
            w.stepFinish("tool-calls"),
            w.stepStart(),
            w.reasoning("It rounds once from integer cents, so"),
          ],
          ABORTED,
        ),
        w.user("Stop, I'll look myself.", { gap: 30 * SECOND }),
        w.assistant([w.stepStart(), w.text("Sure."), w.stepFinish("stop")]),
      ]),
    );
    const cut = partWhere(built, hasText("integer cents, so"));
    expect(spots(scan(format, built, { now: lastWrite(built) + HOUR }))).toEqual(
      expected({ rule: "trailing-thinking", severity: "error", messageId: cut.messageId, partId: cut.partId }),
    );
  });

  it("the live last turn that is thinking right now is not reported", () => {
    const built = storeOf(
      sessionOf((w) => [w.user("Check the tax module too."), w.assistant([w.stepStart(), w.reasoning("Read the tax module first.")], UNFINISHED)]),
    );
    expect(scan(format, built, { now: lastWrite(built) + 4 * SECOND })).toEqual([]);
  });

  it("reasoning followed by a tool call and the tool's result does not trail", () => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("Check the tax module too."),
        w.assistant([
          w.stepStart(),
          w.reasoning("Read the tax module first."),
          w.read("src/invoices/tax.ts", TAX_TS),
          w.stepFinish("tool-calls"),
          w.stepStart(),
          w.reasoning("It rounds once from integer cents."),
          w.text("The tax module is fine."),
          w.stepFinish("stop"),
        ]),
      ]),
    );
    expect(scan(format, built, { now: lastWrite(built) + HOUR })).toEqual([]);
  });
});
