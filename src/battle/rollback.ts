/**
 * `battle rollback`: the plan and its application. A rollback puts a battle back at a checkpoint: the working tree
 * (restoreTree, never the branch or the index), and the battle state (history.json truncated to the checkpoint's
 * iteration, status `paused`, or `pending` with no iterations for a full rollback). Rolled-back iterations are
 * archived in the sidecar (`checkpoints.json` → `rolledBack`), never lost (reference §1.4: the spec's UI says
 * history is preserved while its pseudo-code truncates; we do both).
 *
 * Applying: a safety checkpoint of the current state first (refs/pokeralph/safety/<taskId>/<stamp>, recorded in the
 * sidecar), then the files, history.json and checkpoints.json in ONE transaction of the battle's store (backed up,
 * journalled, atomic like a session repair): a crash leaves the battle as it was or rolled back, and
 * `recover session restore <backup-id>` (or `battle rollback --undo`, undo-rollback.ts) puts all of it back.
 */
import { join, relative } from "node:path";
import type { RecordKey, StoredImage } from "../model/change.js";
import { type NextStep, RecoverError } from "../errors.js";
import type { ImageTarget, StoreFormat } from "../stores/store.js";
import { NEW_FILE_MODE } from "../stores/file-writer.js";
import { BattleFilesStore, refuseSymlink } from "../stores/pokeralph/battle-store.js";
import { withStoreTransaction } from "../txn/store-transaction.js";
import { changesOfTargets } from "../txn/targets.js";
import type { Backup } from "../txn/backup-store.js";
import { assertTaskId, battleId, battlePaths, readHistory, readStateText, type BattlePaths } from "../stores/pokeralph/battle-files.js";
import { checkpointId } from "../checkpoint/create.js";
import {
  captureWorktree,
  changedPaths,
  commitSnapshot,
  createRef,
  filesAt,
  isSafetyCheckpoint,
  lstatOrNull,
  openRepo,
  removeEmptyParents,
  SAFETY_REFS,
  resolveCommit,
  restoreTree,
  type Capture,
  type Repo,
  type RestoreResult,
} from "../checkpoint/git-snapshot.js";
import { listCheckpoints, type ListedCheckpoint } from "../checkpoint/list.js";
import { sidecarLockKey } from "../checkpoint/sidecar.js";
import { readRollbacks, readSidecar, SIDECAR_SCHEMA_VERSION } from "../stores/pokeralph/sidecar.js";
import type { Json } from "../model/edit.js";

/** What the backups and the journal call a battle's state files (a FileWriter store rooted at the battle folder). */
export const BATTLE_STORE_FORMAT: StoreFormat = "pokeralph-battle";

export type RollbackMode = { kind: "iteration"; iteration: number } | { kind: "checkpoint"; id: string } | { kind: "full" };

export interface RollbackTarget {
  checkpoint: string;
  afterIteration: number;
  commit: string;
  ref?: string;
  description: string;
  /** The recorded commit it stands in for, when that one is gone (amended or rebased away). */
  replaces?: string;
}

export interface StateFile {
  /** Absolute path. */
  path: string;
  /** Relative to the repository root (the backup's record id). */
  id: string;
  before: string | null;
  after: string | null;
}

export interface RollbackPlan {
  taskId: string;
  project: string;
  paths: BattlePaths;
  repo: Repo;
  mode: RollbackMode;
  hard: boolean;
  target: RollbackTarget;
  /** restoreTree's dry run. */
  files: RestoreResult;
  /** Iteration numbers history.json loses (archived in the sidecar). */
  iterationsRolledBack: number[];
  /** Iterations a rollback to a safety checkpoint brings back from the archive. */
  iterationsReinstated: number[];
  statusBefore: string | null;
  statusAfter: string | null;
  history: StateFile;
  sidecar: StateFile;
  notices: string[];
}

/** Anything to do: files to write or delete, or battle state to change. */
export function hasChanges(plan: RollbackPlan): boolean {
  return plan.files.restored.length > 0 || plan.files.deleted.length > 0 || plan.history.before !== plan.history.after || plan.iterationsRolledBack.length > 0;
}

interface ArchiveEntry extends Json {
  at: string;
  fromIteration: number;
  iterations: Json[];
  safetyRef: string;
}

/** A rollback as the sidecar's archive records it: when, and the checkpoint it went to. */
export interface RecordedRollback {
  at: string;
  target: { checkpoint: string; afterIteration: number; commit: string };
}

/** The newest rollback the sidecar records. */
export function lastRollback(sidecar: Json | null): RecordedRollback | null {
  const archive = Array.isArray(sidecar?.rolledBack) ? (sidecar.rolledBack as Json[]) : [];
  let newest: RecordedRollback | null = null;
  for (const entry of archive) {
    const target = entry.target as Json | undefined;
    if (typeof entry.at !== "string" || typeof target?.commit !== "string") continue;
    if (newest !== null && entry.at < newest.at) continue;
    newest = {
      at: entry.at,
      target: { checkpoint: String(target.checkpoint ?? target.commit), afterIteration: Number(target.afterIteration ?? 0), commit: target.commit },
    };
  }
  return newest;
}

/** Pick the checkpoint a mode names. */
async function chooseTarget(
  repo: Repo,
  listed: ListedCheckpoint[],
  mode: RollbackMode,
  lastIteration: number,
  current: string | undefined,
  battle: { taskId: string; project: string },
): Promise<RollbackTarget> {
  const { taskId } = battle;
  const listThem: NextStep = { words: ["checkpoint", "list", taskId], why: "to see its checkpoints", repo: battle.project };
  const usable = listed.filter((c) => c.missing !== true);
  const toTarget = (c: ListedCheckpoint): RollbackTarget => ({
    checkpoint: c.id,
    afterIteration: c.afterIteration,
    commit: c.commit,
    ...(c.ref !== undefined ? { ref: c.ref } : {}),
    description: c.description,
    ...(c.replaces !== undefined ? { replaces: c.replaces } : {}),
  });
  if (mode.kind === "checkpoint") {
    const id = mode.id;
    const found =
      usable.find((c) => c.id === id || c.ref === id) ?? (/^[0-9a-f]{7,64}$/.test(id) ? usable.filter((c) => c.commit.startsWith(id)).at(-1) : undefined);
    if (found) return toTarget(found);
    const missing = listed.find((c) => c.id === id || c.ref === id);
    if (missing)
      throw new RecoverError(
        "backup-not-found",
        `checkpoint ${id} names commit ${missing.commit.slice(0, 7)}, which the repository no longer holds; nothing was changed`,
      );
    if (id.startsWith("refs/pokeralph/")) {
      const commit = await resolveCommit(repo, id);
      if (commit !== null) return { checkpoint: id, afterIteration: lastIteration, commit, ref: id, description: `${id} (not recorded in checkpoints.json)` };
    }
    throw new RecoverError("invalid-id", `no checkpoint ${JSON.stringify(id)} for ${taskId}`, listThem);
  }
  const k = mode.kind === "full" ? 0 : mode.iteration - 1;
  const candidates = usable
    .filter((c) => c.afterIteration === k && !isSafetyCheckpoint(c) && (c.battleId === undefined || current === undefined || c.battleId === current))
    // Recorded before inferred; the newest recorded (a re-taken checkpoint of the same iteration) wins.
    .sort((a, b) => (a.source === b.source ? a.time.localeCompare(b.time) : a.source === "inferred" ? -1 : 1));
  const chosen = candidates.at(-1);
  if (!chosen) {
    throw new RecoverError(
      "backup-not-found",
      `no checkpoint of ${taskId} ${k === 0 ? "from before the battle" : `after iteration ${k}`} (recorded or inferred): pick one with --to-checkpoint <id>; nothing was changed`,
      listThem,
    );
  }
  return toTarget(chosen);
}

function iterationsOf(history: Json | null): Json[] {
  const list = history?.iterations;
  return Array.isArray(list) ? (list as Json[]) : [];
}

const numberOf = (it: Json): number => (typeof it.number === "number" ? it.number : 0);

/** pokeralph writes `JSON.stringify(value, null, 2)`; keep whatever trailing newline the file had. */
function serialise(value: unknown, like: string | null): string {
  const text = JSON.stringify(value, null, 2);
  return like !== null && !like.endsWith("\n") ? text : `${text}\n`;
}

export interface StateChange {
  historyAfter: string | null;
  sidecarAfter: string | null;
  rolledBack: number[];
  reinstated: number[];
  statusAfter: string | null;
}

/**
 * The battle state after rolling back to `target` (pure: text in, text out). `safety` is the safety checkpoint's
 * sidecar entry (null in a preview: the archive names a placeholder ref).
 */
export function nextState(
  historyText: string | null,
  sidecarText: string | null,
  taskId: string,
  mode: RollbackMode,
  target: RollbackTarget,
  safety: { ref: string; entry: Json | null },
  now: Date,
): StateChange {
  const history = historyText === null ? null : (JSON.parse(historyText) as Json);
  const sidecar: Json = sidecarText === null ? { schemaVersion: SIDECAR_SCHEMA_VERSION, taskId, checkpoints: [] } : (JSON.parse(sidecarText) as Json);
  const archive = Array.isArray(sidecar.rolledBack) ? (sidecar.rolledBack as ArchiveEntry[]) : [];
  const k = mode.kind === "full" ? 0 : target.afterIteration;
  const iterations = iterationsOf(history);
  const kept = mode.kind === "full" ? [] : iterations.filter((it) => numberOf(it) <= k);
  const gone = mode.kind === "full" ? iterations : iterations.filter((it) => numberOf(it) > k);

  // Rolling back to a safety checkpoint undoes a rollback: the iterations it archived come back.
  const reinstated: Json[] = [];
  if (target.ref !== undefined && mode.kind !== "full") {
    const have = new Set(kept.map(numberOf));
    for (const entry of archive.filter((e) => e.safetyRef === target.ref)) {
      for (const it of entry.iterations) {
        if (numberOf(it) <= k && !have.has(numberOf(it))) {
          reinstated.push(it);
          have.add(numberOf(it));
        }
      }
    }
  }

  let historyAfter: string | null = historyText;
  let statusAfter: string | null = typeof history?.status === "string" ? history.status : null;
  if (history !== null) {
    const next: Json = { ...history, iterations: [...kept, ...reinstated].sort((a, b) => numberOf(a) - numberOf(b)) };
    if (mode.kind === "full") {
      next.status = "pending";
      delete next.error;
      delete next.completedAt;
      delete next.durationMs;
    } else {
      next.status = "paused";
    }
    statusAfter = next.status as string;
    historyAfter = serialise(next, historyText);
  }

  const entry = safety.entry;
  if (entry !== null) (sidecar.checkpoints as Json[]).push(entry);
  // Every applied rollback is recorded, even one that drops no iteration: `battle fix` diffs against where it went.
  if (gone.length > 0 || entry !== null) {
    const archived: ArchiveEntry = {
      at: now.toISOString(),
      fromIteration: k + 1,
      iterations: gone,
      safetyRef: safety.ref,
      target: { checkpoint: target.checkpoint, afterIteration: target.afterIteration, commit: target.commit },
      ...(history !== null
        ? { statusBefore: history.status, ...(typeof history.startedAt === "string" ? { battleId: battleId({ taskId, startedAt: history.startedAt }) } : {}) }
        : {}),
    };
    sidecar.rolledBack = [...archive, archived];
  }
  const sidecarChanged = entry !== null || gone.length > 0;
  const sidecarAfter = sidecarChanged ? serialise(sidecar, sidecarText) : sidecarText;
  return { historyAfter, sidecarAfter, rolledBack: gone.map(numberOf), reinstated: reinstated.map(numberOf), statusAfter };
}

export interface PlanOptions {
  hard?: boolean;
  now?: Date;
}

/** Everything a rollback would do, changing nothing (restoreTree's dry run; the state as text before and after). */
export async function planRollback(project: string, taskId: string, mode: RollbackMode, options: PlanOptions = {}): Promise<RollbackPlan> {
  assertTaskId(taskId);
  const paths = battlePaths(project, taskId);
  // Refuses a weird repository (a merge or rebase in progress, index.lock, sparse checkout, no commit) up front.
  const repo = await openRepo(project);
  // The state files are rewritten: a link there is refused now, as the transaction would refuse it (the dry run too).
  for (const file of [paths.history, paths.sidecar]) refuseSymlink(file);
  const read = readHistory(paths.history);
  if (read.problem !== undefined) throw new RecoverError("store-corrupt", `${read.problem}: fix it (or restore it) before rolling back; nothing was changed`);
  const lastIteration = Math.max(0, ...(read.history?.iterations.map((i) => i.number) ?? []));
  if (mode.kind === "iteration" && (mode.iteration < 1 || mode.iteration > lastIteration)) {
    throw new RecoverError(
      "usage",
      lastIteration === 0
        ? `${taskId} has no recorded iteration to roll back (use --full to go back to before the battle)`
        : `--iteration takes 1..${lastIteration} for ${taskId} (the iterations history.json records)`,
    );
  }
  readRollbacks(readSidecar(paths.sidecar), paths.sidecar); // a damaged sidecar stops here, before anything is planned on it
  const listing = await listCheckpoints(project, taskId);
  const current = read.history ? battleId(read.history) : undefined;
  const target = await chooseTarget(repo, listing.checkpoints, mode, lastIteration, current, { taskId, project });
  const files = withoutSymlinks(repo.root, await restoreTree(repo, target.commit, { hard: options.hard === true, dryRun: true }));
  const historyBefore = readStateText(paths.history);
  const sidecarBefore = readStateText(paths.sidecar);
  const state = nextState(
    historyBefore,
    sidecarBefore,
    taskId,
    mode,
    target,
    { ref: `${SAFETY_REFS}/${taskId}/<taken when applied>`, entry: null },
    options.now ?? new Date(),
  );
  const rel = (p: string) => relative(repo.root, p).split("\\").join("/");
  return {
    taskId,
    project,
    paths,
    repo,
    mode,
    hard: options.hard === true,
    target,
    files,
    iterationsRolledBack: state.rolledBack,
    iterationsReinstated: state.reinstated,
    statusBefore: read.history?.status ?? null,
    statusAfter: state.statusAfter,
    history: { path: paths.history, id: rel(paths.history), before: historyBefore, after: state.historyAfter },
    sidecar: { path: paths.sidecar, id: rel(paths.sidecar), before: sidecarBefore, after: state.sidecarAfter },
    notices: [
      ...repo.notices,
      ...listing.notices.filter((n) => target.replaces === undefined || !n.includes(target.replaces.slice(0, 7))),
      ...(target.replaces !== undefined
        ? [
            `iteration ${target.afterIteration}'s recorded commit ${target.replaces.slice(0, 7)} is no longer in the repository: rolling back to ${target.commit.slice(0, 7)}, the commit that replaced it`,
          ]
        : []),
    ],
  };
}

export interface ApplyOptions {
  stateDir: string;
  backupRoot: string;
  now?: () => Date;
}

export interface RollbackOutcome {
  safety: { ref: string; commit: string; id: string };
  files: RestoreResult;
  iterationsRolledBack: number[];
  iterationsReinstated: number[];
  backup: Backup | null;
  history: StateFile;
  sidecar: StateFile;
  notices: string[];
}

/**
 * The tree as it is now, HEAD as its parent, kept alive by a private ref under refs/pokeralph/safety/<taskId>/: taken
 * before anything a rollback (or its undo) writes, so the state it replaces can always be gone back to.
 */
export async function takeSafetyCheckpoint(repo: Repo, taskId: string, why: string, now: Date): Promise<{ ref: string; commit: string; capture: Capture }> {
  const capture = await captureWorktree(repo);
  const commit = await commitSnapshot(repo, capture.tree, `pokeralph safety checkpoint ${taskId}: ${why}`);
  let ref = `${SAFETY_REFS}/${taskId}/${safetyStamp(now)}`;
  for (let k = 2; !(await createRef(repo, ref, commit, `recover: safety checkpoint of ${taskId} ${why}`)); k++) {
    if (k > 20) throw new RecoverError("store-busy", `could not create a safety ref under ${SAFETY_REFS}/${taskId}/; nothing was changed`);
    ref = `${SAFETY_REFS}/${taskId}/${safetyStamp(now)}-${k}`;
  }
  return { ref, commit, capture };
}

function safetyStamp(now: Date): string {
  return now
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.(\d{3})Z$/, "$1Z");
}

/**
 * Apply a plan: safety checkpoint, files, then the state in one backed-up transaction. Under the sidecar's lock
 * (no `checkpoint create` interleaves) and the battle folder's store lock (its journal settled first).
 */
export async function applyRollback(plan: RollbackPlan, options: ApplyOptions): Promise<RollbackOutcome> {
  const clock = options.now ?? (() => new Date());
  const { taskId, paths } = plan;
  const notices: string[] = [];
  // One transaction of the battle's store (its folder: its lock and journal, where every battle write takes them)
  // holds the project's files too: they are named by absolute path, like the state files.
  const store = new BattleFilesStore(paths.battle);
  const transaction = { stateDir: options.stateDir, backupRoot: options.backupRoot, refuseUnwritable: false, alsoLock: [sidecarLockKey(paths.sidecar)] };
  return withStoreTransaction(
    store,
    async (tx): Promise<RollbackOutcome> => {
      const { writer } = tx;
      if (tx.settled) notices.push(tx.settled);

      // 1. The safety checkpoint: the tree as it is now, HEAD as its parent, kept alive by a private ref.
      const repo = await openRepo(plan.project);
      const now = clock();
      const { ref, commit, capture } = await takeSafetyCheckpoint(repo, taskId, `before rollback to ${plan.target.checkpoint}`, now);
      const historyNow = readStateText(paths.history);
      const read = readHistory(paths.history);
      if (read.problem !== undefined) throw new RecoverError("store-changed", `${read.problem} since the rollback was planned; nothing was changed`);
      const lastIteration = Math.max(0, ...(read.history?.iterations.map((i) => i.number) ?? []));
      const safetyId = checkpointId(now);
      const entry: Json = {
        id: safetyId,
        afterIteration: lastIteration,
        commit,
        ref,
        time: now.toISOString(),
        description: `Safety checkpoint before rollback to ${plan.target.description.replace(/\s*\(.*$/, "")} (${plan.target.checkpoint})`,
        files: await changedPaths(repo, repo.head, commit),
        ...(read.history ? { battleId: battleId(read.history) } : {}),
        parent: repo.head,
        branch: repo.branch,
        kind: "safety",
      };

      // 2. The files: the checkpoint's tree, planned again under the lock against the tree the safety checkpoint just
      // captured, as targets of the same transaction as the state (backed up, journalled, undone by `session restore`
      // with it). HEAD, the branch and the index never move.
      const files = withoutSymlinks(repo.root, await restoreTree(repo, plan.target.commit, { hard: plan.hard, dryRun: true, capture }));
      const targets = treeTargets(repo.root, files, (key) => writer.read(key), taskId);

      // 3. The state, from the files as they are now (the lock holds off other recovers; pokeralph is checked by the caller).
      readRollbacks(readSidecar(paths.sidecar), paths.sidecar); // damaged since the plan checked it: stop, as the plan would have
      const sidecarNow = readStateText(paths.sidecar);
      const state = nextState(historyNow, sidecarNow, taskId, plan.mode, plan.target, { ref, entry }, now);
      const files2: StateFile[] = [
        { ...plan.history, before: historyNow, after: state.historyAfter },
        { ...plan.sidecar, before: sidecarNow, after: state.sidecarAfter },
      ];
      for (const file of files2) {
        if (file.before === file.after || file.after === null) continue;
        const key = { record: "file" as const, id: file.id, sessionId: taskId, path: file.path };
        const before = writer.read(key);
        if ((before.exists ? before.bytes.toString("utf8") : null) !== file.before) {
          throw new RecoverError(
            "store-changed",
            `${file.path} changed while rolling back (is pokeralph running?); nothing was changed; safety checkpoint ${ref}`,
          );
        }
        targets.push({
          key,
          before,
          after: { exists: true, bytes: Buffer.from(file.after), mode: before.exists ? (before.mode ?? NEW_FILE_MODE) : NEW_FILE_MODE },
        });
      }
      let backup: Backup | null = null;
      if (targets.length > 0) backup = tx.commit({ kind: "repair", sessions: [taskId], changes: changesOfTargets(targets, "battle-rollback"), targets });
      // Folders a deletion emptied go too (git tracks no folders); a restore of the backup makes them again.
      for (const path of files.deleted) removeEmptyParents(repo.root, path);
      return {
        safety: { ref, commit, id: safetyId },
        files,
        iterationsRolledBack: state.rolledBack,
        iterationsReinstated: state.reinstated,
        backup,
        history: files2[0]!,
        sidecar: files2[1]!,
        notices,
      };
    },
    transaction,
  );
}

/**
 * A symlink is left to git: the file transaction writes bytes, and would put a file where a link was (or follow the
 * link). Such paths, in the checkpoint or on disk now, move from what is restored or deleted to what is left alone.
 */
export function withoutSymlinks(root: string, files: RestoreResult): RestoreResult {
  const isLink = (path: string) => lstatOrNull(join(root, path))?.isSymbolicLink() === true;
  const links = new Set([...files.restored, ...files.deleted, ...files.createdSince].filter(isLink));
  for (const path of files.links ?? []) links.add(path);
  if (links.size === 0) return files;
  const reason = "a symlink (now or in the checkpoint): left as it is; git checkout <commit> -- <path> puts it back";
  return {
    ...files,
    restored: files.restored.filter((p) => !links.has(p)),
    deleted: files.deleted.filter((p) => !links.has(p)),
    createdSince: files.createdSince.filter((p) => !links.has(p)),
    kept: files.kept.filter((p) => !links.has(p)),
    skipped: [...files.skipped, ...[...links].sort().map((path) => ({ path, reason }))],
  };
}

/** The restore as file targets: each restored path's bytes and mode from the checkpoint, each deletion an absence. */
function treeTargets(root: string, files: RestoreResult, read: (key: RecordKey) => StoredImage, taskId: string): ImageTarget[] {
  const keyOf = (path: string): RecordKey => ({ record: "file", id: path, sessionId: taskId, path: join(root, path) });
  const targets: ImageTarget[] = [];
  for (const file of filesAt({ root }, files.commit, files.restored)) {
    const key = keyOf(file.path);
    if (lstatOrNull(key.path!)?.isDirectory()) {
      throw new RecoverError("restore-conflict", `cannot restore ${file.path}: a directory stands there now (move it away first); nothing was changed`);
    }
    const before = read(key);
    const executable = file.mode === "100755";
    // git records only the executable bit: the rest of the mode stays the file's own (umask, group bits).
    const base = before.exists ? (before.mode ?? NEW_FILE_MODE) : NEW_FILE_MODE;
    const mode = executable ? base | ((base & 0o444) >> 2) : base & ~0o111;
    if (before.exists && before.bytes.equals(file.bytes) && before.mode === mode) continue;
    targets.push({ key, before, after: { exists: true, bytes: file.bytes, mode } });
  }
  for (const path of files.deleted) {
    const key = keyOf(path);
    const before = read(key);
    if (before.exists) targets.push({ key, before, after: { exists: false } });
  }
  return targets;
}
