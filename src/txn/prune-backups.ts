/**
 * `session backups --prune`: backups are recover's own files, so deleting them goes through txn/ like writing
 * them does. A backup is deleted so that it is never half there: its manifest goes first (durably), and a folder
 * without one is neither listed nor restorable; then the images. A backup still being applied is never deleted:
 * the journal needs its before-images to undo a transaction a crash cut short.
 */
import { rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { unlinkDurable } from "../fs/durable.js";
import { readManifest, type Backup } from "./backup-store.js";

const DAY_MS = 24 * 60 * 60 * 1000;

/** Of the listed backups (listBackups), those created more than `olderThanDays` days before `now`; none being applied. */
export function prunableBackups(backups: readonly Backup[], olderThanDays: number, now: number): Backup[] {
  const cutoff = now - olderThanDays * DAY_MS;
  return backups.filter((b) => Date.parse(b.manifest.createdAt) < cutoff && b.manifest.state !== "applying");
}

/**
 * Delete one backup listed under `root`. Its manifest is read again first: a backup that a transaction took over
 * since it was listed (now `applying`), or that is gone or no longer ours, is left alone. Returns whether it went.
 */
export function deleteBackup(root: string, backup: Backup): boolean {
  const dir = backup.dir;
  if (resolve(dirname(dir)) !== resolve(root)) return false;
  let state: string;
  try {
    state = readManifest(dir).state;
  } catch {
    return false;
  }
  if (state === "applying") return false;
  unlinkDurable(join(dir, "manifest.json"));
  rmSync(dir, { recursive: true, force: true });
  return true;
}
