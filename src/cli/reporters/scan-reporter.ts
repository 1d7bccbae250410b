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

export interface ScanReporter {
  start(store: StoreInfo): void;
  session(result: SessionResult): void;
  end(totals: ScanTotals): void;
  /** A fatal error after output began: close the document so it stays one valid JSON value. */
  abort?(error: { code: string; message: string }): void;
}
