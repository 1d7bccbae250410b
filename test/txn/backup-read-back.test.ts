// The invariant every change rests on (issue 35): before the first byte of a store changes, the backup just written is
// read back through the code `session restore` uses and must describe the before-image exactly. Here the manifest
// writer is broken on purpose, in the two ways a manifest has been broken for real (a key holding a value JSON cannot
// give back as what was declared, and a key the schema refuses), on real stores of both opencode formats: the
// transaction refuses with backup-unverified (exit 3), the store is byte for byte as it was, and nothing is left
// behind (no backup, no journal).
import fs from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { EXIT_CODES } from "../../src/cli/exit-codes.js";
import { RecoverError } from "../../src/errors.js";
import type { RecordKey } from "../../src/model/change.js";
import { hasJournal } from "../../src/txn/journal.js";
import { repairTargets } from "../../src/txn/targets.js";
import { runTransaction } from "../../src/txn/transaction.js";
import { type Backup, readBackup } from "../../src/txn/backup-store.js";
import { pendingTool, sessionOf, storeOf, textPart } from "../rules/harness.js";
import { cleanupAll, diff, FORMATS, NO_DIFF, plan, setup, snapshot, withOpen, type Fixture } from "./../repair/harness.js";

afterAll(cleanupAll);

function damagedSession() {
  return storeOf(
    sessionOf((w) => [
      w.user("Run the whole test suite."),
      w.assistant([w.stepStart(), textPart(w, "  "), pendingTool(w, "bash", '{"command":"npm te')]),
      w.user("What failed?"),
      w.assistant([w.stepStart(), w.text("Nothing ran: the call was cut off.")]),
    ]),
  );
}

type Breakage = (key: RecordKey) => RecordKey;

/** Ways to break what the manifest writer is handed, each as the real faults did. */
const BREAKAGES: Record<string, Breakage> = {
  // A SQLite link column read as a blob: JSON writes a Buffer as {type, data}, the schema wants a string (the soak's find).
  "a message id that is a Buffer": (key) => ({ ...key, messageId: Buffer.from(key.messageId ?? "msg") as unknown as string }),
  // A record kind the manifest's schema does not know: restore would refuse the whole backup.
  "a record kind the schema refuses": (key) => ({ ...key, record: "row" as RecordKey["record"] }),
};

function backupDirs(fx: Fixture): string[] {
  return fs.existsSync(fx.backupRoot) ? fs.readdirSync(fx.backupRoot) : [];
}

/**
 * Plan the fixture's repair and run its transaction as `session repair` does; `breakKey` first breaks the key of the
 * first record the store would change (the targets' keys are what the manifest writer records).
 */
function transact(fx: Fixture, breakKey?: Breakage): Backup {
  const planned = plan(fx);
  expect(planned.changes.length).toBeGreaterThan(0);
  return withOpen(fx, (store) => {
    const writer = store.openWriter();
    try {
      const sessionRef = store.loadSession(fx.sessionId, "full").sessionRef;
      const { targets, changes } = repairTargets([{ sessionRef, changes: planned.changes }], writer, store.codec, fx.now);
      if (breakKey) {
        const index = targets.findIndex((t) => t.key.record !== "session");
        targets[index] = { ...targets[index]!, key: breakKey(targets[index]!.key) };
      }
      return runTransaction({
        kind: "repair",
        writer,
        backupRoot: fx.backupRoot,
        stateDir: fx.stateDir,
        sessions: [fx.sessionId],
        changes,
        targets,
        now: fx.now,
      });
    } finally {
      writer.close();
    }
  });
}

describe.each(FORMATS)("%s: a backup that does not read back stops the change", (format) => {
  it.each(Object.entries(BREAKAGES))("%s: refused, store untouched, nothing left behind", (_name, brokenBy) => {
    const fx = setup(format, damagedSession());
    const original = snapshot(fx);
    let caught: unknown;
    try {
      transact(fx, brokenBy);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(RecoverError);
    const error = caught as RecoverError;
    expect(error.code).toBe("backup-unverified");
    expect(EXIT_CODES[error.code]).toBe(3);
    expect(error.message).toMatch(/^backup \d{8}T\d{6}Z-[0-9a-f]{6} does not read back as the records it must restore \(.+\); nothing was changed/);
    expect(error.message).not.toContain("\n");
    expect(diff(original, snapshot(fx))).toEqual(NO_DIFF);
    expect(backupDirs(fx)).toEqual([]);
    expect(hasJournal(fx.stateDir, fx.storePath)).toBe(false);
  });

  it("an unbroken backup reads back, and the change is made", () => {
    const fx = setup(format, damagedSession());
    const original = snapshot(fx);
    const backup = transact(fx);
    expect(diff(original, snapshot(fx))).not.toEqual(NO_DIFF);
    expect(readBackup(fx.backupRoot, backup.manifest.id).manifest.state).toBe("done");
  });
});
