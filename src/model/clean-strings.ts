/** Cleaning parsed records of damage inside their strings: NUL characters and lone surrogates. */
import { isObject } from "./edit.js";

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Strip NUL characters and lone surrogates from every string (invalid UTF-8 is dropped at the byte level, by the store). */
export function cleanStrings(value: unknown): unknown {
  if (typeof value === "string") {
    const s = value.includes("\u0000") ? value.replaceAll("\u0000", "") : value;
    return s.isWellFormed() ? s : s.replace(LONE_SURROGATE, "");
  }
  if (Array.isArray(value)) return value.map((v) => cleanStrings(v));
  if (isObject(value)) {
    for (const key of Object.keys(value)) value[key] = cleanStrings(value[key]);
  }
  return value;
}
