/**
 * The store side of planning, for the caller to hand the planner (plan/ reaches stores only through model/fixing.ts's
 * interfaces): each store family's working copy and fix context.
 */
import type { StoreFixing } from "../model/fixing.js";
import { isTranscript } from "../model/transcript.js";
import { WorkingSession } from "../stores/opencode/working.js";
import type { RecordCodec } from "../stores/store.js";
import { WorkingTranscript } from "../stores/transcript/working.js";

/** How a store with this record codec fixes a session (a transcript needs no codec: its lines are its bytes). */
export function storeFixing(codec: RecordCodec): StoreFixing {
  return { draft: (loaded) => (isTranscript(loaded) ? new WorkingTranscript(loaded) : new WorkingSession(loaded, codec)) };
}
