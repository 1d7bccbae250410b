// Crash safety of `battle rollback`: the project's files, history.json and checkpoints.json change in one
// transaction, so a SIGKILL at any moment leaves the battle as it was or as rolled back, never a mix, once the
// next command (`battle status`, which settles an unfinished transaction as every command on a store does) has
// run. The battle: a checkpoint after iteration 1, then iteration 2 rewrote 300 files, deleted 20 and created 40,
// so applying takes long enough to be cut in the middle. Each trial SIGKILLs the built CLI, run as a process, at
// a fixed or a random moment (crash-support.ts's kill plans; CRASH_SEED replays one); --hard, so deletions are cut
// too. A trial that ended rolled back is then undone (`--undo`) back to the original, byte for byte.
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createCheckpoint } from "../../src/checkpoint/create.js";
import { parseJsonDocument } from "../cli/run.js";
import { copyDir, copyProject, makeProject, tempDir, TASK, worktreeBytes, write, writeHistory } from "../support/git-repo.js";
import { backupRootOf, FIXED_KILLS, killPlanFor, randomKills, runCli, runSettled, trialCount } from "./crash-support.js";

const SEED = Number(process.env.CRASH_SEED ?? 20_261_124) >>> 0 || 1;
const TRIALS = trialCount("CRASH_TRIALS");
const START = Date.parse("2026-02-04T14:00:03.402Z");
const iteration = (n: number) => ({
  number: n,
  startedAt: new Date(START + (n - 1) * 600_000).toISOString(),
  endedAt: new Date(START + n * 600_000 - 1000).toISOString(),
  result: "success" as const,
});

/** What must be all-before or all-after: every file but git's, recover's lock and temp files, and the sidecar. */
function battleState(dir: string): Map<string, string> {
  const sidecar = `.pokeralph/battles/${TASK}/checkpoints.json`;
  return new Map([...worktreeBytes(dir)].filter(([f]) => f !== sidecar && !f.endsWith(".recover.lock") && !f.includes(".recover-tmp-")));
}

function sidecarRollbacks(dir: string): number {
  const sidecar = JSON.parse(fs.readFileSync(path.join(dir, ".pokeralph/battles", TASK, "checkpoints.json"), "utf8")) as { rolledBack?: unknown[] };
  return sidecar.rolledBack?.length ?? 0;
}

interface Template {
  dir: string;
  state: string;
  before: Map<string, string>;
  after: Map<string, string>;
  timing: { run: number; backupWriting: number; applying: number };
}

let template: Template;

beforeAll(async () => {
  const { dir } = await makeProject({ clean: true });
  const state = tempDir("recover-state-");
  for (let i = 0; i < 300; i++) write(dir, `src/gen/module-${String(i).padStart(3, "0")}.ts`, `export const v${i} = ${i};\n`);
  for (let i = 0; i < 20; i++) write(dir, `docs/page-${i}.md`, `# page ${i}\n`);
  writeHistory(dir, [iteration(1)]);
  await createCheckpoint(dir, { taskId: TASK, stateDir: state });
  // Iteration 2: 300 files rewritten, 20 deleted, 40 created.
  for (let i = 0; i < 300; i++)
    write(dir, `src/gen/module-${String(i).padStart(3, "0")}.ts`, `export const v${i} = ${i * 2}; // iteration 2\n${"x".repeat(2000)}\n`);
  for (let i = 0; i < 20; i++) fs.rmSync(path.join(dir, `docs/page-${i}.md`));
  for (let i = 0; i < 40; i++) write(dir, `src/new/feature-${i}.ts`, `export const f${i} = true;\n`);
  writeHistory(dir, [iteration(1), iteration(2)], { status: "failed", error: "typecheck failed" });

  // The uninterrupted rollback, on a copy: what "after" is, and how long each phase takes.
  const reference = await copyProject(dir);
  const refState = copyDir(state);
  const done = await runCli(["battle", "rollback", TASK, "--iteration", "2", "--hard", "--yes", "--json", "--repo", reference], refState);
  expect(done.status, done.stderr).toBe(0);
  const m = done.milestones;
  template = {
    dir,
    state,
    before: battleState(dir),
    after: battleState(reference),
    timing: {
      run: m.exit,
      backupWriting: (m.applying ?? m.exit) - (m.backup ?? 0),
      applying: (m.done ?? m.exit) - (m.applying ?? m.exit),
    },
  };
  expect(template.after).not.toEqual(template.before);
}, 180_000);

const kills = [...FIXED_KILLS, ...randomKills(SEED, TRIALS)];

describe("battle rollback, SIGKILLed: all before or all after", () => {
  for (const kill of kills) {
    it(`${kill.name} (CRASH_SEED=${SEED})`, async () => {
      const dir = await copyProject(template.dir);
      const state = copyDir(template.state);
      const { plan } = killPlanFor(kill, template.timing, 20);
      const killed = await runCli(["battle", "rollback", TASK, "--iteration", "2", "--hard", "--yes", "--repo", dir], state, plan);
      // The next command on the battle settles what the kill left.
      const status = await runSettled(["battle", "status", TASK, "--repo", dir, "--json"], state);
      expect([0, 1], status.stderr).toContain(status.status);
      const now = battleState(dir);
      const rolledBack = sidecarRollbacks(dir);
      if (process.env.CRASH_VERBOSE) console.log(kill.name, { killedAt: killed.killedAt, killed: killed.killed, milestones: killed.milestones, rolledBack });
      if (rolledBack === 0) {
        expect(now, `killed at ${killed.killedAt?.toFixed(1)} ms: neither before nor after`).toEqual(template.before);
        return;
      }
      expect(now, `killed at ${killed.killedAt?.toFixed(1)} ms: the sidecar says rolled back, the files do not`).toEqual(template.after);
      // And the rollback undoes, byte for byte, whatever moment it was cut at.
      const undo = await runSettled(["battle", "rollback", TASK, "--undo", "--yes", "--json", "--repo", dir], state);
      expect(undo.status, undo.stderr).toBe(0);
      expect((parseJsonDocument(undo.stdout) as { undoes: string }).undoes).toMatch(/^\d{8}T\d{6}Z-[0-9a-f]{6}$/);
      expect(battleState(dir)).toEqual(template.before);
      expect(fs.readdirSync(backupRootOf(state)).length).toBe(2);
    }, 60_000);
  }
});
