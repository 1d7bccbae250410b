import type { Block, ThinkingBlock } from "../model/conversation.js";
import type { Json } from "../model/edit.js";
import type { SessionView } from "../model/session-view.js";
import { parseBlockId } from "../model/transcript.js";
import { atBlock, isExempt } from "./helpers.js";
import type { Report, Rule } from "./rule.js";

/**
 * The same thinking block stored more than once in one assistant message (openclaw duplicated one block ~50 times,
 * openclaw#107221): the API sees the latest message's thinking changed (`… cannot be modified`). The first copy is
 * what the model sent; the repeats go, verbatim in the backup.
 *
 * A block is known by its signature (a redacted block by its encrypted data): a copy carries the same one, and two
 * blocks the model sent never do, even with the same text (openclaw gives every redacted block one placeholder
 * text). The signature also survives a scan's lean load, which drops long texts. Unsigned blocks are compared by
 * their text, when the load kept it.
 */
function identity(block: ThinkingBlock): string | undefined {
  if (block.signature !== undefined) return `s:${block.signature}`;
  return block.text !== undefined && !block.redacted ? `t:${block.text}` : undefined;
}

/** Each repeated thinking block of the view, with the block it repeats. */
function repeats(view: SessionView): { block: ThinkingBlock; first: ThinkingBlock }[] {
  const found: { block: ThinkingBlock; first: ThinkingBlock }[] = [];
  for (const message of view.conversation.messages) {
    // A repeat needs two thinking blocks; most messages hold one at most, and their keys are long to hash.
    if (message.role !== "assistant" || !holdsTwoThinkingBlocks(message.blocks)) continue;
    const seen = new Map<string, ThinkingBlock>();
    for (const block of message.blocks) {
      if (block.type !== "thinking" || isExempt(view, block.source.messageId)) continue;
      const key = identity(block);
      if (key === undefined) continue;
      const first = seen.get(key);
      if (first === undefined) seen.set(key, block);
      else found.push({ block, first });
    }
  }
  return found;
}

function holdsTwoThinkingBlocks(blocks: readonly Block[]): boolean {
  let thinking = 0;
  for (const block of blocks) if (block.type === "thinking" && ++thinking === 2) return true;
  return false;
}

const REASON = "removed a repeated copy of a thinking block (the first copy stays; the repeat is in the backup)";

export const duplicateThinking: Rule = {
  id: "duplicate-thinking",
  severity: "error",
  description: "the same thinking block repeated in one assistant message (provider: `thinking … blocks … cannot be modified`)",
  fixedBy: "repair",
  apis: ["anthropic"],
  check(view) {
    return repeats(view).map(
      ({ block, first }): Report =>
        atBlock(
          block,
          `thinking block repeats ${first.source.id} (the same ${first.signature !== undefined ? "signature" : "text"}) in the same message (the provider sees the message's thinking changed)`,
        ),
    );
  },
  independentFixes: true,
  fix(finding, context) {
    // opencode: each repeat is a part of its own, so each goes by itself.
    if (context.kind === "records") return context.dropThinking(finding, REASON);
    // A transcript line can hold many repeats (openclaw: the whole message): they all go in one edit of the line,
    // since a planning pass allows one fix per line.
    const at = context.block(finding);
    if (!at) return [];
    const inLine = repeats(context.view)
      .map((r) => r.block)
      .filter((b: Block) => b.source.messageId === at.line.ref.id)
      .map((b) => parseBlockId(b.source.id)?.index)
      .filter((i): i is number => i !== undefined);
    const sent = context.history.sent.find((s) => s.line === at.line);
    if (!sent || inLine.length >= sent.blocks.length) return context.dropThinking(finding, REASON);
    const drop = new Set(inLine);
    return context.update(at.line, `${REASON}${drop.size > 1 ? ` (${drop.size} copies)` : ""}`, (value) => {
      const message = value.message as Json;
      message.content = (message.content as Json[]).filter((_, i) => !drop.has(i));
    });
  },
};
