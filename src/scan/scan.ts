/**
 * Scan sessions one at a time, so memory stays bounded by the largest session, never the store. Many sessions
 * are spread over worker threads (parallel-scan.ts); the results and their order are the same.
 */
import type { LoadMode } from "../model/opencode-records.js";
import type { Rule, RuleOptions } from "../rules/rule.js";
import type { SessionStore } from "../stores/store.js";
import { checkSession } from "./check.js";
import { occasionalTurns } from "./event-loop.js";
import { scanInParallel, workerCount } from "./parallel-scan.js";
import type { SessionResult } from "./session-result.js";
import { liveSkip, sessionView } from "./session-view.js";

export type { SessionResult } from "./session-result.js";

export interface ScanOptions extends RuleOptions {
  rules: readonly Rule[];
  mode?: LoadMode;
  /** The caller's environment (RECOVER_SCAN_THREADS); the CLI passes its run's. */
  env?: NodeJS.ProcessEnv;
}

export function scanSession(store: SessionStore, id: string, options: ScanOptions): SessionResult {
  const records = store.loadSession(id, options.mode ?? "lean");
  const view = sessionView(records, options);
  const skipped = liveSkip(view);
  return { summary: records.summary, findings: checkSession(view, options.rules, options), ...(skipped ? { skipped } : {}) };
}

export async function* scanSessions(store: SessionStore, ids: readonly string[], options: ScanOptions): AsyncGenerator<SessionResult> {
  const threads = options.mode === "full" ? 0 : workerCount(ids.length, options.env ?? {});
  if (threads > 1) {
    const { rules, mode: _mode, env: _env, ...ruleOptions } = options;
    // Each thread opens what the user named (a part of a store reads only that part).
    const setup = {
      store: { path: store.info.readFrom ?? store.info.part ?? store.info.path, format: store.info.format },
      ruleIds: rules.map((r) => r.id),
      options: ruleOptions,
    };
    yield* scanInParallel(ids, setup, threads, options.env ?? {}, (id) => scanSession(store, id, options));
    return;
  }
  const turn = occasionalTurns();
  for (const id of ids) {
    yield scanSession(store, id, options);
    await turn();
  }
}
