import type { MessageRecord } from "../model/opencode-records.js";
import { at, isLiveTail, messages, parts } from "./helpers.js";
import type { Report, Rule } from "./rule.js";

/**
 * opencode: a compaction that never finished (anomalyco/opencode#27924, #30834). A user message holds a `compaction`
 * part, and no summary reply to it has `finish` set without an error (the summary is missing, or was cut off when
 * the process died). opencode's prompt loop then keeps the compaction pending, and on the next prompt runs it with
 * that prompt as its parent: the prompt is answered with a summary and the history never shrinks
 * (docs/research/opencode-compaction.md). Once a later turn finished, the compaction is no longer pending but stays
 * in the history as a stray "What did we do so far?". A summary that failed (its error set, finish "error": issue 40,
 * sst/opencode#27924, #43399, #47939) leaves the same stray request, and the finding quotes its error.
 */
export const stuckCompaction: Rule = {
  id: "stuck-compaction",
  severity: "warning",
  description: "opencode compaction with no finished summary: the next prompt compacts against itself and the history never shrinks",
  fixedBy: "repair",
  check(view) {
    const all = messages(view);
    const reports: Report[] = [];
    for (const [i, message] of all.entries()) {
      if (message.info?.role !== "user" || !parts(message).some(({ part }) => part.type === "compaction")) continue;
      const summaries = all.slice(i + 1).filter((m) => isSummaryOf(m, message.ref.id));
      if (summaries.some(finishedCleanly)) continue;
      if (summaries.some((m) => isLiveTail(view, m.ref.id)) || isLiveTail(view, message.ref.id)) continue;
      const failed = summaries.map(errorMessage).find((m) => m !== undefined);
      const state =
        summaries.length === 0 ? "it has no summary" : failed !== undefined ? `its summary failed: ${JSON.stringify(failed)}` : "its summary never finished";
      reports.push(
        at(
          message,
          `a compaction that never finished (${state}): opencode runs it again against the next prompt, which then gets a summary for an answer, and the history never shrinks`,
        ),
      );
    }
    return reports;
  },
  /**
   * As opencode drops a failed summary attempt (`session.removeMessage`): the unfinished summaries go, and so does the
   * compaction request, so nothing is left pending; opencode's own overflow check starts a fresh compaction, parented
   * right, when the history is over its limit (a manual one is `/compact` again). Everything is kept in the backup.
   */
  fix(finding, context) {
    if (context.kind !== "records") return [];
    const request = context.message(finding.messageId);
    if (!request) return [];
    const reason =
      "took out the compaction that never finished (its request and unfinished summary; kept in the backup): opencode starts a fresh one when the history is over its limit";
    const summaries = context.session.messages.filter((m) => isSummaryOf(m, request.ref.id));
    const others = request.parts.filter((p) => p.part?.type !== "compaction");
    const compaction = request.parts.filter((p) => p.part?.type === "compaction");
    const requestEdits = others.length === 0 ? context.deleteMessage(request, reason) : compaction.flatMap((p) => context.delete(p, reason));
    return [...summaries.flatMap((m) => context.deleteMessage(m, reason)), ...requestEdits];
  },
};

function isSummaryOf(message: MessageRecord, parentId: string): boolean {
  const info = message.info;
  return info?.role === "assistant" && info.summary === true && info.parentID === parentId;
}

/**
 * The error a failed summary carries (opencode 1.18: `ContextOverflowError` "Conversation history too large to compact
 * - exceeds model context limit" when the compaction's own request was over the window, with finish "error"; an
 * abort or a provider error without finish). Such a compaction is never pending again, but its request stays in the
 * history as a stray "What did we do so far?" (docs/research/opencode-compaction.md, "Failed compactions").
 */
function errorMessage(message: MessageRecord): string | undefined {
  const error = message.info?.role === "assistant" ? (message.info.error as { name?: unknown; data?: { message?: unknown } } | undefined) : undefined;
  if (!error) return undefined;
  return typeof error.data?.message === "string" ? error.data.message : typeof error.name === "string" ? error.name : "error";
}

/** What opencode's `filterCompacted` takes as a finished compaction: a summary with `finish` and no error. */
function finishedCleanly(message: MessageRecord): boolean {
  const info = message.info;
  return info?.role === "assistant" && info.finish !== undefined && info.error === undefined;
}

/** An unfinished summary of a compaction is stuck-compaction's, not an ordinary unfinished turn. */
export function isCompactionSummary(message: MessageRecord): boolean {
  return message.info?.role === "assistant" && message.info.summary === true && message.info.mode === "compaction";
}
