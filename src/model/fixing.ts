/**
 * What the planner needs from a store to fix a session in memory, as model-level interfaces the caller passes in
 * (plan/ never imports a store). Each store family implements them (stores/opencode/working.ts,
 * stores/transcript/working.ts): the working copy, its fix context, and the changes and file images for the writer.
 */
import type { FileImage, RecordChange } from "./change.js";
import type { Edit } from "./edit.js";
import type { FixContext } from "./fix-context.js";
import type { SessionRecords } from "./opencode-records.js";
import type { RuleOptions } from "./rule-options.js";
import type { SessionView } from "./session-view.js";
import type { TranscriptRecords } from "./transcript.js";

/** A session as a store loads it: opencode's records or a transcript's lines. */
export type LoadedRecords = SessionRecords | TranscriptRecords;

/** A session being fixed in memory: what differs from the loaded session at the end is the plan. */
export interface SessionDraft {
  /** The session as it stands after every edit so far, read as a load of the written records would read it. */
  records(): LoadedRecords;
  /** The store's fix context on a view of `records()`. */
  context(view: SessionView, options: RuleOptions): FixContext;
  /** The records an edit claims in one planning pass (`ownRecordOnly`: its fix reads nothing but its record). */
  claims(edit: Edit, ownRecordOnly: boolean): string[];
  apply(edits: readonly Edit[], rule: string): void;
  /** The changes (and whole-file images, for a store that writes whole files); throws if a change is invalid. */
  outcome(): { changes: RecordChange[]; files?: FileImage[] };
}

/** A store's way of fixing its sessions. */
export interface StoreFixing {
  draft(loaded: LoadedRecords): SessionDraft;
}
