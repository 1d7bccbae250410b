import type { Block, MediaItem } from "../../model/conversation.js";
import { IMAGE_TOKENS, CHARS_PER_TOKEN } from "../../model/tokens.js";
import { atBlock } from "../helpers.js";
import type { Candidate, StrategyInput, TrimStrategy } from "./budget.js";
import { imageFault, sizeAsSent, unsendableFault, type Dimensions } from "./image-limits.js";
import { recordKey, regionOf, type Layout } from "./layout.js";
import { plural } from "../../model/format-count.js";

const NOTE = "[image removed to fit the provider's limits; it is kept in recover's backup]";

/** An image or document of the request: a block of a prompt, or an item of a tool result's content. */
interface Medium {
  block: Block;
  data?: string;
  item?: MediaItem;
  mime: string;
  chars: number;
  step: number;
  size?: Dimensions;
  reencoded?: true;
  /** Left out of the request by the client itself (its text in the request): see `withheld`. */
  withheld?: string;
}

/** `fitTo`: the client scales each image to fit this many pixels a side (then re-encodes it) before sending it. */
function media(layout: Layout, fitTo?: number): Medium[] {
  const found: Medium[] = [];
  const sizedAsSent = (mime: string, data: string | undefined) => sizeAsSent(mime, data, fitTo);
  const add = (blocks: readonly Block[], step: number) => {
    for (const block of blocks) {
      if (block.type === "media") found.push({ block, data: block.data, mime: block.mime, chars: block.chars, step, ...sizedAsSent(block.mime, block.data) });
      if (block.type === "tool_result")
        for (const item of block.media ?? [])
          found.push({ block, item, data: item.data, mime: item.mime, chars: item.chars, step, ...sizedAsSent(item.mime, item.data) });
    }
  };
  for (const turn of layout.turns) {
    add(turn.prompt, turn.steps[0]?.index ?? 0);
    for (const step of turn.steps) add(step.blocks, step.index);
  }
  return found;
}

/**
 * The media the client leaves out of the request by itself (Claude Code's media budget): not sent now, but sent
 * again once the history holds less, so a byte budget counts them (budget.ts withheldBytes). They go first: the model
 * does not see them in this request anyway. Their step: the step of their record in the request, else the first.
 */
function withheld(view: StrategyInput["view"], layout: Layout): Medium[] {
  const stepOf = new Map<string, number>();
  for (const step of layout.steps) for (const block of step.blocks) stepOf.set(recordKey(block.source), step.index);
  return (view.conversation.withheld ?? []).map((w) => {
    const data = w.item ? w.item.data : w.block.type === "media" ? w.block.data : undefined;
    const mime = w.item ? w.item.mime : w.block.type === "media" ? w.block.mime : "application/octet-stream";
    const chars = w.item ? w.item.chars : w.block.chars;
    return { block: w.block, data, mime, chars, step: stepOf.get(recordKey(w.block.source)) ?? 0, withheld: w.why, ...(w.item ? { item: w.item } : {}) };
  });
}

/**
 * Strategy, first: images and base64 documents give way to a short note, the largest first. The images that break
 * one of the API's hard image rules go whatever the budget (oldest first, and in a request of more than 20 images
 * only until 20 are left or none is too large), outside the intact part. A medium the API refuses by itself (its data
 * over the 32 MB request limit, a PDF over 100 pages) goes whatever the budget and wherever it is, the intact part
 * included: while it is in the request no request of the session is accepted (issue 40: a 35 MB PDF attached to
 * the prompt opencode 1.18.33 then sends on every resume, docs/research/opencode-attachments.md).
 */
export const dropImages: TrimStrategy = {
  id: "drop-images",
  name: "drop-images",
  description: "context trim: images and documents give way to a short note (kept in the backup); first those the API refuses",
  independent: true,
  candidates({ layout, view, trim }) {
    const all = media(layout, view.copes?.imagesFitTo);
    const images = all.filter((m) => m.mime.startsWith("image/"));
    const required = new Set<Medium>();
    let count = images.length;
    for (const image of images) {
      const fault = imageFault(image, count);
      if (!fault || regionOf(layout, recordKey(image.block.source)) === "intact") continue;
      required.add(image);
      count--;
    }
    const unsendable = new Map<Medium, string>();
    for (const m of all) {
      const fault = unsendableFault(m);
      if (fault) unsendable.set(m, fault);
    }
    // Only a byte budget counts them (a token estimate is of the request as sent).
    const aside = trim.maxBytes !== undefined ? withheld(view, layout) : [];
    const candidates = [...all, ...aside].map((m): Candidate => {
      const saves = {
        tokens: m.mime.startsWith("image/") ? IMAGE_TOKENS : Math.ceil((m.chars * 0.75) / CHARS_PER_TOKEN),
        bytes: Math.max(0, m.chars - NOTE.length),
      };
      const what = `${m.mime} ${m.size ? `${m.size.width}×${m.size.height} px, ` : ""}${plural(m.chars, "byte")}${
        m.withheld ? ` (the client leaves it out of this request by itself, and sends it again once the history holds less)` : ""
      }`;
      const alone = unsendable.get(m);
      const fault = alone ?? (required.has(m) ? imageFault(m, images.length) : undefined);
      const report = atBlock(m.block, fault ? `${what}: ${fault}, replace it with a note` : `${what}: replace it with a note`);
      if (m.item) report.item = m.item.index;
      return {
        key: recordKey(m.block.source),
        step: m.step,
        report,
        saves,
        ...(fault ? { required: true as const } : {}),
        ...(alone ? { unsendable: true as const } : {}),
      };
    });
    // The media the client leaves out go first (oldest first, as it drops them); then the largest.
    const first = new Set(candidates.slice(all.length));
    return candidates.sort((a, b) => Number(first.has(b)) - Number(first.has(a)) || (first.has(a) ? 0 : b.saves.bytes - a.saves.bytes));
  },
  fix(finding, context) {
    return context.replaceMedia(finding, NOTE, "replaced the image with a note to fit the provider's limits (the image is in the backup)", finding.item);
  },
};
