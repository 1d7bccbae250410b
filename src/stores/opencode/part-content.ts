/**
 * Measure a part's heavy fields and find damage in them, once, at load: rules read these figures instead of
 * rescanning multi-megabyte strings.
 */
import type { Corruption } from "../../model/record.js";
import type { PartContent } from "../../model/opencode-records.js";

/** Whitespace as providers judge "must contain non-whitespace text" (ASCII whitespace). */
export function isBlank(s: string): boolean {
  return /^[ \t\n\r\v\f]*$/.test(s);
}

/**
 * The length of a value's JSON without building the JSON: tool inputs (a whole file for `write`) are only ever
 * measured, and serialising them just to count was a tenth of a scan. Escapes are not counted, so this is a
 * slight underestimate, which the token estimate tolerates.
 */
export function jsonLength(value: unknown): number {
  if (typeof value === "string") return value.length + 2;
  if (value === null || typeof value !== "object") return String(value).length;
  if (Array.isArray(value)) return value.reduce<number>((n, v) => n + jsonLength(v) + 1, 1);
  let n = 1;
  for (const key in value) n += key.length + 4 + jsonLength((value as Record<string, unknown>)[key]);
  return n;
}

const get = (o: unknown, key: string): unknown => (o !== null && typeof o === "object" ? (o as Record<string, unknown>)[key] : undefined);

export function partContent(part: Record<string, unknown>, invalidUtf8?: { offset: number }): PartContent {
  const content: PartContent = {};
  const text = get(part, "text");
  if (typeof text === "string") {
    content.textChars = text.length;
    content.textBlank = isBlank(text);
  }
  const state = get(part, "state");
  const input = get(state, "input");
  if (input !== undefined) content.inputChars = jsonLength(input);
  const output = get(state, "output");
  if (typeof output === "string") content.outputChars = output.length;
  const error = get(state, "error");
  if (typeof error === "string") content.errorChars = error.length;
  const metadataOutput = get(get(state, "metadata"), "output");
  if (typeof metadataOutput === "string") content.metadataOutputChars = metadataOutput.length;
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
