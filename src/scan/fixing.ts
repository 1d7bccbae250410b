/**
 * The store side of planning, for the caller to hand the planner (plan/ reaches stores only through model/fixing.ts's
 * interfaces): how each store family's records live in the planner's working copy, and its fix context.
 */
import type { StoreFixing } from "../model/fixing.js";
import { isTranscript } from "../model/transcript.js";
import { OpencodeRecords } from "../stores/opencode/working.js";
import type { RecordCodec } from "../stores/store.js";
import { TranscriptLines } from "../stores/transcript/working.js";

/** How a store with this record codec fixes a session (a transcript needs no codec: its lines are its bytes). */
export function storeFixing(codec: RecordCodec): StoreFixing {
  return { family: (loaded) => (isTranscript(loaded) ? new TranscriptLines(loaded) : new OpencodeRecords(loaded, codec)) };
}
