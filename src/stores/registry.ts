/**
 * The one list of session-store formats. Discovery, `--format`, what-is-here and `--resume` read it and nothing
 * else: adding a store is its folder under stores/ plus one line here (and its name in formats.ts, which `--help`
 * reads without loading any store; a drift between the two stops every run at once).
 *
 * Order matters: the first adapter is the default (what recover opens without `--store` or `--format`, and what a
 * path no adapter claims is opened as); what-is-here asks the adapters in this order, so a folder holding several
 * stores is described in it, and `--format`'s choices are listed in it.
 */
import type { StoreAdapter } from "./adapter.js";
import { BUILT_IN_FORMATS, formatsChanged } from "./formats.js";
import { codexStore } from "./codex/adapter.js";
import { geminiStore } from "./gemini/adapter.js";
import { opencodeJsonStore } from "./opencode/json-adapter.js";
import { opencodeSqliteStore } from "./opencode/sqlite-adapter.js";
import { claudeStore } from "./transcript/claude-adapter.js";
import { openclawStore } from "./transcript/openclaw-adapter.js";
import { openclawSqliteStore } from "./openclaw-sqlite/adapter.js";

const BUILT_IN: readonly StoreAdapter[] = [
  opencodeSqliteStore,
  opencodeJsonStore,
  claudeStore,
  // Before the JSONL transcripts: a state dir holding both is the 2026.8+ client's, which reads only the database.
  openclawSqliteStore,
  openclawStore,
  codexStore,
  geminiStore,
];

// formats.ts names these adapters for a run that has not loaded them: the two lists must not drift apart.
if (BUILT_IN.map((a) => a.format).join() !== BUILT_IN_FORMATS.join()) {
  throw new Error(`stores/formats.ts lists ${BUILT_IN_FORMATS.join(", ")}, but the registry's adapters are ${BUILT_IN.map((a) => a.format).join(", ")}`);
}

let adapters: readonly StoreAdapter[] = BUILT_IN;

/** Every registered adapter, the default first. */
export function storeAdapters(): readonly StoreAdapter[] {
  return adapters;
}

export { storeFormats } from "./formats.js";

export function storeAdapter(format: string): StoreAdapter | undefined {
  return adapters.find((a) => a.format === format);
}

/**
 * Add a store format from outside this list (a test's invented format; a plug-in): it takes part in everything the
 * list does, after the built-in formats. Returns how to take it out again. The registration is this thread's: a
 * scan spread over worker threads (scan/parallel-scan.ts, from 16 sessions on) reopens the store in each worker by
 * its format, from the built-in list.
 */
export function registerStore(adapter: StoreAdapter): () => void {
  if (storeAdapter(adapter.format)) throw new Error(`store format ${adapter.format} is registered already`);
  adapters = [...adapters, adapter];
  formatsChanged(adapters.map((a) => a.format));
  return () => {
    adapters = adapters.filter((a) => a !== adapter);
    formatsChanged(adapters.map((a) => a.format));
  };
}
