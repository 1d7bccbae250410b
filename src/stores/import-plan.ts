/**
 * `session import`'s plan, whatever store it writes: the sessions brought in (each as whole-record targets inserted
 * where nothing was, so a restore takes out exactly what was put in), the ones left out and why.
 */
import type { ChangeSummary } from "../model/change.js";
import type { ImageTarget, SessionStore } from "./store.js";

/** A store sessions are imported from. */
export interface ImportSourceBase {
  readonly path: string;
  /** The same sessions opened for reading (titles, a scan of what is imported). */
  readonly store: SessionStore;
  sessionIds(): string[];
  /** The id `store` knows a session by, when it is not the session's own (a file named otherwise). */
  storeId?(id: string): string;
  close(): void;
}

export interface ImportedSession {
  id: string;
  targets: ImageTarget[];
  changes: ChangeSummary[];
  /** One line per thing the user should know about how it was imported. */
  notes: string[];
}

export interface ImportPlan {
  sessions: ImportedSession[];
  /** Named sessions not imported, and why (already there; an id the target already holds). */
  skipped: { id: string; why: string }[];
  /** Sessions imported without some of their rows, and which (rows no id can name: a restore could not take them out). */
  partial: { id: string; why: string }[];
}
