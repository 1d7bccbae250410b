/** What openclaw (pi) writes itself where a fix needs it: 8-hex entry ids, its missing-result text, `(continue)`. */
import { randomBytes } from "node:crypto";
import type { Json } from "../../model/edit.js";
import type { TranscriptLine } from "../../model/transcript.js";
import type { AgentFixes, TranscriptFixContext } from "./fixing.js";
import { OPENCLAW_BLANK_USER_TEXT, OPENCLAW_MISSING_RESULT } from "./openclaw.js";

export const openclawFixes: AgentFixes = {
  /** pi: 8 hex digits, unique in the file. */
  freshId(history) {
    for (;;) {
      const id = randomBytes(4).toString("hex");
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
      openclawResult(line, call, context),
      "gave the interrupted call the error result openclaw itself inserts",
    );
  },
  fillBlankPrompt(context, line) {
    return context.update(line, "the blank prompt becomes openclaw's own `(continue)`", (value) => {
      const m = value.message as { content: unknown };
      m.content = typeof m.content === "string" ? OPENCLAW_BLANK_USER_TEXT : [{ type: "text", text: OPENCLAW_BLANK_USER_TEXT }];
    });
  },
};

function openclawResult(callLine: TranscriptLine, call: Json, context: TranscriptFixContext): Json {
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
      content: [{ type: "text", text: OPENCLAW_MISSING_RESULT }],
      isError: true,
      timestamp: message.timestamp,
    },
  };
}
