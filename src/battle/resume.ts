/**
 * `battle resume`: choose the resume strategy (the failure's default, or the user's when the failure allows it),
 * build the prompt pokeralph would give claude for the task plus the recovery spec's sections
 * (`## Previous Attempt Failed`, `## Additional Instructions`, `## Manual Fix Applied`; reference §1.4), and prepare
 * the fresh iteration (`result: "pending"`, `retryCount: prev + 1`). Running it is run-iteration.ts's job; handing
 * it to a live pokeralph server is `handOffToServer`.
 */
import { join } from "node:path";
import { type NextStep, RecoverError } from "../errors.js";
import { writePromptFile as writeBattlePrompt } from "../stores/pokeralph/battle-files.js";
import { listCheckpoints } from "../checkpoint/list.js";
import { assessBattles, type BattleAssessment, type RepoAssessment } from "./assess.js";
import { applyRollback, planRollback, type RollbackMode } from "./rollback.js";
import { allowedStrategies, defaultStrategy, isAllowedStrategy, RESUME_STRATEGIES, type BattleFailure, type ResumeStrategy } from "./recovery-options.js";
import type { Battle, Config, Task } from "../stores/pokeralph/schemas.js";
import { shellQuote } from "../model/shell-quote.js";
import { claudeArgs, DEFAULT_TIMEOUT_MINUTES, type BattleMode, type PreparedIteration } from "./run-iteration.js";
import { pokeralphBaseUrl, type ServerProbe } from "./server-probe.js";

/** Strategies allowed for a battle with no failure (paused, pending): carry on. */
const NO_FAILURE_STRATEGIES: ResumeStrategy[] = ["retry_same", "continue_next"];

export interface StrategyChoice {
  strategy: ResumeStrategy;
  allowed: ResumeStrategy[];
  defaulted: boolean;
}

export function parseStrategy(value: string): ResumeStrategy {
  if ((RESUME_STRATEGIES as readonly string[]).includes(value)) return value as ResumeStrategy;
  throw new RecoverError("usage", `unknown strategy ${JSON.stringify(value)}: expected one of ${RESUME_STRATEGIES.join(", ")}`);
}

/** `battle status <taskId>` in the project the battle is in (`root`), as a next step. */
const statusOf = (battle: BattleAssessment, root: string): NextStep => ({
  words: ["battle", "status", battle.taskId],
  why: "to see what it is doing",
  repo: root,
});

/** The default from the failure; a strategy the failure does not allow is refused (exit 2) naming the allowed ones. */
export function chooseStrategy(battle: BattleAssessment, requested: string | undefined, root: string): StrategyChoice {
  const failure = battle.failure;
  if (failure === null) {
    if (battle.status === "completed") throw new RecoverError("usage", `${battle.taskId} is completed: nothing to resume`);
    if (battle.status === "running" || battle.status === "awaiting_approval") {
      throw new RecoverError(
        "store-busy",
        `${battle.taskId} is ${battle.status} and a pokeralph server is running it: nothing to resume`,
        statusOf(battle, root),
      );
    }
    if (battle.status === null)
      throw new RecoverError("store-corrupt", `${battle.taskId}: history.json is missing or unreadable; cannot tell where to resume`, statusOf(battle, root));
  }
  const allowed = failure ? allowedStrategies(failure) : NO_FAILURE_STRATEGIES;
  if (requested === undefined) {
    return { strategy: failure ? defaultStrategy(failure) : "continue_next", allowed, defaulted: true };
  }
  const strategy = parseStrategy(requested);
  const ok = failure ? isAllowedStrategy(strategy, failure) : allowed.includes(strategy);
  if (!ok) {
    const why = failure ? `a ${failure.type} failure${failure.recoverable ? "" : " (not recoverable)"}` : `a ${battle.status} battle`;
    throw new RecoverError("usage", `strategy ${strategy} is not allowed for ${why} of ${battle.taskId}; allowed: ${allowed.join(", ")}`);
  }
  return { strategy, allowed, defaulted: false };
}

// ---------------------------------------------------------------------------------------------------------------
// The prompt
// ---------------------------------------------------------------------------------------------------------------

export interface TaskPromptInput {
  taskId: string;
  task: Task | undefined;
  prdName?: string;
  prdDescription?: string;
  config: Config;
  /** Absolute path of progress.json (claude is told to update it). */
  progressPath: string;
  packageManager?: string;
}

/**
 * A faithful, compact version of pokeralph's `PromptBuilder.buildTaskPrompt` (reference §1.5): header, execution
 * mode, project context, the task with its acceptance criteria, progress tracking, feedback loops, commit, completion.
 */
export function buildTaskPrompt(input: TaskPromptInput): string {
  const { task, config } = input;
  const pm = input.packageManager ?? "bun";
  const lines: string[] = [
    "You are working within the PokéRalph autonomous development system. Work on the task below until it is complete.",
    "",
    "EXECUTION MODE: understand the task, explore the codebase, implement the change, run the feedback loops, fix what fails, commit.",
    "",
  ];
  if (input.prdName) lines.push("## Project Context", "", `**${input.prdName}**${input.prdDescription ? `: ${input.prdDescription}` : ""}`, "");
  lines.push("## Current Task", "", `**ID:** ${input.taskId}`);
  if (task) {
    lines.push(`**Title:** ${task.title}`, `**Priority:** ${task.priority}`, "", "**Description:**", task.description, "");
    if (task.acceptanceCriteria.length > 0) lines.push("**Acceptance Criteria:**", ...task.acceptanceCriteria.map((c) => `- [ ] ${c}`), "");
  } else {
    lines.push("", "(the task is not listed in prd.json)", "");
  }
  lines.push(
    "## Progress Tracking",
    "",
    `Update ${input.progressPath} as you work (JSON: taskId, currentIteration, status, lastUpdate, logs[], lastOutput, completionDetected, error, feedbackResults).`,
    "",
  );
  if (config.feedbackLoops.length > 0) {
    lines.push("## Feedback Loops", "", "Run these before finishing; all must pass:", ...config.feedbackLoops.map((l) => `- \`${pm} run ${l}\``), "");
  }
  if (config.autoCommit) {
    lines.push(
      "## Commit",
      "",
      `When all feedback loops pass, commit with the message \`[PokéRalph] ${input.taskId}: ${task?.title ?? input.taskId}\` (stage relevant files, excluding .pokeralph/battles/).`,
      "",
    );
  }
  lines.push(
    "## Completion",
    "",
    `When every acceptance criterion is met, print a <completion>{"type":"BATTLE_COMPLETE","version":1,"taskId":"${input.taskId}",...}</completion> block (or <promise>COMPLETE</promise>).`,
  );
  return lines.join("\n");
}

export interface ManualChange {
  path: string;
  type: "modified" | "created" | "deleted";
}

export interface RetrySections {
  errorContext?: string;
  instructions?: string;
  manualFix?: { issue: string; changes: ManualChange[] };
}

/** `buildRetryPrompt` plus the manual-fix context, in the spec's words. */
export function buildRetryPrompt(base: string, sections: RetrySections): string {
  let prompt = base;
  if (sections.manualFix) {
    const list = sections.manualFix.changes.map((c) => `- ${c.type}: ${c.path}`).join("\n") || "- (no file changes detected)";
    prompt += `\n\n## Manual Fix Applied\n\nThe following issue was manually resolved: ${sections.manualFix.issue}\n\nChanges made:\n${list}\n\nContinue building on these changes.`;
  }
  if (sections.errorContext) prompt += `\n\n## Previous Attempt Failed\n\n${sections.errorContext}`;
  if (sections.instructions?.trim()) prompt += `\n\n## Additional Instructions\n\n${sections.instructions.trim()}`;
  return prompt;
}

/** What claude is told about the failure (retry_with_context: type, message, details; rollback_and_retry: the spec's line). */
export function errorContext(strategy: ResumeStrategy, failure: BattleFailure | null): string | undefined {
  if (!failure) return undefined;
  if (strategy === "rollback_and_retry") return `Previous attempt failed: ${failure.message}`;
  if (strategy !== "retry_with_context") return undefined;
  const lines = [`Iteration ${failure.iteration} failed (${failure.type}): ${failure.message}`];
  if (failure.details) lines.push("", failure.details);
  lines.push("", "Fix the cause of this failure before anything else.");
  return lines.join("\n");
}

// ---------------------------------------------------------------------------------------------------------------
// The prepared resume
// ---------------------------------------------------------------------------------------------------------------

export interface PrepareOptions {
  repo?: string;
  cwd: string;
  taskId: string;
  strategy?: string;
  instructions?: string;
  env: NodeJS.ProcessEnv;
  probe?: ServerProbe;
}

export interface Assessed {
  assessment: RepoAssessment;
  battle: BattleAssessment;
  choice: StrategyChoice;
}

export async function assessForResume(options: PrepareOptions): Promise<Assessed> {
  const assessment = await assessBattles({
    ...(options.repo !== undefined ? { repo: options.repo } : {}),
    cwd: options.cwd,
    taskId: options.taskId,
    env: options.env,
    ...(options.probe ? { probe: options.probe } : {}),
  });
  const battle = assessment.battles[0];
  if (!battle) throw new RecoverError("invalid-id", `no battle ${options.taskId}`);
  return { assessment, battle, choice: chooseStrategy(battle, options.strategy, assessment.repo.root) };
}

export interface PreparedResume {
  root: string;
  taskId: string;
  failure: BattleFailure | null;
  strategy: ResumeStrategy;
  allowed: ResumeStrategy[];
  defaulted: boolean;
  iteration: PreparedIteration;
  prompt: string;
  /** Absolute path of the prompt file: written by writePromptFile when the iteration runs, never to print a command. */
  promptFile: string;
  /** The battle's mode (config.mode unless overridden): how claude is started. */
  mode: BattleMode;
  timeoutMinutes: number;
  feedbackLoops: string[];
}

export interface BuildOptions {
  instructions?: string;
  manualFix?: RetrySections["manualFix"];
  /** The retryCount the failed iteration had (read before a rollback truncated it). */
  previousRetryCount?: number;
  packageManager?: string;
  /** Overrides config.mode (`--mode`). */
  mode?: BattleMode;
  now?: Date;
}

/** The iteration number the next run gets: after the last recorded one (history is never overwritten). */
export function nextIteration(
  history: Battle | null | undefined,
  strategy: ResumeStrategy,
  previousRetryCount: number | undefined,
  now: Date,
): PreparedIteration {
  const last = Math.max(0, ...(history?.iterations.map((i) => i.number) ?? []));
  const retry = strategy !== "continue_next";
  return {
    number: last + 1,
    startedAt: now.toISOString(),
    output: "",
    result: "pending",
    filesChanged: [],
    ...(retry ? { retryCount: (previousRetryCount ?? 0) + 1 } : {}),
  };
}

/** The retryCount of the iteration that failed (0 when it was never recorded: a crash in flight). */
export function failedRetryCount(battle: BattleAssessment): number {
  const n = battle.failure?.iteration;
  const it = battle.battle.history.value?.iterations.find((i) => i.number === n);
  return it?.retryCount ?? 0;
}

export function buildResume(assessed: Assessed, options: BuildOptions = {}): PreparedResume {
  const { assessment, battle, choice } = assessed;
  const root = assessment.repo.root;
  const prd = assessment.project.prd.value;
  const task = prd?.tasks.find((t) => t.id === battle.taskId);
  const base = buildTaskPrompt({
    taskId: battle.taskId,
    task,
    ...(prd ? { prdName: prd.name, prdDescription: prd.description } : {}),
    config: assessment.config,
    progressPath: join(battle.battle.dir, "progress.json"),
    ...(options.packageManager ? { packageManager: options.packageManager } : {}),
  });
  const context = errorContext(choice.strategy, battle.failure);
  const manualFix = choice.strategy === "manual_then_continue" ? options.manualFix : undefined;
  const prompt = buildRetryPrompt(base, {
    ...(context ? { errorContext: context } : {}),
    ...(options.instructions !== undefined ? { instructions: options.instructions } : {}),
    ...(manualFix ? { manualFix } : {}),
  });
  const iteration = nextIteration(
    battle.battle.history.value,
    choice.strategy,
    options.previousRetryCount ?? failedRetryCount(battle),
    options.now ?? new Date(),
  );
  return {
    root,
    taskId: battle.taskId,
    failure: battle.failure,
    strategy: choice.strategy,
    allowed: choice.allowed,
    defaulted: choice.defaulted,
    iteration,
    prompt,
    promptFile: join(battle.battle.dir, `resume-prompt-${iteration.number}.md`),
    mode: options.mode ?? assessment.config.mode,
    timeoutMinutes: assessment.project.config.value?.timeoutMinutes ?? DEFAULT_TIMEOUT_MINUTES,
    feedbackLoops: [...assessment.config.feedbackLoops],
  };
}

export function writePromptFile(prepared: PreparedResume): void {
  writeBattlePrompt(prepared.promptFile, prepared.prompt);
}

/**
 * The exact command line, whole: the prompt is in it, shell-quoted (a multi-line quoted word pastes as one argument
 * in bash, zsh and fish), so printing it writes nothing and it works wherever it is pasted.
 */
export function commandLine(prepared: PreparedResume, claude: string[]): string {
  return [
    "cd",
    shellQuote(prepared.root),
    "&&",
    "CI=true",
    ...claude.map((word) => shellQuote(word)),
    ...claudeArgs(prepared.mode),
    shellQuote(prepared.prompt, { lines: true }),
  ].join(" ");
}

// ---------------------------------------------------------------------------------------------------------------
// A live pokeralph server
// ---------------------------------------------------------------------------------------------------------------

export interface HandOff {
  url: string;
  status: number;
  ok: boolean;
  body: string;
}

/** `POST /api/battle/start/<taskId>`: pokeralph continues the battle from history.json itself. */
export async function handOffToServer(taskId: string, env: NodeJS.ProcessEnv): Promise<HandOff> {
  const url = `${pokeralphBaseUrl(env)}/api/battle/start/${encodeURIComponent(taskId)}`;
  try {
    const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: "{}", signal: AbortSignal.timeout(5000) });
    const body = await response.text();
    return { url, status: response.status, ok: response.ok, body: body.slice(0, 2000) };
  } catch (error) {
    throw new RecoverError("fix-failed", `pokeralph answered the probe but POST ${url} failed: ${(error as Error).message}`);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// rollback_and_retry
// ---------------------------------------------------------------------------------------------------------------

/** Roll back the failed iteration (battle rollback's plan and apply), so that the retry starts from its checkpoint. */
export async function rollbackForRetry(
  root: string,
  battle: BattleAssessment,
  apply: { stateDir: string; backupRoot: string },
  /** A recover command as the user pastes it where this one ran (program, store flags, --repo when needed). */
  command: (words: string[]) => string,
): Promise<string[]> {
  const failed = battle.failure?.iteration ?? 1;
  const recorded = Math.max(0, ...(battle.battle.history.value?.iterations.map((i) => i.number) ?? []));
  // The failed iteration when it was recorded (undo it and everything after); a crash's in-flight one was not:
  // go back to the last recorded iteration's checkpoint (its leftovers go).
  const mode: RollbackMode =
    failed <= recorded ? { kind: "iteration", iteration: failed } : recorded > 0 ? await checkpointAfter(root, battle.taskId, recorded) : { kind: "full" };
  const planned = await planRollback(root, battle.taskId, mode);
  const outcome = await applyRollback(planned, apply);
  const safety = outcome.safety;
  const rolled = outcome.iterationsRolledBack;
  return [
    `rolled back${rolled.length ? ` iteration${rolled.length > 1 ? "s" : ""} ${rolled.join(", ")}` : ""}${safety.ref ? `; safety checkpoint ${safety.ref} (undo with ${command(["battle", "rollback", battle.taskId, "--undo"])})` : ""}`,
  ];
}

async function checkpointAfter(root: string, taskId: string, iteration: number): Promise<RollbackMode> {
  const listing = await listCheckpoints(root, taskId);
  const cp = listing.checkpoints.filter((c) => c.afterIteration === iteration && !c.missing).at(-1);
  if (!cp) {
    throw new RecoverError("usage", `no checkpoint after iteration ${iteration} of ${taskId} to roll back to`, {
      words: ["checkpoint", "list", taskId],
      why: "to see its checkpoints",
      repo: root,
    });
  }
  return { kind: "checkpoint", id: cp.id };
}
