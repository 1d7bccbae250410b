// The Codex CLI demo store, fixtures/demo/codex: rollouts the real Codex CLI 0.169.0 wrote (fixtures/codex-0.169,
// captured by scripts/capture-codex-rollout.mjs), laid out as a Codex home lays them out, each under the name the
// client gave it (`sessions/YYYY/MM/DD/rollout-<session_meta time>-<uuid>.jsonl`), with fixtures/demo/expected-codex.json
// saying what a scan finds in each. Run again after a re-capture: npx vite-node scripts/make-demo-codex.ts
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const FROM = path.join(ROOT, "fixtures", "codex-0.169");

/** Which captures go in, and what each shows (the findings are recover's, checked by test/stores/codex-client.test.ts). */
export interface DemoRollout {
  format: "codex";
  sessionId: string;
  capture: string;
  path: string;
  summary: string;
  expect: string[];
}

export const DEMO_CODEX: { capture: string; summary: string; expect: string[] }[] = [
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
    expect: ["orphan-tool-result error"],
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

export function writeDemoCodex(root = ROOT): DemoRollout[] {
  const out = path.join(root, "fixtures", "demo", "codex");
  fs.rmSync(out, { recursive: true, force: true });
  const manifest: DemoRollout[] = [];
  for (const { capture, summary, expect } of DEMO_CODEX) {
    const bytes = fs.readFileSync(path.join(FROM, `${capture}.jsonl`));
    const meta = (JSON.parse(bytes.toString("utf8", 0, bytes.indexOf(0x0a))) as { payload: { id: string; timestamp: string } }).payload;
    const stamp = meta.timestamp.slice(0, 19).replace(/:/g, "-");
    const [y = "", m = "", d = ""] = stamp.slice(0, 10).split("-");
    const rel = path.join("fixtures", "demo", "codex", "sessions", y, m, d, `rollout-${stamp}-${meta.id}.jsonl`);
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), bytes);
    manifest.push({ format: "codex", sessionId: meta.id, capture, path: rel, summary, expect });
  }
  fs.writeFileSync(path.join(root, "fixtures", "demo", "expected-codex.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

// Imported by the tests (which regenerate into a temp dir); run directly it writes the repository's fixtures.
if (!process.env.VITEST) {
  for (const m of writeDemoCodex()) console.log(`${m.path}  ${m.expect.join(", ") || "healthy"}`);
}
