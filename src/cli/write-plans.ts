/**
 * The second half of every command that changes sessions (repair, context trim): show the plans, stop for a dry
 * run, then guard (store held open, session just written), confirm, quick_check, back up and apply in one
 * transaction, and say how to undo it. The first half — how each command plans — is the command's own.
 */
import { shellQuote } from "../model/shell-quote.js";
import { accessSync, constants, statSync } from "node:fs";
import { dirname } from "node:path";
import { ExitCode, RecoverError } from "../errors.js";
import { stateDir } from "../txn/state-dir.js";
import { summariseChange } from "../model/change.js";
import type { RecordRef } from "../model/record.js";
import { changeDiff } from "../plan/diff.js";
import type { SessionPlan } from "../plan/planner.js";
import { isTranscript } from "../model/transcript.js";
import { storeAdapter } from "../stores/registry.js";
import type { LoadedSession, SessionStore } from "../stores/store.js";
import { isOwnWrite, rememberOwnWrites } from "../txn/own-writes.js";
import { refuseLiveWriter } from "../txn/store-transaction.js";
import { repairTargets } from "../txn/targets.js";
import { markPhase } from "./phases.js";
import type { GlobalOptions, Io } from "./io.js";
import { confirmChange, withWriter } from "./mutation.js";
import { humanChangeReporter } from "./reporters/change-human.js";
import { jsonChangeReporter } from "./reporters/change-json.js";
import { errorsLeft, type ChangeReport, type ReportedSession } from "./reporters/change-report.js";

/** A session written this recently may have its agent still writing it: don't race it without --force. */
const RECENT_WRITE_MS = 60_000;

const lastWrite = ({ plan }: PlannedSession) => Math.max(plan.summary.updated, plan.summary.modified ?? 0);
const secondsSince = (p: PlannedSession, now: number) => Math.max(0, Math.round((now - lastWrite(p)) / 1000));

/** Written within the last minute, and not by recover itself. */
function isRecent(p: PlannedSession, state: string, store: SessionStore, now: number): boolean {
  return now - lastWrite(p) < RECENT_WRITE_MS && !isOwnWrite(state, store.info.path, p.plan.summary.id, lastWrite(p));
}

function liveWriterError(p: PlannedSession, now: number): RecoverError {
  return new RecoverError(
    "live-writer",
    `session ${p.plan.summary.id} was written ${secondsSince(p, now)} s ago: its agent may still be running; try again in a minute, or pass --force`,
  );
}

/**
 * What the same command without --dry-run would meet, checked without taking the store: sessions just written (all
 * of them: refused; some, in a batch: left out), and a store this user cannot write.
 */
function dryRunRefusal(
  store: SessionStore,
  toWrite: readonly PlannedSession[],
  options: WriteOptions,
  io: Io,
  now: number,
): Pick<ChangeReport, "wouldRefuse" | "liveWriters"> {
  const recent = options.force ? [] : toWrite.filter((p) => isRecent(p, stateDir(io.env), store, now));
  if (recent.length > 0 && recent.length === toWrite.length) return { wouldRefuse: liveWriterError(recent[0]!, now).message };
  const left = recent.length > 0 ? { liveWriters: recent.map((p) => ({ id: p.plan.summary.id, secondsAgo: secondsSince(p, now) })) } : {};
  const path = store.info.path;
  const folder = storeAdapter(store.info.format)?.capabilities.writesBesideStore ? dirname(path) : undefined;
  for (const target of [path, ...(folder ? [folder] : [])]) {
    try {
      accessSync(target, constants.W_OK);
    } catch {
      return { ...left, wouldRefuse: `${target} is not writable by this user (nothing would be changed)` };
    }
  }
  return left;
}

export interface PlannedSession {
  plan: SessionPlan;
  sessionRef: RecordRef;
}

export interface WriteOptions extends GlobalOptions {
  dryRun?: boolean;
  force?: boolean;
  resume?: boolean;
  /**
   * `--agent-pid`: the agent asking for this repair from inside itself (recover's opencode plugin), waiting on it:
   * its own hold on the store and its own just-written turn do not count as a writer racing the repair; any other
   * process holding the store still does.
   */
  agentPid?: string;
}

/**
 * How the agent itself picks a session up again, as a shell runs it: in the session's directory when it names one
 * that is there, then the agent's command (its store adapter knows; openclaw has none).
 */
export function resumeLine(store: SessionStore, id: string, directory?: string): { argv: string[]; cwd?: string; line: string } | undefined {
  const argv = storeAdapter(store.info.format)?.resumeArgv(id, store.aliasesOf?.(id) ?? []);
  if (!argv) return undefined;
  const cwd = directory !== undefined && isDirectory(directory) ? directory : undefined;
  const command = argv.map((word) => shellQuote(word)).join(" ");
  return { argv, ...(cwd ? { cwd } : {}), line: cwd ? `cd ${shellQuote(cwd)} && ${command}` : command };
}

const resumeLines = (store: SessionStore, sessions: readonly PlannedSession[]) =>
  sessions.flatMap(({ plan }) => resumeLine(store, plan.summary.id, plan.summary.directory)?.line ?? []);

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * A "transcript" most of whose lines cannot be read is not a damaged transcript but some other file (a database,
 * a log, a binary named .jsonl): rewriting it as one would destroy it. Refused unless --force.
 */
export function refuseMostlyUnreadable(records: LoadedSession, force: boolean | undefined): void {
  if (force || !isTranscript(records)) return;
  const written = records.lines.filter((line) => !(line.problem?.kind === "unreadable" && line.problem.reason === "empty"));
  const unreadable = written.filter((line) => line.problem?.kind === "unreadable" && !line.salvage?.length).length;
  if (unreadable * 2 <= written.length) return;
  throw new RecoverError(
    "not-a-transcript",
    `${records.sessionRef.path ?? records.summary.id}: ${unreadable} of ${written.length} lines cannot be read as records, so this is not a damaged transcript but something else; nothing was changed (--force rewrites it anyway)`,
  );
}

export function restoreCommand(backupId: string, io: Pick<Io, "command">): string {
  return io.command(["session", "restore", backupId]);
}

export async function reportAndWrite(
  store: SessionStore,
  io: Io,
  options: WriteOptions,
  planned: readonly PlannedSession[],
  how: {
    command: "repair" | "trim";
    showAll: boolean;
    extra?: (report: ChangeReport) => void;
  },
): Promise<number> {
  const now = Date.now();
  const report: ChangeReport = {
    command: how.command,
    store: store.info,
    dryRun: options.dryRun === true,
    backup: null,
    sessions: planned
      .filter(({ plan }) => plan.changes.length > 0 || plan.remaining.length > 0 || how.showAll)
      .map(
        ({ plan }): ReportedSession => ({
          id: plan.summary.id,
          title: plan.summary.title,
          changes: plan.changes.map((change) => ({ summary: summariseChange(change), reasons: change.reasons, diff: () => changeDiff(change) })),
          unfixed: plan.remaining,
          ...(plan.droppedThinking ? { droppedThinking: plan.droppedThinking } : {}),
        }),
      ),
  };
  // Repair leaves a live last turn alone unless --include-live: say which sessions, as scan does.
  const skipped = how.command === "repair" ? planned.flatMap(({ plan }) => (plan.skipped ? [plan.skipped] : [])) : [];
  if (skipped.length > 0) report.skipped = skipped;
  how.extra?.(report);
  const toWrite = planned.filter(({ plan }) => plan.changes.length > 0);
  const reporter = io.json ? jsonChangeReporter(io) : humanChangeReporter(io);
  const leftErrors = () => errorsLeft(report) > 0;
  if (toWrite.length === 0 || options.dryRun) {
    if (options.dryRun && toWrite.length > 0) Object.assign(report, dryRunRefusal(store, toWrite, options, io, now));
    // Nothing to write: the sessions go on as they are.
    if (options.resume && !options.dryRun && !leftErrors()) report.resume = resumeLines(store, planned);
    reporter.plan(report);
    reporter.done(report);
    if (options.dryRun) return toWrite.length > 0 ? ExitCode.findings : ExitCode.ok;
    return leftErrors() ? ExitCode.findings : ExitCode.ok;
  }
  return withWriter(store, options, io, async (tx) => {
    const { writer, stateDir: state } = tx;
    // Refusals come before the diff (withWriter's own first: a store that cannot be written): a user should not read
    // a plan that will not be carried out.
    const asking = options.agentPid !== undefined ? Number(options.agentPid) : undefined;
    refuseLiveWriter(writer, options.force, asking);
    const recent = options.force || asking !== undefined ? [] : toWrite.filter((p) => isRecent(p, state, store, now));
    if (recent.length > 0 && recent.length === toWrite.length) throw liveWriterError(recent[0]!, now);
    // A batch goes on without the sessions just written, and says which it left out.
    if (recent.length > 0) {
      report.liveWriters = recent.map((p) => ({ id: p.plan.summary.id, secondsAgo: secondsSince(p, now) }));
      for (const p of recent) toWrite.splice(toWrite.indexOf(p), 1);
      report.sessions = report.sessions.filter((s) => !recent.some((p) => p.plan.summary.id === s.id));
    }
    reporter.plan(report);
    const count = toWrite.reduce((n, { plan }) => n + plan.changes.length, 0);
    await confirmChange(
      io,
      options,
      `${count} record${count === 1 ? "" : "s"} in ${toWrite.length} session${toWrite.length === 1 ? "" : "s"} of ${store.info.path}`,
    );
    markPhase("writing");
    writer.checkIntegrity();
    const writeTime = Date.now();
    const { targets, changes } = repairTargets(
      toWrite.map(({ plan, sessionRef }) => ({ sessionRef, changes: plan.changes, ...(plan.files ? { files: plan.files } : {}) })),
      writer,
      store.codec,
      writeTime,
    );
    const backup = tx.commit({ kind: how.command, sessions: toWrite.map(({ plan }) => plan.summary.id), changes, targets, now: writeTime });
    markPhase("written");
    rememberOwnWrites(
      state,
      store.info.path,
      toWrite.map((p) => ({ id: p.plan.summary.id, updated: Math.max(lastWrite(p), writeTime) })),
    );
    report.backup = { id: backup.manifest.id, path: backup.dir };
    report.undo = restoreCommand(backup.manifest.id, io);
    if (options.resume) report.resume = resumeLines(store, toWrite);
    reporter.done(report);
    // Sessions left out are not repaired: a job must not read this run as all done.
    return leftErrors() || report.liveWriters ? ExitCode.findings : ExitCode.ok;
  });
}
