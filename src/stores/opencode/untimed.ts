/**
 * A message record that holds no readable time (a torn JSON-tree file) still has a place in its conversation, and
 * opencode orders messages by (time.created, id): a wrong time moves the turn. Its file's mtime is no clue to that
 * place (any later write or a copy sets it, and it sorted a session's first prompt last). Its id is: opencode mints
 * a message id from the clock when it creates the message (reference opencode.md §1.3), and the replies that name
 * it as their parent come after it.
 */
import type { MessageRecord } from "../../model/opencode-records.js";
import { unwrappedIdTime } from "./ids.js";

/**
 * Give each message whose `created` is NaN (its bytes held no time) an integer time in its place: its id's time,
 * kept before its first reply; without an opencode id, just before its first reply; with neither, `lastResort` (the
 * store's own clue).
 */
export function placeUntimed(messages: readonly MessageRecord[], lastResort: (message: MessageRecord) => number): void {
  const timed = messages.filter((m) => !Number.isNaN(m.created));
  if (timed.length === messages.length) return;
  const times = timed.map((m) => m.created).sort((a, b) => a - b);
  // The id's time field wraps every ~795 days: it is unwrapped to the cycle of the session's own times.
  const near = times[Math.floor(times.length / 2)];
  for (const message of messages) {
    if (!Number.isNaN(message.created)) continue;
    const firstReply = Math.min(...timed.filter((m) => m.info?.role === "assistant" && m.info.parentID === message.ref.id).map((m) => m.created));
    const idTicks = unwrappedIdTime(message.ref.id, near ?? lastResort(message));
    let created: number;
    if (idTicks !== undefined) created = Math.min(Math.floor(idTicks / 0x1000), firstReply - 1);
    else if (Number.isFinite(firstReply)) {
      const before = times.filter((t) => t < firstReply).at(-1);
      created = before === undefined ? firstReply - 1 : Math.floor((before + firstReply) / 2);
    } else created = Math.round(lastResort(message));
    message.created = created;
  }
}
