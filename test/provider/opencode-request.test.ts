// recover's request view of an opencode session against the request the real opencode client sent for it
// (opencode-ai 1.18.33 run offline against a loopback mock of the API: scripts/clients/capture.mjs opencode,
// fixtures/opencode-1.18, docs/research/opencode-request.md). Message for message and block for block: an error's
// `messages.N.content.M` must land on the record the client put there.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { anthropicRequest } from "../../src/provider/anthropic-request.js";
import { openStore } from "../../src/stores/discover.js";
import { sessionView } from "../../src/scan/session-view.js";

const FIXTURES = path.resolve("fixtures/opencode-1.18");
const SCENARIOS = fs.readdirSync(FIXTURES).filter((f) => fs.existsSync(path.join(FIXTURES, f, `${f}.request.json`)));

type SentBlock = { type: string; id?: string; tool_use_id?: string; thinking?: string; signature?: string };
type Sent = { role: string; content: string | SentBlock[] };
const typesOf = (content: Sent["content"]) => (typeof content === "string" ? ["text"] : content.map((b) => b.type));

/** The session's request as recover builds it, from a copy of the captured store (a scan never writes, but a copy costs nothing). */
function ourRequest(scenario: string) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "recover-oc-capture-"));
  fs.copyFileSync(path.join(FIXTURES, scenario, "opencode.db"), path.join(dir, "opencode.db"));
  const store = openStore({ store: dir });
  try {
    const [session] = store.listSessions();
    const view = sessionView(store.loadSession(session!.id, "full"), { now: Date.UTC(2030, 0, 1), liveWindowMs: 0 });
    return anthropicRequest(view.conversation);
  } finally {
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe("opencode 1.18: recover's request view is the request the client sent", () => {
  it.each(SCENARIOS)("%s", (scenario) => {
    const sent = (JSON.parse(fs.readFileSync(path.join(FIXTURES, scenario, `${scenario}.request.json`), "utf8")) as { messages: Sent[] }).messages;
    const request = ourRequest(scenario);
    const ours = request.messages.map((m) => `${m.role}: ${m.content.map((b) => b.type).join(" ")}`);
    const theirs = sent.map((m) => `${m.role}: ${typesOf(m.content).join(" ")}`);
    // The captured store is as the client left it after the continuing request: its new prompt is stored, and so is
    // the reply to it. The request is the stored history up to that prompt.
    expect(ours.slice(0, theirs.length)).toEqual(theirs);
    expect(ours.slice(theirs.length).every((m) => m.startsWith("assistant: "))).toBe(true);
    const history = theirs;
    history.forEach((_, n) => {
      const blocks = sent[n]!.content;
      if (typeof blocks === "string") return;
      request.messages[n]!.content.forEach((mine, m) => {
        const theirsBlock = blocks[m]!;
        const at = `messages.${n}.content.${m}`;
        if (theirsBlock.type === "tool_use") expect(mine.id, at).toBe(theirsBlock.id);
        if (theirsBlock.type === "tool_result") expect(mine.id, at).toBe(theirsBlock.tool_use_id);
      });
    });
  });
});
