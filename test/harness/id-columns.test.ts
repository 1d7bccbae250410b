// Non-text values in every id and link column of opencode.db (issue 35), swept rather than drawn: a foreign writer or a
// disk fault can leave a blob, an integer, a real or a NULL where opencode keeps a text id. Every column that names a
// row or links to one, in every table, as every non-text storage class, alone and with the session's own row gone (the
// path that recreates a session), on the first row and on one further in: each case goes through the fuzz loop's
// properties (fuzz-support.ts: no crash, one JSON document, exit 0 means a clean rescan, restore gives back every byte,
// nothing readable silently dropped). The random loop found two of these one soak at a time; here they are all, every
// CI run.
import { describe, expect, it } from "vitest";
import type { Damage } from "./fuzz-damage.js";
import { replayCase } from "./fuzz-support.js";

const LINK_COLUMNS = {
  session: ["id", "parent_id", "project_id"],
  message: ["id", "session_id"],
  part: ["id", "message_id", "session_id"],
} as const;
const CLASSES = ["null", "integer", "real", "blob"] as const;
/** The first row and one in the middle of the base store (rows are taken modulo the table's size). */
const ROWS = [0, 5] as const;

const cases = Object.entries(LINK_COLUMNS).flatMap(([table, columns]) =>
  columns.flatMap((column) =>
    CLASSES.flatMap((to) =>
      ROWS.flatMap((row) =>
        [false, true].map((withoutSession) => {
          const damage: Damage[] = [{ on: "row-column", table: table as keyof typeof LINK_COLUMNS, row, column, to }];
          if (withoutSession) damage.push({ on: "row", table: "session", row: 0, op: "delete" });
          return [`${table}.${column} as ${to}, row ${row}${withoutSession ? ", session row 0 deleted" : ""}`, damage] as const;
        }),
      ),
    ),
  ),
);

describe("opencode.db: a non-text value in any id or link column holds every property", () => {
  it.each(cases)("%s", async (_name, damage) => {
    const outcome = await replayCase("opencode-sqlite", damage);
    expect(outcome.failures).toEqual([]);
    expect(outcome.known).toEqual([]);
  });
});
