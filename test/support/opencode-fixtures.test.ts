import Database from "better-sqlite3";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  ascendingId,
  buildStore,
  descendingId,
  healthySession,
  mulberry32,
  replaceWithBytes,
  truncateAfter,
  writeJsonStore,
  writeSqliteStore,
  type Json,
  type StoreSpec,
} from "./opencode-fixtures.js";

const WRAP = Date.parse("2026-08-14T11:19:55.136Z");
const ID_SHAPE = /^(ses|msg|prt)_[0-9a-f]{12}[0-9A-Za-z]{14}$/;

const dirs: string[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "recover-fixtures-"));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function openDb(file: string): Database.Database {
  return new Database(file, { readonly: true });
}

describe("ids", () => {
  it("match the worked examples of the reference (§1.3)", () => {
    expect(ascendingId("msg", Date.parse("2025-12-01T00:00:00Z"))).toMatch(/^msg_ad7358400001[0-9A-Za-z]{14}$/);
    expect(ascendingId("msg", Date.parse("2026-10-01T00:00:00Z"))).toMatch(/^msg_0f4c2c400001[0-9A-Za-z]{14}$/);
  });

  it("have the Identifier shape and are deterministic for a PRNG seed", () => {
    const a = ascendingId("prt", 1_790_000_000_000, 3, mulberry32(7));
    const b = ascendingId("prt", 1_790_000_000_000, 3, mulberry32(7));
    expect(a).toBe(b);
    expect(a).toMatch(ID_SHAPE);
    expect(a).toHaveLength(4 + 26);
    expect(descendingId("ses", 1_790_000_000_000)).toMatch(ID_SHAPE);
  });

  it("ascending ids sort by time, descending ids sort newest first", () => {
    const t = Date.parse("2026-03-01T10:00:00Z");
    expect(ascendingId("msg", t) < ascendingId("msg", t + 1)).toBe(true);
    expect(ascendingId("msg", t, 1) < ascendingId("msg", t, 2)).toBe(true);
    expect(descendingId("ses", t + 1) < descendingId("ses", t)).toBe(true);
  });

  it("wrap: ids minted from 2026-08-14T11:19:55.136Z sort before earlier ones", () => {
    const before = ascendingId("msg", WRAP - 1);
    const after = ascendingId("msg", WRAP);
    expect(before.slice(4, 16)).toBe("fffffffff001");
    expect(after.slice(4, 16)).toBe("000000000001");
    expect(after < before).toBe(true);
    expect(ascendingId("msg", Date.parse("2026-11-22T08:00:00Z")) < ascendingId("msg", Date.parse("2026-08-01T08:00:00Z"))).toBe(true);
  });
});

describe("buildStore", () => {
  const spec: StoreSpec = {
    seed: 42,
    sessions: [
      {
        created: Date.parse("2026-05-04T08:00:00Z"),
        messages: [
          { role: "user", parts: [{ data: { type: "text", text: "hi" } }] },
          {
            role: "assistant",
            info: { time: { completed: undefined }, finish: undefined },
            parts: [{ data: { type: "tool", callID: "toolu_01x", tool: "bash", state: { status: "running", input: {}, time: { start: 1 } } } }],
          },
        ],
      },
    ],
  };

  it("is deterministic for a seed", () => {
    expect(buildStore(spec)).toEqual(buildStore(spec));
    expect(buildStore({ ...spec, seed: 43 }).sessions[0]!.id).not.toBe(buildStore(spec).sessions[0]!.id);
  });

  it("spaces messages a minute apart and parts a second apart, with assistant defaults", () => {
    const s = buildStore(spec).sessions[0]!;
    const [user, assistant] = s.messages;
    expect(user!.created).toBe(Date.parse("2026-05-04T08:00:00Z"));
    expect(assistant!.created - user!.created).toBe(60_000);
    expect(assistant!.parts[0]!.created - assistant!.created).toBe(1_000);
    expect(assistant!.info).toMatchObject({
      role: "assistant",
      parentID: user!.id,
      modelID: "claude-sonnet-4-5",
      providerID: "anthropic",
      path: { cwd: s.info.directory },
    });
    expect(user!.info).toMatchObject({ agent: "build", model: { providerID: "anthropic", modelID: "claude-sonnet-4-5" } });
  });

  it("removes default keys set to undefined", () => {
    const assistant = buildStore(spec).sessions[0]!.messages[1]!;
    const time = assistant.info!.time as Json;
    expect(time.created).toBe(assistant.created);
    expect("completed" in time).toBe(false);
    expect("finish" in assistant.info!).toBe(false);
  });

  it("defaults finish to tool-calls when the message has tool parts", () => {
    const store = buildStore({
      sessions: [
        {
          messages: [
            { role: "user", parts: [] },
            { role: "assistant", parts: [{ data: { type: "tool", callID: "c", tool: "read", state: {} } }] },
          ],
        },
      ],
    });
    expect(store.sessions[0]!.messages[1]!.info!.finish).toBe("tool-calls");
  });
});

describe("writeSqliteStore", () => {
  const store = buildStore({
    seed: 3,
    sessions: [
      {
        ...healthySession({ start: Date.parse("2026-06-01T09:00:00Z") }),
        orphanParts: [
          { messageId: ascendingId("msg", Date.parse("2026-06-01T09:30:00Z"), 1, mulberry32(1)), parts: [{ data: { type: "text", text: "left behind" } }] },
        ],
      },
      {
        created: Date.parse("2026-06-02T09:00:00Z"),
        messages: [
          {
            role: "assistant",
            parts: [
              { data: { type: "text", text: "x" }, raw: Buffer.from([0x7b, 0x22, 0x74, 0xff, 0xfe, 0x22]) },
              { data: { type: "text", text: "truncated here please" }, corrupt: truncateAfter("truncated ") },
            ],
          },
        ],
      },
    ],
  });

  function written(): Database.Database {
    return openDb(writeSqliteStore(tempDir(), store));
  }

  it("creates a checkpointed WAL database with the 1.18 V1 tables", () => {
    const dir = tempDir();
    const file = writeSqliteStore(dir, store);
    expect(file).toBe(path.join(dir, "opencode.db"));
    expect(fs.existsSync(`${file}-wal`) ? fs.statSync(`${file}-wal`).size : 0).toBe(0);
    const db = openDb(file);
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
    expect(tables).toEqual(["message", "part", "permission", "project", "session", "session_share", "todo"]);
    const columns = db.prepare("SELECT name FROM pragma_table_info('session')").pluck().all();
    expect(columns).toEqual(expect.arrayContaining(["workspace_id", "path", "metadata", "cost", "tokens_cache_write", "agent", "model"]));
    db.close();
  });

  it("stores data without id fields and times in columns", () => {
    const db = written();
    const messages = db.prepare("SELECT id, time_created, data FROM message").all() as { id: string; time_created: number; data: string }[];
    expect(messages.length).toBeGreaterThan(0);
    for (const row of messages) {
      const data = JSON.parse(row.data) as Json;
      expect(data).not.toHaveProperty("id");
      expect(data).not.toHaveProperty("sessionID");
      expect((data.time as Json).created).toBe(row.time_created);
    }
    const parts = db.prepare("SELECT data FROM part WHERE data LIKE '{%}'").pluck().all() as string[];
    for (const data of parts) {
      if (!data.endsWith("}")) continue;
      const json = JSON.parse(data) as Json;
      for (const key of ["id", "sessionID", "messageID"]) expect(json).not.toHaveProperty(key);
    }
    db.close();
  });

  it("stores raw and corrupted bytes verbatim as TEXT", () => {
    const db = written();
    const rows = db
      .prepare("SELECT typeof(data) AS type, CAST(data AS BLOB) AS bytes FROM part WHERE session_id = ? ORDER BY id")
      .all(store.sessions[1]!.id) as { type: string; bytes: Buffer }[];
    expect(rows.map((r) => r.type)).toEqual(["text", "text"]);
    expect(rows[0]!.bytes.equals(Buffer.from([0x7b, 0x22, 0x74, 0xff, 0xfe, 0x22]))).toBe(true);
    expect(rows[1]!.bytes.toString()).toBe('{"type":"text","text":"truncated ');
    db.close();
  });

  it("keeps orphan parts whose message does not exist", () => {
    const db = written();
    const orphans = db.prepare("SELECT p.id FROM part p LEFT JOIN message m ON m.id = p.message_id WHERE m.id IS NULL").pluck().all();
    expect(orphans).toEqual([store.sessions[0]!.orphanParts[0]!.id]);
    db.close();
  });
});

describe("writeJsonStore", () => {
  const store = buildStore({
    sessions: [
      {
        ...healthySession({ start: Date.parse("2026-01-10T09:00:00Z") }),
        orphanParts: [{ messageId: "msg_9b0000000001AAAAAAAAAAAAAA", parts: [{ data: { type: "text", text: "orphan" } }] }],
      },
      {
        messages: [
          {
            role: "user",
            raw: '{"role":"us',
            parts: [{ data: { type: "tool", output: "Müller" }, corrupt: replaceWithBytes("Müller", Buffer.from([0x4d, 0xfc])) }],
          },
        ],
      },
    ],
  });

  it("writes the ≤1.1.65 layout with pretty JSON including ids", () => {
    const root = writeJsonStore(tempDir(), store);
    expect(fs.readFileSync(path.join(root, "migration"), "utf8")).toBe("2");
    const s = store.sessions[0]!;
    expect(fs.existsSync(path.join(root, "project", `${s.projectID}.json`))).toBe(true);
    const sessionText = fs.readFileSync(path.join(root, "session", s.projectID, `${s.id}.json`), "utf8");
    expect(sessionText).toBe(JSON.stringify(s.info, null, 2));
    const m = s.messages[1]!;
    const message = JSON.parse(fs.readFileSync(path.join(root, "message", s.id, `${m.id}.json`), "utf8")) as Json;
    expect(message).toMatchObject({ id: m.id, sessionID: s.id, role: "assistant" });
    const p = m.parts[0]!;
    const partText = fs.readFileSync(path.join(root, "part", m.id, `${p.id}.json`), "utf8");
    expect(partText).toContain('\n  "id": ');
    expect(JSON.parse(partText)).toEqual({ id: p.id, sessionID: s.id, messageID: m.id, ...p.data });
    expect(fs.readdirSync(path.join(root, "part", s.orphanParts[0]!.messageId))).toHaveLength(1);
  });

  it("writes raw and corrupted records verbatim", () => {
    const root = writeJsonStore(tempDir(), store);
    const s = store.sessions[1]!;
    const m = s.messages[0]!;
    expect(fs.readFileSync(path.join(root, "message", s.id, `${m.id}.json`), "utf8")).toBe('{"role":"us');
    const bytes = fs.readFileSync(path.join(root, "part", m.id, `${m.parts[0]!.id}.json`));
    expect(bytes.includes(Buffer.from([0x22, 0x4d, 0xfc, 0x22]))).toBe(true);
  });
});

describe("healthySession", () => {
  it("is complete, signed and uses unique call ids", () => {
    const s = buildStore({ sessions: [healthySession({ turns: 5 })] }).sessions[0]!;
    expect(s.messages.filter((m) => m.role === "user")).toHaveLength(5);
    const callIDs: string[] = [];
    for (const m of s.messages) {
      if (m.role === "assistant") {
        expect((m.info!.time as Json).completed).toEqual(expect.any(Number));
        expect(m.info!.finish).toBe("stop");
        expect(m.info!.error).toBeUndefined();
      }
      for (const p of m.parts) {
        const d = p.data!;
        if (d.type === "reasoning") expect((d.metadata as { anthropic: { signature: string } }).anthropic.signature.length).toBeGreaterThan(100);
        if (d.type === "text") expect(String(d.text).trim()).not.toBe("");
        if (d.type === "tool") {
          expect((d.state as Json).status).toBe("completed");
          callIDs.push(String(d.callID));
        }
      }
      // parts are ordered by id in opencode; the builder's ids must follow part order
      const ids = m.parts.map((p) => p.id);
      expect([...ids].sort()).toEqual(ids);
    }
    // every record is minted after the one before it, as on opencode's clock
    const times = s.messages.flatMap((m) => [m.created, ...m.parts.map((p) => p.created)]);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(new Set(times).size).toBe(times.length);
    expect(callIDs.length).toBeGreaterThan(3);
    expect(new Set(callIDs).size).toBe(callIDs.length);
    expect(s.messages.flatMap((m) => m.parts).some((p) => p.data!.type === "file")).toBe(true);
  });
});
