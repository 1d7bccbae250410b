import { describe, expect, it } from "vitest";
import { MINUTE, SECOND } from "../support/opencode-fixtures.js";
import { expected, FORMATS, HOUR, lastWrite, messageWhere, messageWithText, scan, sessionOf, spots, storeOf, UNFINISHED } from "./harness.js";

/** opencode was killed while the model was writing its answer: text is there, step-finish and time.completed are not. */
function killedWhileWriting(opts: { followUp: boolean }) {
  return storeOf(
    sessionOf((w) => [
      w.user("Explain why summing in cents fixes it."),
      w.assistant(
        [
          w.stepStart(),
          w.reasoning("Integers are exact; floating point cents are not. Explain with 0.1 + 0.2."),
          w.text("Floating point cannot represent 0.1 exactly, so each rounded line carries a tiny error and"),
        ],
        UNFINISHED,
      ),
      ...(opts.followUp
        ? [
            w.user("You stopped mid-sentence. Just apply the fix.", { gap: 30 * MINUTE }),
            w.assistant([w.stepStart(), w.text("Applying the integer-cents fix now."), w.stepFinish("stop")]),
          ]
        : []),
    ]),
  );
}

describe.each(FORMATS)("incomplete-message (%s store)", (format) => {
  it("an answer cut off by a kill, followed by a new user turn, is reported on its message", () => {
    const built = killedWhileWriting({ followUp: true });
    const cut = messageWhere(built, messageWithText("each rounded line carries"));
    const findings = scan(format, built, { now: lastWrite(built) + HOUR });
    expect(spots(findings)).toEqual(expected({ rule: "incomplete-message", severity: "warning", messageId: cut }));
    expect(findings[0]!.partId).toBeUndefined();
  });

  it("a cut-off last answer nobody has written to for hours is incomplete", () => {
    const built = killedWhileWriting({ followUp: false });
    const cut = messageWhere(built, messageWithText("each rounded line carries"));
    expect(spots(scan(format, built, { now: lastWrite(built) + 2 * HOUR }))).toEqual(
      expected({ rule: "incomplete-message", severity: "warning", messageId: cut }),
    );
  });

  it("the last answer still streaming (written 15 s ago) is live, not incomplete", () => {
    const built = killedWhileWriting({ followUp: false });
    expect(scan(format, built, { now: lastWrite(built) + 15 * SECOND })).toEqual([]);
  });

  it("a turn that ended in a provider error without time.completed is not incomplete", () => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("Apply the fix."),
        w.assistant([w.stepStart()], {
          ...UNFINISHED,
          error: { name: "APIError", data: { message: "Overloaded", statusCode: 529, isRetryable: true } },
        }),
        w.user("Try again please.", { gap: 2 * MINUTE }),
        w.assistant([w.stepStart(), w.text("Applying the integer-cents fix now."), w.stepFinish("stop")]),
      ]),
    );
    expect(scan(format, built, { now: lastWrite(built) + HOUR })).toEqual([]);
  });
});
