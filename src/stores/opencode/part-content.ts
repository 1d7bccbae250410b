/**
 * Measure a part's heavy fields and find damage in them, from the full object. The lean SQLite load computes
 * the same figures inside SQLite for large rows (sqlite-queries.ts); both must agree.
 */
import type { Corruption } from "../../model/record.js";
import type { PartContent } from "../../model/opencode-records.js";

const HIGH_SURROGATE = /[\ud800-\udbff]/;

/** Code points, as SQLite's length() counts them (a surrogate pair is one). */
export function codePoints(s: string): number {
  if (!HIGH_SURROGATE.test(s)) return s.length;
  let pairs = 0;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    const d = s.charCodeAt(i + 1);
    if (c >= 0xd800 && c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
      pairs++;
      i++;
    }
  }
  return s.length - pairs;
}

/** Whitespace as providers judge "must contain non-whitespace text" (ASCII whitespace; SQLite trims the same set). */
export function isBlank(s: string): boolean {
  return /^[ \t\n\r\v\f]*$/.test(s);
}

const get = (o: unknown, key: string): unknown => (o !== null && typeof o === "object" ? (o as Record<string, unknown>)[key] : undefined);

export function partContent(part: Record<string, unknown>, invalidUtf8?: { offset: number }): PartContent {
  const content: PartContent = {};
  const text = get(part, "text");
  if (typeof text === "string") {
    content.textChars = codePoints(text);
    content.textBlank = isBlank(text);
  }
  const state = get(part, "state");
  const input = get(state, "input");
  if (input !== undefined) content.inputChars = codePoints(JSON.stringify(input) ?? "");
  const output = get(state, "output");
  if (typeof output === "string") content.outputChars = codePoints(output);
  const error = get(state, "error");
  if (typeof error === "string") content.errorChars = codePoints(error);
  const metadataOutput = get(get(state, "metadata"), "output");
  if (typeof metadataOutput === "string") content.metadataOutputChars = codePoints(metadataOutput);
  const url = get(part, "url");
  if (typeof url === "string") content.urlChars = url.length;
  const corruption = findCorruption(part, invalidUtf8);
  if (corruption) content.corruption = corruption;
  return content;
}

/** The string fields whose content reaches the provider and where damaged tool output shows up. */
const DAMAGE_FIELDS: ReadonlyArray<readonly string[]> = [["text"], ["state", "output"], ["state", "error"], ["state", "metadata", "output"]];

export function findCorruption(part: Record<string, unknown>, invalidUtf8?: { offset: number }): Corruption | undefined {
  for (const path of DAMAGE_FIELDS) {
    const value = path.reduce<unknown>((o, k) => get(o, k), part);
    if (typeof value !== "string") continue;
    const field = path.join(".");
    if (invalidUtf8 && value.includes("\ufffd")) {
      return { kind: "invalid-utf8", field, detail: `invalid UTF-8 at byte ${invalidUtf8.offset} of the record, inside ${field}` };
    }
    const nul = value.indexOf("\u0000");
    if (nul !== -1) return { kind: "nul", field, detail: `NUL character at offset ${nul} of ${field}` };
    if (!value.isWellFormed()) return { kind: "lone-surrogate", field, detail: `lone UTF-16 surrogate in ${field}` };
  }
  if (invalidUtf8) return { kind: "invalid-utf8", field: "(record)", detail: `invalid UTF-8 at byte ${invalidUtf8.offset} of the record` };
  return undefined;
}
