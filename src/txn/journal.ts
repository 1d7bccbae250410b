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

/**
 * A store's entry: the backup of the transaction in flight, and the entry it replaced, when it resolves a
 * transaction that was itself left unfinished (a forced restore of it). That entry comes back when this one ends,
 * however it ends, and is settled then: if this one did not complete, that one is as unfinished as before; if it
 * did, settling finds nothing left to undo (or undoes what a restore of one session left) and marks it rolled back.
 */
export interface JournalEntry {
  backup: string;
  store: string;
  replaces?: JournalEntry;
}

export function journal(state: string, storePath: string, backup: Backup, replaces?: JournalEntry): void {
  writeEntry(state, storePath, { backup: backup.dir, store: storePath, ...(replaces ? { replaces } : {}) });
}

function writeEntry(state: string, storePath: string, entry: JournalEntry): void {
  mkdirDurable(join(state, "journal"), 0o700);
  writeFileDurable(pointerFile(state, storePath), Buffer.from(JSON.stringify(entry)), 0o600);
}

/** A transaction ends its entry: the one it replaced, if any, is the store's entry again (see JournalEntry). */
export function endJournal(state: string, storePath: string, replaced: JournalEntry | undefined): void {
  if (replaced) writeEntry(state, storePath, replaced);
  else rmSync(pointerFile(state, storePath), { force: true });
}

function readEntry(file: string): JournalEntry | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, "utf8")) as JournalEntry;
  } catch {
    rmSync(file, { force: true });
    return undefined;
  }
}

export interface JournalSettled {
  /** What settling did, for the user to read. */
  outcome?: string;
  /** The entry left in place for the caller that resolves it (`resolving`); its transaction replaces it. */
  resolving?: JournalEntry;
}

/**
 * Settle a transaction left unfinished for this store, if any, and then the one it replaced, if it did not
 * complete. Call with the store lock held. `resolving`: the backup id of an unfinished transaction the caller
 * resolves itself (a forced restore of it); its entry stays until the caller's own transaction replaces it.
 */
export function recoverJournal(state: string, writer: StoreWriter, resolving?: string): JournalSettled {
  const file = pointerFile(state, writer.info.path);
  const outcomes: string[] = [];
  const said = () => (outcomes.length > 0 ? { outcome: outcomes.join("; ") } : {});
  for (let entry = readEntry(file); entry !== undefined; ) {
    // No manifest: the crash came before the backup was complete, so before the store was touched.
    const backup: Backup | undefined = existsSync(join(entry.backup, "manifest.json"))
      ? { dir: entry.backup, manifest: readManifest(entry.backup) }
      : undefined;
    if (backup && resolving !== undefined && backup.manifest.id === resolving) return { ...said(), resolving: entry };
    const outcome = backup ? settle(backup, writer) : undefined;
    if (outcome) outcomes.push(outcome);
    // What this transaction replaced is settled next: it is unfinished again if this one was undone, and if this
    // one completed (a whole restore of it), settling it finds nothing left to undo and marks it rolled back.
    endJournal(state, writer.info.path, entry.replaces);
    entry = entry.replaces;
  }
  return said();
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
 * Settle the transaction a dead recover from another state dir was applying (its lock named the backup), and end
 * that state dir's entry for it when it can be reached. Call with the store lock held.
 */
export function settleTakenOver(holderState: string, backupDir: string, writer: StoreWriter): string | undefined {
  if (!existsSync(join(backupDir, "manifest.json"))) return undefined;
  const backup: Backup = { dir: backupDir, manifest: readManifest(backupDir) };
  const outcome = settle(backup, writer);
  try {
    const entry = JSON.parse(readFileSync(pointerFile(holderState, writer.info.path), "utf8")) as JournalEntry;
    if (entry.backup === backupDir) endJournal(holderState, writer.info.path, entry.replaces);
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
