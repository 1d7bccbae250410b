/**
 * `recover battle resume <taskId> [--strategy …] [--instructions <text>] [--run] [--claude <path>]` and
 * `recover battle fix <taskId> [--verify] [--continue] [--run]`.
 *
 * Without --run: the exact claude command is printed, the prompt in it, and nothing is written (exit 0). With
 * --run: the prompt is kept in `.pokeralph/battles/<taskId>/resume-prompt-<n>.md` and one iteration runs as pokeralph
 * runs it (run-iteration.ts), or, when a pokeralph server answers for the repository, the battle is handed to it
 * (POST /api/battle/start/<taskId>). The battle's mode decides how claude runs: yolo unattended, hitl interactive.
 */
import { DOCUMENT_HEAD } from "../json-output.js";
import type { Command } from "commander";
import { ExitCode, RecoverError } from "../../errors.js";
import { changesSinceCheckpoint, type ManualFixState } from "../../battle/manual-fix.js";
import {
  assessForResume,
  buildResume,
  commandLine,
  failedRetryCount,
  handOffToServer,
  rollbackForRetry,
  writePromptFile,
  type Assessed,
  type PreparedResume,
} from "../../battle/resume.js";
import {
  claudeArgs,
  claudeCommand,
  packageManager,
  runFeedbackLoops,
  runIteration,
  type BattleMode,
  type IterationOutcome,
} from "../../battle/run-iteration.js";
import { httpProbe, pokeralphBaseUrl, type ServerAnswer } from "../../battle/server-probe.js";
import { findExecutable } from "../../fs/find-executable.js";
import type { FeedbackResults } from "../../stores/pokeralph/schemas.js";
import { stateDir } from "../../txn/state-dir.js";
import { action, commandIn } from "../command-kit.js";
import type { GlobalOptions, Io } from "../io.js";
import { confirmChange, runBackupRoot } from "../mutation.js";
import { clearStale } from "./battle-clear-stale.js";

interface ResumeFlags {
  repo?: string;
  strategy?: string;
  instructions?: string;
  run?: boolean;
  claude?: string;
  mode?: BattleMode;
}

interface FixFlags {
  clearStale?: string;
  dryRun?: boolean;
  force?: boolean;
  mode?: BattleMode;
  repo?: string;
  verify?: boolean;
  continue?: boolean;
  run?: boolean;
  claude?: string;
  instructions?: string;
}

const REPO_HELP = "the repository holding .pokeralph/ (default: the first one upward from the cwd)";
const MODE_HELP =
  "how claude runs: yolo (unattended, --dangerously-skip-permissions --print) or hitl (an interactive session that asks before each tool call); default: config.json's mode";

/** A hitl iteration is a person approving claude's tool calls: there must be a person at a terminal. */
function refuseHitlWithoutTerminal(io: Io, mode: BattleMode, taskId: string): void {
  if (mode !== "hitl" || io.interactive) return;
  throw new RecoverError(
    "usage",
    `${taskId} is a hitl battle: claude asks before each tool call, so --run needs a terminal (and no --json); run it at one, or pass --mode yolo to run unattended with --dangerously-skip-permissions`,
  );
}

function parseMode(value: string): BattleMode {
  if (value === "hitl" || value === "yolo") return value;
  throw new RecoverError("usage", `--mode takes hitl or yolo, got ${JSON.stringify(value)}`);
}

export function addBattleResume(battle: Command): void {
  battle
    .command("resume")
    .description("resume a failed or crashed battle: choose the strategy, build the retry prompt, print or run one iteration")
    .argument("<taskId>", "the battle's task id (or a unique prefix)")
    .option("--strategy <name>", "retry_same | retry_with_context | rollback_and_retry | continue_next | manual_then_continue (default: from the failure)")
    .option("--instructions <text>", "added to the prompt as ## Additional Instructions")
    .option("--run", "run one iteration now (claude, feedback loops, history.json, checkpoint) instead of printing the command")
    .option("--claude <path>", "the claude executable (default: $CLAUDE_PATH, else claude on PATH)")
    .option("--mode <mode>", MODE_HELP, parseMode)
    .option("--repo <dir>", REPO_HELP)
    .addHelpText(
      "after",
      `
Examples:
  recover battle resume 002-auth-system                       print the claude command for the default strategy
  recover battle resume 002 --strategy retry_with_context --instructions "narrow the header type" --run --yes
  recover battle resume 003 --strategy rollback_and_retry --run --yes

The timeout is config.timeoutMinutes (default 30). When a pokeralph server answers for the repository
(http://localhost:$PORT, PORT defaulting to 3456), --run hands the battle to it instead of running beside it.

Exit codes: 0 done (or command printed), 1 the iteration failed, 2 usage error or strategy not allowed, 3 refused.`,
    )
    .action(
      action<ResumeFlags>(async ({ args, options, io }) => {
        const env = io.env;
        const assessed = await assessForResume({
          taskId: args[0]!,
          cwd: io.cwd,
          ...(options.repo !== undefined ? { repo: options.repo } : {}),
          ...(options.strategy !== undefined ? { strategy: options.strategy } : {}),
          env,
        });
        let manualFix: ManualFixState | undefined;
        const notices: string[] = [];
        let current = assessed;
        if (assessed.choice.strategy === "rollback_and_retry" && options.run) {
          refuseHitlWithoutTerminal(io, options.mode ?? assessed.assessment.config.mode, assessed.battle.taskId);
          await confirmChange(io, options, `${assessed.battle.taskId}: roll back the failed iteration, then run a retry`);
          const previous = failedRetryCount(assessed.battle);
          notices.push(
            ...(await rollbackForRetry(
              assessed.assessment.repo.root,
              assessed.battle,
              { stateDir: stateDir(env), backupRoot: runBackupRoot(options, io) },
              commandIn(io, assessed.assessment.repo.root),
            )),
          );
          current = await assessForResume({ taskId: assessed.battle.taskId, repo: assessed.assessment.repo.root, cwd: io.cwd, env });
          // The rollback changed the failure (or cleared it): keep the strategy and the failure it answered.
          current = { ...current, battle: { ...current.battle, failure: assessed.battle.failure }, choice: assessed.choice };
          return proceed(io, options, current, { previousRetryCount: previous, notices });
        }
        if (assessed.choice.strategy === "rollback_and_retry") {
          notices.push(
            `rollback_and_retry: --run first rolls back iteration ${assessed.battle.failure?.iteration ?? "?"} (recover battle rollback), then runs this prompt`,
          );
        }
        if (assessed.choice.strategy === "manual_then_continue") {
          manualFix = await changesSinceCheckpoint(assessed.assessment.repo.root, assessed.battle.taskId);
        }
        return proceed(io, options, current, { manualFix, notices });
      }),
    );
}

export function addBattleFix(battle: Command): void {
  battle
    .command("fix")
    .description("manual fix of a battle: what changed since the latest checkpoint, verify it, continue with it; or clear a stale ralph loop")
    .argument("[taskId]", "the battle's task id (or a unique prefix)")
    .option("--clear-stale <loop>", "set a stale Claude Code ralph loop inactive (its id from `recover battle status`, or its file), backed up")
    .option("--dry-run", "with --clear-stale: show the change, write nothing; exit 1 when there is one")
    .option("--force", "with --clear-stale: even while the loop's session runs")
    .option("--verify", "run the feedback loops and show ✓/✗ (exit 1 when one fails)")
    .option("--continue", "resume with the ## Manual Fix Applied context (prints the command; add --run to run it)")
    .option("--run", "with --continue: run the iteration now")
    .option("--claude <path>", "the claude executable (default: $CLAUDE_PATH, else claude on PATH)")
    .option("--instructions <text>", "added to the prompt as ## Additional Instructions")
    .option("--mode <mode>", MODE_HELP, parseMode)
    .option("--repo <dir>", REPO_HELP)
    .addHelpText(
      "after",
      `
Examples:
  recover battle fix 002-auth-system                 list and diff what changed since the latest checkpoint
  recover battle fix 002 --verify                    run the feedback loops on the fixed tree
  recover battle fix 002 --verify --continue --run --yes
  recover battle fix --clear-stale 6f1c2d9e-4b7a-4e21-9c3f-2a8d5e0b7c41 --yes

Exit codes: 0 ok, 1 a feedback loop failed (--verify) or the iteration failed, 2 usage error, 3 refused (the
ralph loop's session is running).`,
    )
    .action(
      action<FixFlags>(async ({ args, options, io }) => {
        if (options.clearStale !== undefined) return clearStale(io, options, options.clearStale);
        if (args[0] === undefined) throw new RecoverError("usage", "battle fix needs a task id (or --clear-stale <loop>)");
        const assessed = await assessForResume({
          taskId: args[0]!,
          cwd: io.cwd,
          ...(options.repo !== undefined ? { repo: options.repo } : {}),
          strategy: undefined,
          env: io.env,
        });
        const root = assessed.assessment.repo.root;
        const taskId = assessed.battle.taskId;
        const state = await changesSinceCheckpoint(root, taskId);
        let verify: FeedbackResults | undefined;
        if (options.verify) verify = await runFeedbackLoops(root, assessed.assessment.config.feedbackLoops, { env: io.env });
        const verified = verify === undefined ? null : Object.values(verify).every((r) => r.passed);

        if (!options.continue) {
          if (io.json) {
            io.out(`${JSON.stringify({ ...DOCUMENT_HEAD, taskId, ...fixJson(state), ...(verify ? { verification: verify, verified } : {}) })}\n`);
          } else {
            printFix(io, taskId, state);
            if (verify) printFeedback(io, verify);
          }
          return verified === false ? ExitCode.findings : ExitCode.ok;
        }
        if (verified === false) {
          if (!io.json) {
            printFix(io, taskId, state);
            printFeedback(io, verify!);
          }
          throw new RecoverError("fix-failed", `the feedback loops still fail: fix them before --continue (or drop --verify to continue anyway)`);
        }
        // Continuing after a manual fix is the manual_then_continue strategy whatever the failure's default.
        const failure = assessed.battle.failure;
        const current: Assessed = { ...assessed, choice: { strategy: "manual_then_continue", allowed: assessed.choice.allowed, defaulted: false } };
        if (failure === null && !io.json) io.note(`${taskId} has no recorded failure; continuing with the manual changes anyway`);
        if (!io.json) printFix(io, taskId, state);
        if (verify && !io.json) printFeedback(io, verify);
        return proceed(io, { ...options, ...(options.instructions !== undefined ? { instructions: options.instructions } : {}) }, current, {
          manualFix: state,
          notices: [],
        });
      }),
    );
}

interface ProceedExtras {
  manualFix?: ManualFixState | undefined;
  previousRetryCount?: number;
  notices: string[];
}

async function proceed(
  io: Io,
  options: GlobalOptions & { run?: boolean; claude?: string; instructions?: string; mode?: BattleMode },
  assessed: Assessed,
  extras: ProceedExtras,
): Promise<number> {
  const env = io.env;
  const root = assessed.assessment.repo.root;
  const pm = packageManager(root);
  const issue = assessed.battle.failure?.message ?? `${assessed.battle.taskId} needed a manual fix`;
  const prepared = buildResume(assessed, {
    ...(options.instructions !== undefined ? { instructions: options.instructions } : {}),
    ...(extras.manualFix ? { manualFix: { issue, changes: extras.manualFix.changes } } : {}),
    ...(extras.previousRetryCount !== undefined ? { previousRetryCount: extras.previousRetryCount } : {}),
    ...(options.mode !== undefined ? { mode: options.mode } : {}),
    packageManager: pm,
  });
  const claude = claudeCommand(options.claude, env);
  const server = await httpProbe({ env })(root);

  if (!options.run) {
    // Printing writes nothing: the command carries the prompt itself.
    const command = commandLine(prepared, claude);
    const handOff = server.kind === "live" ? `curl -X POST ${pokeralphBaseUrl(env)}/api/battle/start/${prepared.taskId}` : null;
    if (io.json) {
      io.out(
        `${JSON.stringify({ ...baseJson(prepared, extras), promptFile: null, action: "print", command, server: serverJson(server), ...(handOff ? { handOff } : {}) })}\n`,
      );
    } else {
      printHeader(io, prepared, extras);
      if (handOff) {
        io.out(
          `A pokeralph server runs this repository (${server.url}): let it continue the battle rather than run beside it:\n  ${handOff}\n(or add --run). To run the iteration yourself instead, stop the server first.\n`,
        );
      } else {
        const how =
          prepared.mode === "hitl"
            ? "an interactive claude session: it asks before each tool call (hitl)"
            : "claude unattended, every tool call allowed (yolo)";
        io.out(`Run (${how}):\n  ${command}\n(or add --run to run it, record the iteration and checkpoint it)\n`);
      }
    }
    return ExitCode.ok;
  }

  if (server.kind === "live") {
    if (server.current && server.current.taskId !== prepared.taskId && server.current.status === "running") {
      throw new RecoverError(
        "live-writer",
        `pokeralph at ${server.url} is running battle ${server.current.taskId}: it runs one battle at a time; wait for it or stop it`,
      );
    }
    if (server.current && server.current.taskId === prepared.taskId) {
      throw new RecoverError("live-writer", `pokeralph at ${server.url} is already running ${prepared.taskId}: nothing to resume`);
    }
    await confirmChange(io, options, `${prepared.taskId}: ask pokeralph at ${server.url} to start the battle`);
    const sent = await handOffToServer(prepared.taskId, env);
    if (io.json) io.out(`${JSON.stringify({ ...baseJson(prepared, extras), action: "handed-to-server", server: serverJson(server), handOff: sent })}\n`);
    else {
      printHeader(io, prepared, extras);
      io.out(
        `pokeralph runs this repository (${server.url}): handed the battle to it (POST ${sent.url} → HTTP ${sent.status}) instead of running claude beside it.\n`,
      );
      io.out(
        `Note: pokeralph builds its own prompt (the ${prepared.strategy} context is not passed on); follow it with ${commandIn(io, prepared.root)(["battle", "status", prepared.taskId])}.\n`,
      );
    }
    if (!sent.ok) throw new RecoverError("fix-failed", `pokeralph refused to start ${prepared.taskId}: HTTP ${sent.status} ${sent.body}`);
    return ExitCode.ok;
  }

  refuseHitlWithoutTerminal(io, prepared.mode, prepared.taskId);
  if (claude.length === 1 && findExecutable(claude[0]!, env) === null) {
    throw new RecoverError("usage", `claude not found (${claude[0]}): pass --claude <path> or set CLAUDE_PATH`);
  }
  if (!(assessed.choice.strategy === "rollback_and_retry"))
    await confirmChange(io, options, `${prepared.taskId}: run iteration ${prepared.iteration.number} with claude and record it`);
  writePromptFile(prepared);
  const override = Number(env.RECOVER_CLAUDE_TIMEOUT_MS);
  const timeoutMs = Number.isFinite(override) && override > 0 ? override : prepared.timeoutMinutes * 60_000;
  if (!io.json) {
    printHeader(io, prepared, extras);
    io.out(
      `Running iteration ${prepared.iteration.number}: ${[...claude, ...claudeArgs(prepared.mode)].join(" ")} <prompt> (timeout ${Math.round(timeoutMs / 1000)} s)\n`,
    );
  }
  const outcome = await runIteration({
    root,
    taskId: prepared.taskId,
    iteration: prepared.iteration,
    prompt: prepared.prompt,
    claude,
    mode: prepared.mode,
    feedbackLoops: prepared.feedbackLoops,
    timeoutMs,
    env,
    stateDir: stateDir(env),
    ...(io.json ? {} : { onFeedback: (name: string, r: { passed: boolean }) => io.out(`  ${r.passed ? "✓" : "✗"} ${pm} run ${name}\n`) }),
  });
  if (io.json) io.out(`${JSON.stringify({ ...baseJson(prepared, extras), action: "ran", server: serverJson(server), outcome: outcomeJson(outcome) })}\n`);
  else printOutcome(io, outcome);
  return outcome.iteration.result === "success" ? ExitCode.ok : ExitCode.findings;
}

// ---------------------------------------------------------------------------------------------------------------
// Output
// ---------------------------------------------------------------------------------------------------------------

function baseJson(prepared: PreparedResume, extras: ProceedExtras): Record<string, unknown> {
  return {
    ...DOCUMENT_HEAD,
    taskId: prepared.taskId,
    strategy: prepared.strategy,
    defaulted: prepared.defaulted,
    allowedStrategies: prepared.allowed,
    failure: prepared.failure,
    iteration: { number: prepared.iteration.number, retryCount: prepared.iteration.retryCount ?? null },
    promptFile: prepared.promptFile,
    mode: prepared.mode,
    prompt: prepared.prompt,
    ...(extras.manualFix ? { manualFix: fixJson(extras.manualFix) } : {}),
    notices: extras.notices,
  };
}

function fixJson(state: ManualFixState): Record<string, unknown> {
  return {
    checkpoint: state.checkpoint ? { id: state.checkpoint.id, afterIteration: state.checkpoint.afterIteration, commit: state.checkpoint.commit } : null,
    base: state.base,
    changes: state.changes,
    diff: state.diff,
    notices: state.notices,
  };
}

function serverJson(server: ServerAnswer): Record<string, unknown> {
  return { kind: server.kind, url: server.url };
}

function outcomeJson(outcome: IterationOutcome): Record<string, unknown> {
  return {
    iteration: { ...outcome.iteration, output: undefined },
    log: outcome.log,
    timedOut: outcome.timedOut,
    exitCode: outcome.exitCode,
    feedback: outcome.feedback,
    historyStatus: outcome.historyStatus,
    checkpoint: outcome.checkpoint
      ? { id: outcome.checkpoint.checkpoint.id, ref: outcome.checkpoint.checkpoint.ref, commit: outcome.checkpoint.checkpoint.commit }
      : null,
    ...(outcome.checkpointError ? { checkpointError: outcome.checkpointError } : {}),
  };
}

function printHeader(io: Io, prepared: PreparedResume, extras: ProceedExtras): void {
  const f = prepared.failure;
  io.out(`${prepared.taskId}: ${f ? `${f.type} in iteration ${f.iteration} (${f.message})` : "no recorded failure"}\n`);
  io.out(`Strategy: ${prepared.strategy}${prepared.defaulted ? " (default for this failure)" : ""}; allowed: ${prepared.allowed.join(", ")}\n`);
  io.out(
    `Next iteration: ${prepared.iteration.number}${prepared.iteration.retryCount !== undefined ? ` (retryCount ${prepared.iteration.retryCount})` : ""}\n`,
  );
  for (const n of extras.notices) io.out(`note: ${n}\n`);
}

function printFix(io: Io, taskId: string, state: ManualFixState): void {
  const cp = state.checkpoint;
  io.out(
    `${taskId}: changes since ${cp ? `checkpoint ${cp.id} (after iteration ${cp.afterIteration}, ${cp.commit.slice(0, 7)})` : `HEAD ${state.base.slice(0, 7)}`}\n`,
  );
  for (const n of state.notices) io.out(`note: ${n}\n`);
  if (state.changes.length === 0) io.out("  no changes\n");
  for (const c of state.changes) io.out(`  ${c.type.padEnd(8)} ${c.path}\n`);
  if (state.diff) io.out(`\n${state.diff}${state.diff.endsWith("\n") ? "" : "\n"}`);
}

function printFeedback(io: Io, results: FeedbackResults): void {
  io.out("Feedback loops:\n");
  for (const [name, r] of Object.entries(results)) {
    io.out(`  ${r.passed ? "✓" : "✗"} ${name}${r.duration !== undefined ? ` (${r.duration} ms)` : ""}\n`);
    if (!r.passed && r.output)
      io.out(
        `${r.output
          .split("\n")
          .slice(-10)
          .map((l) => `      ${l}`)
          .join("\n")}\n`,
      );
  }
}

function printOutcome(io: Io, outcome: IterationOutcome): void {
  const it = outcome.iteration;
  io.out(`Iteration ${String(it.number)}: ${String(it.result)}${typeof it.error === "string" ? ` (${it.error})` : ""}\n`);
  io.out(`Log: ${outcome.log}\n`);
  io.out(`history.json: iteration recorded, battle ${outcome.historyStatus}\n`);
  if (outcome.checkpoint) io.out(`Checkpoint: ${outcome.checkpoint.checkpoint.id} (${outcome.checkpoint.checkpoint.ref})\n`);
  else io.out(`Checkpoint not taken: ${outcome.checkpointError}\n`);
}
