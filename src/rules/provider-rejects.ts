import type { RequestBlock } from "../provider/anthropic-request.js";
import { anthropicRequest } from "../provider/anthropic-request.js";
import { requestViolations } from "../provider/validate-anthropic.js";
import { isExempt } from "./helpers.js";
import type { Finding, Report, Rule } from "./rule.js";

/**
 * The request the agent would send, checked against the Anthropic Messages API's own rules; reports, in the API's
 * words, only what no specific rule already reported for the same record (one defect, one finding). Runs last.
 */
export const providerRejects: Rule = {
  id: "provider-rejects",
  severity: "error",
  description: "the request the agent would send breaks a rule of the Anthropic Messages API that no specific rule covers",
  fixedBy: "none",
  apis: ["anthropic"],
  fillsGaps: true,
  check(view, _options, earlier) {
    const request = anthropicRequest(view.conversation);
    const reports: Report[] = [];
    for (const violation of requestViolations(request)) {
      if (violation.messageIds.some((id) => isExempt(view, id))) continue;
      if (alreadyReported(violation.blocks, violation.messageIds, earlier)) continue;
      const block = violation.blocks[0];
      const where: Report = { message: `the API would answer: ${violation.text}` };
      if (block && block.source.kind !== "message") {
        where.partId = block.source.id;
        if (block.source.messageId) where.messageId = block.source.messageId;
      } else if (violation.messageIds[0]) {
        where.messageId = violation.messageIds[0];
      }
      reports.push(where);
    }
    return reports;
  },
};

function alreadyReported(blocks: RequestBlock[], messageIds: string[], earlier: readonly Finding[]): boolean {
  if (blocks.length === 0) return earlier.some((f) => f.messageId !== undefined && messageIds.includes(f.messageId));
  return blocks.some((b) =>
    earlier.some(
      (f) =>
        (f.partId !== undefined && f.partId === b.source.id) || (f.partId === undefined && f.messageId !== undefined && f.messageId === b.source.messageId),
    ),
  );
}
