/**
 * Commands printed for the user to run next (a scan's `→ recover session repair …`, `undo with:`, explain's `fix:`)
 * must work when pasted: the same program as this one was started as, the same store, format and backup dir the
 * user gave, every word shell-quoted. Without the store flags, a pasted command acts on the default (live) store
 * instead of the copy that was scanned.
 */
import { realpathSync } from "node:fs";
import { delimiter, isAbsolute, join, relative } from "node:path";
import { shellQuote } from "../model/shell-quote.js";

export interface CommandGlobals {
  store?: string;
  format?: string;
  backupDir?: string;
}

/** `recover <words…>` as the user would type it, carrying the global options that choose the store. */
export function commandLine(words: readonly string[], globals: CommandGlobals, program: string): string {
  const flags: string[] = [];
  if (globals.store !== undefined) flags.push("--store", globals.store);
  if (globals.format !== undefined) flags.push("--format", globals.format);
  if (globals.backupDir !== undefined) flags.push("--backup-dir", globals.backupDir);
  return [program, ...[...words, ...flags].map((word) => shellQuote(word))].join(" ");
}

/**
 * `recover` when that name on PATH is this very program (a global install, `npm link`); otherwise the way to start
 * this one from the current directory (`node bin/recover` under `npm start`, where `recover` is not on PATH).
 */
export function invokedAs(script: string | undefined, env: NodeJS.ProcessEnv, cwd: string): string {
  return script === undefined ? "recover" : programName(script, env, cwd);
}

function programName(script: string, env: NodeJS.ProcessEnv, cwd: string): string {
  const real = realOrSelf(script);
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (dir !== "" && realOrSelf(join(dir, "recover")) === real) return "recover";
  }
  const near = relative(cwd, script);
  return `node ${shellQuote(near.startsWith("..") || isAbsolute(near) ? script : near)}`;
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
