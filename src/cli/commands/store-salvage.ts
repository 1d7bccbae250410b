/**
 * `recover store salvage`: read every row a damaged opencode database still gives (stores/opencode/salvage-database.ts)
 * into a new one, and say what could not be read. The original is never changed, except with `--replace`: then the
 * new file takes its place in one transaction whose backup holds the old database and its -wal and -shm, so
 * `session restore` puts the damaged one back byte for byte.
 */
import { existsSync, readFileSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import type { Command } from "commander";
import { ExitCode, RecoverError } from "../../errors.js";
import { ABSENT, type ChangeSummary, type RecordKey } from "../../model/change.js";
import { TEMP_MARKER } from "../../fs/durable.js";
import { databaseIn, defaultDataDir } from "../../stores/opencode/data-dir.js";
import { defaultSalvageOut, salvageDatabase, type SalvageResult } from "../../stores/opencode/salvage-database.js";
import { processesHolding } from "../../stores/openers.js";
import { hasSqliteHeader } from "../../stores/probe.js";
import type { ImageTarget, StoreInfo } from "../../stores/store.js";
import { OpencodeSqliteWriter } from "../../stores/opencode/sqlite-writer.js";
import { refuseUnwritableStore } from "../../stores/writable.js";
import type { Backup } from "../../txn/backup-store.js";
import { withStoreTransaction } from "../../txn/store-transaction.js";
import { stateDir } from "../../txn/state-dir.js";
import { action } from "../command-kit.js";
import type { Io } from "../io.js";
import { DOCUMENT_HEAD } from "../json-output.js";
import { confirmChange, runBackupRoot } from "../mutation.js";
import { safeValue } from "../safe-text.js";
import { restoreCommand } from "../write-plans.js";
import { formatCount } from "../../model/format-count.js";

interface SalvageFlags {
  out?: string;
  replace?: boolean;
}

export function addStoreSalvage(store: Command): void {
  store
    .command("salvage")
    .description("read every row a damaged opencode database still gives into a new one; report what could not be read")
    .option("--out <path>", "the new database (default: <name>.salvaged.db beside it); must not exist")
    .option("--replace", "then put the new database in the old one's place (backed up first with its -wal/-shm; undo with session restore)")
    .addHelpText(
      "after",
      `
Examples:
  recover store salvage --store ~/.local/share/opencode/opencode.db
  recover store salvage --store ./opencode.db --out ./rescued.db --json
  recover store salvage --store ~/.local/share/opencode/opencode.db --replace

The original is only read, unless --replace (refused while any process, such as opencode, has it open).
Exit codes: 0 every row read, 1 some rows could not be read (listed) or not confirmed, 2 usage or input error,
3 refused for safety (the database is open in another process).`,
    )
    .action(
      action<SalvageFlags>(async ({ options, io }) => {
        const db = databaseToSalvage(options.store !== undefined ? resolve(io.cwd, options.store) : undefined, io.env);
        const info: StoreInfo = { format: "opencode-sqlite", path: db, notices: [] };
        if (options.replace) {
          refuseUnwritableStore(info);
          refuseOpen(db);
        }
        const out =
          options.out !== undefined
            ? resolve(io.cwd, options.out)
            : options.replace
              ? join(dirname(db), `${basename(db)}${TEMP_MARKER}salvage`)
              : defaultSalvageOut(db);
        if (options.replace && options.out === undefined) rmSync(out, { force: true });
        const spinner = await io.spinner(`reading ${db} row by row`);
        let result: SalvageResult;
        try {
          result = salvageDatabase(db, out);
        } finally {
          spinner.stop();
        }
        const lost = result.tables.reduce((n, t) => n + t.unreadable.length, 0);
        let backup: Backup | undefined;
        try {
          if (!io.json) printResult(result, io, options.replace === true);
          if (options.replace) {
            await confirmChange(io, options, `${db}: replace it with the salvaged database (the old one and its -wal/-shm are backed up)`);
            backup = swapIn(info, out, options, io);
          }
        } finally {
          if (options.replace && options.out === undefined) rmSync(out, { force: true });
        }
        const undo = backup ? restoreCommand(backup.manifest.id, io) : undefined;
        if (io.json) {
          io.out(
            `${JSON.stringify({
              ...DOCUMENT_HEAD,
              store: { format: "opencode-sqlite", path: db },
              out: options.replace && options.out === undefined ? db : out,
              tables: result.tables,
              skipped: result.skipped,
              backup: backup ? { id: backup.manifest.id, path: backup.dir } : null,
              ...(undo ? { undo } : {}),
              summary: { rows: result.tables.reduce((n, t) => n + t.rows, 0), unreadable: lost },
            })}\n`,
          );
        } else if (backup) {
          io.out(`${io.color.green("✔")} ${safeValue(db)} is now the salvaged database\n`);
          io.out(`backup ${io.color.bold(backup.manifest.id)} (${safeValue(backup.dir)})\nundo with: ${io.color.bold(undo!)}\n`);
        }
        return lost > 0 ? ExitCode.findings : ExitCode.ok;
      }),
    );
}

/** `--store`: a database file, or a data dir (the database opencode reads there); by default opencode's own. */
function databaseToSalvage(named: string | undefined, env: NodeJS.ProcessEnv): string {
  const target = named ?? defaultDataDir(env);
  let isFile: boolean;
  try {
    isFile = statSync(target).isFile();
  } catch {
    throw new RecoverError("store-not-found", `${target}: no such file or folder`);
  }
  const db = isFile ? target : databaseIn(target);
  if (!hasSqliteHeader(db)) throw new RecoverError("not-a-store", `${db} is not a SQLite database`);
  return db;
}

/** Replacing a database under a process that has it open would hand that process a file it does not know. */
function refuseOpen(db: string): void {
  const openers = processesHolding([db, `${db}-wal`, `${db}-shm`]);
  if (openers.length === 0) return;
  const who = openers.map((o) => `${o.name} (pid ${o.pid})`).join(", ");
  throw new RecoverError("live-writer", `${who} has ${db} open; quit it first: a database is replaced only while no process holds it`);
}

/**
 * The swap as one transaction of whole files: the salvaged bytes in the database's place, its -wal and -shm gone
 * (they belong to the old file); the backup holds all three as they were.
 */
function swapIn(info: StoreInfo, salvaged: string, options: Parameters<typeof runBackupRoot>[0], io: Io): Backup {
  const state = stateDir(io.env);
  const store = { info, openWriter: () => new OpencodeSqliteWriter(info) };
  return withStoreTransaction(
    store,
    (tx) => {
      refuseOpen(info.path);
      const targets: ImageTarget[] = [];
      const changes: ChangeSummary[] = [];
      for (const path of [info.path, `${info.path}-wal`, `${info.path}-shm`]) {
        const key: RecordKey = { record: "file", id: basename(path), sessionId: "", path };
        const before = tx.writer.read(key);
        const main = path === info.path;
        if (!main && !before.exists) continue;
        const after = main ? { exists: true as const, bytes: readFileSync(salvaged), mode: before.exists ? before.mode : 0o644 } : ABSENT;
        targets.push({ key, before, after });
        changes.push({ op: main ? "update" : "delete", record: "file", id: key.id, sessionId: "", rules: [] });
      }
      return tx.commit({ kind: "salvage", sessions: [], changes, targets });
    },
    { stateDir: state, backupRoot: runBackupRoot(options, io) },
  );
}

function printResult(result: SalvageResult, io: Io, replacing: boolean): void {
  const c = io.color;
  const n = (k: number) => formatCount(k);
  io.out(`salvaged ${safeValue(result.from)}${replacing ? "" : ` → ${safeValue(result.out)}`}\n`);
  for (const table of result.tables) {
    io.out(`  ${table.name.padEnd(22)} ${n(table.rows).padStart(9)} row${table.rows === 1 ? " " : "s"}\n`);
    for (const range of table.unreadable) {
      const rows =
        range.to === undefined
          ? `rowid ${n(range.from)} and after`
          : range.from === range.to
            ? `rowid ${n(range.from)}`
            : `rowids ${n(range.from)}–${n(range.to)}`;
      io.out(`    ${c.red("unreadable")} ${rows}: ${safeValue(range.why)}\n`);
    }
  }
  for (const skipped of result.skipped) io.out(`  ${c.yellow("not made again")} ${safeValue(skipped.name)}: ${safeValue(skipped.why)}\n`);
  const lost = result.tables.filter((t) => t.unreadable.length > 0);
  if (lost.length === 0) io.out(`${c.green("✔")} every row was read\n`);
  else io.out(`${c.red("✖")} rows of ${lost.map((t) => t.name).join(", ")} could not be read (listed above); the original is unchanged\n`);
  if (!replacing && existsSync(result.out)) {
    io.out(`use it: ${c.bold(io.command(["store", "salvage", "--replace"]))} puts a fresh salvage in place of the original (backed up first)\n`);
  }
}
