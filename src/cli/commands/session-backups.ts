/** `recover session backups`: list the backups repairs and restores made, or prune old ones. */
import type { Command } from "commander";
import { ExitCode, RecoverError } from "../../errors.js";
import { listBackups, type Backup } from "../../txn/backup-store.js";
import { deleteBackup, prunableBackups } from "../../txn/prune-backups.js";
import { action, parsePositiveInt } from "../command-kit.js";
import type { Io } from "../io.js";
import { DOCUMENT_HEAD } from "../json-output.js";
import { confirmChange, runBackupRoot } from "../mutation.js";
import { safeMessage, safeValue } from "../safe-text.js";

interface BackupsFlags {
  prune?: boolean;
  olderThan?: number;
}

function row(b: Backup) {
  const m = b.manifest;
  return {
    id: m.id,
    createdAt: m.createdAt,
    kind: m.kind,
    state: m.state,
    store: m.store,
    sessions: m.sessions,
    changes: m.changes.length,
    path: b.dir,
    ...(m.restoreOf ? { restoreOf: m.restoreOf } : {}),
  };
}

function printTable(backups: Backup[], io: Io): void {
  if (backups.length === 0) {
    io.out("no backups\n");
    return;
  }
  const head = ["ID", "CREATED (UTC)", "KIND", "STATE", "CHANGES", "STORE", "SESSIONS"];
  const rows = backups.map((b) => {
    const m = b.manifest;
    // A manifest names the sessions a repair changed: ids from the store, printed escaped and shortened.
    return [
      safeValue(m.id),
      safeValue(m.createdAt.replace("T", " ").slice(0, 19)),
      safeValue(m.kind),
      safeValue(m.state),
      String(m.changes.length),
      `${m.store.format} ${safeValue(m.store.path)}`,
      safeMessage(m.sessions.join(",")),
    ];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!))).join("  ");
  io.out(`${io.color.bold(line(head))}\n`);
  for (const r of rows) io.out(`${line(r)}\n`);
}

export function addSessionBackups(session: Command): void {
  session
    .command("backups")
    .description("list the backups taken before each repair or restore (newest last), or prune old ones")
    .option("--prune", "delete backups older than --older-than days (never one still being applied)")
    .option("--older-than <days>", "with --prune: age in days", parsePositiveInt("--older-than"))
    .addHelpText(
      "after",
      `
Examples:
  recover session backups
  recover session backups --json | jq -r '.backups[-1].id'
  recover session backups --prune --older-than 30 --yes`,
    )
    .action(
      action<BackupsFlags>(async ({ options, io }) => {
        const root = runBackupRoot(options, io);
        const backups = listBackups(root);
        if (!options.prune) {
          if (options.olderThan !== undefined) throw new RecoverError("usage", "--older-than goes with --prune");
          if (io.json) io.out(`${JSON.stringify({ ...DOCUMENT_HEAD, root, backups: backups.map(row) })}\n`);
          else printTable(backups, io);
          return ExitCode.ok;
        }
        if (options.olderThan === undefined) throw new RecoverError("usage", "--prune needs --older-than <days>");
        const prunable = prunableBackups(backups, options.olderThan, Date.now());
        if (prunable.length > 0)
          await confirmChange(io, options, `${root}: delete ${prunable.length} backup${prunable.length === 1 ? "" : "s"} older than ${options.olderThan} days`);
        // A backup a transaction took over while the question was asked stays (and is not reported as pruned).
        const old = prunable.filter((b) => deleteBackup(root, b));
        if (io.json) io.out(`${JSON.stringify({ ...DOCUMENT_HEAD, root, pruned: old.map(row) })}\n`);
        else
          io.out(
            old.length === 0
              ? "nothing to prune\n"
              : `pruned ${old.length} backup${old.length === 1 ? "" : "s"}: ${safeMessage(old.map((b) => b.manifest.id).join(", "))}\n`,
          );
        return ExitCode.ok;
      }),
    );
}
