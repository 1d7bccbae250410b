/**
 * `recover session repair`: load → rules → plan (fixes as data) → show diffs → ask → back up → apply atomically.
 * `--dry-run` stops after the plan and exits 1 when there is something to do (terraform's -detailed-exitcode).
 */
import { Option, type Command } from "commander";
import { RecoverError } from "../../errors.js";
import { planForError, storedError, storedOverflow } from "../../plan/error-fixes.js";
import { planSession, type SessionPlan } from "../../plan/planner.js";
import { classifyProviderError } from "../../provider/classify-error.js";
import { RULES } from "../../rules/index.js";
import { namedRules } from "../rule-list.js";
import { DEFAULT_RULE_OPTIONS, type Finding, type Rule, type TrimOptions } from "../../rules/rule.js";
import { STRATEGIES, TRIM_RULES } from "../../rules/trim/index.js";
import type { SessionView } from "../../model/session-view.js";
import type { ClassifiedError } from "../../provider/classify-error.js";
import { liveSkip, sessionView, type LiveSkip } from "../../scan/session-view.js";
import { liveAge, liveSkipClause } from "../reporters/live-skips.js";
import { isTranscript } from "../../model/transcript.js";
import type { LoadedSession, SessionStore } from "../../stores/store.js";
import type { GlobalOptions, Io } from "../io.js";
import { action, withSessions } from "../command-kit.js";
import { readErrorText } from "../error-input.js";
import { refuseMostlyUnreadable, reportAndWrite, type PlannedSession } from "../write-plans.js";
import { liveWindow } from "./session-scan.js";
import type { TrimSummary } from "../reporters/change-report.js";
import { byteBudgetOf, calibrate, calibrateToCount, DEFAULT_LIMIT, trimOptions, trimSummary, type TrimRequest } from "../trim-budget.js";
import { formatCount, plural } from "../../model/format-count.js";
import { sessionProgress } from "../session-progress.js";
import { occasionalTurns } from "../../scan/event-loop.js";

/** A process id, as `--agent-pid` takes it. */
function pidOf(value: string): string {
  if (!/^[1-9]\d{0,9}$/.test(value)) throw new RecoverError("usage", `--agent-pid takes a process id, not ${JSON.stringify(value)}`);
  return value;
}

interface RepairFlags {
  agentPid?: string;
  all?: boolean;
  last?: boolean;
  rule?: string;
  only?: string;
  dryRun?: boolean;
  force?: boolean;
  error?: string;
  errorFile?: string;
  resume?: boolean;
  includeLive?: boolean;
  keepThinking?: boolean;
}

/**
 * Without --rule: every rule with a repair except those fixed only on request, plus the context-trim rules so their
 * findings are reported as left for `context trim`. With --rule: exactly those, each of which must be repairable.
 */
export function repairRules(list: string | undefined): readonly Rule[] {
  if (list === undefined) return RULES.filter((r) => (r.fix && !r.repairOnRequest) || r.fixedBy === "trim");
  const named = namedRules(list);
  const trim = named.filter((r) => r.fixedBy === "trim").map((r) => r.id);
  if (trim.length > 0)
    throw new RecoverError("usage", `${trim.join(", ")} ${trim.length === 1 ? "is" : "are"} fixed by \`recover context trim\`, not by repair`);
  return named;
}

export function addSessionRepair(session: Command): void {
  session
    .command("repair")
    .description("fix what scan finds: plan, show diffs, back up, apply atomically (undo with session restore)")
    .argument("[ids...]", "session ids or unique prefixes")
    .option("--all", "repair every session")
    .option("--last", "repair the most recently updated session")
    .option("--rule <ids>", "only these rules' fixes (comma-separated); unsigned-thinking is fixed only when named")
    .addOption(new Option("--only <ids>", "same as --rule").hideHelp())
    .option("--dry-run", "show the plan and diffs, write nothing; exit 1 when there is something to fix")
    .option("--include-live", "also judge and fix a last turn written in the last 10 minutes (the 60 s write guard still applies)")
    .option("--force", "write even while another process holds the store open or the session was written within 60 s")
    .option("--error <text>", "the provider's error text (or - for stdin): also fix exactly what it names")
    .option("--error-file <path>", "read the provider's error text from a file")
    .option("--resume", "after a repair, print the command that continues the session in its agent (opencode, Claude Code)")
    .option("--keep-thinking", "refuse (exit 3) a repair that must drop thinking a current Claude model bound to what it changes")
    .addOption(new Option("--agent-pid <pid>", "the agent asking for this repair from inside itself (recover's opencode plugin)").hideHelp().argParser(pidOf))
    .addHelpText(
      "after",
      `
Examples:
  recover session repair ses_52f1 --dry-run          show what would change, as diffs
  recover session repair ses_52f1                    ask, back up, repair
  recover session repair --all --yes --json          scripted: no prompt, one JSON document
  recover session repair --last --rule tool-call-interrupted,incomplete-message
  pbpaste | recover session repair ses_52f1 --error -     the exact error the provider answered
  recover session repair ses_52f1 --error-file err.txt --resume

Without --error, the error opencode stored on the session's last message (if any) is read the same way.

With no session id at a terminal, pick the session from a searchable list (newest first, with its error findings).
Every repair backs up the records it changes first; undo it with \`recover session restore <backup-id>\`.
Exit codes: 0 repaired (or nothing to do), 1 dry run with changes / error findings left / not confirmed,
2 usage or input error (also: no terminal and no --yes), 3 refused for safety (store in use, store changed).`,
    )
    .action(
      action<RepairFlags>(({ args, options, io }) => {
        if (options.rule !== undefined && options.only !== undefined) throw new RecoverError("usage", "give --rule or --only, not both");
        const rules = repairRules(options.rule ?? options.only);
        // Done means a scan passes: without --rule, what is left is judged by every rule a scan runs.
        const judgeRules = options.rule === undefined && options.only === undefined ? RULES : rules;
        return withSessions(
          options,
          io,
          { ids: args, ...(options.all ? { all: true } : {}), ...(options.last ? { last: true } : {}), emptyMeansAll: false, verb: "repair" },
          async (store, ids) =>
            repairSessions(store, ids, { ...options, errorText: readErrorText(options.error, options.errorFile, io.readInput) }, io, rules, judgeRules),
        );
      }),
    );
}

/**
 * A plan answers an error when it changes a record the error names, or fixes a finding in one (a transcript's missing
 * result is a new line after the named call, not a change to the call's own line).
 */
function answers(plan: SessionPlan, named: ReadonlySet<string>): boolean {
  const has = (id: string | undefined) => id !== undefined && named.has(id);
  return plan.changes.some((c) => has(c.key.id) || has(c.key.messageId)) || plan.fixed.some((f) => has(f.messageId) || has(f.partId));
}

interface Aimed {
  rules: readonly Rule[];
  /** A size or image error: the trim strategies run in this repair, with the budget the error states. */
  trim?: { view: SessionView; request: TrimRequest; options: TrimOptions };
  filter?: (finding: Finding) => boolean;
  /** The records the error names: a plan that changes none of them does not answer it. */
  answering: Set<string>;
  note?: string;
  /** The error locates records in a last turn the live window leaves unjudged: it was sent, so the plan judges it. */
  sentLiveTail?: LiveSkip;
}

/** Said when an error makes the repair judge a last turn written within the live window. */
function sentLiveTailNote(tail: LiveSkip, now: number): string {
  return `its last turn was written ${liveAge(tail, now)} ago, but the provider refused a request that held it, so no agent is writing it any more: it is judged and repaired (as --include-live would)`;
}

/** When the error's kind is found only in a live last turn the error does not name: where, and how to judge it. */
function liveTailLeft(view: SessionView, now: number): string {
  const tail = liveSkip(view);
  return tail
    ? `; its last turn, written ${liveAge(tail, now)} ago, holds what this kind of error is about, but the error names nothing there, so it is left alone as in progress (its agent may be writing it); --include-live judges it`
    : "";
}

/** A fix-failed message's tail when the plan left a live last turn unjudged: what it was, and how to judge it. */
function liveLeft(plan: SessionPlan, now: number): string {
  return plan.skipped ? `; ${liveSkipClause(plan.skipped, now)}` : "";
}

/**
 * Add to the plan the fixes an error names: the one given with --error, else the one opencode stored on the
 * session's last message (a stale error earlier in the session is ignored). A context or size error belongs to
 * `context trim`; an error with no offline repair is explained, and with --error stops the repair.
 */
function aimAtError(
  records: LoadedSession,
  errorText: string | undefined,
  rules: readonly Rule[],
  now: number,
  liveWindowMs: number,
  errorSource?: string,
  given?: SessionView,
): Aimed {
  // Most sessions carry no error: look at the records before paying for a view of them (`repair --all`).
  const stored = errorText === undefined && !isTranscript(records) ? storedError({ summary: records.summary, opencode: records }) : undefined;
  if (errorText === undefined && stored === undefined) return { rules, answering: new Set() };
  const view = given ?? sessionView(records, { now, liveWindowMs });
  const error = classifyProviderError(errorText ?? stored!);
  const plan = planForError(error, view);
  const source = errorText !== undefined ? (errorSource ?? "the error given") : "the error opencode stored on the last message";
  const note = `${source} (${error.kind}): ${plan.explanation}`;
  const tail = plan.judgesLiveTail ? liveSkip(view) : undefined;
  const sent = tail ? { sentLiveTail: tail } : {};
  if (plan.trim) {
    const request = trimRequest(error, errorText ?? JSON.stringify(stored), plan.trim, view);
    return { rules: [...rules, ...TRIM_RULES], answering: new Set(), note, trim: { view, request, options: trimOptions(request) } };
  }
  if (!plan.rule && !plan.scopedRules) {
    if (errorText !== undefined) throw new RecoverError("fix-failed", `${note}; nothing was changed${plan.liveTailLeft ? liveTailLeft(view, now) : ""}`);
    return { rules, answering: new Set(), note };
  }
  const extra = [...(plan.rule ? [plan.rule] : []), ...(plan.scopedRules?.rules ?? [])].filter((r) => !rules.includes(r));
  const scope = plan.scopedRules;
  const answering = plan.targets ?? new Set<string>();
  // A rule the error brings (one --rule left out) fixes what it scopes: the named messages and every other place of
  // the request with the same fault. A rule the repair runs anyway keeps all its findings: --error is a plain repair
  // plus what the error names, never less.
  const brought = new Set(scope?.rules.filter((r) => !rules.includes(r)).map((r) => r.id));
  const filter =
    scope && scope.messageIds.size > 0 && brought.size > 0
      ? (f: Finding) => !brought.has(f.rule) || f.messageId === undefined || scope.messageIds.has(f.messageId)
      : undefined;
  return { rules: [...rules, ...extra], answering, note, ...sent, ...(filter ? { filter } : {}) };
}

/** The budget a size error states: its token limit, the byte budget of a 413, or (an image error) only the image rules. */
function trimRequest(error: ClassifiedError, text: string, wants: NonNullable<ReturnType<typeof planForError>["trim"]>, view: SessionView): TrimRequest {
  // An error with no count (openclaw's own "Context overflow: prompt too large for the model…"): the count of the
  // overflow the client stored on the session, when it has one.
  const tokens = error.tokens ?? storedOverflow(view)?.tokens ?? null;
  const counted = tokens?.current;
  const base = { calibration: counted !== undefined ? calibrateToCount(view, counted, "the error counted") : calibrate(view) };
  if (wants.images) return { ...base, limit: Number.MAX_SAFE_INTEGER, target: 1, strategies: new Set(["drop-images"]) };
  if (wants.bytes) return { ...base, limit: DEFAULT_LIMIT, maxBytes: byteBudgetOf(text), strategies: new Set(STRATEGIES) };
  return { ...base, limit: tokens?.max ?? DEFAULT_LIMIT };
}

/** What a repair of some sessions is asked: the command's flags, and the provider's error text when one was given. */
export type RepairRequest = Omit<RepairFlags, "error" | "errorFile"> &
  GlobalOptions & {
    errorText?: string | undefined;
    /** How notes name where the error text came from ("the error given"). */
    errorSource?: string;
    /** A session the caller loaded in full already (`session resume`): not read again. */
    loaded?: LoadedSession;
    /** The caller's view of `loaded`, and the clock it was built with: the repair runs at that clock and reuses it. */
    loadedView?: { view: SessionView; now: number };
  };

/**
 * Plan every session's repair (aimed at the error when one is given), then report, ask and write as every mutation
 * does. Returns the exit code. `session resume` runs it too, with the error the store recorded.
 */
export async function repairSessions(
  store: SessionStore,
  ids: string[],
  options: RepairRequest,
  io: Io,
  rules: readonly Rule[] = repairRules(options.rule ?? options.only),
  judgeRules: readonly Rule[] = options.rule === undefined && options.only === undefined ? RULES : rules,
): Promise<number> {
  const { errorText } = options;
  if (errorText !== undefined && ids.length !== 1) throw new RecoverError("usage", "--error names one session's error: give exactly one session");
  const now = options.loadedView?.now ?? Date.now();
  const liveWindowMs = liveWindow(options.includeLive);
  const progress = await sessionProgress(io, "planning", ids);
  // Now and then a turn of the event loop, so the spinner on a terminal moves.
  const turn = occasionalTurns();
  const planned: PlannedSession[] = [];
  let changes = 0;
  let trimmed: TrimSummary | undefined;
  try {
    for (const id of ids) {
      const records = options.loaded?.summary.id === id ? options.loaded : store.loadSession(id, "full");
      const given = records === options.loaded ? options.loadedView?.view : undefined;
      const aimed = aimAtError(records, errorText, rules, now, liveWindowMs, options.errorSource, given);
      if (aimed.note) store.info.notices.push(`session ${id}: ${aimed.note}`);
      if (aimed.sentLiveTail) {
        store.info.notices.push(`session ${id}: ${sentLiveTailNote(aimed.sentLiveTail, now)}`);
      }
      const plan = planSession(
        records,
        store.fixing,
        {
          ...DEFAULT_RULE_OPTIONS,
          liveWindowMs: aimed.sentLiveTail ? 0 : liveWindowMs,
          now,
          rules: aimed.rules,
          judgeWith: judgeRules,
          ...(options.keepThinking ? { keepThinking: true } : {}),
          ...(options.rule !== undefined ? { requested: new Set(rules.map((r) => r.id)) } : {}),
          ...(aimed.filter ? { filter: aimed.filter } : {}),
          ...(aimed.trim ? { trim: aimed.trim.options } : {}),
        },
        // A view built for another live window is not this plan's first.
        aimed.sentLiveTail ? undefined : given,
      );
      if (plan.changes.length > 0 && !options.dryRun) refuseMostlyUnreadable(records, options.force);
      if (aimed.trim) {
        const { view, request, options: budget } = aimed.trim;
        trimmed = trimSummary(view, plan, request, budget, io.command(["context", "trim", id]));
        // A scan rule may have answered the error first (oversized-attachment moves out an attachment over
        // the byte limit by itself; stuck-compaction takes out the compaction that failed with opencode's
        // `too large to compact`): the repair stands when it changed the session and left it under the budget.
        const took = plan.fixed.some((f) => TRIM_RULES.some((r) => r.id === f.rule)) || (plan.changes.length > 0 && !trimmed.stillOver);
        if (errorText !== undefined && !took) {
          // Claude Code after a 413: the media the stored error blames are out of every request since.
          const rejected = view.conversation.rejectedMediaIn ?? [];
          const why =
            trimmed.advice ??
            (trimmed.bytes && !trimmed.stillOver && rejected.length > 0
              ? `the request is already under the byte limit (about ${formatCount(trimmed.bytes.before)} bytes, limit ${formatCount(trimmed.bytes.max)}): since the stored error the client leaves the media of ${rejected.map((r) => `line ${r}`).join(", ")} out of every request (its own recovery; they stay in the file)`
              : `the session is already under the limit it states (about ${formatCount(trimmed.tokens.before)} tokens, target ${formatCount(trimmed.tokens.target)})`);
          throw new RecoverError("fix-failed", `${aimed.note ?? "the error"}; ${why}, so nothing was changed`);
        }
      } else if (errorText !== undefined && !answers(plan, aimed.answering)) {
        throw new RecoverError(
          "fix-failed",
          `${aimed.note ?? "the error"}; nothing in session ${id} matches what it names, so nothing was changed (\`recover explain\` says more)${liveLeft(plan, now)}`,
        );
      }
      planned.push({ plan, sessionRef: records.sessionRef });
      changes += plan.changes.length;
      progress.done(plural(changes, "change"));
      await turn();
    }
  } finally {
    progress.stop();
  }
  const summary = trimmed;
  return reportAndWrite(store, io, options, planned, {
    command: "repair",
    showAll: ids.length === 1,
    ...(summary ? { extra: (report) => (report.trim = summary) } : {}),
  });
}
