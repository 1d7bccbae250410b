// checkpoint list on a realistic battle: commits made by Claude itself ("[PokéRalph] <taskId>: …", no commitHash),
// by the orchestrator (commitHash recorded), a failed iteration that left no commit, other tasks' and the user's
// commits in between; recorded checkpoints from the sidecar and refs; and commits that vanished.
import fs from "node:fs";
import { exitCodeOf } from "../../src/cli/exit-codes.js";
import { beforeAll, describe, expect, it } from "vitest";
import { createCheckpoint } from "../../src/checkpoint/create.js";
import { createRef } from "../../src/checkpoint/git-snapshot.js";
import { listCheckpoints } from "../../src/checkpoint/list.js";
import { RecoverError } from "../../src/errors.js";
import { parseJsonDocument, run } from "../cli/run.js";
import { battleFile, builtOnce, commitAt, feedback, gitIn, makeProject, stateDir, TASK, write, writeHistory } from "../support/git-repo.js";

const ALL_PASS = feedback({ test: true, lint: true, typecheck: true });
const TYPECHECK_FAILS = feedback({ test: true, lint: true, typecheck: false });

/** The battle of the reference (§1.8): iterations 1 and 2 committed, 3 failed typecheck, 4 in flight when it crashed. */
/** Built once per file (see builtOnce); each test gets its own copy. */
const battle = builtOnce(buildBattle);
beforeAll(() => battle.prepare(), 120_000);

async function buildBattle() {
  const project = await makeProject({ clean: true });
  const { dir } = project;
  write(dir, "src/setup.ts", "export const setup = true;\n");
  const otherTask = await commitAt(dir, "[PokéRalph] 001-project-setup: Project setup with Bun workspaces", "2026-02-03T10:02:00Z");
  write(dir, "src/auth/jwt.ts", "export const sign = (p: object) => JSON.stringify(p);\n");
  const byClaude = await commitAt(dir, "[PokéRalph] 002-auth-system: JWT authentication middleware", "2026-02-04T14:10:12Z");
  write(dir, "src/routes/invoices.ts", "export const app = { protected: true };\n");
  const byOrchestrator = await commitAt(dir, "[PokéRalph] 002-auth-system: JWT authentication middleware", "2026-02-04T14:24:29Z");
  write(dir, "README.md", "# Invoice Service (typo fixed)\n");
  const byUser = await commitAt(dir, "Fix README typo", "2026-02-04T14:30:00Z");
  write(dir, "src/auth/expiry.ts", "export const isExpired = (exp: number) => exp <= Date.now() / 1000;\n");
  writeHistory(dir, [
    {
      number: 1,
      startedAt: "2026-02-04T14:00:03.530Z",
      endedAt: "2026-02-04T14:11:48.077Z",
      result: "success",
      filesChanged: [`.pokeralph/battles/${TASK}/progress.json`],
      feedbackResults: ALL_PASS,
    },
    {
      number: 2,
      startedAt: "2026-02-04T14:11:48.201Z",
      endedAt: "2026-02-04T14:24:30.664Z",
      result: "success",
      filesChanged: ["src/routes/invoices.ts", "src/auth/middleware.ts", "tests/auth.test.ts"],
      commitHash: byOrchestrator,
      feedbackResults: ALL_PASS,
    },
    {
      number: 3,
      startedAt: "2026-02-04T14:24:30.790Z",
      endedAt: "2026-02-04T14:38:12.015Z",
      result: "failure",
      filesChanged: ["src/auth/middleware.ts", "src/auth/expiry.ts"],
      feedbackResults: TYPECHECK_FAILS,
    },
  ]);
  return { ...project, otherTask, byClaude, byOrchestrator, byUser };
}

describe("checkpoint list: inferred from history.json and the battle's commits when no sidecar exists", () => {
  it("before the battle, after iteration 1 (Claude's own commit), after iteration 2 (commitHash); not iteration 3", async () => {
    const b = await battle();
    const listing = await listCheckpoints(b.dir, TASK);
    expect(listing.checkpoints.map((c) => [c.afterIteration, c.commit, c.source, c.via])).toEqual([
      [0, b.otherTask, "inferred", "first-commit-parent"],
      [1, b.byClaude, "inferred", "commit-subject"],
      [2, b.byOrchestrator, "inferred", "commitHash"],
    ]);
    const [zero, one, two] = listing.checkpoints;
    expect(zero).toMatchObject({
      id: "inferred-0",
      time: "2026-02-04T14:00:03.402Z",
      description: "Before battle started",
      files: [],
      passed: null,
      battleId: `${TASK}@2026-02-04T14:00:03.402Z`,
    });
    expect(one).toMatchObject({ id: "inferred-1", time: "2026-02-04T14:11:48.077Z", description: "After iteration 1", passed: true, files: [] });
    expect(one!.feedback).toEqual(ALL_PASS);
    expect(two).toMatchObject({
      id: "inferred-2",
      description: "After iteration 2",
      files: ["src/routes/invoices.ts", "src/auth/middleware.ts", "tests/auth.test.ts"],
    });
    for (const c of listing.checkpoints) expect(c.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(listing.checkpoints.some((c) => c.missing)).toBe(false);
    expect(listing.notices.join("\n")).toMatch(/iteration 3 left no commit/);
  });

  it("a recorded commitHash the repository no longer holds, with nothing to stand in for it, is listed with missing: true", async () => {
    const b = await battle();
    const gone = "9f2c41d7a0b6e3c58d1f04a2b7e9c6d3a1f08e52";
    const history = JSON.parse(fs.readFileSync(battleFile(b.dir, "history.json"), "utf8"));
    history.iterations[1].commitHash = gone;
    // The battle's only other commit is iteration 3's: none is left over to have replaced iteration 2's.
    history.iterations[2].commitHash = b.byOrchestrator;
    fs.writeFileSync(battleFile(b.dir, "history.json"), JSON.stringify(history, null, 2));
    const listing = await listCheckpoints(b.dir, TASK);
    const two = listing.checkpoints.find((c) => c.afterIteration === 2)!;
    expect(two).toMatchObject({ commit: gone, missing: true, source: "inferred", via: "commitHash" });
    expect(listing.checkpoints.filter((c) => c.missing)).toHaveLength(1);
  });

  it("an iteration commit amended and pruned away: the commit that replaced it stands in (via replaced), and rollback uses it", async () => {
    const b = await battle();
    const git = gitIn(b.dir);
    // The user rewords iteration 2's commit (amend keeps the author time), then the old object is pruned.
    await git.raw(["reset", "--hard", "-q", b.byOrchestrator]);
    await git.raw([
      "-c",
      "user.name=Dana",
      "-c",
      "user.email=dana@example.com",
      "commit",
      "--amend",
      "-q",
      "-m",
      "[PokéRalph] 002-auth-system: JWT authentication middleware (reworded)",
    ]);
    const amended = (await git.raw(["rev-parse", "HEAD"])).trim();
    await git.raw(["reflog", "expire", "--expire=now", "--all"]);
    await git.raw(["gc", "-q", "--prune=now"]);
    expect(await git.raw(["cat-file", "-t", b.byOrchestrator]).catch(() => "gone")).toBe("gone");

    const listing = await listCheckpoints(b.dir, TASK);
    const two = listing.checkpoints.find((c) => c.afterIteration === 2)!;
    expect(two).toMatchObject({ commit: amended, source: "inferred", via: "replaced", replaces: b.byOrchestrator });
    expect(two.missing).toBeUndefined();
    expect(listing.notices.join("\n")).toContain(`${b.byOrchestrator.slice(0, 7)} is no longer in the repository`);
    // Iteration 1's own commit is not taken for it: it is iteration 1's checkpoint.
    expect(listing.checkpoints.find((c) => c.afterIteration === 1)!.commit).toBe(b.byClaude);

    // `battle rollback --iteration 3` goes back to it and says so.
    const env = { XDG_STATE_HOME: stateDir(), RECOVER_POKERALPH_URL: "http://127.0.0.1:9", PORT: undefined };
    const plan = await run(["battle", "rollback", TASK, "--iteration", "3", "--dry-run", "--json"], { cwd: b.dir, env });
    expect(plan.status, plan.stderr).toBe(1);
    expect((parseJsonDocument(plan.stdout) as { target: { commit: string } }).target.commit).toBe(amended);
    const human = await run(["battle", "rollback", TASK, "--iteration", "3", "--dry-run"], { cwd: b.dir, env });
    expect(human.stderr).toContain(
      `iteration 2's recorded commit ${b.byOrchestrator.slice(0, 7)} is no longer in the repository: rolling back to ${amended.slice(0, 7)}`,
    );
    // battle status reads the commits the same way: a warning naming the replacement, not a missing commit.
    const status = await run(["battle", "status", TASK, "--json"], { cwd: b.dir, env });
    const findings = (parseJsonDocument(status.stdout) as { battles: { findings: { rule: string; severity: string; message: string }[] }[] }).battles[0]!
      .findings;
    expect(findings.filter((f) => f.rule.startsWith("commit-")).map((f) => [f.rule, f.severity])).toEqual([["commit-replaced", "warning"]]);
    expect(findings.find((f) => f.rule === "commit-replaced")!.message).toContain(amended.slice(0, 12));
  });

  it("no battle commits at all: the initial checkpoint is where HEAD's branch stood when the battle started", async () => {
    const { dir, git } = await makeProject({ clean: true });
    const atStart = (await git.raw(["rev-parse", "HEAD"])).trim();
    write(dir, "README.md", "later\n");
    await commitAt(dir, "Unrelated later work", "2026-02-05T09:00:00Z");
    writeHistory(dir, [
      { number: 1, startedAt: "2026-02-04T14:00:03.530Z", endedAt: "2026-02-04T14:11:48.077Z", result: "failure", feedbackResults: TYPECHECK_FAILS },
    ]);
    const listing = await listCheckpoints(dir, TASK);
    expect(listing.checkpoints.map((c) => [c.afterIteration, c.commit, c.via])).toEqual([[0, atStart, "head-at-start"]]);
  });
});

describe("checkpoint list: recorded checkpoints, with inference filling the gaps", () => {
  it("sidecar entries are recorded; iterations they do not cover stay inferred", async () => {
    const b = await battle();
    const state = stateDir();
    const created = await createCheckpoint(b.dir, { taskId: TASK, stateDir: state });
    expect(created.checkpoint.afterIteration).toBe(3);
    expect(created.checkpoint.description).toBe("After iteration 3 (typecheck failed)");
    const listing = await listCheckpoints(b.dir, TASK);
    expect(listing.checkpoints.map((c) => [c.afterIteration, c.source])).toEqual([
      [0, "inferred"],
      [1, "inferred"],
      [2, "inferred"],
      [3, "recorded"],
    ]);
    const three = listing.checkpoints[3]!;
    expect(three).toMatchObject({
      id: created.checkpoint.id,
      commit: created.checkpoint.commit,
      ref: `refs/pokeralph/checkpoints/${TASK}/3`,
      passed: false,
      via: "sidecar",
    });
    expect(three.feedback).toEqual(TYPECHECK_FAILS);
    // Only the uncommitted work of iteration 3 differs from HEAD.
    expect(three.files).toEqual(["src/auth/expiry.ts"]);
  });

  it("a recorded checkpoint for an iteration replaces the inferred one", async () => {
    const b = await battle();
    await createCheckpoint(b.dir, { taskId: TASK, afterIteration: 2, stateDir: stateDir() });
    const listing = await listCheckpoints(b.dir, TASK);
    expect(listing.checkpoints.filter((c) => c.afterIteration === 2).map((c) => c.source)).toEqual(["recorded"]);
    expect(listing.notices.join("\n")).toMatch(/iteration 3 left no commit/);
  });

  it("a ref no sidecar entry names (a create interrupted before its sidecar write) is listed as recorded", async () => {
    const b = await battle();
    await createRef({ root: b.dir }, `refs/pokeralph/checkpoints/${TASK}/7`, b.byUser, "test");
    const listing = await listCheckpoints(b.dir, TASK);
    const orphan = listing.checkpoints.find((c) => c.via === "ref-only")!;
    expect(orphan).toMatchObject({ id: `refs/pokeralph/checkpoints/${TASK}/7`, afterIteration: 7, commit: b.byUser, source: "recorded", files: ["README.md"] });
    expect(orphan.description).toMatch(/ref only: not in checkpoints\.json/);
  });

  it("a sidecar entry whose commit is gone is listed with missing: true", async () => {
    const b = await battle();
    await createCheckpoint(b.dir, { taskId: TASK, stateDir: stateDir() });
    const file = battleFile(b.dir, "checkpoints.json");
    const sidecar = JSON.parse(fs.readFileSync(file, "utf8"));
    sidecar.checkpoints[0].commit = "0123456789abcdef0123456789abcdef01234567";
    sidecar.checkpoints[0].ref = `refs/pokeralph/checkpoints/${TASK}/3-9`;
    fs.writeFileSync(file, JSON.stringify(sidecar));
    const listing = await listCheckpoints(b.dir, TASK);
    const missing = listing.checkpoints.filter((c) => c.missing);
    expect(missing.map((c) => [c.afterIteration, c.source, c.commit])).toEqual([[3, "recorded", "0123456789abcdef0123456789abcdef01234567"]]);
  });
});

describe("checkpoint list: what it refuses and what it only notes", () => {
  it("an unknown task, or an id pokeralph would never make: exit 2", async () => {
    const { dir } = await makeProject({ clean: true });
    for (const id of ["003-billing", "../../etc", "Auth"]) {
      const error = (await listCheckpoints(dir, id).catch((e: unknown) => e)) as RecoverError;
      expect(error).toBeInstanceOf(RecoverError);
      expect(exitCodeOf(error)).toBe(2);
    }
  });

  it("a damaged history.json is noted; recorded checkpoints are still listed", async () => {
    const { dir } = await makeProject({ clean: true });
    await createCheckpoint(dir, { taskId: TASK, stateDir: stateDir() });
    fs.writeFileSync(battleFile(dir, "history.json"), '{"taskId": "002-auth-system", "iterations": [');
    const listing = await listCheckpoints(dir, TASK);
    expect(listing.checkpoints.map((c) => c.source)).toEqual(["recorded"]);
    expect(listing.notices.join("\n")).toMatch(/history\.json is not valid JSON/);
  });

  it("a damaged sidecar is an error (exit 2), not silently ignored", async () => {
    const { dir } = await makeProject({ clean: true });
    fs.writeFileSync(battleFile(dir, "checkpoints.json"), "{ not json");
    const error = (await listCheckpoints(dir, TASK).catch((e: unknown) => e)) as RecoverError;
    expect(error).toBeInstanceOf(RecoverError);
    expect(error.code).toBe("store-corrupt");
    expect(exitCodeOf(error)).toBe(2);
  });

  it("a repository mid-merge can still be listed (with a note)", async () => {
    const b = await battle();
    fs.writeFileSync(`${b.dir}/.git/MERGE_HEAD`, `${b.byUser}\n`);
    const listing = await listCheckpoints(b.dir, TASK);
    expect(listing.checkpoints).toHaveLength(3);
    expect(listing.notices).toContain("a merge is in progress");
  });
});
