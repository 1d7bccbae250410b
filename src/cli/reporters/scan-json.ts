/**
 * `--json` scan output, streamed: one JSON document written session by session, so a store of any size is
 * reported in bounded memory. Shape: schemaVersion, tool, store, sessions[], skipped[] (only when a
 * session's live tail was left unjudged), summary.
 */
import type { SessionResult } from "../../scan/scan.js";
import type { LiveSkip } from "../../scan/session-view.js";
import type { Io } from "../io.js";
import { DOCUMENT_HEAD, storeJson } from "../json-output.js";
import { liveSkipJson } from "./live-skips.js";
import type { ScannedStore, ScanReporter, ScanTotals } from "./scan-reporter.js";

/** `,"skipped":[{"id","reason":"live","updatedAt"}]` when a session's live tail was left unjudged; nothing otherwise. */
function skippedJson(skipped: readonly LiveSkip[]): string {
  if (skipped.length === 0) return "";
  return `,"skipped":${JSON.stringify(liveSkipJson(skipped))}`;
}

export function jsonScanReporter(io: Io): ScanReporter {
  let first = true;
  let several = false;
  const skipped: LiveSkip[] = [];
  return {
    start(stores: readonly ScannedStore[]) {
      // One store: `store`, as always; several (every agent's, none named): `stores`, and each session says whose.
      several = stores.length > 1;
      const read = several ? { stores: stores.map((s) => ({ agent: s.agent, ...storeJson(s.info) })) } : { store: storeJson(stores[0]!.info) };
      const head = JSON.stringify({ ...DOCUMENT_HEAD, ...read });
      io.out(`${head.slice(0, -1)},"sessions":[`);
    },
    session(result: SessionResult, from: ScannedStore) {
      if (result.skipped) skipped.push(result.skipped);
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
      const whose = several ? { agent: from.agent, store: from.info.path } : {};
      io.out(`${first ? "" : ","}${JSON.stringify({ id: result.summary.id, title: result.summary.title, ...whose, findings })}`);
      first = false;
    },
    end(totals: ScanTotals) {
      const { sessions, findings, errors, warnings } = totals;
      io.out(`]${skippedJson(skipped)},"summary":${JSON.stringify({ sessions, findings, errors, warnings })}}\n`);
    },
    abort(error) {
      io.out(`],"error":${JSON.stringify(error)}}\n`);
    },
  };
}
