/**
 * The provider view: the `messages` array of the Anthropic request the agent would send, built from the
 * conversation view, with every block keeping its handle to the stored record. So `messages.N.content.M` in an
 * error maps back to (message, part). `system` is a separate request field and never shifts N; skipped messages
 * (no parts, errored turns, history before a compaction) and merged ones are what make N differ from the stored
 * message count.
 *
 * Reasoning is sent only with the signature (or redacted data) it came with: the AI SDK drops a reasoning part
 * without that metadata ("unsupported reasoning metadata"), and opencode omits the metadata for reasoning from
 * another model, so unsigned reasoning never reaches the API.
 */
import { carried } from "../model/carried.js";
import type { Block, Conversation, Handle } from "../model/conversation.js";

export type RequestBlockType = "text" | "thinking" | "redacted_thinking" | "tool_use" | "tool_result" | "image" | "document";

export interface RequestBlock {
  type: RequestBlockType;
  source: Handle;
  chars: number;
  /** Text and thinking blocks: empty or whitespace only. */
  blank?: boolean;
  /** tool_use: its id; tool_result: the id it answers. */
  id?: string;
  isError?: boolean;
  /** Thinking: the model that produced it (does it think adaptively? provider/prefix-bound.ts). */
  model?: string;
}

export interface RequestMessage {
  /** `system`: a system turn inside `messages` (Claude Code sends its reminders so on current models). */
  role: "user" | "assistant" | "system";
  content: RequestBlock[];
  /** Stored messages whose content is in this request message. */
  sourceMessageIds: string[];
}

export interface AnthropicRequest {
  messages: RequestMessage[];
}

function requestBlock(block: Block): RequestBlock | undefined {
  switch (block.type) {
    case "text":
      return { type: "text", source: block.source, chars: block.chars, blank: block.blank };
    case "thinking":
      if (!block.signed) return undefined;
      if (block.redacted) return { type: "redacted_thinking", source: block.source, chars: block.chars, ...(block.model ? { model: block.model } : {}) };
      return { type: "thinking", source: block.source, chars: block.chars, blank: block.blank === true, ...(block.model ? { model: block.model } : {}) };
    case "tool_use":
      return { type: "tool_use", source: block.source, chars: block.chars, id: block.id };
    case "tool_result":
      return { type: "tool_result", source: block.source, chars: block.chars, id: block.toolUseId, isError: block.isError };
    case "media":
      return { type: block.mime.startsWith("image/") ? "image" : "document", source: block.source, chars: block.chars };
  }
}

/**
 * Each conversation's request, built once and kept on the conversation (model/carried.ts): a scan asks for it in
 * several rules, the planner in its self-check again. Callers read the request and never change it.
 */
const REQUEST = Symbol("request");

export function anthropicRequest(conversation: Conversation): AnthropicRequest {
  return carried(conversation, REQUEST, () => ({
    messages: conversation.messages.map((message) => ({
      role: message.role,
      content: message.blocks.map(requestBlock).filter((b): b is RequestBlock => b !== undefined),
      sourceMessageIds: message.sourceMessageIds,
    })),
  }));
}

/** Where `messages.N[.content.M]` points: the stored messages of request message N and, with M, the block's record. */
export interface RequestPosition {
  index: number;
  message: RequestMessage;
  block?: RequestBlock;
}

export function locate(request: AnthropicRequest, index: number | null, contentIndex: number | null): RequestPosition | undefined {
  if (index === null) return undefined;
  const message = request.messages[index];
  if (!message) return undefined;
  const block = contentIndex === null ? undefined : message.content[contentIndex];
  return { index, message, ...(block ? { block } : {}) };
}
