// Claude Code's own media budget in recover's request view (issue 40 rows 12 and 17;
// docs/research/claude-code-media-budget.md): on transcripts the real client wrote (fixtures/claude-code-2.1/media-count*,
// a Read of a PNG whose stored result was then given 105 images), recover's view holds the media the client sent, in
// the request the client sent (the .request.json beside it), and a byte budget counts what the client left out.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { ToolResultBlock } from "../../src/model/conversation.js";
import type { TranscriptRecords } from "../../src/model/transcript.js";
import { planSession } from "../../src/plan/planner.js";
import { contextOverflow } from "../../src/rules/context-overflow.js";
import { DEFAULT_RULE_OPTIONS, type TrimOptions } from "../../src/rules/rule.js";
import { requestBytes } from "../../src/rules/trim/budget.js";
import { TRIM_RULES } from "../../src/rules/trim/index.js";
import { sessionView } from "../../src/scan/session-view.js";
import { openStore } from "../../src/stores/discover.js";
import { MEDIA_BYTE_CAP } from "../../src/stores/transcript/claude-media.js";
import { tempDir } from "../cli/run.js";
import { loadRecords } from "../support/rule-tester.js";

const FIXTURES = path.resolve("fixtures/claude-code-2.1");
const NOW = Date.UTC(2030, 0, 1);
const READ_ID = "toolu_mock_read_01";

type SentItem = { type: string; text?: string; source?: { data: string } };
type SentBlock = { type: string; tool_use_id?: string; content?: SentItem[] };

/** The fixture's transcript, each of its lines passed through `edit` (a parsed record; return it changed or not). */
function transcript(name: string, edit?: (record: Record<string, unknown>) => void): Buffer {
  const text = fs.readFileSync(path.join(FIXTURES, `${name}.jsonl`), "utf8");
  if (!edit) return Buffer.from(text);
  return Buffer.from(
    text
      .split("\n")
      .map((line) => {
        if (!line.trim()) return line;
        const record = JSON.parse(line) as Record<string, unknown>;
        edit(record);
        return JSON.stringify(record);
      })
      .join("\n"),
  );
}

const viewOf = (bytes: Buffer) => sessionView(loadRecords({ dialect: "claude", bytes }), { now: NOW, liveWindowMs: 0 });
const readResult = (view: ReturnType<typeof viewOf>) =>
  view.conversation.messages.flatMap((m) => m.blocks).find((b): b is ToolResultBlock => b.type === "tool_result" && b.toolUseId === READ_ID)!;

/** The Read result the client sent. */
function sentResult(name: string): SentItem[] {
  const sent = JSON.parse(fs.readFileSync(path.join(FIXTURES, `${name}.request.json`), "utf8")) as { messages: { content: string | SentBlock[] }[] };
  for (const m of sent.messages)
    if (Array.isArray(m.content)) for (const b of m.content) if (b.type === "tool_result" && b.tool_use_id === READ_ID) return b.content!;
  throw new Error("no Read result in the request");
}

/** Each of the stored Read result's images: `n` of them, `chars` base64 characters each (data kept a valid PNG header). */
const withImages = (n: number, chars: number) => (record: Record<string, unknown>) => {
  const content = (record.message as { content?: unknown } | undefined)?.content;
  if (!Array.isArray(content)) return;
  for (const block of content as SentBlock[]) {
    if (block.type !== "tool_result" || block.tool_use_id !== READ_ID) continue;
    const first = block.content![0]! as SentItem & { source: { data: string } };
    const data = first.source.data + "A".repeat(chars - first.source.data.length);
    block.content = Array.from({ length: n }, () => ({ ...first, source: { ...first.source, data } }));
  }
};

describe("Claude Code's media budget: recover's view holds the media the client sent", () => {
  it("2.1.332 (one pass): of 105 images it sends 84, each of the 21 oldest replaced in place by its text", () => {
    const view = viewOf(transcript("media-count"));
    const sent = sentResult("media-count");
    const result = readResult(view);
    expect(sent.filter((b) => b.type === "image")).toHaveLength(84);
    expect(result.media).toHaveLength(84);
    // The oldest go: the result's items 0-20 are withheld, 21-104 sent.
    expect(result.media!.map((m) => m.index)).toEqual(Array.from({ length: 84 }, (_, i) => i + 21));
    // (The client also appends its reminders to the last result's content, as recover's view does.)
    const notes = sent.filter((b) => b.type === "text" && b.text!.startsWith("[media removed: request limit.")).map((b) => b.text!);
    expect(notes).toHaveLength(21);
    expect(sent.slice(0, 21).map((b) => b.text)).toEqual(notes);
    expect(view.conversation.withheld!.map((w) => w.why)).toEqual(notes);
    // Its size is the sent content's: the kept images' data and the texts in place of the others (and the reminder,
    // which recover counts with a separator of 2: stores/transcript/history.ts).
    expect(result.chars).toBe(sent.reduce((n, b) => n + (b.text?.length ?? b.source!.data.length), 0) + 2);
  });

  it("2.1.197 (the excess and 20 more): of 105 images it sends 80, the 25 oldest taken out without a trace", () => {
    const view = viewOf(transcript("media-count-197"));
    const sent = sentResult("media-count-197");
    const result = readResult(view);
    expect(sent).toHaveLength(80);
    expect(sent.every((b) => b.type === "image")).toBe(true);
    expect(result.media!.map((m) => m.index)).toEqual(Array.from({ length: 80 }, (_, i) => i + 25));
    expect(view.conversation.withheld).toHaveLength(25);
    expect(result.chars).toBe(sent.reduce((n, b) => n + b.source!.data.length, 0));
  });

  it("on a model with a native 1M window 2.1.332 counts up to 600 (measured: claude-opus-5-5 sent all 105)", () => {
    const onOpus = (record: Record<string, unknown>) => {
      const message = record.message as { model?: string } | undefined;
      if (record.type === "assistant" && message?.model) message.model = "claude-opus-5-5";
    };
    const view = viewOf(transcript("media-count", onOpus));
    expect(readResult(view).media).toHaveLength(105);
    expect(view.conversation.withheld).toBeUndefined();
  });

  it("a session over the window only by the images the client leaves out is no context overflow", () => {
    // 105 images are ~168,000 tokens by recover's estimate; sent, 84 are ~134,400. A 150,000-token window.
    const view = viewOf(transcript("media-count"));
    const options = { ...DEFAULT_RULE_OPTIONS, now: NOW, contextLimit: 150_000 };
    expect(contextOverflow.check(view, options, [])).toEqual([]);
    expect(view.estimatedTokens).toBeLessThan(150_000);
    expect(view.estimatedTokens + view.conversation.withheld!.length * 1_600).toBeGreaterThan(150_000);
  });
});

describe("Claude Code's media budget: bytes", () => {
  it("under the 75 MB cap every image is sent, and a request over 32 MB stays one a 413 answers", () => {
    const view = viewOf(transcript("media-count", withImages(8, 4_400_000)));
    expect(readResult(view).media).toHaveLength(8);
    expect(view.conversation.withheld).toBeUndefined();
    expect(requestBytes(view)).toBeGreaterThan(32 * 1024 * 1024);
  });

  it("over the cap the oldest go until 10 MB under it (as both clients did: scenario repair-media-over-cap)", () => {
    // 79.2 MB: 3 go (66 MB left, under the cap less 10,485,760), still over the API's 32 MB.
    const view = viewOf(transcript("media-count", withImages(18, 4_400_000)));
    expect(18 * 4_400_000).toBeGreaterThan(MEDIA_BYTE_CAP);
    expect(readResult(view).media).toHaveLength(15);
    expect(view.conversation.withheld!.map((w) => w.item!.index)).toEqual([0, 1, 2]);
    expect(requestBytes(view)).toBeGreaterThan(15 * 4_400_000);
  });

  it("a repair for a 413 takes the media the client leaves out first, and counts them: they come back", () => {
    // 105 images of 100,000 characters: the client sends 84 (8.4 MB). An 8 MB budget: what is left stored, sent whole
    // once the history holds 100 or fewer, must fit, not only what is sent now (dropping 5 of the 84 would leave 100
    // stored, all sent: 10 MB). One fix per line and pass: the images of one result take a pass each.
    const bytes = transcript("media-count", withImages(105, 100_000));
    const file = path.join(tempDir(), "11111111-2222-4333-8444-555555555555.jsonl");
    fs.writeFileSync(file, bytes);
    const store = openStore({ store: file });
    const loaded = store.loadSession("11111111-2222-4333-8444-555555555555", "full") as TranscriptRecords;
    const trim: TrimOptions = {
      targetTokens: 160_000,
      calibration: 1,
      keepTurns: 0,
      keepSteps: 0,
      maxOutputChars: 50_000,
      maxBytes: 8_000_000,
      strategies: new Set(["drop-images"]),
    };
    const plan = planSession(loaded, store.fixing, { ...DEFAULT_RULE_OPTIONS, now: NOW, rules: TRIM_RULES, trim });
    expect(plan.after.bytes).toBeLessThanOrEqual(8_000_000);
    const after = (plan.changes[0]!.after!.message as { content: SentBlock[] }).content.find((b) => b.type === "tool_result")!.content!;
    // The 21 the client left out are recover's notes now, and of the rest only as many as fit.
    expect(after.slice(0, 21).every((b) => b.type === "text")).toBe(true);
    const images = after.filter((b) => b.type === "image");
    expect(images.length).toBeGreaterThan(70);
    expect(images.length * 100_000).toBeLessThanOrEqual(8_000_000);
    // And the client, within its budget again, sends every one of them.
    const reread = viewOf(plan.files![0]!.after!);
    expect(readResult(reread).media).toHaveLength(images.length);
    expect(reread.conversation.withheld).toBeUndefined();
  });
});

describe("Claude Code's healing after a 413: the media of the message it blames stay out of every later request", () => {
  it.each(["media-413-healed", "media-413-healed-197"])("%s: recover's view leaves them out, as the client did", (name) => {
    const view = viewOf(transcript(name));
    const sent = sentResult(name);
    const result = readResult(view);
    // The client's own text in place of the five images (2.1.332 appends its reminder after it, with a "\n").
    expect(sent[0]!.type).toBe("text");
    expect(sent[0]!.text!.trimEnd()).toBe("(media removed \u2014 rejected by API)");
    expect(sent.some((b) => b.type === "image")).toBe(false);
    expect(result.media).toBeUndefined();
    expect(view.conversation.withheld).toBeUndefined();
    // The stored result still holds them (the client only leaves them out), so a trim has nothing to take.
    const stored = view.transcript!.byId.get(result.source.messageId!)!.value!.message as { content: SentBlock[] };
    expect(stored.content[0]!.content!.filter((b) => b.type === "image")).toHaveLength(5);
    // (recover counts an appended reminder with a separator of 2: stores/transcript/history.ts.)
    const extra = sent.slice(1).reduce((n, b) => n + (b.text?.length ?? 0) + 2, 0);
    expect(result.chars).toBe(sent[0]!.text!.trimEnd().length + extra);
  });
});
