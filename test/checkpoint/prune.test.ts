// The spec's retention policy (keep the newest 10; beyond them drop what is older than 7 days; keep failed and
// successful younger ones), as a pure function and on real refs and a real sidecar, dry run first.
import fs from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { createCheckpoint } from "../../src/checkpoint/create.js";
import { createRef } from "../../src/checkpoint/git-snapshot.js";
import { listCheckpoints } from "../../src/checkpoint/list.js";
import { applyPrune, DAY_MS, DEFAULT_RETENTION, planPrune, selectForRemoval, type Retainable } from "../../src/checkpoint/prune.js";
import { parseJsonDocument, run } from "../cli/run.js";
import { battleFile, builtOnce, commitAt, feedback, gitIn, makeProject, stateDir, TASK, write, writeHistory } from "../support/git-repo.js";

const NOW = Date.parse("2026-03-01T12:00:00.000Z");
const daysAgo = (d: number) => new Date(NOW - d * DAY_MS).toISOString();
const cp = (id: string, ageDays: number, passed?: boolean): Retainable => ({
  id,
  time: daysAgo(ageDays),
  ...(passed === undefined ? {} : { feedback: feedback({ test: passed }) }),
});
const ids = (list: Retainable[]) => list.map((c) => c.id).sort();

describe("selectForRemoval: the spec's cleanupCheckpoints, step for step", () => {
  it("defaults are the spec's: 10 checkpoints, 7 days, keep failed, keep successful", () => {
    expect(DEFAULT_RETENTION).toEqual({ maxCheckpoints: 10, maxAgeMs: 7 * DAY_MS, keepFailed: true, keepSuccessful: true });
  });

  it("the newest 10 stay whatever their age; beyond them, older than 7 days go, younger ones stay", () => {
    // 14 checkpoints: ages 0..13 days, alternating passed/failed, plus one with no feedback.
    const all = Array.from({ length: 14 }, (_, i) => cp(`c${i}`, i, i % 2 === 0));
    all.push(cp("nofeedback", 30));
    const removed = selectForRemoval(all, DEFAULT_RETENTION, NOW);
    // Newest 10 = ages 0..9; beyond: 10, 11, 12, 13, 30 days, all older than 7 days.
    expect(ids(removed)).toEqual(["c10", "c11", "c12", "c13", "nofeedback"]);
  });

  it("old checkpoints within the newest 10 are kept", () => {
    const all = Array.from({ length: 10 }, (_, i) => cp(`c${i}`, 100 + i, false));
    expect(selectForRemoval(all, DEFAULT_RETENTION, NOW)).toEqual([]);
  });

  it("beyond the newest 10, the keep flags protect young checkpoints only: the age test comes first", () => {
    const young = Array.from({ length: 10 }, (_, i) => cp(`young${i}`, i * 0.1, true));
    const all = [...young, cp("failedYoung", 3, false), cp("passedYoung", 3, true), cp("failedOld", 8, false), cp("passedOld", 8, true)];
    expect(ids(selectForRemoval(all, DEFAULT_RETENTION, NOW))).toEqual(["failedOld", "passedOld"]);
    expect(ids(selectForRemoval(all, { ...DEFAULT_RETENTION, keepFailed: false }, NOW))).toEqual(["failedOld", "failedYoung", "passedOld"]);
    expect(ids(selectForRemoval(all, { ...DEFAULT_RETENTION, keepSuccessful: false }, NOW))).toEqual(["failedOld", "passedOld", "passedYoung"]);
    // No feedback counts as successful ("every" over nothing), as in the spec.
    const none = [...young, cp("noFeedbackYoung", 3)];
    expect(ids(selectForRemoval(none, { ...DEFAULT_RETENTION, keepSuccessful: false }, NOW))).toEqual(["noFeedbackYoung"]);
    expect(ids(selectForRemoval(none, { ...DEFAULT_RETENTION, keepFailed: false }, NOW))).toEqual([]);
  });

  it("a smaller count or age narrows what stays", () => {
    const all = [cp("a", 0), cp("b", 2), cp("c", 4), cp("d", 6)];
    expect(ids(selectForRemoval(all, { ...DEFAULT_RETENTION, maxCheckpoints: 1, maxAgeMs: 3 * DAY_MS }, NOW))).toEqual(["c", "d"]);
    // "older than" is strict, as in the spec: one taken this very millisecond is not older than 0 ms.
    expect(ids(selectForRemoval(all, { ...DEFAULT_RETENTION, maxCheckpoints: 0, maxAgeMs: 0 }, NOW))).toEqual(["b", "c", "d"]);
  });
});

/** 13 recorded checkpoints aged 20, 19, … 8 days, then 2 fresh ones: 15 in all. */
const agedCheckpoints = builtOnce(buildAgedCheckpoints);
beforeAll(() => agedCheckpoints.prepare(), 120_000);

async function buildAgedCheckpoints() {
  const project = await makeProject({ clean: true });
  const state = stateDir();
  const created = [];
  for (let age = 20; age >= 8; age--) {
    write(project.dir, "src/index.ts", `// state ${age} days ago\n`);
    created.push((await createCheckpoint(project.dir, { taskId: TASK, stateDir: state, now: () => new Date(NOW - age * DAY_MS) })).checkpoint);
  }
  for (const age of [1, 0]) {
    write(project.dir, "src/index.ts", `// state ${age} days ago\n`);
    created.push((await createCheckpoint(project.dir, { taskId: TASK, stateDir: state, now: () => new Date(NOW - age * DAY_MS) })).checkpoint);
  }
  return { ...project, state, created };
}

const refsOf = async (dir: string) => (await gitIn(dir).raw(["for-each-ref", "--format=%(refname)", "refs/pokeralph/"])).trim().split("\n").filter(Boolean);

describe("planPrune / applyPrune on real refs and a real sidecar", () => {
  it("dry run (the plan) changes nothing; applying drops exactly the planned entries and refs", async () => {
    const { dir, state, created } = await agedCheckpoints();
    const sidecarFile = battleFile(dir, "checkpoints.json");
    const sidecarBytes = fs.readFileSync(sidecarFile);
    const refsBefore = await refsOf(dir);
    expect(refsBefore).toHaveLength(15);

    const plan = await planPrune(dir, TASK, DEFAULT_RETENTION, NOW);
    // Newest 10 = the 2 fresh + ages 8..15; beyond: ages 16..20, all older than 7 days.
    const expected = created.slice(0, 5);
    expect(plan.remove.map((c) => c.id).sort()).toEqual(expected.map((c) => c.id).sort());
    expect(plan.keep).toHaveLength(10);
    expect(fs.readFileSync(sidecarFile).equals(sidecarBytes)).toBe(true);
    expect(await refsOf(dir)).toEqual(refsBefore);

    const result = await applyPrune(dir, plan, state);
    expect(result.refsLeft).toEqual([]);
    const refsAfter = await refsOf(dir);
    expect(refsAfter.sort()).toEqual(refsBefore.filter((r) => !expected.some((c) => c.ref === r)).sort());
    const listing = await listCheckpoints(dir, TASK);
    expect(listing.checkpoints.map((c) => c.id).sort()).toEqual(
      created
        .slice(5)
        .map((c) => c.id)
        .sort(),
    );
    // The pruned commits are unreferenced now: git gc may take them.
    for (const c of expected) expect(await gitIn(dir).raw(["branch", "--all", "--contains", c.commit])).toBe("");

    // Nothing more to prune.
    expect((await planPrune(dir, TASK, DEFAULT_RETENTION, NOW)).remove).toEqual([]);
  });

  it("inferred checkpoints (the user's own commits) are never pruned; ref-only ones are", async () => {
    const { dir, git } = await makeProject({ clean: true });
    write(dir, "src/auth/jwt.ts", "export const sign = () => '';\n");
    const battleCommit = await commitAt(dir, "[PokéRalph] 002-auth-system: JWT authentication middleware", "2026-02-04T14:10:12Z");
    writeHistory(dir, [{ number: 1, startedAt: "2026-02-04T14:00:03.530Z", endedAt: "2026-02-04T14:11:48.077Z", result: "success", commitHash: battleCommit }]);
    await createRef({ root: dir }, `refs/pokeralph/checkpoints/${TASK}/5`, battleCommit, "test");
    const plan = await planPrune(dir, TASK, { ...DEFAULT_RETENTION, maxCheckpoints: 0, maxAgeMs: 0 }, Date.now() + DAY_MS);
    expect(plan.inferred).toBe(2);
    expect(plan.remove.map((c) => c.via)).toEqual(["ref-only"]);
    await applyPrune(dir, plan, stateDir());
    expect(await refsOf(dir)).toEqual([]);
    expect((await git.raw(["rev-parse", "HEAD"])).trim()).toBe(battleCommit);
    expect((await listCheckpoints(dir, TASK)).checkpoints.map((c) => c.source)).toEqual(["inferred", "inferred"]);
  });

  it("never prunes what a rollback needs: the checkpoint before the battle and the newest passing one", async () => {
    const { dir } = await makeProject({ clean: true });
    const state = stateDir();
    const it_ = (n: number, passed: boolean) => ({
      number: n,
      startedAt: daysAgo(21 - n),
      endedAt: daysAgo(21 - n),
      result: passed ? ("success" as const) : ("failure" as const),
      feedbackResults: feedback({ test: passed }),
    });
    const take = async (afterIteration: number, age: number) => {
      write(dir, "src/index.ts", `// after iteration ${afterIteration}\n`);
      return (await createCheckpoint(dir, { taskId: TASK, stateDir: state, afterIteration, now: () => new Date(NOW - age * DAY_MS) })).checkpoint;
    };
    writeHistory(dir, [it_(1, true), it_(2, true), it_(3, false)]);
    const before = await take(0, 20);
    await take(1, 19);
    const lastGood = await take(2, 18);
    const failing = await take(3, 17);
    // The harshest policy: keep none for their rank, and anything older than a day goes.
    const policy = { ...DEFAULT_RETENTION, maxCheckpoints: 0, maxAgeMs: DAY_MS };
    const plan = await planPrune(dir, TASK, policy, NOW);
    expect(plan.remove.map((c) => c.afterIteration).sort()).toEqual([1, 3]);
    expect(plan.spared.map((s) => [s.checkpoint.id, s.why])).toEqual([
      [before.id, "the state before the battle (rollback --full)"],
      [lastGood.id, "the newest passing checkpoint"],
    ]);
    await applyPrune(dir, plan, state);
    expect((await refsOf(dir)).sort()).toEqual([before.ref, lastGood.ref].sort());
    expect(failing.ref).toBeDefined();
    // The CLI says what it kept and why.
    const cli = await run(["checkpoint", "prune", TASK, "--older-than", "0", "--keep", "0", "--yes", "--json"], { cwd: dir, env: { XDG_STATE_HOME: state } });
    expect(cli.status, cli.stderr).toBe(0);
    const doc = parseJsonDocument(cli.stdout) as { pruned: unknown[]; spared: { id: string; afterIteration: number }[] };
    expect(doc.pruned).toEqual([]);
    expect(doc.spared.map((s) => s.afterIteration)).toEqual([0, 2]);
  });

  it("a ref someone moved since the plan is left alone", async () => {
    const { dir, created, state } = await agedCheckpoints();
    const plan = await planPrune(dir, TASK, DEFAULT_RETENTION, NOW);
    const moved = plan.remove[0]!;
    await gitIn(dir).raw(["update-ref", moved.ref!, created.at(-1)!.commit]);
    const result = await applyPrune(dir, plan, state);
    expect(result.refsLeft).toEqual([moved.ref]);
    expect(await refsOf(dir)).toContain(moved.ref);
  });
});
