/**
 * A provider-free token estimate: opencode's own rule (util/token.ts: characters / 4) for text, and a flat cost
 * per image, since Anthropic bills an image by its pixels (about 1,600 tokens at the ~1.15 megapixel maximum),
 * not by its base64 size.
 */
import type { Block, Conversation } from "./conversation.js";

export const CHARS_PER_TOKEN = 4;
export const IMAGE_TOKENS = 1_600;

export function blockTokens(block: Block): number {
  if (block.type === "media") return block.mime.startsWith("image/") ? IMAGE_TOKENS : Math.ceil((block.chars * 0.75) / CHARS_PER_TOKEN);
  const extra = block.type === "tool_use" ? block.name.length : 0;
  if (block.type === "tool_result" && block.media) {
    // Media inside a result are billed like media anywhere else, not by the length of their data.
    let chars = block.chars;
    let media = 0;
    for (const item of block.media) {
      chars -= item.chars;
      media += item.mime.startsWith("image/") ? IMAGE_TOKENS : Math.ceil((item.chars * 0.75) / CHARS_PER_TOKEN);
    }
    return Math.ceil(Math.max(0, chars) / CHARS_PER_TOKEN) + media;
  }
  return Math.ceil((block.chars + extra) / CHARS_PER_TOKEN);
}

export function conversationTokens(conversation: Conversation): number {
  let total = 0;
  for (const message of conversation.messages) for (const block of message.blocks) total += blockTokens(block);
  return total;
}

/** UTF-8 bytes of what a block sends (media: its encoded data, counted in full), for a request byte budget. */
export function blockBytes(block: Block): number {
  return block.text !== undefined ? Buffer.byteLength(block.text) : block.chars;
}

export function conversationBytes(conversation: Conversation): number {
  let total = 0;
  for (const message of conversation.messages) for (const block of message.blocks) total += blockBytes(block);
  return total;
}
