/** openclaw's transcripts: `<state>/agents/<agent>/sessions/<sessionId>.jsonl`, indexed by `sessions.json`. */
import fg from "fast-glob";
import { homedir } from "node:os";
import { readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { RecoverError } from "../../errors.js";
import { obj, str } from "./dialect.js";
import { transcriptAdapter } from "./family.js";
import { openclawDialect, openclawResumeArgv } from "./openclaw.js";
import { openclawFixes } from "./openclaw-fixes.js";
import { type TranscriptLayout, fileNameId, storeAbove } from "./layout.js";
import { rootAmong } from "./locate.js";
import type { TranscriptRoot } from "./transcript-store.js";

const openclawLayout: TranscriptLayout = {
  homes: [
    { entry: "agents", patterns: ["agents/*/sessions/*.jsonl"], description: "an openclaw state or sessions dir" },
    { entry: "sessions.json", patterns: ["*.jsonl"], description: "an openclaw state or sessions dir" },
  ],
  /** <state>/agents/<agent>/sessions[/<id>.jsonl] */
  storeOf: (target) => storeAbove(target, "agents", 4, (parts, at) => parts[at + 2] === "sessions"),
  flat: ["*.jsonl"],
  // A run's trajectory sidecar (`<id>.trajectory.jsonl`, 2026.7) is a trace of the run, not a session.
  sessionIdOf: (path) => (path.endsWith(".trajectory.jsonl") ? undefined : fileNameId(path)),
  aliases: sessionKeys,
  writeLocks: true,
};

const openclaw = { dialect: openclawDialect, fixes: openclawFixes, layout: openclawLayout };

export const openclawStore = transcriptAdapter({
  format: openclaw,
  noun: "an openclaw store",
  expects: "a state dir with agents/, a sessions/ dir or a .jsonl",
  folderSigns: ["agents/"],
  /** `$OPENCLAW_STATE_DIR` (as openclaw itself), else `~/.openclaw` and the state dirs of its older names, `~/.clawdbot` and `~/.moltbot`. */
  defaultRoot(env) {
    const home = env.HOME || homedir();
    const candidates = env.OPENCLAW_STATE_DIR ? [env.OPENCLAW_STATE_DIR] : [".openclaw", ".clawdbot", ".moltbot"].map((d) => join(home, d));
    const root = rootAmong(openclaw, candidates);
    if (root) return root;
    throw new RecoverError("store-not-found", `no openclaw sessions found (looked for agents/ in ${candidates.join(", ")}); pass --store <path>`);
  },
  resumeArgv: (_id, keys) => openclawResumeArgv(keys),
  unread: liveDatabases,
});

/**
 * openclaw 2026.8 and later keep their live sessions in one SQLite database per agent (stores/openclaw-sqlite/,
 * docs/research/openclaw-request.md §0): the JSONL transcripts read here are what older versions wrote and what
 * `openclaw doctor` imports, and a repair here does not reach what the newer client reads.
 */
function liveDatabases(root: TranscriptRoot): string | undefined {
  const found = fg.sync("agents/*/agent/openclaw-agent.sqlite", { cwd: root.path, absolute: true, onlyFiles: true, suppressErrors: true });
  if (found.length === 0) return undefined;
  const where = found.length === 1 ? found[0]! : `${found.length} databases (${found.join(", ")})`;
  return `openclaw 2026.8 and later keep live sessions in ${where}, and never read these JSONL transcripts again (only \`openclaw doctor\` imports them): read the live sessions with --store ${found[0]!}`;
}

/** openclaw's session keys (`agent:main:main`), from every sessions.json beside the transcripts. */
function sessionKeys(files: readonly string[]): Map<string, string> {
  const keys = new Map<string, string>();
  for (const index of new Set(files.map((f) => join(dirname(f), "sessions.json")))) {
    for (const [key, entry] of Object.entries(readIndex(index))) {
      const file = str(obj(entry)?.sessionFile);
      const id = file !== undefined ? basename(file, ".jsonl") : str(obj(entry)?.sessionId);
      if (id !== undefined && !keys.has(key)) keys.set(key, id);
    }
  }
  return keys;
}

function readIndex(path: string): Record<string, unknown> {
  try {
    return obj(JSON.parse(readFileSync(path, "utf8"))) ?? {};
  } catch {
    // A missing or damaged index only costs the key lookup: session ids still work.
    return {};
  }
}
