import { readableParts } from "../../model/opencode-records.js";
import { contentOf } from "../../model/transcript.js";
import { at, atBlock, plural } from "../helpers.js";
import type { Rule } from "../rule.js";
import { asFarAsNeeded, trimPass, type Candidate } from "./budget.js";

const PLACEHOLDER = "[image removed to fit the provider's request size limit; it is kept in recover's backup]";

/**
 * Byte budgets only (HTTP 413): an image travels as its whole encoded data, so the largest images go first. The
 * file part becomes a short synthetic text saying so (the message keeps content; the image is in the backup).
 */
export const dropImages: Rule = {
  id: "drop-images",
  severity: "warning",
  description: "context trim, byte budget: the largest attached images give way to a short note (kept in the backup)",
  fixedBy: "trim",
  independentFixes: true,
  check(view, options, earlier) {
    const pass = trimPass(this.id, view, options, earlier);
    if (!pass || pass.trim.maxBytes === undefined) return [];
    const { keep, sent } = pass;
    const candidates: Candidate[] = [];
    for (const { line, role, blocks } of view.transcript?.sent ?? []) {
      if (keep.has(line.ref.id) || role !== "user") continue;
      for (const block of blocks) {
        if (block.type !== "media" || !block.mime.startsWith("image/")) continue;
        candidates.push({
          report: atBlock(block, `${block.mime} image of ${plural(block.chars, "byte")}: replace it with a note`),
          saves: { tokens: 0, bytes: block.chars - PLACEHOLDER.length },
        });
      }
    }
    for (const message of view.opencode?.messages ?? []) {
      if (keep.has(message.ref.id) || !sent.has(message.ref.id) || message.info?.role !== "user") continue;
      for (const { record, part } of readableParts(message)) {
        const mime = (part as { mime?: string }).mime ?? "";
        if (part.type !== "file" || !mime.startsWith("image/")) continue;
        const bytes = (record.content.urlChars ?? 0) - PLACEHOLDER.length;
        candidates.push({
          report: at(record, `${mime} image of ${plural(record.content.urlChars ?? 0, "byte")}: replace it with a note`),
          saves: { tokens: 0, bytes },
        });
      }
    }
    candidates.sort((a, b) => b.saves.bytes - a.saves.bytes);
    return asFarAsNeeded(candidates, pass.deficit, pass.trim.calibration);
  },
  /** The image block of the prompt gives way to a text block in the same place (the prompt keeps its other content). */
  fix(finding, context) {
    if (context.kind === "lines") {
      const at = context.block(finding);
      if (!at) return [];
      return context.update(at.line, "replaced the image with a note to fit the request size limit (the image is in the backup)", (value) => {
        const content = contentOf(value);
        if (Array.isArray(content)) content[at.index] = { type: "text", text: PLACEHOLDER };
      });
    }
    const part = context.part(finding.partId);
    if (!part) return [];
    return context.replace(
      part,
      { type: "text", text: PLACEHOLDER, synthetic: true },
      "replaced the image with a note to fit the request size limit (the image is in the backup)",
    );
  },
};
