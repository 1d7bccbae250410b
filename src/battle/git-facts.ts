/**
 * What git says about a battle's commits, read-only: does each recorded `commitHash` still exist
 * (`git cat-file -e`), is it still in HEAD's history (`git merge-base --is-ancestor`), and which commits carry
 * pokeralph's subject `[PokéRalph] <taskId>: <title>` (Claude often commits itself, and then pokeralph records
 * no hash at all: reference §1.5). Everything goes through simple-git; nothing here changes the repository.
 */
import { simpleGit, type SimpleGit } from "simple-git";

export interface CommitState {
  /** As recorded in history.json. */
  recorded: string;
  exists: boolean;
  /** The full hash, when it exists. */
  full?: string;
  /** In HEAD's history; null when that cannot be asked (no commit on HEAD yet, or the commit is missing). */
  inHead: boolean | null;
  /** Its subject and committer date, when it exists. */
  subject?: string;
  time?: string;
}

export interface PokeralphCommit {
  hash: string;
  subject: string;
  /** Committer date, ISO-8601. */
  time: string;
  /** Author date, ISO-8601: what amend and rebase keep. */
  authorTime: string;
}

export interface GitFacts {
  /** git could be asked (the repository root is inside a work tree and git runs). */
  available: boolean;
  /** Why not, when not. */
  detail?: string;
  head: string | null;
  commits: Map<string, CommitState>;
  /** `[PokéRalph] <taskId>:` commits reachable from HEAD, newest first, by task id. */
  taskCommits: Map<string, PokeralphCommit[]>;
}

export const COMMIT_SUBJECT_PREFIX = "[PokéRalph] ";
/** Hex only: a recorded value is passed to git as an argument, so nothing that could read as an option. */
const HASH = /^[0-9a-f]{4,64}$/i;
const LOG_LIMIT = 2000;

export async function gitFacts(root: string, hashes: Iterable<string>): Promise<GitFacts> {
  const empty = { head: null, commits: new Map<string, CommitState>(), taskCommits: new Map<string, PokeralphCommit[]>() };
  let git: SimpleGit;
  try {
    git = simpleGit({
      baseDir: root,
      // simple-git only rejects when git printed to stderr; `merge-base --is-ancestor` and `cat-file -e` answer
      // "no" with a silent exit 1, so every non-zero exit must reject.
      errors: (error, result) => error ?? (result.exitCode !== 0 ? Buffer.from(`git exited with ${result.exitCode}`) : undefined),
      // A git waiting on a lock or a slow filesystem must not hold a status report forever.
      timeout: { block: 15_000 },
    });
    if (!(await git.checkIsRepo())) return { ...empty, available: false, detail: `${root} is not inside a git repository` };
  } catch (error) {
    return { ...empty, available: false, detail: `git could not be run: ${firstLine(error)}` };
  }
  const head = await succeeds(git, ["rev-parse", "--verify", "-q", "HEAD^{commit}"]);
  const recorded = [...new Set(hashes)];
  const described = await describeAtOnce(git, recorded);
  const commits = new Map<string, CommitState>();
  for (const hash of recorded) commits.set(hash, await commitState(git, hash, head, described));
  const taskCommits = head ? await pokeralphCommits(git) : new Map<string, PokeralphCommit[]>();
  return { available: true, head, commits, taskCommits };
}

interface Described {
  full: string;
  subject: string;
  time: string;
}

/**
 * Every recorded commit that exists, described by one `git log --no-walk` instead of three gits per commit (a battle
 * records one per iteration). Missing objects and non-commits are left out (--ignore-missing; a tree is reported on
 * stderr and skipped). null when git refuses the whole list (an ambiguous short hash): then each is asked alone.
 */
async function describeAtOnce(git: SimpleGit, recorded: string[]): Promise<Described[] | null> {
  const hashes = recorded.map((r) => r.trim()).filter((h) => HASH.test(h));
  if (hashes.length === 0) return [];
  const out = await succeeds(git, ["log", "--no-walk=unsorted", "--ignore-missing", "--format=%H%x1f%s%x1f%cI", ...hashes.map((h) => `${h}^{commit}`)]);
  if (out === null) return null;
  return out
    .split("\n")
    .map((line) => line.split("\x1f"))
    .filter((fields) => fields.length === 3 && HASH.test(fields[0]!))
    .map(([full, subject, time]) => ({ full: full!, subject: subject!, time: time! }));
}

async function commitState(git: SimpleGit, recorded: string, head: string | null, batch: Described[] | null): Promise<CommitState> {
  const hash = recorded.trim();
  if (!HASH.test(hash)) return { recorded, exists: false, inHead: null };
  const one = batch ? (batch.find((d) => d.full.startsWith(hash.toLowerCase())) ?? null) : await describeOne(git, hash);
  if (!one) return { recorded, exists: false, inHead: null };
  const { full, subject, time } = one;
  const described = { ...(subject ? { subject } : {}), ...(time ? { time } : {}) };
  if (!head) return { recorded, exists: true, full, inHead: null, ...described };
  // Exit 0: an ancestor (or HEAD itself); exit 1: not. Both commits exist, so a failure means "not".
  const inHead = (await succeeds(git, ["merge-base", "--is-ancestor", full, head])) !== null;
  return { recorded, exists: true, full, inHead, ...described };
}

async function describeOne(git: SimpleGit, hash: string): Promise<Described | null> {
  const exists = (await succeeds(git, ["cat-file", "-e", `${hash}^{commit}`])) !== null;
  if (!exists) return null;
  const full = (await succeeds(git, ["rev-parse", "--verify", "-q", `${hash}^{commit}`])) ?? hash;
  const [subject = "", time = ""] = ((await succeeds(git, ["show", "-s", "--format=%s%x1f%cI", full])) ?? "").split("\x1f");
  return { full, subject, time };
}

async function pokeralphCommits(git: SimpleGit): Promise<Map<string, PokeralphCommit[]>> {
  const out = await succeeds(git, ["log", `-n${LOG_LIMIT}`, "--fixed-strings", `--grep=${COMMIT_SUBJECT_PREFIX}`, "--format=%H%x1f%s%x1f%cI%x1f%aI", "HEAD"]);
  const byTask = new Map<string, PokeralphCommit[]>();
  for (const line of (out ?? "").split("\n")) {
    const [hash, subject, time, authorTime] = line.split("\x1f");
    if (!hash || subject === undefined || time === undefined || authorTime === undefined || !subject.startsWith(COMMIT_SUBJECT_PREFIX)) continue;
    const match = /^(\S+): /.exec(subject.slice(COMMIT_SUBJECT_PREFIX.length));
    if (!match) continue;
    const list = byTask.get(match[1]!) ?? [];
    list.push({ hash, subject, time, authorTime });
    byTask.set(match[1]!, list);
  }
  return byTask;
}

/** stdout (trimmed) when git exits 0, null when it does not. */
async function succeeds(git: SimpleGit, args: string[]): Promise<string | null> {
  try {
    return (await git.raw(args)).trim();
  } catch {
    return null;
  }
}

function firstLine(error: unknown): string {
  return String((error as Error)?.message ?? error).split("\n")[0]!;
}
