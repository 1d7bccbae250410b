// `recover battle fix` through the built CLI: what changed since the latest checkpoint (modified, created, deleted,
// as a list and a diff, .pokeralph/ left out), --verify's ✓/✗ from real feedback scripts, and --continue's
// `## Manual Fix Applied` prompt (printed, or run with a stand-in claude).
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseJsonDocument } from "../cli/run.js";
import {
  createPokeralphRepo,
  failedFeedbackBattle,
  removeFixture,
  writeProjectFile,
  type BattleScenario,
  type PokeralphFixture,
} from "../support/pokeralph-fixtures.js";
import { closedPort } from "./fake-pokeralph.js";
import { runAsync } from "./run-async.js";
import { fakeClaude, feedbackScripts, tmp } from "./resume-support.js";

const fixtures: PokeralphFixture[] = [];
afterAll(() => fixtures.forEach(removeFixture));

const ENV = { RECOVER_POKERALPH_URL: `http://127.0.0.1:${await closedPort()}`, PORT: undefined, CLAUDE_PATH: undefined, XDG_STATE_HOME: tmp("recover-state-") };

async function fix(args: string[], cwd: string) {
  return await runAsync(["battle", "fix", ...args], { cwd, env: ENV });
}

/** A failed battle, checkpointed as it is, then fixed by hand: one file edited, one created, one deleted. */
async function manuallyFixed(outcome: { test: boolean; lint: boolean }): Promise<{ fx: PokeralphFixture; b: BattleScenario }> {
  const fx = await createPokeralphRepo();
  fixtures.push(fx);
  const b = await failedFeedbackBattle(fx);
  feedbackScripts(fx, outcome);
  const cp = await runAsync(["checkpoint", "create", b.taskId], { cwd: fx.root, env: ENV });
  expect(cp.status, cp.stderr).toBe(0);
  writeProjectFile(fx, "src/pdf/vat.ts", `export const vat = (net: number) => Math.round(net * 20) / 100;\n`);
  writeProjectFile(fx, "tests/fonts/inter.stub.ts", `export const inter = "stub";\n`);
  fs.rmSync(path.join(fx.root, "README.md"));
  // Battle state changes are not the user's fix.
  fs.writeFileSync(path.join(b.dir, "progress.json"), "{}");
  return { fx, b };
}

interface FixDoc {
  checkpoint: { afterIteration: number } | null;
  changes: { path: string; type: string }[];
  diff: string;
  verification?: Record<string, { passed: boolean }>;
  verified?: boolean;
}

describe("battle fix", () => {
  it("lists what changed since the latest checkpoint, with a diff", async () => {
    const { fx, b } = await manuallyFixed({ test: true, lint: true });
    const r = await fix([b.taskId, "--json"], fx.root);
    expect(r.status, r.stderr).toBe(0);
    const doc = parseJsonDocument(r.stdout) as unknown as FixDoc;
    expect(doc.checkpoint?.afterIteration).toBe(3);
    expect(doc.changes).toEqual([
      { path: "README.md", type: "deleted" },
      { path: "src/pdf/vat.ts", type: "modified" },
      { path: "tests/fonts/inter.stub.ts", type: "created" },
    ]);
    expect(doc.diff).toContain("+export const vat = (net: number) => Math.round(net * 20) / 100;");
    expect(doc.diff).not.toContain(".pokeralph");

    const human = await fix([b.taskId], fx.root);
    expect(human.status).toBe(0);
    expect(human.stdout).toMatch(/changes since checkpoint cp-\d+-\w+ \(after iteration 3/);
    expect(human.stdout).toContain("  modified src/pdf/vat.ts");
    expect(human.stdout).toContain("  created  tests/fonts/inter.stub.ts");
    expect(human.stdout).toContain("  deleted  README.md");
  });

  it("--verify runs the feedback loops and shows ✓/✗ (exit 1 when one fails)", async () => {
    const { fx, b } = await manuallyFixed({ test: true, lint: false });
    const r = await fix([b.taskId, "--verify"], fx.root);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/✓ test/);
    expect(r.stdout).toMatch(/✗ lint/);
    expect(r.stdout).toContain("lint FAILED");

    feedbackScripts(fx, { test: true, lint: true });
    const ok = await fix([b.taskId, "--verify", "--json"], fx.root);
    expect(ok.status, ok.stderr).toBe(0);
    const doc = parseJsonDocument(ok.stdout) as unknown as FixDoc;
    expect(doc.verified).toBe(true);
    expect(doc.verification?.test?.passed).toBe(true);
  });

  it("after a rollback, diffs against the checkpoint the rollback went to, not the safety checkpoint", async () => {
    const fx = await createPokeralphRepo();
    fixtures.push(fx);
    const b = await failedFeedbackBattle(fx);
    const cp = await runAsync(["checkpoint", "create", b.taskId], { cwd: fx.root, env: ENV });
    expect(cp.status, cp.stderr).toBe(0);
    // Back to after iteration 1 (its commit), dropping iteration 2's uncommitted src/pdf/vat.ts.
    const back = await runAsync(["battle", "rollback", b.taskId, "--iteration", "2", "--hard", "--yes"], { cwd: fx.root, env: ENV });
    expect(back.status, back.stderr).toBe(0);
    expect(fs.existsSync(path.join(fx.root, "src/pdf/vat.ts"))).toBe(false);
    // The user's own fix after the rollback: the only change battle fix may show.
    writeProjectFile(fx, "src/pdf/render.ts", `export const render = "fixed by hand";\n`);
    const r = await fix([b.taskId, "--json"], fx.root);
    expect(r.status, r.stderr).toBe(0);
    const doc = parseJsonDocument(r.stdout) as unknown as FixDoc & { checkpoint: { commit: string } };
    expect(doc.checkpoint).toMatchObject({ afterIteration: 1, commit: b.commits.iteration1 });
    expect(doc.changes).toEqual([{ path: "src/pdf/render.ts", type: "modified" }]);
  });

  it("--continue builds the ## Manual Fix Applied prompt and prints the command", async () => {
    const { fx, b } = await manuallyFixed({ test: true, lint: true });
    const r = await fix([b.taskId, "--continue", "--json"], fx.root);
    expect(r.status, r.stderr).toBe(0);
    const doc = parseJsonDocument(r.stdout) as unknown as {
      strategy: string;
      prompt: string;
      command: string;
      iteration: { number: number; retryCount: number };
    };
    expect(doc.strategy).toBe("manual_then_continue");
    expect(doc.prompt).toContain("## Manual Fix Applied");
    expect(doc.prompt).toContain("Feedback loop 'test' failed");
    expect(doc.prompt).toContain("- modified: src/pdf/vat.ts\n- created: tests/fonts/inter.stub.ts");
    expect(doc.prompt).toContain("- deleted: README.md");
    expect(doc.prompt).toContain("Continue building on these changes.");
    expect(doc.command).toContain(`--dangerously-skip-permissions --print '`);
    expect(fs.existsSync(path.join(fx.dir, "battles/003-invoice-pdf/resume-prompt-4.md"))).toBe(false);
    expect(doc.iteration).toEqual({ number: 4, retryCount: 1 });
  });

  it("--verify --continue refuses while a loop fails; --continue --run runs the iteration with the context", async () => {
    const { fx, b } = await manuallyFixed({ test: false, lint: true });
    const refused = await fix([b.taskId, "--verify", "--continue", "--run", "--yes", "--claude", fakeClaude("ok")], fx.root);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/still fail/);
    expect(fs.existsSync(path.join(b.dir, "logs", "iteration-4.txt"))).toBe(false);

    feedbackScripts(fx, { test: true, lint: true });
    const r = await fix([b.taskId, "--verify", "--continue", "--run", "--yes", "--claude", fakeClaude("ok")], fx.root);
    expect(r.status, r.stderr + r.stdout).toBe(0);
    const log = fs.readFileSync(path.join(b.dir, "logs", "iteration-4.txt"), "utf8");
    expect(log).toContain("## Manual Fix Applied");
    const history = JSON.parse(fs.readFileSync(b.historyPath, "utf8")) as { iterations: { number: number; result: string; retryCount?: number }[] };
    expect(history.iterations.at(-1)).toMatchObject({ number: 4, result: "success", retryCount: 1 });
  });
});
