// A compaction that failed, on a store the real opencode client wrote (issue 40, row 13). fixtures/opencode-1.18/
// failed-compaction is the store right before recover ran in the real loop (`node scripts/clients/capture.mjs opencode
// --scenario failed-compaction --loop`): two text turns by opencode-ai 1.18.33, then a compaction request and a summary
// as 1.18.33 writes one whose own request was over the window (ContextOverflowError "Conversation history too large to
// compact - exceeds model context limit", finish "error"; an edit: offline the client's condensed compaction request
// always fit). The loop's plain repair took the request and the summary out, and the client's next request (accepted)
// had no stray "What did we do so far?".
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_RULE_OPTIONS } from "../../src/model/rule-options.js";
import { RULES } from "../../src/rules/index.js";
import { checkSession } from "../../src/scan/check.js";
import { sessionView } from "../../src/scan/session-view.js";
import { openStore } from "../../src/stores/discover.js";
import { run, tempDir } from "../cli/run.js";

const FIXTURE = path.resolve("fixtures/opencode-1.18/failed-compaction");
const x = JSON.parse(fs.readFileSync(path.join(FIXTURE, "expected.json"), "utf8")) as {
  sessionId: string;
  recover: string[];
  plan: { rules: Record<string, number> };
};

function copy(): { dir: string; env: Record<string, string> } {
  const dir = tempDir();
  fs.copyFileSync(path.join(FIXTURE, "opencode.db"), path.join(dir, "opencode.db"));
  return { dir, env: { XDG_STATE_HOME: tempDir() } };
}

function texts(dir: string): string[] {
  const store = openStore({ store: dir });
  try {
    const view = sessionView(store.loadSession(x.sessionId, "full"), { ...DEFAULT_RULE_OPTIONS, now: Date.UTC(2030, 0, 1), liveWindowMs: 0 });
    return view.conversation.messages.flatMap((m) => m.blocks.flatMap((b) => (b.text !== undefined ? [b.text] : [])));
  } finally {
    store.close();
  }
}

describe("opencode 1.18: a compaction whose summary failed with the overflow text", () => {
  it("stuck-compaction quotes the error, and the repair of the real loop leaves no stray compaction in the request", async () => {
    const { dir, env } = copy();
    const store = openStore({ store: dir });
    const options = { ...DEFAULT_RULE_OPTIONS, now: Date.UTC(2030, 0, 1), liveWindowMs: 0 };
    const found = checkSession(sessionView(store.loadSession(x.sessionId, "lean"), options), RULES, options);
    store.close();
    const stuck = found.filter((f) => f.rule === "stuck-compaction");
    expect(stuck).toHaveLength(1);
    expect(stuck[0]!.message).toContain('its summary failed: "Conversation history too large to compact - exceeds model context limit"');
    expect(texts(dir)).toContain("What did we do so far?");

    const r = await run([...x.recover, "--json", "--store", dir], { env });
    expect(r.status, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as { sessions: { changes: { rules: string[] }[] }[] };
    const rules: Record<string, number> = {};
    for (const c of doc.sessions.flatMap((s) => s.changes)) for (const id of c.rules) rules[id] = (rules[id] ?? 0) + 1;
    expect(rules).toEqual(x.plan.rules);
    expect(texts(dir)).not.toContain("What did we do so far?");
    expect(texts(dir)).toEqual(["Say hello.", "Hello! How can I help?", "Say two.", "two"]);
  });

  it("repair --error with the text opencode stores runs the same repair (the text is a context overflow)", async () => {
    const { dir, env } = copy();
    const r = await run([...x.recover, "--error", "Conversation history too large to compact - exceeds model context limit", "--json", "--store", dir], {
      env,
    });
    expect(r.status, r.stderr).toBe(0);
    expect(texts(dir)).not.toContain("What did we do so far?");
  });
});
