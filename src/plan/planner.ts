/**
 * The planner: findings → fixes → one plan per session. ESLint's multipass fixing: each pass runs the rules on
 * the session as fixed so far, applies every fix that touches records no other fix of this pass touches (a fix
 * reads its message, so one fix per message per pass), and the next pass sees the result. It stops when a pass
 * fixes nothing. The outcome is checked the way a scan would check it, so a plan can never claim a fix that
 * leaves its finding behind, and every record it writes must pass its own schema.
 */
import { RecoverError } from "../errors.js";
import type { FileImage, RecordChange } from "../model/change.js";
import type { FixContext } from "../model/fix-context.js";
import type { LoadedRecords, RecordFamily, StoreFixing } from "../model/fixing.js";
import type { SessionSummary } from "../model/opencode-records.js";
import type { Finding, Rule, RuleOptions } from "../rules/rule.js";
import { checkSession } from "../scan/check.js";
import { liveSkip, sessionView, type LiveSkip } from "../scan/session-view.js";
import type { SessionView } from "../model/session-view.js";
import { conversationBytes } from "../model/tokens.js";
import { anthropicRequest } from "../provider/anthropic-request.js";
import type { ProviderErrorKind } from "../provider/classify-error.js";
import { requestViolations } from "../provider/validate-anthropic.js";
import { ERROR_RULE_ID } from "./error-fixes.js";
import { WorkingCopy } from "./working-copy.js";
import { BOUND_THINKING_ID, BOUND_THINKING_REASON, boundThinkingFrom, firstChange } from "./prefix-thinking.js";
import { plural } from "../model/format-count.js";
import { where } from "../rules/helpers.js";

/** Enough for one fix per message of a badly damaged message; a plan still moving after this is a bug. */
const MAX_PASSES = 64;

export interface PlanOptions extends RuleOptions {
  /** The rules whose findings are fixed (and checked). */
  rules: readonly Rule[];
  /**
   * Only findings this accepts are fixed (an error's fixes are scoped to the messages it names). The others are still
   * there, so they are reported as left: a dry run must say what a scan after the write will find.
   */
  filter?: (finding: Finding) => boolean;
  /**
   * The rules a scan runs: once nothing more can be fixed, their errors are reported as left too, so a plan never
   * calls a session done that a scan would still fail (provider-rejects has no fix, so `rules` alone never sees it).
   */
  judgeWith?: readonly Rule[];
  /**
   * Refuse a plan whose changes come before prefix-bound thinking (`--keep-thinking`: for an account that does not
   * enforce the prefix check), instead of dropping that thinking with it.
   */
  keepThinking?: boolean;
}

export interface SessionPlan {
  summary: SessionSummary;
  changes: RecordChange[];
  /** Transcripts: the whole-file image the line changes come to (what the writer puts in place). */
  files?: FileImage[];
  /** Findings a fix took care of, as first found. */
  fixed: Finding[];
  /** Findings still there after planning: no automatic fix (or not this command's: context trim). */
  remaining: Finding[];
  /** The request after the plan: estimated tokens and UTF-8 bytes. */
  after: { estimatedTokens: number; bytes: number };
  /** Its last turn is being written, so no rule judged (or fixed) it. */
  skipped?: LiveSkip;
  /** Thinking blocks the plan drops because they are bound to what it changes before them (prefix-thinking.ts). */
  droppedThinking?: number;
}

/**
 * Plan the fixes for one loaded session. `fixing` is the store's side (`SessionStore.fixing`, passed in by the caller): the working
 * copy the fixes are applied to, and the fix context the rules' fixes read. `loadedView`: the caller's view of
 * `loaded` as read, built with the same `now` and live window, so the first pass need not build it again (on a
 * 50 MB transcript that is a quarter of a second).
 */
export function planSession(loaded: LoadedRecords, fixing: StoreFixing, options: PlanOptions, loadedView?: SessionView): SessionPlan {
  const family = fixing.family(loaded);
  return plan(loaded.summary, family, new WorkingCopy(family), options, loadedView);
}

/**
 * ESLint's multipass loop: every fix whose records no other fix of this pass claimed is applied, then the next pass
 * judges the result anew.
 */
function plan(summary: SessionSummary, family: RecordFamily, working: WorkingCopy, options: PlanOptions, loadedView?: SessionView): SessionPlan {
  const fixed: Finding[] = [];
  const byId = new Map(options.rules.map((r) => [r.id, r]));
  let skipped: LiveSkip | undefined;
  let original: SessionView | undefined;
  let droppedThinking = 0;
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const view = pass === 0 && loadedView ? loadedView : sessionView(working.records(), options);
    if (pass === 0) {
      skipped = liveSkip(view);
      original = view;
    }
    const all = checkSession(view, options.rules, options);
    const findings = options.filter ? all.filter(options.filter) : all;
    const claimed = new Set<string>(family.untouchable?.() ?? []);
    let context: FixContext | undefined;
    let applied = 0;
    for (const finding of findings) {
      const rule = byId.get(finding.rule);
      if (!rule?.fix) continue;
      context ??= family.context(view, options);
      const edits = rule.fix(finding, context);
      if (edits.length === 0) continue;
      const claims = edits.flatMap((edit) => family.claims(edit, rule.independentFixes === true));
      if (claims.some((t) => claimed.has(t))) continue;
      for (const t of claims) claimed.add(t);
      working.apply(edits, rule.id);
      fixed.push(finding);
      applied++;
    }
    if (applied === 0 && original !== view) {
      // Settled: now the thinking the fixes invalidated goes with them, and the loop judges the result again.
      const bound = boundThinkingFrom(view.conversation, firstChange(original!.conversation, view.conversation));
      if (bound.length > 0 && options.keepThinking) {
        throw new RecoverError(
          "thinking-bound",
          `the repair of session ${summary.id} changes the conversation before ${plural(bound.length, "thinking block")} a current Claude model bound to it (${BOUND_THINKING_REASON}); --keep-thinking refuses to drop them: nothing was changed`,
        );
      }
      context ??= family.context(view, options);
      for (const block of bound) {
        const edits = context.dropThinking(where({ ref: block.source }), BOUND_THINKING_REASON);
        const claims = edits.flatMap((edit) => family.claims(edit, false));
        if (edits.length === 0 || claims.some((t) => claimed.has(t))) continue;
        for (const t of claims) claimed.add(t);
        working.apply(edits, BOUND_THINKING_ID);
        droppedThinking++;
        applied++;
      }
      if (bound.length > 0 && applied === 0) {
        throw new RecoverError(
          "fix-failed",
          `session ${summary.id}: ${plural(bound.length, "thinking block")} after what the repair changes cannot be dropped (${BOUND_THINKING_REASON}); nothing was changed (please report this)`,
        );
      }
    }
    if (applied === 0) {
      const { changes, files } = working.outcome();
      assertProviderAccepts(view, changes);
      return {
        summary,
        changes,
        ...(files ? { files } : {}),
        fixed,
        remaining: atOriginalLines(options.judgeWith ? judged(view, options, byId) : all, original!),
        after: { estimatedTokens: view.estimatedTokens, bytes: conversationBytes(view.conversation) },
        ...(skipped ? { skipped } : {}),
        ...(droppedThinking > 0 ? { droppedThinking } : {}),
      };
    }
  }
  throw new RecoverError(
    "fix-failed",
    `the fixes for session ${summary.id} did not settle after ${MAX_PASSES} passes; nothing was changed (please report this)`,
  );
}

/**
 * What is left, judged as a scan would: every finding of the fixing rules (as before), and the errors of the other
 * rules a scan runs. Their warnings stay out: the repair was not asked about them (trailing-assistant is fixed only
 * on request), and a warning never fails a scan. Not through `filter`: a finding it kept from being fixed is still
 * there, and a scan after the write finds it; a dry run that hid it would promise a clean session the real run then
 * reports as not done (issue 38).
 *
 * This is the repair's verdict on the written session, and no rescan follows the write: the planned records are
 * decoded from the very bytes the writer stores (each store's working copy rebuilds a changed record from its
 * encoding), the writer refuses a record that changed since it was read, and a SQLite writer reads every row back
 * before it commits. test/repair/done-is-done.test.ts holds the verdict against a fresh scan on seeded damage of
 * every format.
 */
function judged(view: SessionView, options: PlanOptions, fixing: ReadonlyMap<string, Rule>): Finding[] {
  const extra = options.rules.filter((r) => !options.judgeWith?.includes(r));
  return checkSession(view, [...extra, ...(options.judgeWith ?? [])], options).filter((f) => fixing.has(f.rule) || f.severity === "error");
}

/** Which rules' fixes answer each kind of provider violation: a plan that claims one must leave none behind. */
const ANSWERED_BY: Partial<Record<ProviderErrorKind, string[]>> = {
  empty_content: ["empty-text-part", "empty-message", ERROR_RULE_ID],
  thinking_order: ["thinking-block-order", ERROR_RULE_ID],
  trailing_thinking: ["trailing-thinking", "thinking-only-message", ERROR_RULE_ID],
  duplicate_tool_id: ["duplicate-tool-call-id", ERROR_RULE_ID],
  orphan_tool_use: ["tool-call-interrupted", "tool-result-missing", ERROR_RULE_ID],
  orphan_tool_result: ["orphan-tool-result", ERROR_RULE_ID],
  thinking_when_disabled: [ERROR_RULE_ID],
};

/**
 * The self-check: the request built from the fixed session must not break, in the records a change touched, an API
 * rule that change claims to fix. Otherwise the fix is wrong: stop before anything is written.
 */
function assertProviderAccepts(view: SessionView, changes: readonly RecordChange[]): void {
  if (changes.length === 0) return;
  const rulesOn = new Map<string, Set<string>>();
  for (const change of changes) {
    for (const id of [change.key.id, change.key.messageId]) {
      if (id === undefined) continue;
      const set = rulesOn.get(id) ?? new Set<string>();
      for (const rule of change.rules) set.add(rule);
      rulesOn.set(id, set);
    }
  }
  const request = anthropicRequest(view.conversation);
  for (const violation of requestViolations(request)) {
    const claimed = ANSWERED_BY[violation.kind] ?? [];
    const touched = [...violation.blocks.flatMap((b) => [b.source.id, b.source.messageId]), ...(violation.blocks.length === 0 ? violation.messageIds : [])];
    const culprit = touched.find((id) => id !== undefined && [...(rulesOn.get(id) ?? [])].some((r) => claimed.includes(r)));
    if (culprit !== undefined) {
      throw new RecoverError(
        "fix-failed",
        `the repaired session would still be rejected (${violation.text}) in ${culprit}, which the plan claims to fix; nothing was changed (please report this)`,
      );
    }
  }
}

/**
 * What a plan leaves alone is judged on the planned records, where deleted lines have moved the ones after them up:
 * said at the line the file has now, as the scan said it (the same record: same id).
 */
function atOriginalLines(findings: Finding[], original: SessionView): Finding[] {
  const lines = original.transcript?.byId;
  if (!lines) return findings;
  return findings.map((f) => {
    const line = f.messageId !== undefined ? lines.get(f.messageId)?.ref.line : undefined;
    return line !== undefined && f.line !== undefined && line !== f.line ? { ...f, line } : f;
  });
}
