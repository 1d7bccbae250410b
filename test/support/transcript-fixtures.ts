// Fixture builder for JSONL agent transcripts, written line for line the way the agents write them:
//   Claude Code: <configDir>/projects/<encoded cwd>/<sessionId>.jsonl
//   openclaw (pi session format v3): <stateDir>/agents/<agentId>/sessions/<sessionId>.jsonl + sessions.json
// Format notes: /work/shared/reference/formats-and-errors.md §2 (Claude Code) and §3 (openclaw).
// Deterministic: every id, signature, token count and time step comes from a seeded PRNG.
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { MINUTE, SECOND, mulberry32 } from "./opencode-fixtures.js";

export type Json = Record<string, unknown>;

const DEFAULT_START = Date.UTC(2026, 9, 1, 9, 0, 0);
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

// ---------------------------------------------------------------------------------------------
// Shared helpers
// ---------------------------------------------------------------------------------------------

/** Seeded source of ids and jitter; one per transcript. */
class Mint {
  private readonly rand: () => number;
  constructor(seed: number) {
    this.rand = mulberry32(seed);
  }
  /** Integer in [lo, hi). */
  between(lo: number, hi: number): number {
    return lo + Math.floor(this.rand() * (hi - lo));
  }
  bytes(n: number): Buffer {
    const out = Buffer.alloc(n);
    for (let i = 0; i < n; i++) out[i] = this.between(0, 256);
    return out;
  }
  /** RFC 4122 version 4 UUID. */
  uuid(): string {
    const b = this.bytes(16);
    b[6] = (b[6]! & 0x0f) | 0x40;
    b[8] = (b[8]! & 0x3f) | 0x80;
    const h = b.toString("hex");
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }
  base62(n: number): string {
    let out = "";
    for (let i = 0; i < n; i++) out += BASE62[this.between(0, 62)];
    return out;
  }
  hex(n: number): string {
    let out = "";
    for (let i = 0; i < n; i++) out += this.between(0, 16).toString(16);
    return out;
  }
  /** An Anthropic thinking signature: base64 of an opaque blob, starting "EqQ" like the real ones. */
  signature(): string {
    const b = this.bytes(this.between(180, 320));
    b[0] = 0x12;
    b[1] = 0xa4;
    return b.toString("base64");
  }
  /** toolu_01 + 22 base62 characters, the shape of Anthropic tool_use ids. */
  toolUseId(): string {
    return `toolu_01${this.base62(22)}`;
  }
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function isPlainObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !Buffer.isBuffer(value);
}

/**
 * Sets extra's keys on record: keys already there keep their position, new keys go just before
 * `before` (or at the end); a key set to undefined is removed.
 */
function place(record: Json, extra: Json, before = "uuid"): Json {
  const fresh = Object.entries(extra).filter(([k]) => !(k in record));
  const out: Json = {};
  const addFresh = () => {
    for (const [k, v] of fresh) if (v !== undefined) out[k] = v;
  };
  for (const [k, v] of Object.entries(record)) {
    if (k === before) addFresh();
    const value = k in extra ? extra[k] : v;
    if (value !== undefined) out[k] = value;
  }
  if (!(before in record)) addFresh();
  return out;
}

function lineBytes(line: string | Buffer): Buffer {
  return typeof line === "string" ? Buffer.from(line, "utf8") : line;
}

function joinLines(lines: (string | Buffer)[], endsWithNewline: boolean): Buffer {
  const chunks: Buffer[] = [];
  lines.forEach((line, i) => {
    chunks.push(lineBytes(line));
    if (i < lines.length - 1 || endsWithNewline) chunks.push(Buffer.from("\n"));
  });
  return Buffer.concat(chunks);
}

/** 1-based number of the first line whose record has `key` === value; throws if none. */
function findLine(lines: (string | Buffer)[], key: string, value: string): number {
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (typeof line !== "string") continue;
    try {
      const record: unknown = JSON.parse(line);
      if (isPlainObject(record) && record[key] === value) return i + 1;
    } catch {
      // damaged line: not addressable by id
    }
  }
  throw new Error(`no line with ${key} ${value}`);
}

function writePrivate(file: string, data: string | Buffer): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, data, { mode: 0o600 });
  fs.chmodSync(file, 0o600); // an existing file keeps its old mode otherwise
}

function textOf(content: string | Json[]): string {
  if (typeof content === "string") return content;
  return content
    .filter((b) => b.type === "text" && typeof b.text === "string")
    .map((b) => b.text as string)
    .join("\n");
}

// ---------------------------------------------------------------------------------------------
// Claude Code
// ---------------------------------------------------------------------------------------------

/** The project directory name Claude Code uses for a cwd: every non-alphanumeric character becomes "-". */
export function encodeCwd(cwd: string): string {
  return cwd.replace(/[^A-Za-z0-9]/g, "-");
}

export interface ClaudeOptions {
  sessionId?: string;
  cwd?: string;
  version?: string;
  gitBranch?: string;
  /** Epoch ms of the first record. */
  start?: number;
  seed?: number;
  /** Default model of assistant lines (assistant() can override per response). */
  model?: string;
}

export interface ClaudeAssistantOptions {
  model?: string;
  /** stop_reason of the response's last line; null keeps it null (killed mid-stream). Default end_turn / tool_use. */
  stopReason?: string | null;
  parent?: string | null;
  /** Top-level fields set on every line (new keys go before uuid); extra.message is merged into message. */
  extra?: Json;
  /** Merged into the usage object every line of the response carries. */
  usage?: Json;
}

export interface ClaudeToolResultOptions {
  isError?: boolean;
  parent?: string | null;
  /** The rich per-tool result; a default is derived from the tool_use (Bash, Read, Edit, Write, Grep, Glob). Pass undefined to omit. */
  toolUseResult?: unknown;
}

interface ToolUseSource {
  uuid: string;
  block: Json;
}

export class ClaudeTranscript {
  readonly sessionId: string;
  readonly cwd: string;
  readonly version: string;
  readonly gitBranch: string;
  readonly model: string;
  /** Lines written so far, each WITHOUT its trailing newline; replace or insert raw lines to damage the file. */
  lines: (string | Buffer)[] = [];
  /** Set false for a file that ends mid-record (no newline after the last line). */
  endsWithNewline = true;

  private readonly mint: Mint;
  private clock: number;
  private started = false;
  private last: string | null = null;
  private readonly toolUses = new Map<string, ToolUseSource>();

  constructor(options: ClaudeOptions = {}) {
    this.mint = new Mint(options.seed ?? 1);
    this.sessionId = options.sessionId ?? this.mint.uuid();
    this.cwd = options.cwd ?? "/home/dana/code/invoice-api";
    this.version = options.version ?? "2.1.90";
    this.gitBranch = options.gitBranch ?? "main";
    this.model = options.model ?? "claude-sonnet-4-5";
    this.clock = options.start ?? DEFAULT_START;
  }

  /** uuid of the last chain record (what the next record's parentUuid defaults to). */
  get lastUuid(): string | null {
    return this.last;
  }

  /** A fresh uuid from the transcript's PRNG (e.g. to write a file-history-snapshot before its prompt). */
  mintUuid(): string {
    return this.mint.uuid();
  }

  /** A fresh toolu_01… id for a tool_use block. */
  toolUseId(): string {
    return this.mint.toolUseId();
  }

  /** ISO time of the last record written (the clock does not move). */
  now(): string {
    return iso(this.clock);
  }

  /** Moves the clock forward, e.g. for a user who comes back after a break. */
  advance(ms: number): void {
    this.clock += ms;
  }

  /** 1-based line number of the record with this uuid. */
  lineOf(uuid: string): number {
    return findLine(this.lines, "uuid", uuid);
  }

  private stamp(lo: number, hi: number): string {
    if (this.started) this.clock += this.mint.between(lo, hi);
    this.started = true;
    return iso(this.clock);
  }

  private follow(timestamp: unknown): void {
    if (typeof timestamp === "string" && !Number.isNaN(Date.parse(timestamp))) this.clock = Date.parse(timestamp);
  }

  private envelope(parentUuid: string | null): Json {
    return {
      parentUuid,
      isSidechain: false,
      userType: "external",
      cwd: this.cwd,
      sessionId: this.sessionId,
      version: this.version,
      gitBranch: this.gitBranch,
    };
  }

  private push(record: Json): void {
    this.lines.push(JSON.stringify(record));
  }

  user(content: string | Json[], extra: Json & { parent?: string | null } = {}): string {
    const { parent, ...rest } = extra;
    const uuid = typeof rest.uuid === "string" ? rest.uuid : this.mint.uuid();
    const record: Json = {
      ...this.envelope(parent === undefined ? this.last : parent),
      type: "user",
      message: { role: "user", content },
      uuid,
      timestamp: this.stamp(15 * SECOND, 70 * SECOND),
    };
    this.follow(rest.timestamp);
    this.push(place(record, { ...rest, uuid }));
    this.last = uuid;
    return uuid;
  }

  assistant(blocks: Json[], options: ClaudeAssistantOptions = {}): string[] {
    if (blocks.length === 0) throw new Error("assistant() needs at least one content block (one line per block)");
    const messageId = `msg_01${this.mint.base62(22)}`;
    const requestId = `req_011C${this.mint.base62(20)}`;
    const filled = blocks.map((b) => this.fillBlock(b));
    const lastIsTool = filled.at(-1)?.type === "tool_use";
    const finalStop = options.stopReason !== undefined ? options.stopReason : lastIsTool ? "tool_use" : "end_turn";
    const usage: Json = {
      input_tokens: this.mint.between(3, 12),
      output_tokens: this.mint.between(40, 900),
      cache_creation_input_tokens: this.mint.between(200, 3_200),
      cache_read_input_tokens: this.mint.between(14_000, 48_000),
      ...(options.usage ?? {}),
    };
    const { message: messageExtra, ...topExtra } = options.extra ?? {};
    let parent = options.parent === undefined ? this.last : options.parent;
    const uuids: string[] = [];
    filled.forEach((block, i) => {
      const uuid = this.mint.uuid();
      let message: Json = {
        id: messageId,
        type: "message",
        role: "assistant",
        model: options.model ?? this.model,
        content: [block],
        stop_reason: i === filled.length - 1 ? finalStop : null,
        stop_sequence: null,
        usage: { ...usage },
      };
      if (isPlainObject(messageExtra)) message = place(message, messageExtra, "");
      const record: Json = {
        ...this.envelope(parent),
        type: "assistant",
        requestId,
        message,
        uuid,
        timestamp: i === 0 ? this.stamp(1_500, 6_000) : this.stamp(150, 1_400),
      };
      this.follow(topExtra.timestamp);
      this.push(place(record, topExtra));
      if (block.type === "tool_use" && typeof block.id === "string") this.toolUses.set(block.id, { uuid, block });
      uuids.push(uuid);
      parent = uuid;
    });
    this.last = parent;
    return uuids;
  }

  /** Fills what the model always sends: a signature on thinking, an id on tool_use. */
  private fillBlock(block: Json): Json {
    if (block.type === "thinking" && !("signature" in block)) return { ...block, signature: this.mint.signature() };
    if (block.type === "tool_use" && !("id" in block)) {
      const { type, ...rest } = block;
      return { type, id: this.mint.toolUseId(), ...rest };
    }
    return block;
  }

  toolResult(toolUseId: string, content: string | Json[], options: ClaudeToolResultOptions = {}): string {
    const source = this.toolUses.get(toolUseId);
    const block: Json = { type: "tool_result", tool_use_id: toolUseId, content };
    if (options.isError !== undefined) block.is_error = options.isError;
    const record: Json = {
      ...this.envelope(options.parent === undefined ? this.last : options.parent),
      type: "user",
      message: { role: "user", content: [block] },
    };
    const rich = "toolUseResult" in options ? options.toolUseResult : defaultToolUseResult(source?.block, content, options.isError === true);
    if (rich !== undefined) record.toolUseResult = rich;
    if (source) record.sourceToolAssistantUUID = source.uuid;
    const uuid = this.mint.uuid();
    record.uuid = uuid;
    record.timestamp = this.stamp(300, 4_000);
    this.push(record);
    this.last = uuid;
    return uuid;
  }

  /**
   * A record written verbatim. Chain fields are filled only where the record has the key with value
   * undefined (uuid also when null): uuid → fresh, parentUuid → last chain record, timestamp → clock.
   * A record with a uuid becomes the last chain record. Returns its uuid, or undefined.
   */
  meta(record: Json): string | undefined {
    const out: Json = { ...record };
    if ("timestamp" in out) {
      if (out.timestamp === undefined) out.timestamp = this.stamp(20, 400);
      else this.follow(out.timestamp);
    }
    if ("parentUuid" in out && out.parentUuid === undefined) out.parentUuid = this.last;
    if ("uuid" in out && (out.uuid === undefined || out.uuid === null)) out.uuid = this.mint.uuid();
    this.push(out);
    if (typeof out.uuid !== "string") return undefined;
    this.last = out.uuid;
    return out.uuid;
  }

  compact(summary: string, preTokens = 156_000): [string, string] {
    const boundary = this.mint.uuid();
    const record: Json = {
      parentUuid: null,
      logicalParentUuid: this.last ?? undefined,
      isSidechain: false,
      userType: "external",
      cwd: this.cwd,
      sessionId: this.sessionId,
      version: this.version,
      gitBranch: this.gitBranch,
      type: "system",
      subtype: "compact_boundary",
      content: "Conversation compacted",
      isMeta: false,
      timestamp: this.stamp(20 * SECOND, 50 * SECOND),
      uuid: boundary,
      level: "info",
      compactMetadata: { trigger: "auto", preTokens },
    };
    this.push(record);
    const summaryUuid = this.mint.uuid();
    this.push({
      ...this.envelope(boundary),
      type: "user",
      message: { role: "user", content: summary },
      isVisibleInTranscriptOnly: true,
      isCompactSummary: true,
      uuid: summaryUuid,
      timestamp: this.stamp(5, 60),
    });
    this.last = summaryUuid;
    return [boundary, summaryUuid];
  }

  toBuffer(): Buffer {
    return joinLines(this.lines, this.endsWithNewline);
  }

  /** Path of the transcript inside a config dir (what writeTo writes). */
  pathIn(configDir: string): string {
    return path.join(configDir, "projects", encodeCwd(this.cwd), `${this.sessionId}.jsonl`);
  }

  writeTo(configDir: string): string {
    const file = this.pathIn(configDir);
    writePrivate(file, this.toBuffer());
    return file;
  }
}

/** The toolUseResult Claude Code stores next to a tool_result, per tool. */
function defaultToolUseResult(toolUse: Json | undefined, content: string | Json[], isError: boolean): unknown {
  const text = textOf(content);
  if (isError) return `Error: ${text}`;
  const input = isPlainObject(toolUse?.input) ? toolUse.input : {};
  switch (toolUse?.name) {
    case "Bash":
      return { stdout: text, stderr: "", interrupted: false, isImage: false };
    case "Read": {
      const numLines = text === "" ? 0 : text.split("\n").length;
      return { type: "text", file: { filePath: input.file_path, content: stripLineNumbers(text), numLines, startLine: 1, totalLines: numLines } };
    }
    case "Edit":
      return {
        filePath: input.file_path,
        oldString: input.old_string,
        newString: input.new_string,
        structuredPatch: [],
        userModified: false,
        replaceAll: input.replace_all === true,
      };
    case "Write":
      return { type: "create", filePath: input.file_path, content: input.content, structuredPatch: [] };
    case "Grep":
    case "Glob": {
      const filenames = text.split("\n").filter((l) => l !== "" && !l.startsWith("Found "));
      return { mode: "files_with_matches", filenames, numFiles: filenames.length };
    }
    default:
      return content;
  }
}

/** Read results are shown with "     1→" prefixes; toolUseResult.file.content holds the plain text. */
function stripLineNumbers(text: string): string {
  return text
    .split("\n")
    .map((l) => l.replace(/^ *\d+→/, ""))
    .join("\n");
}

/** What Claude Code's Read tool returns: each line prefixed by its number, right-aligned to 6, and "→". */
export function numberedLines(text: string): string {
  return text
    .split("\n")
    .map((l, i) => `${String(i + 1).padStart(6)}→${l}`)
    .join("\n");
}

/** A file-history-snapshot record (written just before the user prompt it belongs to). */
export function fileHistorySnapshot(
  messageId: string,
  timestamp: string,
  tracked: Record<string, { version: number; backupTime: string; created?: boolean }> = {},
  isSnapshotUpdate = false,
): Json {
  const trackedFileBackups: Json = {};
  for (const [file, t] of Object.entries(tracked)) {
    const hash = createHash("sha256").update(file).digest("hex").slice(0, 16);
    trackedFileBackups[file] = { backupFileName: t.created ? null : `${hash}@v${t.version}`, version: t.version, backupTime: t.backupTime };
  }
  return { type: "file-history-snapshot", messageId, snapshot: { messageId, trackedFileBackups, timestamp }, isSnapshotUpdate };
}

// ---------------------------------------------------------------------------------------------
// openclaw (pi-coding-agent SessionManager, session format v3)
// ---------------------------------------------------------------------------------------------

export interface OpenclawOptions {
  sessionId?: string;
  cwd?: string;
  start?: number;
  seed?: number;
  provider?: string;
  model?: string;
}

export type OpenclawStopReason = "stop" | "length" | "toolUse" | "error" | "aborted";

export interface OpenclawAssistantOptions {
  stopReason?: OpenclawStopReason;
  errorMessage?: string;
  parent?: string | null;
  /** Merged over the generated usage; cost and totalTokens are recomputed unless given. */
  usage?: Json;
}

export interface OpenclawToolResultOptions {
  isError?: boolean;
  parent?: string | null;
  details?: unknown;
}

// USD per million tokens: input, output, cache read, cache write.
const PRICES: Record<string, [number, number, number, number]> = {
  "claude-opus-4-5": [5, 25, 0.5, 6.25],
  "claude-sonnet-4-5": [3, 15, 0.3, 3.75],
  "claude-haiku-4-5": [1, 5, 0.1, 1.25],
};

const API_OF: Record<string, string> = {
  anthropic: "anthropic-messages",
  openai: "openai-responses",
  google: "google-generative-ai",
};

function round6(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}

interface OpenclawStats {
  inputTokens: number;
  outputTokens: number;
  contextTokens: number;
  lastUserAt?: number;
  lastAt: number;
  aborted: boolean;
  thinkingLevel?: string;
  compactions: number;
}

export class OpenclawTranscript {
  readonly sessionId: string;
  readonly cwd: string;
  readonly start: number;
  /** Current provider/model; a model_change entry updates them. */
  provider: string;
  model: string;
  /** lines[0] is the session header. Replace or insert raw lines to damage the file. */
  lines: (string | Buffer)[] = [];
  endsWithNewline = true;

  private readonly mint: Mint;
  private clock: number;
  private last: string | null = null;
  private readonly used = new Set<string>();
  private readonly stats: OpenclawStats;

  constructor(options: OpenclawOptions = {}) {
    this.mint = new Mint(options.seed ?? 1);
    this.sessionId = options.sessionId ?? this.mint.uuid();
    this.cwd = options.cwd ?? "/home/dana/.openclaw/workspace";
    this.start = options.start ?? DEFAULT_START;
    this.provider = options.provider ?? "anthropic";
    this.model = options.model ?? "claude-opus-4-5";
    this.clock = this.start;
    this.stats = { inputTokens: 0, outputTokens: 0, contextTokens: 0, lastAt: this.start, aborted: false, compactions: 0 };
    this.lines.push(JSON.stringify({ type: "session", version: 3, id: this.sessionId, timestamp: iso(this.start), cwd: this.cwd }));
  }

  get lastId(): string | null {
    return this.last;
  }

  /** A fresh toolu_01… id for a toolCall block. */
  toolCallId(): string {
    return this.mint.toolUseId();
  }

  now(): string {
    return iso(this.clock);
  }

  advance(ms: number): void {
    this.clock += ms;
  }

  /** 1-based line number of the entry with this id. */
  lineOf(id: string): number {
    return findLine(this.lines, "id", id);
  }

  private entryId(): string {
    for (;;) {
      const id = this.mint.hex(8);
      if (!this.used.has(id)) {
        this.used.add(id);
        return id;
      }
    }
  }

  private tick(lo: number, hi: number): number {
    this.clock += this.mint.between(lo, hi);
    return this.clock;
  }

  private message(message: Json, at: number, parent: string | null | undefined): string {
    const id = this.entryId();
    this.lines.push(JSON.stringify({ type: "message", id, parentId: parent === undefined ? this.last : parent, timestamp: iso(at), message }));
    this.last = id;
    this.stats.lastAt = at;
    return id;
  }

  user(content: string | Json[], options: { parent?: string | null } = {}): string {
    const at = this.tick(10 * SECOND, 60 * SECOND);
    this.stats.lastUserAt = at;
    return this.message({ role: "user", content, timestamp: at }, at, options.parent);
  }

  assistant(content: Json[], options: OpenclawAssistantOptions = {}): string {
    const filled = content.map((b) => this.fillBlock(b));
    const started = this.tick(250, 900);
    const written = started + this.mint.between(1_800, 9_000);
    this.clock = written;
    const stopReason = options.stopReason ?? (filled.some((b) => b.type === "toolCall") ? "toolUse" : "stop");
    const usage = this.usage(options.usage ?? {});
    const message: Json = {
      role: "assistant",
      content: filled,
      api: API_OF[this.provider] ?? "anthropic-messages",
      provider: this.provider,
      model: this.model,
      usage,
      stopReason,
      ...(options.errorMessage !== undefined ? { errorMessage: options.errorMessage } : {}),
      timestamp: started,
    };
    this.stats.inputTokens += Number(usage.input) + Number(usage.cacheRead) + Number(usage.cacheWrite);
    this.stats.outputTokens += Number(usage.output);
    this.stats.contextTokens = Number(usage.totalTokens);
    this.stats.aborted = stopReason === "aborted";
    return this.message(message, written, options.parent);
  }

  private fillBlock(block: Json): Json {
    if (block.type === "thinking" && !("thinkingSignature" in block)) return { ...block, thinkingSignature: this.mint.signature() };
    if (block.type === "toolCall" && !("id" in block)) {
      const { type, ...rest } = block;
      return { type, id: this.mint.toolUseId(), ...rest };
    }
    return block;
  }

  private usage(over: Json): Json {
    const base: Json = {
      input: this.mint.between(3, 12),
      output: this.mint.between(60, 900),
      cacheRead: this.mint.between(12_000, 42_000),
      cacheWrite: this.mint.between(150, 2_800),
      ...over,
    };
    const [pIn, pOut, pRead, pWrite] = PRICES[this.model] ?? PRICES["claude-sonnet-4-5"]!;
    const n = (k: string) => Number(base[k] ?? 0);
    const cost = {
      input: round6((n("input") * pIn) / 1e6),
      output: round6((n("output") * pOut) / 1e6),
      cacheRead: round6((n("cacheRead") * pRead) / 1e6),
      cacheWrite: round6((n("cacheWrite") * pWrite) / 1e6),
      total: 0,
    };
    cost.total = round6(cost.input + cost.output + cost.cacheRead + cost.cacheWrite);
    return {
      input: n("input"),
      output: n("output"),
      cacheRead: n("cacheRead"),
      cacheWrite: n("cacheWrite"),
      totalTokens: "totalTokens" in over ? over.totalTokens : n("input") + n("output") + n("cacheRead") + n("cacheWrite"),
      cost: "cost" in over ? over.cost : cost,
    };
  }

  toolResult(toolCallId: string, toolName: string, text: string, options: OpenclawToolResultOptions = {}): string {
    const at = this.tick(300, 4_000);
    const message: Json = {
      role: "toolResult",
      toolCallId,
      toolName,
      content: [{ type: "text", text }],
      ...(options.details !== undefined ? { details: options.details } : {}),
      isError: options.isError ?? false,
      timestamp: at,
    };
    return this.message(message, at, options.parent);
  }

  entry(record: Json): string {
    const { type, id, parentId, timestamp, ...rest } = record;
    const entryId = typeof id === "string" ? id : this.entryId();
    if (typeof id === "string") this.used.add(id);
    const at = typeof timestamp === "string" ? Date.parse(timestamp) : this.tick(20, 400);
    if (typeof timestamp === "string") this.clock = at;
    this.lines.push(
      JSON.stringify({
        type,
        id: entryId,
        parentId: parentId === undefined ? this.last : parentId,
        timestamp: typeof timestamp === "string" ? timestamp : iso(at),
        ...rest,
      }),
    );
    if (type === "model_change") {
      if (typeof rest.provider === "string") this.provider = rest.provider;
      if (typeof rest.modelId === "string") this.model = rest.modelId;
    }
    if (type === "thinking_level_change" && typeof rest.thinkingLevel === "string") this.stats.thinkingLevel = rest.thinkingLevel;
    if (type === "compaction") this.stats.compactions++;
    this.last = entryId;
    this.stats.lastAt = at;
    return entryId;
  }

  toBuffer(): Buffer {
    return joinLines(this.lines, this.endsWithNewline);
  }

  /** The sessions.json entry openclaw keeps for this transcript (§3.1 SessionEntry). */
  sessionEntry(sessionKey: string, extra: Json = {}): Json {
    const s = this.stats;
    const chatType = sessionKey.includes(":group:") ? "group" : sessionKey.includes(":channel:") ? "channel" : "direct";
    const channel = /^agent:[^:]+:([^:]+):(group|channel|dm):/.exec(sessionKey)?.[1];
    return place(
      {
        sessionId: this.sessionId,
        updatedAt: s.lastAt,
        sessionStartedAt: this.start,
        lastInteractionAt: s.lastUserAt ?? this.start,
        systemSent: true,
        abortedLastRun: s.aborted,
        chatType,
        ...(channel ? { lastChannel: channel } : {}),
        ...(s.thinkingLevel ? { thinkingLevel: s.thinkingLevel } : {}),
        modelProvider: this.provider,
        model: this.model,
        inputTokens: s.inputTokens,
        outputTokens: s.outputTokens,
        totalTokens: s.contextTokens,
        contextTokens: 200_000,
        compactionCount: s.compactions,
      },
      extra,
      "",
    );
  }

  /**
   * Writes <stateDir>/agents/<agentId>/sessions/<sessionId>.jsonl (0600) and merges
   * sessionKey → SessionEntry into sessions.json next to it. `entry` overrides SessionEntry fields
   * (e.g. sessionFile: openclaw stores an absolute path, left out here so fixtures are portable).
   */
  writeTo(stateDir: string, agentId = "main", sessionKey = "agent:main:main", entry: Json = {}): string {
    const dir = path.join(stateDir, "agents", agentId, "sessions");
    const file = path.join(dir, `${this.sessionId}.jsonl`);
    writePrivate(file, this.toBuffer());
    const storePath = path.join(dir, "sessions.json");
    const store: Json = fs.existsSync(storePath) ? (JSON.parse(fs.readFileSync(storePath, "utf8")) as Json) : {};
    store[sessionKey] = this.sessionEntry(sessionKey, entry);
    writePrivate(storePath, JSON.stringify(store, null, 2));
    return file;
  }
}

// ---------------------------------------------------------------------------------------------
// Damage at the raw line level
// ---------------------------------------------------------------------------------------------

export const damage = {
  /** The first keepChars characters of a line: a record cut mid-write. */
  truncate(line: string, keepChars: number): string {
    if (keepChars >= line.length) throw new Error("truncate: keepChars must cut the line");
    return line.slice(0, keepChars);
  },
  /** The stub of a killed write followed, on the same line, by the next full record. */
  concatenate(stub: string, next: string): string {
    return stub + next;
  },
  /** A line of NUL bytes (a crashed append on ext4). */
  nulRun(length: number): Buffer {
    return Buffer.alloc(length, 0);
  },
  /** The line's UTF-8 bytes with the first occurrence of `needle` written as raw Latin-1 (ü → 0xFC). */
  invalidUtf8(line: string, needle: string): Buffer {
    const at = line.indexOf(needle);
    if (at < 0) throw new Error(`invalidUtf8: ${JSON.stringify(needle)} not in line`);
    if ([...needle].some((c) => c.charCodeAt(0) < 0x80 || c.charCodeAt(0) > 0xff)) {
      throw new Error("invalidUtf8: needle must be Latin-1 characters outside ASCII");
    }
    return Buffer.concat([Buffer.from(line.slice(0, at), "utf8"), Buffer.from(needle, "latin1"), Buffer.from(line.slice(at + needle.length), "utf8")]);
  },
};

export { MINUTE, SECOND };
