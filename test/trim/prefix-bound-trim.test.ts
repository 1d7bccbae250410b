// context trim on a session of a current Claude model, written by the real client (Claude Code 2.1.331, the
// repair-prefix-trim-tail loop of docs/research/claude-code-prefix-thinking.md): 8 thinking blocks over 4 turns, and
// a 120,000-character tool output in the last step, which overflows the mock's 36,000-token window.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { expectSameBytes, parseJsonDocument, run, snapshot, tempDir } from "../cli/run.js";

const SESSION = "fcb27df1-c936-4163-b5b9-063793a64ffd";
const ERROR = "prompt is too long: 45260 tokens > 36000 maximum";

function written(): { config: string; env: Record<string, string>; file: string } {
  const root = tempDir();
  const config = path.join(root, "claude");
  const file = path.join(config, "projects", "p", `${SESSION}.jsonl`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.copyFileSync(path.resolve("fixtures/claude-code-2.1/prefix-thinking/prefix-trim-tail-keep0.jsonl"), file);
  // Written an hour ago: no live writer.
  const hourAgo = new Date(Date.now() - 3_600_000);
  fs.utimesSync(file, hourAgo, hourAgo);
  return { config, env: { XDG_STATE_HOME: path.join(root, "state") }, file };
}

type TrimDoc = {
  dryRun: boolean;
  stillOver: boolean;
  unwritten?: string;
  tokens: { before: number; after: number; method: string };
  sessions: { changes: { rules: string[] }[] }[];
};

describe("context trim of a session whose thinking a current model bound", () => {
  it("a plan that would still be over the limit and takes thinking is shown, not written (exit 1)", async () => {
    const { config, env } = written();
    const before = snapshot(config);
    // The default --keep-steps 2 protects the step that holds the output: nothing allowed reaches the limit.
    const r = await run(["context", "trim", SESSION, "--error", ERROR, "--yes", "--json", "--store", config], { env });
    expect(r.status, r.stderr).toBe(1);
    const doc = parseJsonDocument(r.stdout) as unknown as TrimDoc;
    expect(doc.tokens.after).toBeGreaterThan(36_000);
    expect(doc.sessions[0]!.changes.some((c) => c.rules.includes("strip-old-thinking"))).toBe(true);
    expect(doc.unwritten).toMatch(/would still be over the limit \([\d,]+ > 36,000 tokens\) and the plan takes thinking for nothing/);
    expectSameBytes(before, snapshot(config));
    // The advice's trim fits, and is written.
    const fits = await run(["context", "trim", SESSION, "--error", ERROR, "--keep-steps", "0", "--yes", "--json", "--store", config], { env });
    expect(fits.status, fits.stderr).toBe(0);
    const done = parseJsonDocument(fits.stdout) as unknown as TrimDoc;
    expect(done.tokens.after).toBeLessThanOrEqual(28_800);
    expect(done.unwritten).toBeUndefined();
  });

  it("the same error given again after a trim is no news: the first trim's calibration stands, nothing more is planned", async () => {
    const { config, env } = written();
    const first = await run(["context", "trim", SESSION, "--error", ERROR, "--keep-steps", "0", "--yes", "--json", "--store", config], { env });
    expect(first.status, first.stderr).toBe(0);
    const after = (parseJsonDocument(first.stdout) as unknown as TrimDoc).tokens.after;
    const again = await run(["context", "trim", SESSION, "--error", ERROR, "--keep-steps", "0", "--dry-run", "--json", "--store", config], { env });
    expect(again.status, again.stderr).toBe(0);
    const doc = parseJsonDocument(again.stdout) as unknown as TrimDoc;
    expect(doc.tokens.method).toMatch(/as by the previous trim of this session/);
    expect(doc.tokens.before).toBe(after);
    expect(doc.sessions[0]!.changes).toEqual([]);
  });
});
