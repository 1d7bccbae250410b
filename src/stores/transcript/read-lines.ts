/**
 * Split a JSONL transcript into lines and read each one on its own: one bad line never hides the others (the
 * agents themselves skip or stop at bad lines, reference formats-and-errors.md §2.6, §5.1). Every bad line is
 * classified (blank, NUL run, truncated, two records run together, invalid UTF-8, not an object) and what can be
 * recovered from it is kept beside the problem, so a fix writes back exactly that.
 */
import { isUtf8 } from "node:buffer";
import type { Corruption } from "../../model/record.js";
import type { LineProblem } from "../../model/transcript.js";
import { dropInvalidUtf8, firstInvalidUtf8, mayHoldNulOrLoneSurrogate } from "../decode-json.js";

export interface ReadLine {
  /** 1-based. */
  number: number;
  raw: Buffer;
  value?: Record<string, unknown>;
  problem?: LineProblem;
  salvage?: Record<string, unknown>[];
  corruption?: Corruption;
}

const NEWLINE = 0x0a;
const lossy = new TextDecoder("utf-8", { fatal: false });

/** The lines of a file; a last line without "\n" is a line too (a torn append). */
export function splitLines(bytes: Buffer): { lines: Buffer[]; endsWithNewline: boolean } {
  const lines: Buffer[] = [];
  let start = 0;
  for (let i = bytes.indexOf(NEWLINE); i !== -1; i = bytes.indexOf(NEWLINE, start)) {
    lines.push(bytes.subarray(start, i));
    start = i + 1;
  }
  const endsWithNewline = start === bytes.length;
  if (!endsWithNewline) lines.push(bytes.subarray(start));
  return { lines, endsWithNewline };
}

/** Whether a recovered object is a record of the agent's (its dialect knows the type), not a fragment of one. */
type AcceptRecord = (value: Record<string, unknown>) => boolean;

export function readLine(raw: Buffer, number: number, accept: AcceptRecord): ReadLine {
  const line: ReadLine = { number, raw };
  let body = raw.at(-1) === 0x0d ? raw.subarray(0, -1) : raw;
  if (isBlankLine(body)) return { ...line, problem: unreadable("empty", "blank line") };
  const nuls = leadingNuls(body);
  if (nuls === body.length) return { ...line, problem: unreadable("zero-filled", `${body.length} NUL bytes (an append that never reached the disk)`) };
  if (nuls > 0) body = body.subarray(nuls);

  const invalidAt = isUtf8(body) ? undefined : firstInvalidUtf8(body);
  // Valid UTF-8 without a byte order mark decodes the same either way, and Buffer's decoder is the faster (a scan
  // spends a tenth of its time here); TextDecoder replaces invalid bytes and drops a BOM, as it always did.
  const text = invalidAt === undefined && !startsWithBom(body) ? body.toString("utf8") : lossy.decode(body);
  const parsed = parseRecords(text, accept);
  if (parsed.whole && nuls === 0) {
    if (invalidAt === undefined) {
      const corruption = corruptionIn(parsed.whole, text);
      return corruption ? { number, raw, value: parsed.whole, corruption } : { number, raw, value: parsed.whole };
    }
    // The bytes outside strings are fine; the text inside holds bytes that are no UTF-8 at all.
    const clean = parseRecords(dropInvalidUtf8(body).toString("utf8"), accept).whole ?? parsed.whole;
    return { ...line, value: clean, corruption: { kind: "invalid-utf8", field: "(line)", detail: `invalid UTF-8 at byte ${invalidAt} of the line` } };
  }
  if (parsed.whole && nuls > 0) {
    return {
      ...line,
      value: parsed.whole,
      salvage: [parsed.whole],
      problem: unreadable("zero-filled", `${nuls} NUL bytes before the record (a crashed append left them)`),
    };
  }
  if (invalidAt !== undefined) {
    const clean = parseRecords(dropInvalidUtf8(body).toString("utf8"), accept);
    const salvage = clean.whole ? [clean.whole] : clean.records;
    return {
      ...line,
      ...(salvage.length ? { salvage } : {}),
      problem: unreadable("invalid-utf8", `invalid UTF-8 at byte ${invalidAt + nuls}, and the JSON does not parse`),
    };
  }
  if (parsed.records.length > 0) {
    const dropped = parsed.dropped > 0 ? `, after ${parsed.dropped} bytes of a torn record` : "";
    return {
      ...line,
      salvage: parsed.records,
      problem: unreadable(
        "concatenated",
        `${parsed.records.length === 1 ? "a record" : `${parsed.records.length} records`} run together on one line${dropped} (an append that was cut short)`,
      ),
    };
  }
  return { ...line, problem: parsed.problem ?? unreadable("invalid-json", "JSON does not parse") };
}

function isBlankLine(body: Buffer): boolean {
  for (let i = 0; i < body.length; i++) if (body[i] !== 0x20 && body[i] !== 0x09) return false;
  return true;
}

function startsWithBom(body: Buffer): boolean {
  return body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf;
}

function leadingNuls(body: Buffer): number {
  let n = 0;
  while (n < body.length && body[n] === 0) n++;
  return n;
}

function unreadable(reason: Extract<LineProblem, { kind: "unreadable" }>["reason"], detail: string): LineProblem {
  return { kind: "unreadable", reason, detail };
}

/** Where the next record plausibly starts inside a line: the first keys the agents write. */
const RECORD_START = /\{"(?:parentUuid|type|uuid|isSidechain|leafUuid|id|sessionId|timestamp|logicalParentUuid)"/g;

interface Parsed {
  whole?: Record<string, unknown>;
  /** Records recovered from a line that does not parse as one. */
  records: Record<string, unknown>[];
  /** Bytes (UTF-16 units) of torn records dropped. */
  dropped: number;
  problem?: LineProblem;
}

/**
 * The line as one record, or the records it holds: `{a}{b}` splits where JSON.parse says the first ends; a torn
 * stub before a record is skipped up to the next place a record starts. Only what `isRecord` accepts as a record
 * of the agent (not an object nested in a torn one, such as a content block) counts. Bounded: at most 64 attempts,
 * each at a place a record starts.
 */
function parseRecords(text: string, accept: AcceptRecord): Parsed {
  const first = tryParse(text);
  if (first.ok) return isRecord(first.value) ? { whole: first.value, records: [], dropped: 0 } : { records: [], dropped: 0, problem: notAnObject(first.value) };
  const records: Record<string, unknown>[] = [];
  let dropped = 0;
  let pos = 0;
  for (let guard = 0; guard < 64 && pos < text.length; guard++) {
    const found = recordAt(text, pos);
    if (found && accept(found.value)) {
      records.push(found.value);
      pos = skipSpace(text, found.end);
      continue;
    }
    const next = nextRecordStart(text, pos + 1);
    if (next === undefined) {
      dropped += text.length - pos;
      pos = text.length;
      break;
    }
    dropped += next - pos;
    pos = next;
  }
  if (pos < text.length) dropped += text.length - pos;
  if (records.length > 0) return { records, dropped };
  const at = /at position (\d+)/.exec(first.error)?.[1];
  const truncated = /Unexpected end of JSON input|Unterminated string/i.test(first.error) || (at !== undefined && Number(at) >= text.trimEnd().length);
  return {
    records,
    dropped,
    problem: truncated
      ? unreadable("truncated", `JSON ends early after ${Buffer.byteLength(text)} bytes (a torn write)`)
      : unreadable("invalid-json", `JSON does not parse: ${first.error}`),
  };
}

/** The object that starts at `pos`, and where it ends: all the rest, or where JSON.parse says non-JSON follows. */
function recordAt(text: string, pos: number): { value: Record<string, unknown>; end: number } | undefined {
  const rest = pos === 0 ? text : text.slice(pos);
  const attempt = tryParse(rest);
  if (attempt.ok) return isRecord(attempt.value) ? { value: attempt.value, end: text.length } : undefined;
  const after = /after JSON at position (\d+)/.exec(attempt.error)?.[1];
  if (after === undefined) return undefined;
  const head = tryParse(rest.slice(0, Number(after)));
  return head.ok && isRecord(head.value) ? { value: head.value, end: pos + Number(after) } : undefined;
}

function skipSpace(text: string, pos: number): number {
  while (pos < text.length && (text[pos] === " " || text[pos] === "\t")) pos++;
  return pos;
}

function nextRecordStart(text: string, from: number): number | undefined {
  RECORD_START.lastIndex = from;
  const match = RECORD_START.exec(text);
  return match ? match.index : undefined;
}

function tryParse(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

function notAnObject(value: unknown): LineProblem {
  return unreadable("not-an-object", `the line is ${Array.isArray(value) ? "an array" : value === null ? "null" : `a ${typeof value}`}, not a record`);
}

/**
 * NUL characters and lone surrogates in the line's strings (escaped in the JSON, so the line parses). The text test
 * is cheap; only a line that fails it is walked to name the field.
 */
function corruptionIn(value: Record<string, unknown>, text: string): Corruption | undefined {
  if (!mayHoldNulOrLoneSurrogate(text)) return undefined;
  return walk(value, "");
}

function walk(value: unknown, path: string): Corruption | undefined {
  if (typeof value === "string") {
    const nul = value.indexOf("\u0000");
    if (nul !== -1) return { kind: "nul", field: path, detail: `NUL character at offset ${nul} of ${path}` };
    if (!value.isWellFormed()) return { kind: "lone-surrogate", field: path, detail: `lone UTF-16 surrogate in ${path}` };
    return undefined;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = walk(value[i], `${path}.${i}`);
      if (found) return found;
    }
    return undefined;
  }
  if (isRecord(value)) {
    for (const key of Object.keys(value)) {
      const found = walk(value[key], path ? `${path}.${key}` : key);
      if (found) return found;
    }
  }
  return undefined;
}
