// Repair and restore as whole transactions: planning writes nothing, modes and times survive, a restore is itself
// undoable, stacked repairs unwind in reverse, a store that changed under a plan is refused, and the bundled demo
// store is repaired and restored end to end.
import Database from "better-sqlite3";
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { repairRules } from "../../src/cli/commands/session-repair.js";
import { selectSessions } from "../../src/cli/select-sessions.js";
import { RecoverError } from "../../src/errors.js";
import { planSession } from "../../src/plan/planner.js";
import { DEFAULT_RULE_OPTIONS } from "../../src/rules/rule.js";
import { readBackup, type Backup } from "../../src/txn/backup-store.js";
import { hasJournal } from "../../src/txn/journal.js";
import { repairTargets } from "../../src/txn/targets.js";
import { runTransaction } from "../../src/txn/transaction.js";
import { MINUTE, SECOND, replaceWithBytes, truncateAfter, type BuiltStore, type Json } from "../support/opencode-fixtures.js";
import { partWhere, pendingTool, sessionOf, storeOf, tempDir, textPart, UNFINISHED } from "../rules/harness.js";
import {
  cleanupAll,
  DAY,
  DEFAULT_REPAIR_RULES,
  diff,
  expectRestoresExactly,
  expectSameMtimes,
  FORMATS,
  load,
  NO_DIFF,
  ops,
  plan,
  repair,
  rescan,
  restore,
  setup,
  snapshot,
  sorted,
  storedPart,
  withOpen,
  type Fixture,
  type Format,
} from "./harness.js";

afterAll(cleanupAll);

const TAX_TS = "export const tax = (subtotalCents: number) => Math.round(subtotalCents * 0.2);";

/** One session with a defect for most fixes, plus an orphaned part and an unsigned reasoning. */
function manyDefects(): BuiltStore {
  const spec = sessionOf((w) => [
    w.user("Fix the rounding and run the whole test suite."),
    w.assistant(
      [
        w.stepStart(),
        textPart(w, "  "),
        w.running("bash", { command: "npm test", description: "Run all tests" }, { title: "Run all tests", metadata: { output: "\n RUN  v3.2.4\n" } }),
        pendingTool(w, "edit", '{"filePath":"/ho'),
      ],
      UNFINISHED,
    ),
    w.user("opencode crashed. What does the export print?", { gap: 20 * MINUTE }),
    w.assistant([
      w.stepStart(),
      w.reasoning("Run the export and read the tax module.", { signed: false }),
      w.text("Running it."),
      w.bash("head -c 12 logo.png", "Dump logo header", "\u0089PNG\r\n\u001a\n\u0000\u0000\u0000\r"),
      {
        ...w.tool("bash", { command: "cat customers.csv", description: "Show customers" }, { output: "1;Hans Mueller\n", title: "Show customers" }),
        corrupt: replaceWithBytes("Mueller", Buffer.from([0x4d, 0xfc, 0x6c, 0x6c, 0x65, 0x72])),
      },
      { ...w.read("src/invoices/tax.ts", TAX_TS), corrupt: truncateAfter("export const tax") },
      w.stepFinish("tool-calls"),
      w.stepStart(),
      w.text("The logo is a PNG and the CSV holds one customer."),
      w.stepFinish("stop"),
    ]),
    w.user("Thanks.", { gap: 2 * MINUTE }),
    w.assistant([w.stepStart(), w.stepFinish("stop")]),
    w.user("Hello?", { gap: 2 * MINUTE }),
    w.assistant([w.stepStart(), w.text("You're welcome."), w.stepFinish("stop")]),
  ]);
  const goneAt = Date.UTC(2026, 9, 1, 9, 40, 0);
  spec.orphanParts = [
    {
      messageId: "msg_0a4a7e826001rw3KUB6PZXav00",
      parts: [{ time: goneAt, data: { type: "text", text: "Reverting the rounding change.", time: { start: goneAt, end: goneAt + SECOND } } }],
    },
  ];
  return storeOf(spec);
}

/** Every byte of the store as files: the db file itself (SQLite) or every file of the tree, with mode and mtime. */
function fileBytes(fx: Fixture): Map<string, string> {
  const out = new Map<string, string>();
  if (fx.format === "sqlite") {
    out.set("opencode.db", fs.readFileSync(fx.storePath).toString("hex"));
    // Opening a WAL database may create an empty -wal beside it (SQLite's business); a frame in it would be a write.
    const wal = `${fx.storePath}-wal`;
    if (fs.existsSync(wal) && fs.statSync(wal).size > 0) out.set("opencode.db-wal", fs.readFileSync(wal).toString("hex"));
    return out;
  }
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      const stat = fs.statSync(full);
      out.set(
        path.relative(fx.storePath, full),
        entry.isDirectory() ? `dir ${stat.mode.toString(8)}` : `${stat.mode.toString(8)} ${stat.mtimeMs} ${fs.readFileSync(full).toString("hex")}`,
      );
      if (entry.isDirectory()) walk(full);
    }
  };
  walk(fx.storePath);
  return out;
}

const backupIds = (fx: Fixture) => (fs.existsSync(fx.backupRoot) ? fs.readdirSync(fx.backupRoot).sort() : []);

describe.each(FORMATS)("repair round trips (%s store)", (format) => {
  it("planning is a dry run: it finds the fixes for every defect and writes nothing at all", () => {
    const fx = setup(format, manyDefects());
    const bytes = fileBytes(fx);
    const records = snapshot(fx);
    const byDefault = plan(fx);
    // The unsigned reasoning shares its message with the torn part: rules about what is sent wait for that repair.
    expect(plan(fx, { rules: repairRules("unsigned-thinking") }).changes).toEqual([]);
    const asked = plan(fx, { rules: repairRules("unreadable-record,unsigned-thinking") });
    expect(new Set(byDefault.fixed.map((f) => f.rule))).toEqual(
      new Set(["tool-call-interrupted", "incomplete-message", "empty-text-part", "empty-message", "corrupted-tool-output", "unreadable-record", "orphan-part"]),
    );
    expect(byDefault.remaining).toEqual([]);
    expect(byDefault.changes.length).toBeGreaterThanOrEqual(9);
    expect(asked.fixed.map((f) => f.rule)).toEqual(["unreadable-record", "unsigned-thinking"]);
    expect(asked.changes.map((c) => c.op).sort()).toEqual(["delete", "update"]);
    expect(fileBytes(fx)).toEqual(bytes);
    const after = snapshot(fx);
    expect(diff(records, after)).toEqual(NO_DIFF);
    expect(after.rows).toEqual(records.rows);
    expect(backupIds(fx)).toEqual([]);
    expect(fs.existsSync(fx.stateDir)).toBe(false);
  });

  it("a repair of many defects at once settles, and its restore gives back every record", () => {
    const fx = setup(format, manyDefects());
    const original = snapshot(fx);
    const { plan: p, backup } = repair(fx);
    expect(backup.manifest.kind).toBe("repair");
    expect(backup.manifest.state).toBe("done");
    expect(backup.manifest.sessions).toEqual([fx.sessionId]);
    // The manifest lists every planned change, and one image per changed record plus the touched session.
    expect(backup.manifest.changes.map((c) => `${c.op} ${c.record} ${c.id}`).sort()).toEqual(ops(p.changes));
    expect(backup.manifest.images.map((i) => `${i.key.record}:${i.key.id}`).sort()).toEqual(
      sorted(...p.changes.map((c) => `${c.key.record}:${c.key.id}`), `session:${fx.sessionId}`),
    );
    const d = diff(original, snapshot(fx));
    expect([...d.added, ...d.removed, ...d.changed].sort()).toEqual(sorted(...p.changes.map((c) => `${c.key.record}:${c.key.id}`), `session:${fx.sessionId}`));
    expect(rescan(fx).map((f) => f.rule)).toEqual(["unsigned-thinking"]);
    expect(plan(fx, { now: fx.later }).changes).toEqual([]);
    expectRestoresExactly(fx, backup, original);
  });

  it("the repair moves the session's update time to now; the restore puts it back", () => {
    const fx = setup(format, manyDefects());
    const updatedBefore = withOpen(fx, (store) => store.listSessions()[0]!.updated);
    expect(updatedBefore).toBeLessThan(fx.now);
    const { backup } = repair(fx);
    if (format === "sqlite") expect(withOpen(fx, (store) => store.listSessions()[0]!.updated)).toBe(fx.now);
    else expect((load(fx).info as unknown as { time: { updated: number } }).time.updated).toBe(fx.now);
    restore(fx, backup.manifest.id);
    if (format === "sqlite") expect(withOpen(fx, (store) => store.listSessions()[0]!.updated)).toBe(updatedBefore);
    else expect((load(fx).info as unknown as { time: { updated: number } }).time.updated).toBe(updatedBefore);
  });

  it("a restore is itself undoable: restoring its backup gives back the repaired store exactly", () => {
    const fx = setup(format, manyDefects());
    const original = snapshot(fx);
    const { backup } = repair(fx);
    const repaired = snapshot(fx);
    const undo = restore(fx, backup.manifest.id);
    expect(diff(original, snapshot(fx))).toEqual(NO_DIFF);
    const redo = restore(fx, undo.manifest.id);
    expect(redo.manifest.restoreOf).toBe(undo.manifest.id);
    const again = snapshot(fx);
    expect(diff(repaired, again)).toEqual(NO_DIFF);
    expect(again.rows).toEqual(repaired.rows);
    expect(hasJournal(fx.stateDir, fx.storePath)).toBe(false);
    // Three transactions, three backups, each done.
    expect(backupIds(fx)).toHaveLength(3);
    for (const id of backupIds(fx)) expect(readBackup(fx.backupRoot, id).manifest.state).toBe("done");
  });

  it("stacked repairs (default, then unsigned-thinking on request) unwind in reverse order to the original", () => {
    const fx = setup(format, manyDefects());
    const original = snapshot(fx);
    const first = repair(fx);
    const afterFirst = snapshot(fx);
    const second = repair(fx, { rules: repairRules("unsigned-thinking"), now: fx.now + MINUTE });
    expect(second.plan.changes.map((c) => c.op)).toEqual(["delete"]);
    expect(rescan(fx)).toEqual([]);
    restore(fx, second.backup.manifest.id);
    expect(diff(afterFirst, snapshot(fx))).toEqual(NO_DIFF);
    expectRestoresExactly(fx, first.backup, original);
  });

  it("a store that changed between planning and writing is refused: store-changed, nothing written, the backup abandoned", () => {
    const fx = setup(format, manyDefects());
    const tornRead = partWhere(fx.built, (d) => d.type === "tool" && d.tool === "read" && JSON.stringify(d).includes("export const tax"));
    let caught: unknown;
    let changedBy: Fixture["storePath"] = "";
    withOpen(fx, (store) => {
      const records = store.loadSession(fx.sessionId, "full");
      const planned = planSession(records, store.fixing, { ...DEFAULT_RULE_OPTIONS, now: fx.now, rules: DEFAULT_REPAIR_RULES });
      const writer = store.openWriter();
      try {
        const { targets, changes } = repairTargets([{ sessionRef: records.sessionRef, changes: planned.changes }], writer, store.codec, fx.now);
        // opencode writes the session meanwhile: one part it is about to touch changes under the plan.
        changedBy = touchPart(fx, tornRead.messageId, tornRead.partId);
        try {
          runTransaction({ kind: "repair", writer, backupRoot: fx.backupRoot, stateDir: fx.stateDir, sessions: [fx.sessionId], changes, targets, now: fx.now });
        } catch (error) {
          caught = error;
        }
      } finally {
        writer.close();
      }
    });
    expect(changedBy).not.toBe("");
    expect(caught).toBeInstanceOf(RecoverError);
    expect((caught as RecoverError).code).toBe("store-changed");
    const [id] = backupIds(fx);
    expect(readBackup(fx.backupRoot, id!).manifest.state).toBe("abandoned");
    expect(hasJournal(fx.stateDir, fx.storePath)).toBe(false);
    // Nothing of the plan reached the store: the only difference is opencode's own write.
    const now = snapshot(fx);
    const fresh = setup(format, manyDefects());
    touchPart(fresh, tornRead.messageId, tornRead.partId);
    expect(diff(snapshot(fresh), now).changed.filter((k) => !k.startsWith("session:"))).toEqual([]);
    expect(rescan(fx).map((f) => f.rule)).toContain("tool-call-interrupted");
  });

  if (format === "json") {
    it("file modes survive: an updated file keeps its mode, a new one is 0644, and restore gives back every mode and mtime", () => {
      const built = storeOf(
        sessionOf((w) => [
          w.user("Run the whole suite."),
          w.assistant([
            w.stepStart(),
            w.text("Running the full suite."),
            w.running("bash", { command: "npm test", description: "Run all tests" }),
            textPart(w, "  "),
          ]),
          w.user("Thanks.", { gap: 2 * MINUTE }),
          w.assistant([w.stepStart(), w.stepFinish("stop")]),
          w.user("Hello?", { gap: 2 * MINUTE }),
          w.assistant([w.stepStart(), w.text("You're welcome."), w.stepFinish("stop")]),
        ]),
      );
      const bash = partWhere(built, (d) => d.type === "tool" && d.tool === "bash");
      const blank = partWhere(built, (d) => d.type === "text" && d.text === "  ");
      const fx = setup("json", built);
      const file = (messageId: string, partId: string) => path.join(fx.storePath, "part", messageId, `${partId}.json`);
      const session = built.sessions[0]!;
      const sessionFile = path.join(fx.storePath, "session", session.projectID, `${session.id}.json`);
      const mtime = fs.statSync(file(bash.messageId, bash.partId)).mtimeMs;
      fs.chmodSync(file(bash.messageId, bash.partId), 0o600);
      fs.chmodSync(file(blank.messageId, blank.partId), 0o640);
      fs.chmodSync(sessionFile, 0o604);
      fs.utimesSync(file(bash.messageId, bash.partId), new Date(mtime), new Date(mtime));
      const original = snapshot(fx);
      const { plan: p, backup } = repair(fx);
      expect(ops(p.changes)).toContain(`delete part ${blank.partId}`);
      const mode = (f: string) => fs.statSync(f).mode & 0o7777;
      expect(mode(file(bash.messageId, bash.partId))).toBe(0o600);
      expect(mode(sessionFile)).toBe(0o604);
      expect(fs.existsSync(file(blank.messageId, blank.partId))).toBe(false);
      const inserted = p.changes.find((c) => c.op === "insert")!;
      expect(mode(inserted.key.path!)).toBe(0o644);
      // The new file is what opencode itself writes: pretty JSON, ids first.
      const written = JSON.parse(fs.readFileSync(inserted.key.path!, "utf8")) as Json;
      expect(Object.keys(written).slice(0, 3)).toEqual(["id", "sessionID", "messageID"]);
      expect(fs.readFileSync(inserted.key.path!, "utf8")).toBe(JSON.stringify(written, null, 2));
      expect(storedPart(load(fx), bash.partId).state).toMatchObject({ status: "error" });
      expectRestoresExactly(fx, backup, original);
      expect(mode(file(blank.messageId, blank.partId))).toBe(0o640);
      expectSameMtimes(snapshot(fx), original);
    });
  }

  if (format === "sqlite") {
    it("an inserted part is a complete row: its message, session and both times, data as TEXT", () => {
      const built = storeOf(
        sessionOf((w) => [
          w.user("Thanks."),
          w.assistant([w.stepStart(), w.stepFinish("stop")]),
          w.user("Hello?", { gap: 2 * MINUTE }),
          w.assistant([w.stepStart(), w.text("You're welcome."), w.stepFinish("stop")]),
        ]),
      );
      const fx = setup("sqlite", built);
      const { plan: p } = repair(fx);
      const inserted = p.changes[0]!;
      expect(inserted.op).toBe("insert");
      const row = snapshot(fx).rows.part!.find((r) => r[0] === inserted.key.id)!;
      // id, message_id, session_id, time_created, time_updated, data, typeof(data), CAST(data AS BLOB)
      expect(row.slice(0, 5)).toEqual([inserted.key.id, inserted.key.messageId, fx.sessionId, BigInt(fx.now), BigInt(fx.now)]);
      expect(row[6]).toBe("text");
      expect(JSON.parse(String(row[5]))).toEqual({ type: "text", text: "[user interrupted]", synthetic: true, time: { start: fx.now, end: fx.now } });
    });
  }
});

/** Rewrites one part as opencode would while it runs (a new time on it), returning its key. */
function touchPart(fx: Fixture, messageId: string, partId: string): string {
  if (fx.format === "sqlite") {
    const db = new Database(fx.storePath);
    try {
      db.prepare("UPDATE part SET time_updated = time_updated + 1 WHERE id = ?").run(partId);
    } finally {
      db.close();
    }
  } else {
    const file = path.join(fx.storePath, "part", messageId, `${partId}.json`);
    fs.appendFileSync(file, " ");
  }
  return `part:${partId}`;
}

// ---------------------------------------------------------------------------------------------
// The bundled demo store
// ---------------------------------------------------------------------------------------------

describe.each([
  ["sqlite", "fixtures/demo/opencode"],
  ["json", "fixtures/demo/opencode-legacy"],
] as const)("the demo store, repaired and restored (%s)", (format: Format, source: string) => {
  it("every session is repaired, no error finding of a fixed rule is left, and restoring every backup gives back the original", () => {
    const dir = path.join(tempDir(), "store");
    fs.cpSync(source, dir, { recursive: true, preserveTimestamps: true });
    const scratch = tempDir();
    const base: Fixture = {
      format,
      built: { sessions: [] },
      dir,
      storePath: format === "sqlite" ? path.join(dir, "opencode.db") : path.join(dir, "storage"),
      backupRoot: path.join(scratch, "backups"),
      stateDir: path.join(scratch, "state"),
      sessionId: "",
      now: Date.now() + DAY,
      later: Date.now() + 2 * DAY,
    };
    try {
      const original = snapshot(base);
      const ids = withOpen(base, (store) => selectSessions(store, { ids: [], all: true }, { emptyMeansAll: true }));
      expect(ids.length).toBeGreaterThanOrEqual(15);
      const fixedRules = new Set(DEFAULT_REPAIR_RULES.filter((r) => r.fixedBy === "repair").map((r) => r.id));
      const before = new Map(ids.map((id) => [id, rescan({ ...base, sessionId: id })]));
      const errorsBefore = [...before.values()].flat().filter((f) => f.severity === "error" && fixedRules.has(f.rule));
      expect(errorsBefore.length).toBeGreaterThanOrEqual(12);

      const backups: Backup[] = [];
      for (const id of ids) {
        const fx = { ...base, sessionId: id };
        if (plan(fx).changes.length === 0) continue;
        backups.push(repair(fx).backup);
      }
      expect(backups.length).toBeGreaterThanOrEqual(10);
      const left: string[] = [];
      for (const id of ids) {
        const fx = { ...base, sessionId: id };
        const findings = rescan(fx);
        expect(findings.filter((f) => fixedRules.has(f.rule)).map((f) => `${id} ${f.rule} ${f.messageId ?? "-"} ${f.partId ?? "-"}`)).toEqual([]);
        expect(plan(fx, { now: base.later }).changes, id).toEqual([]);
        left.push(...findings.map((f) => f.rule));
      }
      // What is left: the warning fixed on request only, and the context-trim rules' findings.
      expect(new Set(left)).toEqual(new Set(["unsigned-thinking", "oversized-tool-output", "context-overflow"]));

      for (const backup of [...backups].reverse()) restore(base, backup.manifest.id);
      const back = snapshot(base);
      expect(diff(original, back)).toEqual(NO_DIFF);
      expect(back.rows).toEqual(original.rows);
      if (format === "json") expectSameMtimes(back, original);
      for (const id of ids)
        expect(
          rescan({ ...base, sessionId: id })
            .map((f) => f.rule)
            .sort(),
          id,
        ).toEqual(
          before
            .get(id)!
            .map((f) => f.rule)
            .sort(),
        );
    } finally {
      fs.rmSync(path.dirname(dir), { recursive: true, force: true });
      fs.rmSync(scratch, { recursive: true, force: true });
    }
  });
});
