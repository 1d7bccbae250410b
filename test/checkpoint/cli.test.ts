// `recover checkpoint create|list|prune` as a user runs them: the built binary, a real repository, exit codes,
// one-line errors, and exactly one JSON document with --json.
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createCheckpoint } from "../../src/checkpoint/create.js";
import { DAY_MS } from "../../src/checkpoint/prune.js";
import { expectJsonError, expectNoAnsi, expectNoStack, expectOneLineError, parseJsonDocument, run, type RunOptions } from "../cli/run.js";
import {
  battleFile,
  builtOnce,
  commitAt,
  feedback,
  gitIn,
  makeProject,
  observe,
  stateDir,
  TASK,
  tempDir,
  write,
  writeHistory,
  writePokeralph,
} from "../support/git-repo.js";

async function cli(args: string[], options: RunOptions & { state?: string } = {}) {
  return await run(args, { cwd: options.cwd, env: { XDG_STATE_HOME: options.state ?? stateDir(), ...options.env } });
}

const HEX40 = /^[0-9a-f]{40}$/;

/** A battle with a Claude commit for iteration 1, an orchestrator commitHash for 2, a failed iteration 3. */
/** Built once per file (see builtOnce); each test gets its own copy. */
const battleProject = builtOnce(buildBattleProject);
beforeAll(() => battleProject.prepare(), 120_000);

async function buildBattleProject() {
  const project = await makeProject({ clean: true });
  const { dir } = project;
  write(dir, "src/auth/jwt.ts", "export const sign = (p: object) => JSON.stringify(p);\n");
  const one = await commitAt(dir, `[PokéRalph] ${TASK}: JWT authentication middleware`, "2026-02-04T14:10:12Z");
  write(dir, "src/routes/invoices.ts", "export const app = { protected: true };\n");
  const two = await commitAt(dir, `[PokéRalph] ${TASK}: JWT authentication middleware`, "2026-02-04T14:24:29Z");
  write(dir, "src/auth/expiry.ts", "export const isExpired = (exp: number) => exp <= Date.now() / 1000;\n");
  writeHistory(dir, [
    {
      number: 1,
      startedAt: "2026-02-04T14:00:03.530Z",
      endedAt: "2026-02-04T14:11:48.077Z",
      result: "success",
      feedbackResults: feedback({ test: true, typecheck: true }),
    },
    {
      number: 2,
      startedAt: "2026-02-04T14:11:48.201Z",
      endedAt: "2026-02-04T14:24:30.664Z",
      result: "success",
      commitHash: two,
      feedbackResults: feedback({ test: true, typecheck: true }),
    },
    {
      number: 3,
      startedAt: "2026-02-04T14:24:30.790Z",
      endedAt: "2026-02-04T14:38:12.015Z",
      result: "failure",
      filesChanged: ["src/auth/expiry.ts"],
      feedbackResults: feedback({ test: true, typecheck: false }),
    },
  ]);
  return { ...project, one, two };
}

describe("recover checkpoint create", () => {
  it("creates the checkpoint after the last iteration, from a subdirectory (finds .pokeralph/ upward)", async () => {
    const { dir } = await battleProject();
    const before = await observe(dir);
    const result = await cli(["checkpoint", "create", TASK], { cwd: path.join(dir, "src/auth") });
    expect(result.status).toBe(0);
    expectNoStack(result.stderr);
    expect(result.stdout).toMatch(
      new RegExp(
        `^created checkpoint cp-\\d+-[0-9a-z]{7} \\(After iteration 3 \\(typecheck failed\\)\\): [0-9a-f]{7} in refs/pokeralph/checkpoints/${TASK}/3\\n`,
      ),
    );
    const after = await observe(dir);
    expect(after.indexSha).toBe(before.indexSha);
    expect(after.head).toBe(before.head);
    expect(after.stash).toBe(before.stash);
  });

  it("--json: one document with the checkpoint; --repo from anywhere; --iteration picks the iteration", async () => {
    const { dir } = await battleProject();
    const result = await cli(["checkpoint", "create", TASK, "--iteration", "0", "--repo", dir, "--json"], { cwd: tempDir() });
    expect(result.status).toBe(0);
    expectNoAnsi(result.stdout);
    const doc = parseJsonDocument(result.stdout);
    expect(Object.keys(doc)[0]).toBe("schemaVersion");
    expect(doc).toMatchObject({ schemaVersion: 1, taskId: TASK, nestedRepos: [] });
    const checkpoint = doc.checkpoint as Record<string, unknown>;
    expect(checkpoint).toMatchObject({ afterIteration: 0, ref: `refs/pokeralph/checkpoints/${TASK}/0`, description: "Before battle started", branch: "main" });
    expect(checkpoint.commit).toMatch(HEX40);
    expect(checkpoint.id).toMatch(/^cp-\d{13}-[0-9a-z]{7}$/);
    expect(Array.isArray(checkpoint.files)).toBe(true);
    expect((doc.notices as string[]).join("\n")).toMatch(/recorded as after iteration 0, as asked/);
    expect(fs.existsSync(battleFile(dir, "checkpoints.json"))).toBe(true);
  });

  it("usage errors exit 2 with one line: no .pokeralph/, unknown task, bad task id, iteration out of range, bad --iteration", async () => {
    const { dir } = await battleProject();
    const elsewhere = tempDir();
    const cases: [string[], string | undefined, RegExp][] = [
      [["checkpoint", "create", TASK], elsewhere, /no \.pokeralph\/ in .* or any directory above it/],
      [["checkpoint", "create", "003-billing", "--repo", dir], undefined, /no task 003-billing in /],
      [["checkpoint", "create", "../../etc", "--repo", dir], undefined, /invalid task id "\.\.\/\.\.\/etc"/],
      [["checkpoint", "create", TASK, "--iteration", "9", "--repo", dir], undefined, /records iterations up to 3: --iteration takes 0\.\.3/],
      [["checkpoint", "create", TASK, "--iteration", "-1", "--repo", dir], undefined, /--iteration/],
      [["checkpoint", "create", TASK, "--iteration", "two", "--repo", dir], undefined, /--iteration takes a whole number/],
    ];
    for (const [args, cwd, pattern] of cases) {
      const result = await cli(args, cwd ? { cwd } : {});
      expect(result.status, args.join(" ")).toBe(2);
      expectOneLineError(result, pattern);
    }
    expect(fs.existsSync(battleFile(dir, "checkpoints.json"))).toBe(false);
    expect(await gitIn(dir).raw(["for-each-ref", "refs/pokeralph/"])).toBe("");
  });

  it("not a git repository: exit 2; mid-merge: exit 3 (and a JSON error document with --json); nothing changed", async () => {
    const plain = tempDir();
    writePokeralph(plain);
    const notGit = await cli(["checkpoint", "create", TASK, "--repo", plain]);
    expect(notGit.status).toBe(2);
    expectOneLineError(notGit, /is not in a git repository/);

    const { dir } = await battleProject();
    fs.writeFileSync(path.join(dir, ".git/MERGE_HEAD"), `${(await gitIn(dir).raw(["rev-parse", "HEAD"])).trim()}\n`);
    const human = await cli(["checkpoint", "create", TASK, "--repo", dir]);
    expect(human.status).toBe(3);
    expectOneLineError(human, /a merge is in progress: finish it \(git commit\) or abort it \(git merge --abort\); nothing was changed/);
    const json = await cli(["checkpoint", "create", TASK, "--repo", dir, "--json"]);
    expect(json.status).toBe(3);
    expectJsonError(json, "store-busy");
    expect(fs.existsSync(battleFile(dir, "checkpoints.json"))).toBe(false);
    expect(await gitIn(dir).raw(["for-each-ref", "refs/pokeralph/"])).toBe("");
  });
});

describe("recover checkpoint list", () => {
  it("--json: schemaVersion, taskId, checkpoints with id, afterIteration, 40-hex commit, source, time, description, files, feedback", async () => {
    const b = await battleProject();
    const state = stateDir();
    expect((await cli(["checkpoint", "create", TASK, "--repo", b.dir], { state })).status).toBe(0);
    const result = await cli(["checkpoint", "list", TASK, "--repo", b.dir, "--json"], { state });
    expect(result.status).toBe(0);
    const doc = parseJsonDocument(result.stdout);
    expect(Object.keys(doc)[0]).toBe("schemaVersion");
    expect(doc).toMatchObject({ schemaVersion: 1, taskId: TASK });
    const checkpoints = doc.checkpoints as Record<string, unknown>[];
    expect(checkpoints.map((c) => [c.afterIteration, c.source])).toEqual([
      [0, "inferred"],
      [1, "inferred"],
      [2, "inferred"],
      [3, "recorded"],
    ]);
    for (const c of checkpoints) {
      expect(Object.keys(c)).toEqual(expect.arrayContaining(["id", "afterIteration", "commit", "source", "time", "description", "files", "feedback"]));
      expect(c.commit).toMatch(HEX40);
      expect(Number.isNaN(Date.parse(c.time as string))).toBe(false);
      expect(c).not.toHaveProperty("missing");
    }
    expect(checkpoints[1]).toMatchObject({ commit: b.one, id: "inferred-1", passed: true });
    expect(checkpoints[2]).toMatchObject({ commit: b.two, via: "commitHash" });
    expect(checkpoints[3]).toMatchObject({
      description: "After iteration 3 (typecheck failed)",
      passed: false,
      ref: `refs/pokeralph/checkpoints/${TASK}/3`,
      files: ["src/auth/expiry.ts"],
    });
    expect((checkpoints[3]!.feedback as Record<string, { passed: boolean }>).typecheck!.passed).toBe(false);
  });

  it("human: a table with iteration, short hash, time, ✓/✗, source, files and description; missing commits marked", async () => {
    const b = await battleProject();
    const history = JSON.parse(fs.readFileSync(battleFile(b.dir, "history.json"), "utf8"));
    // A commit that vanished, with no commit of the battle made during or after that iteration to stand in for it.
    Object.assign(history.iterations[1], {
      commitHash: "9f2c41d7a0b6e3c58d1f04a2b7e9c6d3a1f08e52",
      startedAt: "2026-02-04T16:00:00.000Z",
      endedAt: "2026-02-04T16:10:00.000Z",
    });
    fs.writeFileSync(battleFile(b.dir, "history.json"), JSON.stringify(history));
    const result = await cli(["checkpoint", "list", TASK], { cwd: b.dir });
    expect(result.status).toBe(0);
    expectNoAnsi(result.stdout);
    const lines = result.stdout.split("\n");
    expect(lines[0]).toBe(`${TASK}: 3 checkpoints (0 recorded, 3 inferred, 1 missing)`);
    expect(lines[1]).toMatch(/^ID\s+ITER\s+COMMIT\s+TIME \(UTC\)\s+FEEDBACK\s+SOURCE\s+FILES\s+DESCRIPTION$/);
    expect(result.stdout).toMatch(new RegExp(`inferred-1\\s+1\\s+${b.one.slice(0, 7)}\\s+2026-02-04 14:11:48\\s+✓\\s+inferred\\s+0\\s+After iteration 1`));
    expect(result.stdout).toMatch(/inferred-2\s+2\s+9f2c41d\s+.*\[MISSING: the repository no longer holds this commit\]/);
    expect(result.stderr).toMatch(/^note: iteration 3 left no commit/m);

    const json = parseJsonDocument((await cli(["checkpoint", "list", TASK, "--json"], { cwd: b.dir })).stdout);
    const missing = (json.checkpoints as Record<string, unknown>[]).filter((c) => c.missing === true);
    expect(missing).toEqual([expect.objectContaining({ afterIteration: 2, commit: "9f2c41d7a0b6e3c58d1f04a2b7e9c6d3a1f08e52", source: "inferred" })]);
  });

  it("a failed feedback loop shows ✗; an unknown task exits 2", async () => {
    const b = await battleProject();
    const state = stateDir();
    await cli(["checkpoint", "create", TASK, "--repo", b.dir], { state });
    const result = await cli(["checkpoint", "list", TASK, "--repo", b.dir], { state });
    expect(result.stdout).toMatch(
      /cp-\d+-[0-9a-z]{7}\s+3\s+[0-9a-f]{7}\s+\S+ \S+\s+✗\s+recorded\s+1\s+After iteration 3 \(typecheck failed\)\n\s+src\/auth\/expiry\.ts/,
    );
    const unknown = await cli(["checkpoint", "list", "004-reports", "--repo", b.dir, "--json"], { state });
    expect(unknown.status).toBe(2);
    expectJsonError(unknown, "invalid-id");
  });
});

describe("recover checkpoint prune", () => {
  /** 12 recorded checkpoints, 20..9 days old: the 2 oldest fall outside the newest 10 and are past 7 days. */
  const aged = builtOnce(buildAged);
  beforeAll(() => aged.prepare(), 120_000);

  async function buildAged() {
    const { dir } = await makeProject({ clean: true });
    const state = stateDir();
    for (let age = 20; age >= 9; age--) {
      write(dir, "src/index.ts", `// ${age} days ago\n`);
      // Half a day short of whole days: a whole-day --older-than never falls on a checkpoint's age.
      await createCheckpoint(dir, { taskId: TASK, stateDir: state, now: () => new Date(Date.now() - (age - 0.5) * DAY_MS) });
    }
    return { dir, state };
  }

  it("--dry-run lists what would go, changes nothing, exits 1; without --yes and no terminal it refuses (exit 2)", async () => {
    const { dir, state } = await aged();
    const sidecar = fs.readFileSync(battleFile(dir, "checkpoints.json"));
    const refs = await gitIn(dir).raw(["for-each-ref", "refs/pokeralph/"]);

    const dry = await cli(["checkpoint", "prune", TASK, "--dry-run", "--repo", dir], { state });
    expect(dry.status).toBe(1);
    expect(dry.stdout).toMatch(/^would prune 2 of 12 recorded checkpoints of 002-auth-system:\n/);
    expect(dry.stdout).toMatch(/dry run: nothing was changed/);
    const dryJson = parseJsonDocument((await cli(["checkpoint", "prune", TASK, "--dry-run", "--repo", dir, "--json"], { state })).stdout);
    expect(dryJson).toMatchObject({
      schemaVersion: 1,
      taskId: TASK,
      dryRun: true,
      policy: { maxCheckpoints: 10, maxAgeDays: 7, keepFailed: true, keepSuccessful: true },
      kept: 10,
    });
    expect((dryJson.pruned as unknown[]).length).toBe(2);

    const refused = await cli(["checkpoint", "prune", TASK, "--repo", dir], { state });
    expect(refused.status).toBe(2);
    expectOneLineError(refused, /refusing to change the checkpoints of 002-auth-system: drop 2 checkpoints .* without --yes/);

    expect(fs.readFileSync(battleFile(dir, "checkpoints.json")).equals(sidecar)).toBe(true);
    expect(await gitIn(dir).raw(["for-each-ref", "refs/pokeralph/"])).toBe(refs);
  });

  it("--yes prunes (exit 0), --json reports it; then nothing is left to prune (exit 0 even dry)", async () => {
    const { dir, state } = await aged();
    const result = await cli(["checkpoint", "prune", TASK, "--yes", "--json", "--repo", dir], { state });
    expect(result.status).toBe(0);
    const doc = parseJsonDocument(result.stdout);
    expect(doc).toMatchObject({ dryRun: false, kept: 10, refsLeft: [] });
    const pruned = doc.pruned as { ref: string; afterIteration: number }[];
    expect(pruned.map((p) => p.ref).sort()).toEqual([`refs/pokeralph/checkpoints/${TASK}/0`, `refs/pokeralph/checkpoints/${TASK}/0-2`]);
    const refs = (await gitIn(dir).raw(["for-each-ref", "--format=%(refname)", "refs/pokeralph/"])).trim().split("\n");
    expect(refs).toHaveLength(10);
    expect(JSON.parse(fs.readFileSync(battleFile(dir, "checkpoints.json"), "utf8")).checkpoints).toHaveLength(10);

    const again = await cli(["checkpoint", "prune", TASK, "--dry-run", "--repo", dir], { state });
    expect(again.status).toBe(0);
    expect(again.stdout).toMatch(/^nothing to prune: 10 recorded checkpoints of 002-auth-system/);
  });

  it("--older-than (as in session backups --prune; --older-than-days still works) and --keep change the policy", async () => {
    const { dir, state } = await aged();
    for (const spelling of ["--older-than", "--older-than-days"]) {
      const result = await cli(["checkpoint", "prune", TASK, "--keep", "3", spelling, "15", "--dry-run", "--json", "--repo", dir], { state });
      expect(result.status).toBe(1);
      const doc = parseJsonDocument(result.stdout);
      expect(doc.policy).toMatchObject({ maxCheckpoints: 3, maxAgeDays: 15 });
      // Ages 16..20 are older than 15 days (and beyond the newest 3).
      expect((doc.pruned as unknown[]).length).toBe(5);
    }
    const bad = await cli(["checkpoint", "prune", TASK, "--keep", "many", "--repo", dir], { state });
    expect(bad.status).toBe(2);
    expectOneLineError(bad, /--keep takes a whole number/);
  });
});
