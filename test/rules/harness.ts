// Rule-test harness: one session description, written as both real opencode stores (SQLite 1.18 and the ≤1.1.65
// JSON tree), opened through openStore and scanned through scanSession with every rule and pinned options.
import Database from "better-sqlite3";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { LoadMode } from "../../src/model/opencode-records.js";
import { RULES } from "../../src/rules/index.js";
import type { Finding, Severity } from "../../src/rules/rule.js";
import { scanSession } from "../../src/scan/scan.js";
import { openStore } from "../../src/stores/discover.js";
import { isOpencodeStore, type OpencodeStore, type SessionStore } from "../../src/stores/store.js";
import {
  buildStore,
  SECOND,
  Transcript,
  writeJsonStore,
  writeSqliteStore,
  type BuiltMessage,
  type BuiltPart,
  type BuiltSession,
  type BuiltStore,
  type Json,
  type MessageSpec,
  type PartSpec,
  type SessionSpec,
} from "../support/opencode-fixtures.js";

export type Format = "sqlite" | "json";
export const FORMATS: readonly Format[] = ["sqlite", "json"];

/** The limits every rule test scans with (the CLI defaults, spelled out so a changed default cannot hide a bug). */
export const LIMITS = { maxOutputChars: 50_000, contextLimit: 200_000, liveWindowMs: 600_000 } as const;

export const START = Date.UTC(2026, 9, 1, 9, 0, 0);
export const HOUR = 60 * 60 * SECOND;

// ---------------------------------------------------------------------------------------------
// Writing and scanning
// ---------------------------------------------------------------------------------------------

export function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), "recover-"));
}

/** Writes the store into a fresh temp data dir and returns the dir (what `--store` names). */
export function writeStore(format: Format, built: BuiltStore): string {
  const dir = tempDir();
  if (format === "sqlite") {
    writeSqliteStore(dir, built);
  } else {
    const root = writeJsonStore(dir, built);
    stampJsonTimes(root, built);
  }
  return dir;
}

/**
 * A file opencode wrote has the mtime of that write, and the JSON reader takes message mtimes as activity. Files
 * written a moment ago by the test would make every unfinished last turn look live, so give each file the time
 * opencode would have written it (the same instants SQLite keeps in time_updated).
 */
function stampJsonTimes(root: string, built: BuiltStore): void {
  const stamp = (file: string, ms: number) => {
    if (fs.existsSync(file)) fs.utimesSync(file, new Date(ms), new Date(ms));
  };
  for (const s of built.sessions) {
    const projectFile = path.join(root, "project", `${s.projectID}.json`);
    stamp(projectFile, sessionUpdated(s));
    stamp(path.join(root, "session", s.projectID, `${s.id}.json`), sessionUpdated(s));
    for (const m of s.messages) {
      stamp(path.join(root, "message", s.id, `${m.id}.json`), messageUpdated(m));
      for (const p of m.parts) stamp(path.join(root, "part", m.id, `${p.id}.json`), partUpdated(p));
    }
    for (const p of s.orphanParts) stamp(path.join(root, "part", p.messageId, `${p.id}.json`), partUpdated(p));
  }
}

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v) && !Buffer.isBuffer(v);

function partUpdated(p: BuiltPart): number {
  const times = [p.created];
  const data = p.data ?? {};
  const state = isObject(data.state) ? data.state : {};
  for (const t of [data.time, state.time]) if (isObject(t) && typeof t.end === "number") times.push(t.end);
  return Math.max(...times);
}

function messageUpdated(m: BuiltMessage): number {
  const time = isObject(m.info?.time) ? (m.info!.time as Json) : {};
  const completed = typeof time.completed === "number" ? time.completed : 0;
  return Math.max(m.created, completed, ...m.parts.map(partUpdated));
}

function sessionUpdated(s: BuiltSession): number {
  return (s.info.time as { updated: number }).updated;
}

/** The latest instant anything in the store was written: what "now" is measured against for live turns. */
export function lastWrite(built: BuiltStore): number {
  return Math.max(...built.sessions.flatMap((s) => [sessionUpdated(s), ...s.messages.map(messageUpdated), ...s.orphanParts.map(partUpdated)]));
}

export interface ScanArgs {
  now: number;
  mode?: LoadMode;
  /** Defaults to the first session. */
  sessionId?: string;
  /** Damage applied to the written store before it is opened (e.g. a deleted session record). */
  tamper?: (dir: string, format: Format) => void;
}

/** Opens the store written in `format`, hands it to `use`, then closes it and removes the temp dir. */
export function withStore<T>(format: Format, built: BuiltStore, use: (store: OpencodeStore) => T, tamper?: ScanArgs["tamper"]): T {
  const dir = writeStore(format, built);
  try {
    tamper?.(dir, format);
    const store = openStore({ store: dir });
    try {
      expectFormat(store, format);
      if (!isOpencodeStore(store)) throw new Error(`${store.info.format} is not an opencode store`);
      return use(store);
    } finally {
      store.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function expectFormat(store: SessionStore, format: Format): void {
  const wanted = format === "sqlite" ? "opencode-sqlite" : "opencode-json";
  if (store.info.format !== wanted) throw new Error(`openStore picked ${store.info.format}, expected ${wanted}`);
}

/** Every rule over one session, with the pinned options the tests share. */
export function scan(format: Format, built: BuiltStore, args: ScanArgs): Finding[] {
  const id = args.sessionId ?? built.sessions[0]!.id;
  return withStore(
    format,
    built,
    (store) => scanSession(store, id, { rules: RULES, now: args.now, ...LIMITS, ...(args.mode ? { mode: args.mode } : {}) }).findings,
    args.tamper,
  );
}

// ---------------------------------------------------------------------------------------------
// Findings, reduced to what a test asserts
// ---------------------------------------------------------------------------------------------

export interface Spot {
  rule: string;
  severity: Severity;
  messageId?: string;
  partId?: string;
}

/** (rule, severity, messageId, partId) of each finding, in a stable order so lists compare exactly. */
export function spots(findings: readonly Finding[]): Spot[] {
  return findings
    .map((f) => ({
      rule: f.rule,
      severity: f.severity,
      ...(f.messageId !== undefined ? { messageId: f.messageId } : {}),
      ...(f.partId !== undefined ? { partId: f.partId } : {}),
    }))
    .sort((a, b) => spotKey(a).localeCompare(spotKey(b)));
}

export function spotKey(s: { rule: string; messageId?: string; partId?: string }): string {
  return `${s.rule} ${s.messageId ?? "-"} ${s.partId ?? "-"}`;
}

/** Expected spots, sorted the way spots() sorts. */
export function expected(...list: Spot[]): Spot[] {
  return [...list].sort((a, b) => spotKey(a).localeCompare(spotKey(b)));
}

// ---------------------------------------------------------------------------------------------
// Finding planted records in a built store
// ---------------------------------------------------------------------------------------------

export interface PartAt {
  messageId: string;
  partId: string;
}

/** The one part (of any session, orphans included) whose stored data matches. Throws unless exactly one does. */
export function partWhere(built: BuiltStore, match: (data: Json, part: BuiltPart) => boolean): PartAt {
  const hits: PartAt[] = [];
  for (const s of built.sessions) {
    for (const p of [...s.messages.flatMap((m) => m.parts), ...s.orphanParts]) {
      if (match(p.data ?? {}, p)) hits.push({ messageId: p.messageId, partId: p.id });
    }
  }
  if (hits.length !== 1) throw new Error(`partWhere: expected one matching part, found ${hits.length}`);
  return hits[0]!;
}

/** The one message (of any session) that matches. Throws unless exactly one does. */
export function messageWhere(built: BuiltStore, match: (m: BuiltMessage) => boolean): string {
  const hits = built.sessions.flatMap((s) => s.messages.filter(match));
  if (hits.length !== 1) throw new Error(`messageWhere: expected one matching message, found ${hits.length}`);
  return hits[0]!.id;
}

export const hasText = (needle: string) => (data: Json) => typeof data.text === "string" && data.text.includes(needle);
export const hasCall = (callID: string) => (data: Json) => data.type === "tool" && data.callID === callID;
export const messageWithText = (needle: string) => (m: BuiltMessage) => m.parts.some((p) => hasText(needle)(p.data ?? {}));

// ---------------------------------------------------------------------------------------------
// Sessions
// ---------------------------------------------------------------------------------------------

export const TOTALS_TS = `export interface Line {
  quantity: number;
  unitPrice: number;
}

export function invoiceTotal(lines: Line[]): number {
  return lines.reduce((sum, l) => sum + Math.round(l.quantity * l.unitPrice * 100) / 100, 0);
}`;

/** A finished first turn: signed reasoning, a tool call, a second step answering from the tool result. */
export function openingTurn(w: Transcript): MessageSpec[] {
  return [
    w.user("Invoice totals are off by a cent on some orders. Find out why.", { gap: 2 * SECOND }),
    w.assistant([
      w.stepStart(),
      w.reasoning("A one-cent drift smells like rounding per line instead of on the total. Read the totals module first."),
      w.text("Let me look at how totals are computed."),
      w.read("src/invoices/totals.ts", TOTALS_TS),
      w.stepFinish("tool-calls"),
      w.stepStart(),
      w.reasoning("Each line is rounded before summing, so the rounding errors accumulate across lines."),
      w.text(
        "`invoiceTotal` rounds every line to cents before summing, so the per-line rounding errors add up. Summing in integer cents and rounding once fixes it.",
      ),
      w.stepFinish("stop"),
    ]),
  ];
}

/**
 * A session that opens with a healthy turn and continues with `rest`, written on one clock starting at START.
 * Returns the spec; `w.now` afterwards is the time of the last thing the transcript wrote.
 */
export function sessionOf(rest: (w: Transcript) => MessageSpec[], opts: { start?: number; title?: string; opening?: boolean } = {}): SessionSpec {
  const start = opts.start ?? START;
  const w = new Transcript({ start, seed: 7 });
  const messages = [...(opts.opening === false ? [] : openingTurn(w)), ...rest(w)];
  return { title: opts.title ?? "Fix invoice rounding", created: start, messages };
}

export function storeOf(...sessions: SessionSpec[]): BuiltStore {
  return buildStore({ seed: 11, sessions });
}

// ---------------------------------------------------------------------------------------------
// Parts the Transcript does not write itself
// ---------------------------------------------------------------------------------------------

/** A tool whose input the model was still streaming when the process died. */
export function pendingTool(w: Transcript, tool: string, raw: string, callID = w.callID()): PartSpec {
  return { time: w.tick(), data: { type: "tool", callID, tool, state: { status: "pending", input: {}, raw } } };
}

/** What opencode's processor writes for a tool when the user aborts (Esc): error, interrupted, partial output kept. */
export function abortedTool(w: Transcript, tool: string, input: Json, partialOutput?: string, callID = w.callID()): PartSpec {
  const start = w.tick();
  const end = w.tick(20);
  const metadata: Json = { interrupted: true, ...(partialOutput !== undefined ? { output: partialOutput } : {}) };
  return {
    time: start,
    data: { type: "tool", callID, tool, state: { status: "error", input, error: "Tool execution aborted", metadata, time: { start, end } } },
  };
}

/** A completed tool with an exact output (and optional extra state fields such as time.compacted). */
export function toolOutput(
  w: Transcript,
  tool: string,
  input: Json,
  output: string,
  opts: { callID?: string; compactedAt?: number; title?: string } = {},
): PartSpec {
  const spec = w.tool(tool, input, { output, title: opts.title ?? tool, ...(opts.callID ? { callID: opts.callID } : {}) });
  if (opts.compactedAt !== undefined) {
    const state = (spec.data as { state: { time: Json } }).state;
    state.time.compacted = opts.compactedAt;
  }
  return spec;
}

/** A reasoning part without signature metadata (the stream lost signature_delta, or a non-Anthropic provider). */
export function unsignedReasoning(w: Transcript, text: string, metadata?: Json): PartSpec {
  const spec = w.reasoning(text, { signed: false });
  if (metadata) (spec.data as Json).metadata = metadata;
  return spec;
}

/** A user message made of exactly these parts (an image-only prompt, a compaction request, …). */
export function userMessage(w: Transcript, parts: Json[], gap = 45 * SECOND): MessageSpec {
  const created = w.tick(gap);
  return { role: "user", created, parts: parts.map((data) => ({ time: w.tick(2), data })) };
}

/** Text the model streamed as-is (the Transcript's text() with any string, empty included). */
export function textPart(w: Transcript, text: string): PartSpec {
  const start = w.tick();
  return { time: start, data: { type: "text", text, time: { start, end: w.tick(50) } } };
}

/** Info overrides for an assistant turn that never finished: no time.completed, no finish. */
export const UNFINISHED: Json = { time: { completed: undefined }, finish: undefined };

/** Info of an assistant turn the user aborted with Esc. */
export const ABORTED: Json = { error: { name: "MessageAbortedError", data: { message: "The operation was aborted." } } };

/** Deletes the session record (row or file) while its messages stay. */
export function dropSessionRecord(session: BuiltSession): (dir: string, format: Format) => void {
  return (dir, format) => {
    if (format === "sqlite") {
      const db = new Database(path.join(dir, "opencode.db"));
      try {
        db.pragma("foreign_keys = OFF");
        db.prepare("DELETE FROM session WHERE id = ?").run(session.id);
        db.pragma("wal_checkpoint(TRUNCATE)");
      } finally {
        db.close();
      }
    } else {
      fs.rmSync(path.join(dir, "storage", "session", session.projectID, `${session.id}.json`));
    }
  };
}
