/**
 * Codex CLI's rollouts: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<YYYY-MM-DDTHH-MM-SS>-<uuid>.jsonl`, `$CODEX_HOME`
 * defaulting to `~/.codex`. The SQLite files beside `sessions/` are Codex's own index, rebuilt from the rollouts:
 * never written; the newest state file is read only to note sessions it lists whose rollout is gone.
 */
import fg from "fast-glob";
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { basename, join } from "node:path";
import { RecoverError } from "../../errors.js";
import { someOf } from "../../model/listing.js";
import { transcriptAdapter } from "../transcript/family.js";
import { entriesOf, fileNameId, storeAbove, type TranscriptLayout } from "../transcript/layout.js";
import { rootAmong } from "../transcript/locate.js";
import type { TranscriptRoot } from "../transcript/transcript-store.js";
import { guarded } from "../sqlite/errors.js";
import { openDatabase } from "../sqlite/open.js";
import type { IndexRow } from "../../model/transcript.js";
import { codexDialect } from "./dialect.js";
import { codexFixes } from "./fixes.js";

const ROLLOUT = "rollout-*.jsonl";
const YEAR = /^\d{4}$/;
const UUID_AT_END = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

/** `sessions/` of a Codex home holds year folders (openclaw's agents keep a `sessions/` of their own, without them). */
const holdsYears = (dir: string) => entriesOf(dir).some((name) => YEAR.test(name));

const codexLayout: TranscriptLayout = {
  homes: [
    {
      entry: "sessions",
      patterns: [`sessions/*/*/*/${ROLLOUT}`],
      description: "a Codex CLI home (sessions/)",
      holds: (dir) => holdsYears(join(dir, "sessions")),
    },
  ],
  /** `sessions/` itself, or a year or month folder in it (a day folder is a folder of rollouts). */
  part(dir, entries) {
    const below = /(?:^|[\\/])sessions((?:[\\/]\d{4}(?:[\\/]\d{2})?)?)$/.exec(dir);
    if (!below || !entries.some((name) => /^\d{2,4}$/.test(name))) return undefined;
    const levels = below[1]!.split(/[\\/]/).filter(Boolean).length;
    const description = ["a Codex CLI sessions/ dir", "a year of Codex CLI sessions", "a month of Codex CLI sessions"][levels]!;
    return { patterns: [`${"*/".repeat(3 - levels)}${ROLLOUT}`], description };
  },
  /** <home>/sessions[/YYYY[/MM[/DD[/rollout-….jsonl]]]] */
  storeOf: (target) =>
    storeAbove(target, "sessions", 5, (parts, at) => parts.slice(at + 1).every((part, i) => (i < 3 ? /^\d+$/.test(part) : part.startsWith("rollout-")))),
  flat: [ROLLOUT],
  /** The session's uuid ends the file name (and is `session_meta.payload.id`). */
  sessionIdOf: (path) => {
    const name = fileNameId(path);
    return UUID_AT_END.exec(name)?.[1] ?? name;
  },
  staleIndex: staleRolloutPath,
  indexRows: { read: readRolloutPath, write: writeRolloutPath },
};

const codex = { dialect: codexDialect, fixes: codexFixes, layout: codexLayout };

export const codexStore = transcriptAdapter({
  format: codex,
  noun: "a Codex CLI store",
  expects: "a Codex home with sessions/, its sessions/ dir, a day dir or a rollout-*.jsonl",
  folderSigns: ["sessions/"],
  /** `CODEX_HOME`, else `~/.codex`. */
  defaultRoot(env) {
    const candidates = [env.CODEX_HOME?.trim() || join(env.HOME || homedir(), ".codex")];
    const root = rootAmong(codex, candidates);
    if (root) return root;
    throw new RecoverError("store-not-found", `no Codex CLI sessions found (looked for sessions/ in ${candidates.join(", ")}); pass --store <path>`);
  },
  resumeArgv: (id) => ["codex", "resume", id],
  unread: missingRollouts,
});

/**
 * Codex's own indexes may name sessions whose rollout is gone (deleted, or another machine's home): the threads
 * table of the newest `state_<n>.sqlite` (id, rollout_path) and `session_index.jsonl` (append-only `{id,
 * thread_name, updated_at}`, the names `codex resume <name>` finds). Codex answers `no rollout found for thread id
 * <id>` for those, and recover has nothing to repair: said in a note. Read, never written (docs/codex.md says why).
 * A rollout that is only elsewhere in sessions/ is that session's finding (staleRolloutPath), not a lost one.
 */
function missingRollouts(root: TranscriptRoot): string | undefined {
  let present: Set<string> | undefined;
  const here = (id: string) => {
    present ??= new Set(
      fg
        .sync(`sessions/*/*/*/${ROLLOUT}`, { cwd: root.path, onlyFiles: true, suppressErrors: true })
        .map((file) => UUID_AT_END.exec(fileNameId(file))?.[1] ?? ""),
    );
    return present.has(id);
  };
  const notes: string[] = [];
  const newest = newestState(root.path);
  const rows = newest === undefined ? [] : threadRows(newest);
  const missing = rows.filter((r) => typeof r.rollout_path === "string" && !existsSync(r.rollout_path) && !here(r.id)).map((r) => r.id);
  if (newest !== undefined && missing.length > 0)
    notes.push(
      `Codex's index ${basename(newest)} lists ${missing.length === 1 ? "a session whose rollout is" : `${missing.length} sessions whose rollouts are`} gone (${someOf(missing)})`,
    );
  const named = namedSessions(join(root.path, "session_index.jsonl")).filter((entry) => !here(entry.id));
  if (named.length > 0)
    notes.push(
      `session_index.jsonl names ${named.length === 1 ? "a session whose rollout is" : `${named.length} sessions whose rollouts are`} gone (${someOf(named.map((e) => (e.name ? `${e.name} = ${e.id}` : e.id)))})`,
    );
  if (notes.length === 0) return undefined;
  return `${notes.join("; ")}: Codex answers "no rollout found for thread id …" for ${missing.length + named.length === 1 ? "it" : "them"} and there is nothing to repair; recover does not write Codex's indexes`;
}

function threadRows(state: string): { id: string; rollout_path: string }[] {
  try {
    const db = openDatabase(state, { readonly: true, fileMustExist: true });
    try {
      return db.prepare("SELECT id, rollout_path FROM threads").all() as { id: string; rollout_path: string }[];
    } finally {
      db.close();
    }
  } catch {
    // Not the schema this was written against, locked, or unreadable: the index only adds a note.
    return [];
  }
}

/** `session_index.jsonl`: the newest name of each session id (later lines win); unreadable lines are passed over. */
function namedSessions(file: string): { id: string; name?: string }[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return [];
  }
  const names = new Map<string, string | undefined>();
  for (const line of text.split("\n")) {
    try {
      const entry = JSON.parse(line) as { id?: unknown; thread_name?: unknown };
      if (typeof entry.id === "string" && entry.id !== "") names.set(entry.id, typeof entry.thread_name === "string" ? entry.thread_name : undefined);
    } catch {
      // a torn or blank line
    }
  }
  return [...names].map(([id, name]) => (name ? { id, name } : { id }));
}

/**
 * Codex resumes a session by the path its index holds (`threads.rollout_path` of the newest `state_<n>.sqlite`), not
 * by looking in sessions/: when that path holds no file (the rollout was moved to another folder, or the Codex home
 * was copied from another place), it answers `no rollout found for thread id <id>` (measured with 0.171.0;
 * openai/codex#22452, #11634) although the rollout is right here. The fix sets the row to where the rollout is
 * (docs/codex.md).
 */
function staleRolloutPath(store: string, sessionId: string, path: string): { detail: string; index: IndexRow } | undefined {
  const newest = newestState(store);
  if (newest === undefined) return undefined;
  let indexed: Record<string, unknown> | undefined;
  try {
    indexed = readRolloutPath(newest, sessionId);
  } catch {
    // Not the schema this was written against, locked, or unreadable: the index only adds a finding.
    return undefined;
  }
  const at = indexed?.rollout_path;
  if (typeof at !== "string" || at === path || existsSync(at)) return undefined;
  return {
    detail: `Codex's index ${basename(newest)} says this session's rollout is at ${at}, where there is none: Codex resumes by that path and answers "no rollout found for thread id ${sessionId}"; the repair sets threads.rollout_path to ${path}`,
    index: { path: newest, id: sessionId, before: { rollout_path: at }, after: { rollout_path: path } },
  };
}

/** The column recover sets of a `threads` row, or undefined when the index has no row for the session. */
function readRolloutPath(state: string, id: string): Record<string, unknown> | undefined {
  return guarded(state, () => {
    const db = openDatabase(state, { readonly: true, fileMustExist: true });
    try {
      const row = db.prepare("SELECT rollout_path FROM threads WHERE id = ?").get(id) as { rollout_path: unknown } | undefined;
      return row ? { rollout_path: row.rollout_path } : undefined;
    } finally {
      db.close();
    }
  });
}

/**
 * Set a `threads` row's rollout_path while it still holds the path read: one UPDATE, SQLite's own transaction, waiting
 * a moment for a Codex that holds the database (its WAL) before saying it is busy.
 */
function writeRolloutPath(state: string, id: string, before: Record<string, unknown>, after: Record<string, unknown>): boolean {
  return guarded(state, () => {
    const db = openDatabase(state, { fileMustExist: true, timeout: 2_000 });
    try {
      const { changes } = db
        .prepare("UPDATE threads SET rollout_path = ? WHERE id = ? AND rollout_path IS ?")
        .run(after.rollout_path as string, id, before.rollout_path as string);
      return changes === 1;
    } finally {
      db.close();
    }
  });
}

function newestState(store: string): string | undefined {
  const states = fg.sync("state_*.sqlite", { cwd: store, absolute: true, onlyFiles: true, suppressErrors: true });
  return states.sort((a, b) => version(b) - version(a))[0];
}

function version(path: string): number {
  return Number(/state_(\d+)\.sqlite$/.exec(path)?.[1] ?? 0);
}
