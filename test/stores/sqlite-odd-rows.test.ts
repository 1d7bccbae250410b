import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { RULES } from "../../src/rules/index.js";
import { scanSession } from "../../src/scan/scan.js";
import { openStore } from "../../src/stores/discover.js";
import { buildStore, healthySession, writeSqliteStore } from "../support/opencode-fixtures.js";

/** Rows written by something other than opencode: `data` as a BLOB instead of TEXT. */
describe("SQLite rows whose data is not TEXT", () => {
  const built = buildStore({ seed: 7, sessions: [healthySession({ start: Date.UTC(2026, 9, 1), turns: 2 })] });
  const session = built.sessions[0]!;
  const [first, second] = session.messages.flatMap((m) => m.parts);
  const dir = mkdtempSync(join(tmpdir(), "recover-odd-"));
  const dbFile = writeSqliteStore(dir, built);
  const db = new Database(dbFile);
  db.prepare("UPDATE part SET data = CAST(data AS BLOB) WHERE id = ?").run(first!.id);
  db.prepare("UPDATE part SET data = ? WHERE id = ?").run(Buffer.from([0x7b, 0x22, 0xff, 0x00]), second!.id);
  db.close();

  const scan = (mode: "lean" | "full") => {
    const store = openStore({ store: dir });
    try {
      return scanSession(store, session.id, {
        rules: RULES,
        mode,
        now: Date.UTC(2026, 10, 22),
        maxOutputChars: 50_000,
        contextLimit: 200_000,
        liveWindowMs: 600_000,
      }).findings;
    } finally {
      store.close();
    }
  };

  it.each(["lean", "full"] as const)("a BLOB holding valid JSON reads like TEXT; a BLOB of garbage is unreadable (%s load)", (mode) => {
    const findings = scan(mode).map((f) => [f.rule, f.partId]);
    expect(findings).toContainEqual(["unreadable-record", second!.id]);
    expect(findings.filter(([, partId]) => partId === first!.id)).toEqual([]);
  });
});
