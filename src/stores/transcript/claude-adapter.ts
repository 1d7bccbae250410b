/** Claude Code's transcripts: `<config>/projects/<encoded cwd>/<uuid>.jsonl`, the config dir `~/.claude`. */
import { homedir } from "node:os";
import { basename, join, sep } from "node:path";
import { RecoverError } from "../../errors.js";
import { claudeDialect } from "./claude.js";
import { claudeFixes } from "./claude-fixes.js";
import { transcriptAdapter } from "./family.js";
import { type TranscriptLayout, entriesOf, fileNameId, storeAbove } from "./layout.js";
import { rootAmong } from "./locate.js";

/** A subagent's transcript, where 2.1.x keeps it (`subagents/` may hold folders of its own: agentRelPath). */
const SUBAGENTS = "subagents/**/agent-*.jsonl";

const claudeLayout: TranscriptLayout = {
  homes: [{ entry: "projects", patterns: ["projects/*/*.jsonl", `projects/*/*/${SUBAGENTS}`], description: "a Claude Code config dir (projects/)" }],
  /** `projects/` itself, whatever it is called: one folder per project, transcripts inside. */
  part: (dir, entries) =>
    basename(dir) === "projects" || (!entries.some((name) => name.endsWith(".jsonl")) && holdsProjectFolders(dir, entries))
      ? { patterns: ["*/*.jsonl", `*/*/${SUBAGENTS}`], description: "a Claude Code projects/ dir" }
      : undefined,
  /** <config>/projects, <config>/projects/<project>, <config>/projects/<project>/<id>.jsonl, and a subagent's file. */
  storeOf: (target) => storeAbove(target, "projects", target.includes(`${sep}subagents${sep}`) ? 8 : 3),
  flat: ["*.jsonl", `*/${SUBAGENTS}`],
  // A subagent's run, in the session's folder (`<session>/subagents/agent-<id>.jsonl`, 2.1.x), is a session of its
  // own: the client resumes it by its agent id. Older builds kept it beside the session as agent-<id>.jsonl: part of
  // that session.
  sessionIdOf: (path) => {
    const id = fileNameId(path);
    if (parentOf(path) !== undefined) return id;
    return id.startsWith("agent-") ? undefined : id;
  },
  parentOf,
};

/** The session a subagent's transcript belongs to: the folder `subagents/` is in (`<project>/<session>/subagents/…`). */
function parentOf(path: string): string | undefined {
  const parts = path.split(sep);
  const at = parts.lastIndexOf("subagents");
  if (at < 1 || !/^agent-.+\.jsonl$/.test(parts.at(-1)!)) return undefined;
  return parts[at - 1];
}

/** Claude Code's `projects/`: one folder per project, transcripts inside (checked in a few folders, not all). */
function holdsProjectFolders(dir: string, entries: readonly string[]): boolean {
  return entries.slice(0, 64).some((name) => entriesOf(join(dir, name)).some((file) => file.endsWith(".jsonl")));
}

const claude = { dialect: claudeDialect, fixes: claudeFixes, layout: claudeLayout };

export const claudeStore = transcriptAdapter({
  format: claude,
  noun: "a Claude Code store",
  expects: "a config dir with projects/, a projects/ dir, a project dir or a .jsonl",
  folderSigns: ["projects/"],
  /** `CLAUDE_CONFIG_DIR` (a comma-separated list: every one is read), else `~/.claude`, `~/.config/claude`. */
  defaultRoot(env) {
    const home = env.HOME || homedir();
    const configured = (env.CLAUDE_CONFIG_DIR ?? "")
      .split(",")
      .map((d) => d.trim())
      .filter(Boolean);
    const candidates = configured.length > 0 ? configured : [join(home, ".claude"), join(home, ".config", "claude")];
    const root = rootAmong(claude, candidates);
    if (root) return root;
    throw new RecoverError("store-not-found", `no Claude Code transcripts found (looked for projects/ in ${candidates.join(", ")}); pass --store <path>`);
  },
  resumeArgv: (id) => ["claude", "--resume", id],
});
