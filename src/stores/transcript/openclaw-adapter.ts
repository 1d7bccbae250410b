/** openclaw's transcripts: `<state>/agents/<agent>/sessions/<sessionId>.jsonl`, indexed by `sessions.json`. */
import { transcriptAdapter } from "./family.js";

export const openclawStore = transcriptAdapter({
  dialect: "openclaw",
  agent: "openclaw",
  noun: "an openclaw store",
  expects: "a state dir with agents/, a sessions/ dir or a .jsonl",
  folderSigns: ["agents/"],
  // openclaw resumes a session by its key on the next message: there is no command to print.
  resumeCommand: () => undefined,
});
