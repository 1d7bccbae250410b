/**
 * A set of JSONL transcripts as a session store: Claude Code (`<config>/projects/<encoded cwd>/<uuid>.jsonl`) or
 * openclaw (`<state>/agents/<agent>/sessions/<sessionId>.jsonl`, indexed by `sessions.json`). Each file is one
 * session; its id is the file name. openclaw's session keys (`agent:main:main`) name sessions too.
 */
import fg from "fast-glob";
import { closeSync, fstatSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import { errnoCode, fsError, RecoverError, storeChanged } from "../../errors.js";
import type { LoadMode, SessionSummary } from "../../model/opencode-records.js";
import type { Companion, TranscriptDialect, TranscriptRecords } from "../../model/transcript.js";
import { assertSafeId } from "../session-id.js";
import type { RecordCodec, SessionStore, StoreInfo, StoreWriter } from "../store.js";
import { assembleTranscript } from "./assemble.js";
import { obj, str, timeOf } from "./dialect.js";
import { dialectNamed, formatNamed } from "./format.js";
import { fileNameId } from "./layout.js";
import { TranscriptWriter } from "./transcript-writer.js";
import { transcriptFixing } from "./working.js";

/** A transcript line is its record as compact JSON, which is how both agents write them. */
const lineCodec: RecordCodec = {
  encode: (stored) => Buffer.from(JSON.stringify(stored)),
  stored: (_ids, data) => data,
  partPath: () => undefined,
};

export interface TranscriptRoot {
  dialect: TranscriptDialect;
  /**
   * The store: the agent's config/state dir when what the user named lies inside one, so locks, the journal and
   * backups are the same whichever part of it `--store` names.
   */
  path: string;
  /** Folders holding session files, with fast-glob patterns relative to each. */
  sources: { dir: string; patterns: string[] }[];
  /** The one file, when `--store` named a transcript. */
  file?: string;
}

interface SessionFile {
  id: string;
  path: string;
  /** The session's other files (layout.oneOf picked `path` over them). */
  others?: string[];
}

const HEAD_BYTES = 64 * 1024;

export class TranscriptStore implements SessionStore {
  readonly info: StoreInfo;
  readonly codec = lineCodec;
  readonly fixing = transcriptFixing;
  private files?: Map<string, SessionFile>;
  private keys?: Map<string, string>;

  constructor(
    private readonly root: TranscriptRoot,
    notices: string[] = [],
  ) {
    this.info = { format: root.dialect, path: root.path, notices };
    const named = root.file ?? root.sources[0]?.dir;
    if (named !== undefined && named !== root.path) {
      this.info.part = named;
      notices.push(`reading ${named}, part of the ${dialectNamed(root.dialect).agent} store ${root.path}`);
    }
  }

  private sessionFiles(): Map<string, SessionFile> {
    if (this.files) return this.files;
    const found = new Map<string, SessionFile>();
    const sources = this.root.sources;
    const layout = formatNamed(this.root.dialect).layout;
    const paths =
      this.root.file !== undefined
        ? [this.root.file]
        : sources.flatMap(({ dir, patterns }) =>
            fg.sync(patterns, { cwd: dir, absolute: true, onlyFiles: true, suppressErrors: true, followSymbolicLinks: false }).sort(),
          );
    for (const path of paths) {
      const id = this.root.file !== undefined ? (layout.sessionIdOf(path) ?? fileNameId(path)) : layout.sessionIdOf(path);
      if (id === undefined) continue;
      const other = found.get(id);
      if (other && layout.oneOf) {
        const kept = layout.oneOf(other.path, path);
        found.set(id, { id, path: kept, others: [...(other.others ?? []), kept === path ? other.path : path] });
        continue;
      }
      if (other) {
        throw new RecoverError("session-ambiguous", `session ${id} is in two places (${other.path} and ${path}); point --store at one of them`);
      }
      found.set(id, { id, path });
    }
    this.files = found;
    return found;
  }

  listSessions(): SessionSummary[] {
    const sessions = [...this.sessionFiles().values()].map((file) => this.summaryOf(file));
    return sessions.sort((a, b) => b.updated - a.updated || (a.id < b.id ? -1 : 1));
  }

  listSessionIds(): string[] {
    return [...this.sessionFiles().keys()];
  }

  listStraySessionIds(): string[] {
    return [];
  }

  /** Other names the agent gives its sessions (openclaw's session keys), from its layout's indexes. */
  resolveAlias(name: string): string | undefined {
    return this.aliasMap()?.get(name);
  }

  aliasesOf(id: string): string[] {
    return [...(this.aliasMap() ?? [])].flatMap(([name, named]) => (named === id ? [name] : [])).sort();
  }

  private aliasMap(): Map<string, string> | undefined {
    const aliases = formatNamed(this.root.dialect).layout.aliases;
    if (!aliases) return undefined;
    this.keys ??= aliases([...this.sessionFiles().values()].map((f) => f.path));
    return this.keys;
  }

  /**
   * The version of the client that wrote the session, where its format names one (Dialect.clientVersion): from the
   * first records or the last ones, read from the file's head or tail (the whole file only when its lines are
   * longer than that). Undefined when the format or the session names none, or the file cannot be read now.
   */
  clientVersion(id: string): string | undefined {
    const named = dialectNamed(this.root.dialect).clientVersion;
    const file = this.sessionFiles().get(id);
    if (!named || !file) return undefined;
    const records = named.at === "first" ? firstRecords : lastRecords;
    const versionIn = (bytes: Buffer) => {
      for (const value of records(bytes)) {
        const version = named.of(value);
        if (version) return version;
      }
      return undefined;
    };
    try {
      const { bytes, whole } = readEnd(file.path, named.at);
      return versionIn(bytes) ?? (whole ? undefined : versionIn(readFileSync(file.path)));
    } catch {
      // Removed or unreadable since it was listed: the version only informs a listing.
      return undefined;
    }
  }

  loadSession(id: string, mode: LoadMode): TranscriptRecords {
    assertSafeId(id);
    const file = this.sessionFiles().get(id);
    if (!file) throw new RecoverError("session-not-found", `no session ${id} in this store`, { words: ["session", "list"], why: "to see them" });
    const { bytes, mtime } = readSessionFile(file.path);
    const records = assembleTranscript(bytes, { path: file.path, sessionId: id, dialect: this.root.dialect, mtime }, mode === "full");
    const stale = formatNamed(this.root.dialect).layout.staleIndex?.(this.root.path, id, file.path);
    const first = records.lines.find((line) => line.value !== undefined);
    // Fixable where the layout says what the index row must hold: the fix sets it (stale-bookkeeping).
    if (stale !== undefined && first)
      first.stale = { detail: stale.detail, fixable: stale.index !== undefined, ...(stale.index ? { index: stale.index } : {}) };
    const parent = this.parentOf(file);
    if (parent !== undefined) records.summary.parentId = parent;
    const companions = this.companionsOf(file);
    if (companions.length > 0) records.companions = companions;
    return records;
  }

  /** The session's other files its agent reads no session from (layout.readsNoSession), as they are now. */
  private companionsOf(file: SessionFile): Companion[] {
    const readsNoSession = formatNamed(this.root.dialect).layout.readsNoSession;
    if (!readsNoSession || !file.others) return [];
    return file.others.flatMap((path) => {
      const { bytes } = readSessionFile(path);
      const why = readsNoSession(bytes);
      return why !== undefined ? [{ path, bytes, readsNoSession: why }] : [];
    });
  }

  /** The session that spawned this one (a Claude Code subagent's), when its layout says. */
  private parentOf(file: SessionFile): string | undefined {
    return formatNamed(this.root.dialect).layout.parentOf?.(file.path);
  }

  openWriter(): StoreWriter {
    const locked = formatNamed(this.root.dialect).layout.writeLocks;
    const { indexRows } = formatNamed(this.root.dialect).layout;
    return new TranscriptWriter(this.info, locked ? [...this.sessionFiles().values()].map((f) => f.path) : [], indexRows);
  }

  close(): void {}

  /**
   * Listing parses only the head of each file (title, directory) and the last lines (when it was last written);
   * message lines are counted with a byte search.
   */
  private summaryOf(file: SessionFile): SessionSummary {
    const { bytes, mtime } = readSessionFile(file.path);
    const head = bytes.subarray(0, Math.min(bytes.length, HEAD_BYTES));
    const cut = head.lastIndexOf(0x0a);
    const summary = assembleTranscript(
      cut >= 0 && head.length < bytes.length ? head.subarray(0, cut + 1) : head,
      { path: file.path, sessionId: file.id, dialect: this.root.dialect, mtime },
      false,
    ).summary;
    summary.messages = countMessages(bytes, this.root.dialect);
    summary.updated = lastTimestamp(bytes) ?? summary.updated;
    // A session renamed late keeps its new name past the head.
    const named = lastTitle(bytes);
    if (named) summary.title = named;
    const parent = this.parentOf(file);
    if (parent !== undefined) summary.parentId = parent;
    return summary;
  }
}

function readSessionFile(path: string): { bytes: Buffer; mtime: number } {
  try {
    return { mtime: statSync(path).mtimeMs, bytes: readFileSync(path) };
  } catch (error) {
    // The file was found by listing the store: gone now, another writer removed it (a race, not a missing store).
    if (errnoCode(error) === "ENOENT") throw storeChanged(`${path} was removed while it was read`);
    throw fsError(error, path) ?? error;
  }
}

/** The last lines, newest first, parsed (at most 64 tried): the tail of a transcript is where it was last written. */
function* lastRecords(bytes: Buffer): Generator<Record<string, unknown>> {
  let end = bytes.length;
  for (let tries = 0; tries < 64 && end > 0; tries++) {
    const start = bytes.lastIndexOf(0x0a, end - 1) + 1;
    try {
      const value = obj(JSON.parse(bytes.subarray(start, end).toString("utf8")));
      if (value) yield value;
    } catch {
      // a torn or blank line: the one before it tells
    }
    end = start - 1;
  }
}

/** The first lines, in order, parsed (at most 64 tried). */
function* firstRecords(bytes: Buffer): Generator<Record<string, unknown>> {
  let start = 0;
  for (let tries = 0; tries < 64 && start < bytes.length; tries++) {
    const newline = bytes.indexOf(0x0a, start);
    const end = newline < 0 ? bytes.length : newline;
    try {
      const value = obj(JSON.parse(bytes.subarray(start, end).toString("utf8")));
      if (value) yield value;
    } catch {
      // a torn or blank line: the next one tells
    }
    start = end + 1;
  }
}

/** How much of a file's head or tail is read for the lines there (a few lines of nearly every transcript). */
const END_BYTES = 256 * 1024;

/**
 * The whole lines within the first or last END_BYTES of a file (a line cut by the window's edge is left out), and
 * whether that is the whole file.
 */
function readEnd(path: string, at: "first" | "last"): { bytes: Buffer; whole: boolean } {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, END_BYTES);
    const from = at === "first" ? 0 : size - length;
    const bytes = Buffer.alloc(length);
    const read = bytes.subarray(0, readSync(fd, bytes, 0, length, from));
    if (read.length === size) return { bytes: read, whole: true };
    if (at === "first") return { bytes: read.subarray(0, read.lastIndexOf(0x0a) + 1), whole: false };
    const cut = read.indexOf(0x0a);
    return { bytes: cut < 0 ? read.subarray(0, 0) : read.subarray(cut + 1), whole: false };
  } finally {
    closeSync(fd);
  }
}

/** The newest record's own timestamp (the agents stamp every record they append; nested stamps do not count). */
function lastTimestamp(bytes: Buffer): number | undefined {
  for (const value of lastRecords(bytes)) {
    const time = timeOf(value.timestamp);
    if (time !== undefined) return time;
  }
  return undefined;
}

const TITLE_MARKERS = ['"type":"custom-title"', '"type":"ai-title"', '"type":"session_info"'].map((m) => Buffer.from(m));

/** The name the session was given last (Claude Code's custom/ai title, pi's session_info), wherever it is. */
function lastTitle(bytes: Buffer): string | undefined {
  const at = Math.max(...TITLE_MARKERS.map((m) => bytes.lastIndexOf(m)));
  if (at < 0) return undefined;
  const start = bytes.lastIndexOf(0x0a, at) + 1;
  const end = bytes.indexOf(0x0a, at);
  try {
    const value = obj(JSON.parse(bytes.subarray(start, end < 0 ? bytes.length : end).toString("utf8")));
    const name = str(value?.customTitle) ?? str(value?.title) ?? str(value?.aiTitle) ?? str(value?.name);
    return name?.replace(/\s+/g, " ").trim().slice(0, 80) || undefined;
  } catch {
    return undefined;
  }
}

function countMessages(bytes: Buffer, dialect: TranscriptDialect): number {
  let n = 0;
  for (const marker of dialectNamed(dialect).messageMarkers) {
    for (let at = bytes.indexOf(marker); at !== -1; at = bytes.indexOf(marker, at + marker.length)) n++;
  }
  return n;
}
