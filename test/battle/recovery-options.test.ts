// The recovery spec's table (reference §1.4): actions per failure type, the default strategy, and the strategies
// each failure allows, written out in full so a change to the derivation shows up here.
import { describe, expect, it } from "vitest";
import {
  allowedStrategies,
  defaultStrategy,
  failureSeverity,
  FAILURE_TYPES,
  isAllowedStrategy,
  recoveryActions,
  type BattleFailure,
  type FailureType,
} from "../../src/battle/recovery-options.js";

/** type, recoverable, suggestedAction (what the classifier gives each), severity, actions, default, allowed. */
const TABLE: [FailureType, boolean, BattleFailure["suggestedAction"], string, string[], string, string[]][] = [
  [
    "feedback_failure",
    true,
    "retry_iteration",
    "low",
    ["retry_iteration", "fix_and_continue", "rollback"],
    "retry_with_context",
    ["retry_same", "retry_with_context", "rollback_and_retry", "continue_next", "manual_then_continue"],
  ],
  [
    "timeout",
    true,
    "retry_iteration",
    "medium",
    ["retry_iteration", "rollback"],
    "retry_with_context",
    ["retry_same", "retry_with_context", "rollback_and_retry", "continue_next"],
  ],
  [
    "claude_error",
    true,
    "retry_iteration",
    "medium",
    ["retry_iteration", "manual_resolution"],
    "retry_with_context",
    ["retry_same", "retry_with_context", "continue_next", "manual_then_continue"],
  ],
  ["claude_error", false, "manual_resolution", "medium", ["retry_iteration", "manual_resolution"], "manual_then_continue", ["manual_then_continue"]],
  ["system_error", false, "manual_resolution", "high", ["manual_resolution", "restart"], "manual_then_continue", ["manual_then_continue"]],
  ["cancellation", true, "restart", "low", ["restart", "rollback"], "retry_same", ["retry_same", "rollback_and_retry"]],
  ["crash", true, "restart", "high", ["restart", "rollback", "manual_resolution"], "retry_same", ["retry_same", "rollback_and_retry", "manual_then_continue"]],
];

describe("recovery options per failure type", () => {
  it.each(TABLE)("%s (recoverable %s)", (type, recoverable, suggestedAction, severity, actions, fallback, allowed) => {
    const failure = { type, recoverable, suggestedAction };
    expect(failureSeverity(type)).toBe(severity);
    expect(recoveryActions(type)).toEqual(actions);
    expect(defaultStrategy(failure)).toBe(fallback);
    expect(allowedStrategies(failure)).toEqual(allowed);
    // Whatever the user is offered by default is allowed; nothing else is.
    expect(isAllowedStrategy(defaultStrategy(failure), failure)).toBe(true);
    for (const s of ["retry_same", "retry_with_context", "rollback_and_retry", "continue_next", "manual_then_continue"] as const) {
      expect(isAllowedStrategy(s, failure)).toBe(allowed.includes(s));
    }
  });

  it("covers all six failure types", () => {
    expect(new Set(TABLE.map((row) => row[0]))).toEqual(new Set(FAILURE_TYPES));
  });
});
