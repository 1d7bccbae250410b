/**
 * Keeping the prefix (issue 36). On the newest Claude models each thinking block is bound to everything before it in
 * the request; change anything there and that block and every later one fail (``The block is bound to a different
 * conversation.``). So once the planner's fixes settle, it compares the request the client will send before and after
 * them (the provider view: an edit the client's renderer hides changes nothing), finds the first position that
 * differs, and every prefix-bound thinking block at or after it must go too; the earlier ones stay, an unbroken run
 * (../shared/reference/preserved-thinking.md §2, §6).
 */
import type { Block, Conversation, ThinkingBlock } from "../model/conversation.js";
import { isPrefixBound } from "../provider/prefix-bound.js";

/** A place in the request: message `message`, block `block` of it. */
export interface RequestPosition {
  message: number;
  block: number;
}

/** Why the extra drops are in the plan, in the words the diff and the summary use. */
export const BOUND_THINKING_REASON = "later thinking is bound to the text this repair changes";
/** The id the drops are reported under, beside the rules whose fixes made them necessary. */
export const BOUND_THINKING_ID = "prefix-bound-thinking";

/** Two blocks send the same thing: every value the request carries for them (never the handle to the record). */
function sameBlock(a: Block, b: Block): boolean {
  if (a.type !== b.type || a.chars !== b.chars || a.text !== b.text) return false;
  switch (a.type) {
    case "text":
      return a.blank === (b as typeof a).blank;
    case "thinking": {
      const t = b as ThinkingBlock;
      return a.signed === t.signed && a.redacted === t.redacted && a.signature === t.signature;
    }
    case "tool_use": {
      const t = b as typeof a;
      return a.id === t.id && a.name === t.name && JSON.stringify(a.input) === JSON.stringify(t.input);
    }
    case "tool_result": {
      const t = b as typeof a;
      return a.toolUseId === t.toolUseId && a.isError === t.isError && JSON.stringify(a.media) === JSON.stringify(t.media);
    }
    case "media":
      return a.mime === (b as typeof a).mime && a.data === (b as typeof a).data;
  }
}

/**
 * The first position at which the request `after` differs from `before`, or undefined when it only grew at the tail
 * (new messages or blocks after everything `before` sent bind nothing: later thinking was made without them).
 */
export function firstChange(before: Conversation, after: Conversation): RequestPosition | undefined {
  for (let m = 0; m < before.messages.length; m++) {
    const was = before.messages[m]!;
    const now = after.messages[m];
    if (now === undefined) return { message: m, block: 0 };
    if (now.role !== was.role) return { message: m, block: 0 };
    for (let b = 0; b < was.blocks.length; b++) {
      const block = now.blocks[b];
      if (block === undefined || !sameBlock(was.blocks[b]!, block)) return { message: m, block: b };
    }
    // A block added at the end of a message that is followed by others is an edit of that message.
    if (now.blocks.length > was.blocks.length && m < before.messages.length - 1) return { message: m, block: was.blocks.length };
  }
  return undefined;
}

/** The prefix-bound thinking blocks of `conversation` at or after `from`, in request order. */
export function boundThinkingFrom(conversation: Conversation, from: RequestPosition | undefined): ThinkingBlock[] {
  if (from === undefined) return [];
  const found: ThinkingBlock[] = [];
  conversation.messages.forEach((message, m) => {
    if (m < from.message) return;
    message.blocks.forEach((block, b) => {
      if (m === from.message && b < from.block) return;
      if (block.type === "thinking" && isPrefixBound(block.model)) found.push(block);
    });
  });
  return found;
}
