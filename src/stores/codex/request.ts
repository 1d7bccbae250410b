/**
 * The `input` Codex CLI 0.169 sends when it resumes a rollout, built the way the client builds it (measured:
 * docs/research/codex-request.md): its base instructions as a developer message, then every `response_item` line
 * that parses, in file order, without the client's own passthrough field; a call with no output gets the `aborted`
 * output right after it, an output with no call is dropped, and an output over 12,000 tokens is cut to its first and
 * last 24,000 characters. After a compaction, the items of the last `compacted` line's `replacement_history` take the
 * place of every item before it. The new prompt is not part of it.
 */
import type { TranscriptLine } from "../../model/transcript.js";
import { obj, str } from "../transcript/dialect.js";
import { CALL_TYPES, CODEX_ABORTED_OUTPUT, OUTPUT_TYPES, replacementHistory } from "./dialect.js";

/** A Responses API `input` item, as the client sends it. */
export type ResponsesItem = Record<string, unknown>;

/** An input item and the rollout line it came from (none: the client made it). */
export interface SentItem {
  item: ResponsesItem;
  line?: number;
}

/** Outputs over this many characters are cut at resume (12,000 tokens at 4 characters each). */
const RESUME_CUT_CHARS = 48_000;
const KEEP_CHARS = 24_000;

export function codexResumeInput(lines: readonly TranscriptLine[]): SentItem[] {
  const meta = lines.find((l) => l.value?.type === "session_meta");
  const instructions = str(obj(obj(meta?.value?.payload)?.base_instructions)?.text);
  const items: SentItem[] = [];
  if (instructions !== undefined) items.push({ item: { type: "message", role: "developer", content: [{ type: "input_text", text: instructions }] } });
  const stored: SentItem[] = [];
  // After a compaction, its replacement history stands for every item before it (fixtures/codex-0.169/compacted).
  let from = 0;
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    const history = replacementHistory(line);
    if (!history) continue;
    for (const entry of history) {
      const payload = obj(entry);
      if (payload) stored.push({ item: withoutPassthrough(payload), line: line.ref.line });
    }
    from = i + 1;
    break;
  }
  for (const line of lines.slice(from)) {
    const payload = obj(line.value?.payload);
    // A line holding a lone surrogate Codex cannot read (its JSON reader refuses it) and skips, as a torn one (0.169.0
    // and 0.171.0, measured: scenario output-surrogate; its call is then answered "aborted").
    if (line.value?.type !== "response_item" || !payload || line.problem || line.corruption?.kind === "lone-surrogate") continue;
    stored.push({ item: withoutPassthrough(payload), line: line.ref.line });
  }
  const outputs = new Set(stored.filter((s) => OUTPUT_TYPES.has(String(s.item.type))).map((s) => String(s.item.call_id)));
  const calls = new Set(stored.filter((s) => CALL_TYPES.has(String(s.item.type))).map((s) => String(s.item.call_id)));
  for (const sent of stored) {
    const type = String(sent.item.type);
    if (OUTPUT_TYPES.has(type) && !calls.has(String(sent.item.call_id))) continue;
    items.push(OUTPUT_TYPES.has(type) ? { ...sent, item: cutOutput(sent.item) } : sent);
    if (CALL_TYPES.has(type) && !outputs.has(String(sent.item.call_id))) {
      const outputType = type === "custom_tool_call" ? "custom_tool_call_output" : "function_call_output";
      items.push({ item: { type: outputType, call_id: sent.item.call_id, output: CODEX_ABORTED_OUTPUT } });
    }
  }
  return items;
}

function withoutPassthrough(payload: Record<string, unknown>): ResponsesItem {
  const { internal_chat_message_metadata_passthrough: _passthrough, ...item } = payload;
  return item;
}

function cutOutput(item: ResponsesItem): ResponsesItem {
  const output = item.output;
  if (typeof output !== "string" || output.length <= RESUME_CUT_CHARS) return item;
  const removed = output.length - 2 * KEEP_CHARS;
  return { ...item, output: `${output.slice(0, KEEP_CHARS)}…${Math.round(removed / 4)} tokens truncated…${output.slice(-KEEP_CHARS)}` };
}
