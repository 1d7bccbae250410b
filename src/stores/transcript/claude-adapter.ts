/** Claude Code's transcripts: `<config>/projects/<encoded cwd>/<uuid>.jsonl`, the config dir `~/.claude`. */
import { homedir } from "node:os";
import { join } from "node:path";
import { RecoverError } from "../../errors.js";
import { claudeDialect } from "./claude.js";
import { claudeFixes } from "./claude-fixes.js";
import { transcriptAdapter } from "./family.js";
import { CLAUDE_LAYOUT, rootAmong } from "./locate.js";

export const claudeStore = transcriptAdapter({
  format: { dialect: claudeDialect, fixes: claudeFixes },
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
    const root = rootAmong("claude", candidates, "projects", CLAUDE_LAYOUT);
    if (root) return root;
    throw new RecoverError("store-not-found", `no Claude Code transcripts found (looked for projects/ in ${candidates.join(", ")}); pass --store <path>`);
  },
  resumeCommand: (id) => `claude --resume ${id}`,
});
