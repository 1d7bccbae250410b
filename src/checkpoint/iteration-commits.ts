/**
 * Which commit holds the state after each iteration of a battle, from history.json and the battle's
 * `[PokéRalph] <taskId>: …` commits (pure: the caller asks git). `checkpoint list` infers its checkpoints from it and
 * `battle status` reports from it, so both always name the same commit.
 *
 * - `commitHash`: the iteration's recorded commit, when the repository holds it;
 * - `commit-subject`: no recorded commit (Claude committed itself), the newest battle commit made during it;
 * - `replaced`: the recorded commit is gone (amended or rebased, then pruned): the battle commit no other iteration
 *   claims that was authored during it (amend and rebase keep the author time; the newest wins), else the oldest
 *   committed after it started and authored before the next one started;
 * - `missing`: recorded, gone, and nothing stands in for it; `none`: no commit at all (pokeralph commits only when
 *   every feedback loop passes).
 */
const SECOND = 1000;

export interface BattleCommitInfo {
  hash: string;
  /** Committer time, ms. */
  timeMs: number;
  /** Author time, ms. */
  authorTimeMs: number;
  subject: string;
}

export interface IterationTimes {
  number: number;
  startedAt: string;
  endedAt?: string;
  commitHash?: string;
}

export type IterationCommit =
  | { via: "commitHash" | "commit-subject"; commit: string }
  | { via: "replaced"; commit: string; replaces: string; subject: string }
  | { via: "missing"; commit: string }
  | { via: "none" };

/**
 * `iterations` in order; `commits` newest first; `resolve` gives a recorded hash's full hash, or null when the
 * repository no longer holds it. Returns one entry per iteration, in the same order.
 */
export function iterationCommits(
  iterations: readonly IterationTimes[],
  commits: readonly BattleCommitInfo[],
  resolve: (hash: string) => string | null,
): IterationCommit[] {
  const out: IterationCommit[] = iterations.map((iteration, i) => {
    if (iteration.commitHash !== undefined) {
      const full = resolve(iteration.commitHash);
      return full === null ? { via: "missing", commit: iteration.commitHash } : { via: "commitHash", commit: full };
    }
    // Commit times have whole seconds; iteration times have milliseconds.
    const from = Math.floor(Date.parse(iteration.startedAt) / SECOND) * SECOND;
    const untilText = iteration.endedAt ?? iterations[i + 1]?.startedAt;
    const until = untilText === undefined ? Infinity : Date.parse(untilText);
    const during = Number.isNaN(from) ? undefined : commits.find((c) => c.timeMs >= from && c.timeMs <= until);
    return during ? { via: "commit-subject", commit: during.hash } : { via: "none" };
  });
  // Replacements last, once every iteration has claimed its own commit.
  const claimed = new Set(out.flatMap((c) => (c.via === "commitHash" || c.via === "commit-subject" ? [c.commit] : [])));
  for (const [i, entry] of out.entries()) {
    if (entry.via !== "missing") continue;
    const replacement = replacementOf(iterations, i, commits, claimed);
    if (replacement === undefined) continue;
    claimed.add(replacement.hash);
    out[i] = { via: "replaced", commit: replacement.hash, replaces: entry.commit, subject: replacement.subject };
  }
  return out;
}

function replacementOf(
  iterations: readonly IterationTimes[],
  i: number,
  commits: readonly BattleCommitInfo[],
  claimed: Set<string>,
): BattleCommitInfo | undefined {
  const iteration = iterations[i]!;
  const from = Math.floor(Date.parse(iteration.startedAt) / SECOND) * SECOND;
  if (Number.isNaN(from)) return undefined;
  const nextText = iterations[i + 1]?.startedAt;
  const next = nextText === undefined ? Infinity : Date.parse(nextText);
  const endText = iteration.endedAt ?? nextText;
  // Commit times have whole seconds: the iteration's end rounded up.
  const until = endText === undefined ? Infinity : Math.ceil(Date.parse(endText) / SECOND) * SECOND;
  const free = commits.filter((c) => !claimed.has(c.hash));
  const during = free.find((c) => c.authorTimeMs >= from && c.authorTimeMs <= until);
  if (during) return during;
  return free.filter((c) => c.timeMs >= from && c.authorTimeMs < next).at(-1);
}
