// opencode.db rows whose id or link columns hold something other than text (issue 35): what a user sees. A foreign
// writer that bound bytes for a string, or a disk fault, leaves a blob or a NULL where opencode keeps a text id.
// - a part whose message_id is a blob is read as a part of no message, named by a label that says what is there;
// - rows no session can hold (their own id, or their session_id, not text) are named in one notice, and left alone;
// - `--json` holds every id as a string, and the repair's backup restores every byte of every row.
import Database from "better-sqlite3";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { run } from "../cli/run.js";
import { brokenTurnSession, T0, writeStore } from "../cli/stores.js";
import { sqliteSnapshot } from "../harness/crash-support.js";
import { buildStore, healthySession } from "../support/opencode-fixtures.js";

const DAY = 24 * 60 * 60 * 1000;

function damagedStore() {
  const built = buildStore({ seed: 35, sessions: [healthySession({ start: T0, turns: 2 }), brokenTurnSession(T0 + DAY)] });
  const { store, readPath } = writeStore(built, "opencode-sqlite");
  const db = new Database(readPath);
  db.pragma("foreign_keys = OFF");
  const [first, second] = db.prepare("SELECT id FROM session ORDER BY time_created").pluck().all() as string[];
  const parts = db.prepare("SELECT id FROM part WHERE session_id = ? ORDER BY rowid").pluck().all(first) as string[];
  const messages = db.prepare("SELECT id FROM message WHERE session_id = ? ORDER BY rowid").pluck().all(second) as string[];
  // The first part's link to its message: the same id, bound as bytes.
  db.prepare("UPDATE part SET message_id = CAST(message_id AS BLOB) WHERE id = ?").run(parts[0]);
  // A part moved out of every session by a blob session_id, and a message whose own id became NULL.
  db.prepare("UPDATE part SET session_id = X'deadbeef' WHERE id = ?").run(parts[1]);
  db.prepare("UPDATE message SET id = NULL WHERE id = ?").run(messages.at(-1));
  db.close();
  return { store, readPath, first: first!, second: second!, stateHome: path.join(path.dirname(readPath), "state") };
}

describe("opencode.db: ids that are not text", () => {
  it("scan names them: the part by a label saying what its message_id holds, the rows no session holds in a notice", async () => {
    const { store, first, stateHome } = damagedStore();
    const env = { XDG_STATE_HOME: stateHome };
    const human = await run(["session", "scan", first, "--store", store], { env });
    expect(human.stderr).not.toMatch(/internal error/);
    expect(human.stdout).toMatch(/part belongs to message \(blob 'msg_[0-9a-zA-Z]+'\), which does not exist/);
    expect(human.stderr).toMatch(/note: 2 rows of this database have a non-text id or session link, so no session holds them/);
    expect(human.stderr).toMatch(/message row \d+ \(id \(null\)\)/);
    expect(human.stderr).toMatch(/part row \d+ \(session_id \(blob X'deadbeef'\)\)/);

    const json = await run(["session", "scan", "--all", "--json", "--store", store], { env });
    const doc = JSON.parse(json.stdout) as { store: { notices: string[] }; sessions: { findings: { messageId?: unknown; partId?: unknown }[] }[] };
    expect(doc.store.notices.join("\n")).toMatch(/2 rows of this database/);
    for (const finding of doc.sessions.flatMap((s) => s.findings)) {
      for (const value of [finding.messageId, finding.partId]) if (value !== undefined) expect(typeof value).toBe("string");
    }
  });

  it("repair names the change by strings, its backup reads back, and restore gives back every byte of every row", async () => {
    const { store, readPath, first, stateHome } = damagedStore();
    const env = { XDG_STATE_HOME: stateHome };
    const before = sqliteSnapshot(readPath);
    const repaired = await run(["session", "repair", first, "--yes", "--json", "--store", store], { env });
    expect(repaired.status, repaired.stderr).toBe(0);
    const doc = JSON.parse(repaired.stdout) as { backup: { id: string }; sessions: { changes: Record<string, unknown>[] }[] };
    const changes = doc.sessions.flatMap((s) => s.changes);
    expect(changes.some((c) => typeof c.messageId === "string" && c.messageId.startsWith("(blob 'msg_"))).toBe(true);
    for (const change of changes) for (const field of ["id", "sessionId", "messageId"]) if (field in change) expect(typeof change[field]).toBe("string");
    expect(sqliteSnapshot(readPath)).not.toEqual(before);

    const restored = await run(["session", "restore", doc.backup.id, "--yes", "--json", "--store", store], { env });
    expect(restored.status, restored.stderr).toBe(0);
    expect(sqliteSnapshot(readPath)).toEqual(before);
  });
});
