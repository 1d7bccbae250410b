/**
 * The little of `.pokeralph/` that checkpoints need, read-only: where the project is, whether a task exists, and
 * the iterations of `battles/<taskId>/history.json` (number, times, result, files, commitHash, feedback).
 *
 * Private on purpose: src/battle/ owns the full reader and validator (every field, what pokeralph would reject).
 * This one is deliberately narrow and lenient (timestamps only need to parse, unknown keys are ignored) so that
 * listing checkpoints still works on a battle the full validator would flag; it can be swapped for src/battle's
 * reader once that is ready, without changing the callers (they only see BattleHistory).
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { mkdirDurable, writeFileDurable } from "../../fs/durable.js";
import { dirname, join, resolve } from "node:path";
import * as z from "zod";
import { RecoverError } from "../../errors.js";

/** pokeralph's own task id rule; battle folders are named after it, and it is safe in a path and a ref name. */
export const TASK_ID_PATTERN = /^\d{3}-[a-z0-9-]+$/;

export function assertTaskId(taskId: string): void {
  if (!TASK_ID_PATTERN.test(taskId)) {
    throw new RecoverError(
      "invalid-id",
      `invalid task id ${JSON.stringify(taskId)}: pokeralph task ids look like 002-auth-system (three digits, a dash, lowercase letters, digits and dashes)`,
    );
  }
}

const FeedbackResult = z.looseObject({ passed: z.boolean(), output: z.string(), duration: z.number().optional() });
export const FeedbackResults = z.record(z.string(), FeedbackResult);
export type FeedbackResults = z.infer<typeof FeedbackResults>;

const Iteration = z.looseObject({
  number: z.number().int().min(1),
  startedAt: z.string(),
  endedAt: z.string().optional(),
  result: z.string(),
  filesChanged: z.array(z.string()).default([]),
  commitHash: z.string().optional(),
  error: z.string().optional(),
  feedbackResults: FeedbackResults.optional(),
});
export type HistoryIteration = z.infer<typeof Iteration>;
/** An iteration as history.json must hold it for recover to work on it (the archive of a rollback holds such ones). */
export const HistoryIterationSchema = Iteration;

const History = z.looseObject({
  taskId: z.string(),
  status: z.string(),
  startedAt: z.string(),
  iterations: z.array(Iteration),
});
export type BattleHistory = z.infer<typeof History>;

export interface BattlePaths {
  /** The directory holding `.pokeralph/` (pokeralph's working directory). */
  project: string;
  pokeralph: string;
  battle: string;
  history: string;
  /** Ours, beside history.json: pokeralph drops keys it does not know, so nothing of ours goes into its files. */
  sidecar: string;
}

export function battlePaths(project: string, taskId: string): BattlePaths {
  const pokeralph = join(project, ".pokeralph");
  const battle = join(pokeralph, "battles", taskId);
  return { project, pokeralph, battle, history: join(battle, "history.json"), sidecar: join(battle, "checkpoints.json") };
}

/** Like git finding `.git`: the nearest directory at or above `start` that holds a `.pokeralph/` directory. */
export function findProject(start: string): string {
  const from = resolve(start);
  if (!existsSync(from)) throw new RecoverError("store-not-found", `no such directory: ${from}`);
  for (let dir = from; ; dir = dirname(dir)) {
    try {
      if (statSync(join(dir, ".pokeralph")).isDirectory()) return dir;
    } catch {
      /* not here; keep climbing */
    }
    if (dirname(dir) === dir) break;
  }
  throw new RecoverError("store-not-found", `no .pokeralph/ in ${from} or any directory above it: run inside a pokeralph project, or pass --repo <dir>`);
}

/** A task exists when pokeralph made its battle folder, or its PRD lists it (a checkpoint before the first battle). */
export function taskExists(paths: BattlePaths, taskId: string): boolean {
  if (existsSync(paths.battle)) return true;
  try {
    const prd = JSON.parse(readFileSync(join(paths.pokeralph, "prd.json"), "utf8")) as { tasks?: { id?: unknown }[] };
    return Array.isArray(prd.tasks) && prd.tasks.some((t) => t?.id === taskId);
  } catch {
    return false;
  }
}

export type HistoryRead = { history: BattleHistory; problem?: undefined } | { history: null; problem?: string };

/** history.json, or null with the reason it cannot be used (absent is not a problem: no battle has run yet). */
export function readHistory(path: string): HistoryRead {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { history: null };
    return { history: null, problem: `${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { history: null, problem: `${path} is not valid JSON (${(error as Error).message})` };
  }
  const parsed = History.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { history: null, problem: `${path} is not a battle history (${issue ? `${issue.path.join(".") || "top level"}: ${issue.message}` : "invalid"})` };
  }
  return { history: parsed.data };
}

/** pokeralph has no battle id; task + start time is stable across restarts and changes when a fresh battle starts. */
export function battleId(history: Pick<BattleHistory, "taskId" | "startedAt">): string {
  return `${history.taskId}@${history.startedAt}`;
}

/** "After iteration 3 (typecheck failed)": the spec's default description, plus what failed. */
export function describeCheckpoint(afterIteration: number, iteration?: Pick<HistoryIteration, "result" | "feedbackResults">): string {
  if (afterIteration === 0) return "Before battle started";
  const failed = Object.entries(iteration?.feedbackResults ?? {})
    .filter(([, r]) => !r.passed)
    .map(([name]) => name);
  if (failed.length > 0) return `After iteration ${afterIteration} (${failed.join(", ")} failed)`;
  if (iteration?.result === "failure") return `After iteration ${afterIteration} (iteration failed)`;
  return `After iteration ${afterIteration}`;
}

/** ✓ all feedback loops passed, ✗ one failed, null none ran (or none were recorded). */
export function feedbackPassed(feedback: FeedbackResults | undefined): boolean | null {
  const results = Object.values(feedback ?? {});
  if (results.length === 0) return null;
  return results.every((r) => r.passed);
}

/** A state file's text (history.json, checkpoints.json), or null when it does not exist; unreadable stops. */
export function readStateText(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new RecoverError("store-unreadable", `${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
}

/** history.json's text as an iteration about to be recorded reads it: null when absent, any read error as it is. */
export function historyTextIfAny(path: string): string | null {
  return existsSync(path) ? readFileSync(path, "utf8") : null;
}

/**
 * The prompt `battle resume` hands to the agent, written beside the battle's files (recover's own file, which
 * pokeralph never reads): crash-safe, its folder made if the battle has none yet.
 */
export function writePromptFile(path: string, prompt: string): void {
  const dir = dirname(path);
  if (!existsSync(dir)) mkdirDurable(dir);
  writeFileDurable(path, new TextEncoder().encode(prompt));
}
