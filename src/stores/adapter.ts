/**
 * What one store format offers the rest of recover, as one object: how to recognise it on disk, where its agent
 * keeps it, how to open it, how the agent resumes a session, and what its writes need. Each `stores/<format>/`
 * exports one; registry.ts lists them, and discovery, `--format`, what-is-here and `--resume` read that list only.
 */
import type { SessionStore } from "./store.js";

/** A path read once (stat, the head of a file, a folder's entries); every adapter judges it from this. */
export interface PathProbe {
  readonly path: string;
  readonly kind: "file" | "folder";
  /** Bytes, for a file. */
  readonly size: number;
  /** The first 64 KB of a file (read on first use, then kept). */
  head(): Buffer;
  /** A folder's entry names (empty for a file). */
  readonly entries: readonly string[];
}

/** What a path holds: for a person, and as the formats it can be opened as (empty: none that recover knows). */
export interface WhatIsHere {
  /** "a SQLite database", "an opencode JSON tree (storage/)", "an empty folder", … */
  description: string;
  formats: string[];
}

/** How a store is opened: `here` is what is on disk at `target` (a forced `--format` was already checked against it). */
export interface OpenRequest {
  target: string;
  here: WhatIsHere;
  /** `--format` named this adapter (else it is opening what no adapter claimed, as the default). */
  forced: boolean;
  /** The path came from the default location, not from `--store` (messages say so). */
  discovered: boolean;
  /** A store laid out as this format but holding no session yet is opened (a restore: StoreOptions.emptyAllowed). */
  emptyAllowed?: true;
}

/** Store-specific facts the shared code asks about instead of naming a format. */
export interface StoreCapabilities {
  /** A write also creates files beside the store (SQLite's -journal, -wal, -shm): its folder must be writable too. */
  writesBesideStore: boolean;
}

export interface StoreAdapter {
  /** The `--format` value, and `info.format` of the stores it opens. */
  readonly format: string;
  /** The agent whose store it is, as listings name it and `--agent` picks it (`opencode`, `claude`, …). */
  readonly agent: string;
  /** How messages name it ("an opencode SQLite store") and the shapes `--store` takes for it. */
  readonly noun: string;
  readonly expects: string;
  /**
   * What to call what it looks for, when a path holds nothing recover knows: a file ("a SQLite database") and the
   * entries of a folder ("opencode.db"). Adapters of one family may share a sign; it is named once.
   */
  readonly signs: { file?: string; folder: readonly string[] };
  /** The name its agent gives the store's file, when it has one of its own: a file so named is judged by this adapter first. */
  readonly fileName?: string;
  /** How a person reads this format at `probe` ("a folder of Claude Code transcripts"), or undefined when it is not. */
  detect(probe: PathProbe): string | undefined;
  /**
   * Without `--format`: the store at `target` when it is laid out as this format, else undefined. Adapters without
   * one are reached through `--format`, or as the default (the first adapter of the registry).
   */
  claim?(target: string, here: WhatIsHere, emptyAllowed?: boolean): SessionStore | undefined;
  open(request: OpenRequest): SessionStore;
  /** Without `--store`, found from `env` (never process.env): a path opened like `--store`, or the store itself. */
  locate(env: NodeJS.ProcessEnv): string | SessionStore;
  /**
   * The agent's own command (argv, run in the session's directory) that continues a session at a terminal, when the
   * agent has one: printed after a repair (`--resume`), run by `session resume`. `aliases`: the session's other names
   * now (SessionStore.aliasesOf), for an agent that continues a session by one of them (openclaw, by its key).
   */
  resumeArgv(sessionId: string, aliases: readonly string[]): string[] | undefined;
  readonly capabilities: StoreCapabilities;
}
