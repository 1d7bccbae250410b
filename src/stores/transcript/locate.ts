/**
 * Where transcripts are. `--store` may name, for openclaw, the state dir holding `agents/` (`~/.openclaw`), one
 * agent's `sessions/` dir or one `.jsonl`; for Claude Code, the config dir holding `projects/` (`~/.claude`),
 * `projects/` itself, one project dir or one `.jsonl`. Without `--store`, each agent's adapter looks in its own
 * default places (claude-adapter.ts, openclaw-adapter.ts).
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { basename, join, sep } from "node:path";
import type { TranscriptDialect } from "../../model/transcript.js";
import type { WhatIsHere } from "../adapter.js";
import type { TranscriptRoot } from "./transcript-store.js";

export const CLAUDE_LAYOUT = "projects/*/*.jsonl";
export const OPENCLAW_LAYOUT = "agents/*/sessions/*.jsonl";

/** The first of `candidates` holding `marker` is the store; every one holding it is read (Claude Code's config dirs). */
export function rootAmong(dialect: TranscriptDialect, candidates: string[], marker: string, layout: string): TranscriptRoot | undefined {
  const found = candidates.filter((dir) => existsSync(join(dir, marker)));
  if (found.length === 0) return undefined;
  return { dialect, path: found[0]!, sources: found.map((dir) => ({ dir, patterns: [layout] })) };
}

/**
 * The transcripts at `target`, or undefined when it is not a transcript store (opencode's detection goes next).
 * `here` is what is on disk there (what-is-here.ts), against which a forced `--format` has already been checked.
 */
export function transcriptRootAt(target: string, here: WhatIsHere): TranscriptRoot | undefined {
  const at = (dialect: TranscriptDialect, patterns: string[]): TranscriptRoot => ({
    dialect,
    path: storeOf(target, dialect),
    sources: [{ dir: target, patterns }],
  });
  // Judged by its bytes, not its name: a SQLite file called x.jsonl is still no transcript.
  const dialect = here.formats.find((f): f is TranscriptDialect => f === "claude" || f === "openclaw");
  if (statSync(target).isFile()) return dialect === undefined ? undefined : { dialect, path: storeOf(target, dialect), sources: [], file: target };
  if (existsSync(join(target, "agents"))) return at("openclaw", [OPENCLAW_LAYOUT]);
  if (existsSync(join(target, "projects"))) return at("claude", [CLAUDE_LAYOUT]);
  if (existsSync(join(target, "sessions.json"))) return at("openclaw", ["*.jsonl"]);
  if (dialect === undefined) return basename(target) === "projects" ? at("claude", ["*/*.jsonl"]) : undefined;
  // A folder of transcripts, or `projects/` itself (one folder per project, transcripts inside).
  const flat = readdirSync(target).some((name) => name.endsWith(".jsonl"));
  return at(dialect, [flat ? "*.jsonl" : "*/*.jsonl"]);
}

/**
 * The agent's own store a path lies in: the config dir above `projects/` (Claude Code), the state dir above
 * `agents/<agent>/sessions/` (openclaw); else the path itself (a copy kept elsewhere).
 */
function storeOf(target: string, dialect: TranscriptDialect): string {
  const parts = target.split(sep);
  if (dialect === "claude") {
    const at = parts.lastIndexOf("projects");
    // <config>/projects, <config>/projects/<project>, <config>/projects/<project>/<id>.jsonl
    return at > 0 && parts.length - at <= 3 ? parts.slice(0, at).join(sep) || sep : target;
  }
  const at = parts.lastIndexOf("agents");
  // <state>/agents/<agent>/sessions[/<id>.jsonl]
  return at > 0 && parts[at + 2] === "sessions" && parts.length - at <= 4 ? parts.slice(0, at).join(sep) || sep : target;
}
