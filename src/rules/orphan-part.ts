import { at } from "./helpers.js";
import type { Report, Rule } from "./rule.js";

export const orphanPart: Rule = {
  id: "orphan-part",
  severity: "warning",
  description: "part whose message does not exist (or message whose session does not exist)",
  fixedBy: "repair",
  check(view) {
    const session = view.opencode;
    if (!session) return [];
    const reports: Report[] = session.orphanParts.map((p) => at(p, `part belongs to message ${p.ref.messageId}, which does not exist`));
    if (session.missingSessionRecord) {
      for (const m of session.messages) reports.push(at(m, `message belongs to session ${session.summary.id}, which has no session record`));
    }
    return reports;
  },
  /**
   * A part without its message is moved into the backup (opencode never reads it). A message without its session
   * is a conversation opencode merely cannot list: its session record is recreated, and nothing is deleted.
   */
  fix(finding, context) {
    if (context.kind !== "records") return [];
    const part = context.part(finding.partId);
    if (part) return context.delete(part, "moved the orphaned part into the backup");
    return context.message(finding.messageId) ? context.recreateSession() : [];
  },
};
