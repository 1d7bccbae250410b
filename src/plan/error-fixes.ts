/**
 * Repair aimed at the exact error a user got. Some damage cannot be seen offline (a signature the API no longer
 * accepts), only in the provider's answer: the error names a kind and a request position, the provider view maps
 * that position to records, and this module turns it into a rule of its own — findings for the named records, fixed
 * the way the matching specific rule fixes them — that joins the planner's other rules.
 */
import type { MessageRecord, PartRecord } from "../model/opencode-records.js";
import type { SessionView } from "../model/session-view.js";
import { anthropicRequest, locate, type RequestBlock } from "../provider/anthropic-request.js";
import type { ClassifiedError } from "../provider/classify-error.js";
import { duplicateToolCallId } from "../rules/duplicate-tool-call-id.js";
import { emptyMessage } from "../rules/empty-message.js";
import { emptyTextPart } from "../rules/empty-text-part.js";
import { DEFAULT_RULE_OPTIONS, type Finding, type Report, type Rule } from "../rules/rule.js";
import { thinkingBlockOrder } from "../rules/thinking-block-order.js";
import { thinkingOnlyMessage } from "../rules/thinking-only-message.js";
import { toolCallInterrupted } from "../rules/tool-call-interrupted.js";
import { trailingThinking } from "../rules/trailing-thinking.js";
import { orphanToolResult } from "../rules/orphan-tool-result.js";
import { toolResultMissing } from "../rules/tool-result-missing.js";
import { atBlock } from "../rules/helpers.js";
import type { Edit } from "../model/edit.js";
import type { LineFixContext, RecordFixContext } from "../model/fix-context.js";
import type { TranscriptLine } from "../model/transcript.js";
import type { Json } from "../model/edit.js";

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

export function planForError(error: ClassifiedError, view: SessionView): ErrorPlan {
  const plan = errorPlan(error, view);
  if (plan.rule) {
    const named = plan.rule.check(view, { ...DEFAULT_RULE_OPTIONS, now: 0 }, []);
    plan.targets = new Set(named.flatMap((r) => [r.partId ?? r.messageId].filter((id): id is string => id !== undefined)));
  } else if (plan.scopedRules) {
    plan.targets = new Set(plan.scopedRules.messageIds);
  }
  return plan;
}

function errorPlan(error: ClassifiedError, view: SessionView): ErrorPlan {
  const request = anthropicRequest(view.conversation);
  const position = locate(request, error.index, error.contentIndex);
  const at = error.index === null ? "" : ` at messages.${error.index}${error.contentIndex === null ? "" : `.content.${error.contentIndex}`}`;
  const namedBlocks = position?.block ? [position.block] : (position?.message.content ?? []);
  const partsByCall = (ids: string[]) =>
    allParts(view)
      .filter(({ part }) => part.part?.type === "tool" && ids.includes(callIdOf(part) ?? ""))
      .map(({ part }) => part.ref.id);
  const why = `the provider rejected this record: ${error.message}`;
  if (view.transcript) return transcriptErrorPlan(error, view, position?.message.sourceMessageIds, namedBlocks, at, why);

  switch (error.kind) {
    case "orphan_tool_use": {
      const ids = error.ids.length > 0 ? error.ids : namedBlocks.filter((b) => b.type === "tool_use").map((b) => b.id ?? "");
      const parts = partsByCall(ids);
      const open = (p: PartRecord) => ["pending", "running"].includes(toolStatus(p));
      return {
        rule: targetRule("tool calls the provider found without results", parts, open, why, (_part, context, finding) =>
          toolCallInterrupted.fix!(finding, context),
        ),
        explanation: `tool call${ids.length === 1 ? "" : "s"} ${ids.join(", ")}${at} went out without a result: ${parts.length ? "closed as interrupted, as opencode does on abort" : "no such call is open in the store"}`,
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
    case "thinking_signature":
    case "thinking_modified": {
      const parts = partIdsOf(namedBlocks.filter((b) => b.type === "thinking" || b.type === "redacted_thinking"));
      return {
        rule: targetRule(
          "thinking the provider rejected",
          parts,
          () => true,
          why,
          (part, context) =>
            context.removeReasoning(
              part,
              `removed the thinking the provider rejected (${error.kind === "thinking_signature" ? "invalid signature" : "modified"}); never edited or made up`,
            ),
        ),
        explanation: `the thinking block${at} ${error.kind === "thinking_signature" ? "carries a signature the provider no longer accepts" : "differs from what the model sent"}: it is removed (kept verbatim in the backup); in the latest tool-use turn the whole turn goes`,
      };
    }
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
        explanation: `the conversation is over the model's window${error.tokens ? ` (${error.tokens.current.toLocaleString("en-US")} > ${error.tokens.max.toLocaleString("en-US")} tokens)` : ""}: the context trim strategies shrink it under that limit`,
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
    case "thinking_signature":
    case "thinking_modified":
    case "thinking_when_disabled": {
      const all = error.kind === "thinking_when_disabled";
      const ids = all
        ? (view.transcript?.sent ?? []).flatMap((s) => s.blocks.filter((b) => b.type === "thinking").map((b) => b.source.id))
        : named.filter((b) => b.type === "thinking" || b.type === "redacted_thinking").map((b) => b.source.id);
      return {
        // With thinking off, nothing asks the latest turn to keep its thinking: each block goes alone.
        rule: transcriptBlocksRule("thinking the provider rejected", new Set(ids), why, (context, line, index) =>
          all
            ? context.dropBlock(line, index, "removed thinking: it is off for this model (kept verbatim in the backup)")
            : context.removeThinking(line, index, "removed the thinking the provider rejected; never edited or made up"),
        ),
        explanation: all
          ? "thinking is disabled for the model, but the history holds thinking: every thinking block is removed (kept in the backup)"
          : `the thinking block${at} was rejected: it is removed (kept verbatim in the backup)`,
      };
    }
    case "thinking_order":
      return scoped([thinkingBlockOrder], lineIds, `thinking${at} is not the first block of its message: the misplaced thinking is removed`);
    case "trailing_thinking":
      return scoped([trailingThinking], lineIds, `a message${at} ends on thinking: that thinking is removed`);
    case "empty_content":
      return scoped([emptyTextPart], lineIds, `empty content${at}: the empty text is removed`);
    default:
      return errorPlanWithoutRecords(error);
  }
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
