// The opencode SQLite writer reads every row back inside its transaction: the repair's verdict is about the records
// the planned bytes decode to, so a row SQLite stores otherwise must leave the database as it was.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RecoverError } from "../../src/errors.js";
import type { RecordKey } from "../../src/model/change.js";
import { openStore } from "../../src/stores/discover.js";
import { decodeRow, encodeRow } from "../../src/stores/sqlite/row.js";
import { buildStore, healthySession, writeSqliteStore } from "../support/opencode-fixtures.js";

describe("the opencode SQLite writer reads back what it wrote", () => {
  const built = buildStore({ seed: 3, sessions: [healthySession({ start: Date.UTC(2026, 9, 1), turns: 2 })] });
  const session = built.sessions[0]!;
  const part = session.messages.flatMap((m) => m.parts)[0]!;
  const key: RecordKey = { record: "part", id: part.id, sessionId: session.id };

  function withWriter<T>(work: (writer: ReturnType<ReturnType<typeof openStore>["openWriter"]>) => T): T {
    const dir = mkdtempSync(join(tmpdir(), "recover-read-back-"));
    writeSqliteStore(dir, built);
    const store = openStore({ store: dir });
    const writer = store.openWriter();
    try {
      return work(writer);
    } finally {
      writer.close();
      store.close();
    }
  }

  /** The row with its update time set to `cell`. */
  function withTime(bytes: Buffer, cell: { t: "integer"; v: string } | { t: "real"; v: number }): Buffer {
    const row = decodeRow(bytes);
    return encodeRow({ ...row, columns: row.columns.map(([name, c]) => [name, name === "time_updated" ? cell : c]) });
  }

  it("writes a row that reads back as its image", () => {
    withWriter((writer) => {
      const before = writer.read(key);
      if (!before.exists) throw new Error("the part is there");
      const after = { exists: true as const, bytes: withTime(before.bytes, { t: "integer", v: "1790000000000" }) };
      writer.apply([{ key, before, after }]);
      expect(writer.read(key)).toEqual(after);
    });
  });

  it("rolls back a row SQLite stores otherwise (a real its INTEGER column turns into an integer): nothing changes", () => {
    withWriter((writer) => {
      const before = writer.read(key);
      if (!before.exists) throw new Error("the part is there");
      const after = { exists: true as const, bytes: withTime(before.bytes, { t: "real", v: 1790000000000 }) };
      let thrown: unknown;
      try {
        writer.apply([{ key, before, after }]);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(RecoverError);
      expect((thrown as Error).message).toBe(`part ${part.id} did not read back as written; nothing was changed`);
      expect(writer.read(key)).toEqual(before);
    });
  });
});
