/**
 * What stops this user writing a path, if anything: asked by the writability check before a mutation and by the
 * SQLite reader, which falls back to a private copy when it cannot create its -shm beside a database.
 */
import { accessSync, constants } from "node:fs";
import { errnoCode } from "../errors.js";

/** What stops this user writing `path` (a file, or a folder's entries), if anything. */
export function writeBlock(path: string): "read-only filesystem" | "permission denied" | undefined {
  try {
    accessSync(path, constants.W_OK);
    return undefined;
  } catch (error) {
    const code = errnoCode(error);
    if (code === "EROFS") return "read-only filesystem";
    if (code === "EACCES" || code === "EPERM") return "permission denied";
    return undefined;
  }
}
