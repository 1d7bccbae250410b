/**
 * The store adapter of a transcript dialect: Claude Code and openclaw keep the same kind of store (one JSONL file
 * per session, in folders of their own layout), so their adapters differ only in what this takes.
 */
import { RecoverError } from "../../errors.js";
import type { StoreAdapter, WhatIsHere } from "../adapter.js";
import { transcriptKind } from "./detect.js";
import { registerFormat, type TranscriptFormat } from "./format.js";
import { transcriptRootAt } from "./locate.js";
import { TranscriptStore, type TranscriptRoot } from "./transcript-store.js";

export interface DialectStore {
  format: TranscriptFormat;
  noun: string;
  expects: string;
  folderSigns: readonly string[];
  /** The agent's own store, found from `env` (never process.env); throws store-not-found, saying where it looked. */
  defaultRoot(env: NodeJS.ProcessEnv): TranscriptRoot;
  resumeArgv(sessionId: string, aliases: readonly string[]): string[] | undefined;
  /**
   * What the agent keeps in the store besides its transcripts and recover does not read, in one sentence, or
   * undefined. Said as a notice whenever the store is opened, and in the error when it holds no transcripts.
   */
  unread?(root: TranscriptRoot): string | undefined;
}

export function transcriptAdapter(spec: DialectStore): StoreAdapter {
  registerFormat(spec.format);
  const { name: dialect, agent } = spec.format.dialect;
  /**
   * A transcript store is nothing but its transcripts: one with none is not a store (exit 2), so a job pointed at
   * the wrong folder fails instead of going green on "no findings in 0 sessions". (An opencode database or JSON
   * tree is recognised by its own structure and may legitimately hold no session yet.)
   */
  const holdingSessions = (root: TranscriptRoot, emptyAllowed = false): TranscriptStore => {
    const unread = spec.unread?.(root);
    const store = new TranscriptStore(root, unread !== undefined ? [unread] : []);
    if (emptyAllowed || store.listSessionIds().length > 0) return store;
    throw new RecoverError("not-a-store", `${store.info.part ?? store.info.path} holds no ${agent} transcripts${unread !== undefined ? `; ${unread}` : ""}`);
  };
  const at = (target: string, here: WhatIsHere, emptyAllowed = false): TranscriptStore | undefined => {
    const root = transcriptRootAt(target, here);
    return root?.dialect === dialect ? holdingSessions(root, emptyAllowed) : undefined;
  };
  return {
    format: dialect,
    // The format is named for its agent (`claude`, `codex`, …).
    agent: dialect,
    noun: spec.noun,
    expects: spec.expects,
    signs: { file: "a JSONL transcript", folder: [...spec.folderSigns, ".jsonl"] },
    detect: (probe) => {
      const kind = transcriptKind(probe);
      return kind?.dialects.includes(dialect) ? kind.description : undefined;
    },
    claim: at,
    open: ({ target, here, emptyAllowed }) => {
      const store = at(target, here, emptyAllowed);
      if (!store) throw new RecoverError("not-a-store", `${target} holds no ${agent} transcripts`);
      return store;
    },
    locate: (env) => holdingSessions(spec.defaultRoot(env)),
    resumeArgv: spec.resumeArgv,
    capabilities: { writesBesideStore: false },
  };
}
