/**
 * `recover battle rollback <taskId> (--iteration N | --to-checkpoint <id> | --full) [--hard] [--dry-run]`: show
 * what goes back (files restored, files created since that stay or go, iterations rolled back, the state diffs),
 * stop for a dry run (exit 1 when there is something to roll back), refuse while pokeralph runs the battle, ask,
 * take a safety checkpoint, restore the files, rewrite history.json + checkpoints.json in a backed-up transaction.
 */
import type { Command } from "commander";
import { colourDiffLine } from "../reporters/change-human.js";
import { assessBattles } from "../../battle/assess.js";
import { applyRollback, hasChanges, planRollback, type RollbackMode, type RollbackOutcome, type RollbackPlan, type StateFile } from "../../battle/rollback.js";
import { ExitCode, RecoverError } from "../../errors.js";
import { unifiedDiff } from "../../plan/diff.js";
import { stateDir } from "../../txn/state-dir.js";
import { action, commandIn, parsePositiveInt } from "../command-kit.js";
import type { GlobalOptions, Io } from "../io.js";
import { DOCUMENT_HEAD } from "../json-output.js";
import { confirmChange, runBackupRoot } from "../mutation.js";
import { applyUndo, planUndo } from "../../battle/undo-rollback.js";
import { restoreCommand } from "../write-plans.js";

interface RollbackFlags {
  undo?: boolean;
  iteration?: number;
  toCheckpoint?: string;
  full?: boolean;
  hard?: boolean;
  dryRun?: boolean;
  force?: boolean;
  repo?: string;
}

function modeOf(options: RollbackFlags): RollbackMode {
  const given = [options.iteration !== undefined, options.toCheckpoint !== undefined, options.full === true].filter(Boolean).length;
  if (given !== 1) throw new RecoverError("usage", "give exactly one of --iteration N, --to-checkpoint <id>, --full, --undo");
  if (options.iteration !== undefined) return { kind: "iteration", iteration: options.iteration };
  if (options.toCheckpoint !== undefined) return { kind: "checkpoint", id: options.toCheckpoint };
  return { kind: "full" };
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function stateDiff(file: StateFile, taskId: string): string {
  if (file.before === file.after || file.after === null) return "";
  return unifiedDiff({ record: "file", id: file.id, sessionId: taskId, path: file.path }, file.before ?? "", file.after);
}

function printPlan(io: Io, plan: RollbackPlan): void {
  const c = io.color;
  for (const notice of plan.notices) io.note(notice);
  const t = plan.target;
  io.out(
    `${c.bold(`rollback ${plan.taskId}`)} to ${t.checkpoint} (${t.afterIteration === 0 ? "before the battle" : `after iteration ${t.afterIteration}`}, ${t.commit.slice(0, 7)}): ${t.description}\n`,
  );
  const f = plan.files;
  io.out(`\nfiles restored from the checkpoint (${f.restored.length}):\n`);
  for (const p of f.restored) io.out(`  ${c.green("restore")} ${p}\n`);
  if (f.createdSince.length > 0) {
    io.out(`\nfiles created since the checkpoint (${f.createdSince.length}): ${plan.hard ? c.red("deleted (--hard)") : "kept (pass --hard to delete them)"}\n`);
    for (const p of f.createdSince) io.out(`  ${plan.hard ? c.red("delete ") : "keep   "} ${p}\n`);
  }
  for (const s of f.skipped) if (!io.quiet) io.out(`  ${c.dim(`left alone ${s.path}: ${s.reason}`)}\n`);
  io.out(
    `\niterations rolled back: ${plan.iterationsRolledBack.length === 0 ? "none" : `${plan.iterationsRolledBack.join(", ")} (archived in checkpoints.json under rolledBack)`}\n`,
  );
  if (plan.iterationsReinstated.length > 0) io.out(`iterations brought back from the archive: ${plan.iterationsReinstated.join(", ")}\n`);
  if (plan.statusBefore !== plan.statusAfter) io.out(`status: ${plan.statusBefore ?? "-"} → ${plan.statusAfter ?? "-"}\n`);
  if (io.quiet) return;
  const colour = (line: string) => colourDiffLine(c, line);
  for (const file of [plan.history, plan.sidecar]) {
    const diff = stateDiff(file, plan.taskId);
    if (diff === "") continue;
    io.out("\n");
    for (const line of diff.trimEnd().split("\n")) io.out(`${colour(line)}\n`);
  }
  io.out(c.dim(`\na safety checkpoint of the current tree is taken first (refs/pokeralph/safety/${plan.taskId}/…) and recorded in checkpoints.json\n`));
}

function document(plan: RollbackPlan, outcome: RollbackOutcome | null, options: RollbackFlags & { backupDir?: string }, io: Io) {
  const files = outcome?.files ?? plan.files;
  return {
    ...DOCUMENT_HEAD,
    taskId: plan.taskId,
    target: { checkpoint: plan.target.checkpoint, afterIteration: plan.target.afterIteration, commit: plan.target.commit },
    safety: outcome ? { ref: outcome.safety.ref, commit: outcome.safety.commit } : null,
    files: { restored: files.restored, createdSince: files.createdSince, deleted: files.deleted },
    iterationsRolledBack: outcome?.iterationsRolledBack ?? plan.iterationsRolledBack,
    backup: outcome?.backup ? { id: outcome.backup.manifest.id, path: outcome.backup.dir } : null,
    dryRun: options.dryRun === true,
    ...(outcome ? { undo: undoCommand(plan, io) } : {}),
    ...(outcome?.backup ? { undoState: restoreCommand(outcome.backup.manifest.id, io) } : {}),
    status: { before: plan.statusBefore, after: plan.statusAfter },
    ...(plan.iterationsReinstated.length > 0 ? { iterationsReinstated: plan.iterationsReinstated } : {}),
    skipped: files.skipped,
  };
}

function undoCommand(plan: RollbackPlan, io: Io): string {
  return commandIn(io, plan.repo.root)(["battle", "rollback", plan.taskId, "--undo"]);
}

/** `--undo`: the latest rollback's backup put back whole (files and state), after a safety checkpoint. */
async function undo(io: Io, options: RollbackFlags & GlobalOptions, taskIdArg: string): Promise<number> {
  if (options.iteration !== undefined || options.toCheckpoint !== undefined || options.full || options.hard) {
    throw new RecoverError("usage", "--undo takes no --iteration, --to-checkpoint, --full or --hard: it puts back exactly what the last rollback changed");
  }
  const assessed = await assessBattles({ cwd: io.cwd, env: io.env, ...(options.repo !== undefined ? { repo: options.repo } : {}), taskId: taskIdArg });
  const battle = assessed.battles[0];
  if (!battle) throw new RecoverError("invalid-id", `no battle ${taskIdArg} in ${assessed.repo.dir}`);
  const backupRoot = runBackupRoot(options, io);
  const plan = await planUndo(assessed.repo.root, battle.taskId, backupRoot);
  const id = plan.rollback.manifest.id;
  const files = plan.targets.map((t) => ({ path: t.key.id, op: !t.after.exists ? "delete" : !t.before.exists ? "create" : "put back" }));
  const c = io.color;
  if (!io.json) {
    for (const notice of plan.notices) io.note(notice);
    io.out(`${c.bold(`undo the rollback of ${plan.taskId}`)} (backup ${id}, ${plan.rollback.manifest.createdAt}): ${plural(files.length, "file")}\n`);
    for (const f of files) io.out(`  ${f.op === "delete" ? c.red(f.op.padEnd(8)) : c.green(f.op.padEnd(8))} ${f.path}\n`);
    if (plan.conflicts.length > 0) io.out(`${c.yellow("changed since the rollback:")} ${plan.conflicts.join(", ")}\n`);
  }
  const json = (extra: Record<string, unknown>) =>
    io.out(
      `${JSON.stringify({ ...DOCUMENT_HEAD, taskId: plan.taskId, undoes: id, files, conflicts: plan.conflicts, dryRun: options.dryRun === true, ...extra })}\n`,
    );
  if (files.length === 0 || options.dryRun) {
    if (io.json) json({ safety: null, backup: null });
    else
      io.out(
        files.length === 0
          ? `\n${c.green("✔")} nothing to undo: the files are as they were before the rollback\n`
          : `\n${c.yellow("dry run:")} nothing was changed\n`,
      );
    return options.dryRun && files.length > 0 ? ExitCode.findings : ExitCode.ok;
  }
  if (battle.liveness.state === "live" && !options.force) {
    throw new RecoverError("live-writer", `${battle.liveness.detail}: stop or pause it first, or pass --force; nothing was changed`);
  }
  await confirmChange(io, options, `${plan.taskId}: put back ${plural(files.length, "file")} as they were before rollback ${id}`);
  const outcome = await applyUndo(plan, { stateDir: stateDir(io.env), backupRoot, ...(options.force ? { force: true } : {}) });
  const redo = restoreCommand(outcome.backup.manifest.id, io);
  if (io.json) {
    json({ safety: outcome.safety, backup: { id: outcome.backup.manifest.id, path: outcome.backup.dir }, redo });
    return ExitCode.ok;
  }
  io.out(
    `\n${c.green("✔")} undid rollback ${id}: ${plural(outcome.targets.length, "file")} as they were before it (project files, history.json, checkpoints.json)\n`,
  );
  io.out(`safety checkpoint ${c.bold(outcome.safety.ref)} (${outcome.safety.commit.slice(0, 7)})\n`);
  io.out(`redo the rollback with: ${c.bold(redo)}\n`);
  return ExitCode.ok;
}

export function addBattleRollback(battle: Command): void {
  battle
    .command("rollback")
    .description("put a battle back at a checkpoint: files (never the branch or index) and history.json, undoable")
    .argument("<taskId>", "the battle's task id or a unique prefix")
    .option("--iteration <n>", "undo iteration N and everything after it (back to the checkpoint after N-1)", parsePositiveInt("--iteration"))
    .option("--to-checkpoint <id>", "back to this checkpoint (an id, ref or commit from `recover checkpoint list`)")
    .option("--full", "back to before the battle: no iterations, status pending")
    .option("--undo", "undo the battle's last rollback in one step: its files, history.json and checkpoints.json")
    .option("--hard", "also delete files created since the checkpoint (never ignored or never-captured files)")
    .option("--dry-run", "show what would change, change nothing; exit 1 when there is something to roll back")
    .option("--force", "roll back even while a pokeralph server runs this battle (with --undo: also files changed since the rollback, backed up first)")
    .option("--repo <dir>", "the repository holding .pokeralph/ (default: the first one upward from the cwd)")
    .addHelpText(
      "after",
      `
Examples:
  recover battle rollback 002-auth-system --iteration 3 --dry-run
  recover battle rollback 002 --to-checkpoint cp-1770213603402-k3x9a2b --yes
  recover battle rollback 002-auth-system --full --hard
  recover battle rollback 002-auth-system --undo

A safety checkpoint of the current tree is taken first. The files, history.json and checkpoints.json change in one
backed-up transaction (rolled-back iterations are archived in checkpoints.json); --undo, or
\`recover session restore <backup-id>\`, puts all of it back.
Exit codes: 0 rolled back (or nothing to do), 1 dry run with changes / not confirmed, 2 usage or input error
(also: no terminal and no --yes), 3 refused for safety (pokeralph runs the battle, a merge/rebase in progress,
history.json or checkpoints.json is a symbolic link).`,
    )
    .action(
      action<RollbackFlags>(async ({ args, options, io }) => {
        if (options.undo) return undo(io, options, args[0]!);
        const mode = modeOf(options);
        const assessed = await assessBattles({ cwd: io.cwd, env: io.env, ...(options.repo !== undefined ? { repo: options.repo } : {}), taskId: args[0]! });
        const battle = assessed.battles[0];
        if (!battle) throw new RecoverError("invalid-id", `no battle ${args[0]} in ${assessed.repo.dir}`);
        const plan = await planRollback(assessed.repo.root, battle.taskId, mode, { hard: options.hard === true });
        if (!io.json) printPlan(io, plan);
        const something = hasChanges(plan);
        if (!something || options.dryRun) {
          if (io.json) io.out(`${JSON.stringify(document(plan, null, options, io))}\n`);
          else io.out(!something ? `\n${io.color.green("✔")} nothing to roll back\n` : `\n${io.color.yellow("dry run:")} nothing was changed\n`);
          return options.dryRun && something ? ExitCode.findings : ExitCode.ok;
        }
        if (battle.liveness.state === "live" && !options.force) {
          throw new RecoverError(
            "live-writer",
            `${battle.liveness.detail}: stop or pause it first (rolling back under a running battle races its writes), or pass --force; nothing was changed`,
          );
        }
        const what = `${plan.taskId}: ${plural(plan.files.restored.length, "file")} restored${plan.hard ? `, ${plural(plan.files.deleted.length, "file")} deleted` : ""}, ${plural(plan.iterationsRolledBack.length, "iteration")} rolled back`;
        await confirmChange(io, options, what);
        const outcome = await applyRollback(plan, { stateDir: stateDir(io.env), backupRoot: runBackupRoot(options, io) });
        if (io.json) {
          io.out(`${JSON.stringify(document(plan, outcome, options, io))}\n`);
          return ExitCode.ok;
        }
        const c = io.color;
        for (const notice of outcome.notices) io.note(notice);
        io.out(
          `\n${c.green("✔")} rolled back ${plan.taskId} to ${plan.target.checkpoint}: ${plural(outcome.files.restored.length, "file")} restored, ${plural(outcome.files.deleted.length, "file")} deleted, ${plural(outcome.iterationsRolledBack.length, "iteration")} rolled back\n`,
        );
        io.out(`safety checkpoint ${c.bold(outcome.safety.ref)} (${outcome.safety.commit.slice(0, 7)})\n`);
        if (outcome.backup) {
          io.out(`backup ${c.bold(outcome.backup.manifest.id)} (${outcome.backup.dir}) holds the files, history.json and checkpoints.json as they were\n`);
          io.out(`undo all of it with: ${c.bold(undoCommand(plan, io))}  (or ${restoreCommand(outcome.backup.manifest.id, io)})\n`);
        }
        return ExitCode.ok;
      }),
    );
}
