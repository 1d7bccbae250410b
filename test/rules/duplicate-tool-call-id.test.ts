import { describe, expect, it } from "vitest";
import { MINUTE } from "../support/opencode-fixtures.js";
import { expected, FORMATS, HOUR, lastWrite, messageWhere, messageWithText, partWhere, scan, sessionOf, spots, storeOf, toolOutput } from "./harness.js";

/** An OpenAI-compatible proxy that numbers tool calls per response (`call_0`, `call_1`, …) reuses ids across turns. */
const PROXY = { providerID: "litellm", modelID: "claude-sonnet-4-5" };

function proxySession(secondCallID: string) {
  return storeOf(
    sessionOf(
      (w) => [
        w.user("Run the invoice tests.", { info: { model: PROXY } }),
        w.assistant(
          [
            w.stepStart(),
            w.text("Running them."),
            toolOutput(w, "bash", { command: "npx vitest run test/invoices.test.ts" }, " ✓ test/invoices.test.ts (12 tests)\n", { callID: "call_0" }),
            w.stepFinish("tool-calls"),
            w.stepStart(),
            w.text("All 12 pass."),
            w.stepFinish("stop"),
          ],
          PROXY,
        ),
        w.user("Now the typechecker.", { gap: 2 * MINUTE, info: { model: PROXY } }),
        w.assistant(
          [
            w.stepStart(),
            w.text("Typechecking."),
            toolOutput(w, "bash", { command: "npx tsc --noEmit" }, "", { callID: secondCallID }),
            w.stepFinish("tool-calls"),
            w.stepStart(),
            w.text("No type errors."),
            w.stepFinish("stop"),
          ],
          PROXY,
        ),
      ],
      { opening: false },
    ),
  );
}

describe.each(FORMATS)("duplicate-tool-call-id (%s store)", (format) => {
  it("a proxy reusing call_0 in a later turn is reported on the second call, not the first", () => {
    const built = proxySession("call_0");
    const second = partWhere(built, (d) => d.type === "tool" && (d.state as { input: { command: string } }).input.command === "npx tsc --noEmit");
    expect(second.messageId).toBe(messageWhere(built, messageWithText("Typechecking.")));
    const findings = scan(format, built, { now: lastWrite(built) + HOUR });
    expect(spots(findings)).toEqual(expected({ rule: "duplicate-tool-call-id", severity: "error", messageId: second.messageId, partId: second.partId }));
    const first = partWhere(built, (d) => d.type === "tool" && (d.state as { input: { command: string } }).input.command.startsWith("npx vitest"));
    expect(findings[0]!.message).toContain(`already used by part ${first.partId}`);
  });

  it("running the same command twice with distinct call ids is fine", () => {
    const built = proxySession("call_1");
    expect(scan(format, built, { now: lastWrite(built) + HOUR })).toEqual([]);
  });

  it("the same call id twice inside one reply is a duplicate too", () => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("Read both modules."),
        w.assistant([
          w.stepStart(),
          w.text("Reading both."),
          toolOutput(w, "read", { filePath: "/home/dana/code/invoice-api/src/invoices/tax.ts" }, "<file>\n00001| export const tax = 1;\n</file>", {
            callID: "toolu_01Dup",
          }),
          toolOutput(w, "read", { filePath: "/home/dana/code/invoice-api/src/invoices/lines.ts" }, "<file>\n00001| export const lines = [];\n</file>", {
            callID: "toolu_01Dup",
          }),
          w.stepFinish("tool-calls"),
          w.stepStart(),
          w.text("Both modules are trivial."),
          w.stepFinish("stop"),
        ]),
      ]),
    );
    const second = partWhere(built, (d) => d.type === "tool" && JSON.stringify(d.state).includes("lines.ts"));
    expect(spots(scan(format, built, { now: lastWrite(built) + HOUR }))).toEqual(
      expected({ rule: "duplicate-tool-call-id", severity: "error", messageId: second.messageId, partId: second.partId }),
    );
  });
});
