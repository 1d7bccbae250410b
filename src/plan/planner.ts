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
import { isTranscript, type TranscriptRecords } from "../model/transcript.js";
import type { Finding, Rule, RuleOptions } from "../rules/rule.js";
import { checkSession } from "../scan/check.js";
import { liveSkip, opencodeSessionView, transcriptSessionView, type LiveSkip } from "../scan/session-view.js";
import type { LoadedSession, RecordCodec } from "../stores/store.js";
import type { SessionView } from "../model/session-view.js";
import { conversationBytes } from "../model/tokens.js";
import { anthropicRequest } from "../provider/anthropic-request.js";
import type { ProviderErrorKind } from "../provider/classify-error.js";
import { thinkingMode, validateAnthropic } from "../provider/validate-anthropic.js";
import { ERROR_RULE_ID } from "./error-fixes.js";
import { FixContext } from "./fix-context.js";
import { TranscriptFixContext } from "./transcript-fix-context.js";
import { editTargets, WorkingSession } from "./working-session.js";
import { WorkingTranscript, type FileImage } from "./working-transcript.js";

/** Enough for one fix per message of a badly damaged message; a plan still moving after this is a bug. */
const MAX_PASSES = 64;

export interface PlanOptions extends RuleOptions {
  /** The rules whose findings are fixed (and checked). */
  rules: readonly Rule[];
  /** Only findings this accepts are fixed or reported (an error's fixes are scoped to the messages it names). */
  filter?: (finding: Finding) => boolean;
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
}

export function planSession(loaded: LoadedSession, codec: RecordCodec, options: PlanOptions): SessionPlan {
  return isTranscript(loaded) ? planTranscript(loaded, options) : planRecords(loaded, codec, options);
}

/** One store family's side of planning: its view, its fixes as claims, and what the difference comes to. */
interface Working {
  view(): SessionView;
  /** The edits that fix `finding` in this pass, with the records they claim; undefined when there is none. */
  fix(rule: Rule, finding: Finding, view: SessionView): { apply(): void; claims: string[] } | undefined;
  outcome(): Pick<SessionPlan, "changes" | "files">;
}

/**
 * The pass loop both families share: every fix whose records no other fix of this pass claimed is applied, then
 * the next pass judges the result anew.
 */
function plan(summary: SessionSummary, working: Working, options: PlanOptions): SessionPlan {
  const fixed: Finding[] = [];
  const byId = new Map(options.rules.map((r) => [r.id, r]));
  let skipped: LiveSkip | undefined;
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const view = working.view();
    if (pass === 0) skipped = liveSkip(view);
    const all = checkSession(view, options.rules, options);
    const findings = options.filter ? all.filter(options.filter) : all;
    const claimed = new Set<string>();
    let applied = 0;
    for (const finding of findings) {
      const rule = byId.get(finding.rule);
      const fix = rule ? working.fix(rule, finding, view) : undefined;
      if (!fix || fix.claims.some((t) => claimed.has(t))) continue;
      for (const t of fix.claims) claimed.add(t);
      fix.apply();
      fixed.push(finding);
      applied++;
    }
    if (applied === 0) {
      const { changes, files } = working.outcome();
      assertProviderAccepts(view, changes);
      return { summary, changes, ...(files ? { files } : {}), fixed, remaining: findings, after: { estimatedTokens: view.estimatedTokens, bytes: conversationBytes(view.conversation) }, ...(skipped ? { skipped } : {}) };
    }
  }
  throw new RecoverError("fix-failed", `the fixes for session ${summary.id} did not settle after ${MAX_PASSES} passes; nothing was changed (please report this)`, 1);
}

function planRecords(loaded: SessionRecords, codec: RecordCodec, options: PlanOptions): SessionPlan {
  const working = new WorkingSession(loaded, codec);
  let records = loaded;
  let context: FixContext | undefined;
  return plan(
    loaded.summary,
    {
      view() {
        records = working.records();
        context = undefined;
        return opencodeSessionView(records, options);
      },
      fix(rule, finding, view) {
        if (!rule.repair) return undefined;
        context ??= new FixContext(records, view, options.now, codec, options);
        const edits = rule.repair(finding, context);
        if (edits.length === 0) return undefined;
        return { claims: edits.flatMap((edit) => editTargets(edit, rule.independentFixes === true)), apply: () => working.apply(edits, rule.id) };
      },
      outcome() {
        const changes = working.changes();
        assertValid(changes);
        return { changes };
      },
    },
    options,
  );
}

function planTranscript(loaded: TranscriptRecords, options: PlanOptions): SessionPlan {
  const working = new WorkingTranscript(loaded);
  let context: TranscriptFixContext | undefined;
  return plan(
    loaded.summary,
    {
      view() {
        context = undefined;
        return transcriptSessionView(working.records(), options);
      },
      fix(rule, finding, view) {
        if (!rule.repairTranscript || !view.transcript) return undefined;
        context ??= new TranscriptFixContext(view.transcript, view, options.now, options);
        const edits = rule.repairTranscript(finding, context);
        if (edits.length === 0) return undefined;
        return { claims: edits.flatMap((edit) => WorkingTranscript.claims(edit)), apply: () => working.apply(edits, rule.id) };
      },
      outcome() {
        return working.result();
      },
    },
    options,
  );
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
  for (const violation of validateAnthropic(request, thinkingMode(request, "auto"))) {
    const claimed = ANSWERED_BY[violation.kind] ?? [];
    const touched = [...violation.blocks.flatMap((b) => [b.source.id, b.source.messageId]), ...(violation.blocks.length === 0 ? violation.messageIds : [])];
    const culprit = touched.find((id) => id !== undefined && [...(rulesOn.get(id) ?? [])].some((r) => claimed.includes(r)));
    if (culprit !== undefined) {
      throw new RecoverError("fix-failed", `the repaired session would still be rejected (${violation.text}) in ${culprit}, which the plan claims to fix; nothing was changed (please report this)`, 1);
    }
  }
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
