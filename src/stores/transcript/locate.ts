/**
 * Where transcripts are. `--store` may name, for openclaw, the state dir holding `agents/` (`~/.openclaw`), one
 * agent's `sessions/` dir or one `.jsonl`; for Claude Code, the config dir holding `projects/` (`~/.claude`),
 * `projects/` itself, one project dir or one `.jsonl`. Without `--store`, `--format` picks the agent's own default:
 * `CLAUDE_CONFIG_DIR`, `~/.claude`, `~/.config/claude`; `~/.openclaw` and the older `~/.clawdbot`, `~/.moltbot`.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { basename, join, sep } from "node:path";
import { RecoverError } from "../../errors.js";
import type { TranscriptDialect } from "../../model/transcript.js";
import type { WhatIsHere } from "../adapter.js";
import type { TranscriptRoot } from "./transcript-store.js";

const CLAUDE_LAYOUT = "projects/*/*.jsonl";
const OPENCLAW_LAYOUT = "agents/*/sessions/*.jsonl";

export function defaultTranscriptRoot(dialect: TranscriptDialect, env: NodeJS.ProcessEnv): TranscriptRoot {
  const home = env.HOME || homedir();
  if (dialect === "claude") {
    const configured = (env.CLAUDE_CONFIG_DIR ?? "").split(",").map((d) => d.trim()).filter(Boolean);
    const candidates = configured.length > 0 ? configured : [join(home, ".claude"), join(home, ".config", "claude")];
    const found = candidates.filter((dir) => existsSync(join(dir, "projects")));
    if (found.length === 0) throw new RecoverError("store-not-found", `no Claude Code transcripts found (looked for projects/ in ${candidates.join(", ")}); pass --store <path>`);
    return { dialect, path: found[0]!, sources: found.map((dir) => ({ dir, patterns: [CLAUDE_LAYOUT] })) };
  }
  const candidates = [".openclaw", ".clawdbot", ".moltbot"].map((d) => join(home, d));
  const found = candidates.filter((dir) => existsSync(join(dir, "agents")));
  if (found.length === 0) throw new RecoverError("store-not-found", `no openclaw sessions found (looked for agents/ in ${candidates.join(", ")}); pass --store <path>`);
  return { dialect, path: found[0]!, sources: found.map((dir) => ({ dir, patterns: [OPENCLAW_LAYOUT] })) };
}

/**
 * The transcripts at `target`, or undefined when it is not a transcript store (opencode's detection goes next).
 * `here` is what is on disk there (what-is-here.ts), against which a forced `--format` has already been checked.
 */
export function transcriptRootAt(target: string, here: WhatIsHere): TranscriptRoot | undefined {
  const at = (dialect: TranscriptDialect, patterns: string[]): TranscriptRoot => ({ dialect, path: storeOf(target, dialect), sources: [{ dir: target, patterns }] });
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
