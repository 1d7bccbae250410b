/**
 * Read one of pokeralph's JSON files and validate it against its schema, saying precisely what is wrong instead of
 * throwing: a status report must go on past one torn `history.json` to the next battle. The bytes are decoded by
 * the same code the session stores use (empty, zero-filled, truncated, invalid JSON, invalid UTF-8).
 * `requireFile` is the strict form for commands that are about to write: it turns any problem into a one-line
 * RecoverError (exit 2).
 */
import { readFileSync, statSync } from "node:fs";
import { relative, sep } from "node:path";
import type { z } from "zod";
import { RecoverError } from "../../errors.js";
import { decodeJson } from "../decode-json.js";
import { describeIssues } from "./schemas.js";

export type FileState = "ok" | "missing" | "unreadable" | "invalid";

export interface LoadedFile<T> {
  /** Absolute path. */
  path: string;
  /** Relative to the repository root, `/`-separated: what reports show. */
  relPath: string;
  state: FileState;
  /**
   * `ok`: the parsed original object (unknown keys kept), typed by the schema it passed. Never zod's output,
   * which would drop keys pokeralph or a newer version wrote.
   */
  value?: T;
  /** `invalid`: the parsed object the schema rejected, for anything that can still be read from it. */
  raw?: Record<string, unknown>;
  /** `unreadable` / `invalid`: one line saying why (the zod issues, or the decode failure). */
  problem?: string;
  /** The bytes held invalid UTF-8 but still parsed (pokeralph decodes lossily and would accept them). */
  invalidUtf8?: { offset: number };
  /** Last modification time (ms), when the file exists. */
  mtimeMs?: number;
}

export function relPath(root: string, path: string): string {
  return relative(root, path).split(sep).join("/");
}

export function readFile<S extends z.ZodType>(root: string, path: string, schema: S): LoadedFile<z.infer<S>> {
  const base = { path, relPath: relPath(root, path) };
  let bytes: Buffer;
  let mtimeMs: number;
  try {
    mtimeMs = statSync(path).mtimeMs;
    bytes = readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { ...base, state: "missing" };
    if (code === "EISDIR") return { ...base, state: "unreadable", problem: "is a directory, not a file" };
    if (code === "EACCES" || code === "EPERM") return { ...base, state: "unreadable", problem: "permission denied" };
    return { ...base, state: "unreadable", problem: `cannot read it: ${(error as Error).message}` };
  }
  const decoded = decodeJson(bytes);
  if (!decoded.ok) return { ...base, mtimeMs, state: "unreadable", problem: decoded.problem.detail };
  const invalidUtf8 = decoded.invalidUtf8 ? { invalidUtf8: decoded.invalidUtf8 } : {};
  const checked = schema.safeParse(decoded.value);
  if (!checked.success) {
    return { ...base, mtimeMs, state: "invalid", raw: decoded.value, problem: `pokeralph would reject it: ${describeIssues(checked.error)}`, ...invalidUtf8 };
  }
  return { ...base, mtimeMs, state: "ok", value: decoded.value as z.infer<S>, ...invalidUtf8 };
}

/** The strict form, for a command about to rewrite the file: anything but a valid file is an input error. */
export function requireFile<S extends z.ZodType>(root: string, path: string, schema: S): z.infer<S> {
  const file = readFile(root, path, schema);
  if (file.state === "ok") return file.value as z.infer<S>;
  if (file.state === "missing") throw new RecoverError("store-not-found", `no such file: ${file.relPath}`);
  throw new RecoverError(file.state === "invalid" ? "store-corrupt" : "store-unreadable", `${file.relPath}: ${file.problem}`);
}
