/**
 * `recover checkpoint create|list|prune <taskId>`: snapshots of a pokeralph battle's working tree kept as private
 * git refs (refs/pokeralph/checkpoints/<taskId>/<n>) and recorded beside the battle in checkpoints.json. The
 * commands are thin: find `.pokeralph/`, call src/checkpoint/, print a table or one JSON document.
 */
import { resolve } from "node:path";
import { Option, type Command } from "commander";
import { ExitCode, RecoverError } from "../../errors.js";
import { findProject } from "../../stores/pokeralph/battle-files.js";
import { createCheckpoint } from "../../checkpoint/create.js";
import { listCheckpoints, type ListedCheckpoint } from "../../checkpoint/list.js";
import { applyPrune, DAY_MS, DEFAULT_RETENTION, planPrune, type RetentionPolicy } from "../../checkpoint/prune.js";
import { stateDir } from "../../txn/state-dir.js";
import { action } from "../command-kit.js";
import type { Io } from "../io.js";
import { DOCUMENT_HEAD } from "../json-output.js";
import { confirmChange, runBackupRoot } from "../mutation.js";
import { TOP_COMMAND_SUMMARIES } from "../top-commands.js";

interface RepoFlag {
  repo?: string;
}
interface CreateFlags extends RepoFlag {
  iteration?: number;
}
interface PruneFlags extends RepoFlag {
  dryRun?: boolean;
  olderThan?: number;
  olderThanDays?: number;
  keep?: number;
}

function parseCount(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n))
      throw new RecoverError("usage", `${name} takes a whole number of 0 or more, got ${JSON.stringify(value)}`);
    return n;
  };
}

const short = (commit: string) => commit.slice(0, 7);
const utc = (time: string) => (Number.isNaN(Date.parse(time)) ? time : new Date(time).toISOString().replace("T", " ").slice(0, 19));
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function printNotices(io: Io, notices: string[]): void {
  if (io.quiet || io.json) return;
  for (const notice of notices) io.note(notice);
}

function checkpointJson(c: ListedCheckpoint) {
  return {
    id: c.id,
    afterIteration: c.afterIteration,
    commit: c.commit,
    source: c.source,
    time: c.time,
    description: c.description,
    files: c.files,
    feedback: c.feedback ?? {},
    passed: c.passed,
    ...(c.ref !== undefined ? { ref: c.ref } : {}),
    ...(c.battleId !== undefined ? { battleId: c.battleId } : {}),
    ...(c.via !== undefined ? { via: c.via } : {}),
    ...(c.replaces !== undefined ? { replaces: c.replaces } : {}),
    ...(c.missing ? { missing: true } : {}),
  };
}

function printTable(io: Io, checkpoints: ListedCheckpoint[]): void {
  const head = ["ID", "ITER", "COMMIT", "TIME (UTC)", "FEEDBACK", "SOURCE", "FILES", "DESCRIPTION"];
  const rows = checkpoints.map((c) => [
    c.id,
    String(c.afterIteration),
    short(c.commit),
    utc(c.time),
    c.passed === null ? "-" : c.passed ? "✓" : "✗",
    c.source,
    String(c.files.length),
    `${c.description}${c.missing ? "  [MISSING: the repository no longer holds this commit]" : ""}`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!))).join("  ");
  io.out(`${io.color.bold(line(head))}\n`);
  for (const [i, row] of rows.entries()) {
    const c = checkpoints[i]!;
    io.out(`${c.missing ? io.color.red(line(row)) : line(row)}\n`);
    if (c.files.length > 0 && !io.quiet) {
      const shown = c.files.slice(0, 5).join(", ");
      io.out(`    ${io.color.dim(`${shown}${c.files.length > 5 ? `, … (+${c.files.length - 5} more)` : ""}`)}\n`);
    }
  }
}

export function addCheckpoint(program: Command): void {
  const checkpoint = program
    .command("checkpoint")
    .description(TOP_COMMAND_SUMMARIES.checkpoint.description)
    .addHelpText(
      "after",
      `
Checkpoints are commits under refs/pokeralph/checkpoints/<taskId>/<n>, made through a temporary index: your
branch, index, stash and ignored files are never touched. They are recorded in
.pokeralph/battles/<taskId>/checkpoints.json (never in pokeralph's history.json).

Examples:
  recover checkpoint create 002-auth-system
  recover checkpoint list 002-auth-system --json
  recover checkpoint prune 002-auth-system --dry-run`,
    );

  checkpoint
    .command("create")
    .description("snapshot tracked and untracked-not-ignored files now, as the checkpoint after an iteration")
    .argument("<taskId>", "the battle's task id, e.g. 002-auth-system")
    .option("--iteration <n>", "the iteration this state follows (0 = before the battle; default: the last one recorded)", parseCount("--iteration"))
    .option("--repo <dir>", "the project (default: the nearest directory with .pokeralph/, from the current one up)")
    .addHelpText(
      "after",
      `
Examples:
  recover checkpoint create 002-auth-system --iteration 0
  recover checkpoint create 002-auth-system --repo ~/code/invoices --json

Exit codes: 0 created, 2 usage error (no .pokeralph/, not a git repository, unknown task),
3 refused: the repository is mid-merge/rebase/cherry-pick/revert/bisect, has no commits, or index.lock exists.`,
    )
    .action(
      action<CreateFlags>(async ({ args, options, io }) => {
        const project = findProject(resolve(io.cwd, options.repo ?? "."));
        const created = await createCheckpoint(project, {
          taskId: args[0]!,
          stateDir: stateDir(io.env),
          backupRoot: runBackupRoot(options, io),
          ...(options.iteration !== undefined ? { afterIteration: options.iteration } : {}),
        });
        const c = created.checkpoint;
        if (io.json) {
          const doc = {
            ...DOCUMENT_HEAD,
            taskId: args[0],
            checkpoint: {
              id: c.id,
              afterIteration: c.afterIteration,
              commit: c.commit,
              ref: c.ref,
              time: c.time,
              description: c.description,
              files: c.files,
              feedback: c.feedback ?? {},
              parent: c.parent,
              branch: c.branch,
            },
            nestedRepos: created.nestedRepos,
            notices: created.notices,
          };
          io.out(`${JSON.stringify(doc)}\n`);
          return ExitCode.ok;
        }
        io.out(`created checkpoint ${c.id} (${c.description}): ${short(c.commit)} in ${c.ref}\n`);
        if (!io.quiet)
          io.out(
            `  ${plural(c.files.length, "file")} changed since ${c.afterIteration === 0 ? "HEAD" : "the previous checkpoint"}; HEAD, branch, index and stash untouched\n`,
          );
        printNotices(io, created.notices);
        return ExitCode.ok;
      }),
    );

  checkpoint
    .command("list")
    .description("every checkpoint of a battle: recorded by recover, or inferred from history.json and its commits")
    .argument("<taskId>", "the battle's task id")
    .option("--repo <dir>", "the project (default: the nearest directory with .pokeralph/, from the current one up)")
    .addHelpText(
      "after",
      `
Inferred checkpoints come from history.json's commitHash values and "[PokéRalph] <taskId>: …" commits, for the
states recover did not record. A recorded commit the repository no longer holds (amended or rebased, then pruned)
is replaced by the "[PokéRalph]" commit that took its place ("via": "replaced", "replaces": <old hash>); with
none, it is shown as MISSING ("missing": true).

Examples:
  recover checkpoint list 002-auth-system
  recover checkpoint list 002-auth-system --json | jq -r '.checkpoints[] | [.afterIteration, .commit] | @tsv'

Exit codes: 0 listed (even with missing commits; \`recover battle status\` reports those as errors), 2 usage error.`,
    )
    .action(
      action<RepoFlag>(async ({ args, options, io }) => {
        const project = findProject(resolve(io.cwd, options.repo ?? "."));
        const listing = await listCheckpoints(project, args[0]!);
        if (io.json) {
          io.out(
            `${JSON.stringify({ ...DOCUMENT_HEAD, taskId: listing.taskId, checkpoints: listing.checkpoints.map(checkpointJson), notices: listing.notices })}\n`,
          );
          return ExitCode.ok;
        }
        const recorded = listing.checkpoints.filter((c) => c.source === "recorded").length;
        const missing = listing.checkpoints.filter((c) => c.missing).length;
        io.out(
          `${listing.taskId}: ${plural(listing.checkpoints.length, "checkpoint")} (${recorded} recorded, ${listing.checkpoints.length - recorded} inferred${missing > 0 ? `, ${missing} missing` : ""})\n`,
        );
        if (listing.checkpoints.length > 0) printTable(io, listing.checkpoints);
        printNotices(io, listing.notices);
        return ExitCode.ok;
      }),
    );

  checkpoint
    .command("prune")
    .description("drop recorded checkpoints by the recovery spec's retention policy (keep the newest 10, and any younger than 7 days)")
    .argument("<taskId>", "the battle's task id")
    .option("--dry-run", "show what would go, change nothing; exit 1 when something would")
    .option(
      "--older-than <days>",
      `the age past which checkpoints beyond the newest ones may go (default ${DEFAULT_RETENTION.maxAgeMs / DAY_MS})`,
      parseCount("--older-than"),
    )
    // Spelled as in `session backups --prune --older-than`; the old name stays for scripts that use it.
    .addOption(new Option("--older-than-days <days>", "same as --older-than").hideHelp().argParser(parseCount("--older-than-days")))
    .option("--keep <n>", `how many of the newest checkpoints are always kept (default ${DEFAULT_RETENTION.maxCheckpoints})`, parseCount("--keep"))
    .option("--repo <dir>", "the project (default: the nearest directory with .pokeralph/, from the current one up)")
    .addHelpText(
      "after",
      `
The policy is the spec's: newest first, the first --keep stay whatever their age; past those, a checkpoint older
than --older-than goes, a younger one stays (failed or successful alike). Inferred checkpoints are your own
commits and are never pruned, nor are the two a rollback needs: the checkpoint before the battle and the newest
one whose feedback loops all passed. A pruned checkpoint loses its checkpoints.json entry and its ref; git gc frees the
space later.

Examples:
  recover checkpoint prune 002-auth-system --dry-run
  recover checkpoint prune 002-auth-system --older-than 3 --yes

Exit codes: 0 pruned (or nothing to prune), 1 dry run with something to prune / not confirmed, 2 usage error
(or no terminal to confirm on: pass --yes).`,
    )
    .action(
      action<PruneFlags>(async ({ args, options, io }) => {
        const project = findProject(resolve(io.cwd, options.repo ?? "."));
        const policy: RetentionPolicy = {
          ...DEFAULT_RETENTION,
          ...((options.olderThan ?? options.olderThanDays) !== undefined ? { maxAgeMs: (options.olderThan ?? options.olderThanDays)! * DAY_MS } : {}),
          ...(options.keep !== undefined ? { maxCheckpoints: options.keep } : {}),
        };
        const plan = await planPrune(project, args[0]!, policy);
        const taskId = plan.listing.taskId;
        const dryRun = options.dryRun === true;
        let refsLeft: string[] = [];
        if (!dryRun && plan.remove.length > 0) {
          await confirmChange(
            io,
            options,
            `the checkpoints of ${taskId}: drop ${plural(plan.remove.length, "checkpoint")} (entries in checkpoints.json and their refs)`,
          );
          refsLeft = (await applyPrune(project, plan, stateDir(io.env), runBackupRoot(options, io))).refsLeft;
        }
        if (io.json) {
          const doc = {
            ...DOCUMENT_HEAD,
            taskId,
            dryRun,
            policy: {
              maxCheckpoints: policy.maxCheckpoints,
              maxAgeDays: policy.maxAgeMs / DAY_MS,
              keepFailed: policy.keepFailed,
              keepSuccessful: policy.keepSuccessful,
            },
            pruned: plan.remove.map(checkpointJson),
            kept: plan.keep.length,
            spared: plan.spared.map((s) => ({ id: s.checkpoint.id, afterIteration: s.checkpoint.afterIteration, why: s.why })),
            inferred: plan.inferred,
            refsLeft,
          };
          io.out(`${JSON.stringify(doc)}\n`);
        } else if (plan.remove.length === 0) {
          io.out(
            `nothing to prune: ${plural(plan.keep.length, "recorded checkpoint")} of ${taskId}, all within the policy (newest ${policy.maxCheckpoints}, or younger than ${policy.maxAgeMs / DAY_MS} days)\n`,
          );
        } else {
          io.out(
            `${dryRun ? "would prune" : "pruned"} ${plan.remove.length} of ${plural(plan.remove.length + plan.keep.length, "recorded checkpoint")} of ${taskId}:\n`,
          );
          for (const c of plan.remove) io.out(`  ${c.id}  iteration ${c.afterIteration}  ${short(c.commit)}  ${utc(c.time)}  ${c.description}\n`);
          if (dryRun) io.out("dry run: nothing was changed; run again without --dry-run to prune\n");
          else if (!io.quiet) io.out("their objects go at the next `git gc`\n");
          for (const ref of refsLeft) io.note(`${ref} no longer points at the pruned commit (changed by someone else): left as it is`);
        }
        if (!io.json && !io.quiet) {
          for (const s of plan.spared) io.note(`kept ${s.checkpoint.id} (iteration ${s.checkpoint.afterIteration}) whatever the policy: ${s.why}`);
        }
        return dryRun && plan.remove.length > 0 ? ExitCode.findings : ExitCode.ok;
      }),
    );
}
