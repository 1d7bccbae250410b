/**
 * Repair aimed at the exact error a user got. Some damage cannot be seen offline (a signature the API no longer
 * accepts), only in the provider's answer: the error names a kind and a request position, the provider view maps
 * that position to records, and this module turns it into a rule of its own — findings for the named records, fixed
 * the way the matching specific rule fixes them — that joins the planner's other rules.
 */
import type { MessageRecord, PartRecord } from "../model/opencode-records.js";
import type { SessionView } from "../model/session-view.js";
import { anthropicRequest, locate, type AnthropicRequest, type RequestBlock } from "../provider/anthropic-request.js";
import { classifyProviderError, type ClassifiedError, type ProviderErrorKind } from "../provider/classify-error.js";
import { corruptedToolOutput } from "../rules/corrupted-tool-output.js";
import { duplicateToolCallId } from "../rules/duplicate-tool-call-id.js";
import { foreignMessageId } from "../rules/foreign-message-id.js";
import { dropThinkingBlock, emptyThinking } from "../rules/empty-thinking.js";
import { emptyMessage } from "../rules/empty-message.js";
import { emptyTextPart } from "../rules/empty-text-part.js";
import { DEFAULT_RULE_OPTIONS, type Finding, type Report, type Rule, ruleApplies } from "../rules/rule.js";
import { thinkingBlockOrder } from "../rules/thinking-block-order.js";
import { thinkingOnlyMessage } from "../rules/thinking-only-message.js";
import { toolCallInterrupted } from "../rules/tool-call-interrupted.js";
import { trailingThinking } from "../rules/trailing-thinking.js";
import { orphanToolResult } from "../rules/orphan-tool-result.js";
import { toolResultMissing } from "../rules/tool-result-missing.js";
import { atBlock } from "../rules/helpers.js";
import { DROPPED_REASONING, sealedItemId, unverifiedContent } from "../rules/unverifiable-reasoning.js";
import { rolloutOrdinal } from "../rules/rollout-ordinal.js";
import { staleBookkeeping } from "../rules/stale-bookkeeping.js";
import { dropSignature, signedBlocks } from "../rules/corrupted-thought-signature.js";
import { unknownRewind } from "../rules/unknown-rewind.js";
import { unreadableRecord } from "../rules/unreadable-record.js";
import { leadingAssistant } from "../rules/leading-assistant.js";
import type { Edit } from "../model/edit.js";
import type { LineFixContext, RecordFixContext } from "../model/fix-context.js";
import type { TranscriptLine } from "../model/transcript.js";
import type { Json } from "../model/edit.js";
import { formatCount } from "../model/format-count.js";

export const ERROR_RULE_ID = "provider-error";

export interface ErrorPlan {
  /** The rule to add to the plan, when the error names something offline repair can fix. */
  rule?: Rule;
  /**
   * The records (part or message ids) the error names: the plan answers the error when it changes one of them,
   * whichever rule's fix got there first (the specific rule often does, with the same fix).
   */
  targets?: Set<string>;
  /** Specific rules whose findings in the named messages this error asks to fix. */
  scopedRules?: { rules: Rule[]; messageIds: Set<string> };
  /** Answered by the trim strategies, in the repair's own transaction: the limit the error states, a byte budget, or the image rules. */
  trim?: { tokens?: { current: number; max: number }; bytes?: boolean; images?: boolean };
  /** What the error means for this session, for the user. */
  explanation: string;
  /**
   * The records the error locates lie in the session's last turn, which its live window leaves unjudged as being
   * written: the provider refused a request that held that turn, so nobody is writing it any more, and the repair
   * judges it as `--include-live` does.
   */
  judgesLiveTail?: true;
  /**
   * The live last turn holds findings of the error's kind, but the error's position and ids name nothing there: no
   * evidence that turn went out, so it was left out (its agent may be writing it), and the message says how to judge it.
   */
  liveTailLeft?: true;
}

function allParts(view: SessionView): { part: PartRecord; message: MessageRecord }[] {
  return (view.opencode?.messages ?? []).flatMap((message) => message.parts.map((part) => ({ part, message })));
}

function partIdsOf(blocks: readonly RequestBlock[]): string[] {
  return blocks.filter((b) => b.source.kind === "part").map((b) => b.source.id);
}

/** A rule that reports the given parts while `pending(part, view)` holds, and fixes each with `fix`. */
function targetRule(
  description: string,
  partIds: string[],
  pending: (part: PartRecord, view: SessionView) => boolean,
  why: string,
  fix: (part: PartRecord, context: RecordFixContext, finding: Finding) => Edit[],
): Rule {
  const wanted = new Set(partIds);
  return {
    id: ERROR_RULE_ID,
    severity: "error",
    description,
    fixedBy: "repair",
    check(view) {
      const reports: Report[] = [];
      for (const { part, message } of allParts(view)) {
        if (wanted.has(part.ref.id) && pending(part, view)) reports.push({ partId: part.ref.id, messageId: message.ref.id, message: why });
      }
      return reports;
    },
    fix(finding, context) {
      if (context.kind !== "records") return [];
      const part = context.part(finding.partId);
      return part ? fix(part, context, finding) : [];
    },
  };
}

const toolStatus = (part: PartRecord) => (part.part as { state?: { status?: string } } | undefined)?.state?.status ?? "";
const callIdOf = (part: PartRecord) => (part.part as { callID?: string } | undefined)?.callID;
const isReasoning = (part: PartRecord) => part.part?.type === "reasoning";

/**
 * The scan rules whose findings answer an error kind. When the position the error names holds nothing of its kind
 * (recover's request view and the client's request differ, or the error names no position), these findings
 * anywhere in the session are what the error is about: a scan that reports one must never hear "nothing matches".
 */
const ANSWERED_BY: Partial<Record<ProviderErrorKind, readonly Rule[]>> = {
  orphan_tool_use: [toolCallInterrupted, toolResultMissing],
  tool_response_mismatch: [toolCallInterrupted, toolResultMissing, orphanToolResult],
  orphan_tool_result: [orphanToolResult],
  duplicate_tool_id: [duplicateToolCallId],
  empty_tool_id: [duplicateToolCallId],
  thinking_order: [thinkingBlockOrder],
  trailing_thinking: [trailingThinking, thinkingOnlyMessage],
  empty_content: [emptyTextPart, emptyMessage],
  thinking_empty: [emptyThinking],
};

/** What each kind is about, as the fallback's explanation names it. */
const KIND_NOUN: Partial<Record<ProviderErrorKind, string>> = {
  orphan_tool_use: "a tool call without its result",
  tool_response_mismatch: "calls and responses that do not pair",
  orphan_tool_result: "a tool result without its call",
  duplicate_tool_id: "a repeated tool call id",
  empty_tool_id: "an empty tool call id",
  thinking_order: "misplaced thinking",
  trailing_thinking: "a message ending on thinking",
  empty_content: "empty content",
  thinking_empty: "empty thinking",
};

const SCAN_OPTIONS = { ...DEFAULT_RULE_OPTIONS, now: 0 };

/**
 * What the error names in the session, and the fix that answers it. The error is the provider's answer to a request
 * the client sent: a last turn the live window calls "being written" was finished when it went out. So the error is
 * looked for there too, and when it locates records there the plan says so (`judgesLiveTail`): by its position or
 * ids, or, for an error that names neither (Gemini's texts), by its kind. An error whose position and ids name
 * nothing in that turn is no evidence it went out: there the turn stays unjudged, as without an error (the agent may
 * have gone on since, and a call it is running looks like a call without a result).
 */
export function planForError(error: ClassifiedError, live: SessionView): ErrorPlan {
  if (live.liveTailMessageId === undefined) return planForSentHistory(error, live).plan;
  const tail = liveTailRecords(live);
  const { plan, byKind } = planForSentHistory(error, asSent(live));
  if (!pointsInto(plan, tail)) return plan;
  const unplaced = error.index === null && error.ids.length === 0;
  if (!byKind || unplaced || namesCallIn(error, live, tail)) return { ...plan, judgesLiveTail: true };
  return { ...planForSentHistory(error, live).plan, liveTailLeft: true };
}

/** The view as the provider saw it: no turn in it was still being written. */
function asSent(view: SessionView): SessionView {
  const { liveTailMessageId: _written, ...sent } = view;
  return sent;
}

/** The ids of the live tail: its message (or line), its parts, and the blocks it sends. */
function liveTailRecords(view: SessionView): Set<string> {
  const tail = view.liveTailMessageId!;
  const ids = new Set([tail]);
  for (const part of view.opencode?.messages.find((m) => m.ref.id === tail)?.parts ?? []) ids.add(part.ref.id);
  for (const message of view.conversation.messages) for (const block of message.blocks) if (block.source.messageId === tail) ids.add(block.source.id);
  return ids;
}

/** Whether the records the plan answers (or the messages its rules are scoped to, once something was found there) include one of `ids`. */
function pointsInto(plan: ErrorPlan, ids: ReadonlySet<string>): boolean {
  if (!plan.targets || plan.targets.size === 0) return false;
  return [...plan.targets, ...(plan.scopedRules?.messageIds ?? [])].some((id) => ids.has(id));
}

/** Whether a tool call or result the error names by id is sent from the records `ids`. */
function namesCallIn(error: ClassifiedError, view: SessionView, ids: ReadonlySet<string>): boolean {
  const named = new Set(error.ids);
  return view.conversation.messages.some((m) =>
    m.blocks.some((b) => ids.has(b.source.id) && ((b.type === "tool_use" && named.has(b.id)) || (b.type === "tool_result" && named.has(b.toolUseId)))),
  );
}

/** The plan for the history as the view shows it; `byKind`: its targets are the findings of the error's kind, not what it names. */
function planForSentHistory(error: ClassifiedError, view: SessionView): { plan: ErrorPlan; byKind: boolean } {
  // The provider view of the session, built once: the named position, the fallback's places and the notes all read it.
  const request = anthropicRequest(view.conversation);
  const plan = errorPlan(error, view, request);
  if (plan.trim) return { plan, byKind: false };
  const named = namedTargets(plan, view);
  if (named.size > 0) return { plan: everyPlace({ ...plan, targets: named }, view, request), byKind: false };
  const answering = ANSWERED_BY[error.kind];
  if (!answering) return { plan, byKind: false };
  return { plan: nearestFindings(error, view, request, answering) ?? { explanation: nothingAnswers(error, request, answering) }, byKind: true };
}

const idsOf = (reports: readonly Report[]) => new Set(reports.flatMap((r) => [r.partId ?? r.messageId].filter((id): id is string => id !== undefined)));

/** The records the plan's own rule reports, or the named messages when its scoped rules find something there. */
function namedTargets(plan: ErrorPlan, view: SessionView): Set<string> {
  if (plan.rule) return ruleApplies(plan.rule, view) ? idsOf(plan.rule.check(view, SCAN_OPTIONS, [])) : new Set();
  const scope = plan.scopedRules;
  if (!scope || scope.messageIds.size === 0) return new Set();
  const found = scope.rules.filter((rule) => ruleApplies(rule, view)).flatMap((rule) => rule.check(view, SCAN_OPTIONS, []));
  return found.some((r) => r.messageId !== undefined && scope.messageIds.has(r.messageId)) ? new Set(scope.messageIds) : new Set();
}

/**
 * The API checks the whole request and names the first block that breaks a rule; a repair of just that block is
 * refused again at the next one (issue 38: emptied thinking in two turns, the second refused once the first was
 * gone). So a plan scoped to the named messages reaches every message of the request where its rules find the same
 * fault, and the explanation says where. Which records a change must touch to answer the error (`targets`) stays the
 * named ones.
 */
function everyPlace(plan: ErrorPlan, view: SessionView, request: AnthropicRequest): ErrorPlan {
  const scope = plan.scopedRules;
  if (!scope || scope.messageIds.size === 0) return plan;
  const others = scope.rules
    .filter((rule) => ruleApplies(rule, view))
    .flatMap((rule) => rule.check(view, SCAN_OPTIONS, []))
    .filter((report) => report.messageId !== undefined && !scope.messageIds.has(report.messageId))
    .map((report) => ({ report, place: requestPlace(request, report) }))
    .filter((f): f is Placed => f.place !== undefined)
    .sort((a, b) => a.place.index - b.place.index);
  if (others.length === 0) return plan;
  const places = [...new Set(others.map((f) => f.place.label))];
  const listed = places.length <= 5 ? places.join(", ") : `${places.slice(0, 5).join(", ")} and ${places.length - 5} more`;
  return {
    ...plan,
    scopedRules: { rules: scope.rules, messageIds: new Set([...scope.messageIds, ...others.map((f) => f.report.messageId!)]) },
    explanation: `${plan.explanation}; the API checks the whole request and would refuse the same at ${listed} next, so this repair fixes ${places.length === 1 ? "that" : "those"} too`,
  };
}

/** Where a finding sits in the request: `messages.N[.content.M]`, and N (for the distance to the named position). */
function requestPlace(request: AnthropicRequest, report: Report): { index: number; label: string } | undefined {
  const id = report.messageId;
  const index = id === undefined ? -1 : request.messages.findIndex((m) => m.sourceMessageIds.includes(id));
  if (index < 0) return undefined;
  const block = request.messages[index]!.content.findIndex((b) => b.source.id === report.partId);
  return { index, label: `messages.${index}${block >= 0 ? `.content.${block}` : ""}` };
}

interface Placed {
  report: Report;
  place: { index: number; label: string };
}

/** The findings of the error's kind anywhere in the session, nearest to the named position first. */
function nearestFindings(error: ClassifiedError, view: SessionView, request: AnthropicRequest, rules: readonly Rule[]): ErrorPlan | undefined {
  const found = rules
    .filter((rule) => ruleApplies(rule, view))
    .flatMap((rule) => rule.check(view, SCAN_OPTIONS, []))
    .map((report) => ({ report, place: requestPlace(request, report) }))
    .filter((f): f is Placed => f.place !== undefined);
  if (found.length === 0) return undefined;
  const from = error.index ?? 0;
  found.sort((a, b) => Math.abs(a.place.index - from) - Math.abs(b.place.index - from) || a.place.index - b.place.index);
  const noun = KIND_NOUN[error.kind] ?? error.kind;
  const places = found.map((f) => f.place.label);
  const listed = places.length <= 5 ? places.join(", ") : `${places.slice(0, 5).join(", ")} and ${places.length - 5} more`;
  const what =
    found.length === 1
      ? `the one place with ${noun} is ${listed} (${found[0]!.report.message}): fixing it`
      : `the ${found.length} places with ${noun}, nearest first, are ${listed}: fixing them all`;
  return {
    scopedRules: { rules: [...rules], messageIds: new Set(found.map((f) => f.report.messageId!)) },
    targets: idsOf(found.map((f) => f.report)),
    explanation: `${namedPlace(error, request)}${error.index === null ? "" : `, not ${noun}`}; ${what}`,
  };
}

/** What the error's position holds in recover's view of the request. */
function namedPlace(error: ClassifiedError, request: AnthropicRequest): string {
  if (error.index === null) return "the error names no position";
  const message = request.messages[error.index];
  if (!message) return `recover's view of the request has no messages.${error.index} (it has ${request.messages.length})`;
  if (error.contentIndex !== null) {
    const block = message.content[error.contentIndex];
    if (!block) return `messages.${error.index} (${message.role}) has no block ${error.contentIndex}`;
    return `messages.${error.index}.content.${error.contentIndex} holds ${block.blank ? "blank " : ""}${block.type.replace("_", " ")}`;
  }
  const kinds = [...new Set(message.content.map((b) => b.type.replace("_", " ")))].join(", ");
  return `messages.${error.index} is a${message.role === "assistant" ? "n" : ""} ${message.role} message (${kinds || "no content"})`;
}

const ENCODING =
  "the request body did not parse at the API: a NUL or a lone UTF-16 surrogate in a stored string (a tool output, a tool call's input, a text); the damaged characters are removed from each record holding one, the rest stays (kept in the backup)";

/**
 * The body did not parse: every record the view sends whose strings hold a NUL or a lone surrogate is cleaned, as
 * corrupted-tool-output cleans it, also where the client was taken to mend it itself (the API says it did not: an
 * older client, or another path to the API).
 */
function encodingRule(message: string): Rule {
  return {
    ...corruptedToolOutput,
    id: ERROR_RULE_ID,
    severity: "error",
    check: (view, options, earlier) =>
      corruptedToolOutput.check(view, options, earlier).map(({ fixable: _, severity: __, ...report }) => ({
        ...report,
        message: `${report.message}; the provider rejected the request: ${message}`,
      })),
  };
}

function nothingAnswers(error: ClassifiedError, request: AnthropicRequest, rules: readonly Rule[]): string {
  return `${namedPlace(error, request)}; no ${rules.map((r) => r.id).join(" or ")} finding anywhere in the ${request.messages.length} messages of the request either, so recover found nothing this error is about`;
}

function errorPlan(error: ClassifiedError, view: SessionView, request: AnthropicRequest): ErrorPlan {
  const position = locate(request, error.index, error.contentIndex);
  const at = error.index === null ? "" : ` at messages.${error.index}${error.contentIndex === null ? "" : `.content.${error.contentIndex}`}`;
  const namedBlocks = position?.block ? [position.block] : (position?.message.content ?? []);
  const partsByCall = (ids: string[]) =>
    allParts(view)
      .filter(({ part }) => part.part?.type === "tool" && ids.includes(callIdOf(part) ?? ""))
      .map(({ part }) => part.ref.id);
  const why = `the provider rejected this record: ${error.message}`;
  if (error.kind === "invalid_json_body") return { rule: encodingRule(error.message), explanation: ENCODING };
  if (view.api === "responses") return responsesErrorPlan(error, view, why);
  if (view.transcript) return transcriptErrorPlan(error, view, request, position?.message.sourceMessageIds, namedBlocks, at, why);

  switch (error.kind) {
    case "orphan_tool_use": {
      const ids = error.ids.length > 0 ? error.ids : namedBlocks.filter((b) => b.type === "tool_use").map((b) => b.id ?? "");
      const parts = partsByCall(ids);
      const open = (p: PartRecord) => ["pending", "running"].includes(toolStatus(p));
      return {
        rule: targetRule("tool calls the provider found without results", parts, open, why, (_part, context, finding) =>
          toolCallInterrupted.fix!(finding, context),
        ),
        explanation: `tool call${ids.length === 1 ? "" : "s"} ${ids.join(", ")}${at} went out without a result: ${parts.length ? "closed as interrupted, with the result opencode already sends for it" : "no such call is open in the store"}`,
      };
    }
    case "orphan_tool_result": {
      const ids = error.ids.length > 0 ? error.ids : namedBlocks.filter((b) => b.type === "tool_result").map((b) => b.id ?? "");
      const parts = partsByCall(ids);
      return {
        rule: targetRule(
          "tool results the provider found without their call",
          parts,
          () => true,
          why,
          (part, context) => context.delete(part, "removed the tool call whose result the provider could not pair (kept in the backup)"),
        ),
        explanation: `tool result${ids.length === 1 ? "" : "s"} for ${ids.join(", ")}${at} had no call before them: that tool part is taken out (kept in the backup)`,
      };
    }
    case "duplicate_tool_id": {
      const parts = partIdsOf(namedBlocks.filter((b) => b.type === "tool_use"));
      // Judged on each pass's view: once the later call has a fresh id, it is no longer a duplicate.
      const duplicated = (p: PartRecord, now: SessionView) =>
        allParts(now).find(({ part }) => part.part?.type === "tool" && callIdOf(part) === callIdOf(p))?.part.ref.id !== p.ref.id;
      return {
        rule: targetRule("tool call ids the provider found twice", parts, duplicated, why, (_part, context, finding) =>
          duplicateToolCallId.fix!(finding, context),
        ),
        explanation: `a tool call id${at} is used twice: the later call gets a fresh id`,
      };
    }
    case "thinking_modified":
      return latestTurnPlan(request, error, why);
    case "thinking_signature":
      return signaturesPlan(request, error, namedBlocks, at, why);
    case "thinking_bound":
      return boundPlan(request, error, why);
    case "thinking_empty":
      return scoped([emptyThinking], position?.message.sourceMessageIds, `an empty thinking block${at}: it is removed (a signature cannot be made up)`);
    case "empty_tool_id":
      return scoped([duplicateToolCallId], position?.message.sourceMessageIds, `a tool call${at} has an empty id: it and its result get a fresh one`);
    case "tool_response_mismatch":
      return scoped(
        [toolCallInterrupted, orphanToolResult],
        position?.message.sourceMessageIds,
        `the function responses${at} do not match their calls in number: unanswered calls are closed, unpaired responses taken out`,
      );
    case "thinking_when_disabled": {
      const parts = allParts(view)
        .filter(({ part }) => isReasoning(part))
        .map(({ part }) => part.ref.id);
      return {
        rule: targetRule(
          "thinking sent while thinking is off",
          parts,
          () => true,
          why,
          (part, context) => context.delete(part, "removed reasoning: thinking is off for this model (kept verbatim in the backup)"),
        ),
        explanation: "thinking is disabled for the model, but the session holds reasoning: every reasoning part is removed (kept in the backup)",
      };
    }
    case "thinking_order": {
      const hasThinking = position?.message.content.some((b) => b.type === "thinking" || b.type === "redacted_thinking") ?? false;
      if (position && !hasThinking) {
        // The final-turn rule: the turn holding the last tool calls must start with its own thinking, and has none.
        const ids = position.message.sourceMessageIds;
        return {
          rule: finalTurnRule(ids, why),
          explanation: `the latest tool-use turn${at} has no thinking of its own while thinking is on: that turn is taken out (kept in the backup) and the model redoes the step`,
        };
      }
      return scoped(
        [thinkingBlockOrder],
        position?.message.sourceMessageIds,
        `thinking${at} is not the first block of its message: the misplaced reasoning is removed`,
      );
    }
    case "first_not_user":
      return scoped([leadingAssistant], request.messages[0]?.sourceMessageIds, FIRST_NOT_USER);
    case "trailing_thinking":
      return scoped(
        [trailingThinking, thinkingOnlyMessage],
        position?.message.sourceMessageIds,
        `a message${at} ends on thinking: opencode's placeholder text goes after it`,
      );
    case "empty_content":
      return scoped(
        [emptyTextPart, emptyMessage],
        position?.message.sourceMessageIds,
        `empty content${at}: empty text is removed or given opencode's placeholder`,
      );
    default:
      return errorPlanWithoutRecords(error);
  }
}

/** Errors whose answer does not depend on the store's records: size errors go to context trim, the rest are explained. */
function errorPlanWithoutRecords(error: ClassifiedError): ErrorPlan {
  switch (error.kind) {
    case "context_overflow":
      return {
        trim: { ...(error.tokens ? { tokens: error.tokens } : {}) },
        explanation: `the conversation is over the model's window${error.tokens ? ` (${formatCount(error.tokens.current)} > ${formatCount(error.tokens.max)} tokens)` : ""}: the context trim strategies shrink it under that limit`,
      };
    case "request_too_large":
      return {
        trim: { bytes: true },
        explanation:
          "the request is over the provider's byte limit (32 MB; images count in full): the context trim strategies shrink it under 30,000,000 bytes",
      };
    case "image_invalid":
      return {
        trim: { images: true },
        explanation:
          "an image breaks the API's image rules (over 8,000 px or 5 MB, or over 2,000 px in a request of more than 20 images): drop-images replaces exactly those with a note",
      };
    case "document_invalid":
      return {
        trim: { images: true },
        explanation:
          "a document breaks the API's rules (a PDF over 100 pages, or one alone over the 32 MB request limit): drop-images replaces exactly those with a note",
      };
    default:
      return { explanation: error.note ?? `recover has no offline repair for this error (${error.kind})` };
  }
}

/**
 * The same errors on a transcript: the request position names lines (and blocks in them); the transcript rules fix
 * them, scoped to the named lines. Thinking the provider rejected is dropped block by block, never edited.
 */
function transcriptErrorPlan(
  error: ClassifiedError,
  view: SessionView,
  request: AnthropicRequest,
  lineIds: string[] | undefined,
  named: readonly RequestBlock[],
  at: string,
  why: string,
): ErrorPlan {
  switch (error.kind) {
    case "orphan_tool_use":
      return scoped(
        [toolResultMissing],
        lineIds,
        `tool calls${at} went out without a result: each gets the error result the agent itself writes for an interrupted call`,
      );
    case "orphan_tool_result":
      return scoped([orphanToolResult], lineIds, `tool results${at} had no call before them: they are dropped (kept in the backup)`);
    case "duplicate_tool_id":
      return scoped([duplicateToolCallId], lineIds, `a tool call id${at} is used twice: the later call and its result get a fresh id`);
    case "thinking_modified":
      return latestTurnPlan(request, error, why);
    case "thinking_signature":
      if (view.api === "gemini") return geminiSignaturePlan(error, view, why);
      return signaturesPlan(request, error, named, at, why);
    case "thinking_bound":
      return boundPlan(request, error, why);
    case "thinking_empty":
      return scoped([emptyThinking], lineIds, `an empty thinking block${at}: it is removed (a signature cannot be made up)`);
    case "empty_tool_id":
      return scoped([duplicateToolCallId], lineIds, `a tool call${at} has an empty id: it and its result get a fresh one`);
    case "tool_response_mismatch":
      return scoped(
        [toolResultMissing, orphanToolResult],
        lineIds,
        `the function responses${at} do not match their calls in number: unanswered calls get the agent's interrupted result, unpaired results go`,
      );
    case "thinking_when_disabled": {
      const ids = (view.transcript?.sent ?? []).flatMap((s) => s.blocks.filter((b) => b.type === "thinking").map((b) => b.source.id));
      return {
        // With thinking off, nothing asks the latest turn to keep its thinking: each block goes alone.
        rule: transcriptBlocksRule("thinking the provider rejected", new Set(ids), why, (context, line, index) =>
          context.dropBlock(line, index, "removed thinking: it is off for this model (kept verbatim in the backup)"),
        ),
        explanation: "thinking is disabled for the model, but the history holds thinking: every thinking block is removed (kept in the backup)",
      };
    }
    case "thinking_order":
      return scoped([thinkingBlockOrder], lineIds, `thinking${at} is not the first block of its message: the misplaced thinking is removed`);
    case "first_not_user":
      return scoped([leadingAssistant], request.messages[0]?.sourceMessageIds, FIRST_NOT_USER);
    case "trailing_thinking":
      return scoped([trailingThinking], lineIds, `a message${at} ends on thinking: that thinking is removed`);
    case "empty_content":
      return scoped([emptyTextPart], lineIds, `empty content${at}: the empty text is removed`);
    case "session_not_found": {
      // The client's own words: the file names no session it can read. Its header or a rewind, not a request.
      const lines = view.transcript?.records.lines ?? [];
      const ids = [
        ...lines.filter((l) => l.losesSession).map((l) => l.ref.id),
        ...unknownRewind.check(view, SCAN_OPTIONS, []).flatMap((r) => (r.messageId === undefined ? [] : [r.messageId])),
      ];
      if (ids.length === 0)
        return {
          explanation:
            "the client found no session it can resume, but this session's file holds no header cut short and no rewind to a message it does not hold: the session may be another one or live under another project's folder (`recover session list`, `gemini --list-sessions`), or its file is empty or gone",
        };
      return scoped(
        [unreadableRecord, unknownRewind],
        ids,
        "Gemini CLI read no session from the chat file: a header cut short is salvaged as far as it parses (its whole fields and messages), a rewind to a message the file does not hold goes",
      );
    }
    case "previous_message_id":
      return scoped(
        [foreignMessageId],
        (view.transcript?.namedReplies ?? []).map((reply) => reply.messageId),
        "the client named a stored reply as the previous response by an id that is not the API's: the reply stays, and the mark that makes the client name it (its requestId) goes",
      );
    default:
      return errorPlanWithoutRecords(error);
  }
}

/**
 * A Responses API error (Codex): `input[N]` names one item, which is one sent line (the first is the session's
 * base instructions, `input[0]`); "Duplicate item found with id X" names the item id the copies share.
 */
function responsesErrorPlan(error: ClassifiedError, view: SessionView, why: string): ErrorPlan {
  const sent = view.transcript?.sent ?? [];
  const entry = error.item === undefined ? undefined : sent[error.item];
  const lineIds = entry ? [entry.line.ref.id] : undefined;
  const at = error.item === undefined ? "" : ` at input[${error.item}]${entry ? ` (line ${entry.line.ref.line})` : ""}`;
  switch (error.kind) {
    case "reasoning_invalid": {
      const matches = unverifiedContent(error.message) ?? (() => true);
      // Matched on each look, not by block id: dropping an item of a compaction's replacement history renumbers the
      // blocks after it in that line.
      const named = (view: SessionView) =>
        (view.transcript?.sent ?? []).flatMap((s) =>
          s.blocks.filter(
            (b) => b.type === "thinking" && b.signature !== undefined && matches({ content: b.signature, id: sealedItemId(s.line, b.source.field) }),
          ),
        );
      const ids = named(view).map((b) => b.source.id);
      return {
        rule: {
          ...transcriptBlocksRule("reasoning the API could not verify", new Set(), why, (context, line, index) =>
            context.dropBlock(line, index, DROPPED_REASONING),
          ),
          check: (current) => named(current).map((b) => atBlock(b, why)),
        },
        explanation: `the API could not verify ${ids.length === 1 ? "a reasoning item's" : `${ids.length} reasoning items'`} encrypted content: ${ids.length === 1 ? "it is" : "they are"} dropped (kept in the backup), never re-signed; calls and outputs stay${/for item cmp_/i.test(error.message) ? "; a compaction item goes with the summary of the history before it, which the model then no longer sees" : ""}`,
      };
    }
    case "duplicate_tool_id": {
      const itemId = /Duplicate item found with id (\S+?)\.?(?:\s|$)/.exec(error.message)?.[1];
      const copies = itemId ? sent.filter((s) => (s.line.value?.payload as Json | undefined)?.id === itemId).map((s) => s.line.ref.id) : [];
      return scoped(
        [orphanToolResult, duplicateToolCallId],
        copies.length > 0 ? copies : lineIds,
        `item ${itemId ?? ""}${at} is in the input twice: the later copy goes (kept in the backup)`,
      );
    }
    case "rollout_ordinal":
      // Codex refused to open the session, so nothing is writing its last turn: it is judged with the rest.
      return {
        rule: fixableFindingsOf(rolloutOrdinal),
        explanation: /expected ordinal/i.test(error.message)
          ? "Codex's thread history stopped at a line whose ordinal repeats or goes back (Codex 0.147–0.153): 0.154 and later skip that line and rebuild the history themselves; recover leaves the numbers as they are (numbering the later lines anew would move every ordinal the history holds)"
          : "Codex refused the rollout's line numbers: the last record, which has no ordinal, gets the next one",
        judgesLiveTail: true,
      };
    case "rollout_missing":
      // Codex refused to open the session: its index row is set to where the rollout is (the rollout is not written).
      return {
        rule: fixableFindingsOf(staleBookkeeping),
        explanation: "Codex's index names the session's rollout at a path where there is none: the row is set to where the rollout is",
        judgesLiveTail: true,
      };
    default:
      return transcriptErrorPlan(error, view, anthropicRequest(view.conversation), lineIds, [], at, why);
  }
}

/**
 * Gemini's two signature errors (docs/research/gemini-signatures.md). `Corrupted thought signature.` names no part:
 * every stored signature the client sends is a suspect, and each is dropped (never re-signed; the part stays).
 * `Function call is missing a thought_signature …` is about a call of the current turn, which Gemini CLI signs itself
 * when it sends it: a stored session cannot cause it, and recover never makes a signature up.
 */
function geminiSignaturePlan(error: ClassifiedError, view: SessionView, why: string): ErrorPlan {
  if (!/Corrupted thought signature/i.test(error.message)) {
    return {
      explanation:
        "Gemini 3 wants a thought signature on the first function call of each step of the current turn (the calls after the last prompt); Gemini CLI puts one on every such call itself when it sends them (`skip_thought_signature_validator`), whatever the chat file holds, so the stored session is not what lacks it: a client or proxy that drops the signatures sent this request. recover never makes a signature up",
    };
  }
  const ids = signedBlocks(view).map((b) => b.source.id);
  if (ids.length === 0) {
    return {
      explanation:
        "the API refused a thought signature, but the chat file holds none that Gemini CLI sends on resume (a signature from the live run, not stored): resuming sends no stored signature",
    };
  }
  return {
    rule: {
      id: ERROR_RULE_ID,
      severity: "error",
      description: "a stored thoughtSignature the API refused",
      fixedBy: "repair",
      // While the part still carries its signature: the part itself stays sent.
      check: (current) => signedBlocks(current).map((b) => atBlock(b, why)),
      fix(finding, context) {
        if (context.kind !== "lines") return [];
        const at = context.block(finding);
        return at ? dropSignature(context, at.line, at.index) : [];
      },
    },
    explanation: `the API refused a stored thought signature (issued for another model or account, or damaged; it does not say which): ${ids.length === 1 ? "the one signed part the client replays loses its signature" : `the ${ids.length} signed parts the client replays lose their signatures`} (kept in the backup, never re-signed); the parts stay, and Gemini CLI signs the calls of the current turn itself`,
  };
}

/** Reports the named blocks while they are still sent, and fixes each with `fix`. */
function transcriptBlocksRule(
  description: string,
  blockIds: Set<string>,
  why: string,
  fix: (context: LineFixContext, line: TranscriptLine, index: number) => Edit[],
): Rule {
  return {
    id: ERROR_RULE_ID,
    severity: "error",
    description,
    fixedBy: "repair",
    check(view) {
      return (view.transcript?.sent ?? []).flatMap((s) => s.blocks.filter((b) => blockIds.has(b.source.id)).map((b) => atBlock(b, why)));
    },
    fix(finding, context) {
      if (context.kind !== "lines") return [];
      const at = context.block(finding);
      return at ? fix(context, at.line, at.index) : [];
    },
  };
}

/** `rule` as the error's own rule: its findings it can fix, and only those (the client refused the session for them). */
function fixableFindingsOf(rule: Rule): Rule {
  return { ...rule, id: ERROR_RULE_ID, check: (view, options, earlier) => rule.check(view, options, earlier).filter((report) => report.fixable !== false) };
}

/** The API names no record (`messages: first …`): the history's first turn is the leading-assistant rule's. */
const FIRST_NOT_USER =
  "the history begins with an assistant turn (its prompt is lost): that turn goes, with its tool results, up to the user's next prompt (kept in the backup)";

function scoped(rules: Rule[], messageIds: string[] | undefined, explanation: string): ErrorPlan {
  // Without a position the error names the whole request (e.g. "messages: text content blocks must be non-empty").
  return { scopedRules: { rules, messageIds: new Set(messageIds ?? []) }, explanation };
}

/** Takes out the stored assistant messages of the named (latest tool-use) turn. */
function finalTurnRule(messageIds: string[], why: string): Rule {
  const wanted = new Set(messageIds);
  return {
    id: ERROR_RULE_ID,
    severity: "error",
    description: "the latest tool-use turn lacks the thinking the API requires",
    fixedBy: "repair",
    check(view) {
      return (view.opencode?.messages ?? [])
        .filter((m) => wanted.has(m.ref.id) && m.info?.role === "assistant")
        .map((m) => ({ messageId: m.ref.id, message: why }));
    },
    fix(finding, context) {
      if (context.kind !== "records") return [];
      const message = context.message(finding.messageId);
      return message
        ? context.deleteMessage(
            message,
            "took out the latest tool-use turn, which has no thinking of its own while thinking is on (kept in the backup); the model redoes the step",
          )
        : [];
    },
  };
}

/** Errors opencode stores that are not the provider rejecting the request (a user's Esc, a long reply, a key). */
const NOT_PROVIDER_ANSWERS = new Set(["MessageAbortedError", "MessageOutputLengthError", "ProviderAuthError", "StructuredOutputError"]);

/** How long after the error was stored the session may have been touched by opencode itself (saving the turn). */
const STORED_ERROR_SLACK_MS = 60_000;

/**
 * The error opencode stored on the session's last message. It is stale, and ignored, when an earlier message is
 * the last one, or when the session was written well after it (a repair already answered it: acting on its
 * position again would hit whatever sits there now).
 */
export function storedError(view: Pick<SessionView, "summary" | "opencode">, options: { evenIfAnswered?: boolean } = {}): Json | undefined {
  const last = view.opencode?.messages.at(-1)?.info;
  if (last?.role !== "assistant" || !last.error || NOT_PROVIDER_ANSWERS.has(last.error.name)) return undefined;
  const at = Math.max(last.time.created, last.time.completed ?? 0);
  if (!options.evenIfAnswered && view.summary.updated > at + STORED_ERROR_SLACK_MS) return undefined;
  return last.error as Json;
}

/**
 * The provider error a transcript's client stored last, when the session ended with it: no reply the client sends
 * comes after the line holding it (a later accepted turn means the error was answered, by the client or a repair).
 */
export function lastStoredError(view: Pick<SessionView, "storedErrors" | "conversation" | "transcript">): { text: string; where: string } | undefined {
  const stored = view.storedErrors?.at(-1);
  const lines = view.transcript?.byId;
  if (!stored || !lines) return undefined;
  const lineOf = (id: string | undefined) => (id === undefined ? undefined : lines.get(id)?.ref.line);
  const at = lineOf(stored.messageId);
  if (at === undefined) return undefined;
  const replies = view.conversation.messages.filter((m) => m.role === "assistant").flatMap((m) => m.sourceMessageIds.map(lineOf));
  return replies.some((line) => line !== undefined && line > at) ? undefined : { text: stored.text, where: stored.where };
}

/**
 * The newest overflow a transcript's client stored with its token count (openclaw: the refused turn's `errorMessage`),
 * for a trim given no count: its window is the limit, its count the size of what was refused.
 */
export function storedOverflow(view: Pick<SessionView, "storedErrors">): ClassifiedError | undefined {
  for (const stored of [...(view.storedErrors ?? [])].reverse()) {
    const error = classifyProviderError(stored.text);
    if (error.kind === "context_overflow" && error.tokens) return error;
  }
  return undefined;
}

/**
 * `thinking_modified`: the latest assistant message's thinking is not what the model sent (stored emptied or
 * repeated), and no edit can make it so again. The message goes whole, with the results of its tool calls, so the
 * next request asks the model again (all kept in the backup).
 */
function latestTurnPlan(request: AnthropicRequest, error: ClassifiedError, why: string): ErrorPlan {
  const last = request.messages.findLastIndex((m) => m.role === "assistant");
  if (last < 0) return { explanation: "the request holds no assistant message, so there is no latest turn to take out" };
  // The error was about the latest assistant message of its request. One that names an assistant message with
  // later ones after it is stale: the session went on (Claude Code 2.1 retries without thinking by itself, and the
  // model answered), and taking out the latest message now would delete a good reply
  // (docs/research/claude-code-repair-loop.md).
  if (error.index !== null && error.index < last && request.messages[error.index]?.role === "assistant") {
    return {
      explanation: `the error names messages.${error.index}, but the latest assistant message is now messages.${last}: the session went on after that error (Claude Code and openclaw retry without the thinking by themselves), so it no longer applies and nothing is taken out`,
    };
  }
  const message = request.messages[last]!;
  const calls = new Set(message.content.filter((b) => b.type === "tool_use").map((b) => b.id));
  // Results answering its calls, in stored messages that hold nothing else (a prompt typed after them stays).
  const resultOnly = (id: string) =>
    request.messages.slice(last + 1).every((m) => m.content.every((b) => b.source.messageId !== id || (b.type === "tool_result" && calls.has(b.id))));
  const results = request.messages
    .slice(last + 1)
    .flatMap((m) => m.content.filter((b) => b.type === "tool_result" && calls.has(b.id)).map((b) => b.source.messageId))
    .filter((id): id is string => id !== undefined && resultOnly(id));
  const ids = [...new Set([...message.sourceMessageIds, ...results])];
  return {
    rule: latestTurnRule(ids, why),
    explanation: `the thinking of the latest assistant message (messages.${last}) is not what the model sent, and thinking cannot be edited back: that message${results.length ? " and the results of its tool calls" : ""} are taken out (kept in the backup) and the model answers again`,
  };
}

function latestTurnRule(ids: readonly string[], why: string): Rule {
  const wanted = new Set(ids);
  return {
    id: ERROR_RULE_ID,
    severity: "error",
    description: "the latest assistant message's thinking is not what the model sent",
    fixedBy: "repair",
    check(view) {
      const present = view.conversation.messages.some((m) => m.sourceMessageIds.some((id) => wanted.has(id)));
      return present ? [{ messageId: ids[0]!, message: why }] : [];
    },
    fix(_finding, context) {
      return context.deleteMessages(
        ids,
        "took out the latest assistant message, whose thinking the provider saw modified, with its tool results (kept in the backup)",
      );
    },
  };
}

/**
 * `thinking_signature`: a signature the API no longer accepts. After a model or system-prompt switch every earlier
 * signature fails, one request at a time, so every signed thinking block before the latest assistant message goes
 * in this one plan (the API accepts earlier turns without their thinking), and the named block too.
 */
function signaturesPlan(request: AnthropicRequest, error: ClassifiedError, named: readonly RequestBlock[], at: string, why: string): ErrorPlan {
  const isThinking = (b: RequestBlock) => b.type === "thinking" || b.type === "redacted_thinking";
  const last = request.messages.findLastIndex((m) => m.role === "assistant");
  const earlier = request.messages.slice(0, Math.max(0, last)).flatMap((m) => (m.role === "assistant" ? m.content.filter(isThinking) : []));
  const namedThinking = named.filter(isThinking);
  const ids = new Set([...namedThinking, ...earlier].map((b) => b.source.id));
  const where = namedThinking.length > 0 ? `the provider rejected the signature of the thinking${at}` : `${namedPlace(error, request)}, not thinking`;
  const blocks = ids.size === 1 ? "the one signed thinking block" : `all ${ids.size} signed thinking blocks`;
  const what =
    ids.size === 0
      ? "but no signed thinking is sent before the latest assistant message: there is nothing to remove"
      : `so ${blocks} ${namedThinking.length > 0 ? "named or " : ""}before the latest assistant message ${ids.size === 1 ? "goes" : "go"} in this one repair (kept verbatim in the backup; in the latest tool-use turn the turn goes whole)`;
  return {
    rule: thinkingBlocksRule(ids, why, "removed thinking whose signature the provider rejected; never edited or made up"),
    explanation: `${where}; a model or system-prompt switch makes every earlier signature fail, one request at a time, ${what}`,
  };
}

/**
 * `thinking_bound`: a current Claude model's prefix check. The block the error names and every thinking block after it
 * in the request fail; the earlier ones are valid and stay, an unbroken run (../shared/reference/preserved-thinking.md
 * §3, §6). With no position named, every thinking block goes: the blunter equivalent, also accepted.
 */
function boundPlan(request: AnthropicRequest, error: ClassifiedError, why: string): ErrorPlan {
  const from = { message: error.index ?? 0, block: error.index === null ? 0 : (error.contentIndex ?? 0) };
  const ids = new Set<string>();
  request.messages.forEach((message, m) => {
    if (m < from.message) return;
    message.content.forEach((block, b) => {
      if (m === from.message && b < from.block) return;
      if (block.type === "thinking" || block.type === "redacted_thinking") ids.add(block.source.id);
    });
  });
  const blocks = ids.size === 1 ? "the one thinking block" : `all ${ids.size} thinking blocks`;
  return {
    rule: thinkingBlocksRule(ids, why, "removed thinking the provider found bound to a conversation that has changed since; never edited or made up"),
    explanation:
      ids.size === 0
        ? `${namedPlace(error, request)}: no thinking is sent from there on, so there is nothing to remove`
        : `the conversation changed before the thinking${error.index === null ? "" : ` at messages.${from.message}`}, so ${blocks} from there on ${ids.size === 1 ? "goes" : "go"} in this one repair (the earlier ones stay valid and are kept; removed blocks stay verbatim in the backup; in the latest tool-use turn the turn goes whole)`,
  };
}

/** Reports the named thinking blocks while they are still sent; each goes (in the latest tool-use turn, the turn). */
function thinkingBlocksRule(blockIds: ReadonlySet<string>, why: string, reason: string): Rule {
  return {
    id: ERROR_RULE_ID,
    severity: "error",
    description: "thinking the provider rejected",
    fixedBy: "repair",
    check(view) {
      return view.conversation.messages.flatMap((m) => m.blocks.filter((b) => b.type === "thinking" && blockIds.has(b.source.id)).map((b) => atBlock(b, why)));
    },
    fix: dropThinkingBlock(reason),
  };
}
