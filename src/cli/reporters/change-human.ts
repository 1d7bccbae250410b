/**
 * Human output for changes: per session one line per change (what, which rule, why), its unified diff (coloured on
 * a terminal; very long lines clipped so a 2 MB tool output does not flood the screen), findings left alone, then
 * the backup and the exact command that undoes it.
 */
import type { Io } from "../io.js";
import { changeCount, errorsLeft, type ChangeReport, type ChangeReporter, type ReportedSession } from "./change-report.js";
import { escapeControls, safeCommand, safeMessage, safeValue } from "../safe-text.js";
import { liveSkipLine } from "./live-skips.js";
import { RULE_BY_ID } from "./rule-lookup.js";
import { findingPlace, fixCommand } from "./scan-human.js";
import { formatCount, plural } from "../../model/format-count.js";
import { BOUND_THINKING_REASON } from "../../plan/prefix-thinking.js";

const MAX_LINE = 240;

/** A diff line is the record's JSON, which escapes C0 controls but not DEL, C1, separators or bidi: escape those too. */
function clip(line: string): string {
  if (line.length <= MAX_LINE) return escapeControls(line);
  return `${escapeControls(line.slice(0, MAX_LINE))}… [${formatCount(line.length - MAX_LINE)} more characters]`;
}

/** A unified diff's line in its colour: file headers bold, additions green, removals red, hunk headers cyan. */
export function colourDiffLine(c: Io["color"], line: string): string {
  return line.startsWith("+++") || line.startsWith("---")
    ? c.bold(line)
    : line.startsWith("+")
      ? c.green(line)
      : line.startsWith("-")
        ? c.red(line)
        : line.startsWith("@@")
          ? c.cyan(line)
          : line;
}

export function humanChangeReporter(io: Io): ChangeReporter {
  const c = io.color;
  const colourLine = (line: string) => colourDiffLine(c, line);
  return {
    plan(report) {
      for (const notice of report.store.notices) io.note(notice);
      for (const session of report.sessions) {
        if (session.changes.length === 0 && session.unfixed.length === 0) continue;
        io.out(`\n${c.bold(safeValue(session.id))}  ${safeValue(session.title)}\n`);
        // An import inserts a session's rows as they are: one line says how many of each, its reasons once.
        if (report.command === "import" && session.changes.length > 0) io.out(`  ${importLine(session)}  ${c.dim(safeMessage(importReasons(session)))}\n`);
        else {
          for (const change of session.changes) {
            const s = change.summary;
            const rules = s.rules.length ? c.cyan(` [${s.rules.join(", ")}]`) : "";
            io.out(`  ${s.op.padEnd(6)} ${s.record} ${safeValue(s.id)}${rules}  ${c.dim(safeMessage(change.reasons.join("; ")))}\n`);
          }
        }
        if (!io.quiet) {
          for (const change of session.changes) {
            const diff = change.diff().trimEnd();
            if (diff === "") continue;
            io.out("\n");
            for (const line of diff.split("\n")) io.out(`${colourLine(clip(line))}\n`);
          }
        }
        if (session.droppedThinking) {
          io.out(
            `  ${c.yellow("drops")} ${plural(session.droppedThinking, "thinking block")}: ${BOUND_THINKING_REASON} (a current Claude model checks it; --keep-thinking refuses instead)\n`,
          );
        }
        for (const finding of session.unfixed) {
          const where = findingPlace(finding);
          const severity = finding.severity === "error" ? c.red("error") : c.yellow("warning");
          // A repair's own rule whose finding is still there had its chance: pointing at repair again would loop.
          const next = report.command === "repair" && RULE_BY_ID.get(finding.rule)?.fixedBy === "repair" ? "no automatic fix" : fixCommand(finding, io);
          io.out(`  left alone: ${severity} ${c.cyan(finding.rule)} ${c.dim(where)}  ${safeMessage(finding.message)}  ${c.dim(`→ ${next}`)}\n`);
        }
      }
    },
    done(report) {
      const live = liveSkipLine(report.skipped ?? [], Date.now());
      if (live) io.out(`\n${c.yellow("note:")} ${live}\n`);
      for (const { id, secondsAgo } of report.liveWriters ?? [])
        io.out(
          `${c.yellow("note:")} session ${safeValue(id)} was written ${secondsAgo} s ago: left out (its agent may still be running; --force takes it too)\n`,
        );
      if (report.wouldRefuse) io.out(`${c.yellow("note:")} without --dry-run this would be refused: ${safeMessage(report.wouldRefuse)}\n`);
      if (report.trim) {
        const t = report.trim;
        const n = (x: number) => formatCount(x);
        io.out(
          `\ntokens: ${n(t.tokens.before)} → ${n(t.tokens.after)} (limit ${n(t.tokens.limit)}, target ${n(t.tokens.target)}${t.verbose ? `; ${t.tokens.method}` : ""})\n`,
        );
        if (t.bytes) io.out(`bytes:  ${n(t.bytes.before)} → ${n(t.bytes.after)} (max ${n(t.bytes.max)})\n`);
        for (const s of t.strategies)
          io.out(`  ${s.id.padEnd(18)} ${String(s.records).padStart(5)} record${s.records === 1 ? " " : "s"}  −${n(s.tokens)} tokens\n`);
        if (t.reached) io.out(`${c.yellow(reachedLine(t.reached))}\n`);
        // Figures and a command (quoted, whole): nothing from the store to shorten.
        if (t.advice) io.out(`${c.yellow("still over the target:")} ${safeCommand(t.advice)}\n`);
        else if (t.stillOver)
          io.out(`${c.yellow("still over the target")} after every allowed strategy: allow more (--strategy) or lower --max-output-chars\n`);
        if (changeCount(report) > 0 && !t.unwritten)
          io.out(c.dim("nothing is lost for good: every removed byte is in the backup, and `recover session restore` brings it all back\n"));
      }
      const changes = changeCount(report);
      const sessions = report.sessions.filter((s) => s.changes.length > 0).length;
      const what = `${changes} change${changes === 1 ? "" : "s"} in ${sessions} session${sessions === 1 ? "" : "s"}`;
      if (changes === 0) {
        if (report.trim?.stillOver) io.out(`\n${c.red("✘")} nothing that may be trimmed brings it under the target\n`);
        else io.out(`\n${c.green("✔")} nothing to ${report.command}\n`);
        sayLeft(report);
        return;
      }
      if (report.trim?.unwritten) {
        io.out(`\n${c.red("✘")} ${what} planned and not written: ${report.trim.unwritten}\n`);
        return;
      }
      if (report.dryRun) {
        io.out(`\n${c.yellow("dry run:")} ${what} planned; nothing was written\n`);
        return;
      }
      io.out(`\n${c.green("✔")} ${{ repair: "repaired", restore: "restored", trim: "trimmed", import: "imported" }[report.command]}: ${what}\n`);
      if (report.backup) io.out(`backup ${c.bold(report.backup.id)} (${safeValue(report.backup.path)})\n`);
      if (report.undo) io.out(`undo with: ${c.bold(safeCommand(report.undo))}\n`);
      for (const command of report.resume ?? []) io.out(`continue with: ${c.bold(safeMessage(command))}\n`);
      sayLeft(report);
    },
  };

  /** A repair is done only when a scan would pass: how many errors are left (each listed above as left alone). */
  function sayLeft(report: ChangeReport): void {
    if (report.command !== "repair") return;
    const left = errorsLeft(report);
    if (left === 0) return;
    io.out(
      `${c.red("✖")} ${left} error finding${left === 1 ? "" : "s"} left that no automatic fix covers (listed above): a scan of ${left === 1 ? "its session" : "their sessions"} still fails\n`,
    );
  }
}

/** "insert project 378e…, session ses_…, 3 messages, 8 parts". */
function importLine(session: ReportedSession): string {
  const count = (record: string) => session.changes.filter((ch) => ch.summary.record === record).length;
  const project = session.changes.find((ch) => ch.summary.record === "project");
  const n = (k: number, one: string) => `${k} ${one}${k === 1 ? "" : "s"}`;
  return [
    "insert",
    [project ? `project ${safeValue(project.summary.id)}` : undefined, "session", n(count("message"), "message"), n(count("part"), "part")]
      .filter((x) => x !== undefined)
      .join(", "),
  ].join(" ");
}

function importReasons(session: ReportedSession): string {
  return [...new Set(session.changes.flatMap((ch) => ch.reasons))].join("; ");
}

/** Short names of what each strategy did, for the line that says the running turn was reached into. */
const DONE: Record<string, [string, string]> = {
  "drop-images": ["image replaced by a note", "images replaced by a note"],
  "truncate-outputs": ["older output of this turn truncated", "older outputs of this turn truncated"],
  "prune-old-outputs": ["output cleared", "outputs cleared"],
  "dedupe-outputs": ["repeated output cleared", "repeated outputs cleared"],
  "purge-errors": ["failed call's input emptied", "failed calls' inputs emptied"],
  "strip-old-thinking": ["thinking block removed", "thinking blocks removed"],
};

/** "reached into the running turn: 9 older outputs of this turn truncated, 2 cleared". */
function reachedLine(reached: readonly { id: string; records: number }[]): string {
  return `reached into the running turn: ${reached.map((r) => `${formatCount(r.records)} ${(DONE[r.id] ?? [r.id, r.id])[r.records === 1 ? 0 : 1]}`).join(", ")}`;
}
