import { describe, expect, it } from "vitest";
import { expected, FORMATS, hasText, HOUR, lastWrite, partWhere, scan, sessionOf, spots, storeOf } from "./harness.js";

describe.each(FORMATS)("thinking-block-order (%s store)", (format) => {
  it("reasoning stored after a text part of the same step (the provider opened text first) is reported on the reasoning", () => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("Check the tax module too."),
        w.assistant([
          w.stepStart(),
          w.text("Let me look at the tax module."),
          w.reasoning("Tax might round per line as well; read it."),
          w.read("src/invoices/tax.ts", "export const tax = (subtotalCents: number) => Math.round(subtotalCents * 0.2);"),
          w.stepFinish("tool-calls"),
          w.stepStart(),
          w.reasoning("It rounds once from integer cents: fine."),
          w.text("The tax module already rounds once from integer cents; nothing to change there."),
          w.stepFinish("stop"),
        ]),
      ]),
    );
    const late = partWhere(built, hasText("Tax might round per line"));
    const findings = scan(format, built, { now: lastWrite(built) + HOUR });
    expect(spots(findings)).toEqual(expected({ rule: "thinking-block-order", severity: "error", messageId: late.messageId, partId: late.partId }));
    expect(findings[0]!.message).toMatch(/follows a text block/);
  });

  it("reasoning at the start of a second step, right after a tool result, is first in its request message", () => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("Check the tax module too."),
        w.assistant([
          w.stepStart(),
          w.reasoning("Tax might round per line as well; read it."),
          w.text("Let me look at the tax module."),
          w.read("src/invoices/tax.ts", "export const tax = (subtotalCents: number) => Math.round(subtotalCents * 0.2);"),
          w.stepFinish("tool-calls"),
          w.stepStart(),
          w.reasoning("It rounds once from integer cents: fine."),
          w.text("The tax module already rounds once from integer cents; nothing to change there."),
          w.stepFinish("stop"),
        ]),
      ]),
    );
    // The second reasoning follows a text and a tool part in stored order: only the step split makes it first.
    expect(partWhere(built, hasText("It rounds once")).partId > partWhere(built, hasText("Let me look at the tax")).partId).toBe(true);
    expect(scan(format, built, { now: lastWrite(built) + HOUR })).toEqual([]);
  });

  it("a turn that stopped with finish 'unknown' and was continued in a new assistant message merges with it: the continuation's reasoning follows text", () => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("Check the tax module too."),
        // The provider ended the stream without a usable finish reason; opencode's loop goes on in a new message.
        w.assistant([w.stepStart(), w.text("Let me look at the tax module."), w.stepFinish("unknown")]),
        w.assistant([
          w.stepStart(),
          w.reasoning("Tax might round per line as well; read it."),
          w.read("src/invoices/tax.ts", "export const tax = (subtotalCents: number) => Math.round(subtotalCents * 0.2);"),
          w.stepFinish("tool-calls"),
          w.stepStart(),
          w.reasoning("It rounds once from integer cents: fine."),
          w.text("The tax module already rounds once from integer cents; nothing to change there."),
          w.stepFinish("stop"),
        ]),
      ]),
    );
    const continuation = partWhere(built, hasText("Tax might round per line"));
    expect(spots(scan(format, built, { now: lastWrite(built) + HOUR }))).toEqual(
      expected({ rule: "thinking-block-order", severity: "error", messageId: continuation.messageId, partId: continuation.partId }),
    );
  });

  it("reasoning that starts a new turn after a finished text-only reply is first (a user message separates them)", () => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("Check the tax module too."),
        w.assistant([w.stepStart(), w.text("I'll look at the tax module next."), w.stepFinish("stop")]),
        w.user("Go ahead."),
        w.assistant([
          w.stepStart(),
          w.reasoning("Tax might round per line as well; read it."),
          w.read("src/invoices/tax.ts", "export const tax = (subtotalCents: number) => Math.round(subtotalCents * 0.2);"),
          w.stepFinish("tool-calls"),
          w.stepStart(),
          w.text("The tax module already rounds once from integer cents; nothing to change there."),
          w.stepFinish("stop"),
        ]),
      ]),
    );
    expect(scan(format, built, { now: lastWrite(built) + HOUR })).toEqual([]);
  });
});
