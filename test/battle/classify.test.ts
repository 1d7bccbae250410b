// Failure classification and findings for each battle scenario, on real git repositories with `.pokeralph/` trees
// written the way pokeralph writes them. The pokeralph server is injected (its HTTP side is server-probe.test.ts).
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { assessBattles, type BattleAssessment, type RepoAssessment } from "../../src/battle/assess.js";
import type { ServerAnswer, ServerProbe } from "../../src/battle/server-probe.js";
import {
  completedBattle,
  crashedBattle,
  cancelledBattle,
  createPokeralphRepo,
  failedFeedbackBattle,
  HOUR,
  iso,
  iteration,
  MINUTE,
  kitchenSinkRepo,
  progress,
  removeFixture,
  rewrittenCommitBattle,
  runningBattle,
  SECOND,
  staleArtefacts,
  TASKS,
  timeoutBattle,
  writeBattle,
  type PokeralphFixture,
} from "../support/pokeralph-fixtures.js";

const fixtures: PokeralphFixture[] = [];
afterAll(() => fixtures.forEach(removeFixture));

async function repo(): Promise<PokeralphFixture> {
  const fx = await createPokeralphRepo();
  fixtures.push(fx);
  return fx;
}

const URL = "http://localhost:3456/api/battle/current";
const absent: ServerProbe = async () => ({ kind: "absent", url: URL, detail: "connection refused" });
const answering =
  (answer: ServerAnswer): ServerProbe =>
  async () =>
    answer;

async function assess(fx: PokeralphFixture, probe: ServerProbe = absent, taskId?: string): Promise<RepoAssessment> {
  return assessBattles({ cwd: fx.root, env: {}, now: fx.now, probe, ...(taskId ? { taskId } : {}) });
}

function battle(result: RepoAssessment, taskId: string): BattleAssessment {
  const found = result.battles.find((b) => b.taskId === taskId);
  expect(found, `battle ${taskId}`).toBeDefined();
  return found!;
}

const rules = (b: { findings: { rule: string }[] }) => b.findings.map((f) => f.rule);

describe("the kitchen-sink repository: every scenario at once", async () => {
  const { fx, scenarios } = await kitchenSinkRepo();
  fixtures.push(fx);
  const result = await assess(fx);

  it("lists every battle in task order with its status", () => {
    expect(result.battles.map((b) => [b.taskId, b.status])).toEqual([
      ["001-project-setup", "completed"],
      ["002-auth-system", "running"],
      ["003-invoice-pdf", "failed"],
      ["004-rate-limiting", "failed"],
      ["005-email-notifications", "cancelled"],
      ["007-audit-log", "paused"],
    ]);
    expect(result.findings).toEqual([]);
    expect(result.server).toMatchObject({ kind: "absent" });
    expect(result.git.available).toBe(true);
  });

  it("crashed (running, stale progress, no server): crash, recoverable, restart, iteration 4 in flight", () => {
    const b = battle(result, scenarios.crashed!.taskId);
    expect(b.failure).toMatchObject({ type: "crash", recoverable: true, suggestedAction: "restart", iteration: 4 });
    expect(b.failure!.message).toMatch(
      /^pokeralph stopped during iteration 4: history.json still says running; no pokeralph server answers at .* and progress is stale/,
    );
    expect(b.failure!.details).toBe("last output: Editing src/auth/middleware.ts");
    expect(b.liveness.state).toBe("crashed");
    expect(rules(b)).toEqual(["battle-crashed"]);
    expect(b.findings[0]).toMatchObject({ severity: "error", path: ".pokeralph/battles/002-auth-system/history.json", iteration: 4 });
  });

  it("crashed: its commits, recorded (iteration 2) and made by Claude itself (iteration 1, found by subject)", () => {
    const b = battle(result, scenarios.crashed!.taskId);
    expect(b.commits).toEqual([
      {
        hash: scenarios.crashed!.commits.claude,
        source: "log",
        iteration: 1,
        subject: "[PokéRalph] 002-auth-system: JWT authentication middleware",
        time: expect.any(String),
        exists: true,
        inHead: true,
      },
      {
        hash: scenarios.crashed!.commits.iteration2,
        source: "recorded",
        iteration: 2,
        subject: "[PokéRalph] 002-auth-system: JWT authentication middleware",
        time: expect.any(String),
        exists: true,
        inHead: true,
      },
    ]);
  });

  it("failed feedback loop: feedback_failure naming the loop, with its output", () => {
    const b = battle(result, scenarios.failedFeedback!.taskId);
    expect(b.failure).toMatchObject({
      type: "feedback_failure",
      recoverable: true,
      suggestedAction: "retry_iteration",
      iteration: 3,
      message: "Feedback loop 'test' failed",
    });
    expect(b.failure!.details).toContain("Snapshot mismatch: font 'Inter' not found");
    expect(b.failure!.timestamp).toBe((b.battle.history.value as { completedAt: string }).completedAt);
    expect(rules(b)).toEqual(["battle-failed"]);
  });

  it("completed: no failure, no finding, its commit in HEAD", () => {
    const b = battle(result, scenarios.completed!.taskId);
    expect(b.failure).toBeNull();
    expect(b.liveness.state).toBe("idle");
    expect(b.findings).toEqual([]);
    expect(b.commits).toMatchObject([{ hash: scenarios.completed!.commits.iteration2, source: "recorded", iteration: 2, inHead: true }]);
  });

  it("cancelled: cancellation (restart), a warning only", () => {
    const b = battle(result, scenarios.cancelled!.taskId);
    expect(b.failure).toMatchObject({ type: "cancellation", recoverable: true, suggestedAction: "restart", iteration: 2, message: "Cancelled by user" });
    expect(b.findings).toMatchObject([{ rule: "battle-cancelled", severity: "warning" }]);
  });

  it("timeout: the claude timeout wins over the error Claude wrote before hanging", () => {
    const b = battle(result, scenarios.timeout!.taskId);
    expect(b.failure).toMatchObject({ type: "timeout", recoverable: true, suggestedAction: "retry_iteration", iteration: 2, message: "Iteration timed out" });
    expect(b.failure!.details).toContain("Claude execution timed out");
    expect(rules(b)).toEqual(["battle-failed"]);
  });

  it("a commit reset away and a commit that never existed: two errors on a paused battle", () => {
    const b = battle(result, scenarios.rewritten!.taskId);
    expect(b.failure).toBeNull();
    expect(b.findings).toMatchObject([
      { rule: "commit-not-ancestor", severity: "error", iteration: 1, commit: scenarios.rewritten!.commits.resetAway },
      { rule: "commit-missing", severity: "error", iteration: 2, commit: scenarios.rewritten!.commits.ghost },
    ]);
    expect(b.commits).toMatchObject([
      { source: "recorded", iteration: 1, exists: true, inHead: false },
      { source: "recorded", iteration: 2, exists: false, inHead: null },
    ]);
  });
});

describe("running or awaiting approval: live or crashed", () => {
  it("a pokeralph server for this repository running the battle: not a crash, even with stale progress", async () => {
    const fx = await repo();
    const s = await crashedBattle(fx);
    const result = await assess(fx, answering({ kind: "live", url: URL, current: { taskId: s.taskId, status: "running", iteration: 4 } }));
    const b = battle(result, s.taskId);
    expect(b.failure).toBeNull();
    expect(b.liveness).toEqual({ state: "live", detail: `pokeralph at ${URL} is running it` });
    expect(b.findings).toEqual([]);
  });

  it("a server that answers but runs another battle (or none) will not finish this one: crash, even with fresh progress", async () => {
    const fx = await repo();
    const s = await runningBattle(fx);
    for (const current of [null, { taskId: "003-invoice-pdf" }]) {
      const b = battle(await assess(fx, answering({ kind: "live", url: URL, current })), s.taskId);
      expect(b.failure).toMatchObject({ type: "crash", iteration: 2 });
      expect(b.failure!.message).toContain(current ? "runs 003-invoice-pdf" : "runs no battle");
    }
  });

  it("no server but progress written 30 s ago: unconfirmed (a warning), not a crash", async () => {
    const fx = await repo();
    const s = await runningBattle(fx);
    const b = battle(await assess(fx), s.taskId);
    expect(b.failure).toBeNull();
    expect(b.liveness).toMatchObject({ state: "unconfirmed", lastActivity: iso(fx.now - 30 * SECOND) });
    expect(b.findings).toMatchObject([{ rule: "battle-unconfirmed", severity: "warning" }]);
  });

  it("progress stays fresh for 35 minutes (a claude run plus a feedback loop), stale after", async () => {
    const fx = await repo();
    const fresh = await runningBattle(fx, { lastUpdateAgo: 34 * MINUTE });
    expect(battle(await assess(fx), fresh.taskId).failure).toBeNull();
    const fx2 = await repo();
    const stale = await runningBattle(fx2, { lastUpdateAgo: 36 * MINUTE });
    expect(battle(await assess(fx2), stale.taskId).failure).toMatchObject({ type: "crash" });
  });

  it("fresh progress but a write cut short a while ago, and no server: crash", async () => {
    const fx = await repo();
    const s = await runningBattle(fx);
    staleArtefacts(fx, s.taskId, { age: 10 * MINUTE });
    const b = battle(await assess(fx), s.taskId);
    expect(b.failure).toMatchObject({ type: "crash" });
    expect(b.failure!.message).toMatch(/a write was cut short \(history\.json\.lock, progress\.json\.tmp\./);
  });

  it("a server on another repository does not count", async () => {
    const fx = await repo();
    const s = await crashedBattle(fx);
    const b = battle(await assess(fx, answering({ kind: "other-repo", url: URL, workingDir: "/elsewhere" })), s.taskId);
    expect(b.failure).toMatchObject({ type: "crash" });
    expect(b.failure!.message).toContain("works on /elsewhere");
  });

  it("a server still starting (503) proves nothing either way: unconfirmed", async () => {
    const fx = await repo();
    const s = await crashedBattle(fx);
    const b = battle(await assess(fx, answering({ kind: "unknown", url: URL, detail: "pokeralph answered 503 (still starting)" })), s.taskId);
    expect(b.failure).toBeNull();
    expect(rules(b)).toEqual(["battle-unconfirmed"]);
  });

  it("awaiting approval with no server: a crash after the last recorded iteration", async () => {
    const fx = await repo();
    const s = await crashedBattle(fx, { status: "awaiting_approval" });
    const b = battle(await assess(fx), s.taskId);
    expect(b.failure).toMatchObject({ type: "crash", iteration: 3 });
    expect(b.failure!.message).toMatch(/^pokeralph stopped while awaiting approval after iteration 3: history.json still says awaiting_approval/);
  });

  it("the server is only asked when a battle claims to run", async () => {
    const fx = await repo();
    await completedBattle(fx);
    let asked = 0;
    const result = await assess(fx, async () => {
      asked++;
      return { kind: "absent", url: URL, detail: "" };
    });
    expect(asked).toBe(0);
    expect(result.server).toBeNull();
  });
});

describe("failed battles: the type from the evidence", () => {
  async function failed(fx: PokeralphFixture, error: string | undefined, last: Parameters<typeof iteration>[0]) {
    const taskId = TASKS.refunds.id;
    const t0 = fx.now - 3 * HOUR;
    writeBattle(fx, taskId, {
      history: {
        taskId,
        status: "failed",
        startedAt: iso(t0),
        iterations: [iteration(last)],
        completedAt: iso(t0 + 40 * MINUTE),
        durationMs: 40 * MINUTE,
        ...(error ? { error } : {}),
      },
      progress: progress(taskId, { currentIteration: 1, status: "failed", lastUpdate: iso(t0 + 40 * MINUTE), error: error ?? null }),
      logs: { 1: "output\n" },
    });
    return battle(await assess(fx), taskId);
  }
  const base = { number: 1, start: Date.now() - 3 * HOUR, minutes: 30, output: "…", filesChanged: ["src/refunds.ts"] };
  const passing = { test: [true, "ok"], lint: [true, "ok"] } as Record<string, [boolean, string]>;

  it("disk full: system_error, not recoverable, manual resolution only", async () => {
    const b = await failed(await repo(), "ENOSPC: no space left on device, write '.pokeralph/battles/008-refunds/history.json'", {
      ...base,
      result: "failure",
      feedback: passing,
    });
    expect(b.failure).toMatchObject({ type: "system_error", recoverable: false, suggestedAction: "manual_resolution" });
  });

  it("claude exited non-zero with feedback passing: claude_error, retryable", async () => {
    const b = await failed(await repo(), "Claude reported an API overload", { ...base, result: "failure", feedback: passing });
    expect(b.failure).toMatchObject({ type: "claude_error", recoverable: true, suggestedAction: "retry_iteration" });
  });

  it("claude could not be started: claude_error, not retryable", async () => {
    const b = await failed(await repo(), "Claude could not run", { ...base, result: "failure", error: "spawn claude ENOENT" });
    expect(b.failure).toMatchObject({ type: "claude_error", recoverable: false, suggestedAction: "manual_resolution", message: "spawn claude ENOENT" });
  });

  it("max iterations reached with the last one passing: claude_error (it never declared completion)", async () => {
    const b = await failed(await repo(), "Maximum iterations (8) reached without completion", { ...base, result: "success", feedback: passing });
    expect(b.failure).toMatchObject({ type: "claude_error", recoverable: true, message: "Maximum iterations (8) reached without completion" });
  });

  it("nothing identifies it: the spec's fallback, system_error", async () => {
    const b = await failed(await repo(), "something odd", { ...base, result: "success" });
    expect(b.failure).toMatchObject({ type: "system_error", recoverable: false, message: "something odd" });
  });
});

describe("files and leftovers", () => {
  it("stale lock, temp and patch files are warnings; fresh ones are a write in progress", async () => {
    const fx = await repo();
    const s = await completedBattle(fx);
    staleArtefacts(fx, s.taskId);
    const result = await assess(fx);
    expect(rules(result)).toEqual(["stale-temp-file", "stale-lock"]);
    expect(result.findings.map((f) => f.path)).toEqual([expect.stringMatching(/^\.pokeralph\/\.patch-temp-\d+$/), ".pokeralph/prd.json.lock"]);
    const b = battle(result, s.taskId);
    expect(b.findings).toMatchObject([
      {
        rule: "stale-lock",
        severity: "warning",
        path: ".pokeralph/battles/001-project-setup/history.json.lock",
        message: expect.stringMatching(/lock on history\.json taken 2 h ago by process 48213/),
      },
      { rule: "stale-temp-file", severity: "warning", path: expect.stringMatching(/progress\.json\.tmp\./) },
    ]);
    expect(b.failure).toBeNull();

    const fx2 = await repo();
    const s2 = await completedBattle(fx2);
    staleArtefacts(fx2, s2.taskId, { age: 5 * SECOND });
    const fresh = await assess(fx2);
    expect(fresh.findings).toEqual([]);
    expect(battle(fresh, s2.taskId).findings).toEqual([]);
  });

  it("a torn history.json is an invalid-file error on that battle; the others are still assessed", async () => {
    const fx = await repo();
    const torn = await failedFeedbackBattle(fx);
    const ok = await completedBattle(fx);
    const text = fs.readFileSync(torn.historyPath, "utf8");
    fs.writeFileSync(torn.historyPath, text.slice(0, text.length / 2));
    const result = await assess(fx);
    const b = battle(result, torn.taskId);
    expect(b.status).toBeNull();
    expect(b.failure).toBeNull();
    expect(b.findings).toMatchObject([
      {
        rule: "invalid-file",
        severity: "error",
        path: ".pokeralph/battles/003-invoice-pdf/history.json",
        message: expect.stringMatching(/torn write.*pokeralph cannot load this battle/),
      },
    ]);
    expect(battle(result, ok.taskId).findings).toEqual([]);
  });

  it("history.json with an offset timestamp: pokeralph rejects it, so do we", async () => {
    const fx = await repo();
    const s = await completedBattle(fx);
    const history = JSON.parse(fs.readFileSync(s.historyPath, "utf8")) as Record<string, unknown>;
    history.startedAt = "2026-02-04T16:00:03+02:00";
    fs.writeFileSync(s.historyPath, JSON.stringify(history, null, 2));
    const b = battle(await assess(fx), s.taskId);
    expect(b.findings).toMatchObject([{ rule: "invalid-file", message: expect.stringMatching(/^pokeralph would reject it: startedAt: /) }]);
  });

  it("config.json and prd.json: missing is a warning, invalid an error", async () => {
    const fx = await repo();
    await completedBattle(fx);
    fs.rmSync(path.join(fx.dir, "config.json"));
    fs.writeFileSync(path.join(fx.dir, "prd.json"), '{"name": ""}');
    const result = await assess(fx);
    expect(result.findings).toMatchObject([
      { rule: "missing-file", severity: "warning", path: ".pokeralph/config.json" },
      { rule: "invalid-file", severity: "error", path: ".pokeralph/prd.json" },
    ]);
    expect(result.config.maxIterationsPerTask).toBe(10); // pokeralph's defaults stand in
  });

  it("log missing, spec-named .log, iteration gap, task id mismatches, a battle not in the PRD", async () => {
    const fx = await repo();
    const s = await completedBattle(fx);
    fs.rmSync(path.join(s.dir, "logs", "iteration-1.txt"));
    fs.renameSync(path.join(s.dir, "logs", "iteration-2.txt"), path.join(s.dir, "logs", "iteration-3.log"));
    const history = JSON.parse(fs.readFileSync(s.historyPath, "utf8")) as { taskId: string; iterations: { number: number }[] };
    history.taskId = "001-other";
    history.iterations[1]!.number = 3;
    fs.writeFileSync(s.historyPath, JSON.stringify(history, null, 2));
    fs.cpSync(s.dir, path.join(fx.dir, "battles", "099-stray"), { recursive: true });
    const result = await assess(fx);
    expect(rules(battle(result, s.taskId))).toEqual(["task-id-mismatch", "iteration-sequence", "log-missing", "log-missing"]);
    expect(battle(result, s.taskId).findings[3]!.message).toContain("only iteration-3.log");
    expect(rules(battle(result, "099-stray"))).toContain("task-not-in-prd");
  });

  it("outside a git work tree, recorded commits cannot be checked: one warning, nothing else breaks", async () => {
    const fx = await repo();
    await completedBattle(fx);
    fs.rmSync(path.join(fx.root, ".git"), { recursive: true });
    const result = await assess(fx);
    expect(result.git.available).toBe(false);
    expect(result.findings).toMatchObject([{ rule: "git-unavailable", severity: "warning" }]);
    expect(result.battles[0]!.findings).toEqual([]);
  });

  it("a completed battle whose commit left HEAD's history (squash-merge, reset): a warning, not an error", async () => {
    const fx = await repo();
    const s = await completedBattle(fx);
    await fx.git.raw(["reset", "--hard", "HEAD~1"]);
    const b = battle(await assess(fx), s.taskId);
    expect(b.findings).toMatchObject([{ rule: "commit-off-head", severity: "warning", commit: s.commits.iteration2 }]);
  });

  it("a battle folder without history.json: status unknown, a warning", async () => {
    const fx = await repo();
    fs.mkdirSync(path.join(fx.dir, "battles", TASKS.refunds.id, "logs"), { recursive: true });
    const b = battle(await assess(fx), TASKS.refunds.id);
    expect(b.status).toBeNull();
    expect(b.findings).toMatchObject([{ rule: "missing-file", severity: "warning" }]);
  });

  it("an odd battle folder name is reported, not a reason to stop", async () => {
    const fx = await repo();
    const s = await completedBattle(fx);
    fs.cpSync(s.dir, path.join(fx.dir, "battles", "001-project-setup..old"), { recursive: true });
    const result = await assess(fx);
    expect(result.battles.map((b) => b.taskId)).toEqual(["001-project-setup", "001-project-setup..old"]);
    expect(rules(battle(result, "001-project-setup..old"))).toEqual(["task-id-mismatch", "task-id-mismatch", "task-not-in-prd"]);
  });

  it("one battle by id prefix; the rest are not read", async () => {
    const fx = await repo();
    await completedBattle(fx);
    await cancelledBattle(fx);
    await timeoutBattle(fx);
    await rewrittenCommitBattle(fx);
    const result = await assess(fx, absent, "005");
    expect(result.battles.map((b) => b.taskId)).toEqual(["005-email-notifications"]);
  });
});
