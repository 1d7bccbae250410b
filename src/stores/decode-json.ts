/**
 * Turn stored bytes into a JSON object, or say precisely why not. Shared by every store: a torn write, a
 * zero-filled file after a power loss and invalid UTF-8 must each become a finding, never a crash.
 */
import { isUtf8 } from "node:buffer";
import type { RecordProblem } from "../model/record.js";

export type Decoded =
  | { ok: true; value: Record<string, unknown>; text: string; invalidUtf8?: { offset: number } }
  | { ok: false; problem: Extract<RecordProblem, { kind: "unreadable" }> };

const lossyDecoder = new TextDecoder("utf-8", { fatal: false });

/** `stored` is what the store holds: text, bytes, or (a damaged SQLite row) NULL or a number. */
export function decodeJson(stored: Buffer | string | null | number | bigint): Decoded {
  let text: string;
  let invalidUtf8: { offset: number } | undefined;
  if (stored === null || typeof stored === "number" || typeof stored === "bigint") {
    return unreadable(stored === null ? "empty" : "not-an-object", `stored data is ${stored === null ? "NULL" : `the number ${stored}`}, not JSON text`);
  }
  const bytes = stored;
  if (typeof bytes === "string") {
    text = bytes;
  } else {
    if (bytes.length > 0 && bytes.every((b) => b === 0)) {
      return unreadable("zero-filled", `${bytes.length} bytes, all zero (a write that never reached the disk)`);
    }
    if (!isUtf8(bytes)) invalidUtf8 = { offset: firstInvalidUtf8(bytes) };
    text = lossyDecoder.decode(bytes);
  }
  if (text.trim() === "") return unreadable("empty", "empty record");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    if (invalidUtf8) return unreadable("invalid-utf8", `invalid UTF-8 at byte ${invalidUtf8.offset}, and the JSON does not parse`);
    const message = (error as Error).message;
    if (/Unexpected end of JSON input|Unterminated string/i.test(message)) {
      return unreadable("truncated", `JSON ends early after ${Buffer.byteLength(text)} bytes (torn write)`);
    }
    return unreadable("invalid-json", `JSON does not parse: ${message}`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return unreadable("not-an-object", `stored JSON is ${Array.isArray(value) ? "an array" : String(value === null ? "null" : typeof value)}, not an object`);
  }
  return { ok: true, value: value as Record<string, unknown>, text, ...(invalidUtf8 ? { invalidUtf8 } : {}) };
}

/**
 * Whether a string parsed from this JSON text can hold a NUL or a lone UTF-16 surrogate. Both reach a parsed string
 * only escaped (`\u0000`, `\udXXX`): JSON forbids raw control characters in strings, and text decoded from UTF-8
 * holds no lone surrogate. Most records hold no such escape, and one search of their text spares walking every
 * string of them.
 */
export function mayHoldNulOrLoneSurrogate(text: string): boolean {
  return text.includes("\\u") && /\\u0000|\\ud[89a-f][0-9a-f]{2}/i.test(text);
}

function unreadable(reason: Extract<RecordProblem, { kind: "unreadable" }>["reason"], detail: string): Decoded {
  return { ok: false, problem: { kind: "unreadable", reason, detail } };
}

/** Byte offset of the first malformed UTF-8 sequence (only called once isUtf8 said there is one). */
export function firstInvalidUtf8(bytes: Buffer): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    const need = b < 0x80 ? 0 : b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xf0 && b <= 0xf4 ? 3 : -1;
    if (need < 0) return i;
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return i;
    }
    i += need + 1;
  }
  return i;
}

/** Byte length of a well-formed UTF-8 sequence starting at `i` (RFC 3629: no overlongs, surrogates or > U+10FFFF), else 0. */
function sequenceLength(bytes: Buffer, i: number): number {
  const b = bytes[i]!;
  if (b < 0x80) return 1;
  const cont = (k: number, lo = 0x80, hi = 0xbf) => {
    const c = bytes[i + k];
    return c !== undefined && c >= lo && c <= hi;
  };
  if (b >= 0xc2 && b <= 0xdf) return cont(1) ? 2 : 0;
  if (b >= 0xe0 && b <= 0xef) {
    const lo = b === 0xe0 ? 0xa0 : 0x80;
    const hi = b === 0xed ? 0x9f : 0xbf;
    return cont(1, lo, hi) && cont(2) ? 3 : 0;
  }
  if (b >= 0xf0 && b <= 0xf4) {
    const lo = b === 0xf0 ? 0x90 : 0x80;
    const hi = b === 0xf4 ? 0x8f : 0xbf;
    return cont(1, lo, hi) && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}

/**
 * The bytes with every invalid UTF-8 sequence dropped, and nothing else touched: a real U+FFFD a record holds is
 * valid text and stays, where a lossy decode would make it indistinguishable from damage.
 */
export function dropInvalidUtf8(bytes: Buffer): Buffer {
  const kept: Buffer[] = [];
  let start = 0;
  let i = 0;
  while (i < bytes.length) {
    const n = sequenceLength(bytes, i);
    if (n > 0) {
      i += n;
      continue;
    }
    if (i > start) kept.push(bytes.subarray(start, i));
    i += 1;
    start = i;
  }
  if (start === 0) return bytes;
  if (start < bytes.length) kept.push(bytes.subarray(start));
  return Buffer.concat(kept);
}
