import { describe, expect, it } from "vitest";
import { MINUTE } from "../support/opencode-fixtures.js";
import { expected, FORMATS, HOUR, lastWrite, messageWhere, messageWithText, partWhere, scan, sessionOf, spots, storeOf } from "./harness.js";

describe.each(FORMATS)("schema-violation (%s store)", (format) => {
  it("a tool part written without a callID (a plugin wrote it by hand) is reported on the part, and only there", () => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("Run the invoice tests."),
        w.assistant([
          w.stepStart(),
          w.reasoning("Run only the invoice tests."),
          w.text("Running them."),
          (() => {
            const spec = w.bash("npx vitest run test/invoices.test.ts", "Run invoice tests", " ✓ test/invoices.test.ts (12 tests)\n");
            delete (spec.data as { callID?: string }).callID;
            return spec;
          })(),
          w.stepFinish("tool-calls"),
          w.stepStart(),
          w.text("All 12 pass."),
          w.stepFinish("stop"),
        ]),
      ]),
    );
    const bad = partWhere(built, (d) => d.type === "tool" && !("callID" in d));
    const findings = scan(format, built, { now: lastWrite(built) + HOUR });
    expect(spots(findings)).toEqual(expected({ rule: "schema-violation", severity: "error", messageId: bad.messageId, partId: bad.partId }));
    expect(findings[0]!.message).toMatch(/callID/);
  });

  it("an assistant message imported without its tokens is reported on the message", () => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("Run the invoice tests."),
        w.assistant([w.stepStart(), w.text("All 12 invoice tests pass."), w.stepFinish("stop")], { tokens: undefined }),
        w.user("Thanks.", { gap: MINUTE }),
        w.assistant([w.stepStart(), w.text("You're welcome."), w.stepFinish("stop")]),
      ]),
    );
    const bad = messageWhere(built, messageWithText("All 12 invoice tests pass."));
    const findings = scan(format, built, { now: lastWrite(built) + HOUR });
    expect(spots(findings)).toEqual(expected({ rule: "schema-violation", severity: "error", messageId: bad }));
    expect(findings[0]!.message).toMatch(/tokens/);
  });

  it("a part type a newer opencode writes, and fields it added to known records, are not violations", () => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("Run the invoice tests.", { info: { model: { providerID: "anthropic", modelID: "claude-sonnet-4-5", variant: "high" } } }),
        w.assistant([
          w.stepStart(),
          w.text("Running them."),
          (() => {
            const spec = w.bash("npx vitest run test/invoices.test.ts", "Run invoice tests", " ✓ test/invoices.test.ts (12 tests)\n");
            const state = (spec.data as { state: { metadata: Record<string, unknown> } }).state;
            state.metadata.truncated = false;
            (spec.data as Record<string, unknown>).providerExecuted = false;
            return spec;
          })(),
          w.stepFinish("tool-calls"),
          { time: w.tick(), data: { type: "checkpoint", ref: "refs/opencode/checkpoints/42", files: ["src/invoices/totals.ts"] } },
          w.stepStart(),
          w.text("All 12 pass."),
          w.stepFinish("stop"),
        ]),
      ]),
    );
    expect(scan(format, built, { now: lastWrite(built) + HOUR })).toEqual([]);
  });
});
