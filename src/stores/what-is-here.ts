/**
 * What a path holds, judged from its bytes and layout alone, before any adapter reads it: a forced `--format`
 * that does not match what is on disk is refused here, so no adapter ever parses (or rewrites) a store of
 * another kind (a SQLite file read as a transcript "repaired" into 0 bytes).
 */
import { closeSync, existsSync, openSync, readdirSync, readSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { RecoverError, fsError } from "../errors.js";
import type { TranscriptDialect } from "../model/transcript.js";
import type { StoreFormat } from "./store.js";

const SQLITE_MAGIC = "SQLite format 3\0";
/** Enough for the first line of nearly every transcript (Claude Code lines can run to many KB). */
const HEAD_BYTES = 64 * 1024;

export interface WhatIsHere {
  /** For a person: "a SQLite database", "an opencode JSON tree (storage/)", "an empty folder", … */
  description: string;
  /** The formats this path can be opened as (empty: none that recover knows). */
  formats: StoreFormat[];
}

/** How each format is named in messages, with the shapes `--store` takes for it. */
export const FORMAT_NAMES: Record<Exclude<StoreFormat, "pokeralph-battle">, { noun: string; expects: string }> = {
  "opencode-sqlite": { noun: "an opencode SQLite store", expects: "an opencode.db file or a data dir holding one" },
  "opencode-json": { noun: "an opencode JSON tree", expects: "a storage/ folder with session/, message/, part/, or a data dir holding one" },
  claude: { noun: "a Claude Code store", expects: "a config dir with projects/, a projects/ dir, a project dir or a .jsonl" },
  openclaw: { noun: "an openclaw store", expects: "a state dir with agents/, a sessions/ dir or a .jsonl" },
};

/** Refuse a forced format that does not match what is at `target` (exit 2, one line saying what is there). */
export function assertFormatMatches(target: string, format: StoreFormat, found: WhatIsHere = whatIsAt(target)): void {
  if (format === "pokeralph-battle") return;
  if (found.formats.includes(format)) return;
  const { noun, expects } = FORMAT_NAMES[format];
  throw new RecoverError("not-a-store", `--format ${format}: ${target} is ${found.description}, not ${noun} (expected ${expects})`);
}

export function whatIsAt(target: string): WhatIsHere {
  const stat = statOrThrow(target);
  if (stat.isFile()) return fileKind(target, stat.size);
  if (!stat.isDirectory()) return { description: "neither a file nor a folder", formats: [] };
  return folderKind(target);
}

function fileKind(path: string, size: number): WhatIsHere {
  const head = readHead(path);
  if (isSqlite(head)) {
    return { description: "a SQLite database", formats: ["opencode-sqlite"] };
  }
  const jsonl = path.endsWith(".jsonl");
  if (size === 0) return { description: "an empty file", formats: jsonl ? ["claude", "openclaw"] : [] };
  // A damaged transcript may begin with a NUL run or a torn line; its name still says what it is.
  if (jsonl || firstLineIsJsonObject(head)) {
    const dialect = transcriptDialect(head);
    return { description: `${dialect === "claude" ? "a Claude Code" : "an openclaw"} transcript`, formats: [dialect] };
  }
  return { description: "a file that is neither a SQLite database nor a JSONL transcript", formats: [] };
}

function folderKind(dir: string): WhatIsHere {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch (error) {
    throw fsError(error, dir) ?? error;
  }
  if (entries.length === 0) return { description: "an empty folder", formats: [] };
  const formats: StoreFormat[] = [];
  const described: string[] = [];
  if (entries.includes("opencode.db")) {
    formats.push("opencode-sqlite");
    described.push("an opencode data dir (opencode.db)");
  }
  if (isStorageTree(dir) || (basename(dir) !== "storage" && isStorageTree(join(dir, "storage")))) {
    formats.push("opencode-json");
    described.push("an opencode JSON tree (storage/)");
  }
  if (entries.includes("agents") || entries.includes("sessions.json")) {
    formats.push("openclaw");
    described.push("an openclaw state or sessions dir");
  } else if (entries.includes("projects")) {
    formats.push("claude");
    described.push("a Claude Code config dir (projects/)");
  } else {
    const transcript = entries.find((name) => name.endsWith(".jsonl"));
    if (transcript !== undefined) {
      const dialect = transcriptDialect(readHead(join(dir, transcript)));
      formats.push(dialect);
      described.push(`a folder of ${dialect === "claude" ? "Claude Code" : "openclaw"} transcripts`);
    } else if (holdsProjectFolders(dir, entries)) {
      formats.push("claude");
      described.push("a Claude Code projects/ dir");
    }
  }
  if (described.length > 0) return { description: described.join(" and "), formats };
  return { description: "a folder holding no store recover knows (no opencode.db, storage/, projects/, agents/ or .jsonl)", formats };
}

/** opencode's JSON tree keeps one folder per record kind. */
function isStorageTree(dir: string): boolean {
  return ["session", "message", "part"].some((sub) => existsSync(join(dir, sub)));
}

/** Claude Code's `projects/`: one folder per project, transcripts inside (checked in a few folders, not all). */
function holdsProjectFolders(dir: string, entries: string[]): boolean {
  for (const name of entries.slice(0, 64)) {
    try {
      if (readdirSync(join(dir, name)).some((file) => file.endsWith(".jsonl"))) return true;
    } catch {
      // not a folder, or unreadable: not a project
    }
  }
  return false;
}

/** pi's transcripts open with a `session` header; Claude Code's never do. */
function transcriptDialect(head: Buffer): TranscriptDialect {
  return /^[\s\0]*\{[^\n]*"type"\s*:\s*"session"/.test(head.toString("utf8")) ? "openclaw" : "claude";
}

function firstLineIsJsonObject(head: Buffer): boolean {
  const text = head.toString("utf8").replace(/^[\s\0]+/, "");
  const end = text.indexOf("\n");
  if (!text.startsWith("{") || end < 0) return false;
  try {
    const value: unknown = JSON.parse(text.slice(0, end));
    return typeof value === "object" && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

/** Every opened database is checked: its 16-byte header, not a transcript's 64 KB head. */
export function hasSqliteHeader(path: string): boolean {
  return isSqlite(readHead(path, SQLITE_MAGIC.length));
}

function isSqlite(head: Buffer): boolean {
  return head.length >= SQLITE_MAGIC.length && head.subarray(0, SQLITE_MAGIC.length).toString("latin1") === SQLITE_MAGIC;
}

function readHead(path: string, bytes: number = HEAD_BYTES): Buffer {
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
