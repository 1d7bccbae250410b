import { classifyProviderError } from "../provider/classify-error.js";
import { atBlock } from "./helpers.js";
import type { SessionView } from "../model/session-view.js";
import type { Report, Rule } from "./rule.js";

/**
 * Responses API: a `reasoning` item whose `encrypted_content` the API can no longer verify (`The encrypted content
 * gAAA...Vo== could not be verified.`, code `invalid_encrypted_content`; openai/codex#8119): every resume is
 * rejected while it is in the history. Offline nothing can verify it, so only the items the stored answer names
 * are reported (the API abbreviates the content to its first and last four characters); `--error` names them too,
 * and `--rule unverifiable-reasoning` with no answer stored takes every reasoning item.
 * The item is dropped, never re-signed; its call and output stay.
 */
export const unverifiableReasoning: Rule = {
  id: "unverifiable-reasoning",
  severity: "error",
  description:
    "reasoning or a compaction item whose encrypted_content the API could not verify, as the error the client stored says (`invalid_encrypted_content`)",
  fixedBy: "repair",
  apis: ["responses"],
  check(view, options) {
    const named = (view.storedErrors ?? []).flatMap((stored) => {
      const matches = unverifiedContent(stored.text);
      return matches ? [{ matches, stored }] : [];
    });
    if (named.length === 0) return options.requested?.has(this.id) ? everyReasoning(view) : [];
    const reports: Report[] = [];
    for (const { line, blocks } of view.transcript?.sent ?? []) {
      for (const block of blocks) {
        if (block.type !== "thinking" || block.signature === undefined) continue;
        const item = { content: block.signature, id: sealedItemId(line, block.source.field) };
        const by = named.find((n) => n.matches(item));
        if (by)
          reports.push(
            atBlock(
              block,
              `the API could not verify this ${block.redacted ? "compaction item" : "reasoning"}'s encrypted content (${by.stored.where} holds the API's answer): every resume is rejected until it goes`,
            ),
          );
      }
    }
    return reports;
  },
  fix(finding, context) {
    if (context.kind !== "lines") return [];
    const at = context.block(finding);
    return at ? context.dropBlock(at.line, at.index, DROPPED_REASONING) : [];
  },
};

/** Why the item went, wherever the drop is asked for (this rule, `--error`). */
export const DROPPED_REASONING =
  "dropped the reasoning the API could not verify (never re-signed; kept in the backup); its call and output stay; a compaction item goes with the summary it held of the history before it, which the model then no longer sees";

/** Asked for by name with no answer stored: offline no reasoning can be verified, so every item is offered. */
function everyReasoning(view: SessionView): Report[] {
  return view.conversation.messages.flatMap((m) =>
    m.blocks
      .filter((b) => b.type === "thinking" && b.signature !== undefined)
      .map((b) => ({
        ...atBlock(b, "asked for by --rule with no stored answer naming one: offline no reasoning can be verified, so every reasoning item goes"),
        severity: "warning" as const,
      })),
  );
}

/** A sent reasoning or compaction item as an answer may name it: by its encrypted content, or by its item id. */
export interface SealedItem {
  content: string;
  id?: string;
}

/**
 * What an `invalid_encrypted_content` answer names: `gAAA...Vo==` (first and last characters of the content) or the
 * whole content (`The encrypted content gAAA...Vo== could not be verified.`), or the item by its id
 * (`The encrypted content for item cmp_34....b7bd could not be verified. Reason: …`, openai/codex#35334: a compaction
 * item). Undefined when the text is no such answer; a matcher of every item when it names none.
 */
export function unverifiedContent(text: string): ((item: SealedItem) => boolean) | undefined {
  if (classifyProviderError(text).kind !== "reasoning_invalid") return undefined;
  const plain = text.replace(/\\"/g, '"');
  const byId = /encrypted content for item (\S+?) could not be verified/i.exec(plain);
  if (byId) {
    const named = abbreviated(byId[1]!);
    return (item) => item.id !== undefined && named(item.id);
  }
  const m = /encrypted content (\S+?) could not be verified/i.exec(plain);
  if (!m) return () => true;
  const named = abbreviated(m[1]!);
  return (item) => named(item.content);
}

/** `head...tail` (three dots or more: the API shortens ids with four) matches what starts and ends so; else exactly. */
function abbreviated(named: string): (value: string) => boolean {
  const dots = /\.{3,}/.exec(named);
  if (!dots) return (value) => value === named;
  const head = named.slice(0, dots.index);
  const tail = named.slice(dots.index + dots[0].length);
  return (value) => value.length >= head.length + tail.length && value.startsWith(head) && value.endsWith(tail);
}

/**
 * The item id of the line a block was sent from (`payload.id`: `rs_…`, `cmp_…`), or of the item of a compaction's
 * replacement history the block's `field` names (`payload.replacement_history.N`).
 */
export function sealedItemId(line: { value?: Record<string, unknown> } | undefined, field?: string): string | undefined {
  const record = (value: unknown) => (value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined);
  const payload = record(line?.value?.payload);
  const nested = /^payload\.replacement_history\.(\d+)/.exec(field ?? "");
  const history = payload?.replacement_history;
  const item = nested ? (Array.isArray(history) ? record(history[Number(nested[1])]) : undefined) : payload;
  return typeof item?.id === "string" ? item.id : undefined;
}
