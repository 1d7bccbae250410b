import { describe, expect, it } from "vitest";
import { MINUTE } from "../support/opencode-fixtures.js";
import { expected, FORMATS, HOUR, lastWrite, messageWhere, scan, sessionOf, spots, storeOf, userMessage } from "./harness.js";

const ZERO_OUTPUT = { input: 4_210, output: 0, reasoning: 0, cache: { read: 18_400, write: 0 } };

describe.each(FORMATS)("empty-message (%s store)", (format) => {
  it("a finished reply that kept only its step markers (the model returned nothing) is reported on the message", () => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("Thanks. Anything else to clean up?"),
        w.assistant([w.stepStart(), w.stepFinish("stop", ZERO_OUTPUT)]),
        w.user("Hello?", { gap: 3 * MINUTE }),
        w.assistant([w.stepStart(), w.text("Nothing else: the rounding fix is the only change needed."), w.stepFinish("stop")]),
      ]),
    );
    const empty = messageWhere(built, (m) => m.role === "assistant" && m.parts.every((p) => String(p.data?.type).startsWith("step-")));
    const findings = scan(format, built, { now: lastWrite(built) + HOUR });
    expect(spots(findings)).toEqual(expected({ rule: "empty-message", severity: "error", messageId: empty }));
    expect(findings[0]!.message).toMatch(/only step-start, step-finish/);
  });

  it("an errored reply with only a step-start, which opencode skips when it builds the request, is not empty-message", () => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("Thanks. Anything else to clean up?"),
        w.assistant([w.stepStart()], {
          error: { name: "APIError", data: { message: "Overloaded", statusCode: 529, isRetryable: true } },
          finish: "error",
        }),
        w.user("Try again.", { gap: 2 * MINUTE }),
        w.assistant([w.stepStart(), w.text("Nothing else: the rounding fix is the only change needed."), w.stepFinish("stop")]),
      ]),
    );
    expect(scan(format, built, { now: lastWrite(built) + HOUR })).toEqual([]);
  });

  it("a user turn that attached only an image (no typed text) is not empty", () => {
    const built = storeOf(
      sessionOf((w) => [
        userMessage(w, [
          {
            type: "file",
            mime: "image/png",
            filename: "receipt.png",
            url: "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
          },
        ]),
        w.assistant([w.stepStart(), w.text("The receipt shows 3 × 19.99 = 59.97, which matches the fixed total."), w.stepFinish("stop")]),
      ]),
    );
    expect(scan(format, built, { now: lastWrite(built) + HOUR })).toEqual([]);
  });
});
