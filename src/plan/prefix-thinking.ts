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
 * The first position of `after` from which its thinking is no longer what `before` bound: the first change of the
 * request outside thinking (thinking is not part of any block's prefix), or the first kept thinking block that breaks
 * the run (the kept blocks must be an unbroken run of the original ones: stripping from the start, from the end or all
 * of it is fine, leaving one out between others is not). Undefined when `after` only grew at the tail.
 */
export function firstChange(before: Conversation, after: Conversation): RequestPosition | undefined {
  const edited = firstEdit(before, after);
  const broken = runBreak(before, after);
  if (edited === undefined || broken === undefined) return edited ?? broken;
  return broken.message < edited.message || (broken.message === edited.message && broken.block < edited.block) ? broken : edited;
}

const isThinking = (b: Block): b is ThinkingBlock => b.type === "thinking";

/**
 * The first position at which the request `after` differs from `before`, thinking left out of the comparison (new
 * messages or blocks after everything `before` sent bind nothing: later thinking was made without them).
 */
function firstEdit(before: Conversation, after: Conversation): RequestPosition | undefined {
  for (let m = 0; m < before.messages.length; m++) {
    const was = before.messages[m]!.blocks.filter((b) => !isThinking(b));
    const message = after.messages[m];
    if (message === undefined || message.role !== before.messages[m]!.role) return { message: m, block: 0 };
    // Each block of `after` that is not thinking, with its place in the message.
    const now = message.blocks.flatMap((block, at) => (isThinking(block) ? [] : [{ block, at }]));
    for (let k = 0; k < was.length; k++) {
      const block = now[k];
      if (block === undefined) return { message: m, block: message.blocks.length };
      if (!sameBlock(was[k]!, block.block)) return { message: m, block: block.at };
    }
    // A block added at the end of a message that is followed by others is an edit of that message.
    if (now.length > was.length && m < before.messages.length - 1) return { message: m, block: now[was.length]!.at };
  }
  return undefined;
}

/** Which thinking block this is: its signature (a redacted block: its data), else its text. */
const identity = (b: ThinkingBlock) => b.signature ?? `text:${b.text ?? ""}`;

/**
 * The first thinking block of `after` that does not continue the run of `before`'s thinking that its first kept block
 * starts (one left out or moved before it). A block `before` did not have is new, made after it: it binds nothing.
 */
function runBreak(before: Conversation, after: Conversation): RequestPosition | undefined {
  const original = new Map(before.messages.flatMap((m) => m.blocks.filter(isThinking)).map((block, at) => [identity(block), at]));
  let next: number | undefined;
  for (let m = 0; m < after.messages.length; m++) {
    const blocks = after.messages[m]!.blocks;
    for (let b = 0; b < blocks.length; b++) {
      const block = blocks[b]!;
      const at = isThinking(block) ? original.get(identity(block)) : undefined;
      if (at === undefined) continue;
      if (next !== undefined && at !== next) return { message: m, block: b };
      next = at + 1;
    }
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
