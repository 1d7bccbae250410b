/** Claude Code's transcripts: `<config>/projects/<encoded cwd>/<uuid>.jsonl`, the config dir `~/.claude`. */
import { transcriptAdapter } from "./family.js";

export const claudeStore = transcriptAdapter({
  dialect: "claude",
  agent: "Claude Code",
  noun: "a Claude Code store",
  expects: "a config dir with projects/, a projects/ dir, a project dir or a .jsonl",
  folderSigns: ["projects/"],
  resumeCommand: (id) => `claude --resume ${id}`,
});
