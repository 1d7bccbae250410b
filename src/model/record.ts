/**
 * The store-neutral part of the records view: where a record lives and what is wrong with its bytes.
 * Each store family adds its own typed records on top (see opencode-records.ts).
 */
export type RecordKind = "session" | "message" | "part" | "line";

/** Enough to find a record again on disk and to name it in a finding. */
export interface RecordRef {
  kind: RecordKind;
  id: string;
  sessionId: string;
  messageId?: string;
  /** File the record lives in (JSON tree, transcripts). */
  path?: string;
  /** 1-based line number (transcripts). */
  line?: number;
}

export type UnreadableReason = "empty" | "zero-filled" | "truncated" | "invalid-json" | "invalid-utf8" | "not-an-object";

export type RecordProblem = { kind: "unreadable"; reason: UnreadableReason; detail: string } | { kind: "schema"; detail: string };

/** Damage inside a string field of an otherwise readable record. */
export interface Corruption {
  kind: "nul" | "lone-surrogate" | "invalid-utf8";
  /** Dotted path of the field, e.g. `state.output`. */
  field: string;
  detail: string;
}
