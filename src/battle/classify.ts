/**
 * What happened to a battle, from what pokeralph left on disk: the spec's failure classification
 * (feedback_failure, timeout, claude_error, system_error, cancellation, crash) with recoverability and the
 * suggested action, and whether a battle that says it runs really does. Pure: the caller brings the loaded files,
 * the server's answer and "now".
 *
 * pokeralph persists no failure object (reference §1.4), so the type is read from the evidence the loop leaves:
 * the battle's `error`, the last iteration's `error`, `result` and feedback results (§1.5). A crash leaves none
 * of that: `history.json` still says `running` (or `awaiting_approval`), the in-flight iteration is not recorded,
 * and only the absence of a live server plus stale progress (or stale write leftovers) tells it apart from a
 * battle that is simply busy.
 */
import type { ServerAnswer } from "./server-probe.js";
import type { LoadedBattle } from "../stores/pokeralph/load.js";
import type { Battle, Iteration, Progress } from "../stores/pokeralph/schemas.js";
import type { BattleFailure } from "./recovery-options.js";

export interface ClassifyContext {
  now: number;
  server: ServerAnswer;
  /** Progress older than this, with no server running the battle, is a crash. */
  staleAfterMs: number;
  /** A lock or temp file older than this is a leftover, not a write in progress. */
  artefactStaleMs: number;
}

/**
 * The longest pokeralph stays silent while alive: a claude run (30 minutes, hard-coded by pokeralph whatever
 * `timeoutMinutes` says) plus the first feedback loop (5 minutes), after which progress.json is written again.
 */
export const DEFAULT_STALE_AFTER_MS = 35 * 60_000;
/** pokeralph gives up acquiring a lock after 5 s and a write takes milliseconds: a minute-old lock is a leftover. */
export const DEFAULT_ARTEFACT_STALE_MS = 60_000;

export type Liveness =
  /** The battle is not supposed to be running (pending, paused, completed, failed, cancelled, or unreadable). */
  | { state: "idle" }
  /** A pokeralph server for this repository is running this battle. */
  | { state: "live"; detail: string }
  | { state: "crashed"; detail: string; lastActivity?: string }
  /** Says it runs, no server confirms it, but its progress is too recent to call it a crash. */
  | { state: "unconfirmed"; detail: string; lastActivity?: string };

export interface Classification {
  failure: BattleFailure | null;
  liveness: Liveness;
}

export function classifyBattle(battle: LoadedBattle, context: ClassifyContext): Classification {
  const history = battle.history.value;
  if (!history) return { failure: null, liveness: { state: "idle" } };
  const progress = battle.progress.value;
  switch (history.status) {
    case "running":
    case "awaiting_approval":
      return classifyActive(battle, history, progress, context);
    case "failed":
      return { failure: classifyFailed(history, progress), liveness: { state: "idle" } };
    case "cancelled":
      return { failure: classifyCancelled(history, progress), liveness: { state: "idle" } };
    default:
      return { failure: null, liveness: { state: "idle" } };
  }
}

// ---------------------------------------------------------------------------------------------
// running / awaiting_approval: live, or a crash
// ---------------------------------------------------------------------------------------------

function classifyActive(battle: LoadedBattle, history: Battle, progress: Progress | undefined, context: ClassifyContext): Classification {
  const { server, now } = context;
  const taskId = battle.taskId;
  if (server.kind === "live" && server.current?.taskId === taskId) {
    return { failure: null, liveness: { state: "live", detail: `pokeralph at ${server.url} is running it` } };
  }
  const lastActivity = latestActivity(history, battle.progress.value ?? battle.progress.raw);
  const age = lastActivity === undefined ? undefined : now - lastActivity;
  const activity = lastActivity === undefined ? "no recorded activity" : `last activity ${new Date(lastActivity).toISOString()} (${formatAge(age!)} ago)`;
  const lastActivityIso = lastActivity === undefined ? {} : { lastActivity: new Date(lastActivity).toISOString() };
  let evidence: string;
  if (server.kind === "live") {
    // One battle per server, and pokeralph saves the final status before forgetting a battle: a server that runs
    // something else (or nothing) for this repository is not going to finish this one.
    evidence = `pokeralph at ${server.url} answers but ${server.current ? `runs ${server.current.taskId}` : "runs no battle"}`;
  } else if (server.kind === "unknown") {
    return { failure: null, liveness: { state: "unconfirmed", detail: `${server.detail}; ${activity}`, ...lastActivityIso } };
  } else {
    const noServer =
      server.kind === "other-repo"
        ? `the pokeralph server at ${server.url} works on ${server.workingDir}`
        : `no pokeralph server answers at ${server.url} (${server.detail})`;
    const staleLeftovers = battle.artefacts.filter((a) => a.kind !== "patch-temp" && now - a.mtimeMs > context.artefactStaleMs);
    const stale = age === undefined || age > context.staleAfterMs;
    if (!stale && staleLeftovers.length === 0) {
      return { failure: null, liveness: { state: "unconfirmed", detail: `${noServer}, but ${activity}`, ...lastActivityIso } };
    }
    evidence = stale
      ? `${noServer} and progress is stale`
      : `${noServer} and a write was cut short (${staleLeftovers.map((a) => a.relPath.split("/").pop()).join(", ")})`;
  }
  const recorded = history.iterations.length;
  const inFlight = history.status === "running" && progress && progress.currentIteration > recorded ? progress.currentIteration : undefined;
  const iteration = inFlight ?? Math.max(recorded, 1);
  const where =
    history.status === "awaiting_approval"
      ? `while awaiting approval after iteration ${recorded}`
      : inFlight !== undefined
        ? `during iteration ${inFlight}`
        : `after iteration ${recorded}`;
  const message = `pokeralph stopped ${where}: history.json still says ${history.status}; ${evidence}, ${activity}`;
  const lastOutput = progress?.lastOutput?.trim();
  const failure: BattleFailure = {
    type: "crash",
    timestamp: lastActivityIso.lastActivity ?? history.startedAt,
    iteration,
    message,
    ...(lastOutput ? { details: `last output: ${lastOutput}` } : {}),
    recoverable: true,
    suggestedAction: "restart",
  };
  return { failure, liveness: { state: "crashed", detail: evidence, ...lastActivityIso } };
}

/** The newest moment the files show pokeralph (or Claude) at work, in epoch ms. */
function latestActivity(history: Battle, progress: unknown): number | undefined {
  const times: (string | undefined)[] = [history.startedAt];
  for (const it of history.iterations) times.push(it.startedAt, it.endedAt);
  if (progress && typeof progress === "object" && typeof (progress as { lastUpdate?: unknown }).lastUpdate === "string") {
    times.push((progress as { lastUpdate: string }).lastUpdate);
  }
  const ms = times.map((t) => (t === undefined ? NaN : Date.parse(t))).filter((t) => Number.isFinite(t));
  return ms.length === 0 ? undefined : Math.max(...ms);
}

export function formatAge(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 90) return `${s} s`;
  const m = Math.round(s / 60);
  if (m < 90) return `${m} min`;
  const h = Math.round(m / 60);
  if (h < 48) return `${h} h`;
  return `${Math.round(h / 24)} days`;
}

// ---------------------------------------------------------------------------------------------
// failed / cancelled
// ---------------------------------------------------------------------------------------------

/** The spec's system errors (recovery-service `isSystemError`): the machine, not the code, is the problem. */
const SYSTEM_ERROR = /ENOSPC|EACCES|EPERM|EMFILE|ENOMEM|ENFILE|disk full|permission denied|out of memory|no space left/i;
/** pokeralph's own words when the claude process hit the (hard-coded 30-minute) timeout. */
const TIMED_OUT = /timed out|\btimeout\b/i;
/** A claude failure no retry will fix: the CLI is missing, or the account cannot be used. */
const CLAUDE_NOT_RETRYABLE = /ENOENT|command not found|not found in PATH|invalid api key|authentication|unauthorized|\b401\b|\b403\b|credit balance|billing/i;

function classifyFailed(history: Battle, progress: Progress | undefined): BattleFailure {
  const last = history.iterations.at(-1);
  const iteration = last?.number ?? Math.max(progress?.currentIteration ?? 0, 1);
  const timestamp = history.completedAt ?? last?.endedAt ?? history.startedAt;
  const battleError = history.error?.trim() || progress?.error?.trim() || undefined;
  const text = [battleError, last?.error].filter(Boolean).join("\n");
  const base = { timestamp, iteration };

  if (SYSTEM_ERROR.test(text)) {
    const message = battleError ?? last?.error ?? "system error";
    return {
      ...base,
      type: "system_error",
      message,
      ...details(last?.error !== message ? last?.error : undefined),
      recoverable: false,
      suggestedAction: "manual_resolution",
    };
  }
  if (last && (last.result === "timeout" || TIMED_OUT.test(last.error ?? ""))) {
    return {
      ...base,
      type: "timeout",
      message: "Iteration timed out",
      ...details(last.error, battleError),
      recoverable: true,
      suggestedAction: "retry_iteration",
    };
  }
  const failing = last ? failingLoops(last) : [];
  if (failing.length > 0) {
    const names = failing.map(([name]) => `'${name}'`).join(", ");
    return {
      ...base,
      type: "feedback_failure",
      message: `Feedback loop${failing.length > 1 ? "s" : ""} ${names} failed`,
      details: failing.map(([name, r]) => `${name}: ${r.output.trim() || "(no output)"}`).join("\n"),
      recoverable: true,
      suggestedAction: "retry_iteration",
    };
  }
  if (last && (last.result === "failure" || last.error)) {
    // Feedback passed (or none ran), yet the iteration failed: claude itself exited non-zero or could not run.
    const retryable = !CLAUDE_NOT_RETRYABLE.test(text);
    return {
      ...base,
      type: "claude_error",
      message: last.error ?? battleError ?? `claude failed in iteration ${last.number}`,
      ...details(battleError !== last.error ? battleError : undefined),
      recoverable: retryable,
      suggestedAction: retryable ? "retry_iteration" : "manual_resolution",
    };
  }
  if (last && /Maximum iterations .* reached/i.test(battleError ?? "")) {
    // Every check passed but claude never declared the task complete: its failure to finish, worth a retry.
    return { ...base, type: "claude_error", message: battleError!, recoverable: true, suggestedAction: "retry_iteration" };
  }
  // Nothing identifies it: the spec's classifier falls back to a system error, which needs a person.
  return {
    ...base,
    type: "system_error",
    message: battleError ?? "the battle failed without a recorded reason",
    recoverable: false,
    suggestedAction: "manual_resolution",
  };
}

function classifyCancelled(history: Battle, progress: Progress | undefined): BattleFailure {
  const recorded = history.iterations.length;
  const iteration = progress && progress.currentIteration > recorded ? progress.currentIteration : Math.max(recorded, 1);
  return {
    type: "cancellation",
    timestamp: history.completedAt ?? history.iterations.at(-1)?.endedAt ?? history.startedAt,
    iteration,
    message: history.error?.trim() || "Cancelled by user",
    recoverable: true,
    suggestedAction: "restart",
  };
}

export function failingLoops(iteration: Iteration): [string, { passed: boolean; output: string }][] {
  return Object.entries(iteration.feedbackResults ?? {}).filter(([, r]) => !r.passed);
}

function details(...parts: (string | undefined)[]): { details?: string } {
  const text = [...new Set(parts.map((p) => p?.trim()).filter(Boolean))].join("\n");
  return text ? { details: text } : {};
}
