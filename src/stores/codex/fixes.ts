/**
 * What Codex CLI writes itself where a fix needs it: a `function_call_output` line for an aborted call (the
 * `aborted` text it sends at resume, with an `fco_<uuidv7>` id as it gives every output it stores), and where its
 * items keep their blocks (`payload.content`, `payload.output`, `payload.arguments`).
 */
import { v7 as uuidv7 } from "uuid";
import { randomBase62 } from "../opencode/ids.js";
import { isObject, type Json } from "../../model/edit.js";
import type { TranscriptLine } from "../../model/transcript.js";
import type { LineShape } from "../transcript/content-shape.js";
import type { AgentFixes } from "../transcript/fixing.js";
import { CODEX_ABORTED_OUTPUT } from "./dialect.js";

const payloadOf = (value: Json): Json | undefined => (isObject(value.payload) ? value.payload : undefined);

const codexShape: LineShape = {
  content(value) {
    const item = payloadOf(value);
    return item?.type === "message" && Array.isArray(item.content) ? item.content : undefined;
  },
  call: (value) => payloadOf(value),
  setCallId(value, _index, id) {
    const item = payloadOf(value);
    if (item) item.call_id = id;
  },
  rewriteResult(value, _index, rewrite) {
    const item = payloadOf(value);
    if (!item) return;
    item.output = rewrite(outputText(item.output));
  },
  emptyInput(value) {
    const item = payloadOf(value);
    if (!item) return;
    if (typeof item.arguments === "string") item.arguments = "{}";
    else if (typeof item.input === "string") item.input = "";
  },
  replaceMedia(value, index, note, item) {
    const payload = payloadOf(value);
    const text = { type: "input_text", text: note };
    if (item !== undefined && Array.isArray(payload?.output)) payload.output[item] = text;
    else if (item === undefined && Array.isArray(payload?.content)) payload.content[index] = text;
  },
};

export const codexFixes: AgentFixes = {
  freshId: () => `fco_${uuidv7()}`,
  closeInterruptedCall(context, line, _index, call) {
    const callId = typeof call.call_id === "string" ? call.call_id : "";
    const id = context.freshId();
    const output: Json = {
      timestamp: line.value?.timestamp ?? new Date(context.now).toISOString(),
      ...lastOrdinal(context.history.records.lines, line),
      type: "response_item",
      payload: { type: outputTypeOf(call), id, call_id: callId, output: CODEX_ABORTED_OUTPUT },
    };
    return context.insertAfter(line, output, `gave the interrupted call the "${CODEX_ABORTED_OUTPUT}" output Codex itself sends for it on resume`, id);
  },
  shape: codexShape,
  /**
   * A block of an item in a compaction's `replacement_history` goes from that list (the item whole, or one part of a
   * message of several); the compacted line stays. Elsewhere as every transcript: a message's part, or the line.
   */
  dropBlock(context, line, index, field, reason) {
    const nested = /^payload\.replacement_history\.(\d+)(?:\.content\.(\d+))?/.exec(field ?? "");
    if (nested) {
      const k = Number(nested[1]);
      return context.update(line, reason, (value) => {
        const payload = payloadOf(value);
        const history = payload?.replacement_history;
        if (!Array.isArray(history)) return;
        const content = (history[k] as Json | undefined)?.content;
        if (nested[2] !== undefined && Array.isArray(content) && content.length > 1) return void content.splice(Number(nested[2]), 1);
        // Its entry in the metadata goes with it: Codex passes over a compaction whose two lists differ in length.
        const metadata = payload?.replacement_history_metadata;
        if (Array.isArray(metadata) && metadata.length === history.length) metadata.splice(k, 1);
        history.splice(k, 1);
      });
    }
    const content = line.value ? codexShape.content(line.value) : undefined;
    if (!Array.isArray(content) || content.length <= 1) return context.deleteLine(line, reason);
    return context.update(line, reason, (value) => {
      (codexShape.content(value) as unknown[]).splice(index, 1);
    });
  },
  /** The Responses API's call ids: `call_` and 24 letters and digits. */
  freshCallId: (old) => (old?.startsWith("call_") || !old ? `call_${randomBase62(24)}` : `${old}_${randomBase62(8)}`),
};

/**
 * The ordinal of a line inserted after `anchor`: none in the middle of the rollout (Codex resumes such a line and its
 * thread-history projection skips it), but the next number when it becomes the last record of a numbered rollout,
 * where Codex refuses a record without one (`final paginated rollout record … is missing an ordinal`, rule
 * rollout-ordinal).
 */
function lastOrdinal(lines: readonly TranscriptLine[], anchor: TranscriptLine): { ordinal?: number } {
  if (typeof anchor.value?.ordinal !== "number") return {};
  if (lines.some((l) => l.ref.line > anchor.ref.line && l.value !== undefined)) return {};
  const highest = lines.reduce((max, l) => (typeof l.value?.ordinal === "number" ? Math.max(max, l.value.ordinal) : max), -1);
  return { ordinal: highest + 1 };
}

function outputTypeOf(call: Json): string {
  return call.type === "custom_tool_call" ? "custom_tool_call_output" : "function_call_output";
}

function outputText(output: unknown): string {
  if (typeof output === "string") return output;
  if (!Array.isArray(output)) return JSON.stringify(output ?? "");
  return output.map((part) => (isObject(part) && typeof part.text === "string" ? part.text : "")).join("\n");
}
