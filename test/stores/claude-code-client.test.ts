// Transcripts written by the real Claude Code client (2.1.331, run offline against a loopback mock of the API by the
// Claude Code driver, scripts/clients/claude-code.mjs; fixtures/claude-code-2.1/README.md). recover's view of what
// that client sends must match what it did send: a scan of them reports only what the API would really reject.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseJsonDocument, run, tempDir } from "../cli/run.js";

const FIXTURES = path.resolve("fixtures/claude-code-2.1");

/** A Claude Code config dir holding every captured transcript, each named after its session, as the client names them. */
function storeOfCaptures(): { dir: string; ids: Map<string, string> } {
  const dir = tempDir();
  const project = path.join(dir, "projects", "-tmp-cc-capture-project");
  fs.mkdirSync(project, { recursive: true });
  const ids = new Map<string, string>();
  for (const name of fs.readdirSync(FIXTURES).filter((f) => f.endsWith(".jsonl"))) {
    const text = fs.readFileSync(path.join(FIXTURES, name), "utf8");
    const id = /"sessionId":"([0-9a-f-]{36})"/.exec(text)![1]!;
    ids.set(id, name.replace(/\.jsonl$/, ""));
    fs.writeFileSync(path.join(project, `${id}.jsonl`), text);
  }
  return { dir, ids };
}

describe("transcripts written by the real Claude Code 2.1 client", () => {
  it("scan: no unknown records, no empty text the client leaves out, parallel results on sibling branches found; only what the API rejects", async () => {
    const { dir, ids } = storeOfCaptures();
    expect(ids.size).toBeGreaterThanOrEqual(16);
    const r = await run(["session", "scan", "--all", "--include-live", "--json", "--exit-zero", "--store", dir]);
    expect(r.status, r.stderr).toBe(0);
    const doc = parseJsonDocument(r.stdout) as { sessions: { id: string; findings: { rule: string; line?: number }[] }[] };
    const found = doc.sessions.flatMap((s) => s.findings.map((f) => `${ids.get(s.id)} ${f.rule}`)).sort();
    expect(found).toEqual([
      // The repair loop's damage (turn two's tool_result line removed, later turns kept), on both clients.
      "opus55-interrupted tool-result-missing",
      "opus55-interrupted-197 tool-result-missing",
      // The client sends stored empty thinking as it is; the API answers `each thinking block must contain
      // non-whitespace thinking` (the scenario empties the thinking of two turns).
      "thinking-empty empty-thinking",
      "thinking-empty empty-thinking",
    ]);
  });
});
