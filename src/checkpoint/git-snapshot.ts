/**
 * Checkpoints as commits in the project's own object store, made the way `git stash` makes its commits: a
 * temporary index (GIT_INDEX_FILE) takes in the working tree, `write-tree` and `commit-tree` turn it into a commit
 * whose parent is HEAD, and a private ref under refs/pokeralph/ keeps it alive. Such refs are gc roots, are not
 * shown by `git log`/`git branch`, are not pushed, and share objects with the project (a checkpoint costs only what
 * changed). Every git command here that writes an index writes a temporary one, and none moves a branch or touches
 * refs/stash: the user's branch, index, stash and ignored files stay exactly as they were.
 *
 * Restoring is the mirror image: the checkpoint's tree is read into a temporary index and checked out into the
 * working tree path by path (HEAD and the user's index never move). Only what a fresh snapshot of *now* captured
 * can ever be deleted, so ignored files and files git would never capture are safe by construction.
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, lstatSync, readdirSync, rmdirSync, rmSync, writeFileSync, type Dirent, type Stats } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { simpleGit, type SimpleGit } from "simple-git";
import { RecoverError } from "../errors.js";

export const CHECKPOINT_REFS = "refs/pokeralph/checkpoints";

/** Where a rollback (or its undo) keeps the tree it is about to replace: refs/pokeralph/safety/<taskId>/<stamp>. */
export const SAFETY_REFS = "refs/pokeralph/safety";

/** A safety checkpoint: the undo of a rollback, never a state of the battle to go back to or to diff against. */
export function isSafetyCheckpoint(checkpoint: { ref?: string }): boolean {
  return checkpoint.ref?.startsWith(`${SAFETY_REFS}/`) === true;
}

/**
 * Battle state (`history.json`, our sidecar, prd.json task statuses) is put back by a rollback's explicit state
 * step, never by a tree restore: restoring it with the files would rewind the very record of the checkpoints. The
 * working tree's copy is therefore never captured (a checkpoint carries HEAD's copy, so `git diff <parent>
 * <checkpoint>` shows only project changes) and never restored. At any depth: in a monorepo the pokeralph project
 * may be a subdirectory of the repository.
 */
export const STATE_DIR = ".pokeralph";
const STATE_PATHSPEC = `:(exclude,glob)**/${STATE_DIR}/**`;

/** Checkpoint commits carry a fixed identity: no prompt for a missing user.name can block a cron run. */
const IDENTITY = { GIT_AUTHOR_NAME: "recover", GIT_AUTHOR_EMAIL: "recover@localhost", GIT_COMMITTER_NAME: "recover", GIT_COMMITTER_EMAIL: "recover@localhost" };

/**
 * Variables that only steer git's interactive porcelain (editors, pagers, credential prompts, transports). None
 * changes what the plumbing below does, and simple-git refuses to run at all when it sees them in a custom
 * environment (a user with EDITOR or PAGER set would otherwise be locked out).
 */
const INTERACTIVE_ONLY = new Set([
  "EDITOR",
  "VISUAL",
  "PAGER",
  "GIT_PAGER",
  "GIT_EDITOR",
  "GIT_SEQUENCE_EDITOR",
  "GIT_ASKPASS",
  "SSH_ASKPASS",
  "GIT_SSH",
  "GIT_SSH_COMMAND",
  "GIT_PROXY_COMMAND",
  "GIT_EXTERNAL_DIFF",
  "GIT_TEMPLATE_DIR",
]);

/** The repository is the one found from the directory, never one a hook or wrapper left in the environment. */
const REPO_LOCATING = new Set([
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_INDEX_FILE",
  "GIT_COMMON_DIR",
  "GIT_OBJECT_DIRECTORY",
  "GIT_ALTERNATE_OBJECT_DIRECTORIES",
  "GIT_PREFIX",
  "GIT_IMPLICIT_WORK_TREE",
  "GIT_NAMESPACE",
]);

/** The environment every git here runs in: the user's, minus what would steer git elsewhere or ask a question. */
function gitEnv(env: Record<string, string> = {}): Record<string, string> {
  const base: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !INTERACTIVE_ONLY.has(key) && !REPO_LOCATING.has(key)) base[key] = value;
  }
  // `git status`-like refreshes would otherwise rewrite the user's index opportunistically.
  return { ...base, GIT_OPTIONAL_LOCKS: "0", GIT_TERMINAL_PROMPT: "0", ...env };
}

function gitAt(dir: string, env: Record<string, string> = {}): SimpleGit {
  return simpleGit({
    baseDir: dir,
    // A signing prompt (commit.gpgSign=true) would hang a non-interactive run; checkpoints are private anyway.
    config: ["commit.gpgSign=false"],
    // The user's own GIT_CONFIG_GLOBAL / GIT_CONFIG_COUNT decide which config git reads; every argv here is ours.
    unsafe: { allowUnsafeConfigPaths: true, allowUnsafeConfigEnvCount: true },
  }).env(gitEnv(env));
}

/**
 * simple-git resolves (with empty output) when git exits non-zero without writing to stderr, as `rev-parse -q
 * --verify` and `symbolic-ref -q` do: callers read "" as "no such thing". It rejects when git says something.
 */
async function run(git: SimpleGit, args: string[]): Promise<string> {
  try {
    return await git.raw(args);
  } catch (error) {
    throw gitFailure(args, error);
  }
}

function gitFailure(args: string[], error: unknown): RecoverError {
  const text = String((error as Error)?.message ?? error)
    .split("\n")
    .map((l) => l.trim())
    .find((l) => l !== "");
  return new RecoverError("fix-failed", `git ${args[0]} failed: ${text ?? "no message"}`);
}

const splitZ = (out: string): string[] => out.split("\0").filter((s) => s !== "");

export function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

export function isStatePath(path: string): boolean {
  return path.split("/").includes(STATE_DIR);
}

function isInside(path: string, dirs: string[]): string | undefined {
  return dirs.find((d) => path === d || path.startsWith(`${d}/`));
}

// ---------------------------------------------------------------------------------------------------------------
// The repository and the states we refuse to work in
// ---------------------------------------------------------------------------------------------------------------

export interface Repo {
  /** The work tree's top level. */
  root: string;
  /** Absolute; a linked worktree's own git dir. */
  gitDir: string;
  /** HEAD's commit, 40 (or 64) hex. */
  head: string;
  /** The checked-out branch, or null when HEAD is detached. */
  branch: string | null;
  /** Things worth saying that are not problems (a detached HEAD). */
  notices: string[];
}

/**
 * Half-finished operations own the working tree and the index: a snapshot would capture conflict markers as if
 * they were work, and a restore would fight the operation. git names each by a file in the git dir.
 */
const IN_PROGRESS: [marker: string, what: string][] = [
  ["MERGE_HEAD", "a merge is in progress: finish it (git commit) or abort it (git merge --abort)"],
  ["rebase-merge", "a rebase is in progress: finish it (git rebase --continue) or abort it (git rebase --abort)"],
  ["rebase-apply", "a rebase or `git am` is in progress: finish it (--continue) or abort it (git rebase --abort / git am --abort)"],
  ["CHERRY_PICK_HEAD", "a cherry-pick is in progress: finish it (git cherry-pick --continue) or abort it (git cherry-pick --abort)"],
  ["REVERT_HEAD", "a revert is in progress: finish it (git revert --continue) or abort it (git revert --abort)"],
  ["BISECT_LOG", "a bisect is in progress: end it first (git bisect reset)"],
];

/**
 * Find the repository holding `dir` and refuse, in one line, the states a checkpoint cannot be taken in or restored
 * into. `purpose: "read"` (listing, pruning refs: the work tree and index are not involved) only notes them.
 */
export async function openRepo(dir: string, purpose: "snapshot" | "read" = "snapshot"): Promise<Repo> {
  const at = resolve(dir);
  if (!existsSync(at)) throw new RecoverError("store-not-found", `no such directory: ${at}`);
  const found = (await locateAtOnce(at)) ?? (await locateStepByStep(at));
  const { gitDir, root, head, branch } = found;
  const git = gitAt(root);

  const notices: string[] = [];
  for (const [i, [, what]] of IN_PROGRESS.entries()) {
    if (!existsSync(found.markers[i]!)) continue;
    if (purpose === "read") notices.push(what.replace(/:.*/, ""));
    else throw new RecoverError("store-busy", `${root}: ${what}; nothing was changed`);
  }
  const lock = found.markers[IN_PROGRESS.length]!;
  if (purpose === "snapshot" && existsSync(lock)) {
    throw new RecoverError(
      "store-locked",
      `${lock} exists: another git command is running (if none is, a crashed one left it: remove the file); nothing was changed`,
    );
  }
  if (purpose === "snapshot" && (await run(git, ["config", "--bool", "core.sparseCheckout"])).trim() === "true") {
    // Files outside the sparse cone are absent on purpose; a snapshot would record them as deleted.
    throw new RecoverError(
      "unsupported-repository",
      `${root} uses a sparse checkout, which checkpoints do not support (files outside the cone would look deleted); nothing was changed`,
    );
  }
  if (head === "") {
    throw new RecoverError(
      "unsupported-repository",
      `${root} has no commits yet: a checkpoint is a commit whose parent is HEAD (commit once, then try again); nothing was changed`,
    );
  }
  if (branch === null && purpose === "snapshot")
    notices.push(`HEAD is detached at ${head.slice(0, 7)}: fine, the checkpoint's parent is that commit and no branch is involved`);
  return { root, gitDir, head, branch, notices };
}

/** Where a repository is and what state it is in: its git dir, top level, marker paths (absolute), HEAD, branch. */
interface Located {
  gitDir: string;
  root: string;
  /** IN_PROGRESS's markers, then index.lock. */
  markers: string[];
  /** "" when HEAD has no commit yet. */
  head: string;
  branch: string | null;
}

const MARKERS = [...IN_PROGRESS.map(([m]) => m), "index.lock"];

/**
 * The common case in one git process instead of five (every battle and checkpoint command opens the repository,
 * some twice): rev-parse answers each option in order. It fails as a whole on anything unusual (not a repository,
 * no work tree, HEAD without a commit), and then the step-by-step path gives the precise answer.
 */
async function locateAtOnce(at: string): Promise<Located | null> {
  let lines: string[];
  try {
    const args = ["rev-parse", "--absolute-git-dir", "--show-toplevel", ...MARKERS.flatMap((m) => ["--git-path", m]), "HEAD^{commit}", "--abbrev-ref", "HEAD"];
    lines = (await gitAt(at).raw(args)).split("\n").map((l) => l.trim());
  } catch {
    return null;
  }
  const [gitDir, root] = lines;
  const head = lines[2 + MARKERS.length];
  const branch = lines[3 + MARKERS.length];
  if (!gitDir || !root || !head || !/^[0-9a-f]{40,64}$/.test(head) || !branch) return null;
  // --git-path answers relative to the directory git ran in.
  const markers = lines.slice(2, 2 + MARKERS.length).map((p) => resolve(at, p));
  return { gitDir, root, markers, head, branch: branch === "HEAD" ? null : branch };
}

async function locateStepByStep(at: string): Promise<Located> {
  let located: string[];
  try {
    located = (await gitAt(at).raw(["rev-parse", "--absolute-git-dir", "--show-toplevel"])).split("\n");
  } catch (error) {
    const message = String((error as Error)?.message ?? error);
    if (/not a git repository/i.test(message)) {
      throw new RecoverError("not-a-store", `${at} is not in a git repository: checkpoints are git commits (git init, commit once, then try again)`);
    }
    if (/work tree/i.test(message)) {
      throw new RecoverError("not-a-store", `${at} has no work tree (a bare repository, or inside .git): checkpoints snapshot a work tree`);
    }
    throw gitFailure(["rev-parse"], error);
  }
  const gitDir = located[0]!.trim();
  const root = located[1]!.trim();
  const git = gitAt(root);
  const paths = (await run(git, ["rev-parse", ...MARKERS.flatMap((m) => ["--git-path", m])])).split("\n");
  const markers = MARKERS.map((_, i) => resolve(root, paths[i]!.trim()));
  const head = (await run(git, ["rev-parse", "-q", "--verify", "HEAD^{commit}"])).trim();
  const branch = head === "" ? null : (await run(git, ["symbolic-ref", "-q", "--short", "HEAD"])).trim() || null;
  return { gitDir, root, markers, head, branch };
}

// ---------------------------------------------------------------------------------------------------------------
// Snapshots
// ---------------------------------------------------------------------------------------------------------------

/** The temp index lives in the git dir: same volume, so git's own lock-and-rename of it stays atomic. */
async function withTempIndex<T>(repo: Repo, work: (git: SimpleGit, indexFile: string) => Promise<T>): Promise<T> {
  const indexFile = join(repo.gitDir, `pokeralph-index.${process.pid}.${randomBytes(4).toString("hex")}`);
  try {
    return await work(gitAt(repo.root, { GIT_INDEX_FILE: indexFile }), indexFile);
  } finally {
    for (const leftover of [indexFile, `${indexFile}.lock`, `${indexFile}.pathspec`]) rmSync(leftover, { force: true });
  }
}

export interface Capture {
  /** The tree of tracked + untracked-not-ignored files as they are on disk now. */
  tree: string;
  /** Untracked directories that are repositories of their own: not captured (and never restored into). */
  nestedRepos: string[];
  /** Submodules HEAD records (mode 160000): their recorded commit is kept as HEAD has it, never updated. */
  gitlinks: string[];
}

/**
 * Capture the working tree into a tree object through a temporary index: `read-tree HEAD`, then `add -A`, which
 * honours .gitignore, .git/info/exclude and core.excludesFile exactly as the user's own `git add -A` would.
 *
 * Nested repositories: `git ls-files --others` (without --directory) lists an untracked directory as `dir/`, without
 * descending, exactly when that directory is a repository of its own (a `.git` directory or a valid `.git` file;
 * git's own test, so a stray `.git` file that points nowhere is treated as ordinary content). Those, and the
 * submodules HEAD already records, are excluded by pathspec, so `add -A` never records an embedded repository as
 * a gitlink and never looks inside one. Nothing is renamed to hide them (that is how other tools broke repos).
 */
export async function captureWorktree(repo: Repo): Promise<Capture> {
  return withTempIndex(repo, async (git, indexFile) => {
    await run(git, ["read-tree", repo.head]);
    const others = splitZ(await run(git, ["ls-files", "-z", "--others", "--exclude-standard"]));
    const nestedRepos = others.filter((p) => p.endsWith("/")).map((p) => p.slice(0, -1));
    const gitlinks = splitZ(await run(git, ["ls-files", "-z", "--stage"]))
      .filter((entry) => entry.startsWith("160000 "))
      .map((entry) => entry.slice(entry.indexOf("\t") + 1));
    // A pathspec file, not argv: a monorepo can hold more nested repositories than a command line has room for.
    const pathspecs = [".", STATE_PATHSPEC, ...[...nestedRepos, ...gitlinks].map((p) => `:(exclude,top,literal)${p}`)];
    const pathspecFile = `${indexFile}.pathspec`;
    writeFileSync(pathspecFile, pathspecs.map((p) => `${p}\0`).join(""));
    await run(git, ["add", "-A", `--pathspec-from-file=${pathspecFile}`, "--pathspec-file-nul"]);
    const tree = (await run(git, ["write-tree"])).trim();
    return { tree, nestedRepos, gitlinks };
  });
}

/** A commit of `tree` whose only parent is HEAD (as captured by openRepo). */
export async function commitSnapshot(repo: Repo, tree: string, message: string): Promise<string> {
  return (await run(gitAt(repo.root, IDENTITY), ["commit-tree", tree, "-p", repo.head, "-m", message])).trim();
}

/** Resolve a commit (full or abbreviated hash, ref); null when the repository does not hold it (any more). */
export async function resolveCommit(repo: Pick<Repo, "root">, rev: string): Promise<string | null> {
  if (rev.startsWith("-")) return null;
  return (await run(gitAt(repo.root), ["rev-parse", "-q", "--verify", `${rev}^{commit}`])).trim() || null;
}

/** Paths that differ between two commits (or trees), battle state left out. */
export async function changedPaths(repo: Pick<Repo, "root">, from: string, to: string): Promise<string[]> {
  const out = await run(gitAt(repo.root), ["diff-tree", "-r", "--no-renames", "-z", "--name-only", from, to]);
  return splitZ(out).filter((p) => !isStatePath(p));
}

// ---------------------------------------------------------------------------------------------------------------
// History queries (for checkpoints inferred from the battle's own commits)
// ---------------------------------------------------------------------------------------------------------------

export interface CommitInfo {
  hash: string;
  parents: string[];
  /** Committer time, ms since the epoch. */
  timeMs: number;
  /** Author time: what `commit --amend` and `rebase` keep while the committer time moves on. */
  authorTimeMs: number;
  subject: string;
}

const LOG_FORMAT = "--format=%H%x1f%P%x1f%ct%x1f%at%x1f%s%x1e";

function parseLog(out: string): CommitInfo[] {
  return out
    .split("\x1e")
    .map((record) => record.replace(/^\n/, ""))
    .filter((record) => record !== "")
    .map((record) => {
      const [hash = "", parents = "", ct = "0", at = "0", subject = ""] = record.split("\x1f");
      return { hash, parents: parents.split(" ").filter((p) => p !== ""), timeMs: Number(ct) * 1000, authorTimeMs: Number(at) * 1000, subject };
    });
}

/**
 * Commits reachable from HEAD or any branch whose subject starts with `subjectPrefix`, newest first. git's --grep
 * narrows the walk cheaply; the subject test (NFC, as "é" may be stored decomposed) makes it exact.
 */
export async function commitsWithSubject(repo: Pick<Repo, "root">, subjectPrefix: string): Promise<CommitInfo[]> {
  const out = await run(gitAt(repo.root), ["log", "HEAD", "--branches", "-F", `--grep=${subjectPrefix}`, LOG_FORMAT]);
  const wanted = subjectPrefix.normalize("NFC");
  return parseLog(out).filter((c) => c.subject.normalize("NFC").startsWith(wanted));
}

export async function commitInfo(repo: Pick<Repo, "root">, commit: string): Promise<CommitInfo | null> {
  const full = await resolveCommit(repo, commit);
  if (full === null) return null;
  return parseLog(await run(gitAt(repo.root), ["log", "-1", LOG_FORMAT, full]))[0] ?? null;
}

/** Where HEAD's first-parent line stood at `timeMs`: the newest commit on it committed no later than that. */
export async function headAt(repo: Pick<Repo, "root">, timeMs: number): Promise<string | null> {
  const out = await run(gitAt(repo.root), ["rev-list", "-1", "--first-parent", `--before=${Math.floor(timeMs / 1000)}`, "HEAD"]);
  return out.trim() || null;
}

// ---------------------------------------------------------------------------------------------------------------
// Private refs
// ---------------------------------------------------------------------------------------------------------------

export function checkpointRefPrefix(taskId: string): string {
  return `${CHECKPOINT_REFS}/${taskId}/`;
}

export interface RefEntry {
  ref: string;
  commit: string;
  /** Committer time of the commit, ISO-8601 UTC. */
  time: string;
  subject: string;
}

/** Every ref under `prefix` (e.g. `refs/pokeralph/checkpoints/002-auth-system/`), sorted by name. */
export async function listRefs(repo: Pick<Repo, "root">, prefix: string): Promise<RefEntry[]> {
  const out = await run(gitAt(repo.root), ["for-each-ref", "--format=%(refname)%00%(objectname)%00%(committerdate:unix)%00%(subject)", prefix]);
  return out
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      const [ref = "", commit = "", unix = "0", subject = ""] = line.split("\0");
      return { ref, commit, time: new Date(Number(unix) * 1000).toISOString(), subject };
    });
}

/**
 * Create `ref` only if it does not exist yet (git checks under its own ref lock, so two concurrent writers cannot
 * both win): false when it already exists. Existing checkpoints are never overwritten.
 */
export async function createRef(repo: Pick<Repo, "root">, ref: string, commit: string, reason: string): Promise<boolean> {
  try {
    await gitAt(repo.root).raw(["update-ref", "-m", reason, ref, commit, ""]);
    return true;
  } catch (error) {
    if (/already exists|cannot lock ref/i.test(String((error as Error)?.message))) return false;
    throw gitFailure(["update-ref"], error);
  }
}

/** Delete `ref` only if it still points at `commit` (someone may have re-created it meanwhile): false otherwise. */
export async function deleteRef(repo: Pick<Repo, "root">, ref: string, commit: string): Promise<boolean> {
  try {
    await gitAt(repo.root).raw(["update-ref", "-d", ref, commit]);
    return true;
  } catch (error) {
    if (/cannot lock ref|unable to resolve|is at .* but expected/i.test(String((error as Error)?.message))) return false;
    throw gitFailure(["update-ref"], error);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Restore
// ---------------------------------------------------------------------------------------------------------------

export interface RestoreOptions {
  /** Also delete files created since the checkpoint (tracked or untracked-not-ignored, absent from it). */
  hard?: boolean;
  /** Work out what would happen, change nothing. */
  dryRun?: boolean;
  /** The working tree as captured an instant ago (a safety checkpoint's): not captured a second time. */
  capture?: Capture;
}

export interface RestoreResult {
  commit: string;
  /** Written back from the checkpoint: changed or deleted since. */
  restored: string[];
  /** Captured now but absent from the checkpoint. */
  createdSince: string[];
  /** Of createdSince: deleted (hard) … */
  deleted: string[];
  /** … or left in place (the default). */
  kept: string[];
  /** Paths a restore will not touch, and why. */
  skipped: { path: string; reason: string }[];
  /** Of the paths above, those that are symlinks in the checkpoint or now (git mode 120000). */
  links?: string[];
  hard: boolean;
  dryRun: boolean;
}

interface RawChange {
  status: string;
  path: string;
  oldMode: string;
  newMode: string;
}

function parseRawDiff(out: string): RawChange[] {
  const tokens = out.split("\0");
  const changes: RawChange[] = [];
  for (let i = 0; i + 1 < tokens.length; i += 2) {
    const meta = tokens[i]!;
    if (!meta.startsWith(":")) break;
    const [oldMode = "", newMode = "", , , status = ""] = meta.slice(1).split(" ");
    changes.push({ status: status.charAt(0), path: tokens[i + 1]!, oldMode, newMode });
  }
  return changes;
}

/**
 * Put a checkpoint's files back into the working tree without moving the branch or touching the index.
 * Files in the checkpoint that differ now (or are gone) are written back byte for byte, with their mode; files
 * created since (captured by a snapshot of now, absent from the checkpoint) stay unless `hard`. Ignored files and
 * files a snapshot never captures cannot be deleted: deletions come only from the snapshot of now. Refuses (exit 3,
 * nothing written) when a directory stands where the checkpoint has a file, or a file where it has a directory.
 */
export async function restoreTree(repoOrDir: Repo | string, commit: string, options: RestoreOptions = {}): Promise<RestoreResult> {
  const repo = typeof repoOrDir === "string" ? await openRepo(repoOrDir) : repoOrDir;
  const hard = options.hard === true;
  const dryRun = options.dryRun === true;
  const target = await resolveCommit(repo, commit);
  if (target === null)
    throw new RecoverError("backup-not-found", `${commit} is not a commit in ${repo.root} (pruned and garbage-collected?); nothing was changed`);
  const now = options.capture ?? (await captureWorktree(repo));
  const git = gitAt(repo.root);
  const changes = parseRawDiff(await run(git, ["diff-tree", "-r", "--no-renames", "-z", `${target}^{tree}`, now.tree]));

  const restored: string[] = [];
  const createdSince: string[] = [];
  const skipped: { path: string; reason: string }[] = [];
  const links: string[] = [];
  for (const change of changes) {
    const { path } = change;
    if (isStatePath(path)) {
      skipped.push({ path, reason: "battle state (.pokeralph/) is restored by a rollback's state step, not with the files" });
      continue;
    }
    if (change.oldMode === "160000" || change.newMode === "160000") {
      skipped.push({ path, reason: "a submodule (gitlink): its own repository is never touched" });
      continue;
    }
    const nested = isInside(path, now.nestedRepos);
    if (nested !== undefined) {
      skipped.push({ path, reason: `inside ${nested}/, a repository of its own: never touched` });
      continue;
    }
    if (change.oldMode === "120000" || change.newMode === "120000") links.push(path);
    if (change.status === "A") {
      createdSince.push(path);
      continue;
    }
    // Deleted since, yet something is on disk: the snapshot of now did not capture it, so it is ignored now.
    // Overwriting it could not be undone (nothing holds its bytes), so it is left alone.
    const onDisk = change.status === "D" ? lstatOrNull(join(repo.root, path)) : null;
    if (onDisk !== null && !onDisk.isDirectory()) {
      skipped.push({ path, reason: "exists but is ignored now: left as it is (an ignored file is never overwritten, nothing could bring it back)" });
      continue;
    }
    restored.push(path);
  }

  const deleting = new Set(hard ? createdSince : []);
  const blocked: string[] = [];
  for (const path of restored) {
    if (lstatOrNull(join(repo.root, path))?.isDirectory() && !emptiedBy(repo.root, path, deleting)) {
      blocked.push(`${path} is a directory now but a file in the checkpoint`);
    }
    const parts = path.split("/");
    for (let i = 1; i < parts.length; i++) {
      const ancestor = parts.slice(0, i).join("/");
      const stat = lstatOrNull(join(repo.root, ancestor));
      if (stat && !stat.isDirectory() && !deleting.has(ancestor)) blocked.push(`${ancestor} is a file now but a directory in the checkpoint`);
    }
  }
  if (blocked.length > 0) {
    const unique = [...new Set(blocked)];
    throw new RecoverError(
      "restore-conflict",
      `cannot restore ${target.slice(0, 7)}: ${unique.slice(0, 3).join("; ")}${unique.length > 3 ? `; and ${unique.length - 3} more` : ""} (move ${unique.length === 1 ? "it" : "them"} away first${hard ? "" : ", or use --hard if it was created since"}); nothing was changed`,
    );
  }

  const deleted = hard ? [...createdSince] : [];
  const kept = hard ? [] : [...createdSince];
  if (!dryRun) {
    // Deletions first: a file created since may stand where the checkpoint has a directory.
    for (const path of deleted) {
      rmSync(join(repo.root, path), { force: true });
      removeEmptyParents(repo.root, path);
    }
    if (restored.length > 0) {
      await withTempIndex(repo, async (tempGit) => {
        await run(tempGit, ["read-tree", target]);
        for (const chunk of chunks(restored, 64 * 1024)) await run(tempGit, ["checkout-index", "-f", "--", ...chunk]);
      });
    }
  }
  return { commit: target, restored, createdSince, deleted, kept, skipped, links, hard, dryRun };
}

export interface TreeFile {
  path: string;
  /** The git mode: 100644, 100755 or 120000 (a symlink). */
  mode: string;
  bytes: Buffer;
}

/**
 * The files `paths` as `commit` has them, bytes and mode, read by one `ls-tree` and one `cat-file --batch` (simple-git
 * hands back text, and these are bytes). A path the commit does not hold as a blob is left out.
 */
export function filesAt(repo: Pick<Repo, "root">, commit: string, paths: readonly string[]): TreeFile[] {
  if (paths.length === 0) return [];
  const git = (args: string[], input?: Buffer): Buffer => {
    const ran = spawnSync("git", args, { cwd: repo.root, env: gitEnv(), input, maxBuffer: 1 << 30 });
    if (ran.error || ran.status !== 0) {
      throw new RecoverError(
        "fix-failed",
        `git ${args[0]} failed: ${ran.error?.message ?? (ran.stderr.toString("utf8").trim().split("\n")[0] || `exit ${ran.status}`)}`,
      );
    }
    return ran.stdout;
  };
  // The whole tree, filtered here: ls-tree's path arguments are patterns without pathspec magic.
  const wanted = new Set(paths);
  const entries: { path: string; mode: string; sha: string }[] = [];
  for (const line of git(["ls-tree", "-r", "-z", "--full-tree", commit]).toString("utf8").split("\0")) {
    const match = /^(\d+) blob ([0-9a-f]+)\t(.*)$/s.exec(line);
    if (match && wanted.has(match[3]!)) entries.push({ mode: match[1]!, sha: match[2]!, path: match[3]! });
  }
  const out = git(["cat-file", "--batch"], Buffer.from(entries.map((e) => `${e.sha}\n`).join("")));
  const files: TreeFile[] = [];
  let at = 0;
  for (const entry of entries) {
    const header = out.indexOf(0x0a, at);
    const [, type, size] = out.subarray(at, header).toString("utf8").split(" ");
    if (type !== "blob") throw new RecoverError("fix-failed", `git cat-file: ${entry.path} in ${commit.slice(0, 7)} is not a blob`);
    const length = Number(size);
    files.push({ path: entry.path, mode: entry.mode, bytes: Buffer.from(out.subarray(header + 1, header + 1 + length)) });
    at = header + 1 + length + 1;
  }
  return files;
}

/** Whether deleting `deleting` leaves directory `dir` with no files at all (so it goes, and a file can take its place). */
function emptiedBy(root: string, dir: string, deleting: Set<string>): boolean {
  let entries: Dirent[];
  try {
    entries = readdirSync(join(root, dir), { withFileTypes: true });
  } catch {
    return false;
  }
  return entries.every((e) => {
    const path = `${dir}/${e.name}`;
    return e.isDirectory() ? emptiedBy(root, path, deleting) : deleting.has(path);
  });
}

/** Directories a deletion emptied go too (git does not track directories); never the root, never a non-empty one. */
export function removeEmptyParents(root: string, path: string): void {
  for (let dir = dirname(path); dir !== "." && dir !== "" && dir !== "/"; dir = dirname(dir)) {
    try {
      rmdirSync(join(root, dir));
    } catch {
      return;
    }
  }
}

/** Split paths into argv-sized groups (the kernel limits one command line). */
function* chunks(paths: string[], maxBytes: number): Generator<string[]> {
  let current: string[] = [];
  let size = 0;
  for (const path of paths) {
    if (current.length > 0 && size + path.length + 1 > maxBytes) {
      yield current;
      current = [];
      size = 0;
    }
    current.push(path);
    size += path.length + 1;
  }
  if (current.length > 0) yield current;
}

/** The names of this module's temporary files in the git dir (removed in `finally`; tests check none is left). */
export const TEMP_INDEX_PATTERN = /^pokeralph-index\.\d+\.[0-9a-f]+/;
