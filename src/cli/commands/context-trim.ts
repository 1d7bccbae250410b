/**
 * `recover context trim <id>`: bring a session that overflows the model's window back under it. The strategies are
 * rules with fixes (src/rules/trim), planned, shown, backed up and applied by the same pipeline as a repair; each
 * takes off only what the budget still needs after the ones before it, and every removed byte stays in the backup.
 */
import type { Command } from "commander";
import { RecoverError } from "../../errors.js";
import { storedError, storedOverflow } from "../../plan/error-fixes.js";
import { planSession } from "../../plan/planner.js";
import { markPhase } from "../phases.js";
import { classifyProviderError, type ClassifiedError } from "../../provider/classify-error.js";
import { DEFAULT_RULE_OPTIONS } from "../../rules/rule.js";
import { STRATEGIES, TRIM_RULES } from "../../rules/trim/index.js";
import { INTACT_STEPS } from "../../rules/trim/layout.js";
import { MIN_OUTPUT_CHARS } from "../../rules/trim/truncate-outputs.js";
import { sessionView } from "../../scan/session-view.js";
import { action, parseCount, parsePositiveInt, withSessions } from "../command-kit.js";
import { readErrorText } from "../error-input.js";
import {
  byteBudgetOf,
  calibrate,
  calibrateToCount,
  DEFAULT_KEEP_TURNS,
  DEFAULT_LIMIT,
  DEFAULT_TARGET,
  trimOptions,
  trimSummary,
  type Calibration,
  type TrimRequest,
} from "../trim-budget.js";
import { formatCount } from "../../model/format-count.js";
import { safeValue } from "../safe-text.js";
import { BOUND_THINKING_ID } from "../../plan/prefix-thinking.js";
import { refuseMostlyUnreadable, reportAndWrite } from "../write-plans.js";
import { recalledCalibration, rememberCalibration } from "../../txn/own-writes.js";
import { stateDir } from "../../txn/state-dir.js";
import { TOP_COMMAND_SUMMARIES } from "../top-commands.js";

interface TrimFlags {
  last?: boolean;
  keepThinking?: boolean;
  limit?: number;
  contextLimit?: number;
  error?: string;
  errorFile?: string;
  maxBytes?: number;
  target?: number;
  strategy?: string;
  keepTurns?: number;
  keepSteps?: number;
  maxOutputChars?: number;
  dryRun?: boolean;
  force?: boolean;
  verbose?: boolean;
}

function parseRatio(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || n > 1) throw new RecoverError("usage", `--target takes a ratio above 0 and at most 1, got ${JSON.stringify(value)}`);
  return n;
}

function parseOutputChars(value: string): number {
  const n = parsePositiveInt("--max-output-chars")(value);
  if (n < MIN_OUTPUT_CHARS)
    throw new RecoverError("usage", `--max-output-chars must be at least ${MIN_OUTPUT_CHARS} (room for the truncation marker and some output), got ${n}`);
  return n;
}

/** Strategy names as the user may give them (the dedupe rule's id is accepted too). */
const ALIASES: Record<string, string> = { "dedupe-outputs": "dedupe" };

function parseStrategies(list: string | undefined): Set<string> {
  if (list === undefined) return new Set(STRATEGIES);
  const wanted = list
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => ALIASES[s] ?? s);
  const unknown = wanted.filter((s) => !(STRATEGIES as readonly string[]).includes(s));
  if (unknown.length > 0) throw new RecoverError("usage", `unknown strategy ${unknown.join(", ")} (expected: ${STRATEGIES.join(", ")})`);
  return new Set(wanted);
}

export function addContextTrim(program: Command): void {
  const context = program
    .command("context")
    .description(TOP_COMMAND_SUMMARIES.context.description)
    .addHelpText(
      "after",
      `
Examples:
  recover context trim ses_52f1 --dry-run                    what trim would take off, as diffs
  pbpaste | recover context trim ses_52f1 --error - --yes    the limit from the provider's "prompt is too long"
  recover context trim --last --limit 128000`,
    );
  context
    .command("trim")
    .description("shrink a session over the model's window: truncate, prune, dedupe, drop old turns — all undoable")
    .argument("[id]", "session id or unique prefix")
    .option("--last", "the most recently updated session")
    .option("--limit <tokens>", "the model's window (default: from --error, else the error stored on the session, else 200,000)", parsePositiveInt("--limit"))
    .option("--context-limit <tokens>", "same as --limit", parsePositiveInt("--context-limit"))
    .option("--error <text>", "the provider's error text (or - for stdin): the limit is read from it")
    .option("--error-file <path>", "read the provider's error text from a file")
    .option("--max-bytes <n>", "a byte budget instead (HTTP 413 request_too_large; default 30,000,000 with such an error)", parsePositiveInt("--max-bytes"))
    .option("--target <ratio>", "trim until the estimate is at most this share of the limit", parseRatio, DEFAULT_TARGET)
    .option("--strategy <list>", `strategies allowed, in this order: ${STRATEGIES.join(",")}`)
    .option(
      "--keep-turns <n>",
      "take from the last N turns only once older turns gave all they could (0: no such protection)",
      parseCount("--keep-turns"),
      DEFAULT_KEEP_TURNS,
    )
    .option("--keep-steps <n>", "the last N assistant steps, with their tool results, stay byte-identical", parseCount("--keep-steps"), INTACT_STEPS)
    .option(
      "--max-output-chars <n>",
      `truncate-outputs keeps this many characters of a long output (at least ${MIN_OUTPUT_CHARS})`,
      parseOutputChars,
      DEFAULT_RULE_OPTIONS.maxOutputChars,
    )
    .option("--dry-run", "show the plan, write nothing; exit 1 when there is something to trim")
    .option("--force", "write even while another process holds the store open or the session was written within 60 s")
    .option("--keep-thinking", "refuse (exit 3) a trim that must drop thinking a current Claude model bound to what it changes")
    .option("--verbose", "also say how the token figures were estimated (the calibration against the counts stored or given)")
    .addHelpText(
      "after",
      `
Examples:
  recover context trim ses_52f1 --dry-run
  pbpaste | recover context trim ses_52f1 --error - --yes
  recover context trim --last --limit 128000 --strategy truncate-outputs,prune-old-outputs

Every removed byte is kept in the backup; \`recover session restore <backup-id>\` brings it all back.
With no session id at a terminal, pick the session from a searchable list (newest first).
Exit codes: 0 trimmed (or nothing to do), 1 dry run with changes / still over the target / not confirmed,
2 usage or input error, 3 refused for safety.`,
    )
    .action(
      action<TrimFlags>(({ args, options, io }) => {
        if (options.limit !== undefined && options.contextLimit !== undefined) throw new RecoverError("usage", "give --limit or --context-limit, not both");
        const strategies = parseStrategies(options.strategy);
        const errorText = readErrorText(options.error, options.errorFile, io.readInput);
        return withSessions(
          options,
          io,
          { ids: args, ...(options.last ? { last: true } : {}), emptyMeansAll: false, acceptsAll: false, verb: "trim" },
          async (store, [id]) => {
            const now = Date.now();
            const records = store.loadSession(id!, "full");
            markPhase("loaded");
            // --last chose it: say which, before anything else (a person checks they meant that one).
            if (options.last && !io.json && !io.quiet)
              io.err(`${io.color.dim(`--last: session ${safeValue(id!)} (${safeValue(records.summary.title || "untitled")})`)}\n`);
            const view = sessionView(records, { now, liveWindowMs: DEFAULT_RULE_OPTIONS.liveWindowMs });
            // The limit an error states holds whatever happened since; only its positions go stale.
            const stored = storedError(view, { evenIfAnswered: true });
            // Else the newest overflow a transcript's client stored with its count (openclaw's refused turn).
            const error: ClassifiedError | undefined =
              errorText !== undefined ? classifyProviderError(errorText) : stored ? classifyProviderError(stored) : storedOverflow(view);
            if (errorText !== undefined && error && error.kind !== "context_overflow" && error.kind !== "request_too_large") {
              throw new RecoverError(
                "usage",
                `that error is ${error.kind}, not a context or size error; try \`${io.command(["session", "repair", id!, "--error", "-"])}\``,
              );
            }
            const limit = options.limit ?? options.contextLimit ?? error?.tokens?.max ?? DEFAULT_LIMIT;
            const bytes = options.maxBytes ?? (error?.kind === "request_too_large" ? byteBudgetOf(errorText ?? JSON.stringify(stored)) : undefined);
            const state = stateDir(io.env);
            const recalled = recalledCalibration(state, store.info.path, id!);
            // The size an error states is the truth for the request it refused: an error given now wins over a trim's
            // remembered calibration, which wins over one stored on the session (it may predate that trim).
            const counted = error?.tokens?.current;
            // The same error again (its count is what the previous trim was measured against) is no news: that trim's
            // calibration stands, or its savings would count as overhead.
            const fresh = counted !== undefined && counted !== recalled?.counted;
            const calibration: Calibration =
              fresh && (errorText !== undefined || recalled === undefined)
                ? calibrateToCount(view, counted, errorText !== undefined ? "the error counted" : "the error stored on the session counted")
                : recalled !== undefined
                  ? {
                      ...recalled,
                      method: `characters / 4, calibrated ×${recalled.factor.toFixed(2)}${recalled.overhead ? ` plus ${formatCount(recalled.overhead)} tokens outside the messages` : ""} as by the previous trim of this session`,
                    }
                  : calibrate(view);
            const request: TrimRequest = {
              limit,
              target: options.target ?? DEFAULT_TARGET,
              keepTurns: options.keepTurns ?? DEFAULT_KEEP_TURNS,
              keepSteps: options.keepSteps ?? INTACT_STEPS,
              maxOutputChars: options.maxOutputChars ?? DEFAULT_RULE_OPTIONS.maxOutputChars,
              strategies,
              calibration,
              ...(bytes !== undefined ? { maxBytes: bytes } : {}),
            };
            const trim = trimOptions(request);
            const plan = planSession(
              records,
              store.fixing,
              { ...DEFAULT_RULE_OPTIONS, now, rules: TRIM_RULES, trim, ...(options.keepThinking ? { keepThinking: true } : {}) },
              view,
            );
            markPhase("planned");
            if (plan.changes.length > 0 && !options.dryRun) refuseMostlyUnreadable(records, options.force);
            const summary = trimSummary(view, plan, request, trim, io.command(["context", "trim", id!]));
            if (options.verbose) summary.verbose = true;
            // A trim that leaves the request over the limit itself (not only the target) is refused again. Partial
            // progress is still written (all of it in the backup), but not when it takes thinking: signed reasoning
            // would be lost for nothing, where the advice's trim may keep it (measured: the oversized output in the
            // last step, docs/research/claude-code-prefix-thinking.md).
            const overLimit = summary.bytes ? summary.bytes.after > summary.bytes.max : summary.tokens.after > summary.tokens.limit;
            const takesThinking = plan.changes.some((c) => c.rules.includes(BOUND_THINKING_ID) || c.rules.includes("strip-old-thinking"));
            if (overLimit && takesThinking && !options.dryRun) {
              const over = summary.bytes
                ? `${formatCount(summary.bytes.after)} > ${formatCount(summary.bytes.max)} bytes`
                : `${formatCount(summary.tokens.after)} > ${formatCount(summary.tokens.limit)} tokens`;
              summary.unwritten = `the trimmed request would still be over the limit (${over}) and the plan takes thinking for nothing`;
            }
            const written = summary.unwritten === undefined && !options.dryRun;
            const code = await reportAndWrite(store, io, written ? options : { ...options, dryRun: true }, [{ plan, sessionRef: records.sessionRef }], {
              command: "trim",
              showAll: true,
              extra: (report) => (report.trim = summary),
            });
            if (code !== 2 && code !== 3 && written && plan.changes.length > 0) rememberCalibration(state, store.info.path, id!, request.calibration);
            return summary.stillOver && code === 0 ? 1 : code;
          },
        );
      }),
    );
}
