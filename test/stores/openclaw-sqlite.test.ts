// openclaw 2026.9's SQLite store, on databases the real client wrote (fixtures/openclaw-2026.9-sqlite; README there):
// list, scan, repair and restore through the CLI, with the damage users report planted the way it happens. A repair
// must leave what the client derives from the events (identities, active path, index state) as the client would, and
// a restore must give back every row of every table the session lives in.
import Database from "better-sqlite3";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { bookkeepingDefects, deriveBookkeeping } from "../../src/stores/openclaw-sqlite/bookkeeping.js";
import { decodeEvent } from "../../src/stores/openclaw-sqlite/event-codec.js";
import { readSessionImage } from "../../src/stores/openclaw-sqlite/session-rows.js";
import { holdOpen } from "../cli/repair-support.js";
import { expectNoStack, parseJsonDocument, run, tempDir } from "../cli/run.js";
import { OPENCLAW_SQLITE_FIXTURES, onlySession, openclawState, plant, repairAndRestore, scanFindings, sessionRows, tearEvent } from "../support/openclaw-db.js";

type ScanDoc = { sessions: { id: string; findings: { rule: string; severity: string; message: string }[] }[] };

/** Each finding of the state dir as `rule severity`. */
async function findings(state: string): Promise<string[]> {
  return (await scanFindings(state)).map((f) => `${f.rule} ${f.severity}`);
}

function query<T>(db: string, sql: string, ...params: unknown[]): T[] {
  const connection = new Database(db, { readonly: true });
  try {
    return connection.prepare(sql).all(...params) as T[];
  } finally {
    connection.close();
  }
}

/** The active path as the client's projection holds it: event types, in order. */
function activePath(db: string): string[] {
  return query<{ type: string }>(
    db,
    "SELECT json_extract(e.event_json, '$.type') || coalesce(':' || json_extract(e.event_json, '$.message.role'), '') AS type FROM session_transcript_active_events a JOIN transcript_events e ON e.session_id = a.session_id AND e.seq = a.event_seq ORDER BY a.active_position",
  ).map((r) => r.type);
}

describe("openclaw 2026.9's SQLite store (a database the real client wrote)", () => {
  it("lists the session by its first prompt, finds nothing wrong in it and leaves it byte for byte", async () => {
    const { state, db } = openclawState("tool-two-turns");
    const bytes = fs.readFileSync(db);
    const list = await run(["session", "list", "--store", state, "--json"]);
    expect(list.status, list.stderr).toBe(0);
    const sessions = (parseJsonDocument(list.stdout) as { sessions: { id: string; title: string; messages: number }[] }).sessions;
    expect(sessions.map((s) => [s.id, s.title, s.messages])).toEqual([[onlySession(db), "Run echo hi and read notes.txt, then tell me both.", 7]]);
    expect(await findings(state)).toEqual([]);
    const repair = await run(["session", "repair", "--all", "--yes", "--include-live", "--store", state]);
    expect(repair.status, repair.stderr).toBe(0);
    expect(fs.readFileSync(db).equals(bytes)).toBe(true);
  });

  it("opens the database from the state dir, the agent's folder or the file, and names it by its session key", async () => {
    const { state, db } = openclawState("tool-two-turns");
    for (const store of [state, path.dirname(path.dirname(db)), db]) {
      const r = await run(["session", "scan", "agent:main:main", "--include-live", "--store", store]);
      expect(r.status, `${store}: ${r.stderr}`).toBe(0);
      expect(r.stderr).toContain(`(openclaw-sqlite)`);
    }
  });

  it("a torn event in the middle: its place in the chain is kept by a placeholder, the calls it held lose their results, the rest of the history stays", async () => {
    const { state, db } = openclawState("tool-two-turns");
    // seq 5: the assistant message calling exec and read.
    tearEvent(db, 5, 180);
    // The results of the calls the torn row held answer nothing: the client drops them before sending (a warning).
    expect(await findings(state)).toEqual(["unreadable-record error", "orphan-tool-result warning", "orphan-tool-result warning"]);
    const { after } = await repairAndRestore(state, db);
    const rows = JSON.parse(after) as { transcript_events: { seq: number; event_json: string }[] };
    const placeholder = JSON.parse(rows.transcript_events.find((r) => r.seq === 5)!.event_json) as Record<string, unknown>;
    expect(placeholder).toMatchObject({ type: "custom", customType: "recover:unreadable-event", id: "b9a31140-fd64-4ede-a80a-148b9ee51ba9" });
    expect(placeholder.parentId).toBe("4ea4421a-8b5b-4a1e-94b6-020617120509");
    // The two results are gone, the rows after them renumbered densely, as the client rewrites a suffix.
    expect(rows.transcript_events.map((r) => r.seq)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
  });

  it("the projection after a repair is the one the client derives: every event on the chain, messages numbered, the index current", async () => {
    const { state, db } = openclawState("tool-two-turns");
    tearEvent(db, 13, 150);
    const id = onlySession(db);
    const r = await run(["session", "repair", id, "--yes", "--force", "--include-live", "--store", state]);
    expect(r.status, r.stderr).toBe(0);
    expect(activePath(db)).toEqual([
      "model_change",
      "thinking_level_change",
      "custom",
      "message:user",
      "message:assistant",
      "message:toolResult",
      "message:toolResult",
      "custom",
      "message:assistant",
      "custom",
      "custom",
      "message:user",
      "custom",
      "custom",
      "custom",
    ]);
    const [state0] = query<{ indexed_seq: number; needs_rebuild: number; active_event_count: number; active_message_count: number }>(
      db,
      "SELECT * FROM session_transcript_index_state",
    );
    expect(state0).toMatchObject({ indexed_seq: 15, needs_rebuild: 0, active_event_count: 15, active_message_count: 6 });
    // The search index follows: the torn answer ("No.") is gone from it, the texts still on the branch stay.
    expect(query<{ text: string; role: string }>(db, "SELECT text, role FROM session_transcript_fts ORDER BY rowid")).toEqual([
      { text: "Run echo hi and read notes.txt, then tell me both.", role: "user" },
      { text: "echo printed hi; notes.txt has alpha and beta.", role: "assistant" },
      { text: "Thanks. Anything else?", role: "user" },
    ]);
    const identities = query<{ seq: number; event_id: string; parent_id: string | null }>(
      db,
      "SELECT seq, event_id, parent_id FROM transcript_event_identities ORDER BY seq",
    );
    const events = query<{ seq: number; json: string }>(db, "SELECT seq, event_json AS json FROM transcript_events ORDER BY seq");
    expect(identities.map((i) => [i.seq, i.event_id, i.parent_id])).toEqual(
      events.map((e) => {
        const v = JSON.parse(e.json) as { id: string; parentId?: string | null };
        return [e.seq, v.id, v.parentId ?? null];
      }),
    );
  });

  it("event_utf8_bytes that disagrees with its event is derived again; nothing else of the row changes", async () => {
    const { state, db } = openclawState("tool-two-turns");
    plant(db, (c) => c.prepare("UPDATE transcript_events SET event_utf8_bytes = event_utf8_bytes + 3 WHERE seq = 6").run());
    expect(await findings(state)).toEqual(["stale-bookkeeping error"]);
    await repairAndRestore(state, db);
  });

  it("a session with no session_windows row gets the one the client makes for its first event", async () => {
    const { state, db } = openclawState("tool-two-turns");
    const [window] = query<Record<string, unknown>>(db, "SELECT session_id, session_key, reason, session_scope FROM session_windows");
    plant(db, (c) => c.prepare("DELETE FROM session_windows").run());
    expect(await findings(state)).toEqual(["stale-bookkeeping error"]);
    const id = onlySession(db) ?? window!.session_id;
    const r = await run(["session", "repair", String(id), "--yes", "--force", "--include-live", "--store", state]);
    expect(r.status, r.stderr).toBe(0);
    expect(query(db, "SELECT session_id, session_key, reason, session_scope FROM session_windows")).toEqual([window]);
    expect(query(db, "PRAGMA foreign_key_check")).toEqual([]);
  });

  it("a session key left pointing at a session with no rows is pointed back, its entry naming the session, valid", async () => {
    const { state, db } = openclawState("tool-two-turns");
    const id = onlySession(db);
    plant(db, (c) => c.prepare("UPDATE session_nodes SET current_session_id = '00000000-0000-4000-8000-000000000000'").run());
    expect(await findings(state)).toEqual(["stale-bookkeeping error"]);
    await repairAndRestore(state, db);
    const r = await run(["session", "repair", id, "--yes", "--force", "--include-live", "--store", state]);
    expect(r.status, r.stderr).toBe(0);
    const [node] = query<{ current_session_id: string; entry_valid: number; entry_json: string }>(db, "SELECT * FROM session_nodes");
    expect(node!.current_session_id).toBe(id);
    expect(node!.entry_valid).toBe(1);
    expect((JSON.parse(node!.entry_json) as { sessionId: string }).sessionId).toBe(id);
  });

  it("is found without --store where openclaw keeps it: $OPENCLAW_STATE_DIR, else ~/.openclaw", async () => {
    const { state, db } = openclawState("tool-two-turns");
    const home = tempDir();
    const none = { XDG_DATA_HOME: "", CLAUDE_CONFIG_DIR: "", CODEX_HOME: "", GEMINI_CLI_HOME: "", OPENCODE_DB: "" };
    const byEnv = await run(["store", "list", "--json"], { env: { ...none, HOME: home, OPENCLAW_STATE_DIR: state } });
    expect(byEnv.status, byEnv.stderr).toBe(0);
    const stores = (parseJsonDocument(byEnv.stdout) as { stores: { agent: string; format: string; path: string }[] }).stores;
    expect(stores.map((s) => [s.agent, s.format, s.path])).toEqual([["openclaw", "openclaw-sqlite", db]]);
    fs.cpSync(state, path.join(home, ".openclaw"), { recursive: true });
    const byHome = await run(["session", "list", "--json", "--agent", "openclaw"], { env: { ...none, HOME: home, OPENCLAW_STATE_DIR: "" } });
    expect(byHome.status, byHome.stderr).toBe(0);
    expect((parseJsonDocument(byHome.stdout) as { sessions: { id: string }[] }).sessions.map((s) => s.id)).toEqual([onlySession(db)]);
  });

  it("refuses a forced format that is not what is on disk, either way round", async () => {
    const { state, db } = openclawState("tool-two-turns");
    const opencode = await run(["session", "scan", "--format", "opencode-sqlite", "--store", db]);
    expect(opencode.status).toBe(2);
    expect(opencode.stderr).toMatch(/is an openclaw agent database, not an opencode SQLite store/);
    const other = path.join(tempDir(), "opencode.db");
    new Database(other).exec("CREATE TABLE session (id TEXT PRIMARY KEY)").close();
    const openclaw = await run(["session", "scan", "--format", "openclaw-sqlite", "--store", other]);
    expect(openclaw.status).toBe(2);
    expectNoStack(openclaw.stderr);
    expect(state).toBeTruthy();
  });
});

describe("event_zstd rows", () => {
  // One event as the client's Node 24 zlib stores it: zstd level 1, content checksum on (docs/research/openclaw-sqlite.md §4).
  const FRAME = Buffer.from(
    "KLUv/WTlBQ0FACILIh9gSasDBuu90BlJaeqPdoN9KBdRcchsfHI4jQQIArECTfOoCknDB6FAZD4IjYldvgTyiDumTu/y5XuQXvd1L8HHSx06/aYG0jq9DlUVcLyqxBPoe+v09UEzeWyAEDIkQgUARpFScTCQ4XTS1MY3tj6qikuvY92hSnyc7vRiPr6CivHN6ScLayYHABGE+SFA4SC9gmvmBNOEg3UPW3cGpQp5ew==",
    "base64",
  );

  it("decode to the event's JSON, checked against the length the row records", () => {
    const decoded = decodeEvent(null, FRAME, 1765);
    expect("text" in decoded && JSON.parse(decoded.text.toString("utf8"))).toMatchObject({ type: "message", id: "e1" });
    expect(decodeEvent(null, FRAME, 1764)).toEqual({ problem: "event_zstd decodes to 1765 bytes, but event_utf8_bytes says 1764" });
  });

  it("a flipped byte fails as the client fails: the content checksum does not match", () => {
    const bad = Buffer.from(FRAME);
    bad[40] = bad[40]! ^ 0x01;
    const decoded = decodeEvent(null, bad, 1765);
    expect("problem" in decoded && decoded.problem).toMatch(/^event_zstd does not decode/);
  });
});

describe("what recover derives from the events is what the client itself stored", () => {
  // Every store the real client left consistent: its identities, active path (leaf controls and side branches
  // included) and index state are recover's derivation, cell for cell.
  it.each(["tool-two-turns", "healthy-sqlite", "edited-thinking-latest", "legacy-refused"])("%s", (name) => {
    const { db } = openclawState(name);
    const connection = new Database(db, { readonly: true });
    try {
      const present = new Set(connection.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").pluck().all() as string[]);
      const ids = connection.prepare("SELECT session_id FROM session_windows").pluck().all() as string[];
      expect(ids.length).toBeGreaterThan(0);
      for (const id of ids) {
        const image = readSessionImage(connection, id, present);
        expect(bookkeepingDefects(image)).toEqual([]);
        const derived = deriveBookkeeping(image, image, Date.now());
        for (const table of [
          "transcript_event_identities",
          "session_transcript_active_events",
          "session_transcript_index_state",
          "session_transcript_fts_rows",
          "session_transcript_fts",
        ] as const) {
          expect(derived.tables[table], `${id} ${table}`).toEqual(image.tables[table]);
        }
      }
    } finally {
      connection.close();
    }
  });
});

describe("the damage reproduced with the real client (fixtures/openclaw-2026.9-sqlite, docs/research/openclaw-sqlite-damage.md)", () => {
  it.each([
    ["torn-event", "unreadable-record error"],
    ["corrupt-zstd", "unreadable-record error"],
    ["missing-window", "stale-bookkeeping error"],
    ["dangling-node", "stale-bookkeeping error"],
  ])("%s: found, repaired, clean after, restored row for row", async (name, finding) => {
    const { state, db } = openclawState(name);
    expect(await findings(state)).toEqual([finding]);
    await repairAndRestore(state, db);
  });

  it("killed-mid-call: the client answers the call itself in every request, so it is a warning recover leaves alone", async () => {
    const { state, db } = openclawState("killed-mid-call");
    const bytes = fs.readFileSync(db);
    const r = await run(["session", "scan", "--all", "--include-live", "--json", "--store", state]);
    expect(r.status, r.stderr).toBe(0);
    const [finding] = (parseJsonDocument(r.stdout) as ScanDoc).sessions.flatMap((s) => s.findings) as (ScanDoc["sessions"][number]["findings"][number] & {
      fixable: boolean;
    })[];
    expect(finding).toMatchObject({ rule: "tool-result-missing", severity: "warning", fixable: false });
    expect(finding!.message).toContain('openclaw 2026.9 sends "No result provided" for it in every request');
    const repair = await run(["session", "repair", "--all", "--yes", "--force", "--include-live", "--store", state]);
    expect(repair.status, repair.stderr).toBe(0);
    expect(fs.readFileSync(db).equals(bytes)).toBe(true);
  });

  it("corrupt-zstd names what the client fails on, and the placeholder keeps the row's place", async () => {
    const { state, db } = openclawState("corrupt-zstd");
    const r = await run(["session", "scan", "--all", "--include-live", "--store", state]);
    expect(r.stdout).toContain("event_zstd does not decode (its content checksum does not match)");
    const repaired = await run(["session", "repair", onlySession(db), "--yes", "--force", "--include-live", "--store", state]);
    expect(repaired.status, repaired.stderr).toBe(0);
    const [row] = query<{ event_json: string; event_zstd: Buffer | null; navigation_json: string | null; event_utf8_bytes: number }>(
      db,
      "SELECT * FROM transcript_events WHERE event_json LIKE '%recover:unreadable-event%'",
    );
    expect(row!.event_zstd).toBeNull();
    expect(row!.navigation_json).toBeNull();
    expect(row!.event_utf8_bytes).toBe(Buffer.byteLength(row!.event_json));
    expect(JSON.parse(row!.event_json)).toMatchObject({ type: "custom", data: { eventType: "message" } });
  });
});

describe("a legacy transcript openclaw doctor refused (fixtures/openclaw-2026.9-sqlite/legacy-refused.*)", () => {
  function legacyState() {
    const { state, db } = openclawState("legacy-refused");
    const sessions = path.join(state, "agents", "main", "sessions");
    fs.cpSync(path.join(OPENCLAW_SQLITE_FIXTURES, "legacy-refused.sessions"), sessions, { recursive: true });
    const file = fs.readdirSync(sessions).find((f) => f.endsWith(".jsonl"))!;
    return { state, db, sessions, file, id: file.replace(/\.jsonl$/, "") };
  }

  it("is listed as a session the database lacks, with the command that brings it in", async () => {
    const { state, sessions, id } = legacyState();
    const r = await run(["session", "list", "--store", state]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`only in ${sessions}`);
    expect(r.stdout).toContain(id);
    expect(r.stdout).toContain(`session import --all --from ${sessions}`);
  });

  it("session import brings it in with its header naming its file's id, every other line byte for byte; restore takes it out again", async () => {
    const { state, db, sessions, file, id } = legacyState();
    const before = sessionRows(db);
    const r = await run(["session", "import", "--all", "--from", sessions, "--yes", "--store", state]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/its header named "[0-9a-f-]+", not the id of its file/);
    const lines = fs.readFileSync(path.join(sessions, file), "utf8").trimEnd().split("\n");
    const events = query<{ json: string }>(db, "SELECT event_json AS json FROM transcript_events WHERE session_id = ? ORDER BY seq", id).map((e) => e.json);
    expect(events.slice(1)).toEqual(lines.slice(1));
    expect(JSON.parse(events[0]!)).toEqual({ ...(JSON.parse(lines[0]!) as object), id });
    expect(await findings(state)).toEqual([]);
    // The key goes on continuing the session the client started; the imported one is a session of that key.
    expect(query(db, "SELECT session_key FROM session_windows WHERE session_id = ?", id)).toEqual([{ session_key: "agent:main:main" }]);
    expect(query(db, "PRAGMA foreign_key_check")).toEqual([]);
    const again = await run(["session", "import", "--all", "--from", sessions, "--yes", "--store", state]);
    expect(again.status, again.stderr).toBe(0);
    const restored = await run(["session", "restore", "--last", "--yes", "--store", state]);
    expect(restored.status, restored.stderr).toBe(0);
    expect(sessionRows(db)).toBe(before);
  });
});

describe("session restore --last --store", () => {
  it("restores that store's newest backup, not the one another store's repair took since", async () => {
    const env = { XDG_STATE_HOME: tempDir() };
    const a = openclawState("torn-event");
    const b = openclawState("missing-window");
    const beforeA = sessionRows(a.db);
    for (const { state, db } of [a, b]) {
      const r = await run(["session", "repair", onlySession(db), "--yes", "--force", "--include-live", "--store", state], { env });
      expect(r.status, r.stderr).toBe(0);
    }
    const afterB = sessionRows(b.db);
    const restored = await run(["session", "restore", "--last", "--yes", "--store", a.state], { env });
    expect(restored.status, restored.stderr).toBe(0);
    expect(sessionRows(a.db)).toBe(beforeA);
    expect(sessionRows(b.db)).toBe(afterB);
    const none = await run(["session", "restore", "--last", "--yes", "--store", openclawState("healthy-sqlite").state], { env });
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(/no backups of .*openclaw-agent\.sqlite in /);
  });
});

describe("openclaw SQLite: what is not recover's to change", () => {
  it("a running client holding the database open: the repair is refused (exit 3), the database untouched", async () => {
    const { state, db } = openclawState("torn-event");
    const before = sessionRows(db);
    const holder = await holdOpen(db);
    try {
      const r = await run(["session", "repair", onlySession(db), "--yes", "--include-live", "--store", state]);
      expect(r.status, r.stderr).toBe(3);
      expectNoStack(r.stderr);
      expect(r.stderr).toContain(String(holder.pid));
    } finally {
      await holder.stop();
    }
    expect(sessionRows(db)).toBe(before);
  });

  it("a restore after the client wrote on: refused (exit 3), what the client wrote kept", async () => {
    const { state, db } = openclawState("torn-event");
    const id = onlySession(db);
    const repaired = await run(["session", "repair", id, "--yes", "--force", "--include-live", "--store", state]);
    expect(repaired.status, repaired.stderr).toBe(0);
    // The client appends the next turn's first event, as it does: the next seq, plain event_json.
    plant(db, (c) => {
      const seq = (c.prepare("SELECT max(seq) FROM transcript_events").pluck().get() as number) + 1;
      const json = JSON.stringify({
        type: "custom",
        customType: "openclaw.cache-ttl",
        data: {},
        id: "e-after",
        parentId: null,
        timestamp: new Date().toISOString(),
      });
      c.prepare("INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_utf8_bytes) VALUES (?, ?, ?, ?, ?)").run(
        id,
        seq,
        json,
        Date.now(),
        json.length,
      );
    });
    const after = sessionRows(db);
    const restored = await run(["session", "restore", "--last", "--yes", "--store", state]);
    expect(restored.status, restored.stderr).toBe(3);
    expectNoStack(restored.stderr);
    expect(sessionRows(db)).toBe(after);
  });
});
