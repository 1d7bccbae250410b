import { rejections } from "../provider/rejections.js";
import { at, atBlock, messages, parts } from "./helpers.js";
import type { Report, Rule } from "./rule.js";
import type { SessionView } from "../model/session-view.js";

/** Whether the request view still holds the block (a replay may leave it out, as the client does). */
function isSent(view: SessionView, blockId: string): boolean {
  return view.conversation.messages.some((m) => m.blocks.some((b) => b.source.id === blockId));
}

export const duplicateToolCallId: Rule = {
  id: "duplicate-tool-call-id",
  severity: "error",
  description: "the same callID twice in one session, or an empty one (`tool_use ids must be unique`; OpenAI: `call_id`: empty string)",
  fixedBy: "repair",
  check(view) {
    const first = new Map<string, string>();
    const reports: Report[] = [];
    for (const [item, { blocks }] of (view.transcript?.sent ?? []).entries()) {
      for (const block of blocks) {
        if (block.type !== "tool_use") continue;
        if (block.id === "") {
          const copes = view.copes?.emptyCallId;
          const report = atBlock(block, `call id is empty (${copes ?? `rejected: ${rejections(view.api).emptyCallId(item)}`})`);
          reports.push(copes ? { ...report, severity: "warning" } : report);
          continue;
        }
        const earlier = first.get(block.id);
        if (earlier === undefined) first.set(block.id, block.source.id);
        else {
          // A client that leaves the repeat out of every request (Claude Code) copes only where its request view does
          // leave it out; it is then left as it is: a fresh id would put the call back into what the client sends.
          const mends = view.copes?.mendsEveryTime?.includes("duplicateCallId") === true;
          const copes = mends && isSent(view, block.source.id) ? undefined : view.copes?.duplicateCallId;
          const report = atBlock(block, `call id ${block.id} is already used at ${earlier} (${copes ?? `rejected: ${rejections(view.api).duplicateCallId}`})`);
          reports.push(copes ? { ...report, severity: "warning", ...(mends ? { fixable: false as const } : {}) } : report);
        }
      }
    }
    for (const message of messages(view)) {
      for (const { record, part } of parts(message)) {
        if (part.type !== "tool") continue;
        const callID = (part as { callID: string }).callID;
        if (callID === "") {
          reports.push(at(record, "callID is empty (rejected: an empty `call_id` / `tool_use` id)"));
          continue;
        }
        const earlier = first.get(callID);
        if (earlier === undefined) first.set(callID, record.ref.id);
        else reports.push(at(record, `callID ${callID} is already used by part ${earlier} (rejected: \`tool_use\` ids must be unique)`));
      }
    }
    return reports;
  },
  /** A transcript: the later call and the result that answers it (the first one after it) take the fresh id together. */
  fix(finding, context) {
    if (!finding.fixable) return [];
    if (context.kind === "records") {
      const part = context.part(finding.partId);
      if (!part) return [];
      return context.update(part, "gave the later call a fresh id (call ids are not signed; providers only need them unique)", (value) => {
        value.callID = context.freshCallId(typeof value.callID === "string" ? value.callID : undefined);
      });
    }
    const at = context.block(finding);
    if (!at) return [];
    const history = context.history;
    const position = history.sent.findIndex((s) => s.line === at.line);
    const call = history.sent[position]?.blocks.find((b) => b.source.id === finding.partId);
    if (call?.type !== "tool_use") return [];
    const fresh = context.freshCallId(call.id);
    const reason =
      call.id === ""
        ? "gave the call with an empty id, and its result, a fresh id (call ids are not signed)"
        : "gave the later call and its result a fresh id (call ids are not signed; providers only need them unique)";
    const answer = history.sent
      .slice(position + 1)
      .flatMap((later) => later.blocks)
      .find((b) => b.type === "tool_result" && b.toolUseId === call.id);
    const result = answer ? { messageId: answer.source.messageId ?? "", partId: answer.source.id } : undefined;
    return context.renameCall({ messageId: at.line.ref.id, partId: finding.partId ?? "" }, result, fresh, reason);
  },
};
