/**
 * Backups on disk: `<root>/<backup-id>/manifest.json` plus one file per before-image under `images/`. Everything is
 * fsynced before the store is touched, and private (0700/0600): backups hold whole transcripts.
 */
import { createHash, randomBytes } from "node:crypto";
import { chmodSync, closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { ownWriteError, RecoverError } from "../errors.js";
import { fsyncPath, mkdirDurable, TEMP_MARKER, writeFileDurable } from "../fs/durable.js";
import type { RecordKey, StoredImage } from "../model/change.js";
import { assertSafeId } from "../stores/session-id.js";
import { type ImageEntry, type Manifest, manifestSchemas, type TransactionState } from "./manifest.js";

const PRIVATE_DIR = 0o700;
const PRIVATE_FILE = 0o600;

export interface Backup {
  dir: string;
  manifest: Manifest;
}

/** Sortable by time, unique without coordination: `20261122T190503Z-9f2c1e`. */
export function newBackupId(now: number): string {
  const stamp = new Date(now)
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
  return `${stamp}-${randomBytes(3).toString("hex")}`;
}

/** A record's state in one string: content hash, and the file mode where the store has one. Null: absent. */
export function fingerprint(image: StoredImage): string | null {
  if (!image.exists) return null;
  const hash = createHash("sha256").update(image.bytes).digest("hex");
  return image.mode === undefined ? hash : `${hash}:${image.mode.toString(8)}`;
}

function ensurePrivateDir(dir: string): void {
  mkdirDurable(dir, PRIVATE_DIR);
  chmodSync(dir, PRIVATE_DIR);
}

/** The before-images of a backup, end to end in one file: one fsync for any number of records. */
export const IMAGES_FILE = "images.bin";

/**
 * A backup is written in a folder named like a temp file, with the writer's pid (`.<id>.recover-tmp-<pid>-<hex>`),
 * and renamed to its id once whole: a folder named by an id is always a whole backup, and one a killed recover left
 * says who left it (leftovers.ts removes it; `session backups` lists it as incomplete).
 */
export function backupTempDir(root: string, id: string): string {
  return join(root, `.${id}${TEMP_MARKER}${process.pid}-${randomBytes(4).toString("hex")}`);
}

/** Write every before-image, then the manifest, all fsynced: only then may the store be changed. */
export function writeBackup(root: string, manifest: Manifest, beforeImages: readonly StoredImage[]): Backup {
  const dir = join(root, manifest.id);
  const temp = backupTempDir(root, manifest.id);
  try {
    ensurePrivateDir(root);
    ensurePrivateDir(temp);
    writeBackupFiles(temp, manifest, beforeImages);
    renameSync(temp, dir);
    fsyncPath(root);
  } catch (error) {
    // A backup that is not whole is no backup: remove it.
    discardBackupDir(temp);
    discardBackupDir(dir);
    throw ownWriteError(error, `the backup to ${root}`, (place) => `pass --backup-dir <${place}>`);
  }
  return { dir, manifest };
}

/** Remove a backup that never protected anything (it failed half-way, or the store was never touched). */
export function discardBackupDir(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true });
  } catch {
    /* under a --backup-dir that is a file there is nothing to remove */
  }
}

function writeBackupFiles(dir: string, manifest: Manifest, beforeImages: readonly StoredImage[]): void {
  const chunks: Buffer[] = [];
  let offset = 0;
  manifest.images.forEach((entry, i) => {
    const image = beforeImages[i]!;
    if (!image.exists) return;
    entry.offset = offset;
    entry.length = image.bytes.length;
    chunks.push(image.bytes);
    offset += image.bytes.length;
  });
  writeFileDurable(join(dir, IMAGES_FILE), chunks, PRIVATE_FILE);
  writeManifest(dir, manifest);
}

export function writeManifest(dir: string, manifest: Manifest): void {
  writeFileDurable(join(dir, "manifest.json"), Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`), PRIVATE_FILE);
}

export function setState(backup: Backup, state: TransactionState): void {
  backup.manifest.state = state;
  writeManifest(backup.dir, backup.manifest);
}

export function readBackup(root: string, id: string): Backup {
  assertSafeId(id, "backup id");
  const dir = join(root, id);
  if (!existsSync(join(dir, "manifest.json"))) {
    throw new RecoverError("backup-not-found", `no backup ${id} in ${root}`, { words: ["session", "backups"], why: "to list them" });
  }
  return { dir, manifest: readManifest(dir) };
}

export function readManifest(dir: string): Manifest {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
  } catch (error) {
    throw new RecoverError("backup-unreadable", `the backup manifest ${join(dir, "manifest.json")} cannot be read (${(error as Error).message})`);
  }
  const result = manifestSchemas().Manifest.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new RecoverError("backup-unreadable", `the backup manifest ${join(dir, "manifest.json")} is not valid (${issue?.path.join(".")}: ${issue?.message})`);
  }
  return result.data;
}

/** The before-image an entry points at, checked against its fingerprint so a damaged backup is never restored. */
export function beforeImage(backup: Backup, entry: ImageEntry, mode: number | undefined): StoredImage {
  if (entry.offset === undefined || entry.length === undefined) return { exists: false };
  const bytes = Buffer.alloc(entry.length);
  const file = join(backup.dir, IMAGES_FILE);
  let fd: number | undefined;
  try {
    fd = openSync(file, "r");
    let read = 0;
    while (read < entry.length) {
      const n = readSync(fd, bytes, read, entry.length - read, entry.offset + read);
      if (n === 0) break;
      read += n;
    }
    if (read < entry.length) throw Object.assign(new Error("ends early"), { code: "truncated" });
  } catch (error) {
    throw new RecoverError(
      "backup-unreadable",
      `backup ${backup.manifest.id}: ${IMAGES_FILE} cannot give back ${entry.key.record} ${entry.key.id} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  const image: StoredImage = {
    exists: true,
    bytes,
    ...(mode !== undefined ? { mode } : {}),
    ...(entry.mtimeMs !== undefined ? { mtimeMs: entry.mtimeMs } : {}),
  };
  if (fingerprint(image) !== entry.before) {
    throw new RecoverError(
      "backup-unreadable",
      `backup ${backup.manifest.id}: the image of ${entry.key.record} ${entry.key.id} does not match its recorded fingerprint; it will not be restored`,
    );
  }
  return image;
}

/** The fields of a record key, in one order: how a key read back is compared with the key that was written. */
const KEY_FIELDS = ["record", "id", "sessionId", "messageId", "path"] as const;

function sameKey(a: RecordKey, b: RecordKey): boolean {
  return KEY_FIELDS.every((field) => a[field] === b[field]);
}

/**
 * The backup just written, read back through the code `session restore` uses (the manifest's schema, every
 * before-image against its fingerprint) and held against the manifest as it was written, whose keys and fingerprints
 * were taken from the records being changed: same id, sessions and changes, one entry per record with the same key
 * and fingerprints, and each before-image giving back the bytes of its fingerprint. A backup that fails this could
 * not undo the change, so the change is not made: the caller writes nothing to the store and refuses.
 */
export function verifyBackup(written: Backup): void {
  const problem = readBackProblem(written);
  if (problem === undefined) return;
  throw new RecoverError(
    "backup-unverified",
    `backup ${written.manifest.id} does not read back as the records it must restore (${problem}); nothing was changed (please report this)`,
  );
}

/** The first way the backup on disk differs from what it must hold, or undefined when it holds exactly that. */
function readBackProblem(written: Backup): string | undefined {
  let read: Backup;
  try {
    read = { dir: written.dir, manifest: readManifest(written.dir) };
  } catch (error) {
    return (error as Error).message;
  }
  const { manifest } = read;
  if (manifest.id !== written.manifest.id) return `its manifest names backup ${manifest.id}`;
  if (manifest.sessions.length !== written.manifest.sessions.length || manifest.sessions.some((s, i) => s !== written.manifest.sessions[i])) {
    return "its sessions differ";
  }
  if (manifest.changes.length !== written.manifest.changes.length) return "its changes differ";
  const images = written.manifest.images;
  if (manifest.images.length !== images.length) return `${manifest.images.length} images for ${images.length} records`;
  for (const [i, entry] of manifest.images.entries()) {
    const planned = images[i]!;
    const name = `${entry.key.record} ${entry.key.id}`;
    if (!sameKey(entry.key, planned.key)) return `image ${i} names ${name}, not ${planned.key.record} ${planned.key.id}`;
    if (entry.before !== planned.before || entry.after !== planned.after) return `the fingerprints of ${name} differ`;
    try {
      // Reads the image back and checks it against its fingerprint, as restore does: the bytes are the before-image's.
      beforeImage(read, entry, modeOf(entry.before));
    } catch (error) {
      return (error as Error).message;
    }
  }
  return undefined;
}

/** The file mode a fingerprint recorded (JSON tree), so the restored file gets it back. */
export function modeOf(fingerprintValue: string | null): number | undefined {
  const mode = fingerprintValue?.split(":")[1];
  return mode === undefined ? undefined : Number.parseInt(mode, 8);
}

export function listBackups(root: string): Backup[] {
  if (!existsSync(root)) return [];
  const found: Backup[] = [];
  for (const name of readdirSync(root).sort()) {
    const dir = join(root, name);
    // A dot folder is a backup still being written (or one a killed recover left): not a backup yet.
    if (name.startsWith(".") || !statSync(dir).isDirectory() || !existsSync(join(dir, "manifest.json"))) continue;
    try {
      found.push({ dir, manifest: readManifest(dir) });
    } catch {
      /* a foreign or damaged folder is not ours to list */
    }
  }
  // Ids of one second sort by their random tail: order by creation time instead, oldest first.
  return found.sort((a, b) => a.manifest.createdAt.localeCompare(b.manifest.createdAt) || a.manifest.id.localeCompare(b.manifest.id));
}
