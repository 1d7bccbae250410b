// Issue 14.4: a message record rebuilt by `session repair` keeps its place in the conversation. On the JSON tree a
// torn file has no readable time, and its mtime (set by any later write or copy) once sorted a session's first
// prompt last; opencode orders messages by (time.created, id), so the rebuilt time must lie between its
// neighbours, and be an integer as opencode writes it. Real stores of both formats, through main().
import Database from "better-sqlite3";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildStore, healthySession, type BuiltSession, type Corrupt } from "../support/opencode-fixtures.js";
import { sandbox, type TestStore, writeTestStore } from "./repair-support.js";
import { parseJsonDocument } from "./run.js";
import { FORMATS, T0 } from "./stores.js";

/** Cuts a record right after the field `"name": value` (pretty or compact JSON), as a crash mid-write does. */
function truncateAfterField(name: string, value: string): Corrupt {
  return (text) => {
    const match = new RegExp(`"${name}":\\s*"${value}"`).exec(text);
    if (!match) throw new Error(`no ${name} in ${text}`);
    return text.slice(0, match.index + match[0].length);
  };
}

/** Each message's stored time.created, in the order opencode reads them: (time.created, id). */
function storedOrder(store: TestStore, session: BuiltSession): { id: string; created: number }[] {
  let rows: { id: string; created: number }[];
  if (store.format === "opencode-sqlite") {
    const db = new Database(store.readPath, { readonly: true });
    try {
      const all = db.prepare("SELECT id, data FROM message WHERE session_id = ?").all(session.id) as { id: string; data: string }[];
      rows = all.map((r) => ({ id: r.id, created: (JSON.parse(r.data) as { time: { created: number } }).time.created }));
    } finally {
      db.close();
    }
  } else {
    const dir = path.join(store.readPath, "message", session.id);
    rows = fs.readdirSync(dir).map((file) => {
      const info = JSON.parse(fs.readFileSync(path.join(dir, file), "utf8")) as { id: string; time: { created: number } };
      return { id: info.id, created: info.time.created };
    });
  }
  return rows.sort((a, b) => a.created - b.created || (a.id < b.id ? -1 : 1));
}

async function scanErrors(sb: ReturnType<typeof sandbox>, store: TestStore): Promise<string[]> {
  const r = await sb.run(["session", "scan", "--all", "--json", "--store", store.store]);
  const doc = parseJsonDocument(r.stdout) as { sessions: { findings: { rule: string; severity: string; messageId?: string }[] }[] };
  return doc.sessions.flatMap((s) => s.findings.filter((f) => f.severity === "error").map((f) => `${f.rule} ${f.messageId}`));
}

/** opencode's message ids wrapped here (reference opencode.md §1.3): an id minted just before sorts after those minted after. */
const WRAP = Date.parse("2026-08-14T11:19:55.136Z");

/** A start that puts the wrap between the session's first prompt and its first reply. */
function straddlingWrap(): number {
  const [first, second] = buildStore({ seed: 4, sessions: [healthySession({ start: WRAP, turns: 3 })] }).sessions[0]!.messages;
  return WRAP - Math.floor((first!.created + second!.created) / 2 - WRAP);
}

describe.each(FORMATS)("a rebuilt message keeps its place (%s)", (format) => {
  it.each([
    ["after its agent field (its time survived the cut)", truncateAfterField("agent", "build"), T0],
    ["after its role (its time is lost)", truncateAfterField("role", "user"), T0],
    ["after its role, its id minted just before the id wrap", truncateAfterField("role", "user"), straddlingWrap()],
  ])("the first prompt, torn %s, stays first, at an integer time between its neighbours", async (_what, corrupt, start) => {
    const spec = healthySession({ start, turns: 3 });
    spec.messages[0]!.corrupt = corrupt;
    const built = buildStore({ seed: 4, sessions: [spec] });
    const session = built.sessions[0]!;
    if (start < WRAP) expect(session.messages[0]!.id > session.messages[1]!.id, "the first id sorts last as a string").toBe(true);
    const store = writeTestStore(built, format);
    const sb = sandbox();
    expect(await scanErrors(sb, store)).toContain(`unreadable-record ${session.messages[0]!.id}`);

    const r = await sb.run(["session", "repair", "--all", "--yes", "--store", store.store]);
    expect(r.status, r.stdout + r.stderr).toBe(0);

    const order = storedOrder(store, session);
    expect(order.map((m) => m.id)).toEqual(session.messages.map((m) => m.id));
    const rebuilt = order[0]!;
    expect(Number.isInteger(rebuilt.created)).toBe(true);
    expect(rebuilt.created).toBeLessThan(order[1]!.created);
    // Its own time (kept by the cut, or minted into its id by opencode) is exactly the time it had.
    expect(rebuilt.created).toBe(session.messages[0]!.created);
    expect(await scanErrors(sb, store)).toEqual([]);
  });
});
