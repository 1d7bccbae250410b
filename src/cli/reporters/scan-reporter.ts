/** Formatters are apart from rules (ESLint style): the scan command feeds results to one of these. */
import type { SessionResult } from "../../scan/scan.js";
import type { StoreInfo } from "../../stores/store.js";

export interface ScanTotals {
  sessions: number;
  sessionsWithFindings: number;
  findings: number;
  errors: number;
  warnings: number;
}

/** A store a scan reads, with its agent. */
export interface ScannedStore {
  agent: string;
  info: StoreInfo;
}

export interface ScanReporter {
  /** Every store the scan reads (one, unless none was named and several agents' stores were found). */
  start(stores: readonly ScannedStore[]): void;
  session(result: SessionResult, from: ScannedStore): void;
  end(totals: ScanTotals): void;
  /** A fatal error after output began: close the document so it stays one valid JSON value. */
  abort?(error: { code: string; message: string }): void;
}
