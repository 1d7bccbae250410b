/**
 * The journal of transactions in flight: a pointer per store (in the state dir, so it is found whatever
 * --backup-dir was used) to the backup whose manifest says how far it got. The next command on that store settles
 * it before doing anything else, the way SQLite rolls back a hot journal: a transaction that completed is marked
 * done; one that was cut short is undone record by record from its before-images.
 */
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { RecoverError } from "../errors.js";
import { TEMP_MARKER, writeFileDurable, mkdirDurable } from "../fs/durable.js";
import type { ImageTarget, StoreWriter } from "../stores/store.js";
import { beforeImage, fingerprint, modeOf, readManifest, setState, type Backup } from "./backup-store.js";
import { storeKey } from "./lock.js";

function pointerFile(state: string, storePath: string): string {
  return join(state, "journal", `${storeKey(storePath)}.json`);
}

export function journal(state: string, storePath: string, backup: Backup): void {
  mkdirDurable(join(state, "journal"), 0o700);
  writeFileDurable(pointerFile(state, storePath), Buffer.from(JSON.stringify({ backup: backup.dir, store: storePath })), 0o600);
}

export function clearJournal(state: string, storePath: string): void {
  rmSync(pointerFile(state, storePath), { force: true });
}

/**
 * Settle a transaction left unfinished for this store, if any; returns what was done, for the user to read.
 * Call with the store lock held. `resolving`: the backup id of an unfinished transaction the caller resolves itself
 * (a forced restore of it); its entry stays until the caller's own transaction replaces it.
 */
export function recoverJournal(state: string, writer: StoreWriter, resolving?: string): string | undefined {
  const pointer = pointerFile(state, writer.info.path);
  if (!existsSync(pointer)) return undefined;
  let dir: string;
  try {
    dir = (JSON.parse(readFileSync(pointer, "utf8")) as { backup: string }).backup;
  } catch {
    rmSync(pointer, { force: true });
    return undefined;
  }
  if (!existsSync(join(dir, "manifest.json"))) {
    // The crash came before the backup was complete, so before the store was touched.
    rmSync(pointer, { force: true });
    return undefined;
  }
  const backup: Backup = { dir, manifest: readManifest(dir) };
  if (resolving !== undefined && backup.manifest.id === resolving) return undefined;
  const outcome = settle(backup, writer);
  rmSync(pointer, { force: true });
  return outcome;
}

/** Bring an interrupted transaction to a clean end: done if every record got its new state, else undone. */
export function settle(backup: Backup, writer: StoreWriter): string | undefined {
  const { manifest } = backup;
  if (manifest.state === "planned") {
    setState(backup, "abandoned");
    return undefined;
  }
  if (manifest.state !== "applying") return undefined;
  removeTempFiles(manifest.images.map((e) => e.key.path).filter((p): p is string => p !== undefined));
  const current = manifest.images.map((entry) => ({ entry, now: writer.read(entry.key) }));
  const strangers = current.filter(({ entry, now }) => fingerprint(now) !== entry.before && fingerprint(now) !== entry.after);
  if (strangers.length > 0) {
    const names = strangers
      .slice(0, 3)
      .map(({ entry }) => `${entry.key.record} ${entry.key.id}`)
      .join(", ");
    throw new RecoverError(
      "interrupted-transaction",
      `${manifest.kind} ${manifest.id} was interrupted and ${names} changed since; nothing was done. Inspect ${backup.dir}`,
      { words: ["session", "restore", manifest.id, "--force"], why: "to put back what was there before it, once you have looked" },
    );
  }
  if (current.every(({ entry, now }) => fingerprint(now) === entry.after)) {
    setState(backup, "done");
    return `an interrupted ${manifest.kind} (backup ${manifest.id}) had completed; it is now marked done`;
  }
  const undo: ImageTarget[] = current
    .filter(({ entry, now }) => entry.before !== entry.after && fingerprint(now) === entry.after)
    .map(({ entry, now }) => ({ key: entry.key, before: now, after: beforeImage(backup, entry, modeOf(entry.before)) }));
  writer.apply(undo);
  setState(backup, "rolled-back");
  return `an interrupted ${manifest.kind} (backup ${manifest.id}) was rolled back; the store is as it was before it`;
}

/** Temp files of a write a crash cut short, beside the records the transaction touched. */
function removeTempFiles(paths: string[]): void {
  for (const dir of new Set(paths.map(dirname))) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) if (name.includes(TEMP_MARKER)) rmSync(join(dir, name), { force: true });
  }
}

/**
 * Settle the transaction a dead recover from another state dir was applying (its lock named the backup), and drop
 * that state dir's pointer to it when it can be reached. Call with the store lock held.
 */
export function settleTakenOver(holderState: string, backupDir: string, writer: StoreWriter): string | undefined {
  if (!existsSync(join(backupDir, "manifest.json"))) return undefined;
  const outcome = settle({ dir: backupDir, manifest: readManifest(backupDir) }, writer);
  try {
    const pointer = pointerFile(holderState, writer.info.path);
    if ((JSON.parse(readFileSync(pointer, "utf8")) as { backup?: string }).backup === backupDir) rmSync(pointer, { force: true });
  } catch {
    /* out of reach, or already gone: that recover's next command finds the backup settled */
  }
  return outcome;
}

/**
 * The store changed under a transaction while it was applied (another writer got in): put back every record this
 * transaction already wrote, leave the stranger's records alone. Returns how many records were put back.
 */
export function undoOwnWrites(backup: Backup, writer: StoreWriter): number {
  const { manifest } = backup;
  removeTempFiles(manifest.images.map((e) => e.key.path).filter((p): p is string => p !== undefined));
  const undo: ImageTarget[] = manifest.images
    .map((entry) => ({ entry, now: writer.read(entry.key) }))
    .filter(({ entry, now }) => entry.before !== entry.after && fingerprint(now) === entry.after)
    .map(({ entry, now }) => ({ key: entry.key, before: now, after: beforeImage(backup, entry, modeOf(entry.before)) }));
  if (undo.length > 0) writer.apply(undo);
  setState(backup, undo.length > 0 ? "rolled-back" : "abandoned");
  return undo.length;
}

export function hasJournal(state: string, storePath: string): boolean {
  return existsSync(pointerFile(state, storePath));
}
