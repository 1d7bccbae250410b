/**
 * The lean scan query: SQLite checks and measures every part row (validity, UTF-8, sizes, suspicious escapes)
 * in C, and hands JavaScript either the whole JSON of a small row or a skeleton of a large one with its heavy
 * fields removed. JSON.parse of the big strings is most of the cost of reading a store; rules only need their
 * sizes and whether they are damaged.
 */
import type { PartContent } from "../../model/opencode-records.js";

/** Rows up to this many bytes are parsed whole in JavaScript; larger ones are skeletonised by SQLite. */
export const SMALL_ROW_BYTES = 16_384;

/** Heavy fields of a part: removed from the skeleton, restored as placeholders of the same JSON type. */
export const HEAVY_PATHS = [
  "$.text",
  "$.url",
  "$.state.input",
  "$.state.output",
  "$.state.error",
  "$.state.raw",
  "$.state.attachments",
  "$.state.metadata.output",
  "$.state.metadata.diff",
  "$.state.metadata.filediff",
  "$.state.metadata.preview",
] as const;

/** ASCII whitespace, as isBlank() in part-content.ts judges it. */
const BLANK_CHARS = "' ' || char(9, 10, 11, 12, 13)";

const isLarge = `(octet_length(data) > ${SMALL_ROW_BYTES} AND json_valid(data))`;
const ifLarge = (expr: string): string => `CASE WHEN ${isLarge} THEN ${expr} END`;

export const LEAN_PART_COLUMNS = `
  id, message_id AS messageId, time_created AS created, time_updated AS updated,
  json_valid(data) AS valid,
  CASE WHEN octet_length(data) = length(data) THEN 1 ELSE recover_utf8_valid(CAST(data AS BLOB)) END AS utf8,
  (instr(data, '\\u0000') > 0 OR data LIKE '%\\ud%') AS suspect,
  CASE WHEN ${isLarge} THEN NULL ELSE data END AS data,
  ${ifLarge(`json_remove(data, ${HEAVY_PATHS.map((p) => `'${p}'`).join(", ")})`)} AS skeleton,
  ${ifLarge(`json_array(${HEAVY_PATHS.map((p) => `json_type(data, '${p}')`).join(", ")})`)} AS heavyTypes,
  ${ifLarge(`length(json_extract(data, '$.text'))`)} AS textChars,
  ${ifLarge(`trim(json_extract(data, '$.text'), ${BLANK_CHARS}) = ''`)} AS textBlank,
  ${ifLarge(`length(json_extract(data, '$.state.input'))`)} AS inputChars,
  ${ifLarge(`length(json_extract(data, '$.state.output'))`)} AS outputChars,
  ${ifLarge(`length(json_extract(data, '$.state.error'))`)} AS errorChars,
  ${ifLarge(`length(json_extract(data, '$.state.metadata.output'))`)} AS metadataOutputChars,
  ${ifLarge(`length(json_extract(data, '$.url'))`)} AS urlChars`;

export interface LeanPartRow {
  id: string;
  messageId: string;
  created: number;
  updated: number;
  valid: number;
  utf8: number;
  suspect: number;
  data: string | null;
  skeleton: string | null;
  heavyTypes: string | null;
  textChars: number | null;
  textBlank: number | null;
  inputChars: number | null;
  outputChars: number | null;
  errorChars: number | null;
  metadataOutputChars: number | null;
  urlChars: number | null;
}

const PLACEHOLDER: Record<string, () => unknown> = {
  text: () => "",
  object: () => ({}),
  array: () => [],
  integer: () => 0,
  real: () => 0,
  true: () => true,
  false: () => false,
  null: () => null,
};

/** Put type-correct placeholders where SQLite removed heavy fields, so schema validation still sees their types. */
export function restorePlaceholders(skeleton: Record<string, unknown>, heavyTypes: (string | null)[]): Record<string, unknown> {
  HEAVY_PATHS.forEach((path, i) => {
    const type = heavyTypes[i];
    if (type === null || type === undefined) return;
    const keys = path.slice(2).split(".");
    let node: Record<string, unknown> = skeleton;
    for (const key of keys.slice(0, -1)) {
      const next = node[key];
      if (next === null || typeof next !== "object") return;
      node = next as Record<string, unknown>;
    }
    node[keys[keys.length - 1]!] = PLACEHOLDER[type]?.();
  });
  return skeleton;
}

/** The figures SQLite measured for a large row, in the shape part-content.ts computes for small ones. */
export function leanContent(row: LeanPartRow): PartContent {
  const content: PartContent = {};
  if (row.textChars !== null) {
    content.textChars = row.textChars;
    content.textBlank = row.textBlank === 1;
  }
  if (row.inputChars !== null) content.inputChars = row.inputChars;
  if (row.outputChars !== null) content.outputChars = row.outputChars;
  if (row.errorChars !== null) content.errorChars = row.errorChars;
  if (row.metadataOutputChars !== null) content.metadataOutputChars = row.metadataOutputChars;
  if (row.urlChars !== null) content.urlChars = row.urlChars;
  return content;
}
