import type { ConversationMessage } from "../model/conversation.js";
import type { Edit } from "../model/edit.js";
import { anthropicRequest } from "../provider/anthropic-request.js";
import { isExempt, where } from "./helpers.js";
import type { Rule } from "./rule.js";
import { plural } from "../model/format-count.js";

/** A user message that asks something: not only the results of the tool calls before it. */
const isPrompt = (m: ConversationMessage) => m.role === "user" && m.blocks.some((b) => b.type !== "tool_result");

/**
 * The history the agent sends begins with an assistant turn: the prompt it answered is gone (a lost first line of a
 * transcript, a lost first user message), and the API answers `first message must use the "user" role` on every
 * request. No prompt is made up in its place: the turn that answered the lost prompt goes, with its tool results, up
 * to the next prompt of the user (all of it kept in the backup; thinking is dropped whole, never edited). When no
 * prompt follows, that turn is the whole conversation: nothing is removed and the finding is left for a person.
 */
export const leadingAssistant: Rule = {
  id: "leading-assistant",
  severity: "error",
  description: "the history begins with an assistant turn whose prompt was lost; the API wants a user message first",
  fixedBy: "repair",
  apis: ["anthropic"],
  check(view) {
    const messages = view.conversation.messages;
    const first = messages[0];
    if (first?.role !== "assistant" || first.sourceMessageIds.some((id) => isExempt(view, id))) return [];
    // A damaged message may be the prompt itself (a torn first message sorts nowhere until it is salvaged):
    // unreadable-record and schema-violation come first, and the planner's next pass judges the history again.
    if (view.damagedMessageIds.size > 0) return [];
    const next = messages.findIndex(isPrompt);
    const turn = next < 0 ? messages : messages.slice(0, next);
    const records = turn.reduce((n, m) => n + m.sourceMessageIds.length, 0);
    const says =
      next < 0
        ? "and no prompt of the user follows, so there is nothing to begin it with instead"
        : `the turn that answered it (${plural(records, "record")}, up to the next prompt) goes to the backup`;
    const text = `the history begins with an assistant turn: the prompt it answered is lost and the API answers 'first message must use the "user" role'; ${says}`;
    // Where provider-rejects would put it (the first block the API sees), so the defect is reported once.
    const block = anthropicRequest(view.conversation).messages[0]?.content[0];
    return [block ? { ...where({ ref: block.source }), message: text } : { messageId: first.sourceMessageIds[0]!, message: text }];
  },
  fix(_finding, context) {
    const messages = context.view.conversation.messages;
    if (messages[0]?.role !== "assistant") return [];
    const next = messages.findIndex(isPrompt);
    if (next < 0) return [];
    const ids = messages.slice(0, next).flatMap((m) => m.sourceMessageIds);
    const reason = "removed the turn that answered a lost prompt, so the history begins with the user's next prompt (kept in the backup)";
    if (context.kind === "lines") {
      const lines = ids.flatMap((id) => context.line(id) ?? []);
      return lines.length === ids.length ? context.deleteLines(lines, reason) : [];
    }
    const edits: Edit[] = [];
    for (const id of ids) {
      const message = context.message(id);
      if (!message) return [];
      edits.push(...context.deleteMessage(message, reason));
    }
    return edits;
  },
};
