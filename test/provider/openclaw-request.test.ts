// recover's request view of an openclaw session against the request the real client sent for it (openclaw 2026.9.6
// run offline against a loopback mock of the API: scripts/clients/openclaw.mjs, fixtures/openclaw-2026.9,
// docs/research/openclaw-request.md). Message for message and block for block: an error's `messages.N.content.M`
// must land on the record the client put there, and what the client drops (empty text, failed turns, the thinking
// its model policy does not replay) is not in the view for a rule to judge.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { anthropicRequest } from "../../src/provider/anthropic-request.js";
import { sessionView } from "../../src/scan/session-view.js";
import { OPENCLAW_FAILED_TURN_TEXT } from "../../src/stores/transcript/openclaw-replay.js";
import { loadRecords } from "../support/rule-tester.js";

const FIXTURES = path.resolve("fixtures/openclaw-2026.9");
const SCENARIOS = fs
  .readdirSync(FIXTURES)
  .filter((f) => f.endsWith(".request.json"))
  .map((f) => f.replace(/\.request\.json$/, ""));

type SentBlock = { type: string; id?: string; tool_use_id?: string; thinking?: string; signature?: string; data?: string; text?: string };
type Sent = { role: string; content: string | SentBlock[] };

const shapeOfSent = (messages: Sent[]) => messages.map((m) => `${m.role}: ${typeof m.content === "string" ? "text" : m.content.map((b) => b.type).join(" ")}`);

function viewOf(scenario: string) {
  const bytes = fs.readFileSync(path.join(FIXTURES, `${scenario}.jsonl`));
  return sessionView(loadRecords({ dialect: "openclaw", bytes }), { now: Date.UTC(2030, 0, 1), liveWindowMs: 0 });
}

describe("openclaw 2026.9: recover's request view is the request the client sent", () => {
  it.each(SCENARIOS)("%s", (scenario) => {
    const sent = (JSON.parse(fs.readFileSync(path.join(FIXTURES, `${scenario}.request.json`), "utf8")) as { messages: Sent[] }).messages;
    const view = viewOf(scenario);
    const request = anthropicRequest(view.conversation);
    const ours = request.messages.map((m) => `${m.role}: ${m.content.map((b) => b.type).join(" ")}`);
    // The continuing request ends with the new prompt and the runtime-context message built for it; neither is stored.
    expect(sent.slice(-2).map((m) => m.role)).toEqual(["user", "user"]);
    expect(JSON.stringify(sent.at(-1)!.content)).toContain("<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>");
    const history = sent.slice(0, -2);
    if (scenario === "thinking-off") {
      // `--thinking off` was given for the captured run only, and openclaw stores no level change for it: the stored
      // level (low) is what recover reads, so the latest turn's thinking is in our view and was not sent.
      expect(ours).toEqual(["user: text", "assistant: thinking text"]);
      expect(shapeOfSent(history)).toEqual(["user: text", "assistant: text"]);
      return;
    }
    expect(ours).toEqual(shapeOfSent(history));
    history.forEach((message, n) => {
      const mine = request.messages[n]!.content;
      if (typeof message.content === "string") return;
      message.content.forEach((block, m) => {
        const at = `messages.${n}.content.${m}`;
        const ourBlock = mine[m]!;
        if (block.type === "tool_use") expect(ourBlock.id, at).toBe(block.id);
        if (block.type === "tool_result") expect(ourBlock.id, at).toBe(block.tool_use_id);
        if (block.type === "text" && block.text === OPENCLAW_FAILED_TURN_TEXT) {
          const our = view.conversation.messages[n]!.blocks[m]!;
          expect(our.type === "text" && our.synthetic && our.text, at).toBe(OPENCLAW_FAILED_TURN_TEXT);
        }
      });
      // Thinking goes out verbatim: the same text and signature as stored.
      view.conversation.messages[n]!.blocks.forEach((block, m) => {
        if (block.type !== "thinking" || block.redacted) return;
        const theirs = (message.content as SentBlock[])[m]!;
        expect(theirs.thinking, `messages.${n}.content.${m}`).toBe(block.text);
        expect(theirs.signature, `messages.${n}.content.${m}`).toBe(block.signature);
      });
    });
  });

  it("what openclaw leaves out is listed as skipped, with why", () => {
    const view = viewOf("edit-more");
    // Turn three: no content, stopped by an error: not sent; the user prompts around it stay apart.
    expect(view.conversation.skipped.map((s) => s.reason)).toContain("openclaw leaves out a failed turn with no text");
    const errored = viewOf("error-turn").conversation.messages.filter((m) => m.blocks.some((b) => b.type === "text" && b.synthetic));
    expect(errored).toHaveLength(1);
  });
});
