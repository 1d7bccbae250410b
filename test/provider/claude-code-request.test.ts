// recover's request view of a Claude Code transcript against the request the real client sent for it (Claude Code
// 2.1.331, and 2.1.197 where the fixture's name ends in -197, run offline against a loopback mock of the API:
// scripts/clients/claude-code.mjs, fixtures/claude-code-2.1). Message for message and block for block: an error's
// `messages.N.content.M` must land on the record the client put there.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { anthropicRequest } from "../../src/provider/anthropic-request.js";
import { sessionView } from "../../src/scan/session-view.js";
import { loadRecords } from "../support/rule-tester.js";

const FIXTURES = path.resolve("fixtures/claude-code-2.1");
const SCENARIOS = fs
  .readdirSync(FIXTURES)
  .filter((f) => f.endsWith(".request.json"))
  .map((f) => f.replace(/\.request\.json$/, ""));

type SentBlock = { type: string; id?: string; tool_use_id?: string; thinking?: string };
type Sent = { role: string; content: string | SentBlock[] };

/** Transcripts written by 2.1.197 (the others: 2.1.331). */
const OWN_CONTEXT = new Set([
  "opus55-interrupted-197",
  "empty-text-197",
  "thinking-text-emptied-197",
  "media-count-197",
  "media-413-healed-197",
  "leading-assistant-197",
]);
/** Scenarios whose new prompt joined the last stored one (the API refused that one), and the new prompt's blocks. */
const JOINED_PROMPT: Record<string, number> = { "media-413-healed": 2, "media-413-healed-197": 1 };
/**
 * What 2.1.197 adds when the stored history ends on tool results (an interrupted turn): a user text of its own after
 * them, written to the transcript with the request (as "No response requested." is), so not in the stored history.
 */
const CONTINUE = "Continue from where you left off.";

/** A request as a list of `role: block types`, the shape an error's position indexes. */
const shapeOfSent = (messages: Sent[]) => messages.map((m) => `${m.role}: ${typeof m.content === "string" ? "text" : m.content.map((b) => b.type).join(" ")}`);

describe("Claude Code 2.1: recover's request view is the request the client sent", () => {
  it.each(SCENARIOS)("%s", (scenario) => {
    const sent = (JSON.parse(fs.readFileSync(path.join(FIXTURES, `${scenario}.request.json`), "utf8")) as { messages: Sent[] }).messages;
    const bytes = fs.readFileSync(path.join(FIXTURES, `${scenario}.jsonl`));
    const view = sessionView(loadRecords({ dialect: "claude", bytes }), { now: Date.UTC(2030, 0, 1), liveWindowMs: 0 });
    const request = anthropicRequest(view.conversation);
    // Claude Code leaves out a call that has no result before later turns; recover's view keeps it (always the
    // last block of its message, so no position moves), so that the rule answering it sees it.
    const sentCalls = new Set(sent.flatMap((m) => (typeof m.content === "string" ? [] : m.content.flatMap((b) => (b.type === "tool_use" ? [b.id] : [])))));
    const ours = request.messages.map(
      (m) =>
        `${m.role}: ${m.content
          .filter((b) => b.type !== "tool_use" || sentCalls.has(b.id))
          .map((b) => (b.type === "redacted_thinking" ? "redacted_thinking" : b.type))
          .join(" ")}`,
    );
    // The continuing request ends with the new prompt, which is not in the transcript yet, and, when the stored
    // history ends on a user message, the client's own "No response requested." before it.
    const tail = sent.at(-2)?.role === "assistant" && JSON.stringify(sent.at(-2)!.content).includes("No response requested.") ? 2 : 1;
    const history = sent.slice(0, sent.length - tail);
    // A stored history that ends on a prompt the API refused (its API error entry is never sent): the new prompt joins
    // that prompt's message, so the last sent message is the stored prompt's blocks, then the new one's.
    const joined = JOINED_PROMPT[scenario];
    if (joined !== undefined) history.push({ ...sent.at(-1)!, content: (sent.at(-1)!.content as SentBlock[]).slice(0, -joined) });
    const last = history.at(-1)!;
    if (OWN_CONTEXT.has(scenario) && Array.isArray(last.content) && (last.content.at(-1) as { text?: string }).text === CONTINUE)
      history[history.length - 1] = { ...last, content: last.content.slice(0, -1) };
    // 2.1.197 leads the first prompt with its user context (the date; CLAUDE.md), which it does not store: after the
    // listings, which a model without system turns gets as user text before it. A history that begins with an
    // assistant turn gets it as a user message of its own, a string (leading-assistant-197).
    const context = history[0]!.content;
    if (OWN_CONTEXT.has(scenario) && typeof context === "string") expect(context).toContain("# currentDate");
    else if (OWN_CONTEXT.has(scenario))
      expect(context as SentBlock[]).toContainEqual(expect.objectContaining({ type: "text", text: expect.stringContaining("# currentDate") }));
    const expected = shapeOfSent(history).map((shape, n) => (n === 0 && OWN_CONTEXT.has(scenario) ? shape.replace("text ", "") : shape));
    expect(ours).toEqual(expected);
    if (tail === 2) expect(ours.at(-1)).toMatch(/^user: /);
    // Each position an error can name holds the record the client put there: the same call, result and thinking.
    history.forEach((message, n) => {
      if (typeof message.content === "string") return;
      message.content.forEach((block, m) => {
        const mine = request.messages[n]!.content[m]!;
        const at = `messages.${n}.content.${m}`;
        if (block.type === "tool_use") expect(mine.id, at).toBe(block.id);
        if (block.type === "tool_result") expect(mine.id, at).toBe(block.tool_use_id);
        if (block.type === "thinking") {
          const line = view.transcript!.byId.get(mine.source.messageId!)!;
          const stored = (line.value!.message as { content: SentBlock[] }).content[Number(mine.source.id.split("#")[1])]!;
          expect(stored.thinking, at).toBe(block.thinking);
        }
      });
    });
  });
});
