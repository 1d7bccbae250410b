/** What a rule reports about a session, and the finding the engine makes of it (rule id, severity, session). */
export type Severity = "error" | "warning";

/** What a rule reports; the engine adds rule id, severity, session id and fixability. */
export interface Report {
  message: string;
  /** A finding milder than the rule's usual one (a line kept verbatim that recover does not know). */
  severity?: Severity;
  /** false: the rule's fix leaves this one alone (a line recover does not know is kept verbatim), whatever the rule. */
  fixable?: false;
  /** Trim rules: what fixing this finding takes off the request (estimated tokens, and UTF-8 bytes). */
  saves?: { tokens: number; bytes: number };
  /** Trim rules: taken from the turns `--keep-turns` protects, once every older turn had given what it could. */
  runningTurn?: true;
  messageId?: string;
  partId?: string;
  /** A medium inside a tool result: its index in the result's content. */
  item?: number;
  path?: string;
  line?: number;
}

export interface Finding extends Omit<Report, "fixable"> {
  rule: string;
  severity: Severity;
  sessionId: string;
  fixable: boolean;
}
