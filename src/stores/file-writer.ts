/**
 * Writes records that are whole files, named by path (an opencode JSON tree, a battle's state files). Each file is
 * replaced atomically (temp file, fsync, rename, fsync the directory) and keeps its mode; a deletion is an unlink
 * once the backup holds the bytes. Several files cannot be renamed at once: the transaction layer's journal
 * completes or undoes a plan that a crash cut short.
 */
import { readFileSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { errnoCode, fsError, storeChanged } from "../errors.js";
import { mkdirDurable, unlinkDurable, writeFileDurable } from "../fs/durable.js";
import { applyOrder, sameImage, type RecordKey, type StoredImage } from "../model/change.js";
import type { ImageTarget, StoreInfo, StoreWriter } from "./store.js";
import { payloadText } from "../model/payload-text.js";

export const NEW_FILE_MODE = 0o644;

export class FileWriter implements StoreWriter {
  constructor(readonly info: StoreInfo) {}

  checkIntegrity(): void {}

  openers(): { pid: number; name: string }[] {
    // Writers of these files open them only for the instant they read or write them: update times are the guard.
    return [];
  }

  private pathOf(key: RecordKey): string {
    if (key.path === undefined) throw new Error(`${key.record} ${key.id} has no file path`);
    return key.path;
  }

  read(key: RecordKey): StoredImage {
    // A session with no session file (records whose session is gone) has nothing to read.
    if (key.path === undefined) return { exists: false };
    const path = key.path;
    try {
      const stat = statSync(path);
      return { exists: true, bytes: readFileSync(path), mode: stat.mode & 0o7777, mtimeMs: stat.mtimeMs };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return { exists: false };
      throw fsError(error, path) ?? error;
    }
  }

  payload(image: StoredImage): Buffer | undefined {
    return image.exists ? image.bytes : undefined;
  }

  describe(image: StoredImage): string {
    return payloadText(image.exists ? image.bytes : undefined);
  }

  withPayload(_key: RecordKey, before: StoredImage, bytes: Buffer, _now?: number): StoredImage {
    return { exists: true, bytes, mode: before.exists ? (before.mode ?? NEW_FILE_MODE) : NEW_FILE_MODE };
  }

  /** Plain files carry no bookkeeping of their own. */
  touched(_key: RecordKey, _before: StoredImage, _now: number): StoredImage | undefined {
    return undefined;
  }

  /** Refuse (store-changed) a file that no longer holds its before-image: someone else wrote it since. */
  private expectBefore(target: ImageTarget): void {
    if (!sameImage(this.read(target.key), target.before)) throw storeChanged(`${this.pathOf(target.key)} changed since it was read`);
  }

  apply(targets: readonly ImageTarget[]): void {
    // Every file first, so a store that changed since the plan is refused before anything is written.
    for (const target of targets) this.expectBefore(target);
    let replaced = 0;
    for (const target of applyOrder(targets)) {
      const path = this.pathOf(target.key);
      // Again as each later file is replaced: a writer that got in while the earlier ones were written is not
      // overwritten (the transaction puts back what this one already wrote). The first was checked an instant ago.
      if (replaced++ > 0) this.expectBefore(target);
      try {
        if (!target.after.exists) {
          if (target.before.exists) unlinkDurable(path);
          continue;
        }
        mkdirDurable(dirname(path));
        writeFileDurable(path, target.after.bytes, target.after.mode ?? NEW_FILE_MODE, target.after.mtimeMs);
      } catch (error) {
        // A file (or its folder) this run read is gone: another writer removed it.
        if (errnoCode(error) === "ENOENT") throw storeChanged(`${path} was removed`);
        throw fsError(error, path) ?? error;
      }
    }
  }

  close(): void {}
}
