// Issue 14.5: a warning never wipes a conversation. A session whose record (SQLite row, JSON-tree file) is gone
// while its messages and parts are intact got one orphan-part warning per message, and `repair --all --yes`
// deleted every message and part. Now the session record is recreated from what its messages say, so opencode
// lists the session again, and nothing is deleted. Real stores of both formats, through main().
import Database from "better-sqlite3";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { validateSessionInfo } from "../../src/model/opencode.js";
import { buildStore, healthySession } from "../support/opencode-fixtures.js";
import { dropSessionRecord } from "../rules/harness.js";
import { printedBackup, sandbox, storeState, type TestStore, writeTestStore } from "./repair-support.js";
import { parseJsonDocument } from "./run.js";
import { DAY, FORMATS, T0 } from "./stores.js";

/** Every message and part record of the store (what a repair must not delete), without the session records. */
function conversationRecords(store: TestStore): Record<string, string> {
  return Object.fromEntries(Object.entries(storeState(store)).filter(([key]) => !key.startsWith("session")));
}

/** The session row as opencode 1.18 reads it: every column by name (SQLite), or the session file (JSON tree). */
function sessionRecord(store: TestStore, projectID: string, id: string): Record<string, unknown> | undefined {
  if (store.format === "opencode-sqlite") {
    const db = new Database(store.readPath, { readonly: true });
    try {
      return db.prepare("SELECT * FROM session WHERE id = ?").get(id) as Record<string, unknown> | undefined;
    } finally {
      db.close();
    }
  }
  const file = path.join(store.readPath, "session", projectID, `${id}.json`);
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>) : undefined;
}

describe.each(FORMATS)("a session whose record is missing (%s)", (format) => {
  it("repair --all --yes recreates its record, deletes nothing, and the session lists again in its order", async () => {
    const built = buildStore({
      seed: 9,
      sessions: [healthySession({ start: T0, title: "Keep me", turns: 2 }), healthySession({ start: T0 + DAY, title: "Lost its record", turns: 7 })],
    });
    const lost = built.sessions[1]!;
    expect(lost.messages).toHaveLength(14);
    const store = writeTestStore(built, format);
    dropSessionRecord(lost)(store.dataDir, format === "opencode-sqlite" ? "sqlite" : "json");
    const sb = sandbox();

    const scan = parseJsonDocument((await sb.run(["session", "scan", "--all", "--json", "--store", store.store])).stdout) as {
      sessions: { id: string; findings: { rule: string; severity: string }[] }[];
    };
    const findings = scan.sessions.find((s) => s.id === lost.id)!.findings;
    expect(findings.map((f) => `${f.rule} ${f.severity}`)).toEqual(lost.messages.map(() => "orphan-part warning"));
    const conversation = conversationRecords(store);

    const r = await sb.run(["session", "repair", "--all", "--yes", "--store", store.store]);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`insert session ${lost.id} \\[orphan-part\\]`));
    expect(r.stdout).not.toMatch(/^\s+delete /m);
    // Not one message or part was deleted or changed.
    expect(conversationRecords(store)).toEqual(conversation);

    const record = sessionRecord(store, lost.projectID, lost.id);
    expect(record, "the session record is back where opencode looks for it").toBeDefined();
    const created = lost.messages[0]!.created;
    if (format === "opencode-sqlite") {
      const db = new Database(store.readPath, { readonly: true });
      const columns = db.prepare("PRAGMA table_info(session)").all() as { name: string; notnull: number }[];
      db.close();
      for (const c of columns.filter((x) => x.notnull)) expect(record![c.name], `NOT NULL column ${c.name}`).not.toBeNull();
      expect(record).toMatchObject({ project_id: lost.projectID, directory: lost.info.directory, path: "", time_created: created, parent_id: null });
      expect(record!.time_updated).toBeGreaterThanOrEqual(created);
    } else {
      expect(validateSessionInfo(record).success).toBe(true);
      expect(Object.keys(record!)).toEqual(["id", "slug", "version", "projectID", "directory", "title", "time"]);
      expect(record).toMatchObject({ id: lost.id, projectID: lost.projectID, directory: lost.info.directory, time: { created } });
    }
    expect(String(record!.title)).toMatch(/^\(recovered\) /);

    // opencode lists it again, with every message, in its place among the sessions.
    const list = parseJsonDocument((await sb.run(["session", "list", "--json", "--store", store.store])).stdout) as {
      sessions: { id: string; title: string; directory: string; messages: number }[];
    };
    expect(list.sessions.map((s) => s.id)).toEqual([lost.id, built.sessions[0]!.id]);
    expect(list.sessions[0]).toMatchObject({ directory: lost.info.directory, messages: 14 });
    expect(list.sessions[0]!.title).toMatch(/^\(recovered\) /);

    const rescan = await sb.run(["session", "scan", "--all", "--json", "--store", store.store]);
    expect(rescan.status, rescan.stdout).toBe(0);
    const after = parseJsonDocument(rescan.stdout) as { sessions: { findings: unknown[] }[] };
    expect(after.sessions.flatMap((s) => s.findings)).toEqual([]);

    // And the repair is undone like any other: the session record goes again, nothing else changes.
    const backup = printedBackup(r.stdout);
    const undo = await sb.run(["session", "restore", backup.id, "--yes", "--store", store.store]);
    expect(undo.status, undo.stdout + undo.stderr).toBe(0);
    expect(sessionRecord(store, lost.projectID, lost.id)).toBeUndefined();
    expect(conversationRecords(store)).toEqual(conversation);
  });
});
