/**
 * `checkpoint create`: snapshot the working tree for a battle, keep the commit under a private ref, record it in the
 * sidecar. The ref is made before the sidecar entry is written: a crash in between leaves a ref that `checkpoint
 * list` still shows (and prune can remove), never a sidecar entry naming a commit nothing keeps alive.
 */
import { randomBytes } from "node:crypto";
import { RecoverError } from "../errors.js";
import { assertTaskId, battleId, battlePaths, describeCheckpoint, readHistory, taskExists } from "../stores/pokeralph/battle-files.js";
import { captureWorktree, changedPaths, checkpointRefPrefix, commitSnapshot, createRef, listRefs, openRepo, resolveCommit, type Repo } from "./git-snapshot.js";
import type { SidecarCheckpoint } from "../stores/pokeralph/sidecar.js";
import { updateSidecar } from "./sidecar.js";

export interface CreateCheckpointOptions {
  taskId: string;
  /** 0 = before the battle; default: the last iteration history.json records (0 when none). */
  afterIteration?: number;
  /** recover's state dir, where the sidecar lock lives (default $XDG_STATE_HOME/recover). */
  stateDir: string;
  /** Where the sidecar's before-image is backed up (default: the state dir's backups/). */
  backupRoot?: string;
  now?: () => Date;
}

export interface CreatedCheckpoint {
  checkpoint: SidecarCheckpoint;
  repo: Repo;
  sidecar: string;
  /** Repositories inside the work tree that were left out, and submodules kept at HEAD's commit. */
  nestedRepos: string[];
  gitlinks: string[];
  notices: string[];
}

/** pokeralph's own id shape (`cp-<epochMs>-<random7>`), so ids look alike whoever made them. */
export function checkpointId(now: Date): string {
  const random = BigInt(`0x${randomBytes(8).toString("hex")}`)
    .toString(36)
    .padStart(7, "0")
    .slice(-7);
  return `cp-${now.getTime()}-${random}`;
}

/** `project` is the directory holding `.pokeralph/` (see findProject). */
export async function createCheckpoint(project: string, options: CreateCheckpointOptions): Promise<CreatedCheckpoint> {
  const { taskId } = options;
  assertTaskId(taskId);
  const paths = battlePaths(project, taskId);
  if (!taskExists(paths, taskId)) {
    throw new RecoverError("invalid-id", `no task ${taskId} in ${paths.pokeralph} (no battles/${taskId}/, and prd.json does not list it)`);
  }
  const notices: string[] = [];
  const read = readHistory(paths.history);
  if (read.problem !== undefined) {
    if (options.afterIteration === undefined)
      throw new RecoverError("store-corrupt", `${read.problem}: cannot tell which iteration this is; pass --iteration N to checkpoint anyway`);
    notices.push(`${read.problem}: recording the checkpoint with no iteration details`);
  }
  const history = read.history;
  const last = Math.max(0, ...(history?.iterations.map((i) => i.number) ?? []));
  const afterIteration = options.afterIteration ?? last;
  if (read.problem === undefined && afterIteration > last) {
    throw new RecoverError(
      "usage",
      history === null
        ? `no iteration of ${taskId} is recorded yet (no history.json): only --iteration 0 (before the battle) is possible`
        : `history.json of ${taskId} records iterations up to ${last}: --iteration takes 0..${last}`,
    );
  }
  if (afterIteration < last)
    notices.push(`the battle has run ${last} iterations: the working tree as it is now is recorded as after iteration ${afterIteration}, as asked`);
  const iteration = history?.iterations.find((i) => i.number === afterIteration);
  const description = describeCheckpoint(afterIteration, iteration);
  const battle = history ? battleId(history) : undefined;

  // Refuse a weird repository before taking the sidecar lock or writing anything.
  const repo = await openRepo(project);
  notices.push(...repo.notices);
  const now = (options.now ?? (() => new Date()))();

  return updateSidecar(
    paths.sidecar,
    taskId,
    async (sidecar) => {
      const capture = await captureWorktree(repo);
      const commit = await commitSnapshot(repo, capture.tree, `pokeralph checkpoint ${taskId} #${afterIteration}: ${description}`);
      const ref = await claimRef(repo, taskId, afterIteration, commit);

      // "files" = what this checkpoint changed: against the latest earlier checkpoint of the same battle, else HEAD.
      const earlier = sidecar.checkpoints
        .filter((c) => c.afterIteration < afterIteration && (battle === undefined || c.battleId === undefined || c.battleId === battle))
        .sort((a, b) => a.afterIteration - b.afterIteration || a.time.localeCompare(b.time))
        .at(-1);
      const base = (earlier && (await resolveCommit(repo, earlier.commit))) ?? repo.head;
      const files = await changedPaths(repo, base, commit);

      const checkpoint: SidecarCheckpoint = {
        id: checkpointId(now),
        afterIteration,
        commit,
        ref,
        time: now.toISOString(),
        description,
        files,
        ...(iteration?.feedbackResults ? { feedback: iteration.feedbackResults } : {}),
        ...(battle !== undefined ? { battleId: battle } : {}),
        parent: repo.head,
        branch: repo.branch,
      };
      sidecar.checkpoints.push(checkpoint);
      if (capture.nestedRepos.length > 0) {
        notices.push(
          `left out ${capture.nestedRepos.length} nested repositor${capture.nestedRepos.length === 1 ? "y" : "ies"} (each has its own .git): ${capture.nestedRepos.join(", ")}`,
        );
      }
      return { checkpoint, repo, sidecar: paths.sidecar, nestedRepos: capture.nestedRepos, gitlinks: capture.gitlinks, notices };
    },
    {
      rule: "checkpoint-create",
      stateDir: options.stateDir,
      ...(options.backupRoot !== undefined ? { backupRoot: options.backupRoot } : {}),
    },
  );
}

/**
 * `refs/pokeralph/checkpoints/<taskId>/<n>` for the checkpoint after iteration n; a second checkpoint of the same
 * iteration (after a retry, say) gets `<n>-2`, `<n>-3`…: an existing checkpoint is never overwritten.
 */
async function claimRef(repo: Repo, taskId: string, afterIteration: number, commit: string): Promise<string> {
  const prefix = checkpointRefPrefix(taskId);
  for (let attempt = 0; attempt < 5; attempt++) {
    const taken = new Set((await listRefs(repo, prefix)).map((r) => r.ref));
    let name = `${prefix}${afterIteration}`;
    for (let k = 2; taken.has(name); k++) name = `${prefix}${afterIteration}-${k}`;
    if (await createRef(repo, name, commit, `recover: checkpoint ${taskId} after iteration ${afterIteration}`)) return name;
  }
  throw new RecoverError("store-busy", `could not claim a ref under ${prefix}: another process keeps creating checkpoints for ${taskId}`);
}
