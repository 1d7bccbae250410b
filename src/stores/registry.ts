/**
 * The one list of session-store formats. Discovery, `--format`, what-is-here and `--resume` read it and nothing
 * else: adding a store is its folder under stores/ plus one line here.
 *
 * Order matters: the first adapter is the default (what recover opens without `--store` or `--format`, and what a
 * path no adapter claims is opened as); what-is-here asks the adapters in this order, so a folder holding several
 * stores is described in it, and `--format`'s choices are listed in it.
 */
import type { StoreAdapter } from "./adapter.js";
import { codexStore } from "./codex/adapter.js";
import { geminiStore } from "./gemini/adapter.js";
import { opencodeJsonStore } from "./opencode/json-adapter.js";
import { opencodeSqliteStore } from "./opencode/sqlite-adapter.js";
import { claudeStore } from "./transcript/claude-adapter.js";
import { openclawStore } from "./transcript/openclaw-adapter.js";

const BUILT_IN: readonly StoreAdapter[] = [opencodeSqliteStore, opencodeJsonStore, claudeStore, openclawStore, codexStore, geminiStore];

let adapters: readonly StoreAdapter[] = BUILT_IN;

/** Every registered adapter, the default first. */
export function storeAdapters(): readonly StoreAdapter[] {
  return adapters;
}

/** The names `--format` accepts. */
export function storeFormats(): string[] {
  return adapters.map((a) => a.format);
}

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
  return () => {
    adapters = adapters.filter((a) => a !== adapter);
  };
}
