/**
 * JSON documents on stdout: always exactly one per run, always `schemaVersion` first, so CI can parse it.
 */
import type { StoreInfo } from "../stores/store.js";
import type { RecoverError } from "../errors.js";
import { TOOL } from "./version.js";

export const SCHEMA_VERSION = 1;

/** How every JSON document begins: the schema it follows and the tool (and version) that wrote it. */
export const DOCUMENT_HEAD = { schemaVersion: SCHEMA_VERSION, tool: TOOL } as const;

export function storeJson(info: StoreInfo): Record<string, unknown> {
  return { format: info.format, path: info.path, notices: info.notices };
}

export function errorDocument(error: Pick<RecoverError, "code" | "message">): string {
  return `${JSON.stringify({ ...DOCUMENT_HEAD, error: { code: error.code, message: error.message } })}\n`;
}
