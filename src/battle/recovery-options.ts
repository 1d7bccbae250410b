/**
 * The recovery spec's vocabulary (pokeralph SPECS/11-recovery.md, mirrored by its recovery-service.ts; reference
 * battles-and-checkpoints.md §1.4): failure types, their severity, the recovery actions each allows, and which
 * resume strategies follow from them. Pure data and lookups, shared by `battle status` (what to show) and
 * `battle resume` (what to refuse, what to default to).
 */

export const FAILURE_TYPES = ["feedback_failure", "timeout", "claude_error", "system_error", "cancellation", "crash"] as const;
export type FailureType = (typeof FAILURE_TYPES)[number];

export const RECOVERY_ACTIONS = ["retry_iteration", "fix_and_continue", "rollback", "restart", "manual_resolution"] as const;
export type RecoveryAction = (typeof RECOVERY_ACTIONS)[number];

/** In the spec's order, which is also the order `allowedStrategies` lists them in. */
export const RESUME_STRATEGIES = ["retry_same", "retry_with_context", "rollback_and_retry", "continue_next", "manual_then_continue"] as const;
export type ResumeStrategy = (typeof RESUME_STRATEGIES)[number];

/** The spec's BattleFailure (reference §1.4): what went wrong, and whether and how it can be recovered. */
export interface BattleFailure {
  type: FailureType;
  /** When it happened (ISO-8601), as far as the files tell. */
  timestamp: string;
  /** The iteration that failed (or was in flight). */
  iteration: number;
  message: string;
  details?: string;
  recoverable: boolean;
  suggestedAction: RecoveryAction;
}

export type FailureSeverity = "low" | "medium" | "high";

/** `getFailureSeverity`. */
export function failureSeverity(type: FailureType): FailureSeverity {
  return type === "feedback_failure" || type === "cancellation" ? "low" : type === "timeout" || type === "claude_error" ? "medium" : "high";
}

/** `getRecoveryOptions`: the reference table's "Allowed actions" column. */
const ACTIONS: Record<FailureType, readonly RecoveryAction[]> = {
  feedback_failure: ["retry_iteration", "fix_and_continue", "rollback"],
  timeout: ["retry_iteration", "rollback"],
  claude_error: ["retry_iteration", "manual_resolution"],
  system_error: ["manual_resolution", "restart"],
  cancellation: ["restart", "rollback"],
  crash: ["restart", "rollback", "manual_resolution"],
};

export function recoveryActions(type: FailureType): readonly RecoveryAction[] {
  return ACTIONS[type];
}

/** `isValidResumeStrategy`'s mapping: the action each strategy performs. */
export const STRATEGY_ACTION: Record<ResumeStrategy, RecoveryAction> = {
  retry_same: "retry_iteration",
  retry_with_context: "retry_iteration",
  rollback_and_retry: "rollback",
  continue_next: "retry_iteration", // skipping ahead is a form of retry, says pokeralph
  manual_then_continue: "fix_and_continue",
};

/** `getDefaultResumeStrategy`'s mapping: the strategy that carries out each suggested action. */
const ACTION_STRATEGY: Record<RecoveryAction, ResumeStrategy> = {
  retry_iteration: "retry_with_context", // with context: the better retry
  fix_and_continue: "manual_then_continue",
  rollback: "rollback_and_retry",
  restart: "retry_same",
  manual_resolution: "manual_then_continue",
};

/**
 * The strategy to use when the user names none (`getDefaultResumeStrategy`): a failure that cannot be recovered
 * automatically always waits for a manual fix.
 */
export function defaultStrategy(failure: Pick<BattleFailure, "recoverable" | "suggestedAction">): ResumeStrategy {
  return failure.recoverable ? ACTION_STRATEGY[failure.suggestedAction] : "manual_then_continue";
}

/**
 * The strategies a failure allows. pokeralph's two tables disagree: `isValidResumeStrategy` would refuse
 * `retry_same` for a crash (its action `restart` has no strategy mapped to it) although `getDefaultResumeStrategy`
 * picks exactly that. So a strategy is allowed when its action is one the failure type allows, or when it is the
 * strategy pokeralph itself uses to carry out one of those actions; the default strategy is then always among
 * them. A failure that is not recoverable allows only `manual_then_continue` (as pokeralph says).
 */
export function allowedStrategies(failure: Pick<BattleFailure, "type" | "recoverable">): ResumeStrategy[] {
  if (!failure.recoverable) return ["manual_then_continue"];
  const actions = ACTIONS[failure.type];
  return RESUME_STRATEGIES.filter((s) => actions.some((a) => STRATEGY_ACTION[s] === a || ACTION_STRATEGY[a] === s));
}

export function isAllowedStrategy(strategy: ResumeStrategy, failure: Pick<BattleFailure, "type" | "recoverable">): boolean {
  return allowedStrategies(failure).includes(strategy);
}
