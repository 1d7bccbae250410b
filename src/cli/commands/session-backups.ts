/** `recover session backups`: list the backups repairs and restores made, or prune old ones. */
import type { Command } from "commander";
import { ExitCode, RecoverError } from "../../errors.js";
import { listBackups, type Backup } from "../../txn/backup-store.js";
import { incompleteBackups, removeIncomplete, type IncompleteBackup } from "../../txn/leftovers.js";
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

/**
 * A backup folder with no manifest: being written now, or left by a killed recover ("orphaned": it protects
 * nothing, the store was not touched before the backup was whole; --prune removes it, as does the next repair).
 */
function incompleteRow(b: IncompleteBackup) {
  return { id: b.id, createdAt: new Date(b.touchedMs).toISOString(), state: "incomplete" as const, orphaned: b.orphaned, path: b.dir };
}

function printIncomplete(incomplete: IncompleteBackup[], io: Io): void {
  for (const b of incomplete) {
    const why = b.orphaned ? "left by a recover that was killed; `--prune` removes it" : "being written now";
    io.out(`incomplete backup ${safeValue(b.id)} (${why}): ${safeValue(b.dir)}\n`);
  }
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
    .option("--prune", "delete backups older than --older-than days (never one still being applied), and incomplete ones killed runs left")
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
        const incomplete = incompleteBackups(root);
        if (!options.prune) {
          if (options.olderThan !== undefined) throw new RecoverError("usage", "--older-than goes with --prune");
          if (io.json)
            io.out(
              `${JSON.stringify({ ...DOCUMENT_HEAD, root, backups: backups.map(row), ...(incomplete.length > 0 ? { incomplete: incomplete.map(incompleteRow) } : {}) })}\n`,
            );
          else {
            if (backups.length > 0 || incomplete.length === 0) printTable(backups, io);
            printIncomplete(incomplete, io);
          }
          return ExitCode.ok;
        }
        if (options.olderThan === undefined) throw new RecoverError("usage", "--prune needs --older-than <days>");
        const prunable = prunableBackups(backups, options.olderThan, Date.now());
        // Orphaned incomplete backups go whatever their age: they never protected anything.
        const orphans = incomplete.filter((b) => b.orphaned);
        const count = prunable.length + orphans.length;
        if (count > 0)
          await confirmChange(
            io,
            options,
            `${root}: delete ${prunable.length} backup${prunable.length === 1 ? "" : "s"} older than ${options.olderThan} days${orphans.length > 0 ? ` and ${orphans.length} incomplete one${orphans.length === 1 ? "" : "s"} left by killed runs` : ""}`,
          );
        // A backup a transaction took over while the question was asked stays (and is not reported as pruned).
        const old = prunable.filter((b) => deleteBackup(root, b));
        const gone = orphans.filter((b) => removeIncomplete(b));
        if (io.json)
          io.out(
            `${JSON.stringify({ ...DOCUMENT_HEAD, root, pruned: old.map(row), ...(gone.length > 0 ? { prunedIncomplete: gone.map(incompleteRow) } : {}) })}\n`,
          );
        else {
          const ids = [...old.map((b) => b.manifest.id), ...gone.map((b) => `${b.id} (incomplete)`)];
          io.out(ids.length === 0 ? "nothing to prune\n" : `pruned ${ids.length} backup${ids.length === 1 ? "" : "s"}: ${safeMessage(ids.join(", "))}\n`);
        }
        return ExitCode.ok;
      }),
    );
}
