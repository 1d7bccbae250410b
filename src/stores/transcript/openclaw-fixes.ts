/**
 * What openclaw (pi) writes itself where a fix needs it: its entry ids, its missing-result text, `(continue)`. The
 * JSONL transcripts (up to 2026.7) and the SQLite store (2026.8 on) differ in the first two only.
 */
import { randomBytes } from "node:crypto";
import type { Json } from "../../model/edit.js";
import type { TranscriptLine } from "../../model/transcript.js";
import type { AgentFixes, TranscriptFixContext } from "./fixing.js";
import { OPENCLAW_BLANK_USER_TEXT, OPENCLAW_MISSING_RESULT } from "./openclaw.js";

/** A version line's own: a new entry id (unique in the session), and the text of a result it makes up for a call. */
export interface OpenclawWrites {
  entryId(): string;
  missingResult: string;
}

/** Up to 2026.7: 8 hex digits, and the text of its transcript repair (session-transcript-repair.ts). */
export const openclawFixes: AgentFixes = openclawFixesOf({ entryId: () => randomBytes(4).toString("hex"), missingResult: OPENCLAW_MISSING_RESULT });

export function openclawFixesOf(writes: OpenclawWrites): AgentFixes {
  return {
    freshId(history) {
      for (;;) {
        const id = writes.entryId();
        if (!history.byUuid.has(id)) return id;
      }
    },
    closeInterruptedCall(context, line, index, call) {
      const stop = (line.value!.message as Json | undefined)?.stopReason;
      // openclaw #4597: an aborted or failed turn may hold a half-streamed call; a made-up result for it is rejected.
      if (stop === "error" || stop === "aborted")
        return context.dropBlock(
          line,
          index,
          `dropped the ${String(call.name)} call of a turn that ended with "${stop}" (it may be half-streamed; openclaw drops these too)`,
        );
      return context.insertAfter(
        context.resultAnchor(line),
        openclawResult(line, call, context, writes.missingResult),
        "gave the interrupted call the error result openclaw itself gives it",
      );
    },
    fillBlankPrompt(context, line) {
      return context.update(line, "the blank prompt becomes openclaw's own `(continue)`", (value) => {
        const m = value.message as { content: unknown };
        m.content = typeof m.content === "string" ? OPENCLAW_BLANK_USER_TEXT : [{ type: "text", text: OPENCLAW_BLANK_USER_TEXT }];
      });
    },
  };
}

function openclawResult(callLine: TranscriptLine, call: Json, context: TranscriptFixContext, text: string): Json {
  const source = callLine.value!;
  const message = source.message as Json;
  return {
    type: "message",
    id: context.freshId(),
    parentId: null,
    timestamp: source.timestamp,
    message: {
      role: "toolResult",
      toolCallId: call.id,
      toolName: typeof call.name === "string" && call.name.trim() !== "" ? call.name : "unknown",
      content: [{ type: "text", text }],
      isError: true,
      timestamp: message.timestamp,
    },
  };
}
