/**
 * Writes that survive a crash at any instant: a file is replaced by writing a temp file beside it, fsyncing it,
 * renaming it over the target and fsyncing the directory, so the path always names either the old bytes or the
 * new ones. Shared by the JSON-tree writer and the backup store.
 */
import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, unlinkSync, writeSync, fchmodSync, futimesSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/** Temp files carry this marker (and never end in `.json`, so no store reader mistakes one for a record). */
export const TEMP_MARKER = ".recover-tmp-";

export function fsyncPath(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Create a directory (and its parents), fsyncing each parent that gained an entry. */
export function mkdirDurable(dir: string, mode = 0o755): void {
  const first = mkdirSync(dir, { recursive: true, mode });
  if (first === undefined) return;
  for (let d = dir; ; d = dirname(d)) {
    fsyncPath(dirname(d));
    if (d === first || dirname(d) === d) break;
  }
}

/** `bytes` may come in pieces (a backup's images end to end): written in order, never joined into one more copy. */
export function writeFileDurable(path: string, bytes: Uint8Array | readonly Uint8Array[], mode = 0o644, mtimeMs?: number): void {
  const dir = dirname(path);
  const temp = join(dir, `.${basename(path)}${TEMP_MARKER}${process.pid}-${randomBytes(4).toString("hex")}`);
  const fd = openSync(temp, "wx", mode);
  try {
    // The umask may have narrowed the mode: set it exactly, so a restored file is identical to the original.
    fchmodSync(fd, mode);
    for (const piece of bytes instanceof Uint8Array ? [bytes] : bytes) {
      let written = 0;
      while (written < piece.length) written += writeSync(fd, piece, written, piece.length - written);
    }
    // Seconds as a number keep the sub-millisecond part a Date would drop.
    if (mtimeMs !== undefined) futimesSync(fd, Date.now() / 1000, mtimeMs / 1000);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  closeSync(fd);
  try {
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  fsyncPath(dir);
}

export function unlinkDurable(path: string): void {
  unlinkSync(path);
  fsyncPath(dirname(path));
}
