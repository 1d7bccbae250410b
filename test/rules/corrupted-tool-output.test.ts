import { describe, expect, it } from "vitest";
import { replaceWithBytes, type PartSpec } from "../support/opencode-fixtures.js";
import { expected, FORMATS, HOUR, lastWrite, partWhere, scan, sessionOf, spots, storeOf, toolOutput } from "./harness.js";

/** One turn whose single bash call printed `output`; `damage` is applied to the stored tool part. */
function bashPrinted(output: string, damage?: Pick<PartSpec, "corrupt">) {
  return storeOf(
    sessionOf((w) => [
      w.user("What does scripts/export.sh print?"),
      w.assistant([
        w.stepStart(),
        w.text("Running it."),
        {
          ...toolOutput(w, "bash", { command: "bash scripts/export.sh", description: "Run export script" }, output, { title: "Run export script" }),
          ...damage,
        },
        w.stepFinish("tool-calls"),
        w.stepStart(),
        w.text("It prints the export header and the customer rows."),
        w.stepFinish("stop"),
      ]),
    ]),
  );
}

const theTool = (built: ReturnType<typeof bashPrinted>) => partWhere(built, (d) => d.type === "tool" && d.tool === "bash");

describe.each(FORMATS)("corrupted-tool-output (%s store)", (format) => {
  it("a NUL byte from cat-ing a binary file is reported on the tool part", () => {
    const built = bashPrinted("\u0089PNG\r\n\u001a\n\u0000\u0000\u0000\rIHDR\u0000\u0000\u0002\u0080");
    const tool = theTool(built);
    const findings = scan(format, built, { now: lastWrite(built) + HOUR });
    expect(spots(findings)).toEqual(expected({ rule: "corrupted-tool-output", severity: "error", messageId: tool.messageId, partId: tool.partId }));
    expect(findings[0]!.message).toMatch(/NUL character at offset 8 of state\.output/);
  });

  it("an output truncated in the middle of an emoji (a lone surrogate) is reported", () => {
    const built = bashPrinted("Export finished \u{1F389}".slice(0, -1));
    const tool = theTool(built);
    const findings = scan(format, built, { now: lastWrite(built) + HOUR });
    expect(spots(findings)).toEqual(expected({ rule: "corrupted-tool-output", severity: "error", messageId: tool.messageId, partId: tool.partId }));
    expect(findings[0]!.message).toMatch(/lone UTF-16 surrogate/);
  });

  it("Latin-1 bytes written into an otherwise ASCII output (invalid UTF-8) are reported", () => {
    const built = bashPrinted("id;name\n1;Hans Mueller\n2;Lena Mueller\n", {
      corrupt: replaceWithBytes("Mueller", Buffer.from([0x4d, 0xfc, 0x6c, 0x6c, 0x65, 0x72])),
    });
    const tool = theTool(built);
    const findings = scan(format, built, { now: lastWrite(built) + HOUR });
    expect(spots(findings)).toEqual(expected({ rule: "corrupted-tool-output", severity: "error", messageId: tool.messageId, partId: tool.partId }));
    expect(findings[0]!.message).toMatch(/invalid UTF-8/);
  });

  it("invalid UTF-8 next to valid multi-byte text (an em dash) is reported too", () => {
    const built = bashPrinted("export \u2014 customers\n1;Hans Mueller\n", {
      corrupt: replaceWithBytes("Mueller", Buffer.from([0x4d, 0xfc, 0x6c, 0x6c, 0x65, 0x72])),
    });
    const tool = theTool(built);
    expect(spots(scan(format, built, { now: lastWrite(built) + HOUR }))).toEqual(
      expected({ rule: "corrupted-tool-output", severity: "error", messageId: tool.messageId, partId: tool.partId }),
    );
  });

  it("a lone surrogate in a tool call's input (anthropics/claude-code#68325) is reported, naming the input's field", () => {
    const built = storeOf(
      sessionOf((w) => [
        w.user("Print the party emoji."),
        w.assistant([
          w.stepStart(),
          toolOutput(w, "bash", { command: "echo \ud83d", description: "Print it" }, "\n", { title: "Print it" }),
          w.stepFinish("tool-calls"),
          w.stepStart(),
          w.text("It printed a broken character."),
          w.stepFinish("stop"),
        ]),
      ]),
    );
    const tool = theTool(built);
    const findings = scan(format, built, { now: lastWrite(built) + HOUR });
    expect(spots(findings)).toEqual(expected({ rule: "corrupted-tool-output", severity: "error", messageId: tool.messageId, partId: tool.partId }));
    expect(findings[0]!.message).toMatch(/lone UTF-16 surrogate in state\.input\.command: .*no low surrogate in string/);
  });

  it("source code that spells the escape \\u0000 as text is not a NUL", () => {
    const built = bashPrinted('src/csv.ts:14:  const SEP = "\\u0000";\nsrc/csv.ts:15:  // split on "\\ud83d" never matches\n');
    expect(scan(format, built, { now: lastWrite(built) + HOUR })).toEqual([]);
  });

  it("a real U+FFFD replacement character and emoji in a log are valid text", () => {
    const built = bashPrinted("customer name: M\uFFFDller (decoded upstream)\nExport finished \u{1F389}\n");
    expect(scan(format, built, { now: lastWrite(built) + HOUR })).toEqual([]);
  });
});
