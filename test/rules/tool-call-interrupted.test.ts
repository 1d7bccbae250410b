import { describe, expect, it } from "vitest";
import { MINUTE, SECOND } from "../support/opencode-fixtures.js";
import {
  ABORTED,
  abortedTool,
  expected,
  FORMATS,
  HOUR,
  lastWrite,
  messageWhere,
  partWhere,
  pendingTool,
  scan,
  sessionOf,
  spots,
  storeOf,
  UNFINISHED,
} from "./harness.js";

/** The user asks for the test suite; opencode starts `npm test` and the process is killed while it runs. */
function killedDuringBash(opts: { followUp: boolean }) {
  return storeOf(
    sessionOf((w) => [
      w.user("Fix the rounding and run the whole test suite."),
      w.assistant(
        [
          w.stepStart(),
          w.reasoning("Sum in integer cents, round once, then run the suite to check nothing else depends on per-line rounding."),
          w.text("Running the full suite."),
          w.running("bash", { command: "npm test", description: "Run all tests" }, { title: "Run all tests", metadata: { output: "\n RUN  v3.2.4\n" } }),
        ],
        UNFINISHED,
      ),
      ...(opts.followUp
        ? [
            w.user("opencode crashed, are you still there?", { gap: 20 * MINUTE }),
            w.assistant([w.stepStart(), w.text("Yes. The previous test run was cut off; I can start it again."), w.stepFinish("stop")]),
          ]
        : []),
    ]),
  );
}

const isRunningBash = (d: Record<string, unknown>) => d.type === "tool" && (d.state as { status: string }).status === "running";

describe.each(FORMATS)("tool-call-interrupted (%s store)", (format) => {
  it("a bash call killed mid-run and followed by a new turn is reported on its tool part", () => {
    const built = killedDuringBash({ followUp: true });
    const tool = partWhere(built, isRunningBash);
    const findings = scan(format, built, { now: lastWrite(built) + HOUR });
    expect(spots(findings)).toEqual(
      expected(
        { rule: "tool-call-interrupted", severity: "error", messageId: tool.messageId, partId: tool.partId },
        // The same kill also left the turn itself unfinished: that is incomplete-message's finding, on the message.
        { rule: "incomplete-message", severity: "warning", messageId: tool.messageId },
      ),
    );
    expect(findings.find((f) => f.rule === "tool-call-interrupted")!.message).toMatch(/bash call toolu_\w+ is still "running"/);
  });

  it("a tool whose input was still streaming (pending) when opencode died is interrupted too", () => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("Apply the fix in src/invoices/totals.ts."),
        w.assistant(
          [w.stepStart(), w.text("Editing the totals module."), pendingTool(w, "edit", '{"filePath":"/home/dana/code/invoice-api/src/inv')],
          UNFINISHED,
        ),
      ]),
    );
    const tool = partWhere(built, (d) => d.type === "tool" && (d.state as { status: string }).status === "pending");
    const findings = scan(format, built, { now: lastWrite(built) + 3 * HOUR });
    expect(spots(findings)).toEqual(
      expected(
        { rule: "tool-call-interrupted", severity: "error", messageId: tool.messageId, partId: tool.partId },
        { rule: "incomplete-message", severity: "warning", messageId: tool.messageId },
      ),
    );
  });

  it("a stale last turn older than the live window is interrupted, not live", () => {
    const built = killedDuringBash({ followUp: false });
    const tool = partWhere(built, isRunningBash);
    const findings = scan(format, built, { now: lastWrite(built) + 11 * MINUTE });
    expect(spots(findings)).toEqual(
      expected(
        { rule: "tool-call-interrupted", severity: "error", messageId: tool.messageId, partId: tool.partId },
        { rule: "incomplete-message", severity: "warning", messageId: tool.messageId },
      ),
    );
  });

  it("a tool running in the live last turn, updated seconds ago, is not interrupted", () => {
    const built = killedDuringBash({ followUp: false });
    expect(scan(format, built, { now: lastWrite(built) + 20 * SECOND })).toEqual([]);
  });

  it("the live window ends exactly liveWindowMs after the last write", () => {
    const built = killedDuringBash({ followUp: false });
    const tool = partWhere(built, isRunningBash);
    expect(scan(format, built, { now: lastWrite(built) + 10 * MINUTE - 1 })).toEqual([]);
    expect(spots(scan(format, built, { now: lastWrite(built) + 10 * MINUTE }))).toContainEqual({
      rule: "tool-call-interrupted",
      severity: "error",
      messageId: tool.messageId,
      partId: tool.partId,
    });
  });

  it("a tool opencode closed as aborted when the user pressed Esc is not interrupted", () => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("Run the whole test suite."),
        w.assistant(
          [
            w.stepStart(),
            w.text("Running the full suite."),
            abortedTool(w, "bash", { command: "npm test", description: "Run all tests" }, "\n RUN  v3.2.4\n ✓ test/config.test.ts (5 tests)\n"),
            w.stepFinish("tool-calls"),
          ],
          ABORTED,
        ),
      ]),
    );
    // Sanity: the aborted call is really there, as an errored tool part.
    expect(partWhere(built, (d) => d.type === "tool" && (d.state as { status: string }).status === "error")).toBeDefined();
    expect(scan(format, built, { now: lastWrite(built) + HOUR })).toEqual([]);
  });

  it("a running tool in an earlier turn is reported even seconds after the last write (only the last turn can be live)", () => {
    const built = killedDuringBash({ followUp: true });
    const tool = partWhere(built, isRunningBash);
    const reply = messageWhere(built, (m) => m.role === "assistant" && m.parts.some((p) => String(p.data?.text ?? "").startsWith("Yes.")));
    expect(reply).not.toBe(tool.messageId);
    const findings = spots(scan(format, built, { now: lastWrite(built) + 5 * SECOND }));
    expect(findings).toContainEqual({ rule: "tool-call-interrupted", severity: "error", messageId: tool.messageId, partId: tool.partId });
  });
});
