// `recover session repair`, run as a user runs it: the built CLI on real stores of both formats, every run with its
// own XDG_STATE_HOME. A dry run and every refusal leave the store's bytes as they were; a repair backs up first,
// says how to undo it, and leaves nothing for scan to find.
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  BACKUP_ID,
  brokenRecords,
  changeDoc,
  corruptPages,
  deadPid,
  expectFailure,
  expectStoreBytes,
  holdOpen,
  lockFile,
  modeOf,
  printedBackup,
  readManifest,
  recentBrokenStore,
  runInTerminalAnswering,
  sandbox,
  storeBytes,
  storeState,
  writeDefectStore,
  writeLock,
  writeTestStore,
  type Holder,
} from "./repair-support.js";
import { expectJsonError, expectNoStack, expectOneLineError, HAS_SCRIPT, parseJsonDocument, tempDir } from "./run.js";
import { FORMATS, uniquePrefix, type Format } from "./stores.js";

const PACKAGE_VERSION = (JSON.parse(fs.readFileSync("package.json", "utf8")) as { version: string }).version;
const REPAIRED_RULES = ["empty-text-part", "tool-call-interrupted", "unreadable-record"];

interface ScanDoc {
  sessions: { id: string; findings: { rule: string; severity: string }[] }[];
  summary: { errors: number };
}

describe.each(FORMATS)("session repair, reading only (%s)", (format: Format) => {
  const fixture = writeDefectStore(format);
  const records = brokenRecords(fixture.built, fixture.brokenId);
  const sb = sandbox();
  let before: Map<string, Buffer>;
  beforeAll(() => {
    before = storeBytes(fixture);
  });
  // Whatever a test ran, nothing was written and no backup was made.
  afterEach(() => {
    expectStoreBytes(fixture, before);
    expect(fs.existsSync(sb.backups)).toBe(false);
  });

  it("--dry-run shows every change as a unified diff, writes nothing and exits 1", async () => {
    const r = await sb.run(["session", "repair", fixture.brokenId, "--dry-run", "--store", fixture.store]);
    expectNoStack(r.stderr);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(1);
    const lines = r.stdout.split("\n");
    const { brokenId } = fixture;
    // One line per change: what, which rule, why.
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^  delete part ${records.blankPartId} \\[empty-text-part\\]  \\S`)));
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^  update part ${records.runningPartId} \\[tool-call-interrupted\\]  \\S`)));
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^  update part ${records.tornPartId} \\[unreadable-record\\]  \\S`)));
    // The interrupted call: its record's diff turns "running" into "error".
    const running = `${brokenId}/${records.assistantId}/${records.runningPartId}`;
    const at = lines.indexOf(`--- a/${running}`);
    expect(at, r.stdout).toBeGreaterThan(0);
    expect(lines[at + 1]).toBe(`+++ b/${running}`);
    expect(lines[at + 2]).toMatch(/^@@ -\d+,\d+ \+\d+,\d+ @@$/);
    const hunk = lines.slice(at, lines.indexOf("", at));
    expect(hunk).toContain('-    "status": "running",');
    expect(hunk).toContain('+    "status": "error",');
    // The blank text part goes away.
    const blank = lines.indexOf(`--- a/${brokenId}/${records.assistantId}/${records.blankPartId}`);
    expect(blank).toBeGreaterThan(0);
    expect(lines[blank + 1]).toBe("+++ /dev/null");
    expect(lines).toContain('-  "text": "   ",');
    // The torn record is closed where it was cut.
    const torn = lines.indexOf(`--- a/${brokenId}/${records.tornMessageId}/${records.tornPartId}`);
    expect(torn).toBeGreaterThan(0);
    expect(lines[torn + 1]).toBe(`+++ b/${brokenId}/${records.tornMessageId}/${records.tornPartId}`);
    expect(r.stdout.trimEnd().split("\n").at(-1)).toBe("dry run: 3 changes in 1 session planned; nothing was written");
    expect(r.stdout).not.toMatch(/undo with|^backup /m);
  });

  it("--dry-run --json: the plan as one document, dryRun true, backup null", async () => {
    const r = await sb.run(["session", "repair", fixture.brokenId, "--dry-run", "--json", "--store", fixture.store]);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe("");
    const doc = changeDoc(r);
    expect(Object.keys(doc)).toEqual(["schemaVersion", "tool", "store", "dryRun", "backup", "sessions", "summary"]);
    expect(doc).toMatchObject({ schemaVersion: 1, tool: { name: "recover", version: PACKAGE_VERSION }, dryRun: true, backup: null });
    expect(doc.store).toEqual({ format, path: fixture.readPath, notices: [] });
    expect(doc.sessions.map((s) => s.id)).toEqual([fixture.brokenId]);
    expect(doc.sessions[0]!.changes.map((c) => [c.op, c.id, c.rules])).toEqual([
      ["delete", records.blankPartId, ["empty-text-part"]],
      ["update", records.runningPartId, ["tool-call-interrupted"]],
      ["update", records.tornPartId, ["unreadable-record"]],
    ]);
    expect(doc.summary).toEqual({ sessions: 1, changes: 3, unfixed: 0, errorsLeft: 0 });
  });

  it("a healthy session: nothing to repair, exit 0, with or without --dry-run, and no question asked", async () => {
    for (const extra of [["--dry-run"], []]) {
      const r = await sb.run(["session", "repair", fixture.healthyId, ...extra, "--store", fixture.store]);
      expect(r.stderr).toBe("");
      expect(r.status).toBe(0);
      expect(r.stdout.trim()).toBe("✔ nothing to repair");
    }
  });

  it("without a terminal and without --yes: refuses on one line, exit 2, after showing the plan", async () => {
    const r = await sb.run(["session", "repair", fixture.brokenId, "--store", fixture.store]);
    expect(r.status).toBe(2);
    expectOneLineError(r, /refusing to change 3 records in 1 session of .* without --yes/);
    expect(r.stdout).toContain(`update part ${records.runningPartId} [tool-call-interrupted]`);
    const json = await sb.run(["session", "repair", fixture.brokenId, "--json", "--store", fixture.store]);
    expect(json.status).toBe(2);
    expect(json.stderr).toBe("");
    expect(expectJsonError(json, "needs-confirmation").message).toMatch(/without --yes/);
  });

  it("--last, --all and an id prefix choose the sessions", async () => {
    const last = changeDoc(await sb.run(["session", "repair", "--last", "--dry-run", "--json", "--store", fixture.store]));
    expect(last.sessions.map((s) => s.id)).toEqual([fixture.warningsId]);
    expect(last.sessions[0]!.changes.map((c) => [c.op, c.record, c.rules])).toEqual([["update", "message", ["incomplete-message"]]]);
    // The oversized output is left for context trim.
    expect(last.sessions[0]!.unfixed.map((f) => [f.rule, f.severity])).toEqual([["oversized-tool-output", "warning"]]);

    const all = await sb.run(["session", "repair", "--all", "--dry-run", "--json", "--store", fixture.store]);
    expect(all.status).toBe(1);
    const doc = changeDoc(all);
    // The healthy session has nothing to report and is not listed.
    expect(doc.sessions.map((s) => s.id).sort()).toEqual([fixture.brokenId, fixture.warningsId].sort());
    expect(doc.summary).toEqual({ sessions: 2, changes: 4, unfixed: 1, errorsLeft: 0 });

    const ids = fixture.built.sessions.map((s) => s.id);
    const prefix = uniquePrefix(fixture.brokenId, ids);
    expect(prefix.length).toBeLessThan(fixture.brokenId.length);
    const byPrefix = changeDoc(await sb.run(["session", "repair", prefix, "--dry-run", "--json", "--store", fixture.store]));
    expect(byPrefix.sessions.map((s) => s.id)).toEqual([fixture.brokenId]);
  });

  it("--rule (and its alias --only) limits the repair to those rules", async () => {
    for (const flag of ["--rule", "--only"]) {
      const r = await sb.run(["session", "repair", fixture.brokenId, flag, "tool-call-interrupted", "--dry-run", "--json", "--store", fixture.store]);
      expect(r.status).toBe(1);
      const doc = changeDoc(r);
      expect(doc.sessions[0]!.changes.map((c) => [c.id, c.rules])).toEqual([[records.runningPartId, ["tool-call-interrupted"]]]);
    }
  });

  it("usage errors exit 2 with one line (or one JSON error)", async () => {
    const repair = (...args: string[]) => ["session", "repair", ...args, "--store", fixture.store];
    await expectFailure(
      sb,
      repair(fixture.brokenId, "--rule", "oversized-tool-output", "--yes"),
      2,
      "usage",
      /oversized-tool-output is fixed by `recover context trim`/,
    );
    await expectFailure(sb, repair(fixture.brokenId, "--rule", "no-such-rule", "--yes"), 2, "usage", /unknown rule no-such-rule/);
    expectOneLineError(await sb.run(repair(fixture.brokenId, "--rule", "empty-text-part", "--only", "empty-text-part", "--yes")), /--rule or --only/);
    await expectFailure(sb, repair("ses_doesnotexist", "--yes"), 2, "session-not-found", /no session ses_doesnotexist/);
    for (const bad of [`${fixture.brokenId}/../x`, ".."]) {
      const r = await sb.run(repair(bad, "--yes"));
      expect(r.status).toBe(2);
      expectOneLineError(r, /invalid session id/);
    }
    const none = await sb.run(repair("--yes"));
    expect(none.status).toBe(2);
    expectOneLineError(none, /give a session id, --last or --all/);
  });
});

describe.each(FORMATS)("session repair --yes (%s)", (format: Format) => {
  it("repairs, backs up privately, prints the undo command; a second run has nothing to do; scan is clean", async () => {
    const fixture = writeDefectStore(format);
    const sb = sandbox();
    const r = await sb.run(["session", "repair", fixture.brokenId, "--yes", "--store", fixture.store]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("✔ repaired: 3 changes in 1 session");
    const backup = printedBackup(r.stdout);
    // The store it was given goes with it, so pasting it restores this store, not the default one.
    expect(backup.undo).toBe(`recover session restore ${backup.id} --store ${fixture.store}`);
    expect(backup.path).toBe(path.join(sb.backups, backup.id));

    // Private: backups hold whole transcripts.
    expect(modeOf(sb.backups)).toBe(0o700);
    expect(modeOf(backup.path)).toBe(0o700);
    expect(modeOf(path.join(backup.path, "manifest.json"))).toBe(0o600);
    // Every before-image, end to end in one private file (one fsync however many records).
    expect(fs.readdirSync(backup.path).sort()).toEqual(["images.bin", "manifest.json"]);
    expect(modeOf(path.join(backup.path, "images.bin"))).toBe(0o600);
    expect(readManifest(backup.path).images.filter((e) => e.length !== undefined).length).toBeGreaterThanOrEqual(3);
    const manifest = readManifest(backup.path);
    expect(manifest).toMatchObject({ id: backup.id, kind: "repair", state: "done", store: { format, path: fixture.readPath }, sessions: [fixture.brokenId] });
    expect(manifest.changes.map((c) => c.op).sort()).toEqual(["delete", "update", "update"]);
    // The lock is released and no transaction is left in the journal.
    expect(fs.existsSync(lockFile(sb.state, fixture.readPath))).toBe(false);
    expect(fs.readdirSync(path.join(sb.state, "journal"))).toEqual([]);

    const again = await sb.run(["session", "repair", fixture.brokenId, "--yes", "--store", fixture.store]);
    expect(again.status).toBe(0);
    expect(again.stdout.trim()).toBe("✔ nothing to repair");
    expect(fs.readdirSync(sb.backups)).toEqual([backup.id]);

    const scan = await sb.run(["session", "scan", fixture.brokenId, "--json", "--store", fixture.store]);
    expect(scan.status).toBe(0);
    const doc = parseJsonDocument(scan.stdout) as unknown as ScanDoc;
    expect(doc.sessions[0]!.findings.map((f) => f.rule)).toEqual([]);
  });

  it("--json --yes: one document with the backup and the undo command", async () => {
    const fixture = writeDefectStore(format);
    const records = brokenRecords(fixture.built, fixture.brokenId);
    const sb = sandbox();
    const r = await sb.run(["session", "repair", fixture.brokenId, "--json", "--yes", "--store", fixture.store]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const doc = changeDoc(r);
    expect(Object.keys(doc)).toEqual(["schemaVersion", "tool", "store", "dryRun", "backup", "undo", "sessions", "summary"]);
    expect(doc.schemaVersion).toBe(1);
    expect(doc.tool).toEqual({ name: "recover", version: PACKAGE_VERSION });
    expect(doc.store).toEqual({ format, path: fixture.readPath, notices: [] });
    expect(doc.dryRun).toBe(false);
    expect(Object.keys(doc.backup!)).toEqual(["id", "path"]);
    expect(doc.backup!.id).toMatch(BACKUP_ID);
    expect(doc.backup!.path).toBe(path.join(sb.backups, doc.backup!.id));
    expect(fs.existsSync(path.join(doc.backup!.path, "manifest.json"))).toBe(true);
    expect(doc.undo).toBe(`recover session restore ${doc.backup!.id} --store ${fixture.store}`);
    expect(doc.sessions).toHaveLength(1);
    const session = doc.sessions[0]!;
    expect(Object.keys(session)).toEqual(["id", "title", "changes", "unfixed"]);
    expect(session).toMatchObject({ id: fixture.brokenId, title: "Run the migrations", unfixed: [] });
    for (const change of session.changes) {
      expect(Object.keys(change)).toEqual(["op", "record", "id", "sessionId", "messageId", "rules", "reasons"]);
      expect(change.reasons.length).toBeGreaterThan(0);
      for (const reason of change.reasons) expect(reason.length).toBeGreaterThan(0);
    }
    expect(session.changes.map(({ reasons: _, ...c }) => c)).toEqual([
      { op: "delete", record: "part", id: records.blankPartId, sessionId: fixture.brokenId, messageId: records.assistantId, rules: ["empty-text-part"] },
      {
        op: "update",
        record: "part",
        id: records.runningPartId,
        sessionId: fixture.brokenId,
        messageId: records.assistantId,
        rules: ["tool-call-interrupted"],
      },
      { op: "update", record: "part", id: records.tornPartId, sessionId: fixture.brokenId, messageId: records.tornMessageId, rules: ["unreadable-record"] },
    ]);
    expect(doc.summary).toEqual({ sessions: 1, changes: 3, unfixed: 0, errorsLeft: 0 });
  });

  it("--all --yes repairs every session and reports what is left for context trim", async () => {
    const fixture = writeDefectStore(format);
    const sb = sandbox();
    const before = storeState(fixture);
    const r = await sb.run(["session", "repair", "--all", "--yes", "--json", "--store", fixture.store]);
    // Only a warning is left: exit 0.
    expect(r.status).toBe(0);
    const doc = changeDoc(r);
    expect(doc.summary).toEqual({ sessions: 2, changes: 4, unfixed: 1, errorsLeft: 0 });
    expect(readManifest(doc.backup!.path).sessions.sort()).toEqual([fixture.brokenId, fixture.warningsId].sort());
    const after = storeState(fixture);
    // The healthy session's records are untouched.
    const healthy = fixture.built.sessions.find((s) => s.id === fixture.healthyId)!;
    for (const m of healthy.messages) {
      for (const key of Object.keys(before).filter((k) => k.includes(m.id))) expect(after[key], key).toBe(before[key]);
    }
  });

  it("--rule tool-call-interrupted fixes that defect only; scan still finds the others", async () => {
    const fixture = writeDefectStore(format);
    const records = brokenRecords(fixture.built, fixture.brokenId);
    const sb = sandbox();
    const r = await sb.run(["session", "repair", fixture.brokenId, "--rule", "tool-call-interrupted", "--yes", "--json", "--store", fixture.store]);
    expect(r.status).toBe(0);
    expect(changeDoc(r).sessions[0]!.changes.map((c) => c.id)).toEqual([records.runningPartId]);
    const scan = await sb.run(["session", "scan", fixture.brokenId, "--json", "--store", fixture.store]);
    expect(scan.status).toBe(1);
    const doc = parseJsonDocument(scan.stdout) as unknown as ScanDoc;
    expect(doc.sessions[0]!.findings.map((f) => f.rule).sort()).toEqual(REPAIRED_RULES.filter((rule) => rule !== "tool-call-interrupted"));
  });

  it("a session written seconds ago is refused (exit 3) unless --force", async () => {
    const { built, id } = recentBrokenStore(20_000);
    const store = writeTestStore(built, format);
    const sb = sandbox();
    const before = storeBytes(store);
    const line = await expectFailure(
      sb,
      ["session", "repair", id, "--yes", "--store", store.store],
      3,
      "live-writer",
      new RegExp(`session ${id} was written \\d+ s ago.*--force`),
    );
    const ago = Number(/written (\d+) s ago/.exec(line)![1]);
    expect(ago).toBeGreaterThanOrEqual(15);
    expect(ago).toBeLessThan(60);
    expectStoreBytes(store, before);
    expect(fs.existsSync(sb.backups)).toBe(false);

    const forced = await sb.run(["session", "repair", id, "--yes", "--force", "--json", "--store", store.store]);
    expect(forced.status).toBe(0);
    expect(changeDoc(forced).summary.changes).toBe(3);
  });

  it("another recover holding the store lock: exit 3; a lock whose owner is dead is taken over", async () => {
    const fixture = writeDefectStore(format);
    const sb = sandbox();
    const before = storeBytes(fixture);
    // This test process is alive for sure: it stands in for another recover.
    const lock = writeLock(sb.state, fixture.readPath, process.pid);
    await expectFailure(
      sb,
      ["session", "repair", fixture.brokenId, "--yes", "--store", fixture.store],
      3,
      "store-locked",
      new RegExp(`another recover \\(pid ${process.pid}\\b.*is changing`),
    );
    expectStoreBytes(fixture, before);
    expect(fs.existsSync(sb.backups)).toBe(false);
    expect(JSON.parse(fs.readFileSync(lock, "utf8")).pid).toBe(process.pid);
    // A dry run writes nothing and takes no lock.
    expect((await sb.run(["session", "repair", fixture.brokenId, "--dry-run", "--store", fixture.store])).status).toBe(1);

    writeLock(sb.state, fixture.readPath, deadPid());
    const r = await sb.run(["session", "repair", fixture.brokenId, "--yes", "--store", fixture.store]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("✔ repaired: 3 changes in 1 session");
    expect(fs.existsSync(lockFile(sb.state, fixture.readPath))).toBe(false);
  });

  // A repair moves the session's update time like any write; the 60-second guard must not take recover's own
  // write for a running agent, or following scan's advice right after a partial repair would be refused.
  it("a second repair right after a partial one is not taken for a running agent", async () => {
    const fixture = writeDefectStore(format);
    const sb = sandbox();
    const first = await sb.run(["session", "repair", fixture.brokenId, "--rule", "tool-call-interrupted", "--yes", "--store", fixture.store]);
    expect(first.status).toBe(0);
    const second = await sb.run(["session", "repair", fixture.brokenId, "--rule", "empty-text-part", "--yes", "--store", fixture.store]);
    expect(second.stderr).toBe("");
    expect(second.status).toBe(0);
  });

  it.skipIf(!HAS_SCRIPT)("at a terminal: asks, and 'y' repairs", async () => {
    const fixture = writeDefectStore(format);
    const sb = sandbox();
    const r = await runInTerminalAnswering(["session", "repair", fixture.brokenId, "--store", fixture.store], "y\n", { env: sb.env });
    expect(r.prompted, r.output).toBe(true);
    expect(r.output).toMatch(/Change 3 records in 1 session of .*\?/);
    expect(r.status, r.output).toBe(0);
    expect(r.output).toContain("✔ repaired: 3 changes in 1 session");
    expect(r.output).toMatch(/^undo with: recover session restore \d{8}T\d{6}Z-[0-9a-f]{6} --store \S+$/m);
    expect(fs.readdirSync(sb.backups)).toHaveLength(1);
  });
});

describe("session repair (opencode-sqlite only)", () => {
  const format: Format = "opencode-sqlite";
  let holder: Holder | undefined;
  afterEach(async () => {
    await holder?.stop();
    holder = undefined;
  });

  it("another process holding opencode.db open: exit 3 naming it; --force repairs anyway", async () => {
    const fixture = writeDefectStore(format);
    const sb = sandbox();
    const before = storeBytes(fixture);
    holder = await holdOpen(fixture.readPath);
    await expectFailure(
      sb,
      ["session", "repair", fixture.brokenId, "--yes", "--store", fixture.store],
      3,
      "live-writer",
      new RegExp(`\\(pid ${holder.pid}\\) has .*opencode\\.db open.*--force`),
    );
    expectStoreBytes(fixture, before);
    expect(fs.existsSync(sb.backups)).toBe(false);

    const forced = await sb.run(["session", "repair", fixture.brokenId, "--yes", "--force", "--store", fixture.store]);
    expect(forced.stderr).toBe("");
    expect(forced.status).toBe(0);
    expect(forced.stdout).toContain("✔ repaired: 3 changes in 1 session");
  });

  describe.skipIf(!HAS_SCRIPT)("at a terminal, anything but yes changes nothing (exit 1; Ctrl-C: 130)", () => {
    const fixture = writeDefectStore(format);
    const sb = sandbox();
    let before: Map<string, Buffer>;
    beforeAll(() => {
      before = storeBytes(fixture);
    });
    it.each([
      ["n", "n\n"],
      ["Enter (the default)", "\r"],
      ["Ctrl-D", "\u0004"],
      ["Ctrl-C", "\u0003"],
    ])("%s", async (name, keys) => {
      const r = await runInTerminalAnswering(["session", "repair", fixture.brokenId, "--store", fixture.store], keys, { env: sb.env });
      expect(r.prompted, r.output).toBe(true);
      // Ctrl-C is an interrupt, as a shell reports it (128 + SIGINT), not a "no".
      const interrupted = name === "Ctrl-C";
      expect(r.status, r.output).toBe(interrupted ? 130 : 1);
      // The prompt's cursor codes may precede the error on its line.
      expect(r.output.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, "")).toMatch(
        interrupted ? /^recover: interrupted; nothing was changed$/m : /^recover: not confirmed; nothing was changed$/m,
      );
      expectNoStack(r.output);
      expectStoreBytes(fixture, before);
      expect(fs.existsSync(sb.backups)).toBe(false);
    });
  });

  // A --backup-dir that is a file (or lies under one) is the user's input: a one-line error naming it, exit 2.
  it("--backup-dir naming a file: an error that names it, not an internal error", async () => {
    const fixture = writeDefectStore(format);
    const sb = sandbox();
    const before = storeBytes(fixture);
    const file = path.join(tempDir(), "backups");
    fs.writeFileSync(file, "not a folder\n");
    try {
      await expectFailure(
        sb,
        ["session", "repair", fixture.brokenId, "--yes", "--backup-dir", file, "--store", fixture.store],
        2,
        "backup-unwritable",
        new RegExp(file),
      );
    } finally {
      expectStoreBytes(fixture, before);
    }
  });

  it("a damaged opencode.db: exit 2 on one line, nothing written, no backup", async () => {
    // Damage the part table: the plan cannot even be read.
    const torn = writeDefectStore(format);
    corruptPages(torn.readPath, ["part"]);
    const sb = sandbox();
    const before = storeBytes(torn);
    await expectFailure(sb, ["session", "repair", torn.brokenId, "--yes", "--store", torn.store], 2, "store-corrupt", /damaged.*store salvage/);
    expectStoreBytes(torn, before);
    expect(fs.existsSync(sb.backups)).toBe(false);
  });

  it("damage only PRAGMA quick_check sees (a table repair never reads): refused before writing", async () => {
    const fixture = writeDefectStore(format);
    corruptPages(fixture.readPath, ["project"]);
    const sb = sandbox();
    const before = storeBytes(fixture);
    await expectFailure(sb, ["session", "repair", fixture.brokenId, "--yes", "--store", fixture.store], 2, "store-corrupt", /damaged.*nothing was changed/);
    expectStoreBytes(fixture, before);
    expect(fs.existsSync(sb.backups)).toBe(false);
  });
});
