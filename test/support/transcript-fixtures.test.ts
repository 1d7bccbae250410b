import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { oracleFindings, splitLines, writeDemoTranscripts, type DemoTranscript } from "../../scripts/make-demo-transcripts.js";
import { ClaudeTranscript, OpenclawTranscript, damage, encodeCwd, type Json } from "./transcript-fixtures.js";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const START = Date.parse("2026-03-01T10:00:00Z");

const dirs: string[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "recover-transcripts-"));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function records(lines: (string | Buffer)[]): Json[] {
  return lines.map((l) => JSON.parse(l.toString()) as Json);
}
const messageOf = (r: Json) => r.message as Json;
const contentOf = (r: Json) => messageOf(r).content as Json[];
const mode = (file: string) => fs.statSync(file).mode & 0o777;

const ENVELOPE = ["parentUuid", "isSidechain", "userType", "cwd", "sessionId", "version", "gitBranch"];

/** A session touching every builder method: one response with thinking, text and two tool calls, results out of order. */
function claudeSample(seed = 7): { t: ClaudeTranscript; ids: Record<string, string>; response: string[] } {
  const t = new ClaudeTranscript({ seed, cwd: "/home/dev/app", start: START });
  const ids: Record<string, string> = {};
  ids.prompt = t.user("Read a.ts and b.ts");
  ids.a = t.toolUseId();
  ids.b = t.toolUseId();
  const response = t.assistant([
    { type: "thinking", thinking: "Check both files." },
    { type: "text", text: "Reading both." },
    { type: "tool_use", id: ids.a, name: "Read", input: { file_path: "/home/dev/app/a.ts" } },
    { type: "tool_use", id: ids.b, name: "Bash", input: { command: "cat b.ts" } },
  ]);
  ids.resultB = t.toolResult(ids.b, "export const b = 2;", { isError: false });
  ids.resultA = t.toolResult(ids.a, "     1→export const a = 1;");
  ids.answer = t.assistant([{ type: "text", text: "a is 1, b is 2." }])[0]!;
  t.meta({ type: "summary", summary: "Read a.ts and b.ts", leafUuid: ids.answer });
  t.meta({ type: "custom-title", customTitle: "read files", sessionId: t.sessionId });
  [ids.boundary, ids.summary] = t.compact("Summary: read a.ts and b.ts.", 120_000);
  ids.after = t.user("Now add them.");
  return { t, ids, response };
}

describe("ClaudeTranscript", () => {
  it("writes one compact JSON record per line, each ending in \\n", () => {
    const { t } = claudeSample();
    const text = t.toBuffer().toString("utf8");
    expect(text.endsWith("\n")).toBe(true);
    const lines = text.split("\n").slice(0, -1);
    expect(lines).toHaveLength(t.lines.length);
    for (const line of lines) expect(JSON.stringify(JSON.parse(line))).toBe(line);
  });

  it("shapes assistant lines as §2.2: field order, one content block per line, message fields", () => {
    const { t, response } = claudeSample();
    for (const uuid of response) {
      const r = records(t.lines)[t.lineOf(uuid) - 1]!;
      expect(Object.keys(r)).toEqual([...ENVELOPE, "type", "requestId", "message", "uuid", "timestamp"]);
      expect(r).toMatchObject({ isSidechain: false, userType: "external", cwd: "/home/dev/app", sessionId: t.sessionId, version: "2.1.90", gitBranch: "main" });
      expect(Object.keys(messageOf(r))).toEqual(["id", "type", "role", "model", "content", "stop_reason", "stop_sequence", "usage"]);
      expect(messageOf(r)).toMatchObject({ type: "message", role: "assistant", model: "claude-sonnet-4-5", stop_sequence: null });
      expect(contentOf(r)).toHaveLength(1);
      expect(Object.keys(messageOf(r).usage as Json)).toEqual(["input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"]);
    }
  });

  it("gives the lines of one response one message.id and requestId, distinct uuids, stop_reason only on the last", () => {
    const { t, response } = claudeSample();
    const lines = response.map((u) => records(t.lines)[t.lineOf(u) - 1]!);
    expect(new Set(lines.map((r) => messageOf(r).id)).size).toBe(1);
    expect(new Set(lines.map((r) => r.requestId)).size).toBe(1);
    expect(messageOf(lines[0]!).id).toMatch(/^msg_01[0-9A-Za-z]{22}$/);
    expect(lines[0]!.requestId).toMatch(/^req_011C[0-9A-Za-z]{20}$/);
    expect(new Set(response).size).toBe(4);
    for (const u of response) expect(u).toMatch(UUID);
    expect(lines.map((r) => messageOf(r).stop_reason)).toEqual([null, null, null, "tool_use"]);
    expect(lines.map((r) => contentOf(r)[0]!.type)).toEqual(["thinking", "text", "tool_use", "tool_use"]);
    // The next response is a different message.
    const answer = records(t.lines).find((r) => r.type === "assistant" && contentOf(r)[0]!.text === "a is 1, b is 2.")!;
    expect(messageOf(answer).id).not.toBe(messageOf(lines[0]!).id);
    expect(messageOf(answer).stop_reason).toBe("end_turn");
  });

  it("signs thinking and ids tool_use blocks that lack them, keeps given ones, honours stopReason and overrides", () => {
    const t = new ClaudeTranscript({ seed: 3 });
    const [thinking, tool] = t.assistant(
      [
        { type: "thinking", thinking: "x" },
        { type: "tool_use", name: "Bash", input: { command: "ls" } },
      ],
      {
        stopReason: null,
        usage: { output_tokens: 3 },
        model: "claude-opus-4-5",
      },
    );
    const all = records(t.lines);
    const sig = contentOf(all[t.lineOf(thinking!) - 1]!)[0]!;
    expect(Object.keys(sig)).toEqual(["type", "thinking", "signature"]);
    expect(sig.signature).toMatch(/^Eq[A-Za-z0-9+/]+=*$/);
    const use = contentOf(all[t.lineOf(tool!) - 1]!)[0]!;
    expect(Object.keys(use)).toEqual(["type", "id", "name", "input"]);
    expect(use.id).toMatch(/^toolu_01[0-9A-Za-z]{22}$/);
    for (const r of all) {
      expect(messageOf(r).stop_reason).toBeNull();
      expect((messageOf(r).usage as Json).output_tokens).toBe(3);
      expect(messageOf(r).model).toBe("claude-opus-4-5");
    }
    t.assistant(
      [
        { type: "thinking", thinking: "y", signature: "" },
        { type: "text", text: "done" },
      ],
      { extra: { isApiErrorMessage: true } },
    );
    const [unsigned, last] = records(t.lines).slice(-2);
    expect(contentOf(unsigned!)[0]!.signature).toBe("");
    expect(Object.keys(last!).slice(-3)).toEqual(["isApiErrorMessage", "uuid", "timestamp"]);
  });

  it("links parent chains: every chain record points at the one before it, parent option branches", () => {
    const { t, ids } = claudeSample();
    const chain = records(t.lines).filter((r) => typeof r.uuid === "string");
    expect(chain[0]!.parentUuid).toBeNull();
    for (let i = 1; i < chain.length; i++) {
      const r = chain[i]!;
      if (r.uuid === ids.boundary) {
        expect(r.parentUuid).toBeNull();
        expect(r.logicalParentUuid).toBe(chain[i - 1]!.uuid);
      } else expect(r.parentUuid).toBe(chain[i - 1]!.uuid);
    }
    // Rewind: a second child of the same parent, then a new root.
    const sibling = t.user("Try again", { parent: ids.answer });
    const root = t.user("Fresh start", { parent: null });
    const all = records(t.lines);
    expect(all[t.lineOf(sibling) - 1]!.parentUuid).toBe(ids.answer);
    expect(all[t.lineOf(root) - 1]!.parentUuid).toBeNull();
    expect(t.lastUuid).toBe(root);
  });

  it("writes tool results as user lines pointing at the line that holds their tool_use, in any order", () => {
    const { t, ids, response } = claudeSample();
    const all = records(t.lines);
    const resultB = all[t.lineOf(ids.resultB!) - 1]!;
    const resultA = all[t.lineOf(ids.resultA!) - 1]!;
    expect(Object.keys(resultB)).toEqual([...ENVELOPE, "type", "message", "toolUseResult", "sourceToolAssistantUUID", "uuid", "timestamp"]);
    expect(resultB.type).toBe("user");
    expect(messageOf(resultB)).toEqual({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: ids.b, content: "export const b = 2;", is_error: false }],
    });
    expect(resultB.sourceToolAssistantUUID).toBe(response[3]);
    expect(resultA.sourceToolAssistantUUID).toBe(response[2]);
    expect(contentOf(resultA)[0]).not.toHaveProperty("is_error");
    expect(resultB.toolUseResult).toEqual({ stdout: "export const b = 2;", stderr: "", interrupted: false, isImage: false });
    expect(resultA.toolUseResult).toMatchObject({ type: "text", file: { filePath: "/home/dev/app/a.ts", content: "export const a = 1;", numLines: 1 } });
    expect(t.lineOf(ids.resultB!)).toBeLessThan(t.lineOf(ids.resultA!));

    const orphan = t.toolResult("toolu_01NotIssuedAnywhere0000", "?", { isError: true, toolUseResult: undefined });
    const o = records(t.lines)[t.lineOf(orphan) - 1]!;
    expect(o).not.toHaveProperty("sourceToolAssistantUUID");
    expect(o).not.toHaveProperty("toolUseResult");
    expect(contentOf(o)[0]!.is_error).toBe(true);
  });

  it("shapes user prompts and places extra fields before uuid", () => {
    const t = new ClaudeTranscript({ seed: 2, start: START });
    const u = t.user([{ type: "text", text: "hi" }], { isMeta: true, uuid: "11111111-1111-4111-8111-111111111111" });
    expect(u).toBe("11111111-1111-4111-8111-111111111111");
    const [r] = records(t.lines);
    expect(Object.keys(r!)).toEqual([...ENVELOPE, "type", "message", "isMeta", "uuid", "timestamp"]);
    expect(r).toMatchObject({
      parentUuid: null,
      type: "user",
      message: { role: "user", content: [{ type: "text", text: "hi" }] },
      timestamp: "2026-03-01T10:00:00.000Z",
    });
  });

  it("writes meta records verbatim, filling chain fields only where the record has the key", () => {
    const t = new ClaudeTranscript({ seed: 2 });
    const prompt = t.user("hi");
    expect(t.meta({ type: "custom-title", customTitle: "x", sessionId: t.sessionId })).toBeUndefined();
    expect(t.lines.at(-1)).toBe(JSON.stringify({ type: "custom-title", customTitle: "x", sessionId: t.sessionId }));
    const sys = t.meta({ parentUuid: undefined, type: "system", subtype: "turn_duration", durationMs: 900, timestamp: undefined, uuid: undefined });
    const r = records(t.lines).at(-1)!;
    expect(Object.keys(r)).toEqual(["parentUuid", "type", "subtype", "durationMs", "timestamp", "uuid"]);
    expect(r.parentUuid).toBe(prompt);
    expect(r.uuid).toBe(sys);
    expect(r.timestamp).toMatch(ISO);
    expect(t.lastUuid).toBe(sys);
    expect(t.meta({ parentUuid: "given", uuid: "kept", type: "system", subtype: "informational" })).toBe("kept");
    expect(records(t.lines).at(-1)!.parentUuid).toBe("given");
  });

  it("compacts: a compact_boundary that starts a new root, then an isCompactSummary user line", () => {
    const { t, ids } = claudeSample();
    const all = records(t.lines);
    const boundary = all[t.lineOf(ids.boundary!) - 1]!;
    expect(Object.keys(boundary)).toEqual([
      "parentUuid",
      "logicalParentUuid",
      "isSidechain",
      "userType",
      "cwd",
      "sessionId",
      "version",
      "gitBranch",
      "type",
      "subtype",
      "content",
      "isMeta",
      "timestamp",
      "uuid",
      "level",
      "compactMetadata",
    ]);
    expect(boundary).toMatchObject({
      parentUuid: null,
      logicalParentUuid: ids.answer,
      type: "system",
      subtype: "compact_boundary",
      compactMetadata: { trigger: "auto", preTokens: 120_000 },
    });
    const summary = all[t.lineOf(ids.summary!) - 1]!;
    expect(summary).toMatchObject({
      parentUuid: ids.boundary,
      type: "user",
      isCompactSummary: true,
      message: { role: "user", content: "Summary: read a.ts and b.ts." },
    });
    expect(all[t.lineOf(ids.after!) - 1]!.parentUuid).toBe(ids.summary);
  });

  it("stamps ISO times that start at `start` and never go back", () => {
    const { t } = claudeSample();
    const times = records(t.lines)
      .map((r) => r.timestamp)
      .filter((x): x is string => typeof x === "string");
    expect(times[0]).toBe("2026-03-01T10:00:00.000Z");
    for (const x of times) expect(x).toMatch(ISO);
    for (let i = 1; i < times.length; i++) expect(Date.parse(times[i]!)).toBeGreaterThanOrEqual(Date.parse(times[i - 1]!));
  });

  it("encodes the cwd like Claude Code and writes <configDir>/projects/<encoded>/<sessionId>.jsonl with mode 0600", () => {
    expect(encodeCwd("/home/alex/code/pedicab512")).toBe("-home-alex-code-pedicab512");
    expect(encodeCwd("C:\\Users\\x\\quickstuff")).toBe("C--Users-x-quickstuff");
    expect(encodeCwd("/srv/my_app.v2")).toBe("-srv-my-app-v2");
    const { t } = claudeSample();
    const dir = tempDir();
    const file = t.writeTo(dir);
    expect(file).toBe(path.join(dir, "projects", "-home-dev-app", `${t.sessionId}.jsonl`));
    expect(mode(file)).toBe(0o600);
    expect(fs.readFileSync(file).equals(t.toBuffer())).toBe(true);
    fs.chmodSync(file, 0o644);
    t.writeTo(dir);
    expect(mode(file)).toBe(0o600);
  });

  it("is deterministic: same seed, same bytes; another seed, other ids", () => {
    const a = claudeSample(7).t;
    const b = claudeSample(7).t;
    expect(a.toBuffer().equals(b.toBuffer())).toBe(true);
    expect(a.sessionId).toMatch(UUID);
    const c = claudeSample(8).t;
    expect(c.sessionId).not.toBe(a.sessionId);
    expect(c.toBuffer().equals(a.toBuffer())).toBe(false);
  });
});

function openclawSample(seed = 5): { t: OpenclawTranscript; ids: Record<string, string> } {
  const t = new OpenclawTranscript({ seed, cwd: "/home/dev/bot", start: START });
  const ids: Record<string, string> = {};
  ids.model = t.entry({ type: "model_change", provider: "anthropic", modelId: "claude-opus-4-5" });
  ids.prompt = t.user("set up the cron job");
  ids.callA = t.toolCallId();
  ids.callB = t.toolCallId();
  ids.assistant = t.assistant([
    { type: "thinking", thinking: "Add it." },
    { type: "text", text: "Adding." },
    { type: "toolCall", id: ids.callA, name: "cron", arguments: { spec: "0 * * * *" } },
    { type: "toolCall", id: ids.callB, name: "exec", arguments: { command: "crontab -l" } },
  ]);
  ids.resultA = t.toolResult(ids.callA, "cron", "ok", { details: { jobId: "j1" } });
  ids.resultB = t.toolResult(ids.callB, "exec", "no crontab", { isError: true });
  ids.switch = t.entry({ type: "model_change", provider: "anthropic", modelId: "claude-sonnet-4-5" });
  ids.answer = t.assistant([{ type: "text", text: "Done." }]);
  return { t, ids };
}

describe("OpenclawTranscript", () => {
  it("starts with the v3 session header", () => {
    const { t } = openclawSample();
    const header = records(t.lines)[0]!;
    expect(Object.keys(header)).toEqual(["type", "version", "id", "timestamp", "cwd"]);
    expect(header).toEqual({ type: "session", version: 3, id: t.sessionId, timestamp: "2026-03-01T10:00:00.000Z", cwd: "/home/dev/bot" });
    expect(t.sessionId).toMatch(UUID);
  });

  it("gives entries unique 8-hex ids chained by parentId", () => {
    const { t, ids } = openclawSample();
    const entries = records(t.lines).slice(1);
    expect(entries.map((e) => e.id)).toEqual([ids.model, ids.prompt, ids.assistant, ids.resultA, ids.resultB, ids.switch, ids.answer]);
    for (const e of entries) {
      expect(e.id).toMatch(/^[0-9a-f]{8}$/);
      expect(Object.keys(e).slice(0, 4)).toEqual(["type", "id", "parentId", "timestamp"]);
    }
    expect(new Set(entries.map((e) => e.id)).size).toBe(entries.length);
    expect(entries[0]!.parentId).toBeNull();
    for (let i = 1; i < entries.length; i++) expect(entries[i]!.parentId).toBe(entries[i - 1]!.id);
    const branch = t.user("again", { parent: ids.prompt });
    expect(records(t.lines)[t.lineOf(branch) - 1]!.parentId).toBe(ids.prompt);
  });

  it("shapes user, assistant and toolResult messages as pi-ai writes them", () => {
    const { t, ids } = openclawSample();
    const all = records(t.lines);
    const at = (id: string) => all[t.lineOf(id) - 1]!;
    const user = messageOf(at(ids.prompt!));
    expect(Object.keys(user)).toEqual(["role", "content", "timestamp"]);
    const assistant = messageOf(at(ids.assistant!));
    expect(Object.keys(assistant)).toEqual(["role", "content", "api", "provider", "model", "usage", "stopReason", "timestamp"]);
    expect(assistant).toMatchObject({ api: "anthropic-messages", provider: "anthropic", model: "claude-opus-4-5", stopReason: "toolUse" });
    const blocks = assistant.content as Json[];
    expect(Object.keys(blocks[0]!)).toEqual(["type", "thinking", "thinkingSignature"]);
    expect(blocks[2]).toEqual({ type: "toolCall", id: ids.callA, name: "cron", arguments: { spec: "0 * * * *" } });
    const usage = assistant.usage as Json & { cost: Json };
    expect(Object.keys(usage)).toEqual(["input", "output", "cacheRead", "cacheWrite", "totalTokens", "cost"]);
    expect(usage.totalTokens).toBe(Number(usage.input) + Number(usage.output) + Number(usage.cacheRead) + Number(usage.cacheWrite));
    expect(usage.cost.total).toBeCloseTo(
      Number(usage.cost.input) + Number(usage.cost.output) + Number(usage.cost.cacheRead) + Number(usage.cost.cacheWrite),
      6,
    );
    const result = messageOf(at(ids.resultA!));
    expect(Object.keys(result)).toEqual(["role", "toolCallId", "toolName", "content", "details", "isError", "timestamp"]);
    expect(result).toMatchObject({ role: "toolResult", toolCallId: ids.callA, toolName: "cron", content: [{ type: "text", text: "ok" }], isError: false });
    expect(messageOf(at(ids.resultB!))).not.toHaveProperty("details");
    expect(messageOf(at(ids.resultB!)).isError).toBe(true);
    // A model_change switches the model of later assistant messages; a text-only message stops with "stop".
    expect(messageOf(at(ids.answer!))).toMatchObject({ model: "claude-sonnet-4-5", stopReason: "stop" });
    for (const e of all.slice(1)) {
      expect(e.timestamp).toMatch(ISO);
      if (e.type === "message") expect(messageOf(e).timestamp).toBeLessThanOrEqual(Date.parse(String(e.timestamp)));
    }
  });

  it("records aborted and errored turns with their stopReason and errorMessage", () => {
    const t = new OpenclawTranscript({ seed: 1 });
    t.user("go");
    const id = t.assistant([{ type: "toolCall", name: "exec", arguments: {} }], { stopReason: "aborted", errorMessage: "Request was aborted." });
    const m = messageOf(records(t.lines)[t.lineOf(id) - 1]!);
    expect(Object.keys(m).slice(-3)).toEqual(["stopReason", "errorMessage", "timestamp"]);
    expect((m.content as Json[])[0]!.id).toMatch(/^toolu_01[0-9A-Za-z]{22}$/);
    expect(t.sessionEntry("agent:main:main").abortedLastRun).toBe(true);
  });

  it("fills id, parentId and timestamp of other entries unless given", () => {
    const t = new OpenclawTranscript({ seed: 1 });
    const a = t.entry({ type: "thinking_level_change", thinkingLevel: "high" });
    const b = t.entry({ type: "custom", id: "deadbeef", parentId: null, timestamp: "2026-10-01T09:30:00.000Z", customType: "note", data: { x: 1 } });
    const [, ea, eb] = records(t.lines);
    expect(ea).toMatchObject({ type: "thinking_level_change", id: a, parentId: null, thinkingLevel: "high" });
    expect(eb).toEqual({ type: "custom", id: "deadbeef", parentId: null, timestamp: "2026-10-01T09:30:00.000Z", customType: "note", data: { x: 1 } });
    expect(b).toBe("deadbeef");
    expect(t.lastId).toBe("deadbeef");
  });

  it("writes the transcript with mode 0600 and merges sessionKey → entry into sessions.json", () => {
    const dir = tempDir();
    const { t } = openclawSample(5);
    const other = new OpenclawTranscript({ seed: 6 });
    other.user("hello");
    other.assistant([{ type: "text", text: "hi" }]);
    const file = t.writeTo(dir);
    const otherFile = other.writeTo(dir, "main", "agent:main:telegram:group:-100123");
    const sessionsDir = path.join(dir, "agents", "main", "sessions");
    expect(file).toBe(path.join(sessionsDir, `${t.sessionId}.jsonl`));
    expect(otherFile).toBe(path.join(sessionsDir, `${other.sessionId}.jsonl`));
    const store = JSON.parse(fs.readFileSync(path.join(sessionsDir, "sessions.json"), "utf8")) as Record<string, Json>;
    expect(Object.keys(store)).toEqual(["agent:main:main", "agent:main:telegram:group:-100123"]);
    expect(store["agent:main:main"]).toMatchObject({ sessionId: t.sessionId, chatType: "direct", model: "claude-sonnet-4-5", abortedLastRun: false });
    expect(store["agent:main:telegram:group:-100123"]).toMatchObject({ sessionId: other.sessionId, chatType: "group", lastChannel: "telegram" });
    const last = records(t.lines).at(-1)!;
    expect(store["agent:main:main"]!.updatedAt).toBe(Date.parse(String(last.timestamp)));
    for (const f of [file, otherFile, path.join(sessionsDir, "sessions.json")]) expect(mode(f)).toBe(0o600);
    expect(fs.readFileSync(file).equals(t.toBuffer())).toBe(true);
  });

  it("is deterministic: same seed, same bytes", () => {
    expect(openclawSample(5).t.toBuffer().equals(openclawSample(5).t.toBuffer())).toBe(true);
    expect(openclawSample(6).t.sessionId).not.toBe(openclawSample(5).t.sessionId);
  });
});

describe("damage", () => {
  const line = JSON.stringify({ type: "user", message: { role: "user", content: "Müller GmbH" } });

  it("truncates and concatenates into lines that are not JSON", () => {
    const cut = damage.truncate(line, 20);
    expect(cut).toBe(line.slice(0, 20));
    expect(() => JSON.parse(cut)).toThrow();
    const joined = damage.concatenate('{"type":"pr-link","prNu', line);
    expect(joined.endsWith(line)).toBe(true);
    expect(() => JSON.parse(joined)).toThrow();
    expect(() => damage.truncate(line, line.length)).toThrow();
  });

  it("makes NUL runs and invalid UTF-8", () => {
    const nul = damage.nulRun(300);
    expect(nul).toHaveLength(300);
    expect([...nul].every((b) => b === 0)).toBe(true);
    const bad = damage.invalidUtf8(line, "ü");
    expect(bad.includes(0xfc)).toBe(true);
    expect(bad).toHaveLength(Buffer.byteLength(line) - 1);
    expect(() => new TextDecoder("utf-8", { fatal: true }).decode(bad)).toThrow();
    expect(bad.toString("latin1")).toBe(line);
    expect(() => damage.invalidUtf8(line, "€")).toThrow();
  });

  it("lets a file end mid-record without a final newline", () => {
    const t = new ClaudeTranscript({ seed: 1 });
    t.user("one");
    t.user("two");
    t.lines[1] = damage.truncate(t.lines[1] as string, 30);
    t.lines.push(damage.nulRun(4));
    t.endsWithNewline = false;
    const bytes = t.toBuffer();
    expect(bytes.subarray(-4).equals(Buffer.alloc(4))).toBe(true);
    expect(splitLines(bytes)).toHaveLength(3);
  });
});

describe("demo transcripts (fixtures/demo/claude, fixtures/demo/openclaw)", () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(REPO, "fixtures/demo/expected-transcripts.json"), "utf8")) as DemoTranscript[];

  function filesUnder(root: string, rel: string): string[] {
    const dir = path.join(root, rel);
    return fs
      .readdirSync(dir, { recursive: true, encoding: "utf8" })
      .filter((f) => fs.statSync(path.join(dir, f)).isFile())
      .map((f) => path.join(rel, f))
      .sort();
  }

  it("are what the script generates, byte for byte", () => {
    const tmp = tempDir();
    expect(writeDemoTranscripts(tmp)).toEqual(manifest);
    for (const rel of ["fixtures/demo/claude", "fixtures/demo/openclaw"]) {
      const committed = filesUnder(REPO, rel);
      expect(filesUnder(tmp, rel)).toEqual(committed);
      for (const f of committed) expect(fs.readFileSync(path.join(tmp, f)).equals(fs.readFileSync(path.join(REPO, f))), f).toBe(true);
    }
    for (const f of ["fixtures/demo/expected-transcripts.json", "fixtures/TRANSCRIPTS.md"]) {
      expect(fs.readFileSync(path.join(tmp, f), "utf8")).toBe(fs.readFileSync(path.join(REPO, f), "utf8"));
    }
  });

  it("hold exactly the planted findings; every other line is a valid record", () => {
    expect(manifest.map((m) => m.format)).toEqual(["claude", "claude", "claude", "claude", "claude", "openclaw", "openclaw", "openclaw"]);
    expect(manifest.filter((m) => m.expect.length === 0)).toHaveLength(3);
    for (const m of manifest) {
      const bytes = fs.readFileSync(path.join(REPO, m.path));
      expect(oracleFindings(m.format, bytes), m.path).toEqual(m.expect);
      const damaged = new Set(m.expect.filter((e) => e.rule === "unreadable-record").map((e) => e.line));
      splitLines(bytes).forEach((line, i) => {
        if (damaged.has(i + 1)) return;
        const record = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(line)) as Json;
        expect(typeof record.type, `${m.path}:${i + 1}`).toBe("string");
      });
      // Only a file whose last line is planted as damaged (the truncated tail) lacks the final newline.
      const lineCount = splitLines(bytes).length;
      expect(bytes.at(-1) === 0x0a, m.path).toBe(!damaged.has(lineCount));
    }
  });

  it("put Claude Code sessions under the encoded cwd of their records", () => {
    for (const m of manifest.filter((x) => x.format === "claude")) {
      const first = splitLines(fs.readFileSync(path.join(REPO, m.path)))
        .map((l) => {
          try {
            return JSON.parse(l.toString("utf8")) as Json;
          } catch {
            return undefined;
          }
        })
        .find((r) => typeof r?.cwd === "string")!;
      expect(m.path).toBe(`fixtures/demo/claude/projects/${encodeCwd(String(first.cwd))}/${m.sessionId}.jsonl`);
      expect(first.sessionId).toBe(m.sessionId);
    }
    const projects = fs.readdirSync(path.join(REPO, "fixtures/demo/claude/projects")).sort();
    expect(projects).toEqual(["-home-dana-code-fetchkit", "-home-dana-code-invoice-api"]);
  });

  it("map openclaw session keys to their transcripts in sessions.json", () => {
    const store = JSON.parse(fs.readFileSync(path.join(REPO, "fixtures/demo/openclaw/agents/main/sessions/sessions.json"), "utf8")) as Record<string, Json>;
    const openclaw = manifest.filter((m) => m.format === "openclaw");
    expect(Object.keys(store)).toEqual(["agent:main:main", "agent:main:telegram:group:-100123", "cron:nightly-digest"]);
    for (const m of openclaw) {
      expect(store[m.sessionKey!]!.sessionId).toBe(m.sessionId);
      expect(m.path).toBe(`fixtures/demo/openclaw/agents/main/sessions/${m.sessionId}.jsonl`);
      const header = JSON.parse(splitLines(fs.readFileSync(path.join(REPO, m.path)))[0]!.toString("utf8")) as Json;
      expect(header).toMatchObject({ type: "session", version: 3, id: m.sessionId });
    }
    expect(store["cron:nightly-digest"]!.abortedLastRun).toBe(true);
  });
});
