import { describe, expect, it } from "vitest";
import { expected, FORMATS, HOUR, lastWrite, partWhere, scan, sessionOf, spots, START, storeOf, toolOutput } from "./harness.js";

/** `npm run build -- --verbose` style output of exactly `chars` UTF-16 code units. */
function buildLog(chars: number, line = "webpack compiled module ./src/invoices/totals.ts 1.2 KiB [built] [code generated]\n"): string {
  return line.repeat(Math.ceil(chars / line.length)).slice(0, chars);
}

function verboseBuild(output: string, opts: { compactedAt?: number } = {}) {
  return storeOf(
    sessionOf((w) => [
      w.user("Why is the production build so slow?"),
      w.assistant([
        w.stepStart(),
        w.text("Running a verbose build."),
        toolOutput(w, "bash", { command: "npm run build -- --verbose", description: "Verbose build" }, output, opts),
        w.stepFinish("tool-calls"),
        w.stepStart(),
        w.text("Most of the time goes into re-bundling unchanged modules; enable the persistent cache."),
        w.stepFinish("stop"),
      ]),
    ]),
  );
}

const theBuild = (built: ReturnType<typeof verboseBuild>) => partWhere(built, (d) => d.type === "tool" && d.tool === "bash");

describe.each(FORMATS)("oversized-tool-output (%s store)", (format) => {
  it("a 60,000-character build log is reported on its tool part", () => {
    const built = verboseBuild(buildLog(60_000));
    const tool = theBuild(built);
    const findings = scan(format, built, { now: lastWrite(built) + HOUR });
    expect(spots(findings)).toEqual(expected({ rule: "oversized-tool-output", severity: "warning", messageId: tool.messageId, partId: tool.partId }));
    expect(findings[0]!.message).toBe("bash output is 60,000 characters (limit 50,000)");
  });

  it("one character over the limit is oversized; exactly at the limit is not", () => {
    const over = verboseBuild(buildLog(50_001));
    const tool = theBuild(over);
    expect(spots(scan(format, over, { now: lastWrite(over) + HOUR }))).toEqual(
      expected({ rule: "oversized-tool-output", severity: "warning", messageId: tool.messageId, partId: tool.partId }),
    );
    const at = verboseBuild(buildLog(50_000));
    expect(scan(format, at, { now: lastWrite(at) + HOUR })).toEqual([]);
  });

  it("a huge output that opencode's prune already compacted (sent as a placeholder) is not oversized", () => {
    const built = verboseBuild(buildLog(60_000), { compactedAt: START + 2 * HOUR });
    expect(scan(format, built, { now: lastWrite(built) + 3 * HOUR })).toEqual([]);
  });

  it("a long multi-byte output is measured in characters, not bytes: 40,000 accented characters are under the limit", () => {
    const built = verboseBuild("é".repeat(40_000));
    expect(scan(format, built, { now: lastWrite(built) + HOUR })).toEqual([]);
  });

  it("writing a 60,000-character file puts the size in the tool input; the short output is fine", () => {
    const fixture = buildLog(60_000, "1;Hans Mueller;2024-03-01;59.97;EUR\n");
    const built = storeOf(
      sessionOf((w) => [
        w.user("Generate a large CSV fixture for the export test."),
        w.assistant([
          w.stepStart(),
          w.text("Writing the fixture."),
          toolOutput(w, "write", { filePath: "/home/dana/code/invoice-api/test/fixtures/export.csv", content: fixture }, "Wrote file successfully.", {
            title: "test/fixtures/export.csv",
          }),
          w.stepFinish("tool-calls"),
          w.stepStart(),
          w.text("Wrote test/fixtures/export.csv."),
          w.stepFinish("stop"),
        ]),
      ]),
    );
    expect(scan(format, built, { now: lastWrite(built) + HOUR })).toEqual([]);
  });
});
