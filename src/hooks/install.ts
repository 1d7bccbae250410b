/**
 * Installing and removing an agent's hook: one whole-file change to the agent's config folder, through the
 * transaction layer (lock, backup of the before-image, atomic write, journal), so it is undone like any repair
 * (`session restore <backup-id>`). What was installed is kept in the state dir (`hooks.json`): the backup that holds
 * the file as it was, and a hash of what recover wrote. `uninstall` of a file nobody touched since puts it back byte
 * for byte from that backup; a file changed since (the user's own edits) keeps those: only recover's hook goes.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, rmdirSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { mkdirDurable, writeFileDurable } from "../fs/durable.js";
import { RecoverError } from "../errors.js";
import { ABSENT, type RecordKey, type StoredImage } from "../model/change.js";
import { NEW_FILE_MODE } from "../stores/file-writer.js";
import { WholeFilesStore } from "../stores/whole-files-store.js";
import { type Backup, beforeImage, modeOf, readBackup } from "../txn/backup-store.js";
import { backupsIn } from "../txn/state-dir.js";
import { withStoreTransaction } from "../txn/store-transaction.js";
import { changesOfTargets } from "../txn/targets.js";
import { type AgentHook, agentHook, type HookAgent } from "./agents.js";
import type { RecoverCommand } from "./recover-command.js";

/** The format an agent's config folder is backed up as: `session restore` reopens it as whole files. */
export const AGENT_CONFIG_FORMAT = "agent-config";

interface Installed {
  file: string;
  backup: string;
  /** sha256 of what recover wrote. */
  written: string;
  /** Folders the install made (the agent had no config folder yet): the uninstall takes them away again when empty. */
  created?: string[];
}

type HookRecords = Partial<Record<HookAgent, Installed>>;

const sha = (bytes: Buffer | string) => createHash("sha256").update(bytes).digest("hex");
const recordsFile = (stateDir: string) => join(stateDir, "hooks.json");

function readRecords(stateDir: string): HookRecords {
  try {
    return JSON.parse(readFileSync(recordsFile(stateDir), "utf8")) as HookRecords;
  } catch {
    return {};
  }
}

function writeRecords(stateDir: string, records: HookRecords): void {
  mkdirDurable(dirname(recordsFile(stateDir)), 0o700);
  writeFileDurable(recordsFile(stateDir), Buffer.from(`${JSON.stringify(records, null, 2)}\n`), 0o600);
}

export interface HookStatus {
  agent: HookAgent;
  file: string;
  /** `installed`: recover's hook is in the file; `changed`: it is, in a file changed since recover wrote it. */
  state: "installed" | "changed" | "absent";
  backup?: string;
}

const textOf = (file: string) => (existsSync(file) ? readFileSync(file, "utf8") : undefined);

export function hookStatus(agent: string, env: NodeJS.ProcessEnv, stateDir: string): HookStatus {
  const hook = agentHook(agent, env);
  const now = textOf(hook.file);
  const record = readRecords(stateDir)[hook.agent];
  if (!hook.holdsHook(now)) return { agent: hook.agent, file: hook.file, state: "absent" };
  const state = record && now !== undefined && sha(now) === record.written ? "installed" : "changed";
  return { agent: hook.agent, file: hook.file, state, ...(record ? { backup: record.backup } : {}) };
}

export interface HookChange {
  agent: HookAgent;
  file: string;
  before: string | undefined;
  after: string | undefined;
  backup: Backup | null;
}

interface Where {
  stateDir: string;
  backupRoot?: string;
  dryRun?: boolean;
}

/** The folders from the file's up to the first that exists, deepest first. */
function missingFolders(file: string): string[] {
  const missing: string[] = [];
  for (let dir = dirname(file); !existsSync(dir) && dirname(dir) !== dir; dir = dirname(dir)) missing.push(dir);
  return missing;
}

/** One file of the agent's config folder set to `after` (undefined: removed), backed up first. */
function writeConfig(hook: AgentHook, after: string | undefined, where: Where, rule: string): HookChange {
  const store = new WholeFilesStore(AGENT_CONFIG_FORMAT, hook.dir, "an agent's config folder");
  const key: RecordKey = { record: "file", id: relative(hook.dir, hook.file), sessionId: hook.agent, path: hook.file };
  const before = textOf(hook.file);
  if (where.dryRun || before === after) return { agent: hook.agent, file: hook.file, before, after, backup: null };
  // The store's lock lives beside its folder: an agent with no config folder yet gets one (installHook records it).
  mkdirDurable(hook.dir);
  const backup = withStoreTransaction(
    store,
    (tx) => {
      const now = tx.writer.read(key);
      const image: StoredImage =
        after === undefined ? ABSENT : { exists: true, bytes: Buffer.from(after), mode: now.exists ? (now.mode ?? NEW_FILE_MODE) : NEW_FILE_MODE };
      const targets = [{ key, before: now, after: image }];
      return tx.commit({ kind: "repair", sessions: [hook.agent], changes: changesOfTargets(targets, rule), targets });
    },
    { stateDir: where.stateDir, backupRoot: where.backupRoot ?? backupsIn(where.stateDir), refuseUnwritable: false },
  );
  return { agent: hook.agent, file: hook.file, before, after, backup };
}

export function installHook(agent: string, env: NodeJS.ProcessEnv, recover: RecoverCommand, where: Where): HookChange {
  const hook = agentHook(agent, env);
  const now = textOf(hook.file);
  // Already there (a second install): nothing to write, nothing to record anew.
  if (hook.holdsHook(now)) return { agent: hook.agent, file: hook.file, before: now, after: now, backup: null };
  const after = hook.withHook(now, recover);
  const created = where.dryRun ? [] : missingFolders(hook.file);
  const change = writeConfig(hook, after, where, "hooks-install");
  if (change.backup) {
    const records = readRecords(where.stateDir);
    records[hook.agent] = { file: hook.file, backup: change.backup.manifest.id, written: sha(after), ...(created.length > 0 ? { created } : {}) };
    writeRecords(where.stateDir, records);
  }
  return change;
}

/**
 * The file as it was before the install, from the install's backup, when nobody changed it since; else the file as
 * it is without recover's hook (the plugin file: none).
 */
export function uninstallHook(agent: string, env: NodeJS.ProcessEnv, where: Where): HookChange {
  const hook = agentHook(agent, env);
  const now = textOf(hook.file);
  const records = readRecords(where.stateDir);
  const record = records[hook.agent];
  if (!hook.holdsHook(now)) return { agent: hook.agent, file: hook.file, before: now, after: now, backup: null };
  let after: string | undefined;
  if (record && now !== undefined && sha(now) === record.written) after = beforeInstall(record, where);
  else after = hook.withoutHook(now);
  const change = writeConfig(hook, after, where, "hooks-uninstall");
  if (change.backup && record) {
    // The folders the install made, when nothing else is in them now (deepest first).
    for (const dir of record.created ?? []) {
      try {
        rmdirSync(dir);
      } catch {
        break;
      }
    }
    delete records[hook.agent];
    writeRecords(where.stateDir, records);
  }
  return change;
}

/** The file's bytes as the install's backup holds them (undefined: there was no file). */
function beforeInstall(record: Installed, where: Where): string | undefined {
  const root = where.backupRoot ?? backupsIn(where.stateDir);
  let backup: Backup;
  try {
    backup = readBackup(root, record.backup);
  } catch {
    throw new RecoverError(
      "backup-unreadable",
      `the backup of ${record.file} taken when the hook was installed (${record.backup}) cannot be read; nothing was changed`,
    );
  }
  const entry = backup.manifest.images.find((image) => image.key.path === record.file || basename(image.key.path ?? "") === basename(record.file));
  if (!entry) throw new RecoverError("backup-unreadable", `backup ${record.backup} holds no ${record.file}; nothing was changed`);
  const image = beforeImage(backup, entry, modeOf(entry.before));
  return image.exists ? image.bytes.toString("utf8") : undefined;
}
