/**
 * pokeralph's persisted files (`.pokeralph/config.json`, `prd.json`, `battles/<taskId>/history.json`,
 * `progress.json`) as zod schemas: the single source of their TypeScript types. They mirror pokeralph v0.2.0's
 * own zod schemas (reference battles-and-checkpoints.md §1.3), so we accept exactly what pokeralph accepts and
 * report what it would reject. As with opencode records (src/model/opencode.ts) the parsed original object is
 * kept, never zod's output: pokeralph's objects are non-strict, zod strips unknown keys, and a later rollback
 * must write back what it read.
 */
import * as z from "zod";

/**
 * pokeralph validates timestamps with zod 3's `z.string().datetime()`: a real calendar date, `T`, hh:mm:ss, any
 * number of fractional digits, and `Z` (UTC) only; offsets such as `+02:00` are rejected. Written out here (zod
 * 3.24's own pattern) so our verdict does not move with our zod version.
 */
const ZOD3_DATETIME = new RegExp(
  "^(" +
    "(\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29" +
    "|\\d{4}-((0[13578]|1[02])-(0[1-9]|[12]\\d|3[01])|(0[469]|11)-(0[1-9]|[12]\\d|30)|(02)-(0[1-9]|1\\d|2[0-8]))" +
    ")T([01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(\\.\\d+)?Z$",
);
export const IsoDatetime = z.string().regex(ZOD3_DATETIME, "expected an ISO-8601 UTC timestamp ending in Z (pokeralph rejects offsets)");

/** `{NNN}-{slug}`: what pokeralph's PRD accepts as a task id (battle folders are named after it). */
export const TASK_ID_PATTERN = /^\d{3}-[a-z0-9-]+$/;
export const TaskId = z.string().regex(TASK_ID_PATTERN, "Task ID must match format {NNN}-{slug}");

export const ExecutionMode = z.enum(["hitl", "yolo"]);

export const Config = z.object({
  maxIterationsPerTask: z.number().int().min(1).max(100),
  mode: ExecutionMode,
  // The spec wants it non-empty; pokeralph's code allows [].
  feedbackLoops: z.array(z.string()),
  // Validated but not wired to the claude timeout by pokeralph (it hard-codes 30 minutes).
  timeoutMinutes: z.number().min(1).max(60),
  pollingIntervalMs: z.number().int().min(500).max(10_000),
  autoCommit: z.boolean(),
});
export type Config = z.infer<typeof Config>;

/** pokeralph's defaults (FileManager.init), used when config.json is missing or invalid. */
export const DEFAULT_CONFIG: Config = {
  maxIterationsPerTask: 10,
  mode: "hitl",
  feedbackLoops: ["test", "lint", "typecheck"],
  timeoutMinutes: 30,
  pollingIntervalMs: 2000,
  autoCommit: true,
};

export const FeedbackResult = z.object({ passed: z.boolean(), output: z.string(), duration: z.number().optional() });
export type FeedbackResult = z.infer<typeof FeedbackResult>;
export const FeedbackResults = z.record(z.string(), FeedbackResult);
export type FeedbackResults = z.infer<typeof FeedbackResults>;

export const ITERATION_RESULTS = ["pending", "success", "failure", "timeout", "cancelled"] as const;
export const Iteration = z.object({
  number: z.number().int().positive(),
  startedAt: IsoDatetime,
  endedAt: IsoDatetime.optional(),
  output: z.string(),
  // The battle loop only ever writes success/failure; `pending` comes from the recovery code's retry reset.
  result: z.enum(ITERATION_RESULTS),
  filesChanged: z.array(z.string()),
  commitHash: z.string().optional(),
  error: z.string().optional(),
  feedbackResults: FeedbackResults.optional(),
  retryCount: z.number().int().nonnegative().optional(),
});
export type Iteration = z.infer<typeof Iteration>;

export const TASK_STATUSES = ["pending", "planning", "in_progress", "paused", "completed", "failed"] as const;
export const Task = z.object({
  id: TaskId,
  title: z.string().min(1).max(200),
  description: z.string().min(1),
  status: z.enum(TASK_STATUSES),
  priority: z.number().int().min(1),
  // The spec wants it non-empty; pokeralph's code allows [].
  acceptanceCriteria: z.array(z.string()),
  iterations: z.array(Iteration),
  createdAt: IsoDatetime,
  updatedAt: IsoDatetime,
});
export type Task = z.infer<typeof Task>;

export const Prd = z.object({
  name: z.string().min(1).max(200),
  description: z.string().min(1),
  tasks: z.array(Task),
  metadata: z.object({ version: z.string(), generatedBy: z.string().optional(), originalIdea: z.string().optional() }).optional(),
  createdAt: IsoDatetime,
  updatedAt: IsoDatetime.optional(),
});
export type Prd = z.infer<typeof Prd>;

export const BATTLE_STATUSES = ["pending", "running", "paused", "awaiting_approval", "completed", "failed", "cancelled"] as const;
export const BattleStatus = z.enum(BATTLE_STATUSES);
export type BattleStatus = z.infer<typeof BattleStatus>;

/** `history.json`: the Battle. No id, no checkpoints, no failure object: pokeralph persists none of them. */
export const Battle = z.object({
  taskId: z.string().min(1),
  status: BattleStatus,
  iterations: z.array(Iteration),
  startedAt: IsoDatetime,
  completedAt: IsoDatetime.optional(),
  durationMs: z.number().optional(),
  error: z.string().optional(),
});
export type Battle = z.infer<typeof Battle>;

export const PROGRESS_STATUSES = ["idle", "in_progress", "awaiting_approval", "completed", "failed"] as const;
export const Progress = z.object({
  taskId: z.string().min(1),
  currentIteration: z.number().int().nonnegative(),
  status: z.enum(PROGRESS_STATUSES),
  lastUpdate: IsoDatetime,
  logs: z.array(z.string()),
  lastOutput: z.string(),
  completionDetected: z.boolean(),
  error: z.string().nullable(),
  feedbackResults: FeedbackResults,
});
export type Progress = z.infer<typeof Progress>;

/** One line per zod issue, naming the field: `iterations[2].startedAt: expected an ISO-8601 …`. */
export function describeIssues(error: z.ZodError, max = 3): string {
  const lines = error.issues.slice(0, max).map((issue) => `${formatPath(issue.path) || "(top level)"}: ${issue.message}`);
  const more = error.issues.length - max;
  return lines.join("; ") + (more > 0 ? `; and ${more} more` : "");
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) out += typeof key === "number" ? `[${key}]` : `${out ? "." : ""}${String(key)}`;
  return out;
}
