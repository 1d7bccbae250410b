/**
 * What a killed recover leaves outside the store: a backup folder it had not finished (images, a manifest temp
 * file, no manifest) and temp files of its own state (journal pointers, own-writes). The store itself is settled by
 * the journal; these are found and removed by the next transaction, and listed by `session backups` as incomplete.
 * Nothing is removed whose writer may still be at work: a backup is written in a temp folder named with its
 * writer's pid and renamed once whole (backup-store.ts backupTempDir), a temp file is named with its writer's pid.
 */
import { existsSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { TEMP_MARKER } from "../fs/durable.js";
import { alive, FOREIGN_STALE_MS } from "./lock.js";

/** A backup folder with no manifest, named by an id (a recover from before backups were renamed into place). */
const UNNAMED_STALE_MS = 60 * 60_000;

export interface IncompleteBackup {
  id: string;
  dir: string;
  /** When it was last written (its newest entry). */
  touchedMs: number;
  /** Its writer is gone: nothing will ever complete it. */
  orphaned: boolean;
}

function newestMtime(dir: string): number {
  let newest = statSync(dir).mtimeMs;
  for (const name of readdirSync(dir)) {
    try {
      newest = Math.max(newest, statSync(join(dir, name)).mtimeMs);
    } catch {
      /* removed meanwhile */
    }
  }
  return newest;
}

/** The pid a temp name carries after its marker (`….recover-tmp-<pid>-<hex>`). */
function pidOf(name: string): number | undefined {
  const at = name.indexOf(TEMP_MARKER);
  const pid = at < 0 ? Number.NaN : Number.parseInt(name.slice(at + TEMP_MARKER.length), 10);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/**
 * Whether the writer of a temp (named with its pid) last touched at `touchedMs` is gone: its pid is, or it has not
 * been written for a long time. A pid is judged on this machine: a temp of a recover on another host sharing the
 * folder (NFS) could be taken for an orphan, and its write then fails whole (its rename finds no temp), never half.
 */
function tempOrphaned(name: string, touchedMs: number, now: number): boolean {
  const pid = pidOf(name);
  const gone = pid !== undefined && pid !== process.pid && !alive(pid);
  return gone || now - touchedMs > FOREIGN_STALE_MS;
}

/** Backup folders under `root` that are not whole: being written right now, or left by a killed recover. */
export function incompleteBackups(root: string, now = Date.now()): IncompleteBackup[] {
  let names: string[];
  try {
    names = readdirSync(root).sort();
  } catch {
    return [];
  }
  const found: IncompleteBackup[] = [];
  for (const name of names) {
    const dir = join(root, name);
    try {
      if (!statSync(dir).isDirectory()) continue;
      const temp = name.startsWith(".") && name.includes(TEMP_MARKER);
      if (!temp && (name.startsWith(".") || existsSync(join(dir, "manifest.json")))) continue;
      const touchedMs = newestMtime(dir);
      const id = temp ? name.slice(1, name.indexOf(TEMP_MARKER)) : name;
      const orphaned = temp ? tempOrphaned(name, touchedMs, now) : now - touchedMs > UNNAMED_STALE_MS;
      found.push({ id, dir, touchedMs, orphaned });
    } catch {
      /* removed meanwhile, or not ours to read */
    }
  }
  return found.sort((a, b) => a.id.localeCompare(b.id));
}

/** Remove an orphaned incomplete backup: it never protected anything (the store is not touched before it is whole). */
export function removeIncomplete(backup: IncompleteBackup): boolean {
  if (!backup.orphaned || existsSync(join(backup.dir, "manifest.json"))) return false;
  rmSync(backup.dir, { recursive: true, force: true });
  return true;
}

/** Temp files (`.<name>.recover-tmp-<pid>-<hex>`) in `dir` whose writer is gone. */
function removeDeadTemps(dir: string, now: number): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.includes(TEMP_MARKER)) continue;
    const path = join(dir, name);
    try {
      if (tempOrphaned(name, statSync(path).mtimeMs, now)) rmSync(path, { force: true });
    } catch {
      /* removed meanwhile */
    }
  }
}

/**
 * Clean up after killed recovers: orphaned incomplete backups under `backupRoot`, manifest temp files in finished
 * ones, and temp files in the state dir. Best effort: a leftover that cannot be removed only costs disk space.
 */
export function removeLeftovers(state: string, backupRoot: string, now = Date.now()): void {
  try {
    for (const backup of incompleteBackups(backupRoot, now)) removeIncomplete(backup);
    for (const name of existsSync(backupRoot) ? readdirSync(backupRoot) : []) {
      if (!name.startsWith(".")) removeDeadTemps(join(backupRoot, name), now);
    }
    for (const sub of ["journal", "own-writes", "calibration", "locks"]) removeDeadTemps(join(state, sub), now);
  } catch {
    /* see above */
  }
}
