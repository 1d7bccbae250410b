// Real git repositories for the checkpoint tests: a small TypeScript project as a pokeralph battle leaves it (a
// staged change, unstaged edits, a deleted file, untracked files, a stash entry, ignored node_modules/ and dist/,
// a nested repository in vendor/lib, an executable, a symlink, a binary), and a way to observe everything a
// checkpoint must not touch. All through simple-git, with the identity set in each repository's own config.
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { simpleGit, type SimpleGit } from "simple-git";
import { afterAll } from "vitest";

export const TASK = "002-auth-system";

// ---------------------------------------------------------------------------------------------
// Temp dirs, removed after each test file
// ---------------------------------------------------------------------------------------------

const created: string[] = [];

export function tempDir(prefix = "recover-cp-"): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  created.push(dir);
  return dir;
}

afterAll(() => {
  for (const dir of created.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** recover's state dir for library calls (the sidecar lock), never the developer's own. */
export function stateDir(): string {
  return tempDir("recover-state-");
}

// ---------------------------------------------------------------------------------------------
// git
// ---------------------------------------------------------------------------------------------

// simple-git refuses a custom environment holding EDITOR, PAGER and the like; the tests never need them.
const DROP =
  /^(EDITOR|VISUAL|PAGER|GIT_PAGER|GIT_EDITOR|GIT_SEQUENCE_EDITOR|GIT_ASKPASS|SSH_ASKPASS|GIT_SSH|GIT_SSH_COMMAND|GIT_PROXY_COMMAND|GIT_EXTERNAL_DIFF|GIT_TEMPLATE_DIR|GIT_DIR|GIT_WORK_TREE|GIT_INDEX_FILE|PREFIX|GIT_CONFIG.*|GIT_EXEC_PATH)$/;

export function gitIn(dir: string, env: Record<string, string> = {}): SimpleGit {
  const base: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !DROP.test(key)) base[key] = value;
  // A deterministic editor-free, pager-free git that never rewrites an index just because it looked at it.
  return simpleGit({ baseDir: dir }).env({ ...base, GIT_OPTIONAL_LOCKS: "0", GIT_TERMINAL_PROMPT: "0", GIT_MERGE_AUTOEDIT: "no", ...env });
}

/** A git command that is expected to fail (a conflicting merge): run it, ignore the failure. */
export async function attempt(git: SimpleGit, args: string[]): Promise<void> {
  try {
    await git.raw(args);
  } catch {
    /* expected */
  }
}

export async function initRepo(dir: string): Promise<SimpleGit> {
  const git = gitIn(dir);
  await git.raw(["init", "-q", "-b", "main"]);
  await git.raw(["config", "user.name", "Dana Developer"]);
  await git.raw(["config", "user.email", "dana@example.com"]);
  await git.raw(["config", "commit.gpgSign", "false"]);
  return git;
}

/** A commit with pinned author and committer dates (ISO), so history.json's iteration windows can name it. */
export async function commitAt(dir: string, message: string, iso: string): Promise<string> {
  const git = gitIn(dir, { GIT_AUTHOR_DATE: iso, GIT_COMMITTER_DATE: iso });
  await git.raw(["add", "-A", "--", ".", ":(exclude).pokeralph"]);
  await git.raw(["commit", "-q", "--allow-empty", "-m", message]);
  return (await git.raw(["rev-parse", "HEAD"])).trim();
}

export function write(dir: string, file: string, content: string | Buffer, mode?: number): void {
  const full = path.join(dir, file);
  fs.mkdirSync(path.dirname(full), { recursive: true });
  fs.writeFileSync(full, content);
  if (mode !== undefined) fs.chmodSync(full, mode);
}

// ---------------------------------------------------------------------------------------------
// The project
// ---------------------------------------------------------------------------------------------

export const IGNORED = ["node_modules/left-pad/index.js", "node_modules/.package-lock.json", "dist/index.js", "debug.log", ".env"];
export const NESTED = "vendor/lib";

export interface Project {
  dir: string;
  git: SimpleGit;
  taskId: string;
}

export interface ProjectOptions {
  /** Leave the tree clean (only the initial commit): for tests that set up their own git states. */
  clean?: boolean;
  /** Write prd.json and battles/<taskId>/ (default true). */
  pokeralph?: boolean;
}

// Each distinct project is built with git once per test file (a template) and every test gets a fresh copy of the
// whole tree, .git included: a real repository, a dozen git processes cheaper. The copy keeps modes, mtimes and
// symlinks as they are; only the index's stat data (inodes, ctimes) is stale in a copy, so it is refreshed the way
// git itself would on its next look, leaving the repository as the build left it.
const templates = new Map<string, Promise<string>>();

afterAll(() => templates.clear());

export function copyRepo(from: string, to: string): void {
  fs.cpSync(from, to, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
}

async function refreshIndex(dir: string): Promise<void> {
  await gitIn(dir, { GIT_OPTIONAL_LOCKS: "1" }).raw(["update-index", "-q", "--refresh"]);
}

export async function makeProject(options: ProjectOptions = {}): Promise<Project> {
  const key = JSON.stringify({ clean: options.clean === true, pokeralph: options.pokeralph !== false });
  let template = templates.get(key);
  if (template === undefined) {
    const at = tempDir("recover-cp-template-");
    template = buildProject(at, options).then(() => at);
    templates.set(key, template);
    template.catch(() => templates.delete(key));
  }
  const dir = await copyProject(await template);
  return { dir, git: gitIn(dir), taskId: TASK };
}

/** A fresh copy of a project (a template built once): a new temp dir, the index refreshed, nested repo included. */
export async function copyProject(from: string): Promise<string> {
  const dir = tempDir();
  copyRepo(from, dir);
  await refreshIndex(dir);
  if (fs.existsSync(path.join(dir, NESTED, ".git"))) await refreshIndex(path.join(dir, NESTED));
  return dir;
}

/** A fresh copy of a plain directory (a state dir built beside a template). */
export function copyDir(from: string, prefix = "recover-state-"): string {
  const dir = tempDir(prefix);
  copyRepo(from, dir);
  return dir;
}

async function buildProject(dir: string, options: ProjectOptions): Promise<void> {
  const git = await initRepo(dir);
  write(dir, ".gitignore", "node_modules/\ndist/\n*.log\n.env\n");
  write(
    dir,
    "package.json",
    `${JSON.stringify({ name: "invoice-service", type: "module", scripts: { test: "bun test", lint: "biome check .", typecheck: "tsc --noEmit" } }, null, 2)}\n`,
  );
  write(dir, "tsconfig.json", '{ "compilerOptions": { "strict": true, "module": "NodeNext" } }\n');
  write(dir, "README.md", "# Invoice Service\n\nIssues and tracks invoices.\n");
  write(dir, "src/index.ts", 'import { app } from "./routes/invoices.js";\n\napp.listen(3000);\n');
  write(dir, "src/routes/invoices.ts", "export const app = { listen(port: number) { return port; } };\n");
  write(dir, "src/auth/jwt.ts", "export function sign(payload: object): string {\n  return JSON.stringify(payload);\n}\n");
  write(dir, "tests/auth.test.ts", 'import { sign } from "../src/auth/jwt.js";\n\ntest("sign", () => expect(sign({})).toBe("{}"));\n');
  write(dir, "scripts/build.sh", "#!/bin/sh\nset -e\ntsc -p .\n", 0o755);
  write(dir, "assets/logo.bin", Buffer.concat([Buffer.from([0, 1, 2, 255, 0, 10, 13]), randomBytes(256)]));
  fs.mkdirSync(path.join(dir, "docs"), { recursive: true });
  fs.symlinkSync("../README.md", path.join(dir, "docs/README.md"));
  await commitAt(dir, "Initial project", "2026-02-03T09:00:00Z");

  if (options.pokeralph !== false) writePokeralph(dir);
  if (options.clean) return;

  // A stash entry the checkpoint must leave alone.
  write(dir, "tests/auth.test.ts", 'import { sign } from "../src/auth/jwt.js";\n\ntest("sign", () => expect(sign({ a: 1 })).toBe(\'{"a":1}\'));\n');
  await git.raw(["stash", "push", "-q", "-m", "wip: stronger sign test"]);

  // Index ≠ HEAD ≠ working tree for README.md; unstaged edit; a deleted file; untracked files.
  write(dir, "README.md", "# Invoice Service\n\nIssues and tracks invoices. Staged line.\n");
  await git.raw(["add", "README.md"]);
  write(dir, "README.md", "# Invoice Service\n\nIssues and tracks invoices. Staged line.\nUnstaged line.\n");
  write(
    dir,
    "src/index.ts",
    'import { app } from "./routes/invoices.js";\nimport { sign } from "./auth/jwt.js";\n\napp.listen(3000);\nconsole.log(sign({}));\n',
  );
  fs.rmSync(path.join(dir, "src/routes/invoices.ts"));
  write(dir, "src/auth/expiry.ts", "export function isExpired(exp: number, now = Date.now() / 1000): boolean {\n  return exp <= now;\n}\n");
  write(dir, "notes/todo.md", "- refresh tokens\n");

  // Ignored: never captured, never deleted.
  write(dir, "node_modules/left-pad/index.js", "module.exports = (s) => s;\n");
  write(dir, "node_modules/.package-lock.json", "{}\n");
  write(dir, "dist/index.js", "console.log('built');\n");
  write(dir, "debug.log", "GET /invoices 401\n");
  write(dir, ".env", "JWT_SECRET=hunter2\n");

  // A repository of its own inside the work tree.
  const nested = path.join(dir, NESTED);
  fs.mkdirSync(nested, { recursive: true });
  const nestedGit = await initRepo(nested);
  write(nested, "index.js", "module.exports = 42;\n");
  await nestedGit.raw(["add", "-A"]);
  await nestedGit.raw(["commit", "-q", "-m", "vendored lib"]);
  write(nested, "dirty.js", "// uncommitted in the nested repo\n");
}

export function writePokeralph(dir: string, taskId = TASK): void {
  write(
    dir,
    ".pokeralph/config.json",
    `${JSON.stringify({ maxIterationsPerTask: 8, mode: "yolo", feedbackLoops: ["test", "lint", "typecheck"], timeoutMinutes: 20, pollingIntervalMs: 2000, autoCommit: true }, null, 2)}\n`,
  );
  const task = (id: string, title: string, status: string, priority: number) => ({
    id,
    title,
    description: `${title}.`,
    status,
    priority,
    acceptanceCriteria: ["bun test passes"],
    iterations: [],
    createdAt: "2026-02-03T09:12:44.120Z",
    updatedAt: "2026-02-04T14:00:03.511Z",
  });
  write(
    dir,
    ".pokeralph/prd.json",
    `${JSON.stringify(
      {
        name: "Invoice Service",
        description: "HTTP service that issues and tracks invoices.",
        createdAt: "2026-02-03T09:12:44.120Z",
        tasks: [
          task("001-project-setup", "Project setup with Bun workspaces", "completed", 1),
          task(taskId, "JWT authentication middleware", "in_progress", 2),
        ],
      },
      null,
      2,
    )}\n`,
  );
  fs.mkdirSync(path.join(dir, ".pokeralph/battles", taskId, "logs"), { recursive: true });
}

export function battleFile(dir: string, name: string, taskId = TASK): string {
  return path.join(dir, ".pokeralph/battles", taskId, name);
}

export const feedback = (passed: Record<string, boolean>) =>
  Object.fromEntries(Object.entries(passed).map(([name, ok]) => [name, { passed: ok, output: ok ? "ok" : `${name} failed: TS2322`, duration: 1200 }]));

export interface IterationSpec {
  number: number;
  startedAt: string;
  endedAt?: string;
  result: "success" | "failure";
  filesChanged?: string[];
  commitHash?: string;
  feedbackResults?: ReturnType<typeof feedback>;
}

export function writeHistory(dir: string, iterations: IterationSpec[], extra: Record<string, unknown> = {}, taskId = TASK): void {
  const history = {
    taskId,
    status: "running",
    startedAt: "2026-02-04T14:00:03.402Z",
    iterations: iterations.map((i) => ({ output: `iteration ${i.number} output`, filesChanged: [], ...i })),
    ...extra,
  };
  write(dir, path.relative(dir, battleFile(dir, "history.json", taskId)), `${JSON.stringify(history, null, 2)}\n`);
}

// ---------------------------------------------------------------------------------------------
// Observing what must not change
// ---------------------------------------------------------------------------------------------

export interface Observation {
  indexSha: string;
  lsFiles: string;
  status: string;
  head: string;
  branch: string;
  stash: string;
  refs: string;
  ignored: Record<string, string>;
  nestedHead: string;
  nestedStatus: string;
  gitDirEntries: string[];
}

const sha = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

export async function observe(dir: string): Promise<Observation> {
  // The raw index first: nothing below may write it (GIT_OPTIONAL_LOCKS=0), but read it before anyone could.
  const indexSha = sha(fs.readFileSync(path.join(dir, ".git/index")));
  const git = gitIn(dir);
  const ignored: Record<string, string> = {};
  for (const file of IGNORED) {
    const full = path.join(dir, file);
    if (fs.existsSync(full)) ignored[file] = sha(fs.readFileSync(full));
  }
  const nested = path.join(dir, NESTED);
  const hasNested = fs.existsSync(path.join(nested, ".git"));
  return {
    indexSha,
    lsFiles: await git.raw(["ls-files", "-s"]),
    status: await git.raw(["status", "--porcelain=v1", "-uall", "--ignored"]),
    head: (await git.raw(["rev-parse", "HEAD"])).trim(),
    branch: (await git.raw(["symbolic-ref", "-q", "HEAD"])).trim(),
    stash: await git.raw(["stash", "list"]),
    refs: (await git.raw(["for-each-ref", "--format=%(refname) %(objectname)"]))
      .split("\n")
      .filter((l) => l !== "" && !l.startsWith("refs/pokeralph/"))
      .join("\n"),
    ignored,
    nestedHead: hasNested ? (await gitIn(nested).raw(["rev-parse", "HEAD"])).trim() : "",
    nestedStatus: hasNested ? await gitIn(nested).raw(["status", "--porcelain=v1", "-uall"]) : "",
    gitDirEntries: fs.readdirSync(path.join(dir, ".git")).sort(),
  };
}

/** Every file under `dir` except .git/ and the nested repository's .git/, with its bytes (symlinks by target). */
export function worktreeBytes(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (rel: string) => {
    const full = path.join(dir, rel);
    const stat = fs.lstatSync(full);
    if (stat.isSymbolicLink()) files.set(rel, `link:${fs.readlinkSync(full)}`);
    else if (stat.isDirectory()) {
      for (const name of fs.readdirSync(full).sort()) if (name !== ".git") walk(rel === "" ? name : `${rel}/${name}`);
    } else files.set(rel, `${(stat.mode & 0o111) !== 0 ? "x" : "-"}:${sha(fs.readFileSync(full))}`);
  };
  walk("");
  return files;
}

export async function treeFiles(dir: string, commit: string): Promise<string[]> {
  return (await gitIn(dir).raw(["ls-tree", "-r", "-z", "--name-only", commit])).split("\0").filter((p) => p !== "");
}

export async function treeEntries(dir: string, commit: string): Promise<Map<string, string>> {
  const out = await gitIn(dir).raw(["ls-tree", "-r", "-z", commit]);
  const entries = new Map<string, string>();
  for (const record of out.split("\0").filter((r) => r !== "")) {
    const [meta, file] = record.split("\t") as [string, string];
    entries.set(file, meta.split(" ")[0]!);
  }
  return entries;
}

// ---------------------------------------------------------------------------------------------
// Built once, copied per test
// ---------------------------------------------------------------------------------------------

export interface Copied<T> {
  (): Promise<T>;
  /** Build the template now (a beforeAll), so that no single test pays for it. */
  prepare(): Promise<void>;
}

/**
 * `build()` run once per test file; every call gets a fresh copy of what it built: the repository (`dir`, with
 * `git` pointed at the copy) and, when there is one, the state dir (`state`). The rest (hashes, checkpoint ids, the
 * bytes observed while building) is the same in every copy, since the copy is the same repository.
 */
export function builtOnce<T extends { dir: string }>(build: () => Promise<T>): Copied<T> {
  let built: Promise<T> | undefined;
  const prepare = (): Promise<T> => {
    if (built === undefined) {
      built = build();
      built.catch(() => (built = undefined));
    }
    return built;
  };
  const copy = async (): Promise<T> => {
    const template = await prepare();
    const dir = await copyProject(template.dir);
    const result: Record<string, unknown> = { ...template, dir };
    if ("git" in template) result.git = gitIn(dir);
    if ("state" in template && typeof template.state === "string") result.state = copyDir(template.state);
    return result as T;
  };
  return Object.assign(copy, { prepare: async () => void (await prepare()) });
}
