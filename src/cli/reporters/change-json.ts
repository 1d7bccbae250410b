/**
 * `--json` for changes: one document, `{"schemaVersion":1,"tool","store","dryRun","backup","sessions":[{"id",
 * "changes":[{"op","record","id","rules"}],"unfixed":[…]}],"summary":{"changes","unfixed","errorsLeft"}}` (errorsLeft: repair only); `backup` is null when nothing
 * was written. Diffs are for people: JSON readers have the before-images in the backup.
 */
import type { Io } from "../io.js";
import { DOCUMENT_HEAD, storeJson } from "../json-output.js";
import { changeCount, errorsLeft, type ChangeReporter } from "./change-report.js";
import { liveSkipJson } from "./live-skips.js";
import { BOUND_THINKING_REASON } from "../../plan/prefix-thinking.js";

export function jsonChangeReporter(io: Io): ChangeReporter {
  return {
    plan() {},
    done(report) {
      const doc = {
        ...DOCUMENT_HEAD,
        store: storeJson(report.store),
        dryRun: report.dryRun,
        ...(report.restoreOf !== undefined ? { restoreOf: report.restoreOf } : {}),
        backup: report.backup,
        ...(report.undo !== undefined ? { undo: report.undo } : {}),
        ...(report.resume !== undefined ? { resume: report.resume } : {}),
        sessions: report.sessions.map((s) => ({
          id: s.id,
          title: s.title,
          changes: s.changes.map((c) => ({ ...c.summary, reasons: c.reasons })),
          ...(s.droppedThinking ? { droppedThinking: { blocks: s.droppedThinking, reason: BOUND_THINKING_REASON } } : {}),
          unfixed: s.unfixed.map((f) => ({
            rule: f.rule,
            severity: f.severity,
            ...(f.messageId !== undefined ? { messageId: f.messageId } : {}),
            ...(f.partId !== undefined ? { partId: f.partId } : {}),
            message: f.message,
          })),
        })),
        ...(report.skipped ? { skipped: liveSkipJson(report.skipped) } : {}),
        ...(report.liveWriters ? { liveWriters: report.liveWriters } : {}),
        ...(report.wouldRefuse ? { wouldRefuse: report.wouldRefuse } : {}),
        summary: {
          sessions: report.sessions.length,
          changes: changeCount(report),
          unfixed: report.sessions.reduce((n, s) => n + s.unfixed.length, 0),
          // A repair that exits 1 says why: errors that no automatic fix takes care of.
          ...(report.command === "repair" ? { errorsLeft: errorsLeft(report) } : {}),
        },
        ...(report.trim
          ? {
              tokens: report.trim.tokens,
              ...(report.trim.bytes ? { bytes: report.trim.bytes } : {}),
              strategies: report.trim.strategies,
              stillOver: report.trim.stillOver,
              ...(report.trim.reached ? { reached: report.trim.reached } : {}),
              ...(report.trim.advice ? { advice: report.trim.advice } : {}),
              ...(report.trim.unwritten ? { unwritten: report.trim.unwritten } : {}),
            }
          : {}),
      };
      io.out(`${JSON.stringify(doc)}\n`);
    },
  };
}
