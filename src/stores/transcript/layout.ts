/**
 * Where a transcript format keeps its sessions on disk, as data its format carries (format.ts): the folders that
 * mark the agent's own dir, the parts of it a user may name, the store a path lies in, and a session file's id. The
 * shared code (locate.ts, detect.ts, transcript-store.ts) asks every registered layout and names no agent.
 */
import type { IndexRow } from "../../model/transcript.js";
import { readdirSync } from "node:fs";
import { basename, join, sep } from "node:path";

/** An entry of the agent's own dir that marks it, and the session files under it (fast-glob patterns). */
export interface LayoutHome {
  entry: string;
  patterns: readonly string[];
  /** How a person reads a folder marked so ("a Claude Code config dir (projects/)"). */
  description: string;
  /** A closer look, when the entry alone could be another agent's (Codex's `sessions/` beside openclaw's). */
  holds?(dir: string): boolean;
}

export interface TranscriptLayout {
  /** Asked in order; the first whose entry is in a folder (and whose `holds` agrees) says what the folder is. */
  homes: readonly LayoutHome[];
  /**
   * A folder inside the store, named by the user: the patterns of its session files and how to call it, or
   * undefined when `dir` is no such folder. Asked after every format's homes, before a flat folder of transcripts.
   */
  part?(dir: string, entries: readonly string[]): { patterns: string[]; description: string } | undefined;
  /** The agent's own store a path lies in (its config/state/home dir); the path itself when it lies in none. */
  storeOf(target: string): string;
  /** The patterns of a folder holding this format's transcripts side by side. */
  flat: readonly string[];
  /** A session file's id, or undefined when the file is part of another session (Claude Code's `agent-*.jsonl`). */
  sessionIdOf(path: string): string | undefined;
  /** The session a session file was spawned by (Claude Code's subagent transcripts), shown beside it in listings. */
  parentOf?(path: string): string | undefined;
  /**
   * Two files hold the same session id (Gemini CLI starts a new recording of a session at every resume): the path
   * of the one the agent resumes. Without it, such a store is ambiguous.
   */
  oneOf?(a: string, b: string): string;
  /**
   * Of a session's other files (the ones `oneOf` did not pick): why the agent reads no session from this one, or
   * undefined when it does. Such files are the session's companions (TranscriptRecords.companions).
   */
  readsNoSession?(bytes: Buffer): string | undefined;
  /** Other names of sessions, from the indexes beside the session files (openclaw's session keys). */
  aliases?(files: readonly string[]): Map<string, string>;
  /**
   * What the agent's own index beside the transcripts says of a session, when it disagrees with the file (Codex's
   * `threads.rollout_path`): said as the session's first line's stale bookkeeping (TranscriptLine.stale), not
   * fixable, since recover does not write that index.
   */
  staleIndex?(store: string, sessionId: string, path: string): { detail: string; index?: IndexRow } | undefined;
  /** The agent's index rows a repair may set (IndexRow): how its writer reads and writes them. */
  indexRows?: IndexRows;
  /** The agent takes a write lock `<session file>.lock` (JSON `{pid, createdAt}`) while it writes a session. */
  writeLocks?: true;
}

/** How a store's writer reaches the rows of its agent's index (Codex's `threads` in `state_<n>.sqlite`). */
export interface IndexRows {
  /** The columns recover sets of row `id` in the index at `path`, as they are now; undefined: no such row. */
  read(path: string, id: string): Record<string, unknown> | undefined;
  /** Set them to `after`, in one statement, only while they still hold `before`; false: they do not (nothing written). */
  write(path: string, id: string, before: Record<string, unknown>, after: Record<string, unknown>): boolean;
}

/** An index row's stored image: its columns as JSON, keys in order (what TranscriptWriter reads a row as). */
export function indexImage(columns: Record<string, unknown>): Buffer {
  return Buffer.from(
    JSON.stringify(
      Object.fromEntries(
        Object.keys(columns)
          .sort()
          .map((k) => [k, columns[k]]),
      ),
    ),
  );
}

/** The usual id: the file name without `.jsonl`. */
export function fileNameId(path: string): string {
  return basename(path, ".jsonl");
}

/**
 * The dir above `marker` when `target` lies at most `depth` levels below it (the marker itself counted as 1) and the
 * levels in between pass `fits`; else `target` itself.
 */
export function storeAbove(target: string, marker: string, depth: number, fits: (parts: string[], at: number) => boolean = () => true): string {
  const parts = target.split(sep);
  const at = parts.lastIndexOf(marker);
  return at > 0 && parts.length - at <= depth && fits(parts, at) ? parts.slice(0, at).join(sep) || sep : target;
}

/** A folder's entries, or none when it cannot be read. */
export function entriesOf(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

export function holdsEntry(dir: string, test: (name: string) => boolean): boolean {
  return entriesOf(dir).some(test);
}

export { join };
