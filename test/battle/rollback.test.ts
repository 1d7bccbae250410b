// `recover battle rollback` through the built CLI on a real git repository: a battle of three iterations with a
// checkpoint (the create API) before it and after each iteration, over a project with a staged change, a stash,
// ignored files and a nested repository. A rollback restores exactly the checkpoint's files, never moves the
// branch or the index, never touches ignored files, rewrites history.json (archiving what it drops) with a backup,
// and is itself undone byte for byte by a rollback to its safety checkpoint.
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createCheckpoint } from "../../src/checkpoint/create.js";
import { expectOneLineError, parseJsonDocument, paste, run } from "../cli/run.js";
import {
  battleFile,
  copyDir,
  copyProject,
  feedback,
  gitIn,
  IGNORED,
  makeProject,
  NESTED,
  observe,
  TASK,
  tempDir,
  treeFiles,
  worktreeBytes,
  write,
  writeHistory,
  type IterationSpec,
  type Observation,
} from "../support/git-repo.js";
import { iso } from "../support/pokeralph-fixtures.js";
import { closedPort, startFakePokeralph } from "./fake-pokeralph.js";
import { runAsync } from "./run-async.js";

const NO_SERVER = { RECOVER_POKERALPH_URL: `http://127.0.0.1:${await closedPort()}`, PORT: undefined };

const START = Date.parse("2026-02-04T14:00:03.402Z");
const it_ = (n: number, result: "success" | "failure" = "success"): IterationSpec => ({
  number: n,
  startedAt: iso(START + (n - 1) * 600_000),
  endedAt: iso(START + n * 600_000 - 1000),
  result,
  filesChanged: [`iteration-${n}`],
  feedbackResults: feedback({ test: result === "success", typecheck: true }),
});

const isIgnored = (f: string) => IGNORED.includes(f) || f.startsWith("node_modules/") || f.startsWith("dist/") || f.endsWith(".log") || f === ".env";
const isNested = (f: string) => f === NESTED || f.startsWith(`${NESTED}/`);
const isState = (f: string) => f.startsWith(".pokeralph/");
/** The project as a person sees it: every file but battle state. */
const project = (dir: string) => new Map([...worktreeBytes(dir)].filter(([f]) => !isState(f)));

interface Battle {
  dir: string;
  env: Record<string, string | undefined>;
  state: string;
  cp: { commit: string; id: string }[];
  /** The project's bytes when each checkpoint was taken. */
  at: Map<string, string>[];
}

/**
 * A fresh copy of the battle below (repository and state dir), built once per final status: every test rolls
 * back its own copy of the same real repository, checkpoint refs and sidecar included.
 */
const battles = new Map<string, Promise<Battle>>();
async function battle(options: { finalStatus?: string } = {}): Promise<Battle> {
  const key = options.finalStatus ?? "failed";
  if (!battles.has(key)) battles.set(key, buildBattle(options));
  const template = await battles.get(key)!;
  const dir = await copyProject(template.dir);
  const state = copyDir(template.state);
  return { dir, env: { ...NO_SERVER, XDG_STATE_HOME: state }, state, cp: template.cp, at: template.at };
}

// The common one is built before the tests, outside any one test's time.
beforeAll(async () => {
  await battle();
}, 120_000);

/** A battle of three iterations (failed at the end), a checkpoint before it and after each, and work since. */
async function buildBattle(options: { finalStatus?: string } = {}): Promise<Battle> {
  const { dir } = await makeProject();
  const state = tempDir("recover-state-");
  const env = { ...NO_SERVER, XDG_STATE_HOME: state };
  const cp: Battle["cp"] = [];
  const at: Battle["at"] = [];
  const checkpoint = async () => {
    const { checkpoint: c } = await createCheckpoint(dir, { taskId: TASK, stateDir: state });
    cp.push({ commit: c.commit, id: c.id });
    at.push(project(dir));
  };
  writeHistory(dir, []);
  await checkpoint();

  write(dir, "src/auth/middleware.ts", "import { sign } from './jwt.js';\nexport const requireAuth = () => sign({});\n");
  write(dir, "src/index.ts", "// iteration 1\nimport { app } from './routes/invoices.js';\napp.listen(3000);\n");
  writeHistory(dir, [it_(1)]);
  await checkpoint();

  write(dir, "src/auth/refresh.ts", "export const refresh = () => 'token';\n");
  write(dir, "src/auth/middleware.ts", "// iteration 2\nexport const requireAuth = () => true;\n");
  fs.rmSync(path.join(dir, "notes/todo.md"));
  write(dir, "src/auth/trace.log", "ignored, written during iteration 2\n");
  write(dir, "dist/iteration-2.js", "// built\n");
  writeHistory(dir, [it_(1), it_(2, "failure")]);
  await checkpoint();

  write(dir, "src/index.ts", "// iteration 3\n");
  write(dir, "src/feature/deep/flag.ts", "export const on = true;\n");
  writeHistory(dir, [it_(1), it_(2, "failure"), it_(3, "failure")], {
    status: options.finalStatus ?? "failed",
    completedAt: iso(START + 30 * 60_000),
    error: "typecheck failed twice",
  });
  await checkpoint();

  // After the last checkpoint: the person's own edits, one of them staged.
  write(dir, "src/scratch.ts", "export const scratch = 1;\n");
  await gitIn(dir).raw(["add", "src/scratch.ts"]);
  write(dir, "src/auth/jwt.ts", "// edited by hand after the battle\n");
  return { dir, env, state, cp, at };
}

const rollback = async (b: Battle, args: string[], env: Record<string, string | undefined> = {}) =>
  await run(["battle", "rollback", TASK, ...args], { cwd: b.dir, env: { ...b.env, ...env } });
const history = (dir: string) =>
  JSON.parse(fs.readFileSync(battleFile(dir, "history.json"), "utf8")) as {
    status: string;
    iterations: { number: number }[];
    error?: string;
    completedAt?: string;
  };
const sidecar = (dir: string) =>
  JSON.parse(fs.readFileSync(battleFile(dir, "checkpoints.json"), "utf8")) as {
    checkpoints: { id: string; ref: string; kind?: string }[];
    rolledBack?: { at: string; fromIteration: number; iterations: { number: number }[]; safetyRef: string }[];
  };

/** What must not move: HEAD, the branch, the index (bytes and entries), the stash, other refs, ignored files, the nested repo. */
function unmoved(o: Observation) {
  return {
    indexSha: o.indexSha,
    lsFiles: o.lsFiles,
    head: o.head,
    branch: o.branch,
    stash: o.stash,
    refs: o.refs,
    ignored: o.ignored,
    nestedHead: o.nestedHead,
    nestedStatus: o.nestedStatus,
  };
}

interface Doc {
  schemaVersion: number;
  taskId: string;
  target: { checkpoint: string; afterIteration: number; commit: string };
  safety: { ref: string; commit: string } | null;
  files: { restored: string[]; createdSince: string[]; deleted: string[] };
  iterationsRolledBack: number[];
  backup: { id: string; path: string } | null;
  dryRun: boolean;
}

describe("battle rollback", () => {
  it("--iteration 2 restores exactly the checkpoint after iteration 1, leaves branch, index and ignored files; the safety checkpoint undoes it byte for byte", async () => {
    const b = await battle();
    const before = await observe(b.dir);
    const original = project(b.dir);
    const originalWorktree = worktreeBytes(b.dir);

    const result = await rollback(b, ["--iteration", "2", "--yes", "--json"]);
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    const doc = parseJsonDocument(result.stdout) as unknown as Doc;
    expect(Object.keys(doc).slice(0, 8)).toEqual(["schemaVersion", "tool", "taskId", "target", "safety", "files", "iterationsRolledBack", "backup"]);
    expect(doc.target).toEqual({ checkpoint: b.cp[1]!.id, afterIteration: 1, commit: b.cp[1]!.commit });
    expect(doc.iterationsRolledBack).toEqual([2, 3]);
    expect(doc.dryRun).toBe(false);
    expect(doc.safety!.ref).toMatch(new RegExp(`^refs/pokeralph/safety/${TASK}/\\d{8}T\\d{9}Z$`));
    expect((await gitIn(b.dir).raw(["rev-parse", doc.safety!.ref])).trim()).toBe(doc.safety!.commit);
    expect(doc.files.createdSince.sort()).toEqual(["src/auth/refresh.ts", "src/feature/deep/flag.ts", "src/scratch.ts"]);
    expect(doc.files.deleted).toEqual([]);

    // Exactly the checkpoint's files, with the bytes they had then; created-since files kept; nothing else.
    const cpFiles = new Set(await treeFiles(b.dir, b.cp[1]!.commit));
    const now = project(b.dir);
    for (const file of cpFiles) expect(now.get(file), file).toBe(b.at[1]!.get(file));
    for (const [file, bytes] of now) {
      if (cpFiles.has(file) || isIgnored(file) || isNested(file)) continue;
      expect(doc.files.createdSince, `${file} is neither in the checkpoint nor created since`).toContain(file);
      expect(bytes).toBe(original.get(file));
    }
    for (const [file, bytes] of originalWorktree) if (isIgnored(file) || isNested(file)) expect(worktreeBytes(b.dir).get(file), file).toBe(bytes);
    expect(fs.readFileSync(path.join(b.dir, "src/auth/trace.log"), "utf8")).toBe("ignored, written during iteration 2\n");

    // Branch, HEAD, index (bytes and `ls-files -s`), stash, refs: untouched.
    const after = await observe(b.dir);
    expect(unmoved(after)).toEqual(unmoved(before));
    expect((await gitIn(b.dir).raw(["symbolic-ref", "HEAD"])).trim()).toBe("refs/heads/main");

    // State: one iteration, paused; 2 and 3 archived beside the safety ref; the old state in a backup.
    const h = history(b.dir);
    expect(h.iterations.map((i) => i.number)).toEqual([1]);
    expect(h.status).toBe("paused");
    const s = sidecar(b.dir);
    expect(s.rolledBack).toHaveLength(1);
    expect(s.rolledBack![0]!.fromIteration).toBe(2);
    expect(s.rolledBack![0]!.iterations.map((i) => i.number)).toEqual([2, 3]);
    expect(s.rolledBack![0]!.safetyRef).toBe(doc.safety!.ref);
    expect(s.checkpoints.find((c) => c.ref === doc.safety!.ref)?.kind).toBe("safety");
    expect(doc.backup).not.toBeNull();
    const manifest = JSON.parse(fs.readFileSync(path.join(doc.backup!.path, "manifest.json"), "utf8")) as { state: string; images: { key: { id: string } }[] };
    expect(manifest.state).toBe("done");
    // One transaction: the project's files it restored and the two state files, all in one backup.
    expect(manifest.images.map((i) => i.key.id).sort()).toEqual(
      [`.pokeralph/battles/${TASK}/checkpoints.json`, `.pokeralph/battles/${TASK}/history.json`, ...doc.files.restored].sort(),
    );
    expect(doc.files.restored.length).toBeGreaterThan(0);

    // The safety checkpoint is listed, and going back to it returns the original tree byte for byte.
    const list = await run(["checkpoint", "list", TASK, "--json"], { cwd: b.dir, env: b.env });
    const listed = (parseJsonDocument(list.stdout) as { checkpoints: { id: string; ref?: string }[] }).checkpoints.find((c) => c.ref === doc.safety!.ref);
    expect(listed).toBeDefined();
    const back = await rollback(b, ["--to-checkpoint", listed!.id, "--hard", "--yes", "--json"]);
    expect(back.status).toBe(0);
    expect(project(b.dir)).toEqual(original);
    expect(worktreeBytes(b.dir).size).toBe(originalWorktree.size);
    expect(unmoved(await observe(b.dir))).toEqual(unmoved(before));
    // … and the archived iterations come back.
    expect(history(b.dir).iterations.map((i) => i.number)).toEqual([1, 2, 3]);
  });

  it("the files and the state it rewrote come back byte for byte with `session restore <backup-id>`", async () => {
    const b = await battle();
    const before = await observe(b.dir);
    const original = worktreeBytes(b.dir);
    const doc = parseJsonDocument((await rollback(b, ["--iteration", "2", "--hard", "--yes", "--json"])).stdout) as unknown as Doc;
    expect(history(b.dir).iterations.map((i) => i.number)).toEqual([1]);
    expect(doc.files.deleted.length).toBeGreaterThan(0);
    const restored = await run(["session", "restore", doc.backup!.id, "--yes", "--json"], { cwd: b.dir, env: b.env });
    expect(restored.stderr).toBe("");
    expect(restored.status).toBe(0);
    // Every file as it was (project and .pokeralph/ alike), deleted ones back, restored ones put back.
    expect(worktreeBytes(b.dir)).toEqual(original);
    expect(unmoved(await observe(b.dir))).toEqual(unmoved(before));
  });

  it("--undo puts back the files, history.json and checkpoints.json in one step, after a safety checkpoint", async () => {
    const b = await battle();
    const before = await observe(b.dir);
    const original = worktreeBytes(b.dir);
    const done = parseJsonDocument((await rollback(b, ["--iteration", "2", "--hard", "--yes", "--json"])).stdout) as unknown as Doc;
    expect(worktreeBytes(b.dir)).not.toEqual(original);
    // A person's edit after the rollback: --undo refuses to overwrite it (exit 3), unless --force.
    const rolledBack = fs.readFileSync(path.join(b.dir, "src/index.ts"));
    write(b.dir, "src/index.ts", "// edited after the rollback\n");
    const refused = await rollback(b, ["--undo", "--yes"]);
    expect(refused.status, refused.stderr).toBe(3);
    expect(refused.stderr).toMatch(/changed after backup/);
    expect(fs.readFileSync(path.join(b.dir, "src/index.ts"), "utf8")).toBe("// edited after the rollback\n");
    write(b.dir, "src/index.ts", rolledBack);

    const preview = await rollback(b, ["--undo", "--dry-run"]);
    expect(preview.status).toBe(1);
    expect(preview.stdout).toContain(`backup ${done.backup!.id}`);
    expect(preview.stdout).toMatch(/create\s+src\/scratch\.ts/);
    expect(worktreeBytes(b.dir)).not.toEqual(original);

    const undone = await rollback(b, ["--undo", "--yes", "--json"]);
    expect(undone.status, undone.stderr + undone.stdout).toBe(0);
    const doc = parseJsonDocument(undone.stdout) as unknown as {
      undoes: string;
      safety: { ref: string; commit: string };
      backup: { id: string };
      redo: string;
    };
    expect(doc.undoes).toBe(done.backup!.id);
    expect(worktreeBytes(b.dir)).toEqual(original);
    expect(unmoved({ ...(await observe(b.dir)), refs: before.refs })).toEqual(unmoved(before));
    expect(history(b.dir).iterations.map((i) => i.number)).toEqual([1, 2, 3]);
    // The state it replaced was kept first: the safety ref holds the rolled-back tree.
    expect((await gitIn(b.dir).raw(["rev-parse", doc.safety.ref])).trim()).toBe(doc.safety.commit);
    expect(doc.redo).toBe(`recover session restore ${doc.backup.id}`);
    // Nothing left to undo.
    const again = await rollback(b, ["--undo", "--yes"]);
    expect(again.status).toBe(2);
    expect(again.stderr).toMatch(/no rollback of 002-auth-system to undo/);
  });

  it("prints the plan, the safety ref, the undo command and the backup id", async () => {
    const b = await battle();
    const result = await rollback(b, ["--iteration", "3", "--yes"]);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain("files restored from the checkpoint");
    expect(result.stdout).toContain("iterations rolled back: 3");
    expect(result.stdout).toMatch(/^--- a\/\.pokeralph\/battles\/002-auth-system\/history\.json$/m);
    expect(result.stdout).toMatch(new RegExp(`safety checkpoint refs/pokeralph/safety/${TASK}/\\S+`));
    expect(result.stdout).toMatch(/undo all of it with: recover battle rollback 002-auth-system --undo {2}\(or recover session restore \S+\)/);
  });

  it("--hard deletes files created since, never ignored ones", async () => {
    const b = await battle();
    const before = await observe(b.dir);
    const ignoredBefore = new Map([...worktreeBytes(b.dir)].filter(([f]) => isIgnored(f) || isNested(f)));
    const result = await rollback(b, ["--iteration", "2", "--hard", "--yes", "--json"]);
    expect(result.status).toBe(0);
    const doc = parseJsonDocument(result.stdout) as unknown as Doc;
    expect(doc.files.deleted.sort()).toEqual(["src/auth/refresh.ts", "src/feature/deep/flag.ts", "src/scratch.ts"]);
    for (const file of doc.files.deleted) expect(fs.existsSync(path.join(b.dir, file)), file).toBe(false);
    // Ignored files stay, even inside a directory the deletions emptied of captured files.
    for (const [file, bytes] of ignoredBefore) expect(worktreeBytes(b.dir).get(file), file).toBe(bytes);
    expect(fs.existsSync(path.join(b.dir, "src/auth/trace.log"))).toBe(true);
    const cpFiles = await treeFiles(b.dir, b.cp[1]!.commit);
    const now = project(b.dir);
    expect([...now.keys()].filter((f) => !isIgnored(f) && !isNested(f)).sort()).toEqual([...cpFiles].sort());
    expect(unmoved(await observe(b.dir))).toEqual(unmoved(before));
  });

  it("--dry-run changes nothing and exits 1", async () => {
    const b = await battle();
    const before = worktreeBytes(b.dir);
    const refs = await gitIn(b.dir).raw(["for-each-ref"]);
    const obs = await observe(b.dir);
    const result = await rollback(b, ["--iteration", "2", "--dry-run"]);
    expect(result.status).toBe(1);
    expect(result.stdout).toContain("dry run");
    expect(result.stdout).toContain("src/auth/refresh.ts");
    const json = await rollback(b, ["--full", "--hard", "--dry-run", "--json"]);
    expect(json.status).toBe(1);
    const doc = parseJsonDocument(json.stdout) as unknown as Doc;
    expect(doc.dryRun).toBe(true);
    expect(doc.safety).toBeNull();
    expect(doc.backup).toBeNull();
    expect(doc.iterationsRolledBack).toEqual([1, 2, 3]);
    expect(worktreeBytes(b.dir)).toEqual(before);
    expect(await gitIn(b.dir).raw(["for-each-ref"])).toBe(refs);
    expect(await observe(b.dir)).toEqual(obs);
    expect(fs.existsSync(path.join(b.state, "recover/backups"))).toBe(false);
  });

  it("--full goes back to before the battle: no iterations, status pending, error and completedAt dropped", async () => {
    const b = await battle();
    const result = await rollback(b, ["--full", "--yes", "--json"]);
    expect(result.status).toBe(0);
    const doc = parseJsonDocument(result.stdout) as unknown as Doc;
    expect(doc.target).toEqual({ checkpoint: b.cp[0]!.id, afterIteration: 0, commit: b.cp[0]!.commit });
    const h = history(b.dir);
    expect(h.iterations).toEqual([]);
    expect(h.status).toBe("pending");
    expect(h.error).toBeUndefined();
    expect(h.completedAt).toBeUndefined();
    expect(sidecar(b.dir).rolledBack![0]!.iterations.map((i) => i.number)).toEqual([1, 2, 3]);
    const now = project(b.dir);
    for (const file of await treeFiles(b.dir, b.cp[0]!.commit)) expect(now.get(file), file).toBe(b.at[0]!.get(file));
  });

  it("without a terminal and without --yes: exit 2, nothing changed", async () => {
    const b = await battle();
    const before = worktreeBytes(b.dir);
    const refs = await gitIn(b.dir).raw(["for-each-ref"]);
    const result = await rollback(b, ["--iteration", "2"]);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/without --yes/);
    expect(worktreeBytes(b.dir)).toEqual(before);
    expect(await gitIn(b.dir).raw(["for-each-ref"])).toBe(refs);
  });

  it("refuses (exit 3) while a pokeralph server runs the battle, unless --force", async () => {
    const b = await battle({ finalStatus: "running" });
    const server = await startFakePokeralph({ battle: { taskId: TASK, iteration: 3, status: "running", mode: "yolo" }, workingDir: b.dir });
    try {
      const before = worktreeBytes(b.dir);
      const env = { ...b.env, RECOVER_POKERALPH_URL: server.url };
      const refused = await runAsync(["battle", "rollback", TASK, "--iteration", "2", "--yes"], { cwd: b.dir, env });
      expect(refused.status).toBe(3);
      expect(refused.stderr).toMatch(/--force/);
      expect(worktreeBytes(b.dir)).toEqual(before);
      const forced = await runAsync(["battle", "rollback", TASK, "--iteration", "2", "--yes", "--force", "--json"], { cwd: b.dir, env });
      expect(forced.status).toBe(0);
      expect(history(b.dir).status).toBe("paused");
    } finally {
      await server.stop();
    }
  });

  it("a checkpoint it cannot find: the error names `checkpoint list` as it runs pasted where the rollback was typed", async () => {
    const b = await battle();
    const elsewhere = tempDir();
    for (const [cwd, repo] of [
      [elsewhere, ["--repo", b.dir]],
      [b.dir, []],
    ] as const) {
      const r = await run(["battle", "rollback", TASK, "--to-checkpoint", "nope", "--yes", ...repo], { cwd, env: b.env });
      expect(r.status).toBe(2);
      const hint = /\(run `(.*)` to see its checkpoints\)$/.exec(expectOneLineError(r, /no checkpoint "nope" for 002-auth-system/))?.[1];
      expect(hint).toBe(`recover checkpoint list ${TASK}${repo.length ? ` --repo ${b.dir}` : ""}`);
      const listed = paste(hint!, { cwd, env: b.env });
      expect(listed.status, listed.stderr).toBe(0);
      for (const { id } of b.cp) expect(listed.stdout).toContain(id);
    }
  });

  it("usage errors: no mode, two modes, an iteration the battle does not have", async () => {
    const b = await battle();
    expect((await rollback(b, ["--yes"])).status).toBe(2);
    expect((await rollback(b, ["--full", "--iteration", "2", "--yes"])).status).toBe(2);
    const tooFar = await rollback(b, ["--iteration", "4", "--yes"]);
    expect(tooFar.status).toBe(2);
    expect(tooFar.stderr).toMatch(/1\.\.3/);
  });
});
