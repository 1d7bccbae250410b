// Repairs that keep the prefix (issue 36), on stores the real opencode client wrote. Each fixture
// (fixtures/opencode-1.18/prefix-*) is the store as opencode-ai 1.18.33 left it right before recover ran in a real
// repair loop against the binding mock (scripts/clients/capture.mjs opencode, docs/research/opencode-prefix-thinking.md):
// a session on claude-opus-5-5 (or claude-sonnet-4-5) with two thinking blocks per reply, damaged in one place. Its
// expected.json holds recover's command in that loop, the clock it ran at, and the thinking the client sent after the
// repair, which the mock accepted (200, nothing left for `drop_block` to drop): exactly those blocks may stay. Here
// the same command runs in-process on a copy, at the same clock, and the thinking left in the store and in recover's
// view of the request must be exactly that list: one block kept after the changed position, or one dropped before
// it, fails.
import Database from "better-sqlite3";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { sessionView } from "../../src/scan/session-view.js";
import { openStore } from "../../src/stores/discover.js";
import { run, tempDir } from "../cli/run.js";

const FIXTURES = path.resolve("fixtures/opencode-1.18");
const CASES = fs
  .readdirSync(FIXTURES)
  .filter((f) => f.startsWith("prefix-") && fs.existsSync(path.join(FIXTURES, f, "expected.json")))
  .sort();

interface Expected {
  scenario: string;
  sessionId: string;
  model: string;
  /** recover's arguments in the real loop, without `--store`. */
  recover: string[];
  /** When it ran (ms since the epoch): its live window and write guard are judged against this clock. */
  ranAt: number;
  error: string | null;
  plan: { changes: number; rules: Record<string, number>; droppedThinking: number };
  thinkingBefore: string[];
  kept: string[];
  dropped: string[];
}

const expectedOf = (name: string): Expected => JSON.parse(fs.readFileSync(path.join(FIXTURES, name, "expected.json"), "utf8")) as Expected;

/** The signatures of the session's signed reasoning parts, in opencode's order (messages by time and id, parts by id). */
function storedSignatures(db: string, sessionId: string): string[] {
  const conn = new Database(db, { readonly: true });
  try {
    const rows = conn
      .prepare(
        `SELECT p.data FROM part p JOIN message m ON m.id = p.message_id
         WHERE m.session_id = ? ORDER BY m.time_created, m.id, p.id`,
      )
      .pluck()
      .all(sessionId) as string[];
    return rows
      .map((data) => JSON.parse(data) as { type: string; metadata?: { anthropic?: { signature?: string } } })
      .filter((p) => p.type === "reasoning" && p.metadata?.anthropic?.signature)
      .map((p) => p.metadata!.anthropic!.signature!);
  } finally {
    conn.close();
  }
}

/** The signatures of the thinking blocks in recover's view of the request the client will send for the session. */
function requestSignatures(dir: string, sessionId: string): string[] {
  const store = openStore({ store: dir });
  try {
    const view = sessionView(store.loadSession(sessionId, "full"), { now: Date.UTC(2030, 0, 1), liveWindowMs: 0 });
    return view.conversation.messages.flatMap((m) => m.blocks.flatMap((b) => (b.type === "thinking" && b.signature ? [b.signature] : [])));
  } finally {
    store.close();
  }
}

/** A copy of the fixture's store: a data dir holding opencode.db, and a state dir for recover's backups. */
function copyOf(name: string): { dir: string; db: string; env: Record<string, string> } {
  const dir = tempDir();
  const db = path.join(dir, "opencode.db");
  fs.copyFileSync(path.join(FIXTURES, name, "opencode.db"), db);
  return { dir, db, env: { XDG_STATE_HOME: tempDir() } };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("opencode 1.18 prefix fixtures: the repair of the real loop keeps exactly the thinking the binding accepted", () => {
  it("there are fixtures, and each names a repair and the thinking it may keep", () => {
    expect(CASES.length).toBeGreaterThanOrEqual(8);
    for (const name of CASES) {
      const x = expectedOf(name);
      expect(x.recover[0], name).toMatch(/^(session|context)$/);
      expect(
        x.kept.every((s) => x.thinkingBefore.includes(s)),
        name,
      ).toBe(true);
      // What may stay is an unbroken run from the start: dropping is only ever from a position on.
      expect(x.thinkingBefore.slice(0, x.kept.length), name).toEqual(x.kept);
    }
  });

  it.each(CASES)("%s", async (name) => {
    const x = expectedOf(name);
    const { dir, db, env } = copyOf(name);
    expect(storedSignatures(db, x.sessionId)).toEqual(x.thinkingBefore);
    // recover's clock as in the loop: 65 s after the client's last write (its write guard), and the last turn
    // judged or not as it was then (its 10-minute live window).
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(x.ranAt);

    const planned = await run([...x.recover.filter((a) => a !== "--yes"), "--dry-run", "--json", "--store", dir], { env });
    expect(planned.status, planned.stderr).toBe(1);
    const doc = JSON.parse(planned.stdout) as { sessions: { changes: { rules: string[] }[]; droppedThinking?: { blocks: number } }[] };
    const session = doc.sessions.find((s) => s.changes.length > 0)!;
    expect(session.droppedThinking?.blocks ?? 0).toBe(x.plan.droppedThinking);
    const rules: Record<string, number> = {};
    for (const c of session.changes) for (const r of c.rules) rules[r] = (rules[r] ?? 0) + 1;
    expect(rules).toEqual(x.plan.rules);

    const r = await run([...x.recover, "--json", "--store", dir], { env });
    expect(r.status, r.stderr).toBe(0);
    vi.useRealTimers();

    expect(storedSignatures(db, x.sessionId)).toEqual(x.kept);
    expect(requestSignatures(dir, x.sessionId)).toEqual(x.kept);
    if (/claude-sonnet-4-5/.test(x.model)) {
      // An older model binds nothing: whatever the fix changes, no thinking goes for it.
      expect(x.kept).toEqual(x.thinkingBefore);
      expect(x.plan.droppedThinking).toBe(0);
      expect(rules["prefix-bound-thinking"]).toBeUndefined();
    }
  });
});
