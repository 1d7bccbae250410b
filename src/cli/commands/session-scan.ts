/**
 * `recover session scan`: read-only; every selected session through the rule engine, findings to a reporter.
 */
import type { Command } from "commander";
import { exitCodeOf } from "../exit-codes.js";
import { ExitCode, RecoverError } from "../../errors.js";
import { RULES } from "../../rules/index.js";
import { DEFAULT_RULE_OPTIONS, type Rule } from "../../rules/rule.js";
import { scanSessions } from "../../scan/scan.js";
import { action, errorMessage, parsePositiveInt, withSessions, withStores } from "../command-kit.js";
import type { GlobalOptions, Io } from "../io.js";
import { selectSessions } from "../select-sessions.js";
import type { SessionStore } from "../../stores/store.js";
import type { ScanOptions } from "../../scan/scan.js";
import { humanScanReporter } from "../reporters/scan-human.js";
import { jsonScanReporter } from "../reporters/scan-json.js";
import type { ScanTotals } from "../reporters/scan-reporter.js";
import { plural } from "../../model/format-count.js";
import { sessionProgress } from "../session-progress.js";
import { namedRules } from "../rule-list.js";

interface ScanFlags {
  all?: boolean;
  last?: boolean;
  rule?: string;
  exitZero?: boolean;
  maxOutputChars?: number;
  contextLimit?: number;
  includeLive?: boolean;
}

export function selectRules(list: string | undefined): readonly Rule[] {
  return list === undefined ? RULES : namedRules(list);
}

/** `--include-live`: no window, so no last turn counts as being written and every one is judged. */
export function liveWindow(includeLive: boolean | undefined): number {
  return includeLive ? 0 : DEFAULT_RULE_OPTIONS.liveWindowMs;
}

export function addSessionScan(session: Command): void {
  session
    .command("scan")
    .description("detect every known corruption in sessions, read-only (no ids = all sessions)")
    .argument("[ids...]", "session ids or unique prefixes")
    .option("--all", "scan every session (the default when none is named; --json lists clean ones too)")
    .option("--last", "scan the most recently updated session")
    .option("--rule <ids>", "only these rules (comma-separated)")
    .option("--exit-zero", "report findings but exit 0")
    .option("--max-output-chars <n>", "oversized-tool-output threshold", parsePositiveInt("--max-output-chars"), DEFAULT_RULE_OPTIONS.maxOutputChars)
    .option(
      "--context-limit <tokens>",
      "the model's context window for context-overflow",
      parsePositiveInt("--context-limit"),
      DEFAULT_RULE_OPTIONS.contextLimit,
    )
    .option("--include-live", "also judge a last turn written in the last 10 minutes (left alone by default: its agent may be writing it)")
    .addHelpText(
      "after",
      `
Examples:
  recover session scan                      scan every session in opencode's default store
  recover session scan ses_52f1 --json      one session (unique prefix), machine-readable
  recover session scan --all --store ~/.local/share/opencode --rule empty-text-part,trailing-thinking
  recover session scan --last --exit-zero   report on the newest session without failing

With no session id at a terminal, a searchable list of the sessions (newest first, with their error findings)
lets you pick one, or all; without a terminal, no id means every session.

Exit codes: 0 no error finding, 1 error findings, 2 usage or input error, 3 refused for safety.`,
    )
    .action(
      action<ScanFlags>(({ args, options, io }) => {
        const rules = selectRules(options.rule);
        const scanOptions = {
          rules,
          maxOutputChars: options.maxOutputChars ?? DEFAULT_RULE_OPTIONS.maxOutputChars,
          contextLimit: options.contextLimit ?? DEFAULT_RULE_OPTIONS.contextLimit,
          liveWindowMs: liveWindow(options.includeLive),
          env: io.env,
        };
        const named = args.length > 0 || options.last === true;
        // No store and no session named: every agent's store found, in one report with one exit code.
        if (!named && options.store === undefined && options.format === undefined && (options.all === true || !io.interactive)) {
          return withStores(options, io, (found) =>
            scanStores(
              found.map((f) => ({ agent: f.agent, store: f.store, ids: selectSessions(f.store, { ids: [], all: true }, { emptyMeansAll: true }) })),
              scanOptions,
              options,
              io,
            ),
          );
        }
        return withSessions(
          options,
          io,
          { ids: args, ...(options.all ? { all: true } : {}), ...(options.last ? { last: true } : {}), emptyMeansAll: true, verb: "scan" },
          async (store, ids) => {
            const { storeAdapter } = await import("../../stores/registry.js");
            return scanStores([{ agent: storeAdapter(store.info.format)?.agent ?? store.info.format, store, ids }], scanOptions, options, io);
          },
        );
      }),
    );
}

/**
 * Scan the chosen sessions of each store, store after store, into one report: findings as they come, one summary,
 * one exit code. While a store's sessions are reported, the commands printed for them name that store.
 */
async function scanStores(
  stores: readonly { agent: string; store: SessionStore; ids: string[] }[],
  scanOptions: Omit<ScanOptions, "now">,
  options: ScanFlags & GlobalOptions,
  io: Io,
): Promise<number> {
  const now = Date.now();
  const reporter = io.json ? jsonScanReporter(io) : humanScanReporter(io, now, options.rule);
  const totals: ScanTotals = { sessions: 0, sessionsWithFindings: 0, findings: 0, errors: 0, warnings: 0 };
  const progress = await sessionProgress(
    io,
    "scanning",
    stores.flatMap((s) => s.ids),
  );
  const scanned = stores.map((s) => ({ agent: s.agent, info: s.store.info }));
  reporter.start(scanned);
  const named = options.store;
  try {
    for (const [i, { store, ids }] of stores.entries()) {
      // Commands printed for this store's findings name it, as --store would.
      if (stores.length > 1) options.store = store.info.path;
      for await (const result of scanSessions(store, ids, { ...scanOptions, now })) {
        totals.sessions++;
        if (result.findings.length > 0) totals.sessionsWithFindings++;
        totals.findings += result.findings.length;
        for (const f of result.findings) f.severity === "error" ? totals.errors++ : totals.warnings++;
        progress.done(plural(totals.findings, "finding"));
        reporter.session(result, scanned[i]!);
      }
    }
  } catch (error) {
    progress.stop();
    if (error instanceof RecoverError && reporter.abort) {
      reporter.abort({ code: error.code, message: errorMessage(error, io) });
      if (!io.json) io.err(`recover: ${errorMessage(error, io, true)}\n`);
      return exitCodeOf(error);
    }
    throw error;
  } finally {
    options.store = named;
  }
  progress.stop();
  reporter.end(totals);
  return totals.errors > 0 && !options.exitZero ? ExitCode.findings : ExitCode.ok;
}
