import type { Report, Rule } from "./rule.js";

/** The Messages API's answer to a previous-response id that is not one of its own (anthropics/claude-code#96033). */
export const PREVIOUS_MESSAGE_ID_REFUSED = "diagnostics.previous_message_id: must be the `id` from a prior /v1/messages response (starts with `msg_`)";

/**
 * A stored reply the client names to the API as the previous response (Claude Code: `diagnostics.previous_message_id`,
 * the cache diagnosis it asks for on Anthropic's own API), whose id is not one the API gave (a gateway's `gen-…`, a
 * client's own uuid). The API refuses every request then; through a gateway nothing is sent, so it is a warning. The
 * fix takes away the marks that make the client count the line as an API reply (its `requestId`), so it names the
 * reply before it, or none; the line and what it says stay.
 */
export const foreignMessageId: Rule = {
  id: "foreign-message-id",
  severity: "warning",
  description: "a reply the client names to the API as the previous response by an id the API never gave",
  fixedBy: "repair",
  apis: ["anthropic"],
  check(view) {
    const reports: Report[] = [];
    for (const reply of view.transcript?.namedReplies ?? []) {
      const line = view.transcript?.byId.get(reply.messageId);
      if (!line) continue;
      const place: Report = { messageId: line.ref.id, message: "" };
      if (line.ref.path) place.path = line.ref.path;
      if (line.ref.line !== undefined) place.line = line.ref.line;
      reports.push({
        ...place,
        message: `reply id ${JSON.stringify(reply.id)} is not an API message id (msg_…), yet its ${reply.marks.join(", ")} makes the client name it as diagnostics.previous_message_id; on Anthropic's own API every request is refused (\`${PREVIOUS_MESSAGE_ID_REFUSED}\`)`,
      });
    }
    return reports;
  },
  fix(finding, context) {
    if (context.kind !== "lines") return [];
    const line = context.line(finding.messageId);
    const reply = context.history.namedReplies?.find((r) => r.messageId === finding.messageId);
    const marks = reply && line?.value ? reply.marks.filter((field) => field in line.value!) : [];
    if (!line || marks.length === 0) return [];
    return context.update(
      line,
      `removed the line's ${marks.join(", ")}, so the client no longer names its non-API id as the previous response (the reply itself stays; the original is in the backup)`,
      (value) => {
        for (const field of marks) delete value[field];
      },
    );
  },
};
