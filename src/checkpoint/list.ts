/**
 * `checkpoint list`: every checkpoint of a battle, recorded or inferred.
 *
 * Recorded: the sidecar's entries, plus any ref under refs/pokeralph/checkpoints/<taskId>/ no entry names (a create
 * interrupted between its ref and its sidecar write). Inferred: pokeralph itself never persists checkpoints, so for
 * every state the sidecar does not cover they are reconstructed from git and history.json (reference §1.10):
 *   - after iteration n: the iteration's `commitHash`, else the newest `[PokéRalph] <taskId>: …` commit made during
 *     the iteration (Claude often commits itself, and then pokeralph records no commitHash);
 *   - before the battle (0): the parent of the battle's first commit, else the commit HEAD's branch was at when
 *     the battle started.
 * With no sidecar everything is inferred; with one, inference only fills the gaps (marked `source: "inferred"`).
 * A commit a record names but the repository no longer holds (the user amended or rebased it, and git pruned the
 * old object) is offered as the commit that replaced it: a `[PokéRalph] <taskId>: …` commit authored during that
 * iteration (amend and rebase keep the author time), else the first one committed after it started that no other
 * iteration claims (`via: "replaced"`, `replaces: <the missing hash>`). Only when there is none is it listed with
 * `missing: true`.
 */
import { RecoverError } from "../errors.js";
import {
  assertTaskId,
  battleId,
  battlePaths,
  describeCheckpoint,
  feedbackPassed,
  readHistory,
  taskExists,
  type BattleHistory,
  type FeedbackResults,
} from "../stores/pokeralph/battle-files.js";
import {
  changedPaths,
  checkpointRefPrefix,
  commitInfo,
  commitsWithSubject,
  headAt,
  isStatePath,
  listRefs,
  openRepo,
  resolveCommit,
  type CommitInfo,
  type Repo,
} from "./git-snapshot.js";
import { readSidecar } from "../stores/pokeralph/sidecar.js";
import { iterationCommits } from "./iteration-commits.js";

export type CheckpointSource = "recorded" | "inferred";

export interface ListedCheckpoint {
  id: string;
  afterIteration: number;
  /** Full hash when the repository holds it; as recorded when it is missing. */
  commit: string;
  source: CheckpointSource;
  time: string;
  description: string;
  files: string[];
  feedback?: FeedbackResults;
  /** ✓ / ✗ / none recorded. */
  passed: boolean | null;
  /** The private ref keeping it alive (recorded checkpoints). */
  ref?: string;
  battleId?: string;
  /** How an inferred checkpoint was found, or that a recorded one exists only as a ref. */
  via?: "sidecar" | "ref-only" | "commitHash" | "commit-subject" | "replaced" | "first-commit-parent" | "head-at-start";
  /** `via: "replaced"`: the recorded commitHash the repository no longer holds. */
  replaces?: string;
  missing?: true;
}

export interface CheckpointListing {
  taskId: string;
  project: string;
  checkpoints: ListedCheckpoint[];
  notices: string[];
}

const SECOND = 1000;

export async function listCheckpoints(project: string, taskId: string): Promise<CheckpointListing> {
  assertTaskId(taskId);
  const paths = battlePaths(project, taskId);
  if (!taskExists(paths, taskId)) {
    throw new RecoverError("invalid-id", `no task ${taskId} in ${paths.pokeralph} (no battles/${taskId}/, and prd.json does not list it)`);
  }
  const repo = await openRepo(project, "read");
  const notices: string[] = [...repo.notices];
  const sidecar = readSidecar(paths.sidecar);
  const read = readHistory(paths.history);
  if (read.problem !== undefined) notices.push(`${read.problem}: nothing can be inferred from it`);
  const history = read.history;
  const current = history ? battleId(history) : undefined;

  const checkpoints: ListedCheckpoint[] = [];
  for (const entry of sidecar?.checkpoints ?? []) {
    const commit = await resolveCommit(repo, entry.commit);
    checkpoints.push({
      id: entry.id,
      afterIteration: entry.afterIteration,
      commit: commit ?? entry.commit,
      source: "recorded",
      time: entry.time,
      description: entry.description,
      files: entry.files,
      ...(entry.feedback ? { feedback: entry.feedback } : {}),
      passed: feedbackPassed(entry.feedback),
      ref: entry.ref,
      ...(entry.battleId !== undefined ? { battleId: entry.battleId } : {}),
      via: "sidecar",
      ...(commit === null ? { missing: true as const } : {}),
    });
  }

  const named = new Set((sidecar?.checkpoints ?? []).map((c) => c.ref));
  for (const ref of await listRefs(repo, checkpointRefPrefix(taskId))) {
    if (named.has(ref.ref)) continue;
    const tail = ref.ref.slice(checkpointRefPrefix(taskId).length);
    const n = /^(\d+)(-\d+)?$/.exec(tail);
    checkpoints.push({
      // The ref itself is the only stable name such a checkpoint has.
      id: ref.ref,
      afterIteration: n ? Number(n[1]) : 0,
      commit: ref.commit,
      source: "recorded",
      time: ref.time,
      description: `${ref.subject.replace(/^pokeralph checkpoint \S+ #\d+: /, "")} (ref only: not in checkpoints.json)`,
      files: await changedPaths(repo, `${ref.commit}^`, ref.commit).catch(() => []),
      passed: null,
      ref: ref.ref,
      via: "ref-only",
    });
  }

  if (history) {
    const covered = new Set(checkpoints.filter((c) => c.missing !== true && (c.battleId === undefined || c.battleId === current)).map((c) => c.afterIteration));
    for (const inferred of await inferCheckpoints(repo, taskId, history, notices)) {
      if (!covered.has(inferred.afterIteration)) checkpoints.push(inferred);
    }
  }

  checkpoints.sort((a, b) => a.afterIteration - b.afterIteration || a.time.localeCompare(b.time));
  return { taskId, project, checkpoints, notices };
}

/** Reconstruct what git and history.json say about the battle's states (see the file comment). */
async function inferCheckpoints(repo: Repo, taskId: string, history: BattleHistory, notices: string[]): Promise<ListedCheckpoint[]> {
  const id = battleId(history);
  const commits = await commitsWithSubject(repo, `[PokéRalph] ${taskId}: `);
  const iterations = [...history.iterations].sort((a, b) => a.number - b.number);
  const resolved = new Map<string, string | null>();
  for (const it of iterations) if (it.commitHash !== undefined) resolved.set(it.commitHash, await resolveCommit(repo, it.commitHash));
  const found = iterationCommits(iterations, commits, (hash) => resolved.get(hash) ?? null);

  const out: ListedCheckpoint[] = [];
  const uncommitted: number[] = [];
  for (const [i, iteration] of iterations.entries()) {
    const commit = found[i]!;
    if (commit.via === "none") {
      uncommitted.push(iteration.number);
      continue;
    }
    const description = describeCheckpoint(iteration.number, iteration);
    out.push({
      id: `inferred-${iteration.number}`,
      afterIteration: iteration.number,
      commit: commit.commit,
      source: "inferred",
      time: iteration.endedAt ?? iteration.startedAt,
      description:
        commit.via === "replaced"
          ? `${description} (recorded commit ${commit.replaces.slice(0, 7)} is gone; ${commit.commit.slice(0, 7)} replaced it)`
          : description,
      files: iteration.filesChanged.filter((f) => !isStatePath(f)),
      ...(iteration.feedbackResults ? { feedback: iteration.feedbackResults } : {}),
      passed: feedbackPassed(iteration.feedbackResults),
      battleId: id,
      ...(commit.via === "missing" ? { via: "commitHash" as const, missing: true as const } : { via: commit.via }),
      ...(commit.via === "replaced" ? { replaces: commit.replaces } : {}),
    });
    if (commit.via === "replaced") {
      notices.push(
        `iteration ${iteration.number}'s commit ${commit.replaces.slice(0, 7)} is no longer in the repository (amended or rebased, then pruned): ${commit.commit.slice(0, 7)} "${commit.subject}" replaced it, and stands in as that iteration's checkpoint`,
      );
    }
  }
  if (uncommitted.length > 0) {
    notices.push(
      `iteration${uncommitted.length === 1 ? "" : "s"} ${uncommitted.join(", ")} left no commit (pokeralph commits only when every feedback loop passes): no checkpoint can be inferred for ${uncommitted.length === 1 ? "it" : "them"}`,
    );
  }

  const initial = await inferInitial(repo, history, commits, out);
  if (initial) out.unshift(initial);
  return out;
}

async function inferInitial(repo: Repo, history: BattleHistory, commits: CommitInfo[], later: ListedCheckpoint[]): Promise<ListedCheckpoint | null> {
  const base = {
    id: "inferred-0",
    afterIteration: 0,
    source: "inferred" as const,
    time: history.startedAt,
    description: describeCheckpoint(0),
    files: [],
    passed: null,
    battleId: battleId(history),
  };
  // The battle's first commit: the oldest commit with the battle's subject, or one history.json names.
  const known = new Map(commits.map((c) => [c.hash, c]));
  const candidates = [...commits];
  for (const c of later) {
    if (c.missing || known.has(c.commit)) continue;
    const found = await commitInfo(repo, c.commit);
    if (found) candidates.push(found);
  }
  const started = Date.parse(history.startedAt);
  const first = candidates.filter((c) => Number.isNaN(started) || c.timeMs >= Math.floor(started / SECOND) * SECOND).sort((a, b) => a.timeMs - b.timeMs)[0];
  if (first?.parents[0] !== undefined) return { ...base, commit: first.parents[0], via: "first-commit-parent" };
  if (Number.isNaN(started)) return null;
  const atStart = await headAt(repo, started);
  return atStart ? { ...base, commit: atStart, via: "head-at-start" } : null;
}
