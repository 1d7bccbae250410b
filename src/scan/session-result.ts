/** What scanning one session gives, in this thread or a worker's (plain data: results cross a worker boundary). */
import type { SessionSummary } from "../model/opencode-records.js";
import type { Finding } from "../rules/rule.js";
import type { LiveSkip } from "./session-view.js";

export interface SessionResult {
  summary: SessionSummary;
  findings: Finding[];
  /** Its last turn is being written, so the rules left it alone. */
  skipped?: LiveSkip;
}
