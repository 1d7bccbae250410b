/**
 * What repair, restore (and later context trim) report: per session, the changes with why and their diffs, and
 * the findings left alone; then the backup that makes it undoable. Formatters (human, JSON) are separate.
 */
import type { ChangeSummary } from "../../model/change.js";
import type { Finding } from "../../rules/rule.js";
import type { LiveSkip } from "../../scan/session-view.js";
import type { StoreInfo } from "../../stores/store.js";

export interface ReportedChange {
  summary: ChangeSummary;
  reasons: string[];
  /** Unified diff of the record's JSON, made only when it is shown. */
  diff(): string;
}

export interface ReportedSession {
  id: string;
  title: string;
  changes: ReportedChange[];
  /** Findings no fix took care of (no automatic fix, or another command's). */
  unfixed: Finding[];
  /** Thinking blocks the plan drops because a current Claude model bound them to what it changes before them. */
  droppedThinking?: number;
}

export interface ChangeReport {
  command: "repair" | "restore" | "trim" | "import";
  store: StoreInfo;
  dryRun: boolean;
  sessions: ReportedSession[];
  /** Set once the change is written; null when nothing was (dry run, nothing to do). */
  backup: { id: string; path: string } | null;
  /** The command that undoes what was written. */
  undo?: string;
  /** A restore names the backup it put back. */
  restoreOf?: string;
  /** Sessions whose last turn is being written, so it was neither judged nor fixed (repair without --include-live). */
  skipped?: LiveSkip[];
  /** `--resume`: the commands that continue each repaired session in its agent. */
  resume?: string[];
  /** context trim: the budget and what each strategy took off. */
  trim?: TrimSummary;
  /** A dry run: why the same command without --dry-run would be refused, and with what (a person's next step). */
  wouldRefuse?: string;
  /** Sessions a batch left out because their agent may still be writing them (written seconds ago). */
  liveWriters?: { id: string; secondsAgo: number }[];
}

export interface TrimSummary {
  tokens: { before: number; after: number; limit: number; target: number; method: string };
  bytes?: { before: number; after: number; max: number };
  strategies: { id: string; records: number; tokens: number; bytes: number }[];
  /** Still over the target once every allowed strategy had its turn. */
  stillOver: boolean;
  /** Per strategy, the records taken from the turns --keep-turns protects (once older turns had given all they could). */
  reached?: { id: string; records: number }[];
  /** When still over because the part kept intact is itself too large: what would fit, in one sentence. */
  advice?: string;
  /**
   * Why a plan was not written although no dry run was asked: the trimmed request would still be over the limit, so
   * the session would still fail, and what a write takes (thinking on a current model) would be lost for nothing.
   */
  unwritten?: string;
  /** Human output: say how the figures were estimated too (`--verbose`); the JSON always carries it. */
  verbose?: boolean;
}

/** Error findings no automatic fix took care of: what a scan of the written sessions still fails. */
export function errorsLeft(report: Pick<ChangeReport, "sessions">): number {
  return report.sessions.reduce((n, s) => n + s.unfixed.filter((f) => f.severity === "error").length, 0);
}

export function changeCount(report: Pick<ChangeReport, "sessions">): number {
  return report.sessions.reduce((n, s) => n + s.changes.length, 0);
}

export interface ChangeReporter {
  /** The plan, before anything is asked or written. */
  plan(report: ChangeReport): void;
  /** The outcome. */
  done(report: ChangeReport): void;
}
