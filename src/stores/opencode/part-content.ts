/**
 * Measure a part's heavy fields and find damage in them, once, at load: rules read these figures instead of
 * rescanning multi-megabyte strings.
 */
import type { Corruption } from "../../model/record.js";
import type { PartContent } from "../../model/opencode-records.js";
import { mayHoldNulOrLoneSurrogate } from "../decode-json.js";

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

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined => (v !== null && typeof v === "object" ? (v as Obj) : undefined);

/**
 * Direct property reads, no generic path walking: this runs for every part of every scanned session. `json` is the
 * text the part was parsed from, when there is one (it lets the damage checks skip a record that cannot hold any).
 */
export function partContent(part: Obj, invalidUtf8?: { offset: number }, json?: string): PartContent {
  const content: PartContent = {};
  const text = part.text;
  if (typeof text === "string") {
    content.textChars = text.length;
    content.textBlank = isBlank(text);
  }
  const state = obj(part.state);
  const metadata = obj(state?.metadata);
  if (state) {
    if (state.input !== undefined) content.inputChars = jsonLength(state.input);
    if (typeof state.output === "string") content.outputChars = state.output.length;
    if (typeof state.error === "string") content.errorChars = state.error.length;
    if (typeof metadata?.output === "string") content.metadataOutputChars = metadata.output.length;
  }
  if (typeof part.url === "string") content.urlChars = part.url.length;
  const corruption = findCorruption(part, invalidUtf8, json);
  if (corruption) content.corruption = corruption;
  return content;
}

/** The string fields whose content reaches the provider and where damaged tool output shows up. */
export function findCorruption(part: Obj, invalidUtf8?: { offset: number }, json?: string): Corruption | undefined {
  // One search of the record's text instead of two passes over each of its largest strings (a twentieth of a
  // one-thread scan).
  if (json !== undefined && invalidUtf8 === undefined && !mayHoldNulOrLoneSurrogate(json)) return undefined;
  const state = obj(part.state);
  const found =
    damageIn("text", part.text, invalidUtf8) ??
    damageIn("state.output", state?.output, invalidUtf8) ??
    damageIn("state.error", state?.error, invalidUtf8) ??
    damageIn("state.metadata.output", obj(state?.metadata)?.output, invalidUtf8) ??
    // A tool call's input goes to the provider as the call's arguments (anthropics/claude-code#68325: a lone surrogate
    // there fails the whole body); cleaning it leaves the same object, its strings without the damage.
    damageInValue("state.input", state?.input);
  if (found || !invalidUtf8) return found;
  return { kind: "invalid-utf8", field: "(record)", detail: `invalid UTF-8 at byte ${invalidUtf8.offset} of the record` };
}

/** NULs and lone surrogates in any string of a JSON value (a tool input), named by their path. */
function damageInValue(field: string, value: unknown): Corruption | undefined {
  if (typeof value === "string") return damageIn(field, value, undefined);
  const entries = Array.isArray(value) ? value.entries() : value !== null && typeof value === "object" ? Object.entries(value) : [];
  for (const [key, item] of entries) {
    const found = damageInValue(`${field}.${key}`, item);
    if (found) return found;
  }
  return undefined;
}

function damageIn(field: string, value: unknown, invalidUtf8: { offset: number } | undefined): Corruption | undefined {
  if (typeof value !== "string") return undefined;
  if (invalidUtf8 && value.includes("\ufffd")) {
    return { kind: "invalid-utf8", field, detail: `invalid UTF-8 at byte ${invalidUtf8.offset} of the record, inside ${field}` };
  }
  const nul = value.indexOf("\u0000");
  if (nul !== -1) return { kind: "nul", field, detail: `NUL character at offset ${nul} of ${field}` };
  if (!value.isWellFormed()) return { kind: "lone-surrogate", field, detail: `lone UTF-16 surrogate in ${field}` };
  return undefined;
}
