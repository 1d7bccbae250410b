/**
 * Find the store the user means: `--store` (a data dir, a db file, a `storage/` folder, a transcript folder or
 * file, …), else the default location of the `--format` named (opencode's when none is). The format is detected
 * from what is there unless `--format` forces one. Every format comes from the registry (registry.ts); this file
 * names none but the Ralph-loop files a backup may hold.
 */
import { resolve } from "node:path";
import { RecoverError } from "../errors.js";
import type { StoreAdapter } from "./adapter.js";
import { BattleFilesStore } from "./pokeralph/battle-store.js";
import { RALPH_LOOP_FORMAT, RalphLoopStore } from "./claude-ralph/loop-state.js";
import { WholeFilesStore } from "./whole-files-store.js";
import { assertReadableDir, statOrThrow } from "./probe.js";
import { storeAdapters } from "./registry.js";
import type { SessionStore } from "./store.js";
import { assertFormatMatches, whatIsAt } from "./what-is-here.js";

export interface StoreOptions {
  store?: string;
  format?: string;
  /** Where default locations are looked up (HOME, XDG_DATA_HOME, OPENCODE_DB, …): the CLI passes its run's; none without. */
  env?: NodeJS.ProcessEnv;
  /** What a relative `--store` is relative to; the process's working directory when not given. */
  cwd?: string;
  /**
   * A restore reopens a store a repair may have left with no session (it removed an empty chat file, the last one):
   * a transcript store with none is still opened then, to put its files back.
   */
  emptyAllowed?: true;
}

/** Folders of whole files recover writes for Ralph loops, by the format their backups name. */
const WHOLE_FILE_STORES: Record<string, { what: string; open: (dir: string) => SessionStore }> = {
  "pokeralph-battle": { what: "a battle folder", open: (dir) => new BattleFilesStore(dir) },
  [RALPH_LOOP_FORMAT]: { what: "a folder of ralph-loop state", open: (dir) => new RalphLoopStore(dir) },
  // An agent's config folder a hook was installed into (hooks/install.ts).
  "agent-config": { what: "an agent's config folder", open: (dir) => new WholeFilesStore("agent-config", dir, "an agent's config folder") },
};

/** `adapters`: the registry's list unless a caller brings its own (the first is the default). */
export function openStore(options: StoreOptions, adapters: readonly StoreAdapter[] = storeAdapters()): SessionStore {
  // Reached only from a backup's manifest (`session restore`): Ralph-loop files are restored, never scanned.
  const wholeFiles = options.format !== undefined ? WHOLE_FILE_STORES[options.format] : undefined;
  if (wholeFiles !== undefined && options.store !== undefined) {
    const dir = resolve(options.cwd ?? "", options.store);
    if (!statOrThrow(dir).isDirectory()) throw new RecoverError("not-a-store", `${dir} is not ${wholeFiles.what}`);
    return wholeFiles.open(dir);
  }
  const forced = parseFormat(options.format, adapters);
  const fallback = adapters[0]!;
  let target: string;
  if (options.store !== undefined) target = resolve(options.cwd ?? "", options.store);
  else {
    const located = (forced ?? fallback).locate(options.env ?? {});
    if (typeof located !== "string") return located;
    target = located;
  }
  if (statOrThrow(target).isDirectory()) assertReadableDir(target);
  // What is on disk, read once: a forced format is checked against it before any adapter reads a byte.
  const here = whatIsAt(target, adapters);
  const discovered = options.store === undefined;
  if (forced) {
    assertFormatMatches(target, forced, here);
    return forced.open({ target, here, forced: true, discovered, ...(options.emptyAllowed ? { emptyAllowed: true as const } : {}) });
  }
  for (const adapter of adapters) {
    const claimed = adapter.claim?.(target, here, options.emptyAllowed === true);
    if (claimed) return claimed;
  }
  return fallback.open({ target, here, forced: false, discovered });
}

function parseFormat(format: string | undefined, adapters: readonly StoreAdapter[]): StoreAdapter | undefined {
  if (format === undefined) return undefined;
  const adapter = adapters.find((a) => a.format === format);
  if (adapter) return adapter;
  throw new RecoverError("usage", `unknown --format ${JSON.stringify(format)} (expected one of: ${adapters.map((a) => a.format).join(", ")})`);
}

/** One agent's store found at its default location. */
export interface FoundStore {
  agent: string;
  store: SessionStore;
}

/** Every agent's store at its default location, and what stood in the way of one that is there but unreadable. */
export interface Discovery {
  found: FoundStore[];
  /** One line per store that is there but could not be opened (permissions, a damaged database, …). */
  problems: string[];
  /** Where each agent's store was looked for, for a message that found none. */
  lookedIn: string[];
}

/**
 * Without `--store` and `--format`: every store of the registry's agents at its default place (`locate`), opened.
 * A store that is absent, or there with no sessions of its agent, is silent; one that is there but cannot be read is
 * a problem line, never the end of the run. Two formats that locate the same place (opencode's database and JSON
 * tree share its data dir) open it once, as the registry's first. The caller closes every store.
 */
export function discoverStores(env: NodeJS.ProcessEnv, adapters: readonly StoreAdapter[] = storeAdapters()): Discovery {
  const found: FoundStore[] = [];
  const problems: string[] = [];
  const lookedIn: string[] = [];
  const looked = new Map<string, string[]>();
  const opened = new Set<string>();
  for (const adapter of adapters) {
    let store: SessionStore;
    let at: string | undefined;
    try {
      const located = adapter.locate(env);
      if (typeof located === "string") {
        if (opened.has(located)) continue;
        opened.add(located);
        at = located;
        store = openStore({ store: located, env }, adapters);
      } else store = located;
    } catch (error) {
      if (!(error instanceof RecoverError)) throw error;
      // Found, but what is there cannot be opened (a database that is no database, a permission): a note.
      const absent = (place: string) => error.code === "store-not-found" || (error.code === "not-a-store" && whatIsAt(place, adapters).formats.length === 0);
      if (at !== undefined && !absent(at)) {
        problems.push(`${adapter.agent}: ${error.message}`);
        continue;
      }
      // Absent (store-not-found), or there without a session of its agent (not-a-store): nothing to say.
      if (error.code === "store-not-found" || error.code === "not-a-store") {
        const where = error.message.replace(/; pass --store <path>$/, "");
        // opencode's two formats look in the same place: said once. openclaw's look in two: said in one line.
        const said = looked.get(adapter.agent) ?? [];
        if (!said.includes(where)) looked.set(adapter.agent, [...said, where]);
        continue;
      }
      problems.push(`${adapter.agent}: ${error.message}`);
      continue;
    }
    if (found.some((f) => f.store.info.path === store.info.path)) {
      store.close();
      continue;
    }
    found.push({ agent: adapter.agent, store });
  }
  // An agent found in one of its formats is not absent.
  for (const [agent, where] of looked) if (!found.some((f) => f.agent === agent)) lookedIn.push(`${agent}: ${where.join("; ")}`);
  return { found, problems, lookedIn };
}
