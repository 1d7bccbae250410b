/**
 * `session import`: sessions another store of the data dir holds (the legacy JSON tree opencode ≥1.2 imported once
 * and never again, a channel database) copied into the database opencode reads, as rows of that database's schema.
 *
 * Ids are kept. From a database, every column of every row is copied as stored (mapped by name onto the target's
 * columns). From the JSON tree, rows are made as opencode's own importer made them (json-migration.ts, see
 * docs/research/opencode-import.md §2.3), with what it left out filled from the records so opencode lists and
 * orders them as its own: the time columns from the records' times (never the time of the import, so importing
 * the same tree into two copies gives the same rows), `session.path` from the directory and the project's
 * worktree, and the session's cost and token rollups summed over its step-finish parts as opencode's migration
 * back-filled them. A damaged record is copied as it is (its bytes in `data`), for scan and repair to judge like any
 * other. Nothing already in the target is overwritten: a session there is skipped, and a session one of whose
 * records' ids the target already holds is not imported at all.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import fg from "fast-glob";
import { RecoverError } from "../../errors.js";
import { ABSENT, summariseChange, type RecordKey } from "../../model/change.js";
import type { MessageRecord, PartRecord } from "../../model/opencode-records.js";
import { isObject, type Json } from "../../model/edit.js";
import { decodeJson } from "../decode-json.js";
import type { ImportedSession, ImportPlan, ImportSourceBase } from "../import-plan.js";
import type { ImageTarget, StoreWriter } from "../store.js";
import { sqliteCodec } from "./codec.js";
import { unwrappedIdTime } from "./ids.js";
import { OpencodeJsonStore } from "./json-store.js";
import { lastAgentAndModel, pathInWorktree } from "./recreate-session.js";
import { type Cell, cellAt, cellIdText, cellSelect, columnsOf, integerCell, textCell, valueCell } from "../sqlite/row.js";
import { openForReading, type ReadConnection } from "../sqlite/open.js";
import { OpencodeSqliteStore } from "./sqlite-store.js";
import { OpencodeSqliteWriter } from "./sqlite-writer.js";

type Table = "project" | "session" | "message" | "part";

/** One row to insert: its key (what the backup and restore name it by) and its cells by column name. */
interface SourceRow {
  table: Table;
  key: RecordKey;
  cells: Map<string, Cell>;
}

/** A session as the source holds it, as rows: its project's row (when the source has one), itself, its records. */
interface SourceSession {
  id: string;
  projectId: string;
  project: SourceRow;
  /** Why the project row is not the source's own (the tree had no readable project file). */
  projectNote?: string;
  /** Rows of the session no id can address (an id that is not text): not imported, each named. */
  leftBehind?: string[];
  rows: SourceRow[];
}

/** A store of opencode's sessions imported from: a database or a JSON tree. */
export interface ImportSource extends ImportSourceBase {
  readonly store: OpencodeJsonStore | OpencodeSqliteStore;
  read(id: string): SourceSession;
}

export type { ImportedSession, ImportPlan };

const key = (record: Table, id: string, sessionId: string, messageId?: string): RecordKey => ({
  record,
  id,
  sessionId,
  ...(messageId !== undefined ? { messageId } : {}),
});

/**
 * The rows that bring `ids` into the target, read under its lock: a session the target holds is skipped, and so is
 * one whose message or part ids it already holds (never overwritten); a project row is inserted once, when the
 * target lacks it.
 */
export function planImport(writer: StoreWriter, source: ImportSource, ids: readonly string[]): ImportPlan {
  if (!(writer instanceof OpencodeSqliteWriter)) {
    throw new RecoverError("usage", `sessions are imported into an opencode database; ${writer.info.path} is not one`);
  }
  const target = writer.info.path;
  const plan: ImportPlan = { sessions: [], skipped: [], partial: [] };
  const projects = new Set<string>();
  for (const id of ids) {
    if (writer.read(key("session", id, id)).exists) {
      plan.skipped.push({ id, why: `already in ${target}` });
      continue;
    }
    let session: SourceSession;
    try {
      session = source.read(id);
    } catch (error) {
      if (!(error instanceof RecoverError && error.code === "store-unreadable")) throw error;
      plan.skipped.push({ id, why: `${error.message}: nothing of it is imported` });
      continue;
    }
    const taken = session.rows.find((row) => writer.read(row.key).exists);
    if (taken) {
      plan.skipped.push({ id, why: `${taken.table} ${taken.key.id} is already in ${target} (ids are never overwritten): nothing of it is imported` });
      continue;
    }
    const rows = [...session.rows];
    const notes: string[] = [];
    if (!projects.has(session.projectId) && !writer.read(session.project.key).exists) {
      rows.unshift(session.project);
      projects.add(session.projectId);
      if (session.projectNote) notes.push(session.projectNote);
    }
    if (session.leftBehind?.length) {
      const one = session.leftBehind.length === 1;
      plan.partial.push({
        id,
        why: `${session.leftBehind.join(", ")} ${one ? "is" : "are"} left in ${source.path}: ${one ? "its id is" : "their ids are"} not text, so no id can name ${one ? "it" : "them"} (and a restore could not take ${one ? "it" : "them"} out again)`,
      });
    }
    const targets = rows.map((row): ImageTarget => ({ key: row.key, before: ABSENT, after: writer.newRow(row.table, row.cells) }));
    const changes = rows.map((row) => summariseChange({ op: "insert", key: row.key, rules: [], reasons: [] }));
    plan.sessions.push({ id, targets, changes, notes });
  }
  return plan;
}

/** The store at `path` as a source: a database file, or a storage/ tree. */
export function openImportSource(path: string, kind: "database" | "tree"): ImportSource {
  return kind === "database" ? databaseSource(path) : treeSource(path);
}

// ---------------------------------------------------------------------------------------------------------------
// From another database: every column as stored.

function databaseSource(path: string): ImportSource {
  const store = new OpencodeSqliteStore(path);
  let connection: ReadConnection | undefined;
  const db = () => {
    connection ??= openForReading(path);
    return connection.db;
  };
  const readRows = (table: Table, where: string, value: string): Map<string, Cell>[] => {
    const names = columnsOf(db(), table).map((c) => c.name);
    const rows = db()
      .prepare(`SELECT ${cellSelect(names)} FROM "${table}" WHERE ${where} = ? ORDER BY rowid`)
      .raw(true)
      .safeIntegers(true)
      .all(value) as unknown[][];
    return rows.map((row) => new Map(names.map((name, i) => [name, cellAt(row, i)])));
  };
  const text = (cells: Map<string, Cell>, name: string): string => {
    const cell = cells.get(name);
    return cell && (cell.t === "text" || cell.t === "blob") ? Buffer.from(cell.v, "base64").toString("utf8") : "";
  };
  return {
    path,
    store,
    sessionIds: () => store.listSessions().map((s) => s.id),
    read(id) {
      const [session] = readRows("session", "id", id);
      if (!session) throw new RecoverError("session-not-found", `no session ${id} in ${path}`);
      const projectId = text(session, "project_id");
      const [project] = readRows("project", "id", projectId);
      const rows: SourceRow[] = [{ table: "session", key: key("session", id, id), cells: session }];
      const leftBehind: string[] = [];
      // A row is imported only under an id that names it: text, as opencode writes every id (a label is no address).
      const addressed = (table: Table, cells: Map<string, Cell>): boolean => {
        if (cells.get("id")?.t === "text") return true;
        leftBehind.push(`${table} ${cellIdText(cells.get("id"))}`);
        return false;
      };
      for (const message of readRows("message", "session_id", id))
        if (addressed("message", message)) rows.push({ table: "message", key: key("message", text(message, "id"), id), cells: message });
      for (const part of readRows("part", "session_id", id)) {
        if (addressed("part", part)) rows.push({ table: "part", key: key("part", text(part, "id"), id, cellIdText(part.get("message_id"))), cells: part });
      }
      return {
        id,
        projectId,
        project: project ? { table: "project", key: key("project", projectId, id), cells: project } : madeProject(projectId, id, undefined),
        ...(project ? {} : { projectNote: `${path} has no project ${projectId}: its row is made from the session's directory` }),
        ...(leftBehind.length > 0 ? { leftBehind } : {}),
        rows,
      };
    },
    close: () => {
      connection?.close();
      store.close();
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// From the JSON tree (opencode ≤1.1.65): rows as opencode's importer made them, times from the records.

const numberAt = (value: unknown): number | undefined => (typeof value === "number" && Number.isFinite(value) ? value : undefined);

function readJson(path: string): Json | undefined {
  try {
    const decoded = decodeJson(readFileSync(path));
    return decoded.ok ? decoded.value : undefined;
  } catch {
    return undefined;
  }
}

/** `data`: the record as the SQLite codec stores it (no ids, compact JSON, as opencode writes); a damaged one as its bytes. */
function dataCell(ids: { id: string; sessionId: string }, original: Json | undefined, raw: Buffer | undefined): Cell {
  if (original) return { t: "text", v: sqliteCodec.encode(sqliteCodec.stored(ids, original)).toString("base64") };
  return { t: "text", v: (raw ?? Buffer.alloc(0)).toString("base64") };
}

function treeSource(storage: string): ImportSource {
  const store = new OpencodeJsonStore(storage);
  const sessionFiles = new Map<string, string>();
  for (const rel of fg.sync("session/*/*.json", { cwd: storage, onlyFiles: true, suppressErrors: true })) {
    sessionFiles.set(rel.slice(rel.lastIndexOf("/") + 1, -".json".length), rel);
  }
  return {
    path: storage,
    store,
    sessionIds: () => [...sessionFiles.keys()].sort(),
    read(id) {
      const rel = sessionFiles.get(id);
      if (rel === undefined) throw new RecoverError("session-not-found", `no session ${id} in ${storage}`);
      const info = readJson(join(storage, rel));
      if (!info) throw new RecoverError("store-unreadable", `its session file ${join(storage, rel)} does not parse as JSON`);
      const projectId = rel.split("/")[1]!;
      const records = store.loadSession(id, "full");
      const projectInfo = readJson(join(storage, "project", `${projectId}.json`));
      const project = projectInfo ? treeProject(projectId, id, projectInfo, info) : madeProject(projectId, id, info);
      const parts = [...records.messages.flatMap((m) => m.parts), ...records.orphanParts];
      const rows: SourceRow[] = [
        { table: "session", key: key("session", id, id), cells: treeSession(id, projectId, info, projectInfo, parts, records.messages) },
        ...records.messages.map((m) => ({ table: "message" as const, key: key("message", m.ref.id, id), cells: treeMessage(id, m) })),
        ...records.messages.flatMap((m) => m.parts.map((p) => treePartRow(id, p, m.created))),
        ...records.orphanParts.map((p) => treePartRow(id, p, numberAt(isObject(info.time) ? info.time.created : undefined) ?? 0)),
      ];
      return {
        id,
        projectId,
        project,
        ...(projectInfo ? {} : { projectNote: `${storage} has no readable project/${projectId}.json: its row is made from the session's directory` }),
        rows,
      };
    },
    close: () => store.close(),
  };
}

function timeOf(info: Json | undefined, field: string): number | undefined {
  return isObject(info?.time) ? numberAt(info.time[field]) : undefined;
}

function treeProject(id: string, sessionId: string, data: Json, session: Json): SourceRow {
  const icon = isObject(data.icon) ? data.icon : {};
  const created = timeOf(data, "created") ?? timeOf(session, "created") ?? 0;
  const cells = new Map<string, Cell>([
    ["id", textCell(id)],
    ["worktree", valueCell(typeof data.worktree === "string" ? data.worktree : "/")],
    ["vcs", valueCell(data.vcs)],
    ["name", valueCell(data.name)],
    ["icon_url", valueCell(icon.url)],
    ["icon_url_override", valueCell(icon.override)],
    ["icon_color", valueCell(icon.color)],
    ["time_created", integerCell(created)],
    ["time_updated", integerCell(timeOf(data, "updated") ?? created)],
    ["time_initialized", valueCell(timeOf(data, "initialized"))],
    ["sandboxes", valueCell(Array.isArray(data.sandboxes) ? data.sandboxes : [])],
    ["commands", valueCell(data.commands)],
  ]);
  return { table: "project", key: key("project", id, sessionId), cells };
}

/** The project row a session needs when its store has none: its directory as the worktree (opencode's `global` is `/`). */
function madeProject(id: string, sessionId: string, session: Json | undefined): SourceRow {
  const directory = typeof session?.directory === "string" && session.directory !== "" ? session.directory : "/";
  const created = timeOf(session, "created") ?? 0;
  const cells = new Map<string, Cell>([
    ["id", textCell(id)],
    ["worktree", textCell(id === "global" ? "/" : directory)],
    ["vcs", valueCell(id === "global" ? undefined : "git")],
    ["time_created", integerCell(created)],
    ["time_updated", integerCell(timeOf(session, "updated") ?? created)],
    ["sandboxes", textCell("[]")],
  ]);
  return { table: "project", key: key("project", id, sessionId), cells };
}

function treeSession(
  id: string,
  projectId: string,
  data: Json,
  project: Json | undefined,
  parts: readonly PartRecord[],
  messages: readonly MessageRecord[],
): Map<string, Cell> {
  // Newer opencode keeps the agent and model a session last ran with (1.16+); ≤1.1.65 kept them on its messages only.
  const { agent, model } = lastAgentAndModel(messages);
  const summary = isObject(data.summary) ? data.summary : {};
  const share = isObject(data.share) ? data.share : {};
  const directory = typeof data.directory === "string" ? data.directory : "";
  const worktree = typeof project?.worktree === "string" ? project.worktree : undefined;
  const created = timeOf(data, "created") ?? 0;
  // opencode's rollups (1.16+): sums over the session's step-finish parts, as its migration back-filled them.
  const usage = { cost: 0, input: 0, output: 0, reasoning: 0, read: 0, write: 0 };
  for (const record of parts) {
    const part = record.original;
    if (part?.type !== "step-finish") continue;
    const tokens = isObject(part.tokens) ? part.tokens : {};
    const cache = isObject(tokens.cache) ? tokens.cache : {};
    usage.cost += numberAt(part.cost) ?? 0;
    usage.input += numberAt(tokens.input) ?? 0;
    usage.output += numberAt(tokens.output) ?? 0;
    usage.reasoning += numberAt(tokens.reasoning) ?? 0;
    usage.read += numberAt(cache.read) ?? 0;
    usage.write += numberAt(cache.write) ?? 0;
  }
  return new Map<string, Cell>([
    ["id", textCell(id)],
    ["project_id", textCell(projectId)],
    ["parent_id", valueCell(data.parentID)],
    ["slug", textCell(typeof data.slug === "string" ? data.slug : "")],
    ["directory", textCell(directory)],
    ["path", textCell(typeof data.path === "string" ? data.path : pathInWorktree(directory, worktree))],
    ["title", textCell(typeof data.title === "string" ? data.title : "")],
    ["version", textCell(typeof data.version === "string" ? data.version : "")],
    ["share_url", valueCell(share.url)],
    ["summary_additions", valueCell(summary.additions)],
    ["summary_deletions", valueCell(summary.deletions)],
    ["summary_files", valueCell(summary.files)],
    ["summary_diffs", valueCell(summary.diffs)],
    ["revert", valueCell(data.revert)],
    ["permission", valueCell(data.permission)],
    ["agent", valueCell(agent)],
    ["model", valueCell(model)],
    ["cost", { t: "real", v: usage.cost }],
    ["tokens_input", integerCell(usage.input)],
    ["tokens_output", integerCell(usage.output)],
    ["tokens_reasoning", integerCell(usage.reasoning)],
    ["tokens_cache_read", integerCell(usage.read)],
    ["tokens_cache_write", integerCell(usage.write)],
    ["time_created", integerCell(created)],
    ["time_updated", integerCell(timeOf(data, "updated") ?? created)],
    ["time_compacting", valueCell(timeOf(data, "compacting"))],
    ["time_archived", valueCell(timeOf(data, "archived"))],
  ]);
}

/** A message's times: created as it says (else where the store placed it), updated when it completed. */
function treeMessage(sessionId: string, message: MessageRecord): Map<string, Cell> {
  const created = Math.round(timeOf(message.original, "created") ?? message.created);
  return new Map<string, Cell>([
    ["id", textCell(message.ref.id)],
    ["session_id", textCell(sessionId)],
    ["time_created", integerCell(created)],
    ["time_updated", integerCell(Math.max(created, timeOf(message.original, "completed") ?? created))],
    ["data", dataCell({ id: message.ref.id, sessionId }, message.original, message.raw)],
  ]);
}

/**
 * A part's times, as opencode stamps a part row: created when its id was minted (its time field, unwrapped near its
 * message's time), updated when it says it ended (a text's or a tool's end), else as created.
 */
function treePartRow(sessionId: string, record: PartRecord, messageCreated: number): SourceRow {
  const ticks = unwrappedIdTime(record.ref.id, messageCreated);
  const created = ticks !== undefined ? Math.floor(ticks / 0x1000) : Math.round(messageCreated);
  const part = record.original;
  const state = isObject(part?.state) ? part.state : undefined;
  const ended = timeOf(part, "end") ?? timeOf(state, "end");
  const messageId = record.ref.messageId ?? "";
  const cells = new Map<string, Cell>([
    ["id", textCell(record.ref.id)],
    ["message_id", textCell(messageId)],
    ["session_id", textCell(sessionId)],
    ["time_created", integerCell(created)],
    ["time_updated", integerCell(Math.max(created, ended ?? created))],
    ["data", dataCell({ id: record.ref.id, sessionId }, part, record.raw)],
  ]);
  return { table: "part", key: key("part", record.ref.id, sessionId, messageId), cells };
}
