// The demo stores made of real captures: fixtures/demo/codex (rollouts Codex CLI 0.169.0 wrote, from
// fixtures/codex-0.169) and fixtures/demo/gemini (chat files Gemini CLI 0.61.0 wrote, from fixtures/gemini-0.61),
// each laid out as its agent lays out its home, each file under the name the client gave it, with
// fixtures/demo/expected-<store>.json saying what a scan finds in each (checked by test/stores/*-client.test.ts).
// Run again after a re-capture: npx vite-node scripts/make-demo-captures.ts
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export interface DemoSession {
  format: "codex" | "gemini";
  sessionId: string;
  capture: string;
  path: string;
  summary: string;
  expect: string[];
}

interface Pick {
  capture: string;
  summary: string;
  expect: string[];
}

export const DEMO_CODEX: Pick[] = [
  { capture: "tool", summary: "Healthy: a tool turn (reasoning, a call, its output, the answer).", expect: [] },
  {
    capture: "killed-mid-call",
    summary: "Killed mid-call: the call has no output; Codex sends `aborted` for it on resume.",
    expect: ["tool-result-missing warning"],
  },
  {
    capture: "nul-line",
    summary: "The output line zeroed by a crash: skipped by Codex, so the call is replayed as aborted.",
    expect: ["tool-result-missing warning", "unreadable-record warning"],
  },
  {
    capture: "duplicate-output",
    summary: "The output line twice: the API answers `Duplicate item found with id fco_…`.",
    // The copy repeats the line's ordinal too: Codex 0.154+ skips it in its thread history.
    expect: ["orphan-tool-result error", "rollout-ordinal warning"],
  },
  {
    capture: "empty-call-id",
    summary: "A call and its output with an empty call_id: `Invalid 'input[6].call_id': empty string.`",
    expect: ["duplicate-tool-call-id error"],
  },
  {
    capture: "bad-reasoning.after",
    summary: "A resume the API refused (`The encrypted content gAAA...Vo== could not be verified.`), its answer stored in the rollout.",
    expect: ["unverifiable-reasoning error", "unverifiable-reasoning error"],
  },
];

export const DEMO_GEMINI: Pick[] = [
  { capture: "plain", summary: "Healthy: two plain turns, the second after a resume.", expect: [] },
  {
    capture: "tool",
    summary: "A tool turn: its result recorded twice (gemini-cli#29365), so every resume is refused (`…number of function response parts…`).",
    expect: ["orphan-tool-result error"],
  },
  {
    capture: "tool-failed-twice",
    summary: "The same after two failed resumes: more copies of the response, in each message list a resume wrote.",
    expect: ["orphan-tool-result error"],
  },
  {
    capture: "result-null-repaired",
    summary: "A recorded call whose result is null, and no separate response: 1 call, 0 responses.",
    expect: ["tool-result-missing error"],
  },
  {
    capture: "torn-line",
    summary: "The record holding the call torn by a crash: the response that is left answers no call.",
    expect: ["orphan-tool-result error", "unreadable-record warning"],
  },
  {
    capture: "rewind-unknown",
    summary: "A rewind to an id not in the file: the client clears everything (`No previous sessions found`).",
    expect: ["unknown-rewind error"],
  },
  { capture: "empty-gemini", summary: "A model turn stored with no parts: the client drops it.", expect: ["empty-turn warning"] },
];

/** Where each client keeps a session file, and its id. */
const LAYOUT = {
  codex(bytes: Buffer): { id: string; rel: string[] } {
    const meta = (JSON.parse(bytes.toString("utf8", 0, bytes.indexOf(0x0a))) as { payload: { id: string; timestamp: string } }).payload;
    const stamp = meta.timestamp.slice(0, 19).replace(/:/g, "-");
    const [y = "", m = "", d = ""] = stamp.slice(0, 10).split("-");
    return { id: meta.id, rel: ["sessions", y, m, d, `rollout-${stamp}-${meta.id}.jsonl`] };
  },
  gemini(bytes: Buffer): { id: string; rel: string[] } {
    const meta = JSON.parse(bytes.toString("utf8", 0, bytes.indexOf(0x0a))) as { sessionId: string; startTime: string };
    const stamp = meta.startTime.slice(0, 16).replace(/:/g, "-");
    return { id: meta.sessionId, rel: ["tmp", "project", "chats", `session-${stamp}-${meta.sessionId.slice(0, 8)}.jsonl`] };
  },
};

function writeDemo(root: string, format: "codex" | "gemini", from: string, picks: readonly Pick[]): DemoSession[] {
  fs.rmSync(path.join(root, "fixtures", "demo", format), { recursive: true, force: true });
  const manifest: DemoSession[] = [];
  for (const { capture, summary, expect } of picks) {
    const bytes = fs.readFileSync(path.join(ROOT, "fixtures", from, `${capture}.jsonl`));
    const { id, rel } = LAYOUT[format](bytes);
    const file = path.join("fixtures", "demo", format, ...rel);
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), bytes);
    manifest.push({ format, sessionId: id, capture, path: file, summary, expect });
  }
  fs.writeFileSync(path.join(root, "fixtures", "demo", `expected-${format}.json`), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

export function writeDemoCodex(root = ROOT): DemoSession[] {
  return writeDemo(root, "codex", "codex-0.169", DEMO_CODEX);
}

export function writeDemoGemini(root = ROOT): DemoSession[] {
  return writeDemo(root, "gemini", "gemini-0.61", DEMO_GEMINI);
}

// Imported by the tests (which regenerate into a temp dir); run directly it writes the repository's fixtures.
if (!process.env.VITEST) {
  for (const m of [...writeDemoCodex(), ...writeDemoGemini()]) console.log(`${m.path}  ${m.expect.join(", ") || "healthy"}`);
}
