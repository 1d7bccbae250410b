/**
 * What every store adapter offers. Nothing outside src/stores opens a file of a store.
 */
import type { LoadMode, SessionRecords, SessionSummary } from "../model/opencode-records.js";

export type StoreFormat = "opencode-sqlite" | "opencode-json";
export const STORE_FORMATS: readonly StoreFormat[] = ["opencode-sqlite", "opencode-json"];

export interface StoreInfo {
  format: StoreFormat;
  /** The file or directory the records are read from. */
  path: string;
  /** Things the user should know about this store that are not findings (a stale legacy tree, OpenCode 2). */
  notices: string[];
}

export interface SessionStore {
  readonly info: StoreInfo;
  /** Every session, newest update first. */
  listSessions(): SessionSummary[];
  /** Sessions that records point at but that have no session record of their own (orphaned messages). */
  listStraySessionIds(): string[];
  /** One session's records, ordered. `lean` may summarise heavy fields (see PartRecord); `full` keeps bytes. */
  loadSession(id: string, mode: LoadMode): SessionRecords;
  close(): void;
}
