// Reading damaged JSONL transcripts line by line (src/stores/transcript/read-lines.ts, assemble.ts): every bad-line
// class of reference formats-and-errors.md §2.6 / §5.1 gets its exact problem reason and exactly what can be
// recovered from it; a line nothing is wrong with is read as itself, and lines nobody changes are written back byte
// for byte (CRLF files included).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { planSession } from "../../src/plan/planner.js";
import { transcriptFixing } from "../../src/stores/transcript/working.js";
import { RULES } from "../../src/rules/index.js";
import { DEFAULT_RULE_OPTIONS } from "../../src/rules/rule.js";
import { checkSession } from "../../src/scan/check.js";
import { sessionView } from "../../src/scan/session-view.js";
import { openStore } from "../../src/stores/discover.js";
import { assembleTranscript } from "../../src/stores/transcript/assemble.js";
import { readLine, splitLines } from "../../src/stores/transcript/read-lines.js";
import { claudeDialect } from "../../src/stores/transcript/claude.js";
import type { TranscriptRecords } from "../../src/model/transcript.js";
import { ClaudeTranscript, OpenclawTranscript, damage, type Json } from "../support/transcript-fixtures.js";

const START = Date.UTC(2026, 2, 1, 10, 0, 0);
const NOW = START + 3 * 24 * 60 * 60 * 1000;
const OPTIONS = { ...DEFAULT_RULE_OPTIONS, now: NOW };

const dirs: string[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "recover-readlines-"));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A short, realistic Claude Code session: prompt, thinking + tool_use response, result, answer. */
function claudeSession(seed = 3): { t: ClaudeTranscript; prompt: string; call: string; result: string; answer: string; toolId: string } {
  const t = new ClaudeTranscript({ seed, start: START, cwd: "/home/dev/app" });
  const prompt = t.user("Bitte prüfe die Datei a.ts und sag mir, was drin steht.");
  const toolId = t.toolUseId();
  const lines = t.assistant([
    { type: "thinking", thinking: "Read the file first." },
    { type: "tool_use", id: toolId, name: "Read", input: { file_path: "/home/dev/app/a.ts" } },
  ]);
  const result = t.toolResult(toolId, "     1→export const grüße = 1;");
  const answer = t.assistant([{ type: "text", text: "a.ts exportiert `grüße = 1`." }])[0]!;
  return { t, prompt, call: lines[1]!, result, answer, toolId };
}

const line = (t: { lines: (string | Buffer)[] }, n: number) => t.lines[n - 1] as string;
const parsed = (s: string) => JSON.parse(s) as Json;
/** The unreadable reason of a line's problem (undefined: none, or not an unreadable one). */
const reasonOf = (problem: { kind: string; reason?: string } | undefined) => (problem && "reason" in problem ? problem.reason : undefined);
/** Claude Code's records are what a damaged line may hold (the store passes its dialect's test the same way). */
const isClaudeRecord = (v: Record<string, unknown>) => claudeDialect.interpret(v).role !== "unknown";
const read = (bytes: string | Buffer, n = 1) => readLine(Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes, "utf8"), n, isClaudeRecord);

describe("readLine: each class of bad line", () => {
  const { t } = claudeSession();
  const prompt = line(t, 1);
  const thinking = line(t, 2);
  const toolUse = line(t, 3);
  const result = line(t, 4);

  it("a good line is its record, with no problem, salvage or corruption", () => {
    const r = read(prompt, 7);
    expect(r.number).toBe(7);
    expect(r.value).toEqual(parsed(prompt));
    expect(r.problem).toBeUndefined();
    expect(r.salvage).toBeUndefined();
    expect(r.corruption).toBeUndefined();
    expect(r.raw.equals(Buffer.from(prompt))).toBe(true);
  });

  it("blank lines (empty, spaces and tabs, a lone CR) are `empty`, with nothing to salvage", () => {
    for (const blank of ["", "   ", " \t ", "\r"]) {
      const r = read(blank);
      expect(r.problem, JSON.stringify(blank)).toEqual({ kind: "unreadable", reason: "empty", detail: "blank line" });
      expect(r.value).toBeUndefined();
      expect(r.salvage).toBeUndefined();
    }
  });

  it("a run of NUL bytes alone is `zero-filled`, naming how many", () => {
    const r = read(damage.nulRun(412));
    expect(r.problem).toEqual({ kind: "unreadable", reason: "zero-filled", detail: "412 NUL bytes (an append that never reached the disk)" });
    expect(r.value).toBeUndefined();
    expect(r.salvage).toBeUndefined();
  });

  it("a NUL run before a record is `zero-filled`, and the record after it is recovered whole", () => {
    const r = read(Buffer.concat([damage.nulRun(257), Buffer.from(result)]));
    expect(r.problem).toEqual({ kind: "unreadable", reason: "zero-filled", detail: "257 NUL bytes before the record (a crashed append left them)" });
    expect(r.salvage).toEqual([parsed(result)]);
    expect(r.value).toEqual(parsed(result));
  });

  it("a record cut short is `truncated` with its byte length, nothing salvaged", () => {
    // Cut inside the envelope, before any nested object is complete.
    const cut = damage.truncate(prompt, 90);
    const r = read(cut);
    expect(r.problem).toEqual({ kind: "unreadable", reason: "truncated", detail: "JSON ends early after 90 bytes (a torn write)" });
    expect(r.salvage).toBeUndefined();
    expect(r.value).toBeUndefined();
    // Multi-byte text: the detail counts bytes, not characters.
    const inText = damage.truncate(prompt, prompt.indexOf("prüfe") + 4);
    expect(read(inText).problem).toEqual({
      kind: "unreadable",
      reason: "truncated",
      detail: `JSON ends early after ${Buffer.byteLength(inText)} bytes (a torn write)`,
    });
    expect(Buffer.byteLength(inText)).toBe(inText.length + 1);
  });

  it("two whole records on one line ({a}{b}) are `concatenated`, both recovered in order", () => {
    const r = read(damage.concatenate(thinking, toolUse));
    expect(r.problem).toEqual({ kind: "unreadable", reason: "concatenated", detail: "2 records run together on one line (an append that was cut short)" });
    expect(r.salvage).toEqual([parsed(thinking), parsed(toolUse)]);
    expect(r.value).toBeUndefined();
    const three = read(prompt + thinking + toolUse);
    expect(three.problem?.detail).toBe("3 records run together on one line (an append that was cut short)");
    expect(three.salvage).toEqual([parsed(prompt), parsed(thinking), parsed(toolUse)]);
  });

  it("a torn stub followed by a whole record (anthropics/claude-code#52387) keeps the record, drops the stub", () => {
    const stub = `{"type":"pr-link","sessionId":"${t.sessionId}","prNu`;
    const r = read(damage.concatenate(stub, result));
    expect(r.problem).toEqual({
      kind: "unreadable",
      reason: "concatenated",
      detail: `a record run together on one line, after ${stub.length} bytes of a torn record (an append that was cut short)`,
    });
    expect(r.salvage).toEqual([parsed(result)]);
  });

  it("invalid UTF-8 outside any string (the JSON does not parse) is `invalid-utf8`; what parses without it is kept", () => {
    // A raw 0xFF where a comma belongs: the structure itself is broken.
    const record = parsed(prompt);
    const text = JSON.stringify(record);
    const at = text.indexOf(',"isSidechain"');
    const bytes = Buffer.concat([Buffer.from(text.slice(0, at)), Buffer.from([0xff]), Buffer.from(text.slice(at))]);
    const r = read(bytes);
    expect(r.problem).toEqual({ kind: "unreadable", reason: "invalid-utf8", detail: `invalid UTF-8 at byte ${at}, and the JSON does not parse` });
    expect(r.salvage).toEqual([record]);

    // Broken bytes that leave nothing parseable: no salvage.
    const hopeless = Buffer.concat([Buffer.from('{"type":"user","message":'), Buffer.from([0xc3, 0x28]), Buffer.from("{")]);
    const h = read(hopeless);
    expect(h.problem).toEqual({ kind: "unreadable", reason: "invalid-utf8", detail: "invalid UTF-8 at byte 25, and the JSON does not parse" });
    expect(h.salvage).toBeUndefined();
  });

  it("invalid UTF-8 inside a string parses: no problem, but an `invalid-utf8` corruption and a value without the bad bytes", () => {
    const bytes = damage.invalidUtf8(prompt, "ü");
    const at = Buffer.from(prompt.slice(0, prompt.indexOf("ü")), "utf8").length;
    expect(bytes[at]).toBe(0xfc);
    const r = read(bytes);
    expect(r.problem).toBeUndefined();
    expect(r.corruption).toEqual({ kind: "invalid-utf8", field: "(line)", detail: `invalid UTF-8 at byte ${at} of the line` });
    const expected = parsed(prompt);
    (expected.message as Json).content = "Bitte prfe die Datei a.ts und sag mir, was drin steht.";
    expect(r.value).toEqual(expected);
  });

  it("NUL characters and lone surrogates escaped inside strings parse, and are named as corruption with their field", () => {
    const withNul = parsed(result);
    ((withNul.message as Json).content as Json[])[0]!.content = "exit 0\u0000\u0000garbage";
    const r = read(JSON.stringify(withNul));
    expect(r.problem).toBeUndefined();
    expect(r.corruption).toEqual({ kind: "nul", field: "message.content.0.content", detail: "NUL character at offset 6 of message.content.0.content" });
    const surrogate = prompt.replace("Bitte", "Bitte \\ud83d");
    const s = read(surrogate);
    expect(s.problem).toBeUndefined();
    expect(s.corruption).toEqual({ kind: "lone-surrogate", field: "message.content", detail: "lone UTF-16 surrogate in message.content" });
  });

  it("valid JSON that is not an object (array, number, string, null) is `not-an-object`", () => {
    const cases: [string, string][] = [
      ["[1,2,3]", "the line is an array, not a record"],
      ["42", "the line is a number, not a record"],
      ['"hello"', "the line is a string, not a record"],
      ["null", "the line is null, not a record"],
      ["true", "the line is a boolean, not a record"],
    ];
    for (const [text, detail] of cases) {
      const r = read(text);
      expect(r.problem, text).toEqual({ kind: "unreadable", reason: "not-an-object", detail });
      expect(r.salvage).toBeUndefined();
      expect(r.value).toBeUndefined();
    }
  });

  it("plain garbage is `invalid-json`", () => {
    const r = read("Segmentation fault (core dumped)");
    expect(r.problem?.kind).toBe("unreadable");
    expect(reasonOf(r.problem)).toBe("invalid-json");
    expect(r.problem?.detail).toMatch(/^JSON does not parse: /);
    expect(r.salvage).toBeUndefined();
  });

  it("a CRLF line reads as its record; the CR stays in the raw bytes", () => {
    const r = read(`${prompt}\r`);
    expect(r.problem).toBeUndefined();
    expect(r.value).toEqual(parsed(prompt));
    expect(r.raw.at(-1)).toBe(0x0d);
  });

  // BUG (read-lines.ts parseRecords): a line torn after a complete nested content block (the common torn tail of a
  // Claude Code assistant line, cut in `usage`) is classified "concatenated", and the nested content block
  // ({"type":"tool_use",...}) is "recovered" as if it were a top-level record: RECORD_START matches nested objects
  // (`{"type"`, `{"id"`). Expected: reason "truncated", nothing salvaged.
  it("a line torn after a nested content block is `truncated`, not a concatenation salvaging the block", () => {
    const cut = damage.truncate(toolUse, toolUse.indexOf('"usage"') + 12);
    const r = read(cut);
    expect(reasonOf(r.problem)).toBe("truncated");
    expect(r.salvage).toBeUndefined();
  });
});

describe("splitLines and assembleTranscript", () => {
  it("splits on \\n only; a last line without \\n is a line (a torn append)", () => {
    const a = splitLines(Buffer.from("a\nb\r\n\nc"));
    expect(a.lines.map((l) => l.toString("latin1"))).toEqual(["a", "b\r", "", "c"]);
    expect(a.endsWithNewline).toBe(false);
    const b = splitLines(Buffer.from("a\nb\n"));
    expect(b.lines.map((l) => l.toString())).toEqual(["a", "b"]);
    expect(b.endsWithNewline).toBe(true);
    expect(splitLines(Buffer.alloc(0))).toEqual({ lines: [], endsWithNewline: true });
  });

  it("numbers every line from 1, names records by uuid and damaged lines by line-<n>, keeps each line's exact bytes", () => {
    const { t, prompt, call } = claudeSession();
    t.lines.splice(2, 0, damage.nulRun(64)); // line 3
    t.lines.push(""); // a blank line at the end
    t.lines.push(damage.truncate(line(t, 5), 80)); // the torn tail, no newline after it
    t.endsWithNewline = false;
    const bytes = t.toBuffer();
    const records = assembleTranscript(bytes, { path: "/x.jsonl", sessionId: t.sessionId, dialect: "claude", mtime: 0 }, true);
    expect(records.lines.map((l) => l.ref.line)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(records.lines[0]!.ref.id).toBe(prompt);
    expect(records.lines[3]!.ref.id).toBe(call);
    expect(records.lines[2]!.ref.id).toBe("line-3");
    expect(reasonOf(records.lines[2]!.problem)).toBe("zero-filled");
    expect(reasonOf(records.lines[6]!.problem)).toBe("empty");
    expect(reasonOf(records.lines[7]!.problem)).toBe("truncated");
    expect(records.endsWithNewline).toBe(false);
    expect(records.bytes?.equals(bytes)).toBe(true);
    // The raw bytes of the lines, rejoined, are the file.
    expect(Buffer.concat(records.lines.flatMap((l, i) => (i < records.lines.length - 1 ? [l.raw, Buffer.from("\n")] : [l.raw]))).equals(bytes)).toBe(true);
  });

  it("a line holding a salvaged record takes that record's role, so links into it are not dangling", () => {
    const { t } = claudeSession();
    // The tool_use line survives only after a NUL run; the result line links to it.
    const callUuid = parsed(line(t, 3)).uuid;
    t.lines[2] = Buffer.concat([damage.nulRun(100), Buffer.from(line(t, 3))]);
    const records = assembleTranscript(t.toBuffer(), { path: "/x.jsonl", sessionId: t.sessionId, dialect: "claude", mtime: 0 }, false);
    const damaged = records.lines[2]!;
    expect(damaged.role).toBe("message");
    expect(damaged.uuid).toBe(callUuid);
    const view = sessionView(records, { now: NOW, liveWindowMs: OPTIONS.liveWindowMs });
    expect(view.transcript!.brokenAt).toBeUndefined();
    expect(view.transcript!.chain).toHaveLength(5);
  });
});

describe("through the rules: each bad line is one unreadable-record finding at its line", () => {
  it("reports every class at its own line with its severity, and nothing else", () => {
    const { t } = claudeSession();
    const original = [...t.lines];
    t.lines = [
      original[0]!,
      "", // 2 blank: warning
      Buffer.concat([damage.nulRun(33), Buffer.from(original[1] as string)]), // 3 NUL run + record
      original[2]!,
      damage.nulRun(200), // 5 NUL run alone
      original[3]!,
      "[]", // 7 not an object
      JSON.stringify({ type: "brand-new-record", uuid: "x" }), // 8 unknown type: warning, kept
      original[4]!,
    ];
    const dir = tempDir();
    const file = t.writeTo(dir);
    const store = openStore({ store: file });
    const loaded = store.loadSession(t.sessionId, "full");
    const findings = checkSession(sessionView(loaded, OPTIONS), RULES, OPTIONS);
    expect(findings.map((f) => [f.rule, f.line, f.severity])).toEqual([
      ["unreadable-record", 2, "warning"],
      ["unreadable-record", 3, "error"],
      ["unreadable-record", 5, "error"],
      ["unreadable-record", 7, "error"],
      ["unreadable-record", 8, "warning"],
    ]);
    expect(findings[4]!.message).toBe('a record of type "brand-new-record", unknown to recover; kept verbatim');
  });
});

describe("byte-exact round trip", () => {
  function crlf(t: { lines: (string | Buffer)[] }): Buffer {
    return Buffer.concat(t.lines.map((l) => Buffer.concat([Buffer.from(l), Buffer.from("\r\n")])));
  }

  it("a healthy CRLF transcript (both dialects) reads with no finding and plans no change", () => {
    const { t } = claudeSession();
    const o = new OpenclawTranscript({ seed: 5, start: START });
    o.user("check the disk");
    const id = o.toolCallId();
    o.assistant([{ type: "toolCall", id, name: "exec", arguments: { command: "df -h" } }]);
    o.toolResult(id, "exec", "/dev/sda1 80%");
    o.assistant([{ type: "text", text: "80% used." }]);
    for (const [name, bytes, dialect, sid] of [
      ["claude", crlf(t), "claude", t.sessionId],
      ["openclaw", crlf(o), "openclaw", o.sessionId],
    ] as const) {
      const records = assembleTranscript(bytes, { path: `/${name}.jsonl`, sessionId: sid, dialect, mtime: 0 }, true);
      expect(
        records.lines.every((l) => l.raw.at(-1) === 0x0d && !l.problem),
        name,
      ).toBe(true);
      expect(checkSession(sessionView(records, OPTIONS), RULES, OPTIONS), name).toEqual([]);
      const plan = planSession(records, transcriptFixing, { ...OPTIONS, rules: RULES });
      expect(plan.changes, name).toEqual([]);
      expect(plan.files ?? [], name).toEqual([]);
    }
  });

  it("a fix in a CRLF file rewrites only its own line (keeping CRLF); every other line is byte-identical", () => {
    const { t, prompt } = claudeSession();
    const good = crlf(t);
    // Insert a NUL run before line 3's record: the fix writes that record back without the NULs.
    const lines = good.toString("latin1").split("\n");
    const damagedLine = Buffer.concat([damage.nulRun(40), Buffer.from(lines[2]!, "latin1")]);
    const bytes = Buffer.concat(
      lines.flatMap((l, i) => [i === 2 ? damagedLine : Buffer.from(l, "latin1"), ...(i < lines.length - 1 ? [Buffer.from("\n")] : [])]),
    );
    const records: TranscriptRecords = assembleTranscript(bytes, { path: "/c.jsonl", sessionId: t.sessionId, dialect: "claude", mtime: 0 }, true);
    expect(records.lines[0]!.ref.id).toBe(prompt);
    const plan = planSession(records, transcriptFixing, { ...OPTIONS, rules: RULES });
    expect(plan.changes).toHaveLength(1);
    expect(plan.changes[0]!.rules).toEqual(["unreadable-record"]);
    const after = plan.files![0]!.after!;
    // The repaired file is exactly the clean CRLF file.
    expect(after.equals(good)).toBe(true);
  });

  // BUG (working-transcript.ts encode): a changed line keeps its CRLF, but a line the plan inserts (an interrupted
  // call's result) is written with "\n" only, so a CRLF file comes out with mixed line ends.
  it("a line inserted into a CRLF file ends in CRLF like its neighbours", () => {
    const t = new ClaudeTranscript({ seed: 9, start: START });
    t.user("run it");
    t.assistant([{ type: "tool_use", name: "Bash", input: { command: "make" } }]);
    t.user("stop");
    const records = assembleTranscript(crlf(t), { path: "/i.jsonl", sessionId: t.sessionId, dialect: "claude", mtime: 0 }, true);
    const plan = planSession(records, transcriptFixing, { ...OPTIONS, rules: RULES });
    expect(plan.changes.map((c) => c.op)).toEqual(["insert", "update"]);
    const lines = plan.files![0]!.after!.toString("utf8").split("\n").slice(0, -1);
    expect(lines).toHaveLength(4);
    for (const line of lines) expect(line.endsWith("\r"), line.slice(-40)).toBe(true);
  });

  it("a torn tail without a final newline: dropping it leaves a file that ends in \\n, the rest untouched", () => {
    const { t } = claudeSession();
    const good = t.toBuffer();
    t.lines.push(damage.truncate(line(t, 2), 70));
    t.endsWithNewline = false;
    const records = assembleTranscript(t.toBuffer(), { path: "/t.jsonl", sessionId: t.sessionId, dialect: "claude", mtime: 0 }, true);
    expect(records.endsWithNewline).toBe(false);
    const plan = planSession(records, transcriptFixing, { ...OPTIONS, rules: RULES });
    expect(plan.changes.map((c) => [c.op, c.rules])).toEqual([["delete", ["unreadable-record"]]]);
    expect(plan.files![0]!.after!.equals(good)).toBe(true);
  });
});
