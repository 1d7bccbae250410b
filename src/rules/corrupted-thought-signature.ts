import type { Block } from "../model/conversation.js";
import { type Edit, isObject, type Json } from "../model/edit.js";
import type { LineFixContext } from "../model/fix-context.js";
import type { SessionView } from "../model/session-view.js";
import type { TranscriptLine } from "../model/transcript.js";
import { atBlock } from "./helpers.js";
import type { Rule } from "./rule.js";

/**
 * Gemini CLI: a part the client sends on resume that carries a stored `thoughtSignature` the API refuses
 * (`Corrupted thought signature.`, 400 INVALID_ARGUMENT; google-gemini/gemini-cli#13467). The first-written records
 * hold no signature; a history the client rewrites while it runs (a compression, a rollback) is stored in
 * `$set.messages` with the live parts, signatures and all, and a resume replays them verbatim. A signature issued for
 * another model or account is refused, and so is every later resume. Offline nothing can tell a good signature from
 * a bad one, so the rule reports only what the API's answer asks for (`--error`) or `--rule` names. The fix drops the
 * field and keeps the part (a signature is never made up or altered): what the client itself does to its history when
 * the account changes (`stripThoughtsFromHistory`), and it signs the calls of the current turn itself
 * (`skip_thought_signature_validator`, docs/research/gemini-signatures.md).
 */
export const corruptedThoughtSignature: Rule = {
  id: "corrupted-thought-signature",
  severity: "error",
  description: "a stored thoughtSignature the Gemini API refused (`Corrupted thought signature.`), replayed on every resume",
  fixedBy: "repair",
  apis: ["gemini"],
  check(view, options) {
    if (!options.requested?.has(this.id)) return [];
    return signedBlocks(view).map((block) => ({
      ...atBlock(
        block,
        "asked for by --rule: this part carries a stored thoughtSignature, which offline nothing can verify; the signature goes, the part stays",
      ),
      severity: "warning" as const,
    }));
  },
  fix(finding, context) {
    if (context.kind !== "lines") return [];
    const at = context.block(finding);
    return at ? dropSignature(context, at.line, at.index) : [];
  },
};

/** Why the signature went, wherever the drop is asked for (this rule, `--error`). */
export const DROPPED_SIGNATURE =
  "dropped the stored thoughtSignature the API refused (kept in the backup, never re-signed); the part stays, and Gemini CLI signs the calls of the current turn itself";

/** The sent blocks whose part in the stored line carries a `thoughtSignature`. */
export function signedBlocks(view: SessionView): Block[] {
  const blocks: Block[] = [];
  for (const entry of view.transcript?.sent ?? []) {
    for (const block of entry.blocks) {
      const field = block.source.field;
      if (field !== undefined && typeof valueAt(entry.line.value, field)?.thoughtSignature === "string") blocks.push(block);
    }
  }
  return blocks;
}

/** Drop `thoughtSignature` from the part that block `index` of `line` sends; nothing when it holds none. */
export function dropSignature(context: LineFixContext, line: TranscriptLine, index: number): Edit[] {
  const field = context.fieldOf(line, index);
  if (field === undefined || typeof valueAt(line.value, field)?.thoughtSignature !== "string") return [];
  return context.update(line, DROPPED_SIGNATURE, (value) => {
    delete valueAt(value, field)!.thoughtSignature;
  });
}

/** The object at a dotted path (`$set.messages.3.content.2`) inside a line's value. */
function valueAt(root: Json | undefined, field: string): Json | undefined {
  let at: unknown = root;
  for (const key of field.split(".")) {
    if (Array.isArray(at)) at = at[Number(key)];
    else if (isObject(at)) at = at[key];
    else return undefined;
  }
  return isObject(at) ? (at as Json) : undefined;
}
