/**
 * `recover session restore <backup-id>`: put every record a repair changed back, byte for byte, in one
 * transaction. It backs up the current state first (so a restore is itself undoable) and refuses, naming the
 * records, when one changed after the repair, unless --force.
 */
import type { Command } from "commander";
import { unifiedDiff } from "../../plan/diff.js";
import { commitRestore, planRestore, readRestorable, refuseOtherFormat } from "../../txn/restore.js";
import { refuseLiveWriter } from "../../txn/store-transaction.js";
import { action, withStore } from "../command-kit.js";
import { confirmChange, runBackupRoot, withWriter } from "../mutation.js";
import type { ChangeReport, ReportedSession } from "../reporters/change-report.js";
import { humanChangeReporter } from "../reporters/change-human.js";
import { jsonChangeReporter } from "../reporters/change-json.js";
import { restoreCommand } from "../write-plans.js";
import { ExitCode, RecoverError } from "../../errors.js";
import { listBackups } from "../../txn/backup-store.js";
import type { Io } from "../io.js";

interface RestoreFlags {
  last?: boolean;
  session?: string;
  force?: boolean;
  dryRun?: boolean;
}

export function addSessionRestore(session: Command): void {
  session
    .command("restore")
    .description("put back every record a repair (or restore) changed, byte for byte; itself undoable")
    .argument("[backup-id]", "the id a repair printed (see `recover session backups`)")
    .option("--last", "the newest backup (with --store: the newest taken from that store)")
    .option("--session <id>", "restore only this session's records")
    .option("--dry-run", "show what would be put back, write nothing; exit 1 when there is something to restore")
    .option("--force", "restore even records changed after the repair (those later changes are backed up first), or while the store is open")
    .addHelpText(
      "after",
      `
Examples:
  recover session restore 20261122T190503Z-9f2c1e
  recover session restore --last --dry-run
  recover session restore 20261122T190503Z-9f2c1e --session ses_52f1 --yes
  recover session restore 20261122T190503Z-9f2c1e --backup-dir ./backups --json --yes

The store is the one the backup was taken from, unless --store names another (a copy).
Exit codes: 0 restored (or nothing to restore), 1 dry run with changes / not confirmed, 2 usage or input error,
3 refused for safety (records changed after the repair, store in use).`,
    )
    .action(
      action<RestoreFlags>(async ({ args, options, io }) => {
        const root = runBackupRoot(options, io);
        // --last of a store named: its newest backup, not one another store's repair took since (a cron job, CI).
        const id =
          options.last && args[0] === undefined && options.store !== undefined
            ? await withStore({ ...options, restoring: true }, io, (store) => newestBackupOf(root, store.info.path))
            : backupIdOf(args[0], options.last, root, io);
        const manifest = readRestorable(root, id, options.session);
        const storeOptions =
          options.store !== undefined ? options : { ...options, store: manifest.store.path, format: options.format ?? manifest.store.format };
        // A forced restore of a transaction that was cut short, with records changed since, is the way out its
        // refusal names: it must not be refused by the same settling first.
        const resolving = options.force ? { resolving: id } : {};
        return withStore({ ...storeOptions, ...resolving, restoring: true }, io, (store) => {
          refuseOtherFormat(manifest, store.info);
          return withWriter(store, { ...options, ...resolving }, io, async (tx) => {
            const { writer } = tx;
            const planned = planRestore(tx, root, id, options);
            const { targets, changes } = planned;
            const report: ChangeReport = {
              command: "restore",
              store: store.info,
              dryRun: options.dryRun === true,
              backup: null,
              restoreOf: id,
              sessions: planned.sessions.map(
                (sessionId): ReportedSession => ({
                  id: sessionId,
                  title: store.listSessions().find((s) => s.id === sessionId)?.title ?? "",
                  unfixed: [],
                  changes: targets.flatMap((t, i) =>
                    t.key.sessionId !== sessionId
                      ? []
                      : [
                          {
                            summary: changes[i]!,
                            reasons: [`put back from backup ${id}`],
                            diff: () =>
                              unifiedDiff(t.key, writer.describe(t.before), writer.describe(t.after), { before: t.before.exists, after: t.after.exists }),
                          },
                        ],
                  ),
                }),
              ),
            };
            const reporter = io.json ? jsonChangeReporter(io) : humanChangeReporter(io);
            reporter.plan(report);
            if (targets.length === 0 || options.dryRun) {
              reporter.done(report);
              return options.dryRun && targets.length > 0 ? ExitCode.findings : ExitCode.ok;
            }
            refuseLiveWriter(writer, options.force);
            await confirmChange(io, options, `${targets.length} record${targets.length === 1 ? "" : "s"} of ${store.info.path} back to backup ${id}`);
            const undo = commitRestore(tx, planned);
            report.backup = { id: undo.manifest.id, path: undo.dir };
            report.undo = restoreCommand(undo.manifest.id, io);
            reporter.done(report);
            return ExitCode.ok;
          });
        });
      }),
    );
}

/** The newest backup taken from the store at `path`. */
function newestBackupOf(root: string, path: string): string {
  const newest = listBackups(root)
    .filter((b) => b.manifest.store.path === path)
    .at(-1);
  if (!newest) throw new RecoverError("backup-not-found", `no backups of ${path} in ${root}`);
  return newest.manifest.id;
}

/** The backup named, or with --last the newest one; neither is a usage error that says where the ids are. */
function backupIdOf(given: string | undefined, last: boolean | undefined, root: string, io: Io): string {
  if (given !== undefined && last) throw new RecoverError("usage", "give a backup id or --last, not both");
  if (given !== undefined) return given;
  if (!last) throw new RecoverError("usage", `give a backup id or --last (\`${io.command(["session", "backups"])}\` lists them)`);
  const newest = listBackups(root).at(-1);
  if (!newest) throw new RecoverError("backup-not-found", `no backups in ${root}`);
  return newest.manifest.id;
}
