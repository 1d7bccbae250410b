// Chat files written by the real Gemini CLI 0.61.0 (run offline against a loopback mock of the Gemini API by
// scripts/clients/gemini.mjs; fixtures/gemini-0.61/README.md), healthy and damaged, in a Gemini home laid out as
// the client lays it out. recover's model of the client's resume request is checked against the requests the client
// really sent; a repaired file is judged by the request the client would send for it, through the Gemini API's
// function-calling rules (src/provider/validate-gemini.ts).
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { validateGemini } from "../../src/provider/validate-gemini.js";
import { geminiResumeContents, type GeminiContent } from "../../src/stores/gemini/request.js";
import "../../src/stores/registry.js";
import { writeDemoGemini } from "../../scripts/make-demo-captures.js";
import { assembleTranscript } from "../../src/stores/transcript/assemble.js";
import { expectSameBytes, parseJsonDocument, run, snapshot, tempDir } from "../cli/run.js";
import { age, homeOfCaptures as capturedHome, writtenAgo } from "../support/captured-home.js";

const FIXTURES = path.resolve("fixtures/gemini-0.61");
const CHATS = path.join("tmp", "project", "chats");

const WRITTEN = new Date("2026-11-24T19:30:00Z");
const MINUTE = 60_000;

/** The API's refusals, as the client printed them (`*.resume.stderr.txt`). */
const MISMATCH = "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.";
const RESPONSE_TURN = "Please ensure that function response turn comes immediately after a function call turn.";

/** A Gemini home holding every `.jsonl` capture as `tmp/project/chats/session-<time>-<id8>.jsonl`. */
function homeOfCaptures(which: "before" | "after" = "before") {
  const place = (first: string) => {
    const id = (JSON.parse(first) as { sessionId: string }).sessionId;
    return { id, rel: path.join(CHATS, `session-2026-11-24T19-21-${id.slice(0, 8)}.jsonl`) };
  };
  return capturedHome({ fixtures: FIXTURES, place, written: WRITTEN }, which);
}

function resumeContents(file: string): GeminiContent[] {
  const records = assembleTranscript(fs.readFileSync(file), { path: file, sessionId: "s", dialect: "gemini", mtime: 0 }, false);
  return geminiResumeContents(records.lines);
}

/** The request of a resume: the history, then the new prompt (merged into a last user turn, as the client merges it). */
function withPrompt(contents: GeminiContent[]): GeminiContent[] {
  const out = structuredClone(contents);
  if (out.at(-1)?.role === "user") out.at(-1)!.parts.push({ text: "Continue." });
  else out.push({ role: "user", parts: [{ text: "Continue." }] });
  return out;
}

const shape = (contents: readonly { role: string; parts: Record<string, unknown>[] }[]) =>
  contents.map(
    (c) =>
      `${c.role}: ${c.parts
        .map((p) => (typeof p.text === "string" ? `text(${p.text})` : p.functionCall ? "call" : p.functionResponse ? "response" : JSON.stringify(p)))
        .join(" ")}`,
  );

type ScanDoc = { sessions: { id: string; findings: { rule: string; severity: string; message: string }[] }[] };

describe("chat files written by the real Gemini CLI 0.61", () => {
  it("the contents recover models are the ones the client sent on resume, turn for turn and part for part", () => {
    const { captures } = homeOfCaptures();
    let compared = 0;
    for (const { scenario, file } of captures.values()) {
      const requestFile = path.join(FIXTURES, `${scenario}.resume-request.json`);
      if (!fs.existsSync(requestFile)) continue;
      const sent = (JSON.parse(fs.readFileSync(requestFile, "utf8")) as { contents: GeminiContent[] }).contents;
      // The client leads with a fresh session context and ends with the new prompt; neither is in the file.
      sent[0]!.parts.shift();
      sent.at(-1)!.parts.pop();
      const history = sent.filter((c) => c.parts.length > 0);
      expect(shape(resumeContents(file)), scenario).toEqual(shape(history));
      compared++;
    }
    expect(compared).toBe(15);
  });

  it("the Gemini rules reject exactly the captured requests the API rejected, with its texts", () => {
    const verdicts: Record<string, string[]> = {};
    for (const name of fs.readdirSync(FIXTURES).filter((f) => f.endsWith(".resume-request.json"))) {
      const sent = (JSON.parse(fs.readFileSync(path.join(FIXTURES, name), "utf8")) as { contents: GeminiContent[] }).contents;
      const found = validateGemini(sent).map((v) => v.text);
      if (found.length > 0) verdicts[name.replace(".resume-request.json", "")] = found;
    }
    expect(verdicts).toEqual({
      tool: [MISMATCH],
      "tool-failed-twice": [MISMATCH],
      "result-null-repaired": [MISMATCH],
      "torn-line": [RESPONSE_TURN],
    });
  });

  it("scan names every damage; what the client drops itself on resume is a warning", async () => {
    const { home, captures } = homeOfCaptures();
    const scenarioOf = new Map([...captures.values()].map((c) => [c.id, c.scenario]));
    const r = await run(["session", "scan", "--all", "--json", "--exit-zero", "--store", home]);
    expect(r.status, r.stderr).toBe(0);
    const doc = parseJsonDocument(r.stdout) as ScanDoc;
    const found = doc.sessions.flatMap((s) => s.findings.map((f) => `${scenarioOf.get(s.id)} ${f.rule} ${f.severity}`)).sort();
    expect(found).toEqual(
      [
        // Every session that used a tool: the result is recorded twice, and replayed twice.
        "tool orphan-tool-result error",
        "tool-failed-twice orphan-tool-result error",
        "result-null-repaired tool-result-missing error",
        "torn-line unreadable-record warning",
        "torn-line orphan-tool-result error",
        "rewind-unknown unknown-rewind error",
        // Turns with nothing to send (a reply cut off, a call killed before it was recorded): the client drops them.
        "empty-gemini empty-turn warning",
        "empty-gemini-text empty-turn warning",
        "empty-gemini-last empty-turn warning",
        "killed-mid-call empty-turn warning",
      ].sort(),
    );
  });

  it("repair makes every damaged chat one the API accepts, as the client would send it; restore puts back every byte", async () => {
    const { home, captures } = homeOfCaptures();
    const before = snapshot(home);
    const damaged = [
      "tool",
      "tool-failed-twice",
      "result-null-repaired",
      "torn-line",
      "rewind-unknown",
      "empty-gemini",
      "empty-gemini-text",
      "killed-mid-call",
    ];
    const backups: string[] = [];
    for (const scenario of damaged) {
      const { id, file } = captures.get(scenario)!;
      // A rewind to an unknown id leaves the client nothing to resume; after the repair the history is back.
      expect(resumeContents(file).length === 0, scenario).toBe(scenario === "rewind-unknown");
      const repaired = await run(["session", "repair", id, "--yes", "--json", "--store", home]);
      expect(repaired.status, `${scenario}: ${repaired.stderr}`).toBe(0);
      backups.push((parseJsonDocument(repaired.stdout) as { backup: { id: string } }).backup.id);
      const contents = resumeContents(file);
      expect(validateGemini(withPrompt(contents)), scenario).toEqual([]);
      expect(contents.length, scenario).toBeGreaterThan(0);
    }
    const rescan = await run(["session", "scan", "--all", "--json", "--store", home]);
    expect(rescan.status, rescan.stdout).toBe(0);
    // One response per call, kept where the client replays it; the call and its text stay.
    expect(shape(resumeContents(captures.get("tool")!.file))).toEqual([
      "user: text(Run `echo hi` and tell me the output.)",
      "model: text(Running it.) call",
      "user: response",
      "model: text(The command printed: hi)",
    ]);
    // A call whose result was lost answers with the cancelled response the client writes.
    const cancelled = resumeContents(captures.get("result-null-repaired")!.file)
      .flatMap((c) => c.parts)
      .find((p) => p.functionResponse);
    expect(JSON.stringify(cancelled)).toContain("[Operation Cancelled] Reason: User cancelled tool execution.");
    for (const backup of backups.reverse()) {
      const restored = await run(["session", "restore", backup, "--yes", "--store", home]);
      expect(restored.status, restored.stderr).toBe(0);
    }
    expectSameBytes(snapshot(home), before);
  });

  it("after failed resumes the extra copies go too: every line holding the separate response, in every message list", async () => {
    const { home, captures } = homeOfCaptures("after");
    const { id, file } = captures.get("tool-failed-twice")!;
    const response = (
      fs
        .readFileSync(file, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l)) as { id?: string; type?: string; content?: unknown }[]
    ).find((r) => r.type === "user" && JSON.stringify(r.content).includes("functionResponse") && !String(r.id).endsWith("_response"))!;
    const copies = fs.readFileSync(file, "utf8").split(response.id!).length - 1;
    expect(copies).toBeGreaterThan(2);
    const repaired = await run(["session", "repair", id, "--yes", "--json", "--store", home]);
    expect(repaired.status, repaired.stderr).toBe(0);
    expect(fs.readFileSync(file, "utf8")).not.toContain(response.id!);
    expect(fs.readFileSync(file, "utf8")).toContain("_response");
    expect(validateGemini(withPrompt(resumeContents(file)))).toEqual([]);
  });

  it("a call a failed resume rewrote without its response gets the cancelled response, in the record the client writes for one", async () => {
    const { home, captures } = homeOfCaptures("after");
    const { id, file } = captures.get("result-null-repaired")!;
    // The resume's message list holds the call as a functionCall part of the gemini record: no toolCalls to fill.
    expect(validateGemini(withPrompt(resumeContents(file))).map((v) => v.text)).toEqual([MISMATCH]);
    const repaired = await run(["session", "repair", id, "--yes", "--json", "--store", home]);
    expect(repaired.status, repaired.stderr).toBe(0);
    const changes = (parseJsonDocument(repaired.stdout) as { sessions: { changes: { op: string; rules: string[] }[] }[] }).sessions[0]!.changes;
    // Both message lists the failed resume wrote (with the prompt it rolled back, and without).
    expect(changes.map((c) => `${c.op} ${c.rules.join()}`)).toEqual(["update tool-result-missing", "update tool-result-missing"]);
    const contents = resumeContents(file);
    expect(validateGemini(withPrompt(contents))).toEqual([]);
    expect(shape(contents)).toEqual([
      "user: text(Run `echo hi` and tell me the output.)",
      "model: text(Running it.) call",
      "user: response",
      "model: text(The command printed: hi)",
    ]);
    const last = fs.readFileSync(file, "utf8").trimEnd().split("\n").at(-1)!;
    const records = (JSON.parse(last) as { $set: { messages: { id: string; type: string; content: unknown }[] } }).$set.messages;
    const call = records.findIndex((r) => JSON.stringify(r.content).includes("functionCall"));
    expect(records[call + 1]!.id).toBe(`${records[call]!.id}_response`);
    expect(JSON.stringify(records[call + 1]!.content)).toContain("[Operation Cancelled] Reason: User cancelled tool execution.");
  });

  it("a resume the API refused seconds ago is repaired with its error right away: the refused turn was sent, so it is judged though it is recent (issue 38)", async () => {
    const { home, captures } = homeOfCaptures("after");
    const errors: Record<string, string> = {};
    for (const scenario of ["tool", "tool-failed-twice", "torn-line", "result-null-repaired"]) {
      const { id, file } = captures.get(scenario)!;
      // The client as it just was: refused, its chat file written two minutes ago (after the write guard's minute).
      writtenAgo(file, 2 * MINUTE);
      const refusal = /_ApiError: (\{.*\})$/m.exec(fs.readFileSync(path.join(FIXTURES, `${scenario}.resume.stderr.txt`), "utf8"))![1]!;
      const error = (JSON.parse(refusal) as { error: { message: string } }).error.message;
      errors[scenario] = error;
      // Without the error nothing says the last turn went out: it may be being written, and is left alone, said so
      // (torn-line's torn line is older than that turn: its repair is planned).
      const plain = await run(["session", "repair", id, "--dry-run", "--json", "--store", home]);
      const planned = parseJsonDocument(plain.stdout) as { sessions: { changes: { rules: string[] }[] }[]; skipped?: { id: string; reason: string }[] };
      expect(
        planned.sessions.flatMap((s) => s.changes.flatMap((c) => c.rules)),
        scenario,
      ).toEqual(scenario === "torn-line" ? ["unreadable-record"] : []);
      expect(planned.skipped, scenario).toEqual([expect.objectContaining({ id, reason: "live" })]);
      // With it: judged, repaired, and a resume is one the API accepts.
      const repaired = await run(["session", "repair", id, "--error", error, "--yes", "--json", "--store", home]);
      expect(repaired.status, `${scenario}: ${repaired.stderr}`).toBe(0);
      const doc = parseJsonDocument(repaired.stdout) as { skipped?: unknown; store: { notices: string[] }; sessions: { changes: unknown[] }[] };
      expect(doc.skipped, scenario).toBeUndefined();
      expect(doc.sessions[0]!.changes.length, scenario).toBeGreaterThan(0);
      expect(doc.store.notices.join("\n"), scenario).toMatch(/its last turn was written 2 min ago, but the provider refused a request that held it/);
      expect(validateGemini(withPrompt(resumeContents(file))), scenario).toEqual([]);
    }
    expect(errors).toEqual({ tool: MISMATCH, "tool-failed-twice": MISMATCH, "torn-line": RESPONSE_TURN, "result-null-repaired": MISMATCH });
  });

  it("a session recorded in two files (a resume's fresh recording) is the file the client resumes; `gemini --resume <uuid>`", async () => {
    const { home, captures } = homeOfCaptures();
    const tool = captures.get("tool")!;
    // What a resume in a later minute leaves beside the session: its metadata and the session-context record only.
    const lines = fs.readFileSync(tool.file, "utf8").split("\n");
    const stub = path.join(home, CHATS, `session-2026-11-24T19-25-${tool.id.slice(0, 8)}.jsonl`);
    fs.writeFileSync(stub, `${lines[0]!.replace(/"startTime":"[^"]+"/, '"startTime":"2026-11-24T19:25:00.000Z"')}\n${lines[1]}\n`);
    age(stub, WRITTEN);
    const listed = await run(["session", "list", "--json", "--store", home]);
    expect(listed.status, listed.stderr).toBe(0);
    const sessions = (parseJsonDocument(listed.stdout) as { sessions: { id: string; title: string }[] }).sessions;
    expect(sessions.filter((s) => s.id === tool.id)).toEqual([expect.objectContaining({ title: "Run `echo hi` and tell me the output." })]);
    const repaired = await run(["session", "repair", tool.id.slice(0, 8), "--resume", "--yes", "--store", home]);
    expect(repaired.status, repaired.stderr).toBe(0);
    expect(repaired.stdout).toContain(`gemini --resume ${tool.id}`);
    expect(validateGemini(withPrompt(resumeContents(tool.file)))).toEqual([]);
    // The project dir, its chats/ dir and one file work as --store too; `--format gemini` finds ~/.gemini.
    for (const store of [path.join(home, "tmp", "project"), path.join(home, CHATS), tool.file]) {
      const r = await run(["session", "list", "--json", "--store", store]);
      expect(r.status, `${store}: ${r.stderr}`).toBe(0);
    }
    const userHome = tempDir();
    fs.cpSync(home, path.join(userHome, ".gemini"), { recursive: true });
    const found = await run(["session", "list", "--json", "--format", "gemini"], { env: { HOME: userHome } });
    expect(found.status, found.stderr).toBe(0);
  });

  it("the demo store (fixtures/demo/gemini) is the captures the script lays out, and a scan finds what its manifest says", async () => {
    const tmp = tempDir();
    fs.mkdirSync(path.join(tmp, "fixtures", "demo"), { recursive: true });
    const manifest = writeDemoGemini(tmp);
    expect(fs.readFileSync(path.join(tmp, "fixtures/demo/expected-gemini.json"), "utf8")).toBe(fs.readFileSync("fixtures/demo/expected-gemini.json", "utf8"));
    for (const m of manifest) expect(fs.readFileSync(path.join(tmp, m.path)).equals(fs.readFileSync(m.path)), m.path).toBe(true);
    const r = await run(["session", "scan", "--all", "--json", "--exit-zero", "--store", "fixtures/demo/gemini"]);
    const doc = parseJsonDocument(r.stdout) as ScanDoc;
    const found = Object.fromEntries(doc.sessions.map((s) => [s.id, s.findings.map((f) => `${f.rule} ${f.severity}`).sort()]));
    expect(found).toEqual(Object.fromEntries(manifest.map((m) => [m.sessionId, [...m.expect].sort()])));
  });

  it("a wrong --format on the Codex and Gemini stores is refused before anything is read or written (exit 2)", async () => {
    const { home } = homeOfCaptures();
    const before = snapshot(home);
    for (const [format, store] of [
      ["codex", home],
      ["claude", home],
      ["gemini", "fixtures/demo/codex"],
      ["openclaw", "fixtures/demo/codex/sessions/2026/11/24"],
    ] as const) {
      const r = await run(["session", "repair", "--all", "--yes", "--format", format, "--store", store]);
      expect(r.status, `${format} ${store}`).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`^recover: --format ${format}: .* is a (Gemini CLI|Codex CLI|folder of Codex CLI)`));
    }
    expectSameBytes(snapshot(home), before);
  });

  it("context trim calibrates by the tokens the client stored on the latest reply, and shrinks an old tool result in place", async () => {
    const home = tempDir();
    fs.mkdirSync(path.join(home, CHATS), { recursive: true });
    const id = "0b6f1c2e-0000-4000-8000-000000000001";
    const t = (s: number) => `2026-11-24T19:0${Math.floor(s / 10)}:${String(s % 10).padStart(2, "0")}.000Z`;
    const lines: unknown[] = [{ sessionId: id, projectHash: "h", startTime: t(0), lastUpdated: t(0), kind: "main" }];
    lines.push({ id: "u0", timestamp: t(1), type: "user", content: [{ text: "Read the logs." }] });
    for (let turn = 0; turn < 5; turn++) {
      const call = `run_shell_command__run_shell_command_${turn}`;
      const result = [{ functionResponse: { id: call, name: "run_shell_command", response: { output: `line ${turn}\n`.repeat(6000) } } }];
      lines.push({
        id: `g${turn}`,
        timestamp: t(2 + turn),
        type: "gemini",
        content: "",
        toolCalls: [{ id: call, name: "run_shell_command", args: { command: `cat log${turn}` }, result, status: "success" }],
        tokens: { input: 1000 + turn, output: 5 },
      });
    }
    lines.push({ id: "g9", timestamp: t(8), type: "gemini", content: "Read them all.", tokens: { input: 51000, output: 4 } });
    lines.push({ id: "u9", timestamp: t(9), type: "user", content: [{ text: "Summarise." }] });
    const file = path.join(home, CHATS, `session-2026-11-24T19-00-${id.slice(0, 8)}.jsonl`);
    fs.writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
    age(file, WRITTEN);
    const before = snapshot(home);
    const trimmed = await run(["context", "trim", id, "--limit", "20000", "--yes", "--json", "--store", home]);
    expect(trimmed.status, trimmed.stderr).toBe(0);
    const doc = parseJsonDocument(trimmed.stdout) as { backup: { id: string }; tokens: { after: number } };
    expect(doc.tokens.after).toBeLessThan(20000);
    expect(JSON.stringify(doc)).toContain("Gemini CLI stored");
    const contents = resumeContents(file);
    expect(validateGemini(withPrompt(contents))).toEqual([]);
    const responses = contents.flatMap((c) => c.parts).filter((p) => p.functionResponse);
    expect(responses).toHaveLength(5);
    expect(JSON.stringify(responses[0]).length).toBeLessThan(JSON.stringify(responses[4]).length);
    const restored = await run(["session", "restore", doc.backup.id, "--yes", "--store", home]);
    expect(restored.status, restored.stderr).toBe(0);
    expectSameBytes(snapshot(home), before);
  });

  it("legacy .json sessions: read as one document, repaired in their own layout; after 0.61 migrates one, its .jsonl is the session", async () => {
    const home = tempDir();
    fs.mkdirSync(path.join(home, CHATS), { recursive: true });
    const legacy = fs.readFileSync(path.join(FIXTURES, "legacy-json.json"), "utf8");
    const id = (JSON.parse(legacy) as { sessionId: string }).sessionId;
    const file = path.join(home, CHATS, `session-2026-11-24T19-24-${id.slice(0, 8)}.json`);
    // The call's result lost: 1 call, 0 responses.
    const damaged = JSON.parse(legacy) as { messages: { toolCalls?: { result: unknown }[] }[] };
    damaged.messages.find((m) => m.toolCalls)!.toolCalls![0]!.result = null;
    fs.writeFileSync(file, JSON.stringify(damaged, null, 2));
    age(file, WRITTEN);
    const listed = await run(["session", "list", "--json", "--store", file]);
    expect((parseJsonDocument(listed.stdout) as { sessions: { id: string; title: string }[] }).sessions).toEqual([
      expect.objectContaining({ id, title: "Run `echo hi` and tell me the output." }),
    ]);
    const before = snapshot(home);
    const repaired = await run(["session", "repair", id, "--yes", "--json", "--store", home]);
    expect(repaired.status, repaired.stderr).toBe(0);
    const text = fs.readFileSync(file, "utf8");
    // Written whole, as Gemini CLI writes it: 2-space JSON, no final newline.
    expect(JSON.stringify(JSON.parse(text), null, 2)).toBe(text);
    expect(text).toContain("[Operation Cancelled] Reason: User cancelled tool execution.");
    expect(validateGemini(withPrompt(resumeContents(file)))).toEqual([]);
    const backup = (parseJsonDocument(repaired.stdout) as { backup: { id: string } }).backup.id;
    expect((await run(["session", "restore", backup, "--yes", "--store", home])).status).toBe(0);
    expectSameBytes(snapshot(home), before);
    // What 0.61 writes beside it on resume is what the next resume reads: it keeps toolCalls and adds <id>_response,
    // so the response goes out twice (the real client: refused; after repair: accepted, the legacy-json loop of
    // scripts/clients/scenarios/gemini.mjs).
    fs.writeFileSync(file, legacy);
    const migrated = file.replace(/\.json$/, ".jsonl");
    fs.copyFileSync(path.join(FIXTURES, "legacy-json.after.jsonl"), migrated);
    for (const f of [file, migrated]) age(f, WRITTEN);
    const scan = await run(["session", "scan", id, "--json", "--store", home]);
    const doc = parseJsonDocument(scan.stdout) as ScanDoc;
    expect(doc.sessions[0]!.findings.map((f) => `${f.rule} ${f.severity}`)).toEqual(["orphan-tool-result error"]);
    expect((await run(["session", "repair", id, "--yes", "--store", home])).status).toBe(0);
    expect(validateGemini(withPrompt(resumeContents(migrated)))).toEqual([]);
    expect(fs.readFileSync(file, "utf8")).toBe(legacy);
  });
});
