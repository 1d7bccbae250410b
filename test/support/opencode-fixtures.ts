// Fixture builder: writes real opencode session stores (SQLite 1.18 layout and the ≤1.1.65 JSON tree)
// from a compact description, byte for byte the way opencode writes them.
// Format notes: /work/shared/reference/opencode.md §1.2, §1.3, §2, §3.2, §3.3.
import Database from "better-sqlite3";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

export type Json = Record<string, unknown>;
/** Damages a record after serialisation, per format (compact row JSON vs pretty file JSON). */
export type Corrupt = (serialized: string) => string | Buffer;

export interface PartSpec {
  id?: string;
  /** Part JSON as stored in part.data: type + fields, WITHOUT id/sessionID/messageID. */
  data?: Json;
  /** Bytes stored verbatim instead of data (same bytes in both formats). */
  raw?: string | Buffer;
  /** Applied to the serialised data in each format (e.g. truncate mid-string). */
  corrupt?: Corrupt;
  time?: number;
}
export interface MessageSpec {
  id?: string;
  role: "user" | "assistant";
  created?: number;
  /** Deep-merged over realistic defaults; a key set to undefined removes the default. */
  info?: Json;
  raw?: string | Buffer;
  corrupt?: Corrupt;
  parts: PartSpec[];
}
export interface SessionSpec {
  id?: string;
  title?: string;
  directory?: string;
  projectID?: string;
  created?: number;
  /** Deep-merged over the default Session.Info. */
  info?: Json;
  messages: MessageSpec[];
  /** Parts whose message row/file does not exist. */
  orphanParts?: { messageId: string; parts: PartSpec[] }[];
}
export interface StoreSpec {
  sessions: SessionSpec[];
  seed?: number;
}

export interface BuiltPart {
  id: string;
  messageId: string;
  sessionId: string;
  created: number;
  data?: Json;
  raw?: string | Buffer;
  corrupt?: Corrupt;
}
export interface BuiltMessage {
  id: string;
  sessionId: string;
  role: "user" | "assistant";
  created: number;
  /** Full MessageV2.Info including id and sessionID (what the JSON tree stores). */
  info?: Json;
  raw?: string | Buffer;
  corrupt?: Corrupt;
  parts: BuiltPart[];
}
export interface BuiltSession {
  id: string;
  projectID: string;
  info: Json;
  messages: BuiltMessage[];
  orphanParts: BuiltPart[];
}
export interface BuiltStore {
  sessions: BuiltSession[];
}

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
const DAY = 24 * 60 * MINUTE;
const DEFAULT_START = Date.UTC(2026, 9, 1, 9, 0, 0);
const DEFAULT_DIRECTORY = "/home/dana/code/invoice-api";
const OPENCODE_VERSION = "1.18.31";
const MODEL = { providerID: "anthropic", modelID: "claude-sonnet-4-5" } as const;
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

// ---------------------------------------------------------------------------------------------
// Ids (Identifier module, §1.3)
// ---------------------------------------------------------------------------------------------

/** Small seeded PRNG so fixtures are identical on every run. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const MASK48 = (1n << 48n) - 1n;

// opencode keeps only the low 48 bits of ms*0x1000+counter, which is why ids wrap on 2026-08-14.
function timeHex(ms: number, counter: number, descending: boolean): string {
  const n = BigInt(ms) * 0x1000n + BigInt(counter);
  return ((descending ? ~n : n) & MASK48).toString(16).padStart(12, "0");
}

function randomChars(length: number, rand: () => number): string {
  let out = "";
  for (let i = 0; i < length; i++) out += BASE62[Math.floor(rand() * 62)];
  return out;
}

/** opencode's counter starts at 1 for the first id of a millisecond. */
export function ascendingId(prefix: "msg" | "prt" | "ses", ms: number, counter = 1, rand: () => number = Math.random): string {
  return `${prefix}_${timeHex(ms, counter, false)}${randomChars(14, rand)}`;
}

export function descendingId(prefix: "ses", ms: number, counter = 1, rand: () => number = Math.random): string {
  return `${prefix}_${timeHex(ms, counter, true)}${randomChars(14, rand)}`;
}

type Mint = (prefix: "msg" | "prt" | "ses", ms: number) => string;

// Like opencode, ids minted in the same millisecond get counter 1, 2, 3…; sessions are descending.
function idMinter(rand: () => number): Mint {
  const used = new Map<number, number>();
  return (prefix, ms) => {
    const counter = (used.get(ms) ?? 0) + 1;
    used.set(ms, counter);
    return prefix === "ses" ? descendingId("ses", ms, counter, rand) : ascendingId(prefix, ms, counter, rand);
  };
}

// ---------------------------------------------------------------------------------------------
// Info merging
// ---------------------------------------------------------------------------------------------

function isPlainObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !Buffer.isBuffer(value);
}

/**
 * Deep-merges `over` into `base`. A key explicitly set to undefined deletes the key, so tests can
 * make a message lack e.g. `time.completed`. With keepUndefined the marker is kept instead, for
 * layering several overrides before the final merge.
 */
export function mergeInfo(base: Json, over: Json, keepUndefined = false): Json {
  const out: Json = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const current = out[key];
    if (value === undefined && !keepUndefined) delete out[key];
    else if (isPlainObject(value) && isPlainObject(current)) out[key] = mergeInfo(current, value, keepUndefined);
    else if (isPlainObject(value) && !keepUndefined) out[key] = mergeInfo({}, value);
    else out[key] = value;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// buildStore: resolve ids, times and default infos
// ---------------------------------------------------------------------------------------------

interface BuildContext {
  rand: () => number;
  mint: Mint;
}

export function buildStore(spec: StoreSpec): BuiltStore {
  const rand = mulberry32(spec.seed ?? 1);
  const ctx: BuildContext = { rand, mint: idMinter(rand) };
  return { sessions: spec.sessions.map((s, i) => buildSession(s, ctx, DEFAULT_START + i * DAY)) };
}

/** projectID is the git root-commit SHA in opencode; a hash of the directory looks the same. */
function projectIdFor(directory: string): string {
  return createHash("sha1").update(directory).digest("hex");
}

const SLUG_ADJECTIVES = ["brave", "calm", "eager", "gentle", "quiet", "swift", "witty", "bold", "lucky", "proud"];
const SLUG_NOUNS = ["otter", "falcon", "badger", "comet", "harbor", "maple", "river", "lantern", "meadow", "pixel"];

function slug(rand: () => number): string {
  const pick = (words: string[]) => words[Math.floor(rand() * words.length)]!;
  return `${pick(SLUG_ADJECTIVES)}-${pick(SLUG_NOUNS)}`;
}

function buildSession(spec: SessionSpec, ctx: BuildContext, fallbackCreated: number): BuiltSession {
  const created = spec.created ?? fallbackCreated;
  const directory = spec.directory ?? DEFAULT_DIRECTORY;
  const projectID = spec.projectID ?? projectIdFor(directory);
  const id = spec.id ?? ctx.mint("ses", created);

  const messages: BuiltMessage[] = [];
  let lastUserId: string | undefined;
  let at = created - MINUTE; // so the first message defaults to the session's creation time
  for (const m of spec.messages) {
    at = m.created ?? at + MINUTE;
    const message = buildMessage(m, at, { sessionId: id, directory, parentID: lastUserId }, ctx);
    if (m.role === "user") lastUserId = message.id;
    messages.push(message);
  }

  const lastMessageTime = messages.at(-1)?.created ?? created;
  const orphanParts = (spec.orphanParts ?? []).flatMap((o) => buildParts(o.parts, o.messageId, id, lastMessageTime, ctx));

  const updated = Math.max(
    created,
    ...messages.flatMap((m) => [m.created, completedOf(m.info) ?? 0, ...m.parts.map((p) => p.created)]),
    ...orphanParts.map((p) => p.created),
  );
  const defaults: Json = {
    id,
    slug: slug(ctx.rand),
    version: OPENCODE_VERSION,
    projectID,
    directory,
    title: spec.title ?? `New session - ${new Date(created).toISOString()}`,
    time: { created, updated },
  };
  return { id, projectID, info: mergeInfo(defaults, spec.info ?? {}), messages, orphanParts };
}

function buildParts(specs: PartSpec[], messageId: string, sessionId: string, after: number, ctx: BuildContext): BuiltPart[] {
  let at = after;
  return specs.map((p) => {
    at = p.time ?? at + SECOND;
    const built: BuiltPart = { id: p.id ?? ctx.mint("prt", at), messageId, sessionId, created: at };
    if (p.data === undefined && p.raw === undefined) throw new Error(`part ${built.id} needs data or raw`);
    if (p.data !== undefined) built.data = p.data;
    if (p.raw !== undefined) built.raw = p.raw;
    if (p.corrupt !== undefined) built.corrupt = p.corrupt;
    return built;
  });
}

interface MessageContext {
  sessionId: string;
  directory: string;
  parentID: string | undefined;
}

function buildMessage(spec: MessageSpec, created: number, mc: MessageContext, ctx: BuildContext): BuiltMessage {
  const id = spec.id ?? ctx.mint("msg", created);
  const parts = buildParts(spec.parts, id, mc.sessionId, created, ctx);
  const defaults = spec.role === "user" ? userDefaults(id, mc.sessionId, created) : assistantDefaults(id, created, mc, parts, ctx.rand);
  const message: BuiltMessage = {
    id,
    sessionId: mc.sessionId,
    role: spec.role,
    created,
    info: mergeInfo(defaults, spec.info ?? {}),
    parts,
  };
  if (spec.raw !== undefined) message.raw = spec.raw;
  if (spec.corrupt !== undefined) message.corrupt = spec.corrupt;
  return message;
}

function userDefaults(id: string, sessionID: string, created: number): Json {
  return { id, sessionID, role: "user", time: { created }, agent: "build", model: { ...MODEL } };
}

export interface Tokens {
  input: number;
  output: number;
  reasoning: number;
  cache: { read: number; write: number };
}

// Claude Sonnet 4.5 list prices per token, so cost and tokens agree.
function costOf(t: Tokens): number {
  const usd = (t.input * 3 + t.output * 15 + t.cache.read * 0.3 + t.cache.write * 3.75) / 1_000_000;
  return Math.round(usd * 1e6) / 1e6;
}

function randomTokens(rand: () => number): Tokens {
  const between = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo));
  return {
    input: between(2_000, 9_000),
    output: between(150, 1_200),
    reasoning: 0,
    cache: { read: between(12_000, 40_000), write: between(0, 2_500) },
  };
}

function assistantDefaults(id: string, created: number, mc: MessageContext, parts: BuiltPart[], rand: () => number): Json {
  // opencode: tokens = usage of the last step, cost accumulates over steps, finish = last step's reason.
  const steps = parts.map((p) => p.data).filter((d): d is Json => d?.type === "step-finish");
  const last = steps.at(-1);
  const tokens = (last?.tokens as Tokens | undefined) ?? randomTokens(rand);
  const cost = steps.length > 0 ? Math.round(steps.reduce((s, d) => s + Number(d.cost ?? 0), 0) * 1e6) / 1e6 : costOf(tokens);
  const hasTools = parts.some((p) => p.data?.type === "tool");
  const lastPart = parts.at(-1)?.created ?? created;
  return {
    id,
    sessionID: mc.sessionId,
    role: "assistant",
    time: { created, completed: Math.max(created + 30 * SECOND, lastPart + SECOND) },
    ...(mc.parentID === undefined ? {} : { parentID: mc.parentID }),
    modelID: MODEL.modelID,
    providerID: MODEL.providerID,
    mode: "build",
    agent: "build",
    path: { cwd: mc.directory, root: mc.directory },
    cost,
    tokens: structuredClone(tokens),
    finish: typeof last?.reason === "string" ? last.reason : hasTools ? "tool-calls" : "stop",
  };
}

function completedOf(info: Json | undefined): number | undefined {
  const time = info?.time;
  return isPlainObject(time) && typeof time.completed === "number" ? time.completed : undefined;
}

// ---------------------------------------------------------------------------------------------
// Serialisation shared by both writers
// ---------------------------------------------------------------------------------------------

function recordBytes(json: Json, raw: string | Buffer | undefined, corrupt: Corrupt | undefined, pretty: boolean): string | Buffer {
  if (raw !== undefined) return raw;
  const text = pretty ? JSON.stringify(json, null, 2) : JSON.stringify(json);
  return corrupt ? corrupt(text) : text;
}

function withoutKeys(json: Json, keys: string[]): Json {
  const out = { ...json };
  for (const key of keys) delete out[key];
  return out;
}

function partJson(p: BuiltPart): Json {
  return { id: p.id, sessionID: p.sessionId, messageID: p.messageId, ...(p.data ?? {}) };
}

// Latest timestamp inside a part (tool end, text/reasoning end) — drizzle bumps time_updated on every update.
function partUpdated(p: BuiltPart): number {
  const times = [p.created];
  const data = p.data ?? {};
  const state = isPlainObject(data.state) ? data.state : {};
  for (const t of [data.time, state.time]) if (isPlainObject(t) && typeof t.end === "number") times.push(t.end);
  return Math.max(...times);
}

interface Project {
  id: string;
  worktree: string;
  created: number;
  updated: number;
}

function projectsOf(store: BuiltStore): Project[] {
  const byId = new Map<string, Project>();
  for (const s of store.sessions) {
    const time = s.info.time as { created: number; updated: number };
    const p = byId.get(s.projectID);
    if (!p) byId.set(s.projectID, { id: s.projectID, worktree: String(s.info.directory), created: time.created, updated: time.updated });
    else {
      p.created = Math.min(p.created, time.created);
      p.updated = Math.max(p.updated, time.updated);
    }
  }
  return [...byId.values()];
}

// ---------------------------------------------------------------------------------------------
// SQLite store (opencode 1.18.31, V1 tables)
// ---------------------------------------------------------------------------------------------

const SCHEMA_V1 = `
CREATE TABLE \`project\` (
  \`id\` text PRIMARY KEY,
  \`worktree\` text NOT NULL,
  \`vcs\` text,
  \`name\` text,
  \`icon_url\` text,
  \`icon_url_override\` text,
  \`icon_color\` text,
  \`time_created\` integer NOT NULL,
  \`time_updated\` integer NOT NULL,
  \`time_initialized\` integer,
  \`sandboxes\` text NOT NULL,
  \`commands\` text
);
CREATE TABLE \`session\` (
  \`id\` text PRIMARY KEY,
  \`project_id\` text NOT NULL REFERENCES \`project\`(\`id\`) ON DELETE CASCADE,
  \`workspace_id\` text,
  \`parent_id\` text,
  \`slug\` text NOT NULL,
  \`directory\` text NOT NULL,
  \`path\` text,
  \`title\` text NOT NULL,
  \`version\` text NOT NULL,
  \`share_url\` text,
  \`summary_additions\` integer,
  \`summary_deletions\` integer,
  \`summary_files\` integer,
  \`summary_diffs\` text,
  \`metadata\` text,
  \`cost\` real DEFAULT 0 NOT NULL,
  \`tokens_input\` integer DEFAULT 0 NOT NULL,
  \`tokens_output\` integer DEFAULT 0 NOT NULL,
  \`tokens_reasoning\` integer DEFAULT 0 NOT NULL,
  \`tokens_cache_read\` integer DEFAULT 0 NOT NULL,
  \`tokens_cache_write\` integer DEFAULT 0 NOT NULL,
  \`revert\` text,
  \`permission\` text,
  \`agent\` text,
  \`model\` text,
  \`time_created\` integer NOT NULL,
  \`time_updated\` integer NOT NULL,
  \`time_compacting\` integer,
  \`time_archived\` integer
);
CREATE TABLE \`message\` (
  \`id\` text PRIMARY KEY,
  \`session_id\` text NOT NULL REFERENCES \`session\`(\`id\`) ON DELETE CASCADE,
  \`time_created\` integer NOT NULL,
  \`time_updated\` integer NOT NULL,
  \`data\` text NOT NULL
);
CREATE TABLE \`part\` (
  \`id\` text PRIMARY KEY,
  \`message_id\` text NOT NULL REFERENCES \`message\`(\`id\`) ON DELETE CASCADE,
  \`session_id\` text NOT NULL,
  \`time_created\` integer NOT NULL,
  \`time_updated\` integer NOT NULL,
  \`data\` text NOT NULL
);
CREATE TABLE \`todo\` (
  \`session_id\` text NOT NULL REFERENCES \`session\`(\`id\`) ON DELETE CASCADE,
  \`content\` text NOT NULL,
  \`status\` text NOT NULL,
  \`priority\` text NOT NULL,
  \`position\` integer NOT NULL,
  \`time_created\` integer NOT NULL,
  \`time_updated\` integer NOT NULL,
  PRIMARY KEY(\`session_id\`, \`position\`)
);
CREATE TABLE \`permission\` (
  \`project_id\` text PRIMARY KEY REFERENCES \`project\`(\`id\`) ON DELETE CASCADE,
  \`time_created\` integer NOT NULL,
  \`time_updated\` integer NOT NULL,
  \`data\` text NOT NULL
);
CREATE TABLE \`session_share\` (
  \`session_id\` text PRIMARY KEY REFERENCES \`session\`(\`id\`) ON DELETE CASCADE,
  \`id\` text NOT NULL,
  \`secret\` text NOT NULL,
  \`url\` text NOT NULL,
  \`time_created\` integer NOT NULL,
  \`time_updated\` integer NOT NULL
);
CREATE INDEX \`message_session_idx\` ON \`message\` (\`session_id\`);
CREATE INDEX \`part_message_idx\` ON \`part\` (\`message_id\`);
CREATE INDEX \`part_session_idx\` ON \`part\` (\`session_id\`);
CREATE INDEX \`session_project_idx\` ON \`session\` (\`project_id\`);
CREATE INDEX \`session_parent_idx\` ON \`session\` (\`parent_id\`);
CREATE INDEX \`todo_session_idx\` ON \`todo\` (\`session_id\`);
`;

// CAST(? AS TEXT) keeps a Buffer's bytes but with TEXT affinity, as opencode's rows always are.
const INSERT_PART = "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, CAST(? AS TEXT))";

function insertSession(db: Database.Database, s: BuiltSession): void {
  const info = s.info;
  const time = info.time as Json;
  const assistants = s.messages.map((m) => m.info).filter((i): i is Json => i?.role === "assistant");
  const sum = (pick: (t: Tokens) => number) => assistants.reduce((n, i) => n + (i.tokens ? pick(i.tokens as Tokens) : 0), 0);
  const lastModel = assistants.at(-1);
  const summary = isPlainObject(info.summary) ? info.summary : undefined;
  const json = (v: unknown) => (v === undefined ? null : JSON.stringify(v));
  db.prepare(
    `INSERT INTO session (id, project_id, parent_id, slug, directory, path, title, version, share_url,
       summary_additions, summary_deletions, summary_files, summary_diffs, cost, tokens_input, tokens_output,
       tokens_reasoning, tokens_cache_read, tokens_cache_write, revert, permission, agent, model,
       time_created, time_updated, time_compacting, time_archived)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    s.id,
    s.projectID,
    info.parentID ?? null,
    info.slug,
    info.directory,
    "", // session.path (1.17+): directory relative to the project worktree; "" = the worktree itself
    info.title,
    info.version,
    isPlainObject(info.share) ? info.share.url : null,
    summary?.additions ?? null,
    summary?.deletions ?? null,
    summary?.files ?? null,
    json(summary?.diffs),
    Math.round(assistants.reduce((n, i) => n + Number(i.cost ?? 0), 0) * 1e6) / 1e6,
    sum((t) => t.input),
    sum((t) => t.output),
    sum((t) => t.reasoning),
    sum((t) => t.cache.read),
    sum((t) => t.cache.write),
    json(info.revert),
    json(info.permission),
    "build",
    lastModel ? JSON.stringify({ id: lastModel.modelID, providerID: lastModel.providerID }) : null,
    time.created,
    time.updated,
    time.compacting ?? null,
    time.archived ?? null,
  );
}

function insertMessage(db: Database.Database, m: BuiltMessage): void {
  const data = recordBytes(withoutKeys(m.info ?? {}, ["id", "sessionID"]), m.raw, m.corrupt, false);
  const updated = Math.max(m.created, completedOf(m.info) ?? 0, ...m.parts.map(partUpdated));
  db.prepare("INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, CAST(? AS TEXT))").run(
    m.id,
    m.sessionId,
    m.created,
    updated,
    data,
  );
}

function insertPart(db: Database.Database, p: BuiltPart): void {
  db.prepare(INSERT_PART).run(p.id, p.messageId, p.sessionId, p.created, partUpdated(p), recordBytes(p.data ?? {}, p.raw, p.corrupt, false));
}

/** Writes dataDir/opencode.db as opencode 1.18.31 leaves it after a clean shutdown. */
export function writeSqliteStore(dataDir: string, store: BuiltStore): string {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, "opencode.db");
  for (const f of [file, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
  const db = new Database(file);
  try {
    db.pragma("journal_mode = WAL");
    db.pragma("foreign_keys = ON");
    db.exec(SCHEMA_V1);
    db.transaction(() => {
      for (const p of projectsOf(store)) {
        db.prepare("INSERT INTO project (id, worktree, vcs, time_created, time_updated, time_initialized, sandboxes) VALUES (?, ?, 'git', ?, ?, ?, '[]')").run(
          p.id,
          p.worktree,
          p.created,
          p.updated,
          p.created,
        );
      }
      for (const s of store.sessions) {
        insertSession(db, s);
        for (const m of s.messages) {
          insertMessage(db, m);
          for (const p of m.parts) insertPart(db, p);
        }
      }
    })();
    // Orphans violate the part→message foreign key; the pragma only takes effect outside a transaction.
    db.pragma("foreign_keys = OFF");
    db.transaction(() => {
      for (const s of store.sessions) for (const p of s.orphanParts) insertPart(db, p);
    })();
    db.pragma("foreign_keys = ON");
    db.pragma("wal_checkpoint(TRUNCATE)");
  } finally {
    db.close();
  }
  return file;
}

// ---------------------------------------------------------------------------------------------
// JSON tree (opencode ≤ 1.1.65)
// ---------------------------------------------------------------------------------------------

function writeRecord(file: string, bytes: string | Buffer): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, bytes);
}

/** Writes dataDir/storage/… as opencode's Storage module does (pretty JSON, ids included). */
export function writeJsonStore(dataDir: string, store: BuiltStore): string {
  const root = path.join(dataDir, "storage");
  fs.rmSync(root, { recursive: true, force: true });
  writeRecord(path.join(root, "migration"), "2");
  for (const p of projectsOf(store)) {
    const project = { id: p.id, worktree: p.worktree, vcs: "git", sandboxes: [], time: { created: p.created, updated: p.updated } };
    writeRecord(path.join(root, "project", `${p.id}.json`), JSON.stringify(project, null, 2));
  }
  for (const s of store.sessions) {
    writeRecord(path.join(root, "session", s.projectID, `${s.id}.json`), JSON.stringify(s.info, null, 2));
    for (const m of s.messages) {
      writeRecord(path.join(root, "message", s.id, `${m.id}.json`), recordBytes(m.info ?? {}, m.raw, m.corrupt, true));
      for (const p of m.parts) writePartFile(root, p);
    }
    for (const p of s.orphanParts) writePartFile(root, p);
  }
  return root;
}

function writePartFile(root: string, p: BuiltPart): void {
  writeRecord(path.join(root, "part", p.messageId, `${p.id}.json`), recordBytes(partJson(p), p.raw, p.corrupt, true));
}

// ---------------------------------------------------------------------------------------------
// Corruption helpers (for `corrupt`)
// ---------------------------------------------------------------------------------------------

/** Cuts the record right after the first occurrence of `needle` (a crash mid-write). */
export function truncateAfter(needle: string): Corrupt {
  return (text) => {
    const at = text.indexOf(needle);
    if (at < 0) throw new Error(`truncateAfter: ${JSON.stringify(needle)} not in record`);
    return text.slice(0, at + needle.length);
  };
}

/** Replaces every occurrence of `needle` with raw bytes (e.g. invalid UTF-8). */
export function replaceWithBytes(needle: string, bytes: Buffer): Corrupt {
  return (text) => {
    const pieces = text.split(needle);
    if (pieces.length < 2) throw new Error(`replaceWithBytes: ${JSON.stringify(needle)} not in record`);
    const chunks: Buffer[] = [];
    for (const [i, piece] of pieces.entries()) chunks.push(...(i === 0 ? [] : [bytes]), Buffer.from(piece));
    return Buffer.concat(chunks);
  };
}

// ---------------------------------------------------------------------------------------------
// Transcript: writes realistic parts on a running clock
// ---------------------------------------------------------------------------------------------

export interface TranscriptOptions {
  start: number;
  directory?: string;
  seed?: number;
}

export interface ToolResult {
  output: string;
  title: string;
  metadata?: Json;
  ms?: number;
  callID?: string;
}

/**
 * Builds MessageSpecs the way opencode's processor writes them: every part gets a time on one clock,
 * tokens follow the conversation's size, and call ids / signatures / snapshots look real.
 */
export class Transcript {
  readonly directory: string;
  private clock: number;
  private readonly rand: () => number;
  private contextChars = 0; // everything sent so far; drives cache-read token counts
  private stepChars = 0; // output of the current step; drives output token counts

  constructor(opts: TranscriptOptions) {
    this.clock = opts.start;
    this.directory = opts.directory ?? DEFAULT_DIRECTORY;
    this.rand = mulberry32(opts.seed ?? opts.start % 2 ** 31);
  }

  get now(): number {
    return this.clock;
  }

  /** Advances the clock by ms and returns the new time. */
  tick(ms: number = SECOND): number {
    this.clock += ms;
    return this.clock;
  }

  abs(file: string): string {
    return path.posix.join(this.directory, file);
  }

  callID(): string {
    return `toolu_01${randomChars(22, this.rand)}`;
  }

  private hex(length: number): string {
    let out = "";
    for (let i = 0; i < length; i++) out += "0123456789abcdef"[Math.floor(this.rand() * 16)];
    return out;
  }

  private signature(): string {
    const b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let out = "EqQB";
    for (let i = 0; i < 320; i++) out += b64[Math.floor(this.rand() * 64)];
    return out;
  }

  private count(chars: number): void {
    this.contextChars += chars;
    this.stepChars += chars;
  }

  /** A user turn: the prompt text, then per attached file opencode's synthetic Read call + the file part. */
  user(text: string, opts: { files?: { path: string; content: string }[]; gap?: number; info?: Json } = {}): MessageSpec {
    const created = this.tick(opts.gap ?? 45 * SECOND);
    const parts: PartSpec[] = [{ time: this.tick(2), data: { type: "text", text } }];
    for (const file of opts.files ?? []) {
      const mention = `@${file.path}`;
      const start = Math.max(0, text.indexOf(mention));
      parts.push(
        {
          time: this.tick(2),
          data: { type: "text", synthetic: true, text: `Called the Read tool with the following input: ${JSON.stringify({ filePath: this.abs(file.path) })}` },
        },
        { time: this.tick(2), data: { type: "text", synthetic: true, text: readOutput(file.content) } },
        {
          time: this.tick(2),
          data: {
            type: "file",
            mime: "text/plain",
            filename: file.path,
            url: `file://${this.abs(file.path)}`,
            source: { type: "file", path: file.path, text: { value: mention, start, end: start + mention.length } },
          },
        },
      );
      this.count(file.content.length);
    }
    this.count(text.length);
    const spec: MessageSpec = { role: "user", created, parts };
    if (opts.info) spec.info = opts.info;
    return spec;
  }

  /** An assistant message around parts made with this transcript; completed after its last part unless info says otherwise. */
  assistant(parts: PartSpec[], info: Json = {}): MessageSpec {
    const firstPart = parts[0]?.time ?? this.tick();
    const created = firstPart - 500;
    const completed = this.tick(800);
    return { role: "assistant", created, info: mergeInfo({ time: { completed } }, info, true), parts };
  }

  stepStart(): PartSpec {
    this.stepChars = 0;
    return { time: this.tick(), data: { type: "step-start", snapshot: this.hex(40) } };
  }

  stepFinish(reason = "stop", tokens?: Tokens): PartSpec {
    const t = tokens ?? {
      input: 3 + Math.floor(this.rand() * 400),
      output: Math.max(12, Math.round(this.stepChars / 4)),
      reasoning: 0,
      cache: { read: Math.round(this.contextChars / 4) + 9_800, write: 200 + Math.floor(this.rand() * 1_800) },
    };
    return { time: this.tick(200), data: { type: "step-finish", reason, snapshot: this.hex(40), cost: costOf(t), tokens: t } };
  }

  reasoning(text: string, opts: { signed?: boolean } = {}): PartSpec {
    const start = this.tick();
    const end = this.tick(300 + text.length * 4);
    this.count(text.length);
    const data: Json = { type: "reasoning", text, time: { start, end } };
    if (opts.signed !== false) data.metadata = { anthropic: { signature: this.signature() } };
    return { time: start, data };
  }

  text(text: string): PartSpec {
    const start = this.tick();
    const end = this.tick(200 + text.length * 3);
    this.count(text.length);
    return { time: start, data: { type: "text", text, time: { start, end } } };
  }

  /** A completed tool call. */
  tool(tool: string, input: Json, result: ToolResult): PartSpec {
    const start = this.tick();
    const end = this.tick(result.ms ?? 150);
    this.count(JSON.stringify(input).length + result.output.length);
    return {
      time: start,
      data: {
        type: "tool",
        callID: result.callID ?? this.callID(),
        tool,
        state: { status: "completed", input, output: result.output, title: result.title, metadata: result.metadata ?? {}, time: { start, end } },
      },
    };
  }

  /** A tool call still `running`: what a killed process leaves behind. */
  running(tool: string, input: Json, opts: { title?: string; metadata?: Json } = {}): PartSpec {
    const start = this.tick();
    const state: Json = { status: "running", input, time: { start } };
    if (opts.title !== undefined) state.title = opts.title;
    if (opts.metadata !== undefined) state.metadata = opts.metadata;
    return { time: start, data: { type: "tool", callID: this.callID(), tool, state } };
  }

  bash(command: string, description: string, output: string, opts: { exit?: number; ms?: number } = {}): PartSpec {
    return this.tool(
      "bash",
      { command, description },
      {
        output,
        title: description,
        // opencode keeps at most 30,000 characters of streamed output in metadata
        metadata: { output: output.slice(0, 30_000), exit: opts.exit ?? 0, description },
        ms: opts.ms ?? 2_400,
      },
    );
  }

  read(file: string, content: string): PartSpec {
    const lines = content.split("\n");
    return this.tool(
      "read",
      { filePath: this.abs(file) },
      {
        output: readOutput(content),
        title: file,
        metadata: { preview: lines.slice(0, 20).join("\n"), truncated: false },
        ms: 40,
      },
    );
  }

  edit(file: string, oldString: string, newString: string): PartSpec {
    const removed = oldString.split("\n");
    const added = newString.split("\n");
    const abs = this.abs(file);
    const diff = [
      `Index: ${abs}`,
      "===================================================================",
      `--- ${abs}`,
      `+++ ${abs}`,
      `@@ -1,${removed.length} +1,${added.length} @@`,
      ...removed.map((l) => `-${l}`),
      ...added.map((l) => `+${l}`),
      "",
    ].join("\n");
    return this.tool(
      "edit",
      { filePath: abs, oldString, newString },
      {
        output: "Edit applied successfully.",
        title: file,
        metadata: {
          diagnostics: {},
          diff,
          filediff: { file: abs, before: oldString, after: newString, additions: added.length, deletions: removed.length },
        },
        ms: 120,
      },
    );
  }

  /** opencode adds a patch part after a step that changed files. */
  patch(files: string[]): PartSpec {
    return { time: this.tick(50), data: { type: "patch", hash: this.hex(40), files: files.map((f) => this.abs(f)) } };
  }
}

/** The read tool's output format: numbered lines inside <file>. */
export function readOutput(content: string): string {
  const lines = content.split("\n");
  const numbered = lines.map((l, i) => `${String(i + 1).padStart(5, "0")}| ${l}`).join("\n");
  return `<file>\n${numbered}\n\n(End of file - total ${lines.length} lines)\n</file>`;
}

// ---------------------------------------------------------------------------------------------
// healthySession: a realistic session a correct scanner must find nothing wrong with
// ---------------------------------------------------------------------------------------------

const CONFIG_BEFORE = `import "dotenv/config";

export interface Config {
  databaseUrl: string;
  port: number;
  logLevel: string;
}

export function loadConfig(env = process.env): Config {
  return {
    databaseUrl: env.DATABASE_URL as string,
    port: Number(env.PORT ?? 3000),
    logLevel: env.LOG_LEVEL ?? "info",
  };
}`;

const CONFIG_OLD_BODY = `export function loadConfig(env = process.env): Config {
  return {
    databaseUrl: env.DATABASE_URL as string,
    port: Number(env.PORT ?? 3000),
    logLevel: env.LOG_LEVEL ?? "info",
  };
}`;

const CONFIG_NEW_BODY = `const EnvSchema = z.object({
  DATABASE_URL: z.string().url(),
  PORT: z.string().default("3000"),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),
});

export function loadConfig(env = process.env): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => \`\${i.path.join(".")}: \${i.message}\`).join("; ");
    throw new Error(\`Invalid environment: \${problems}\`);
  }
  return {
    databaseUrl: parsed.data.DATABASE_URL,
    port: Number(parsed.data.PORT),
    logLevel: parsed.data.LOG_LEVEL,
  };
}`;

const CONFIG_AFTER = CONFIG_BEFORE.replace(CONFIG_OLD_BODY, CONFIG_NEW_BODY).replace(
  'import "dotenv/config";',
  'import "dotenv/config";\nimport { z } from "zod";',
);

function vitestOutput(directory: string, files: number, tests: number, ms: number): string {
  return [
    "",
    ` RUN  v3.2.4 ${directory}`,
    "",
    ` ✓ test/config.test.ts (${Math.min(tests, 5)} tests) 6ms`,
    ...(files > 1 ? [` ✓ test/invoices.test.ts (${tests - Math.min(tests, 5)} tests) 41ms`] : []),
    "",
    ` Test Files  ${files} passed (${files})`,
    `      Tests  ${tests} passed (${tests})`,
    `   Duration  ${ms}ms`,
    "",
  ].join("\n");
}

type Turn = (w: Transcript) => MessageSpec[];

const TURNS: Turn[] = [
  (w) => [
    w.user(
      "The config loader in src/config.ts silently accepts a missing DATABASE_URL and we only find out when the first query fails. Validate the environment with zod at startup and make the tests cover it.",
      { gap: 2 * SECOND },
    ),
    w.assistant([
      w.stepStart(),
      w.reasoning(
        "The user wants startup validation in src/config.ts. Before editing I should see the current loader and run the existing config tests so I know the baseline.",
      ),
      w.text("I'll run the config tests and read the loader first."),
      w.bash("npx vitest run test/config.test.ts", "Run config tests", vitestOutput(w.directory, 1, 3, 412)),
      w.read("src/config.ts", CONFIG_BEFORE),
      w.edit("src/config.ts", CONFIG_OLD_BODY, CONFIG_NEW_BODY),
      w.stepFinish("tool-calls"),
      w.patch(["src/config.ts"]),
      w.stepStart(),
      w.reasoning("The edit is in place and uses z from zod, which is already a dependency. Summarise the new failure mode."),
      w.text(
        "`loadConfig()` now parses the environment with a zod schema. A missing or malformed `DATABASE_URL` throws at startup with `Invalid environment: DATABASE_URL: Required` instead of failing on the first query. `LOG_LEVEL` is restricted to debug/info/warn/error.",
      ),
      w.stepFinish("stop"),
    ]),
  ],
  (w) => [
    w.user("Also reject a PORT that isn't a number. This is the current version: @src/config.ts", {
      files: [{ path: "src/config.ts", content: CONFIG_AFTER }],
    }),
    w.assistant([
      w.stepStart(),
      w.reasoning("PORT is currently a string with a default. z.coerce.number with int and range checks rejects 'abc' and out-of-range ports."),
      w.text(
        "Replace the `PORT` entry with a coercing number schema:\n\n```ts\nPORT: z.coerce.number().int().min(1).max(65535).default(3000),\n```\n\nThen `port: parsed.data.PORT` no longer needs `Number(...)`. `PORT=abc` now fails with `PORT: Expected number, received nan`.",
      ),
      w.stepFinish("stop"),
    ]),
  ],
  (w) => [
    w.user("Run the full test suite and the typechecker."),
    w.assistant([
      w.stepStart(),
      w.reasoning("Run vitest for everything, then tsc --noEmit."),
      w.text("Running both."),
      w.bash("npm test", "Run all tests", vitestOutput(w.directory, 2, 42, 1873), { ms: 4_100 }),
      w.bash("npx tsc --noEmit", "Typecheck", "", { ms: 6_300 }),
      w.stepFinish("tool-calls"),
      w.stepStart(),
      w.text("All 42 tests pass and `tsc --noEmit` reports no errors."),
      w.stepFinish("stop"),
    ]),
  ],
  (w) => [
    w.user("Write a short CHANGELOG entry for this."),
    w.assistant([
      w.stepStart(),
      w.reasoning("Keep-a-changelog style, one Changed bullet and one Fixed bullet."),
      w.text(
        "```md\n### Changed\n- Environment variables are validated with zod at startup; invalid values stop the server with a message naming the variable.\n\n### Fixed\n- A missing `DATABASE_URL` no longer surfaces as a connection error on the first query.\n```",
      ),
      w.stepFinish("stop"),
    ]),
  ],
];

export function healthySession(opts: { start?: number; title?: string; turns?: number; directory?: string } = {}): SessionSpec {
  const start = opts.start ?? DEFAULT_START;
  const directory = opts.directory ?? DEFAULT_DIRECTORY;
  const w = new Transcript({ start, directory });
  const messages: MessageSpec[] = [];
  for (let i = 0; i < (opts.turns ?? 2); i++) {
    // After the first pass, repeat the test-and-changelog turns so longer sessions stay plausible.
    const turn = i < TURNS.length ? TURNS[i]! : TURNS[2 + ((i - TURNS.length) % 2)]!;
    messages.push(...turn(w));
  }
  return { title: opts.title ?? "Validate config with zod", directory, created: start, messages };
}
