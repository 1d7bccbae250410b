/**
 * Reading a path just enough to say what it is: its stat, the head of a file, a folder's entries. Every failure
 * becomes the one-line error a user should read (no such store, permission denied, …).
 */
import { accessSync, closeSync, constants, openSync, readdirSync, readSync, statSync } from "node:fs";
import { RecoverError, fsError } from "../errors.js";
import type { PathProbe } from "./adapter.js";

const SQLITE_MAGIC = "SQLite format 3\0";
/** Enough for the first line of nearly every transcript (Claude Code lines can run to many KB). */
const HEAD_BYTES = 64 * 1024;

/** A file or folder, read once; undefined for anything else (a socket, a device). */
export function probePath(path: string): PathProbe | undefined {
  const stat = statOrThrow(path);
  if (stat.isFile()) {
    let head: Buffer | undefined;
    return { path, kind: "file", size: stat.size, head: () => (head ??= readHead(path)), entries: [] };
  }
  if (!stat.isDirectory()) return undefined;
  let entries: string[];
  try {
    entries = readdirSync(path);
  } catch (error) {
    throw fsError(error, path) ?? error;
  }
  return { path, kind: "folder", size: stat.size, head: () => Buffer.alloc(0), entries };
}

/** Every opened database is checked: its 16-byte header, not a transcript's 64 KB head. */
export function hasSqliteHeader(path: string): boolean {
  return isSqlite(readHead(path, SQLITE_MAGIC.length));
}

export function isSqlite(head: Buffer): boolean {
  return head.length >= SQLITE_MAGIC.length && head.subarray(0, SQLITE_MAGIC.length).toString("latin1") === SQLITE_MAGIC;
}

export function readHead(path: string, bytes: number = HEAD_BYTES): Buffer {
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    const head = Buffer.alloc(bytes);
    return head.subarray(0, readSync(fd, head, 0, bytes, 0));
  } catch (error) {
    throw fsError(error, path) ?? error;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The path's stat, or the one-line error a user should read (no such store, permission denied, …). */
export function statOrThrow(path: string) {
  try {
    return statSync(path);
  } catch (error) {
    const known = fsError(error, path);
    if (known?.code === "store-not-found") throw new RecoverError("store-not-found", `no such store: ${path}`);
    throw known ?? error;
  }
}

/** An unreadable folder would otherwise look empty (existsSync says false inside it): say what is wrong. */
export function assertReadableDir(dir: string): void {
  try {
    accessSync(dir, constants.R_OK | constants.X_OK);
  } catch (error) {
    throw fsError(error, dir) ?? error;
  }
}
