/**
 * Scan sessions one at a time, so memory stays bounded by the largest session, never the store.
 */
import type { LoadMode, SessionSummary } from "../model/opencode-records.js";
import type { Finding, Rule, RuleOptions } from "../rules/rule.js";
import type { SessionStore } from "../stores/store.js";
import { checkSession } from "./check.js";
import { opencodeSessionView } from "./session-view.js";

export interface SessionResult {
  summary: SessionSummary;
  findings: Finding[];
}

export interface ScanOptions extends RuleOptions {
  rules: readonly Rule[];
  mode?: LoadMode;
}

export function scanSession(store: SessionStore, id: string, options: ScanOptions): SessionResult {
  const records = store.loadSession(id, options.mode ?? "lean");
  const view = opencodeSessionView(records, options);
  return { summary: records.summary, findings: checkSession(view, options.rules, options) };
}

export function* scanSessions(store: SessionStore, ids: Iterable<string>, options: ScanOptions): Generator<SessionResult> {
  for (const id of ids) yield scanSession(store, id, options);
}
