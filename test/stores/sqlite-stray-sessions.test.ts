// Sessions whose row is gone but whose messages or parts remain ("strays"): `scan --all` reads them too. The store
// finds them by seeking through opencode's session_id indexes, or with one query where a table has no such index;
// both ways must give the same ids in the same (SQLite BINARY) order.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { openStore } from "../../src/stores/discover.js";
import { buildStore, healthySession, writeSqliteStore } from "../support/opencode-fixtures.js";

function strayStore(): string {
  const built = buildStore({
    seed: 11,
    sessions: [0, 1, 2].map((i) => healthySession({ start: Date.UTC(2026, 9, 1 + i), turns: 1 })),
  });
  const dir = mkdtempSync(join(tmpdir(), "recover-strays-"));
  const db = new Database(writeSqliteStore(dir, built));
  db.pragma("foreign_keys = OFF");
  // One session loses its row; its messages and parts stay.
  db.prepare("DELETE FROM session WHERE id = ?").run(built.sessions[1]!.id);
  // Parts and messages naming sessions that never had a row: ids whose UTF-8 order differs from UTF-16's, and a blob
  // (which cannot name a session; a number would be stored as text in this TEXT column).
  const [partId, messageId] = [built.sessions[0]!.messages[0]!.parts[0]!.id, built.sessions[0]!.messages[0]!.id];
  const copyPart = db.prepare(
    "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) SELECT ?, message_id, ?, time_created, time_updated, data FROM part WHERE id = ?",
  );
  copyPart.run("prt_stray_emoji", "ses_\u{1F600}", partId);
  copyPart.run("prt_stray_fullwidth", "ses_\uFF21", partId);
  copyPart.run("prt_stray_blob", Buffer.from("ses_blob"), partId);
  db.prepare(
    "INSERT INTO message (id, session_id, time_created, time_updated, data) SELECT ?, ?, time_created, time_updated, data FROM message WHERE id = ?",
  ).run("msg_stray", "ses_only_a_message", messageId);
  db.close();
  return dir;
}

function strays(dir: string): string[] {
  const store = openStore({ store: dir });
  try {
    return store.listStraySessionIds();
  } finally {
    store.close();
  }
}

describe("sessions without a session row", () => {
  it("are found by seeking through the session_id indexes, and by one query without them, alike", () => {
    const dir = strayStore();
    const deleted = (() => {
      const db = new Database(join(dir, "opencode.db"), { readonly: true });
      const ids = db
        .prepare(
          "SELECT DISTINCT session_id FROM message WHERE session_id NOT IN (SELECT id FROM session) AND session_id LIKE 'ses\\_%' ESCAPE '\\' AND id <> 'msg_stray'",
        )
        .pluck()
        .all();
      db.close();
      return ids as string[];
    })();
    expect(deleted).toHaveLength(1);
    // SQLite's BINARY order is UTF-8's: U+FF21 (EF BC A1) before U+1F600 (F0 9F 98 80), unlike JavaScript's sort.
    const expected = [deleted[0]!, "ses_only_a_message", "ses_\uFF21", "ses_\u{1F600}"].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    expect(expected.indexOf("ses_\uFF21")).toBeLessThan(expected.indexOf("ses_\u{1F600}"));
    expect(strays(dir)).toEqual(expected);

    const db = new Database(join(dir, "opencode.db"));
    db.exec("DROP INDEX message_session_idx; DROP INDEX part_session_idx");
    db.close();
    expect(strays(dir)).toEqual(expected);
  });
});
