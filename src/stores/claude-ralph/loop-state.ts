/**
 * The state file of Claude Code's Ralph loop plugin (ralph-wiggum / ralph-loop, claude-plugins-official): markdown
 * with YAML front matter (`active`, `iteration`, `max_iterations`, `completion_promise`, `session_id`,
 * `started_at`), then the prompt the Stop hook feeds back. It lives at `<project>/.claude/ralph-loop.local.md`,
 * `<project>/.claude/ralph-loop.<session>.local.md` (session-scoped versions) or
 * `~/.claude/ralph-loop/<session_id>.local.md`. A loop whose session died leaves `active: true` behind, and the
 * plugin's Stop hook goes on hijacking later sessions (claude-plugins-official #5536, #64, #1775).
 *
 * Read here as the plugin reads it (one `key: value` per line, surrounding quotes stripped); written only by
 * changing the `active` line, every other byte kept.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { RecoverError } from "../../errors.js";
import { WholeFilesStore } from "../whole-files-store.js";

export const RALPH_LOOP_FORMAT = "claude-ralph-loop";

export interface RalphLoopFile {
  /** Absolute path. */
  path: string;
  /** Where it was found: the project's `.claude/`, or the user's `~/.claude/ralph-loop/`. */
  scope: "project" | "user";
  /** The front matter's values as the plugin reads them (strings; quotes stripped). */
  fields: Record<string, string>;
  active: boolean;
  iteration: number | null;
  maxIterations: number | null;
  completionPromise: string | null;
  sessionId: string | null;
  startedAt: string | null;
  /** Last written (the hook rewrites the file at every iteration). */
  mtimeMs: number;
}

const FRONT_MATTER = /^---\r?\n([\s\S]*?)\r?\n---(\r?\n|$)/;

/** The front matter's `key: value` lines, as the plugin's own parser reads them. Null: not a state file. */
export function frontMatter(text: string): Record<string, string> | null {
  const match = FRONT_MATTER.exec(text);
  if (!match) return null;
  const fields: Record<string, string> = {};
  for (const line of match[1]!.split(/\r?\n/)) {
    const kv = /^(\w+):\s*(.*)$/.exec(line);
    if (!kv) continue;
    let value = kv[2]!.trim();
    if (value.length >= 2 && ((value.startsWith('"') && value.endsWith('"')) || (value.startsWith("'") && value.endsWith("'")))) value = value.slice(1, -1);
    fields[kv[1]!] = value;
  }
  return fields;
}

const count = (value: string | undefined): number | null => (value !== undefined && /^\d+$/.test(value) ? Number(value) : null);
const text = (value: string | undefined): string | null => (value === undefined || value === "" || value === "null" ? null : value);

export function readLoopFile(path: string, scope: RalphLoopFile["scope"]): RalphLoopFile | null {
  let bytes: string;
  let mtimeMs: number;
  try {
    bytes = readFileSync(path, "utf8");
    mtimeMs = statSync(path).mtimeMs;
  } catch {
    return null;
  }
  const fields = frontMatter(bytes);
  if (fields === null) return null;
  return {
    path,
    scope,
    fields,
    // A file without the key is a loop all the same: older versions of the plugin test only that the file exists.
    active: fields.active === undefined ? true : fields.active === "true",
    iteration: count(fields.iteration),
    maxIterations: count(fields.max_iterations),
    completionPromise: text(fields.completion_promise),
    sessionId: text(fields.session_id),
    startedAt: text(fields.started_at),
    mtimeMs,
  };
}

/** Every loop state file of a project (found upward from `from`: the first `.claude/` holding one) and of the user. */
export function findLoopFiles(from: string, home: string | undefined): RalphLoopFile[] {
  const found: RalphLoopFile[] = [];
  for (let dir = from; ; dir = dirname(dir)) {
    const claude = join(dir, ".claude");
    const names = existsSync(claude) ? safeList(claude).filter((n) => /^ralph-loop(\.[^/]+)?\.local\.md$/.test(n)) : [];
    if (names.length > 0) {
      for (const name of names.sort()) {
        const file = readLoopFile(join(claude, name), "project");
        if (file) found.push(file);
      }
      break;
    }
    if (dirname(dir) === dir) break;
  }
  if (home !== undefined && home !== "") {
    const userDir = join(home, ".claude", "ralph-loop");
    for (const name of safeList(userDir)
      .filter((n) => n.endsWith(".local.md"))
      .sort()) {
      const file = readLoopFile(join(userDir, name), "user");
      if (file) found.push(file);
    }
  }
  return found;
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/**
 * The file with `active: false`: the `active` line of the front matter rewritten (or one added as its first line),
 * every other byte as it was.
 */
export function withInactive(bytes: string, path: string): string {
  const match = FRONT_MATTER.exec(bytes);
  if (!match) throw new RecoverError("not-a-store", `${path} has no front matter: not a ralph-loop state file; nothing was changed`);
  const head = match[1]!;
  const lines = head.split("\n");
  const at = lines.findIndex((l) => /^active:/.test(l));
  const eol = head.includes("\r\n") ? "\r" : "";
  if (at >= 0) lines[at] = `active: false${lines[at]!.endsWith("\r") ? "\r" : ""}`;
  else lines.unshift(`active: false${eol}`);
  const start = bytes.indexOf(head);
  return `${bytes.slice(0, start)}${lines.join("\n")}${bytes.slice(start + head.length)}`;
}

/** The folder holding a loop state file, as a store: what `battle fix --clear-stale` writes through. */
export class RalphLoopStore extends WholeFilesStore {
  constructor(dir: string) {
    super(RALPH_LOOP_FORMAT, dir, "a folder of Claude Code ralph-loop state");
  }
}
