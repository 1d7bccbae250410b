/**
 * Run ONE battle iteration the way pokeralph v0.2.0 does (reference §1.5), for `battle resume --run` and
 * `battle fix --continue --run`: spawn `claude --dangerously-skip-permissions --print <prompt>` in the repository
 * with `CI=true`, stream its stdout+stderr into `logs/iteration-<n>.txt`, kill it at the timeout, run the feedback
 * loops with the repository's package manager, record the iteration in history.json (unknown keys kept, written
 * durably) and take a checkpoint of the result.
 *
 * Differences from pokeralph, on purpose: the timeout is `config.timeoutMinutes` (pokeralph hard-codes 30 minutes,
 * the default here too); no auto-commit (the checkpoint keeps the state instead, and the branch stays the user's).
 */
import { spawn } from "node:child_process";
import { createWriteStream, existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { simpleGit } from "simple-git";
import { RecoverError } from "../errors.js";
import { writeBattleState } from "./state-write.js";
import { createCheckpoint, type CreatedCheckpoint } from "../checkpoint/create.js";
import { historyTextIfAny } from "../stores/pokeralph/battle-files.js";
import type { FeedbackResults } from "../stores/pokeralph/schemas.js";

export type BattleMode = "hitl" | "yolo";

/**
 * How claude is started for a battle's mode. yolo is pokeralph's own invocation (unattended: every tool call
 * allowed, print and exit). hitl keeps a human in the loop, so claude runs as an interactive session started on
 * the prompt: it asks before each tool call, as it would for the user at their terminal.
 */
export function claudeArgs(mode: BattleMode): readonly string[] {
  return mode === "yolo" ? ["--dangerously-skip-permissions", "--print"] : [];
}
export const DEFAULT_TIMEOUT_MINUTES = 30;
/** pokeralph's per-loop default. */
export const FEEDBACK_TIMEOUT_MS = 5 * 60 * 1000;
/** How much of claude's output goes into history.json (the full output is in the log file). */
export const OUTPUT_TAIL_CHARS = 64 * 1024;

// ---------------------------------------------------------------------------------------------------------------
// The claude command
// ---------------------------------------------------------------------------------------------------------------

/**
 * `--claude <path>`, else `CLAUDE_PATH` (pokeralph splits it on spaces: `npx claude` works), else `claude` on PATH.
 */
export function claudeCommand(explicit: string | undefined, env: NodeJS.ProcessEnv): string[] {
  if (explicit !== undefined && explicit.trim() !== "") return [explicit];
  const fromEnv = env.CLAUDE_PATH?.trim();
  if (fromEnv) return fromEnv.split(/\s+/);
  return ["claude"];
}

// ---------------------------------------------------------------------------------------------------------------
// Feedback loops
// ---------------------------------------------------------------------------------------------------------------

export type PackageManager = "bun" | "pnpm" | "yarn" | "npm";

/** The repository's package manager, by its lock file (pokeralph itself always uses bun). */
export function packageManager(root: string): PackageManager {
  if (existsSync(join(root, "bun.lockb")) || existsSync(join(root, "bun.lock"))) return "bun";
  if (existsSync(join(root, "pnpm-lock.yaml"))) return "pnpm";
  if (existsSync(join(root, "yarn.lock"))) return "yarn";
  return "npm";
}

function packageScripts(root: string): Record<string, unknown> | null {
  try {
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts?: Record<string, unknown> };
    return pkg.scripts ?? {};
  } catch {
    return null;
  }
}

export interface FeedbackOptions {
  env: NodeJS.ProcessEnv;
  timeoutMs?: number;
  /** Called as each loop finishes (progress output). */
  onResult?: (name: string, result: { passed: boolean; output: string; duration?: number }) => void;
}

/** Run each loop as `<pm> run <loop>` in the repository, one after the other, as pokeralph does. */
export async function runFeedbackLoops(root: string, loops: readonly string[], options: FeedbackOptions): Promise<FeedbackResults> {
  const pm = packageManager(root);
  const scripts = packageScripts(root);
  const results: FeedbackResults = {};
  for (const name of loops) {
    let result: { passed: boolean; output: string; duration?: number };
    if (scripts === null || !(name in scripts)) {
      result = { passed: false, output: `Script "${name}" not found in package.json` };
    } else {
      const started = Date.now();
      const ran = await runProcess(pm, ["run", name], { cwd: root, env: options.env, timeoutMs: options.timeoutMs ?? FEEDBACK_TIMEOUT_MS });
      const output = ran.timedOut ? `${ran.output}\nfeedback loop "${name}" timed out` : ran.output;
      result = { passed: !ran.timedOut && ran.code === 0, output: output.trim(), duration: Date.now() - started };
    }
    results[name] = result;
    options.onResult?.(name, result);
  }
  return results;
}

// ---------------------------------------------------------------------------------------------------------------
// Processes
// ---------------------------------------------------------------------------------------------------------------

interface ProcessResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  output: string;
  /** spawn itself failed (ENOENT: no such program). */
  spawnError?: string;
}

function runProcess(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number; sink?: (chunk: Buffer) => void; interactive?: boolean },
): Promise<ProcessResult> {
  return new Promise((done) => {
    let output = "";
    let timedOut = false;
    let settled = false;
    // An interactive session owns the terminal: nothing of it can be captured.
    const child = spawn(command, [...args], { cwd: options.cwd, env: options.env, stdio: options.interactive ? "inherit" : ["ignore", "pipe", "pipe"] });
    const take = (chunk: Buffer) => {
      options.sink?.(chunk);
      output += chunk.toString("utf8");
      if (output.length > 4 * OUTPUT_TAIL_CHARS) output = output.slice(-2 * OUTPUT_TAIL_CHARS);
    };
    child.stdout?.on("data", take);
    child.stderr?.on("data", take);
    let killer: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGTERM"); // pokeralph's subprocess.kill()
      killer = setTimeout(() => child.kill("SIGKILL"), 5000);
    }, options.timeoutMs);
    const finish = (result: ProcessResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (killer) clearTimeout(killer);
      done(result);
    };
    child.on("error", (error: NodeJS.ErrnoException) =>
      finish({ code: null, signal: null, timedOut, output, spawnError: error.code === "ENOENT" ? `${command}: command not found (ENOENT)` : error.message }),
    );
    child.on("close", (code, signal) => finish({ code, signal, timedOut, output }));
  });
}

// ---------------------------------------------------------------------------------------------------------------
// One iteration
// ---------------------------------------------------------------------------------------------------------------

export interface RunIterationOptions {
  /** The repository root (the folder holding `.pokeralph/`). */
  root: string;
  taskId: string;
  /** The iteration record prepared by resume (number, retryCount…). */
  iteration: PreparedIteration;
  prompt: string;
  claude: string[];
  /** The battle's mode (config.mode, or --mode): how claude is started. */
  mode: BattleMode;
  feedbackLoops: readonly string[];
  timeoutMs: number;
  env: NodeJS.ProcessEnv;
  /** Where the sidecar lock lives (tests). */
  stateDir: string;
  onFeedback?: FeedbackOptions["onResult"];
}

export interface PreparedIteration {
  number: number;
  startedAt: string;
  output: string;
  result: "pending";
  filesChanged: string[];
  retryCount?: number;
}

export interface IterationOutcome {
  iteration: Record<string, unknown>;
  log: string;
  timedOut: boolean;
  exitCode: number | null;
  feedback: FeedbackResults;
  checkpoint: CreatedCheckpoint | null;
  checkpointError?: string;
  historyStatus: string;
}

export async function runIteration(options: RunIterationOptions): Promise<IterationOutcome> {
  const { root, taskId } = options;
  const env = { ...options.env, CI: "true" };
  const battleDir = join(root, ".pokeralph", "battles", taskId);
  const logsDir = join(battleDir, "logs");
  mkdirSync(logsDir, { recursive: true });
  const log = join(logsDir, `iteration-${options.iteration.number}.txt`);
  const stream = createWriteStream(log);
  const [command, ...prefix] = options.claude;
  const interactive = options.mode === "hitl";
  if (interactive) stream.write(`[recover] hitl: claude ran as an interactive session at the terminal; its output was not captured\n`);
  const ran = await runProcess(command!, [...prefix, ...claudeArgs(options.mode), options.prompt], {
    cwd: root,
    env,
    timeoutMs: options.timeoutMs,
    sink: (chunk) => stream.write(chunk),
    interactive,
  });
  if (ran.spawnError) stream.write(`${ran.spawnError}\n`);
  if (ran.timedOut) stream.write(`\n[recover] claude killed after ${Math.round(options.timeoutMs / 1000)} s: Claude execution timed out\n`);
  await new Promise<void>((resolve) => stream.end(resolve));

  const feedback = await runFeedbackLoops(root, options.feedbackLoops, { env, ...(options.onFeedback ? { onResult: options.onFeedback } : {}) });
  const allPassed = Object.values(feedback).every((r) => r.passed);
  const error = ran.spawnError ?? (ran.timedOut ? "Claude execution timed out" : ran.code !== 0 ? `claude exited with ${ran.code ?? ran.signal}` : undefined);
  const result = ran.timedOut ? "timeout" : error === undefined && allPassed ? "success" : "failure";
  const output = (ran.spawnError ? `${ran.output}${ran.spawnError}` : ran.output).slice(-OUTPUT_TAIL_CHARS);

  const iteration: Record<string, unknown> = {
    number: options.iteration.number,
    startedAt: options.iteration.startedAt,
    endedAt: new Date().toISOString(),
    output,
    result,
    filesChanged: await dirtyFiles(root),
    ...(error !== undefined ? { error } : {}),
    feedbackResults: feedback,
    ...(options.iteration.retryCount !== undefined ? { retryCount: options.iteration.retryCount } : {}),
  };
  const historyStatus = recordIteration(join(battleDir, "history.json"), taskId, iteration, result === "success", { stateDir: options.stateDir });

  let checkpoint: CreatedCheckpoint | null = null;
  let checkpointError: string | undefined;
  try {
    checkpoint = await createCheckpoint(root, {
      taskId,
      afterIteration: options.iteration.number,
      stateDir: options.stateDir,
    });
  } catch (e) {
    checkpointError = (e as Error).message;
  }
  return { iteration, log, timedOut: ran.timedOut, exitCode: ran.code, feedback, checkpoint, ...(checkpointError ? { checkpointError } : {}), historyStatus };
}

/** `git status --porcelain -uall` after the iteration, as pokeralph records filesChanged (the whole dirty set). */
async function dirtyFiles(root: string): Promise<string[]> {
  try {
    const out = await simpleGit({ baseDir: root }).raw(["status", "--porcelain", "-uall", "-z"]);
    const files: string[] = [];
    const entries = out.split("\0");
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i]!;
      if (entry.length < 4) continue;
      files.push(entry.slice(3));
      if (entry[0] === "R" || entry[0] === "C") i++; // the rename's source follows
    }
    return files;
  } catch {
    return [];
  }
}

/**
 * Append the iteration to history.json, keeping every key we do not know. A battle left `paused` after a success
 * (pokeralph's start continues a paused battle), `failed` with the error after a failure (so `battle status` and
 * `battle resume` see it; pokeralph would start a failed battle afresh).
 */
export function recordIteration(path: string, taskId: string, iteration: Record<string, unknown>, success: boolean, dirs: { stateDir: string }): string {
  let history: Record<string, unknown>;
  const text = historyTextIfAny(path);
  if (text !== null) {
    try {
      history = JSON.parse(text) as Record<string, unknown>;
    } catch (e) {
      throw new RecoverError("store-corrupt", `${path} is not valid JSON (${(e as Error).message}): the iteration ran but could not be recorded`);
    }
  } else {
    history = { taskId, status: "pending", iterations: [], startedAt: iteration.startedAt };
  }
  const iterations = Array.isArray(history.iterations) ? [...(history.iterations as unknown[])] : [];
  const progressPath = join(dirname(path), "progress.json");
  iterations.push(iteration);
  history.iterations = iterations;
  if (success) {
    history.status = "paused";
    delete history.error;
    delete history.completedAt;
    delete history.durationMs;
  } else {
    history.status = "failed";
    const feedback = iteration.feedbackResults as FeedbackResults | undefined;
    const failing = Object.entries(feedback ?? {})
      .filter(([, r]) => !r.passed)
      .map(([n]) => `'${n}'`);
    history.error = typeof iteration.error === "string" ? iteration.error : `Feedback loop${failing.length > 1 ? "s" : ""} ${failing.join(", ")} failed`;
    history.completedAt = iteration.endedAt;
  }
  // Backed up first, both in one transaction: the status and error they replace are the user's history too.
  writeBattleState({
    root: dirname(dirname(dirname(dirname(path)))),
    battleDir: dirname(path),
    taskId,
    files: [
      { path, text: JSON.stringify(history, null, 2) },
      { path: progressPath, text: JSON.stringify(progressAfter(progressPath, taskId, iteration, history), null, 2) },
    ],
    rule: "battle-resume",
    stateDir: dirs.stateDir,
  });
  return history.status as string;
}

/**
 * progress.json as pokeralph leaves it once an iteration is over, so it agrees with history.json: the iteration
 * just run, `failed` with the battle's error after a failure, `idle` after a success (the battle is paused, nothing
 * is in progress). Keys we do not know (and Claude's own `logs`) are kept; a damaged file is replaced whole (it is
 * backed up with the rest).
 */
function progressAfter(path: string, taskId: string, iteration: Record<string, unknown>, history: Record<string, unknown>): Record<string, unknown> {
  let progress: Record<string, unknown> = {};
  const text = historyTextIfAny(path);
  if (text !== null) {
    try {
      const parsed = JSON.parse(text) as unknown;
      if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) progress = parsed as Record<string, unknown>;
    } catch {
      // A damaged progress file: pokeralph itself rewrites it whole on its next start.
    }
  }
  const failed = history.status === "failed";
  const output = typeof iteration.output === "string" ? iteration.output : "";
  return {
    taskId,
    logs: Array.isArray(progress.logs) ? progress.logs : [],
    ...progress,
    currentIteration: iteration.number,
    status: failed ? "failed" : "idle",
    lastUpdate: iteration.endedAt,
    lastOutput: output.slice(-2000),
    completionDetected: progress.completionDetected === true && !failed,
    error: failed ? (history.error ?? null) : null,
    feedbackResults: iteration.feedbackResults ?? {},
  };
}
