/** openclaw's transcripts: `<state>/agents/<agent>/sessions/<sessionId>.jsonl`, indexed by `sessions.json`. */
import fg from "fast-glob";
import { homedir } from "node:os";
import { join } from "node:path";
import { RecoverError } from "../../errors.js";
import { transcriptAdapter } from "./family.js";
import { openclawDialect } from "./openclaw.js";
import { openclawFixes } from "./openclaw-fixes.js";
import { OPENCLAW_LAYOUT, rootAmong } from "./locate.js";
import type { TranscriptRoot } from "./transcript-store.js";

export const openclawStore = transcriptAdapter({
  format: { dialect: openclawDialect, fixes: openclawFixes },
  noun: "an openclaw store",
  expects: "a state dir with agents/, a sessions/ dir or a .jsonl",
  folderSigns: ["agents/"],
  /** `~/.openclaw`, and the state dirs of its older names, `~/.clawdbot` and `~/.moltbot`, when present. */
  defaultRoot(env) {
    const home = env.HOME || homedir();
    const candidates = [".openclaw", ".clawdbot", ".moltbot"].map((d) => join(home, d));
    const root = rootAmong("openclaw", candidates, "agents", OPENCLAW_LAYOUT);
    if (root) return root;
    throw new RecoverError("store-not-found", `no openclaw sessions found (looked for agents/ in ${candidates.join(", ")}); pass --store <path>`);
  },
  // openclaw resumes a session by its key on the next message: there is no command to print.
  resumeCommand: () => undefined,
  unread: liveDatabases,
});

/**
 * openclaw 2026.9 keeps its live sessions in one SQLite database per agent (docs/research/openclaw-request.md §0);
 * the JSONL transcripts recover reads are what older versions wrote and what `openclaw doctor` imports.
 */
function liveDatabases(root: TranscriptRoot): string | undefined {
  const found = fg.sync("agents/*/agent/openclaw-agent.sqlite", { cwd: root.path, absolute: true, onlyFiles: true, suppressErrors: true });
  if (found.length === 0) return undefined;
  const where = found.length === 1 ? found[0]! : `${found.length} databases (${found.join(", ")})`;
  return `openclaw 2026.9 and later keep live sessions in ${where}, which recover does not read yet: changes here reach only the JSONL transcripts, which older openclaw versions and \`openclaw doctor\` read`;
}
