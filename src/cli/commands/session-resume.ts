/**
 * `recover session resume <id>|--last`: repair a session with the provider error its store recorded (as
 * `repair --error` would with that text; with none, what a scan finds), then continue it in its own agent: the
 * agent's resume command, run in the session's directory with the terminal handed over. `--print` prints that
 * command instead of running it. Nothing to repair: it just continues.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import type { Command } from "commander";
import { ExitCode, RecoverError } from "../../errors.js";
import { findExecutable } from "../../fs/find-executable.js";
import { isTranscript } from "../../model/transcript.js";
import { claudeStoreOf, readFailures, type RecordedFailure } from "../../hooks/failures.js";
import { lastStoredError, storedError } from "../../plan/error-fixes.js";
import { DEFAULT_RULE_OPTIONS } from "../../rules/rule.js";
import { checkSession } from "../../scan/check.js";
import { stateDir } from "../../txn/state-dir.js";
import { sessionView } from "../../scan/session-view.js";
import type { SessionView } from "../../model/session-view.js";
import type { LoadedSession, SessionStore } from "../../stores/store.js";
import { action, withSessions } from "../command-kit.js";
import { signalExitCode } from "../exit-codes.js";
import type { GlobalOptions, Io } from "../io.js";
import { resumeLine } from "../write-plans.js";
import { liveWindow } from "./session-scan.js";
import { repairRules, repairSessions } from "./session-repair.js";

interface ResumeFlags {
  last?: boolean;
  dryRun?: boolean;
  print?: boolean;
  force?: boolean;
  includeLive?: boolean;
  keepThinking?: boolean;
}

export function addSessionResume(session: Command): void {
  session
    .command("resume")
    .description("repair a session with the error its agent recorded, then continue it in its agent")
    .argument("[id]", "the session id or a unique prefix")
    .option("--last", "the most recently updated session")
    .option("--print", "print the agent's command that continues the session instead of running it")
    .option("--dry-run", "show the repair it would make (aimed at the recorded error), write nothing, start nothing; exit 1 when there is something to repair")
    .option("--include-live", "also judge and fix a last turn written in the last 10 minutes (the 60 s write guard still applies)")
    .option("--force", "write even while another process holds the store open or the session was written within 60 s")
    .option("--keep-thinking", "refuse (exit 3) a repair that must drop thinking a current Claude model bound to what it changes")
    .addHelpText(
      "after",
      `
Examples:
  recover session resume --last              repair the newest session (asks first) and continue it in its agent
  recover session resume ses_52f1 --yes      no prompt
  recover session resume --last --print      repair, then print the agent's command instead of running it

The error is the one the agent recorded when the provider refused the session (opencode's assistant error, Claude
Code's API error entry, Codex's failed turn, Gemini CLI's error record, openclaw's refused turn); with none, the fixes
a scan finds. openclaw continues a session by its key: \`openclaw chat --session <key>\`.
Exit codes: the agent's own once it runs; before that 0 (printed), 1 not confirmed / error findings left (the agent
is not started), 2 usage or input error (also: the agent's command is not on PATH), 3 refused for safety.`,
    )
    .action(
      action<ResumeFlags>(({ args, options, io }) => {
        const recorded = options.last && args.length === 0 && options.store === undefined ? recordedRefusal(io) : undefined;
        if (recorded) {
          io.note(`the last refusal a hook recorded: session ${recorded.sessionId} (${recorded.transcriptPath})`);
          options.store = claudeStoreOf(recorded.transcriptPath);
          options.last = false;
          args.push(recorded.sessionId);
        }
        return withSessions(options, io, { ids: args, ...(options.last ? { last: true } : {}), emptyMeansAll: false, verb: "resume" }, async (store, ids) => {
          if (ids.length !== 1) throw new RecoverError("usage", "resume continues one session: give one id, or --last");
          const id = ids[0]!;
          // Where the user waits: a session with nothing to repair (the everyday case) costs what its scan costs.
          // Read once, in full: the check and, when it finds something, the repair both work on it.
          const loaded = store.loadSession(id, "full");
          const checked = check(loaded, options);
          if (!io.json && checked.clean) return continueInAgent(store, id, loaded.summary.directory, options, io);
          const code = await repairWithRecordedError(store, loaded, checked, options, io);
          if (options.dryRun) return code;
          if (code !== ExitCode.ok) {
            io.note(`not continuing session ${id}: the repair did not finish (above)`);
            return code;
          }
          return continueInAgent(store, id, loaded.summary.directory, options, io);
        });
      }),
    );
}

/**
 * The session checked as a scan checks it. `clean`: no refusal ends it and no finding is one the repair would fix,
 * so resume goes straight to the agent; else the repair runs (always with --json, whose document is the repair's),
 * on this view, at this clock, and aimed at `recorded` when the agent recorded a refusal.
 */
function check(records: LoadedSession, options: ResumeFlags): { clean: boolean; view: SessionView; now: number; recorded?: { text: string; where: string } } {
  const now = Date.now();
  const liveWindowMs = liveWindow(options.includeLive);
  const view = sessionView(records, { now, liveWindowMs });
  // opencode's repair reads the error on the session's last message itself.
  const recorded = isTranscript(records) ? lastStoredError(view) : undefined;
  if (options.dryRun || recorded || (!isTranscript(records) && storedError(view))) return { clean: false, view, now, ...(recorded ? { recorded } : {}) };
  const rules = repairRules(undefined);
  const fixed = new Set(rules.filter((r) => r.fixedBy === "repair").map((r) => r.id));
  const findings = checkSession(view, rules, { ...DEFAULT_RULE_OPTIONS, now, liveWindowMs });
  return { clean: !findings.some((f) => f.fixable && fixed.has(f.rule)), view, now };
}

/** A day: an older recorded refusal is history, and --last means the newest session again. */
const RECORDED_FOR_MS = 24 * 3_600_000;

/**
 * The newest refusal an agent's hook recorded (`recover hooks install claude`), while its transcript is still there
 * and it is less than a day old: `--last` is then that session, the one the provider refused last.
 */
function recordedRefusal(io: Io): RecordedFailure | undefined {
  const newest = readFailures(stateDir(io.env)).at(-1);
  return newest && Date.now() - newest.at < RECORDED_FOR_MS && existsSync(newest.transcriptPath) ? newest : undefined;
}

/**
 * The repair, aimed at the error the store recorded when the session ended with one. A recorded error a repair
 * already answered names nothing any more: then the session gets the repair a scan asks for, which is what is left.
 */
async function repairWithRecordedError(
  store: SessionStore,
  records: LoadedSession,
  checked: ReturnType<typeof check>,
  options: ResumeFlags & GlobalOptions,
  io: Io,
): Promise<number> {
  const id = records.summary.id;
  // --json: the document names the command that continues the session (`resume`), which is then not run.
  const request = { ...options, resume: io.json, loaded: records, loadedView: { view: checked.view, now: checked.now } };
  const { recorded } = checked;
  if (!recorded) return repairSessions(store, [id], request, io);
  io.note(`session ${id}: the agent recorded the provider's refusal at ${recorded.where}; the repair aims at it`);
  try {
    return await repairSessions(store, [id], { ...request, errorText: recorded.text, errorSource: "the error the agent recorded" }, io);
  } catch (error) {
    if (!(error instanceof RecoverError) || error.code !== "fix-failed") throw error;
    io.note(`session ${id}: ${error.message}; repairing what a scan finds instead`);
    return repairSessions(store, [id], request, io);
  }
}

/**
 * Run (or print) the agent's command for the session, in its directory; the agent's exit code is the run's. With
 * --json the command is in the repair's document (`resume`) and is not run: stdout holds one JSON document.
 */
async function continueInAgent(store: SessionStore, id: string, directory: string, options: ResumeFlags & GlobalOptions, io: Io): Promise<number> {
  const resume = resumeLine(store, id, directory);
  if (!resume) {
    io.note(
      store.aliasesOf
        ? `${store.info.format} continues a session by its key, and no key names session ${id} now (a newer session took its key over): its agent cannot continue it`
        : `${store.info.format} has no command that continues a session by id: open it in the agent as usual`,
    );
    return ExitCode.ok;
  }
  if (io.json) return ExitCode.ok;
  if (options.print) {
    io.out(`${resume.line}\n`);
    return ExitCode.ok;
  }
  const agent = resume.argv[0]!;
  if (findExecutable(agent, io.env) === null) throw new RecoverError("usage", `${agent} is not on PATH; continue the session with: ${resume.line}`);
  io.note(`continuing in ${agent}: ${resume.line}`);
  return runAgent(resume.argv, resume.cwd ?? io.cwd, io.env);
}

/**
 * The agent runs with this process's terminal (stdin, stdout, stderr inherited). Ctrl-C is the agent's to handle:
 * while it runs, an interrupt does not end recover under it. Its exit code (128 + the signal's number when a signal
 * ended it) is the run's.
 */
function runAgent(argv: readonly string[], cwd: string, env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const ignore = () => {};
    process.on("SIGINT", ignore);
    const child = spawn(argv[0]!, argv.slice(1), { cwd, env, stdio: "inherit" });
    child.on("error", (error) => {
      process.off("SIGINT", ignore);
      reject(new RecoverError("usage", `cannot start ${argv[0]}: ${error.message}`));
    });
    child.on("exit", (code, signal) => {
      process.off("SIGINT", ignore);
      resolve(code ?? signalExitCode(signal) ?? 1);
    });
  });
}
