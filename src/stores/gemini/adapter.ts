/**
 * Gemini CLI's chats: `~/.gemini/tmp/<project>/chats/session-<YYYY-MM-DDTHH-MM>-<first 8 of the id>.jsonl`. The
 * session id is the `sessionId` of the file's metadata line; a resume starts a new recording with the same id, so
 * one session may have several files: the one the client resumes is the session (layout.oneOf).
 */
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { basename, join } from "node:path";
import { RecoverError } from "../../errors.js";
import { readHead } from "../probe.js";
import { transcriptAdapter } from "../transcript/family.js";
import { entriesOf, fileNameId, storeAbove, type TranscriptLayout } from "../transcript/layout.js";
import { rootAmong } from "../transcript/locate.js";
import { geminiDialect } from "./dialect.js";
import { geminiFixes } from "./fixes.js";
import { readsNoSession } from "./no-session.js";

const CHAT = "session-*.jsonl";
/** Sessions of Gemini CLI before 0.40: one JSON document each. */
const LEGACY = "session-*.json";

/** `tmp/` of a Gemini home holds project folders with a `chats/` folder. */
const holdsChats = (tmp: string) => entriesOf(tmp).some((project) => entriesOf(join(tmp, project)).includes("chats"));

const geminiLayout: TranscriptLayout = {
  homes: [
    {
      entry: "tmp",
      patterns: [`tmp/*/chats/${CHAT}`, `tmp/*/chats/${LEGACY}`],
      description: "a Gemini CLI home (tmp/)",
      holds: (dir) => holdsChats(join(dir, "tmp")),
    },
  ],
  /** `tmp/` itself, or one project's folder in it. */
  part(dir, entries) {
    if (basename(dir) === "tmp" && holdsChats(dir)) return { patterns: [`*/chats/${CHAT}`, `*/chats/${LEGACY}`], description: "a Gemini CLI tmp/ dir" };
    if (entries.includes("chats") && entriesOf(join(dir, "chats")).some((f) => f.startsWith("session-") && /\.jsonl?$/.test(f)))
      return { patterns: [`chats/${CHAT}`, `chats/${LEGACY}`], description: "a Gemini CLI project dir" };
    return undefined;
  },
  /** <home>/tmp[/<project>[/chats[/session-….jsonl]]] */
  storeOf: (target) => storeAbove(target, "tmp", 4, (parts, at) => parts.length - at === 1 || parts[at + 2] === "chats"),
  flat: [CHAT, LEGACY],
  sessionIdOf: (path) => headSessionId(path) ?? fileNameId(path).replace(/\.json$/, ""),
  oneOf: (a, b) => (resumedBefore(rank(b), rank(a)) ? b : a),
  readsNoSession,
};

/** The `sessionId` of the metadata line that opens the file. */
function headSessionId(path: string): string | undefined {
  try {
    return /"sessionId"\s*:\s*"([^"]+)"/.exec(readHead(path, 4096).toString("utf8"))?.[1];
  } catch {
    // Unreadable now: its name stands for it; reading the session later says what is wrong.
    return undefined;
  }
}

/**
 * How the client picks among files of one session (`getAllSessionFiles`): a file with resumable content (a model
 * reply) over one without (a resume's fresh recording), then the latest `lastUpdated`.
 */
function rank(path: string): { resumable: boolean; updated: string; size: number } {
  const text = readFileSync(path, "utf8");
  const stamps = [...text.matchAll(/"lastUpdated"\s*:\s*"([^"]+)"/g)].map((m) => m[1]!);
  return { resumable: /"type"\s*:\s*"gemini"/.test(text), updated: stamps.sort().at(-1) ?? "", size: text.length };
}

function resumedBefore(x: ReturnType<typeof rank>, y: ReturnType<typeof rank>): boolean {
  if (x.resumable !== y.resumable) return x.resumable;
  if (x.updated !== y.updated) return x.updated > y.updated;
  return x.size > y.size;
}

const gemini = { dialect: geminiDialect, fixes: geminiFixes, layout: geminiLayout };

export const geminiStore = transcriptAdapter({
  format: gemini,
  noun: "a Gemini CLI store",
  expects: "a Gemini home with tmp/, a project dir, its chats/ dir or a session-*.jsonl",
  folderSigns: ["tmp/"],
  /** `~/.gemini` (GEMINI_CLI_HOME sets the home it lives in). */
  defaultRoot(env) {
    const candidates = [join(env.GEMINI_CLI_HOME?.trim() || env.HOME || homedir(), ".gemini")];
    const root = rootAmong(gemini, candidates);
    if (root) return root;
    throw new RecoverError("store-not-found", `no Gemini CLI chats found (looked for tmp/<project>/chats/ in ${candidates.join(", ")}); pass --store <path>`);
  },
  resumeArgv: (id) => ["gemini", "--resume", id],
});
