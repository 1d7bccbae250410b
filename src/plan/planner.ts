/**
 * The planner: findings → fixes → one plan per session. ESLint's multipass fixing: each pass runs the rules on
 * the session as fixed so far, applies every fix that touches records no other fix of this pass touches (a fix
 * reads its message, so one fix per message per pass), and the next pass sees the result. It stops when a pass
 * fixes nothing. The outcome is checked the way a scan would check it, so a plan can never claim a fix that
 * leaves its finding behind, and every record it writes must pass its own schema.
 */
import { RecoverError } from "../errors.js";
import type { RecordChange } from "../model/change.js";
import { MessageInfo, validatePart } from "../model/opencode.js";
import type { SessionRecords, SessionSummary } from "../model/opencode-records.js";
import type { Finding, Rule, RuleOptions } from "../rules/rule.js";
import { checkSession } from "../scan/check.js";
import { opencodeSessionView } from "../scan/session-view.js";
import type { RecordCodec } from "../stores/store.js";
import { FixContext } from "./fix-context.js";
import { editTargets, WorkingSession } from "./working-session.js";

/** Enough for one fix per message of a badly damaged message; a plan still moving after this is a bug. */
const MAX_PASSES = 64;

export interface PlanOptions extends RuleOptions {
  /** The rules whose findings are fixed (and checked). */
  rules: readonly Rule[];
}

export interface SessionPlan {
  summary: SessionSummary;
  changes: RecordChange[];
  /** Findings a fix took care of, as first found. */
  fixed: Finding[];
  /** Findings still there after planning: no automatic fix (or not this command's: context trim). */
  remaining: Finding[];
}

export function planSession(loaded: SessionRecords, codec: RecordCodec, options: PlanOptions): SessionPlan {
  const working = new WorkingSession(loaded, codec);
  const fixed: Finding[] = [];
  const byId = new Map(options.rules.map((r) => [r.id, r]));
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const records = working.records();
    const view = opencodeSessionView(records, options);
    const findings = checkSession(view, options.rules, options);
    const context = new FixContext(records, view, options.now, codec);
    const claimed = new Set<string>();
    let applied = 0;
    for (const finding of findings) {
      const rule = byId.get(finding.rule);
      if (!rule?.repair) continue;
      const edits = rule.repair(finding, context);
      if (edits.length === 0) continue;
      const targets = edits.flatMap(editTargets);
      if (targets.some((t) => claimed.has(t))) continue;
      for (const t of targets) claimed.add(t);
      working.apply(edits, rule.id);
      fixed.push(finding);
      applied++;
    }
    if (applied === 0) {
      const changes = working.changes();
      assertValid(changes);
      return { summary: loaded.summary, changes, fixed, remaining: findings };
    }
  }
  throw new RecoverError("fix-failed", `the fixes for session ${loaded.summary.id} did not settle after ${MAX_PASSES} passes; nothing was changed (please report this)`, 1);
}

/** A fix that writes a record its own schema rejects is a bug: stop before anything is written. */
function assertValid(changes: readonly RecordChange[]): void {
  for (const change of changes) {
    if (!change.after) continue;
    const result = change.key.record === "message" ? MessageInfo.safeParse(change.after) : validatePart(change.after);
    if (!result.success) {
      const issue = result.error.issues[0];
      throw new RecoverError(
        "fix-failed",
        `a fix (${change.rules.join(", ")}) would write an invalid ${change.key.record} ${change.key.id} (${issue?.path.join(".") || "record"}: ${issue?.message}); nothing was changed (please report this)`,
        1,
      );
    }
  }
}
