/**
 * Claude Code's own media budget (issue 40 rows 12 and 17; docs/research/claude-code-media-budget.md): right before
 * it sends a request, the client drops the oldest images and documents when the request holds more than 100 of them
 * (600 on a model with a native 1M window) or more base64 than its byte cap, so a session that stores more is sent
 * with less. recover's view is what is sent, so its size checks (the byte budget of a 413, the image rules of
 * drop-images, the token estimate) judge that request; what the client leaves out is kept aside (`withheld`), because
 * it comes back into the request as soon as the history holds less.
 *
 * Read from the client's code and measured offline (scenarios media-count, media-bytes-413,
 * media-bytes-first-party):
 * - 2.1.197 (`$lm`): it counts every image and document, at the top of a message and inside a tool result; bytes are
 *   the base64 data's length (a URL source counts 0). Over the count it drops the excess plus 20 (105 → 80); over
 *   the byte cap (78,643,200) the excess plus 10,485,760, only media with bytes. Message by message, the media inside
 *   tool results first, then the message's own. A dropped medium leaves nothing, unless its message is left empty:
 *   then one text `[media removed: request limit]`.
 * - 2.1.277 and later (`Ymo`; 2.1.332 `ano`): one pass in request order; once more than 100 are held, the oldest go
 *   until 80 are left (105 → 84); once the held media's bytes pass the cap, the oldest with bytes go until 10,485,760
 *   under it. A medium inside a tool result is replaced in place by a text; a message's own is removed, and a message
 *   left empty gets the text. The cap is 25,165,824 on Anthropic's own API (no ANTHROPIC_BASE_URL, or
 *   api.anthropic.com), else 78,643,200. 2.1.331 and later word the text by whether the model saw the medium.
 */
import type { Block, ConversationMessage, MediaItem, TextBlock, WithheldMedium } from "../../model/conversation.js";
import type { TranscriptLine } from "../../model/transcript.js";
import { isAtLeast } from "../checked-clients.js";
import { obj, str } from "./dialect.js";

/** The client's limits: media per request (1M-window models), how far under it goes, its default byte cap and margin. */
const ITEMS = 100;
const ITEMS_1M = 600;
const ITEMS_BELOW = 20;
/**
 * The byte cap recover assumes: the one for any ANTHROPIC_BASE_URL other than Anthropic's own. recover cannot know
 * where the client sends (the transcript does not say; the environment recover runs in need not be the client's),
 * and the lower cap (2.1.277 on: 25,165,824 on api.anthropic.com) would call a request fine that the client sends
 * whole to a gateway, over the API's 32 MB. The suite's mocked runs exercise this one (the mock is such a URL).
 */
export const MEDIA_BYTE_CAP = 78_643_200;
const BYTES_BELOW = 10_485_760;

/** The first client measured to drop media in one pass and leave a text in a tool result (2.1.197 did neither). */
const ONE_PASS = "2.1.277";
/** The first client whose text says whether the model saw the medium (2.1.277: one text for all). */
const WORDED = "2.1.331";

const NOTE = "[media removed: request limit]";
const LEAD = "[media removed: request limit.";
const REREAD = "Re-reading pushes out others and re-sends everything, so don't re-read them all.]";
const SEEN = `${LEAD} You have already seen this, and what you concluded from it still stands. It made room for newer images and documents. ${REREAD}`;
const UNSEEN = `${LEAD} You have not seen this: it did not fit in the request. If you need it, get it again once, by itself. If it is dropped again, go on without it and say so. ${REREAD}`;

/**
 * Models the client counts as 1M-window for its media count (2.1.331 on: the model table's `native_1m`, on any API;
 * 2.1.332's table). 2.1.197 counts them so only on Anthropic's own API, which recover does not assume.
 */
const NATIVE_1M = /^claude-(?:opus-4-[78]|opus-5(?:-5)?|sonnet-5(?:-5)?|haiku-5-5|fable-5(?:-[12])?|mythos-5(?:-[12])?|mythos-preview)(?:-\d{8})?$/;

/** A version recover cannot place counts as the newest. */
const atLeast = (version: string | undefined, first: string) => isAtLeast(version, first, true);

/** One medium of the request: where it is (message, block, and for a tool result's item, the item). */
interface Medium {
  message: number;
  block: number;
  item?: MediaItem;
  bytes: number;
  /** The model's replies before it (the client's words say whether the model saw it). */
  answered: number;
}

function mediaOf(messages: readonly ConversationMessage[]): Medium[] {
  const found: Medium[] = [];
  let answered = 0;
  messages.forEach((message, m) => {
    if (message.role === "assistant") answered++;
    message.blocks.forEach((block, b) => {
      if (block.type === "media") found.push({ message: m, block: b, bytes: block.chars, answered });
      else if (block.type === "tool_result") for (const item of block.media ?? []) found.push({ message: m, block: b, item, bytes: item.chars, answered });
    });
  });
  return found;
}

/** 2.1.197: the excess (plus a margin) goes, message by message, a tool result's media before the message's own. */
function batchDrops(media: readonly Medium[], items: number, cap: number): Map<Medium, string> {
  const dropped = new Map<Medium, string>();
  let count = media.length - items;
  let bytes = media.reduce((n, m) => n + m.bytes, 0) - cap;
  if (count <= 0 && bytes <= 0) return dropped;
  if (count > 0) count += ITEMS_BELOW;
  if (bytes > 0) bytes += BYTES_BELOW;
  const order = [...media].sort((a, b) => a.message - b.message || Number(a.item === undefined) - Number(b.item === undefined) || a.block - b.block);
  for (const m of order) {
    if (count <= 0 && bytes <= 0) break;
    if (count > 0 || (bytes > 0 && m.bytes > 0)) {
      count--;
      bytes -= m.bytes;
      dropped.set(m, NOTE);
    }
  }
  return dropped;
}

/** 2.1.277 on: one pass; each medium that goes is named by the one whose arrival pushed it out. */
function onePassDrops(media: readonly Medium[], items: number, cap: number, worded: boolean): Map<Medium, string> {
  const dropped = new Map<Medium, string>();
  const held: Medium[] = [];
  const keep = Math.max(0, items - ITEMS_BELOW);
  let bytes = 0;
  const note = (gone: Medium, by: Medium) => (worded ? (by.answered > gone.answered ? SEEN : UNSEEN) : NOTE);
  for (const m of media) {
    held.push(m);
    bytes += m.bytes;
    if (held.length > items)
      for (const gone of held.splice(0, held.length - keep)) {
        dropped.set(gone, note(gone, m));
        bytes -= gone.bytes;
      }
    if (cap > 0 && bytes > cap)
      for (let k = 0; k < held.length && bytes > cap - BYTES_BELOW; ) {
        const gone = held[k]!;
        if (gone.bytes === 0) {
          k++;
          continue;
        }
        held.splice(k, 1);
        dropped.set(gone, note(gone, m));
        bytes -= gone.bytes;
      }
  }
  return dropped;
}

/**
 * The request as the client sends it under its media budget, and what it left out. `model`: the model the session
 * continues with (its count limit); `version`: the client that reads the session back (none known: the newest).
 */
export function withMediaBudget(
  messages: ConversationMessage[],
  model: string | undefined,
  version: string | undefined,
): { messages: ConversationMessage[]; withheld: WithheldMedium[] } {
  const media = mediaOf(messages);
  const onePass = atLeast(version, ONE_PASS);
  const worded = atLeast(version, WORDED);
  const items = worded && model !== undefined && NATIVE_1M.test(model) ? ITEMS_1M : ITEMS;
  if (media.length <= items && media.reduce((n, m) => n + m.bytes, 0) <= MEDIA_BYTE_CAP) return { messages, withheld: [] };
  const dropped = onePass ? onePassDrops(media, items, MEDIA_BYTE_CAP, worded) : batchDrops(media, items, MEDIA_BYTE_CAP);
  if (dropped.size === 0) return { messages, withheld: [] };
  const withheld: WithheldMedium[] = [];
  const byMessage = new Map<number, Medium[]>();
  for (const m of dropped.keys()) byMessage.set(m.message, [...(byMessage.get(m.message) ?? []), m]);
  const out = messages.map((message, index) => {
    const gone = byMessage.get(index);
    if (!gone) return message;
    const notes: string[] = [];
    const blocks: Block[] = [];
    message.blocks.forEach((block, b) => {
      const here = gone.filter((m) => m.block === b);
      if (here.length === 0) {
        blocks.push(block);
        return;
      }
      for (const m of here) {
        withheld.push({ block, ...(m.item ? { item: m.item } : {}), why: dropped.get(m)! });
        if (!notes.includes(dropped.get(m)!)) notes.push(dropped.get(m)!);
      }
      if (block.type !== "tool_result") return; // a message's own medium: removed
      const items = new Set(here.map((m) => m.item));
      // 2.1.197 takes the item out of the result's content; later clients put their text in its place.
      const texts = onePass ? here.reduce((n, m) => n + dropped.get(m)!.length, 0) : 0;
      const kept = block.media!.filter((item) => !items.has(item));
      const chars = block.chars - here.reduce((n, m) => n + m.bytes, 0) + texts;
      const { media: _all, ...rest } = block;
      blocks.push({ ...rest, chars, ...(kept.length > 0 ? { media: kept } : {}) });
    });
    if (blocks.length > 0) return { ...message, blocks };
    const source = message.blocks[0]!.source;
    const texts = onePass ? notes : [NOTE];
    return { ...message, blocks: texts.map((text): TextBlock => ({ type: "text", source, chars: text.length, text, blank: false, synthetic: true })) };
  });
  return { messages: out, withheld };
}

/** What the client puts in a tool result whose every item it took out for an error (2.1.197 and 2.1.332 alike). */
const REJECTED = "(media removed \u2014 rejected by API)";
const MEDIA = new Set(["image", "document"]);

/**
 * The media types a stored API error entry says the API rejected (the client's `Qda` on its `errorDetails`): a 413
 * `request_too_large` or "too much media", images and documents. (Errors that name one block's image or PDF are left
 * to the rules that answer them.)
 */
function rejectedBy(value: Record<string, unknown>): Set<string> | undefined {
  if (value.type !== "assistant" || value.isApiErrorMessage !== true || obj(value.message)?.model !== "<synthetic>") return undefined;
  const details = str(value.errorDetails);
  if (details === undefined || details.startsWith("{")) return undefined;
  return details.includes("request_too_large") || details.toLowerCase().includes("too much media") ? MEDIA : undefined;
}

/** The media types a stored user line carries, at the top or in a tool result. */
function carried(value: Record<string, unknown> | undefined): Set<string> {
  const found = new Set<string>();
  const content = obj(value?.message)?.content;
  if (value?.type !== "user" || !Array.isArray(content)) return found;
  for (const block of content) {
    const b = obj(block);
    if (typeof b?.type === "string" && MEDIA.has(b.type)) found.add(b.type);
    if (b?.type === "tool_result" && Array.isArray(b.content))
      for (const item of b.content) {
        const type = str(obj(item)?.type);
        if (type !== undefined && MEDIA.has(type)) found.add(type);
      }
  }
  return found;
}

/**
 * The stored lines whose media the client leaves out because a later API error entry blamed them (2.1.197 and 2.1.332:
 * `Ak`, `healsDistinctCarrier`; measured: scenario media-bytes-413 run with --skip-recover, both send the Read
 * result as "(media removed — rejected by API)" on the resume after the 413). For each such entry the client walks
 * back to the nearest user line carrying the rejected types: an entry flagged `healsDistinctCarrier` (every entry of
 * the checked clients) past lines that carry none, and past carriers another run of errors already healed; an older
 * entry only to the user line right before it. Line id → the types left out.
 */
export function healedCarriers(chain: readonly TranscriptLine[]): Map<string, Set<string>> {
  const healed = new Map<string, Map<string, number>>();
  let run = 0;
  let inRun = false;
  chain.forEach((line, k) => {
    const value = line.value as Record<string, unknown> | undefined;
    const types = value ? rejectedBy(value) : undefined;
    const isError = value?.type === "assistant" && value.isApiErrorMessage === true && obj(value.message)?.model === "<synthetic>";
    if (!isError) {
      inRun = false;
      return;
    }
    if (!inRun) run++;
    inRun = true;
    if (!types) return;
    const distinct = value!.healsDistinctCarrier === true;
    for (let back = k - 1; back >= 0; back--) {
      const earlier = chain[back]!;
      const v = earlier.value as Record<string, unknown> | undefined;
      const before = healed.get(earlier.ref.id);
      const open = [...types].filter((t) => before?.get(t) === undefined || before.get(t) === run);
      const here = [...carried(v)].filter((t) => (distinct ? open : [...types]).includes(t));
      if (here.length === 0) {
        // An older entry heals only the prompt right before it (past other errors and the client's meta lines).
        if (distinct) continue;
        if (v?.type === "assistant" && v.isApiErrorMessage !== true) break;
        if (v?.type === "user" && v.isMeta !== true) break;
        continue;
      }
      const marks = before ?? new Map<string, number>();
      for (const t of here) if (!marks.has(t)) marks.set(t, distinct ? run : 0);
      healed.set(earlier.ref.id, marks);
      break;
    }
  });
  return new Map([...healed].map(([id, marks]) => [id, new Set(marks.keys())]));
}

/** The request without the media of the healed lines: a tool result left with no item gets the client's text. */
export function withoutRejectedMedia(messages: ConversationMessage[], chain: readonly TranscriptLine[]): { messages: ConversationMessage[]; healed: string[] } {
  const healed = healedCarriers(chain);
  if (healed.size === 0) return { messages, healed: [] };
  const stored = new Map(chain.filter((line) => healed.has(line.ref.id)).map((line) => [line.ref.id, line.value]));
  // Whether every item of the stored result is of the types left out (the client then puts its text in their place).
  const emptied = (block: Block, types: Set<string>) => {
    const content = obj(stored.get(block.source.messageId ?? block.source.id)?.message)?.content;
    const id = block.type === "tool_result" ? block.toolUseId : undefined;
    const result = Array.isArray(content) ? content.map(obj).find((b) => b?.type === "tool_result" && b.tool_use_id === id) : undefined;
    return Array.isArray(result?.content) && result.content.every((item) => types.has(str(obj(item)?.type) ?? ""));
  };
  const typesOf = (block: Block) => healed.get(block.source.messageId ?? block.source.id);
  const kind = (mime: string) => (mime.startsWith("image/") ? "image" : "document");
  const out = messages.flatMap((message) => {
    if (!message.blocks.some((b) => typesOf(b))) return [message];
    const blocks = message.blocks.flatMap((block): Block[] => {
      const types = typesOf(block);
      if (!types) return [block];
      if (block.type === "media") return types.has(kind(block.mime)) ? [] : [block];
      if (block.type !== "tool_result" || !block.media) return [block];
      const gone = block.media.filter((item) => types.has(kind(item.mime)));
      if (gone.length === 0) return [block];
      const kept = block.media.filter((item) => !gone.includes(item));
      const { media: _all, ...rest } = block;
      const chars = block.chars - gone.reduce((n, item) => n + item.chars, 0) + (emptied(block, types) ? REJECTED.length : 0);
      return [{ ...rest, chars, ...(kept.length > 0 ? { media: kept } : {}) }];
    });
    return blocks.length > 0 ? [{ ...message, blocks }] : [];
  });
  return { messages: out, healed: [...healed.keys()] };
}
