// A thought signature the Gemini API refuses, in a chat file the real Gemini CLI 0.61.0 wrote
// (fixtures/gemini-0.61/signature-corrupted.*, scenario `signature-corrupted`; docs/research/gemini-signatures.md):
// the client compressed the history mid-turn and stored the call's live thoughtSignature in `$set.messages`; resumed
// with another model, it replays the signature and the API answers `Corrupted thought signature.`.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { checkContents, ERR_SIGNATURE_CORRUPTED, ERR_SIGNATURE_MISSING } from "../../scripts/clients/api/gemini-rules.mjs";
import { classifyProviderError } from "../../src/provider/classify-error.js";
import { geminiResumeContents, type GeminiContent } from "../../src/stores/gemini/request.js";
import "../../src/stores/registry.js";
import { assembleTranscript } from "../../src/stores/transcript/assemble.js";
import { expectSameBytes, parseJsonDocument, run, snapshot, tempDir } from "../cli/run.js";
import { writtenAgo } from "../support/captured-home.js";

const FIXTURES = path.resolve("fixtures/gemini-0.61");
const ISSUED_FOR = "gemini-3.1-pro-preview";
const SWITCHED_TO = "gemini-3-flash-preview";

/** The chat file as the failed resume left it, in a Gemini home. */
function home(): { home: string; id: string; file: string } {
  const dir = tempDir();
  const bytes = fs.readFileSync(path.join(FIXTURES, "signature-corrupted.after.jsonl"));
  const id = (JSON.parse(bytes.toString("utf8", 0, bytes.indexOf(0x0a))) as { sessionId: string }).sessionId;
  const file = path.join(dir, "tmp", "project", "chats", `session-2026-11-27T17-09-${id.slice(0, 8)}.jsonl`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, bytes);
  // As if written an hour ago (the capture's times are the day it was made): no turn of it is being written.
  writtenAgo(file, 3_600_000);
  return { home: dir, id, file };
}

function resumeContents(file: string): GeminiContent[] {
  const records = assembleTranscript(fs.readFileSync(file), { path: file, sessionId: "s", dialect: "gemini", mtime: 0 }, false);
  return geminiResumeContents(records.lines);
}

/** The request the client sends on resume: its fresh session context first, the new prompt last. */
function request(contents: GeminiContent[]): { contents: GeminiContent[] } {
  const out = structuredClone(contents);
  out[0]!.parts.unshift({ text: "<session_context>…</session_context>" });
  if (out.at(-1)?.role === "user") out.at(-1)!.parts.push({ text: "Continue." });
  else out.push({ role: "user", parts: [{ text: "Continue." }] });
  return { contents: out };
}

const signatures = (contents: GeminiContent[]) =>
  contents
    .flatMap((c) => c.parts)
    .map((p) => p.thoughtSignature)
    .filter((s) => typeof s === "string");

/** The refusal as the client printed it (`_ApiError: {...}` in its stderr). */
const printed = /_ApiError: (\{.*\})$/m.exec(fs.readFileSync(path.join(FIXTURES, "signature-corrupted.resume.stderr.txt"), "utf8"))![1]!;

describe("a thought signature the API refuses (Gemini CLI 0.61, signature-corrupted)", () => {
  it("the captured resume replays the stored signature: refused for the switched-to model, accepted by the model that issued it", () => {
    const sent = JSON.parse(fs.readFileSync(path.join(FIXTURES, "signature-corrupted.resume-request.json"), "utf8")) as { contents: GeminiContent[] };
    expect(signatures(sent.contents)).toHaveLength(1);
    expect(checkContents(sent, { model: SWITCHED_TO })?.httpError.message).toBe(ERR_SIGNATURE_CORRUPTED);
    expect(checkContents(sent, { model: ISSUED_FOR })).toBeNull();
    // recover models that request, the stored signature included.
    expect(signatures(resumeContents(home().file))).toEqual(signatures(sent.contents));
    expect((JSON.parse(printed) as { error: { message: string } }).error.message).toBe(ERR_SIGNATURE_CORRUPTED);
  });

  it("both texts, raw and as the client prints them, are thought-signature errors of the Gemini API", () => {
    for (const text of [ERR_SIGNATURE_CORRUPTED, printed, ERR_SIGNATURE_MISSING("run_shell_command", 4)]) {
      const c = classifyProviderError(text);
      expect([c.kind, c.provider], text).toEqual(["thinking_signature", "gemini"]);
    }
  });

  it("a scan finds nothing offline; repair --error drops every stored signature the client sends, keeps the parts, and the API accepts the resume", async () => {
    const { home: store, id, file } = home();
    const before = snapshot(store);
    const scan = await run(["session", "scan", id, "--json", "--store", store]);
    expect(scan.status, scan.stdout).toBe(0);
    // Asked for by name, with no answer to go by: every stored signature the client sends is offered.
    const offered = await run(["session", "repair", id, "--rule", "corrupted-thought-signature", "--dry-run", "--json", "--store", store]);
    const planned = (parseJsonDocument(offered.stdout) as { sessions: { changes: { op: string; rules: string[] }[] }[] }).sessions[0]!.changes;
    expect(planned.map((c) => `${c.op} ${c.rules.join()}`)).toEqual(["update corrupted-thought-signature"]);

    const repaired = await run(["session", "repair", id, "--error", printed, "--yes", "--json", "--store", store]);
    expect(repaired.status, repaired.stderr).toBe(0);
    const doc = parseJsonDocument(repaired.stdout) as { backup: { id: string }; sessions: { changes: { op: string }[] }[] };
    expect(doc.sessions[0]!.changes.map((c) => c.op)).toEqual(["update"]);
    const contents = resumeContents(file);
    expect(signatures(contents)).toEqual([]);
    expect(contents.flatMap((c) => c.parts).filter((p) => p.functionCall)).toHaveLength(1);
    expect(checkContents(request(contents), { model: SWITCHED_TO })).toBeNull();
    // Idempotent: the same error again finds no stored signature left to drop, and writes nothing.
    const repairedBytes = snapshot(store);
    const again = await run(["session", "repair", id, "--error", printed, "--yes", "--store", store]);
    expect(`${again.stdout}${again.stderr}`).toMatch(/holds none that Gemini CLI sends on resume/);
    expectSameBytes(snapshot(store), repairedBytes);
    const restored = await run(["session", "restore", doc.backup.id, "--yes", "--store", store]);
    expect(restored.status, restored.stderr).toBe(0);
    expectSameBytes(snapshot(store), before);
  });

  it("the interactive UI's stored refusal: session resume aims the repair at it, then continues in `gemini --resume`", async () => {
    const { home: store, id, file } = home();
    // What 0.61.0's interactive UI appends when the API refuses (scripts/clients/probes/gemini-ui-error.mjs): the
    // refusal as it shows it, then a hint. The body is the API's, as the client printed it above.
    const at = "2026-11-27T17:20:00.000Z";
    const records = [
      { id: "60abab1e-9a24-415e-88a7-cb921a9c6687", timestamp: at, type: "error", content: `[API Error: ${printed}]` },
      { id: "d6b78a43-0ca5-46b2-8dac-ca6210a26b53", timestamp: at, type: "info", content: "This request failed. Press F12 for diagnostics." },
    ];
    fs.appendFileSync(file, records.map((r) => `${JSON.stringify(r)}\n`).join(""));
    writtenAgo(file, 3_600_000);
    const errorLine = fs.readFileSync(file, "utf8").trimEnd().split("\n").length - 1;
    const resumed = await run(["session", "resume", id, "--yes", "--print", "--store", store]);
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`session ${id}: the agent recorded the provider's refusal at line ${errorLine}; the repair aims at it`);
    expect(resumed.stdout.trim().split("\n").at(-1)).toMatch(new RegExp(`gemini --resume ${id}$`));
    expect(signatures(resumeContents(file))).toEqual([]);
    expect(checkContents(request(resumeContents(file)), { model: SWITCHED_TO })).toBeNull();
    // Answered: the same refusal names nothing any more, so the next resume is a plain one with nothing to do.
    const again = await run(["session", "resume", id, "--yes", "--print", "--store", store]);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/nothing to repair/);
  });

  it("`missing a thought_signature` is not the chat file's doing: Gemini CLI signs the current turn's calls itself; nothing is changed", async () => {
    const { home: store, id } = home();
    const before = snapshot(store);
    const r = await run(["session", "repair", id, "--error", ERR_SIGNATURE_MISSING("run_shell_command", 4), "--yes", "--store", store]);
    expect(r.stderr).toMatch(/skip_thought_signature_validator/);
    expect(r.stderr).toMatch(/never makes a signature up/);
    expectSameBytes(snapshot(store), before);
  });
});
