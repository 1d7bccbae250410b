/**
 * Where Claude Code and pi (openclaw) keep a line's blocks: at `message.content`, except pi's toolResult message,
 * which is one block itself. The fix context edits blocks through its format's LineShape; this is the one these two
 * formats share (Codex and Gemini bring their own).
 */
import { isObject, type Json } from "../../model/edit.js";
import { contentOf } from "../../model/transcript.js";

/**
 * How a format's line holds its blocks: the edits a fix makes to one block, on a copy of the line's value. `field`
 * is where the block sits in the value, as its handle names it.
 */
export interface LineShape {
  content(value: Json): unknown[] | undefined;
  /** The tool call at block `index`, as stored. */
  call(value: Json, index: number, field?: string): Json | undefined;
  rewriteResult(value: Json, index: number, rewrite: (text: string) => string, field?: string): void;
  emptyInput(value: Json, index: number, field?: string): void;
  /** The call id of the call or result at block `index`. */
  setCallId(value: Json, index: number, id: string, field?: string): void;
  /** Block `index` (or item `item` inside a result) becomes text `note`. */
  replaceMedia(value: Json, index: number, note: string, item?: number, field?: string): void;
}

const messageOf = (value: Json): Json => value.message as Json;

export const MESSAGE_CONTENT_SHAPE: LineShape = {
  content: (value) => {
    const content = contentOf(value);
    return Array.isArray(content) ? content : undefined;
  },
  call(value, index) {
    const content = messageOf(value)?.content;
    const call = Array.isArray(content) ? content[index] : undefined;
    return isObject(call) ? call : undefined;
  },
  /** Claude Code: a `tool_result` block's content; pi: the toolResult message's content. Only text content is rewritten. */
  rewriteResult(value, index, rewrite) {
    const message = messageOf(value);
    if (message.role === "toolResult") {
      message.content = [{ type: "text", text: rewrite(joinedText(message.content)) }];
      return;
    }
    const block = (message.content as Json[])[index];
    if (isObject(block))
      block.content = typeof block.content === "string" ? rewrite(block.content) : [{ type: "text", text: rewrite(joinedText(block.content)) }];
  },
  /** Claude Code keeps a call's input at `input`, pi at `arguments`. */
  emptyInput(value, index) {
    const block = (contentOf(value) as Json[] | undefined)?.[index];
    if (!isObject(block)) return;
    if ("arguments" in block) block.arguments = {};
    else block.input = {};
  },
  /** A call's `id`; a result's `tool_use_id` (Claude Code) or the toolResult message's `toolCallId` (pi). */
  setCallId(value, index, id) {
    const message = messageOf(value);
    if (message.role === "toolResult") {
      message.toolCallId = id;
      return;
    }
    const block = (message.content as Json[])[index] as Json;
    if (block.type === "tool_result") block.tool_use_id = id;
    else block.id = id;
  },
  replaceMedia(value, index, note, item) {
    const text = { type: "text", text: note };
    const message = messageOf(value);
    if (message.role === "toolResult") {
      if (item !== undefined && Array.isArray(message.content)) message.content[item] = text;
      return;
    }
    const content = contentOf(value);
    if (!Array.isArray(content)) return;
    const block = content[index];
    if (item === undefined) content[index] = text;
    else if (isObject(block) && Array.isArray(block.content)) block.content[item] = text;
  },
};

function joinedText(content: unknown): string {
  return Array.isArray(content) ? content.map((c) => (isObject(c) && typeof c.text === "string" ? c.text : "")).join("\n") : String(content ?? "");
}
