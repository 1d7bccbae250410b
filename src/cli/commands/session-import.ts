/**
 * `recover session import`: bring sessions the agent cannot show into the database it reads, in one transaction
 * with the usual backup, so `session restore` takes out exactly what was put in: opencode's legacy storage/ tree or
 * another database of its data dir (stores/opencode/import.ts), openclaw's legacy JSONL transcripts, those
 * `openclaw doctor` refused included (stores/openclaw-sqlite/import.ts). Here are the flags, the choice of sessions,
 * the report and the exit code.
 */
import { realpathSync, statSync } from "node:fs";
import { basename, resolve } from "node:path";
import type { Command } from "commander";
import { ExitCode, RecoverError } from "../../errors.js";
import { unifiedDiff } from "../../plan/diff.js";
import { RULES } from "../../rules/index.js";
import { DEFAULT_RULE_OPTIONS } from "../../rules/rule.js";
import { scanSession } from "../../scan/scan.js";
import { someOf } from "../../model/listing.js";
import { hasSqliteHeader } from "../../stores/probe.js";
import type { SessionStore } from "../../stores/store.js";
import { findStorageDir } from "../../stores/opencode/data-dir.js";
import type { ImportSourceBase } from "../../stores/import-plan.js";
import { openImportSource, planImport, type ImportSource } from "../../stores/opencode/import.js";
import { type LegacySource, openLegacySource, planLegacyImport } from "../../stores/openclaw-sqlite/import.js";
import { OpenclawSqliteWriter } from "../../stores/openclaw-sqlite/writer.js";
import { refuseLiveWriter } from "../../txn/store-transaction.js";
import { action, withStore } from "../command-kit.js";
import type { Io } from "../io.js";
import { confirmChange, withWriter } from "../mutation.js";
import type { ChangeReport, ReportedSession } from "../reporters/change-report.js";
import { humanChangeReporter } from "../reporters/change-human.js";
import { jsonChangeReporter } from "../reporters/change-json.js";
import { restoreCommand } from "../write-plans.js";

interface ImportFlags {
  from?: string;
  all?: boolean;
  dryRun?: boolean;
  force?: boolean;
  key?: string;
}

export function addSessionImport(session: Command): void {
  session
    .command("import")
    .description("copy sessions the agent does not show (opencode's legacy tree or another database; openclaw's JSONL transcripts) into the database it reads")
    .argument("[ids...]", "session ids (or unique prefixes) in the --from store")
    .requiredOption(
      "--from <path>",
      "where they are: a storage/ folder (or a data dir holding one), or another opencode*.db; for openclaw, a sessions/ folder, doctor's session-sqlite-import-archive/, or one .jsonl",
    )
    .option("--all", "every session --from holds that the database lacks")
    .option("--key <session key>", "openclaw: the session key the imported session belongs to (default: its sessions.json key, else agent:<agent>:main)")
    .option("--dry-run", "list what would be imported, write nothing; exit 1 when there is something to import")
    .option("--force", "import while another process (a running opencode) holds the database open")
    .addHelpText(
      "after",
      `
Examples:
  recover session import --all --from ~/.local/share/opencode/storage --dry-run
  recover session import ses_52f1 --from ~/.local/share/opencode/opencode-stable.db
  recover session import --all --from ./storage --store ./opencode.db --yes --json
  recover session import --all --from ~/.openclaw/agents/main/session-sqlite-import-archive --store ~/.openclaw

The database written is --store (a file, or a data dir: then the one opencode reads there). Sessions it already
holds are skipped, never overwritten. Undo with \`recover session restore <backup-id>\`: it deletes exactly the
rows the import inserted.
Exit codes: 0 imported (or nothing to import), 1 dry run with sessions to import / not confirmed, 2 usage or
input error, 3 refused for safety (database in use, changed while read).`,
    )
    .action(
      action<ImportFlags>(({ args, options, io }) =>
        withStore(options, io, async (store) => {
          const from = resolve(io.cwd, options.from!);
          const openclaw = store.info.format === "openclaw-sqlite";
          if (options.key !== undefined && !openclaw) throw new RecoverError("usage", "--key names an openclaw session key; this store is not openclaw's");
          const source = openclaw ? openLegacyFrom(from) : openSource(from);
          try {
            // Awaited here: the source must stay open until the import is done, not until it has started.
            return await importInto(store, source, args, options, io);
          } finally {
            source.close();
          }
        }),
      ),
    );
}

/** openclaw's `--from`: legacy transcripts, a folder of them or one file. */
function openLegacyFrom(from: string): LegacySource {
  try {
    statSync(from);
  } catch {
    throw new RecoverError("store-not-found", `--from ${from}: no such file or folder`);
  }
  return openLegacySource(from);
}

/** `--from`: a database file, or a JSON tree (a storage/ folder, or a data dir holding one). */
function openSource(from: string): ImportSource {
  let isFile: boolean;
  try {
    isFile = statSync(from).isFile();
  } catch {
    throw new RecoverError("store-not-found", `--from ${from}: no such file or folder`);
  }
  if (isFile) {
    if (!hasSqliteHeader(from)) throw new RecoverError("not-a-store", `--from ${from} is not a SQLite database`);
    return openImportSource(from, "database");
  }
  const storage = findStorageDir(from);
  if (!storage) {
    throw new RecoverError(
      "not-a-store",
      `--from ${from} holds no opencode storage/ tree (session/, message/, part/); name the storage/ folder or an opencode*.db file`,
    );
  }
  return openImportSource(storage, "tree");
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** The sessions asked for: the named ones (exact ids or unique prefixes of the source's), or --all of those missing. */
function chooseSessions(source: ImportSourceBase, target: SessionStore, args: readonly string[], all: boolean | undefined): string[] {
  const inSource = source.sessionIds();
  const inTarget = new Set(target.listSessionIds?.() ?? target.listSessions().map((s) => s.id));
  const missing = inSource.filter((id) => !inTarget.has(id));
  if (args.length > 0 && all) throw new RecoverError("usage", "name sessions or pass --all, not both");
  if (all) return missing;
  if (args.length === 0) {
    const what =
      missing.length === 0
        ? `every session of ${source.path} is already in ${target.info.path}`
        : `${missing.length} of the ${inSource.length} sessions of ${source.path} are not in ${basename(target.info.path)}: ${someOf(missing)}`;
    throw new RecoverError("usage", `name the sessions to import, or pass --all (${what})`);
  }
  return [
    ...new Set(
      args.map((arg) => {
        if (inSource.includes(arg)) return arg;
        const matches = inSource.filter((id) => id.startsWith(arg));
        if (matches.length === 1) return matches[0]!;
        if (matches.length > 1) throw new RecoverError("session-ambiguous", `${arg} matches ${matches.length} sessions of ${source.path}: ${someOf(matches)}`);
        throw new RecoverError("session-not-found", `no session ${arg} in ${source.path}`);
      }),
    ),
  ];
}

async function importInto(
  store: SessionStore,
  source: ImportSource | LegacySource,
  args: readonly string[],
  options: ImportFlags & Parameters<typeof withWriter>[1],
  io: Io,
): Promise<number> {
  if (store.info.format !== "opencode-sqlite" && store.info.format !== "openclaw-sqlite") {
    throw new RecoverError(
      "usage",
      `sessions are imported into an opencode or openclaw database; ${store.info.path} is ${store.info.format} (pass --store <opencode.db or openclaw-agent.sqlite>)`,
    );
  }
  if (realOrSelf(source.path) === realOrSelf(store.info.path)) {
    throw new RecoverError("usage", `--from and --store are the same database (${store.info.path}): import from another store`);
  }
  const ids = chooseSessions(source, store, args, options.all);
  const storeId = (id: string) => source.storeId?.(id) ?? id;
  const titles = new Map(source.store.listSessions().map((s) => [s.id, s.title]));
  return withWriter(store, options, io, async (tx) => {
    const { writer } = tx;
    const now = Date.now();
    const plan =
      "keyOf" in source && writer instanceof OpenclawSqliteWriter
        ? planLegacyImport(writer, source, ids, { ...(options.key !== undefined ? { key: options.key } : {}), now })
        : planImport(writer, source as ImportSource, ids);
    for (const skipped of plan.skipped) store.info.notices.push(`${skipped.id} is not imported: ${skipped.why}`);
    for (const partial of plan.partial) store.info.notices.push(`${partial.id} is imported without some rows: ${partial.why}`);
    const report: ChangeReport = {
      command: "import",
      store: store.info,
      dryRun: options.dryRun === true,
      backup: null,
      sessions: plan.sessions.map(
        (imported): ReportedSession => ({
          id: imported.id,
          title: titles.get(storeId(imported.id)) ?? "",
          changes: imported.targets.map((target, i) => ({
            summary: imported.changes[i]!,
            reasons: [`imported from ${source.path}`, ...(target.key.record === "project" || target.key.record === "file" ? imported.notes : [])],
            // The session's row says what it is; its messages and parts are the source's, row for row.
            diff: () => (target.key.record === "session" || target.key.record === "project" ? unifiedDiff(target.key, "", writer.describe(target.after)) : ""),
          })),
          // What a scan will say of it once it is in: imported as it is, damage included.
          unfixed: scanSession(source.store, storeId(imported.id), { ...DEFAULT_RULE_OPTIONS, rules: RULES, now, mode: "lean" }).findings,
        }),
      ),
    };
    const reporter = io.json ? jsonChangeReporter(io) : humanChangeReporter(io);
    reporter.plan(report);
    const targets = plan.sessions.flatMap((s) => s.targets);
    if (targets.length === 0 || options.dryRun) {
      reporter.done(report);
      return options.dryRun && targets.length > 0 ? ExitCode.findings : ExitCode.ok;
    }
    refuseLiveWriter(writer, options.force);
    writer.checkIntegrity();
    const n = plan.sessions.length;
    await confirmChange(io, options, `${store.info.path}: import ${n} session${n === 1 ? "" : "s"} (${targets.length} rows) from ${source.path}`);
    const backup = tx.commit({
      kind: "import",
      sessions: plan.sessions.map((s) => s.id),
      changes: plan.sessions.flatMap((s) => s.changes),
      targets,
      now,
    });
    report.backup = { id: backup.manifest.id, path: backup.dir };
    report.undo = restoreCommand(backup.manifest.id, io);
    reporter.done(report);
    return ExitCode.ok;
  });
}
