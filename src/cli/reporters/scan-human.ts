/**
 * Human scan output: grouped by session, one line per finding with the command that fixes it, a summary line.
 * Printed as sessions are scanned, so a large store shows progress and memory stays flat.
 */
import type { Finding } from "../../rules/rule.js";
import type { SessionResult } from "../../scan/scan.js";
import type { Io } from "../io.js";
import type { ScannedStore, ScanReporter, ScanTotals } from "./scan-reporter.js";
import type { LiveSkip } from "../../scan/session-view.js";
import { safeCommand, safeMessage, safeValue } from "../safe-text.js";
import { liveSkipLine } from "./live-skips.js";
import { fixedBy, RULE_BY_ID } from "./rule-lookup.js";

/**
 * `asked`: the rules the scan was limited to (`--rule`): the session's fix command then names them too, so it fixes
 * what this scan found and no more.
 */
export function humanScanReporter(io: Io, now: number = Date.now(), asked?: string): ScanReporter {
  const c = io.color;
  const skipped: LiveSkip[] = [];
  let several = false;
  return {
    start(stores: readonly ScannedStore[]) {
      several = stores.length > 1;
      for (const { info } of stores) {
        if (!io.quiet) io.err(c.dim(`scanning ${safeValue(info.path)} (${info.format})\n`));
        for (const notice of info.notices) io.note(notice);
      }
    },
    session(result: SessionResult, from: ScannedStore) {
      if (result.skipped) skipped.push(result.skipped);
      if (result.findings.length === 0) return;
      const s = result.summary;
      const whose = several ? `${c.dim(from.agent)}  ` : "";
      io.out(`\n${whose}${c.bold(safeValue(s.id))}  ${safeValue(s.title)}${s.directory ? c.dim(`  ${safeValue(s.directory)}`) : ""}\n`);
      // Findings a plain repair fixes are fixed by one command, said once under them; the others say their own.
      const byRepair = result.findings.filter(fixedByRepair);
      for (const finding of result.findings) io.out(`  ${findingLine(finding, io, !byRepair.includes(finding))}\n`);
      if (byRepair.length > 0) {
        const words = ["session", "repair", s.id, ...(asked !== undefined ? ["--rule", asked] : [])];
        // The command alone on its line, so the line pastes whole; findings it does not fix say their own above.
        io.out(`  ${c.dim("→")} ${safeCommand(io.command(words))}\n`);
      }
    },
    end(totals: ScanTotals) {
      const { sessions, findings, errors, warnings, sessionsWithFindings } = totals;
      const summary =
        findings === 0
          ? c.green(`✔ no findings in ${sessions} session${sessions === 1 ? "" : "s"}`)
          : `${errors > 0 ? c.red("✖") : c.yellow("⚠")} ${findings} finding${findings === 1 ? "" : "s"} (${errors} error${errors === 1 ? "" : "s"}, ${warnings} warning${warnings === 1 ? "" : "s"}) in ${sessionsWithFindings} of ${sessions} session${sessions === 1 ? "" : "s"}`;
      const live = liveSkipLine(skipped, now);
      if (live) io.out(`\n${c.yellow("note:")} ${live}`);
      io.out(`\n${summary}\n`);
    },
  };
}

/** Fixed by `session repair <id>` as it is, without naming the rule (a rule fixed only on request must be named). */
function fixedByRepair(f: Finding): boolean {
  const rule = RULE_BY_ID.get(f.rule);
  return f.fixable && rule?.fixedBy === "repair" && rule.repairOnRequest !== true;
}

function findingLine(f: Finding, io: Io, withCommand: boolean): string {
  const c = io.color;
  const severity = f.severity === "error" ? c.red("error  ") : c.yellow("warning");
  const where = findingPlace(f);
  const line = `${severity} ${c.cyan(f.rule.padEnd(22))} ${c.dim(where)}  ${safeMessage(f.message)}`;
  return withCommand ? `${line}  ${c.dim(`→ ${fixCommand(f, io)}`)}` : line;
}

/** Where a finding is: a transcript's line (and the block in it), else the record ids; ready to print. */
export function findingPlace(f: Finding): string {
  if (f.line !== undefined) return `line ${f.line}${f.partId?.includes("#") ? safeValue(f.partId.slice(f.partId.lastIndexOf("#"))) : ""}`;
  return (
    [f.messageId, f.partId]
      .filter(Boolean)
      .map((id) => safeValue(id))
      .join("/") || (f.path !== undefined ? safeValue(f.path) : "session")
  );
}

/** The command that fixes a finding, ready to print whole (its session id is quoted like every word: safe-text.ts). */
export function fixCommand(f: Finding, io: Io): string {
  const words = f.fixable ? fixedBy(RULE_BY_ID.get(f.rule), f.sessionId) : null;
  return words ? safeCommand(io.command(words)) : "no automatic fix";
}
