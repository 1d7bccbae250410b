/**
 * openclaw 2026.8 and later: one SQLite database per agent, `<state>/agents/<agent>/agent/openclaw-agent.sqlite`,
 * holding its live sessions (docs/research/openclaw-request.md §0). The store is one database; a state dir or an
 * agent's folder names it when it holds exactly one.
 */
import fg from "fast-glob";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { basename, join } from "node:path";
import { RecoverError } from "../../errors.js";
import type { PathProbe, StoreAdapter, WhatIsHere } from "../adapter.js";
import { isSqlite, readHead } from "../probe.js";
import { registerFormat } from "../transcript/format.js";
import { openclawResumeArgv } from "../transcript/openclaw.js";
import { openclawSqliteFormat, OPENCLAW_SQLITE } from "./format.js";
import { OpenclawSqliteStore } from "./store.js";

export const DATABASE_NAME = "openclaw-agent.sqlite";

/** Where databases lie below a folder a user may name: a state dir, its agents/, one agent's folder, its agent/. */
const BELOW = [`agents/*/agent/${DATABASE_NAME}`, `*/agent/${DATABASE_NAME}`, `agent/${DATABASE_NAME}`, DATABASE_NAME];

/** The databases at `target`: itself, when it is one; else those below it, at the first depth that has any. */
export function databasesAt(target: string, probe?: Pick<PathProbe, "kind" | "path">): string[] {
  if (probe?.kind === "file" || basename(target) === DATABASE_NAME) return basename(target) === DATABASE_NAME && isSqlite(readHead(target)) ? [target] : [];
  for (const pattern of BELOW) {
    const found = fg.sync(pattern, { cwd: target, absolute: true, onlyFiles: true, suppressErrors: true, followSymbolicLinks: false });
    if (found.length > 0) return found.sort();
  }
  return [];
}

/** The one database `target` names, or an error naming them all when it holds several. */
function oneDatabase(target: string): string | undefined {
  const found = databasesAt(target);
  if (found.length > 1) {
    throw new RecoverError("usage", `${target} holds ${found.length} openclaw agent databases (${found.join(", ")}); pass one of them as --store`);
  }
  return found[0];
}

/** The store at `target`; `strict`: a database without openclaw's tables is refused, else passed by (another adapter's). */
function openAt(target: string, here: WhatIsHere, strict: boolean): OpenclawSqliteStore | undefined {
  if (!here.formats.includes(OPENCLAW_SQLITE)) return undefined;
  const db = oneDatabase(target);
  if (db === undefined) return undefined;
  const store = new OpenclawSqliteStore(db);
  const missing = store.missingTables();
  if (missing.length === 0) return store;
  store.close();
  if (!strict) return undefined;
  throw new RecoverError("not-a-store", `${db} is a SQLite database but no openclaw agent database (it has no ${missing.join(", ")} table)`);
}

export const openclawSqliteStore: StoreAdapter = (() => {
  registerFormat(openclawSqliteFormat);
  return {
    format: OPENCLAW_SQLITE,
    agent: "openclaw",
    noun: "an openclaw SQLite store",
    expects: `an ${DATABASE_NAME}, or a state dir with agents/<agent>/agent/${DATABASE_NAME}`,
    signs: { file: "a SQLite database", folder: ["agents/"] },
    fileName: DATABASE_NAME,
    detect(probe) {
      if (probe.kind === "file") return basename(probe.path) === DATABASE_NAME && isSqlite(probe.head()) ? "an openclaw agent database" : undefined;
      const found = databasesAt(probe.path, probe);
      if (found.length === 0) return undefined;
      return found.length === 1 ? `an openclaw state dir (${found[0]})` : `an openclaw state dir with ${found.length} agent databases`;
    },
    claim: (target, here) => openAt(target, here, false),
    open({ target, here }) {
      const store = openAt(target, here, true);
      if (!store) throw new RecoverError("not-a-store", `${target} is not ${this.expects}`);
      return store;
    },
    /** `$OPENCLAW_STATE_DIR`, else `~/.openclaw`: the agent database there (the `main` agent's, when there are several). */
    locate(env) {
      const state = env.OPENCLAW_STATE_DIR || join(env.HOME || homedir(), ".openclaw");
      const found = databasesAt(state);
      if (found.length === 0)
        throw new RecoverError(
          "store-not-found",
          `no openclaw agent database found (looked for agents/*/agent/${DATABASE_NAME} in ${state}); pass --store <path>`,
        );
      const main = join(state, "agents", "main", "agent", DATABASE_NAME);
      return found.length === 1 ? found[0]! : existsSync(main) ? main : found[0]!;
    },
    resumeArgv: (_id, keys) => openclawResumeArgv(keys),
    capabilities: { writesBesideStore: true },
  };
})();
