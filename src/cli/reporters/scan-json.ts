/**
 * `--json` scan output, streamed: one JSON document written session by session, so a store of any size is
 * reported in bounded memory. Shape: schemaVersion, tool, store, sessions[], summary.
 */
import type { SessionResult } from "../../scan/scan.js";
import type { StoreInfo } from "../../stores/store.js";
import type { Io } from "../io.js";
import { DOCUMENT_HEAD, storeJson } from "../json-output.js";
import type { ScanReporter, ScanTotals } from "./scan-reporter.js";

export function jsonScanReporter(io: Io): ScanReporter {
  let first = true;
  return {
    start(store: StoreInfo) {
      const head = JSON.stringify({ ...DOCUMENT_HEAD, store: storeJson(store) });
      io.out(`${head.slice(0, -1)},"sessions":[`);
    },
    session(result: SessionResult) {
      const findings = result.findings.map((f) => ({
        rule: f.rule,
        severity: f.severity,
        ...(f.messageId !== undefined ? { messageId: f.messageId } : {}),
        ...(f.partId !== undefined ? { partId: f.partId } : {}),
        ...(f.path !== undefined ? { path: f.path } : {}),
        ...(f.line !== undefined ? { line: f.line } : {}),
        message: f.message,
        fixable: f.fixable,
      }));
      io.out(`${first ? "" : ","}${JSON.stringify({ id: result.summary.id, title: result.summary.title, findings })}`);
      first = false;
    },
    end(totals: ScanTotals) {
      const { sessions, findings, errors, warnings } = totals;
      io.out(`],"summary":${JSON.stringify({ sessions, findings, errors, warnings })}}\n`);
    },
    abort(error) {
      io.out(`],"error":${JSON.stringify(error)}}\n`);
    },
  };
}
