/**
 * opencode ≤1.1.65 kept every record in its own pretty-printed JSON file under `storage/` (reference
 * opencode.md §1.2). The same reader serves any folder laid out that way, such as a copy of one.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import fg from "fast-glob";
import { errnoCode, fsError, RecoverError, storeChanged } from "../../errors.js";
import { type SessionInfo, validateSessionInfo } from "../../model/opencode.js";
import type { LoadMode, MessageRecord, PartRecord, SessionHome, SessionRecords, SessionSummary } from "../../model/opencode-records.js";
import type { StoreFixing } from "../../model/fixing.js";
import type { RecordProblem, RecordRef } from "../../model/record.js";
import { decodeJson } from "../decode-json.js";
import { assertSafeId } from "../session-id.js";
import type { OpencodeCodec, OpencodeStore, StoreInfo, StoreWriter } from "../store.js";
import { jsonTreeCodec } from "./codec.js";
import { opencodeFixing } from "./working.js";
import { OpencodeJsonWriter } from "./json-writer.js";
import { recordedActivity } from "./activity.js";
import { assembleSession, messageFromBytes, partFromBytes } from "./record-builder.js";
import { placeUntimed } from "./untimed.js";
import { sessionPaths } from "./recreate-session.js";

interface SessionFile {
  path: string;
  summary: SessionSummary;
  info?: SessionInfo;
  problem?: RecordProblem;
}

export class OpencodeJsonStore implements OpencodeStore {
  readonly info: StoreInfo;
  readonly codec: OpencodeCodec;
  readonly fixing: StoreFixing;
  private sessionFiles?: Map<string, SessionFile>;
  /** message id → the sessions whose folder holds a file of it (two when a message file was copied); built once. */
  private messageIndex?: Map<string, string[]>;
  private orphanPartsBySession?: Map<string, string[]>;

  constructor(
    private readonly storageDir: string,
    notices: string[] = [],
  ) {
    this.info = { format: "opencode-json", path: storageDir, notices: [...notices] };
    this.codec = jsonTreeCodec(storageDir);
    this.fixing = opencodeFixing(this.codec);
  }

  private read(path: string): Buffer {
    try {
      return readFileSync(path);
    } catch (error) {
      // Every file read here was just listed: gone now, another writer removed it (a race, not a missing store).
      if (errnoCode(error) === "ENOENT") throw storeChanged(`${path} was removed while it was read`);
      throw fsError(error, path) ?? error;
    }
  }

  private list(dir: string): string[] {
    try {
      return readdirSync(dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw fsError(error, dir) ?? error;
    }
  }

  private sessions(): Map<string, SessionFile> {
    if (this.sessionFiles) return this.sessionFiles;
    const files = new Map<string, SessionFile>();
    for (const rel of fg.sync("session/*/*.json", { cwd: this.storageDir, onlyFiles: true })) {
      const path = join(this.storageDir, rel);
      const id = rel.slice(rel.lastIndexOf("/") + 1, -".json".length);
      files.set(id, this.readSessionFile(id, path));
    }
    this.sessionFiles = files;
    return files;
  }

  private readSessionFile(id: string, path: string): SessionFile {
    const messages = this.list(join(this.storageDir, "message", id)).filter((f) => f.endsWith(".json")).length;
    const fallback: SessionSummary = { id, title: "(unreadable session record)", directory: "", created: 0, updated: 0, messages };
    const decoded = decodeJson(this.read(path));
    if (!decoded.ok) {
      // A torn session file keeps no time of its own: when it was written is the only clue (see untimedActivity).
      const mtime = statSync(path).mtimeMs;
      return { path, summary: { ...fallback, created: mtime, updated: mtime }, problem: decoded.problem };
    }
    const parsed = validateSessionInfo(decoded.value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return { path, summary: fallback, problem: { kind: "schema", detail: `${issue?.path.join(".") || "(record)"}: ${issue?.message}` } };
    }
    const info = decoded.value as SessionInfo;
    return {
      path,
      info,
      summary: {
        id,
        title: info.title,
        directory: info.directory,
        created: info.time.created,
        updated: info.time.updated,
        messages,
        ...(info.parentID ? { parentId: info.parentID } : {}),
      },
    };
  }

  listSessions(): SessionSummary[] {
    return [...this.sessions().values()].map((s) => s.summary).sort((a, b) => b.updated - a.updated || (a.id < b.id ? -1 : 1));
  }

  listStraySessionIds(): string[] {
    const known = this.sessions();
    // A message folder whose files are all gone (a repair moved them into its backup) holds no session.
    const holdsRecords = (id: string) => this.list(join(this.storageDir, "message", id)).some((f) => f.endsWith(".json"));
    const stray = new Set(this.list(join(this.storageDir, "message")).filter((id) => !known.has(id) && holdsRecords(id)));
    for (const sessionId of this.orphanParts().keys()) if (!known.has(sessionId)) stray.add(sessionId);
    return [...stray].sort();
  }

  /** Part folders whose message file does not exist, grouped by the sessionID their part files name. */
  private messageSessions(): Map<string, string[]> {
    if (!this.messageIndex) {
      this.messageIndex = new Map();
      for (const rel of fg.sync("message/*/*.json", { cwd: this.storageDir, onlyFiles: true })) {
        const [, sessionId, file] = rel.split("/");
        const messageId = file!.slice(0, -".json".length);
        this.messageIndex.set(messageId, [...(this.messageIndex.get(messageId) ?? []), sessionId!]);
      }
    }
    return this.messageIndex;
  }

  private orphanParts(): Map<string, string[]> {
    if (this.orphanPartsBySession) return this.orphanPartsBySession;
    const index = this.messageSessions();
    const bySession = new Map<string, string[]>();
    for (const messageId of this.list(join(this.storageDir, "part"))) {
      if (index.has(messageId)) continue;
      for (const file of this.list(join(this.storageDir, "part", messageId))) {
        const path = join(this.storageDir, "part", messageId, file);
        const decoded = decodeJson(this.read(path));
        const sessionId = decoded.ok && typeof decoded.value.sessionID === "string" ? decoded.value.sessionID : "(unknown session)";
        bySession.set(sessionId, [...(bySession.get(sessionId) ?? []), path]);
      }
    }
    this.orphanPartsBySession = bySession;
    return bySession;
  }

  /** The session file's `version`: the opencode version that created the session (read by the listing already). */
  clientVersion(id: string): string | undefined {
    const version = this.sessions().get(id)?.info?.version;
    return typeof version === "string" && version !== "" ? version : undefined;
  }

  loadSession(id: string, mode: LoadMode): SessionRecords {
    assertSafeId(id);
    const keep = mode === "full";
    const sessionFile = this.sessions().get(id);
    const messageDir = join(this.storageDir, "message", id);
    const messages: MessageRecord[] = [];
    const parts: PartRecord[] = [];
    for (const file of this.list(messageDir).filter((f) => f.endsWith(".json"))) {
      const messageId = file.slice(0, -".json".length);
      const path = join(messageDir, file);
      // NaN: the file holds no time of its own; placeUntimed gives it one from its place in the session.
      messages.push(messageFromBytes({ kind: "message", id: messageId, sessionId: id, path }, this.read(path), Number.NaN, keep));
      const partDir = join(this.storageDir, "part", messageId);
      for (const partFile of this.list(partDir).filter((f) => f.endsWith(".json"))) {
        const partPath = join(partDir, partFile);
        const ref: RecordRef = { kind: "part", id: partFile.slice(0, -".json".length), sessionId: id, messageId, path: partPath };
        parts.push(partFromBytes(ref, this.read(partPath), keep));
      }
    }
    for (const path of this.orphanParts().get(id) ?? []) {
      const segments = path.split("/");
      const ref: RecordRef = { kind: "part", id: segments.at(-1)!.slice(0, -".json".length), sessionId: id, messageId: segments.at(-2)!, path };
      parts.push(partFromBytes(ref, this.read(path), keep));
    }
    placeUntimed(messages, (m) => untimedActivity(m.ref));
    if (!sessionFile && messages.length === 0 && parts.length === 0) {
      throw new RecoverError("session-not-found", `no session ${id} in ${this.storageDir}`);
    }
    const lastActivity = recordedActivity(sessionFile?.summary.updated ?? 0, messages, parts, untimedActivity);
    const summary: SessionSummary = sessionFile?.summary ?? {
      id,
      title: "(no session record)",
      directory: "",
      created: Math.min(...messages.map((m) => m.created), lastActivity),
      updated: lastActivity,
      messages: messages.length,
    };
    const sessionRef: RecordRef = { kind: "session", id, sessionId: id, ...(sessionFile ? { path: sessionFile.path } : {}) };
    const records = assembleSession(summary, sessionRef, messages, parts, lastActivity, {
      ...(sessionFile?.problem ? { problem: sessionFile.problem } : {}),
      missing: !sessionFile,
    });
    if (sessionFile?.info) records.info = sessionFile.info;
    if (!sessionFile && records.messages.length > 0) records.home = this.home(records.messages);
    const shared = this.sharedMessages(id, records.messages);
    if (shared) records.sharedMessages = shared;
    return records;
  }

  /** Messages of this session whose file another session's folder holds too (a copied message file). */
  private sharedMessages(id: string, messages: MessageRecord[]): Record<string, string[]> | undefined {
    const index = this.messageSessions();
    const shared: Record<string, string[]> = {};
    for (const message of messages) {
      const others = (index.get(message.ref.id) ?? []).filter((s) => s !== id);
      if (others.length > 0) shared[message.ref.id] = others.sort();
    }
    return Object.keys(shared).length > 0 ? shared : undefined;
  }

  /**
   * Where a session without its file belongs (its file goes under session/<projectID>/): the project whose worktree
   * its messages ran in, else the project of a session in the same directory, else opencode's "global" project.
   */
  private home(messages: MessageRecord[]): SessionHome {
    const { directory, worktree } = sessionPaths(messages);
    const known = [...this.sessions().values()].flatMap((s) => (s.info ? [s.info] : [])).sort((a, b) => b.time.updated - a.time.updated);
    const version = known[0]?.version ?? "unknown";
    for (const file of worktree === undefined ? [] : this.list(join(this.storageDir, "project")).filter((f) => f.endsWith(".json"))) {
      const decoded = decodeJson(this.read(join(this.storageDir, "project", file)));
      if (!decoded.ok || decoded.value.worktree !== worktree) continue;
      const id = typeof decoded.value.id === "string" ? decoded.value.id : file.slice(0, -".json".length);
      return { projectID: id, worktree, version, found: `its worktree ${worktree}` };
    }
    const sibling = directory === undefined ? undefined : known.find((s) => s.directory === directory);
    if (sibling) return { projectID: sibling.projectID, version, found: `another session in ${directory}` };
    return { projectID: "global", version, found: "no project holds its directory" };
  }

  openWriter(): StoreWriter {
    return new OpencodeJsonWriter(this.info);
  }

  close(): void {}
}

/**
 * A record with no readable time (a torn or invalid file) counts as written when its file was. That mtime may be a
 * copy's, fresh from `cp`: then the session's unfinished last turn is taken for live and reported as skipped (never
 * silently; `--include-live` judges it). Ignoring it instead would judge a turn opencode is rewriting this very
 * moment (it rewrites a part file on every streamed update, not atomically) as a crash. Records that carry their
 * own times never ask.
 */
function untimedActivity(ref: RecordRef): number {
  try {
    return ref.path ? statSync(ref.path).mtimeMs : 0;
  } catch {
    return 0;
  }
}
