/**
 * Battle findings: stable rule ids with a fixed severity (as the session rules have), each reported with the
 * file it concerns and a message that says why it matters. Errors are what stops a battle from going on as it
 * is (a crash, a failure, a commit its history depends on, a file pokeralph would reject); warnings are worth
 * knowing but leave the battle usable. Pure: built from what load, classify and git-facts gathered.
 */
import type { Severity } from "../model/finding.js";
import { formatAge, type Classification } from "./classify.js";
import type { GitFacts } from "./git-facts.js";
import type { Artefact, LoadedBattle, LoadedProject } from "../stores/pokeralph/load.js";
import type { LoadedFile } from "../stores/pokeralph/read-file.js";
import { failureSeverity } from "./recovery-options.js";
import { TASK_ID_PATTERN } from "../stores/pokeralph/schemas.js";
import { iterationCommits } from "../checkpoint/iteration-commits.js";

export interface BattleRule {
  id: string;
  severity: Severity;
  description: string;
}

export const BATTLE_RULES = [
  {
    id: "battle-crashed",
    severity: "error",
    description: "history.json says running or awaiting_approval, but no pokeralph server runs it and its progress is stale",
  },
  { id: "battle-failed", severity: "error", description: "the battle failed; the failure is classified with the resume strategies it allows" },
  {
    id: "commit-missing",
    severity: "error",
    description: "an iteration's recorded commitHash is not in the repository, and no commit of the battle stands in for it",
  },
  {
    id: "commit-not-ancestor",
    severity: "error",
    description: "an unfinished battle's recorded commit is no longer in HEAD's history (reset, rebase, or another branch)",
  },
  { id: "invalid-file", severity: "error", description: "a pokeralph file cannot be read, does not parse, or pokeralph's own schema would reject it" },
  {
    id: "ralph-loop-stale",
    severity: "error",
    description: "a Claude Code ralph-loop state file says active, but no session runs the loop: its Stop hook hijacks the next session",
  },
  { id: "battle-cancelled", severity: "warning", description: "the battle was cancelled; pokeralph continues it on the next start" },
  {
    id: "battle-unconfirmed",
    severity: "warning",
    description: "history.json says running, no pokeralph server confirms it, but progress is too recent to call it a crash",
  },
  {
    id: "commit-replaced",
    severity: "warning",
    description: "an iteration's recorded commitHash is gone (amended or rebased), and the battle commit that replaced it stands in for it",
  },
  {
    id: "commit-off-head",
    severity: "warning",
    description: "a completed battle's commit is not in HEAD's history (squash-merged, another branch, or rewritten)",
  },
  { id: "stale-lock", severity: "warning", description: "a *.json.lock left by an interrupted write: pokeralph's next write to that file fails after 5 s" },
  { id: "stale-temp-file", severity: "warning", description: "a *.json.tmp.* or .patch-temp-* file left by an interrupted write" },
  { id: "missing-file", severity: "warning", description: "config.json, prd.json or a battle's history.json is absent" },
  { id: "invalid-utf8", severity: "warning", description: "a pokeralph file holds invalid UTF-8; it parses, but the damaged characters are lost" },
  { id: "log-missing", severity: "warning", description: "a recorded iteration has no logs/iteration-<n>.txt" },
  { id: "task-id-mismatch", severity: "warning", description: "history.json or progress.json names another task than its folder" },
  { id: "task-not-in-prd", severity: "warning", description: "a battle folder whose task is not in prd.json: pokeralph can neither show nor start it" },
  { id: "iteration-sequence", severity: "warning", description: "iteration numbers are not 1, 2, 3 … in order" },
  { id: "git-unavailable", severity: "warning", description: "recorded commits cannot be checked: the repository is not a git work tree, or git does not run" },
] as const satisfies readonly BattleRule[];

export type BattleRuleId = (typeof BATTLE_RULES)[number]["id"];
export const BATTLE_RULE_BY_ID: ReadonlyMap<string, BattleRule> = new Map(BATTLE_RULES.map((r) => [r.id, r]));

export interface BattleFinding {
  rule: BattleRuleId;
  severity: Severity;
  /** Relative to the repository root, `/`-separated. */
  path: string;
  message: string;
  iteration?: number;
  commit?: string;
  /** The command that fixes it, as the user pastes it where the status was asked (printed whole, never shortened). */
  fix?: string;
}

export interface FindingContext {
  now: number;
  artefactStaleMs: number;
}

function finding(rule: BattleRuleId, path: string, message: string, extra: Pick<BattleFinding, "iteration" | "commit"> = {}): BattleFinding {
  return { rule, severity: BATTLE_RULE_BY_ID.get(rule)!.severity, path, message, ...extra };
}

/** Findings about the project as a whole: config.json, prd.json, leftovers in `.pokeralph/`, git. */
export function projectFindings(project: LoadedProject, git: GitFacts | undefined, context: FindingContext): BattleFinding[] {
  const out: BattleFinding[] = [];
  out.push(...fileFindings(project.config, "pokeralph cannot load the project's settings (max iterations, feedback loops, auto-commit), so no battle starts"));
  out.push(...fileFindings(project.prd, "pokeralph cannot start or show a battle without the PRD"));
  out.push(...artefactFindings(project.artefacts, context));
  if (git && !git.available) out.push(finding("git-unavailable", ".", `recorded commits were not checked: ${git.detail}`));
  return out;
}

/** Findings about one battle, in a fixed order: its state, its files, its commits, its leftovers. */
export function battleFindings(
  battle: LoadedBattle,
  classification: Classification,
  project: LoadedProject,
  git: GitFacts | undefined,
  context: FindingContext,
): BattleFinding[] {
  const out: BattleFinding[] = [];
  const historyPath = battle.history.relPath;
  const { failure, liveness } = classification;

  if (failure?.type === "crash") {
    out.push(finding("battle-crashed", historyPath, `${failure.message}`, { iteration: failure.iteration }));
  } else if (failure?.type === "cancellation") {
    out.push(finding("battle-cancelled", historyPath, `cancelled in iteration ${failure.iteration}: ${failure.message}`, { iteration: failure.iteration }));
  } else if (failure) {
    out.push(
      finding(
        "battle-failed",
        historyPath,
        `failed in iteration ${failure.iteration} (${failure.type.replace("_", " ")}, ${failureSeverity(failure.type)} severity): ${failure.message}`,
        { iteration: failure.iteration },
      ),
    );
  } else if (liveness.state === "unconfirmed") {
    out.push(
      finding(
        "battle-unconfirmed",
        historyPath,
        `history.json says ${battle.history.value?.status}, ${liveness.detail}; if pokeralph was stopped, this becomes a crash once progress is stale (or set PORT / RECOVER_POKERALPH_URL to where it listens)`,
      ),
    );
  }

  if (battle.history.state === "missing") {
    out.push(finding("missing-file", historyPath, `battle folder without history.json: pokeralph would start this battle afresh and its status is unknown`));
  }
  out.push(...fileFindings(battle.history, "pokeralph cannot load this battle, so it cannot show, continue or restart it"));
  out.push(...fileFindings(battle.progress, "pokeralph replaces it with fresh progress on the next start; until then the battle's progress is unknown"));

  const history = battle.history.value;
  if (history && history.taskId !== battle.taskId) {
    out.push(
      finding(
        "task-id-mismatch",
        historyPath,
        `history.json is for task ${JSON.stringify(history.taskId)} but lies in battles/${battle.taskId}/ (pokeralph loads battles by folder)`,
      ),
    );
  }
  const progress = battle.progress.value;
  if (progress && progress.taskId !== battle.taskId) {
    out.push(
      finding(
        "task-id-mismatch",
        battle.progress.relPath,
        `progress.json is for task ${JSON.stringify(progress.taskId)} but lies in battles/${battle.taskId}/`,
      ),
    );
  }
  const prd = project.prd.value;
  if (prd && !prd.tasks.some((t) => t.id === battle.taskId)) {
    const why = TASK_ID_PATTERN.test(battle.taskId) ? "" : ` (and ${JSON.stringify(battle.taskId)} is not a pokeralph task id, {NNN}-{slug})`;
    out.push(finding("task-not-in-prd", battle.relDir, `no task ${battle.taskId} in prd.json${why}: pokeralph can neither show nor start this battle`));
  }

  if (history) {
    const numbers = history.iterations.map((it) => it.number);
    const expected = numbers.map((_, i) => i + 1);
    if (numbers.some((n, i) => n !== expected[i])) {
      out.push(
        finding(
          "iteration-sequence",
          historyPath,
          `iterations are numbered ${numbers.join(", ")}, not 1…${numbers.length}: pokeralph continues at iteration ${numbers.length + 1} and a rollback by number would pick the wrong one`,
        ),
      );
    }
    for (const it of history.iterations) {
      const log = battle.logs.get(it.number);
      if (log?.txt) continue;
      const logPath = `${battle.relDir}/logs/iteration-${it.number}.txt`;
      out.push(
        finding(
          "log-missing",
          logPath,
          log?.log
            ? `iteration ${it.number} has only iteration-${it.number}.log (the spec's name); pokeralph writes iteration-${it.number}.txt`
            : `iteration ${it.number} has no log (pokeralph writes none when the iteration threw); its output survives only in history.json`,
          { iteration: it.number },
        ),
      );
    }
    if (git?.available) out.push(...commitFindings(battle, history, git));
  }

  out.push(...artefactFindings(battle.artefacts, context));
  return out;
}

function commitFindings(battle: LoadedBattle, history: NonNullable<LoadedBattle["history"]["value"]>, git: GitFacts): BattleFinding[] {
  const out: BattleFinding[] = [];
  const historyPath = battle.history.relPath;
  // The same reading of the battle's commits as checkpoint list's: a vanished commit may have a replacement.
  const ordered = [...history.iterations].sort((a, b) => a.number - b.number);
  const commits = (git.taskCommits.get(battle.taskId) ?? []).map((c) => ({
    hash: c.hash,
    subject: c.subject,
    timeMs: Date.parse(c.time),
    authorTimeMs: Date.parse(c.authorTime),
  }));
  const found = iterationCommits(ordered, commits, (hash) => {
    const state = git.commits.get(hash);
    return state?.exists ? (state.full ?? hash) : null;
  });
  const byNumber = new Map(ordered.map((it, i) => [it.number, found[i]!]));
  for (const it of history.iterations) {
    if (it.commitHash === undefined) continue;
    const state = git.commits.get(it.commitHash);
    if (!state) continue;
    const short = it.commitHash.slice(0, 12);
    const stand = byNumber.get(it.number);
    if (!state.exists && stand?.via === "replaced") {
      out.push(
        finding(
          "commit-replaced",
          historyPath,
          `iteration ${it.number}'s commit ${short} is not in the repository (amended or rebased, then pruned); ${stand.commit.slice(0, 12)} "${stand.subject}" replaced it, and checkpoint list and battle rollback use that one`,
          { iteration: it.number, commit: it.commitHash },
        ),
      );
    } else if (!state.exists) {
      out.push(
        finding(
          "commit-missing",
          historyPath,
          `iteration ${it.number}'s commit ${short} is not in the repository (rewritten and garbage-collected, or never there): its changes cannot be restored from git`,
          { iteration: it.number, commit: it.commitHash },
        ),
      );
    } else if (state.inHead === false) {
      const completed = history.status === "completed";
      out.push(
        finding(
          completed ? "commit-off-head" : "commit-not-ancestor",
          historyPath,
          completed
            ? `iteration ${it.number}'s commit ${short} is not in HEAD's history (squash-merged, on another branch, or rewritten)`
            : `iteration ${it.number}'s commit ${short} is no longer in HEAD's history (reset, rebase or another branch): the tree lacks work the battle counts as done`,
          { iteration: it.number, commit: state.full ?? it.commitHash },
        ),
      );
    }
  }
  return out;
}

function fileFindings(file: LoadedFile<unknown>, consequence: string): BattleFinding[] {
  const out: BattleFinding[] = [];
  const name = file.relPath.split("/").pop();
  if (file.state === "missing" && (name === "config.json" || name === "prd.json")) {
    out.push(finding("missing-file", file.relPath, `${name} is missing: ${consequence}`));
  }
  if (file.state === "unreadable" || file.state === "invalid") out.push(finding("invalid-file", file.relPath, `${file.problem}: ${consequence}`));
  if (file.invalidUtf8)
    out.push(
      finding("invalid-utf8", file.relPath, `invalid UTF-8 at byte ${file.invalidUtf8.offset}: it parses, but the damaged characters are replaced by U+FFFD`),
    );
  return out;
}

function artefactFindings(artefacts: readonly Artefact[], context: FindingContext): BattleFinding[] {
  const out: BattleFinding[] = [];
  for (const a of artefacts) {
    const age = context.now - a.mtimeMs;
    if (age <= context.artefactStaleMs) continue; // a write may be under way right now
    const ago = formatAge(age);
    if (a.kind === "lock") {
      const holder = a.holder ? ` by process ${a.holder.pid}` : "";
      out.push(
        finding(
          "stale-lock",
          a.relPath,
          `lock on ${a.target} taken ${ago} ago${holder} and never released: pokeralph's next write to ${a.target} waits 5 s and fails ("Failed to acquire lock") until it is removed`,
        ),
      );
    } else if (a.kind === "tmp") {
      out.push(
        finding(
          "stale-temp-file",
          a.relPath,
          `temp file of a write to ${a.target} that never reached its rename (${ago} old): ${a.target} kept its previous content`,
        ),
      );
    } else {
      out.push(finding("stale-temp-file", a.relPath, `patch file of a checkpoint restore cut short ${ago} ago: the working tree may be half restored`));
    }
  }
  return out;
}
