// The live tail (an unfinished last turn written in the last 10 minutes) is decided by the records' own times, not
// by file times, and a session left unjudged as live is always reported as skipped. Point 10 of the issue.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildStore, MINUTE, SECOND, Transcript, writeJsonStore, writeSqliteStore, type BuiltStore, type Json } from "../support/opencode-fixtures.js";
import { expectNoStack, parseJsonDocument, run, tempDir } from "./run.js";
import { FORMATS, type Format } from "./stores.js";

const UNFINISHED: Json = { time: { completed: undefined }, finish: undefined };

/** A session whose process was killed while `npm test` ran: the bash call is left "running", the turn unfinished. */
function killedDuringBash(start: number): BuiltStore {
  const w = new Transcript({ start, seed: 5 });
  return buildStore({
    seed: 3,
    sessions: [
      {
        title: "Run the test suite",
        created: start,
        messages: [
          w.user("Run the whole test suite.", { gap: SECOND }),
          w.assistant(
            [
              w.stepStart(),
              w.text("Running the full suite."),
              w.running("bash", { command: "npm test", description: "Run all tests" }, { title: "Run all tests" }),
            ],
            UNFINISHED,
          ),
        ],
      },
    ],
  });
}

/**
 * Written the way a copy is: every file (JSON tree) is brand new, whatever time its records carry — what `cp`
 * without -p, a git clone, an unzip or a backup restore leaves behind.
 */
function freshCopy(built: BuiltStore, format: Format): string {
  const original = tempDir();
  if (format === "opencode-sqlite") writeSqliteStore(original, built);
  else writeJsonStore(original, built);
  const copy = path.join(tempDir(), "copy");
  fs.cpSync(original, copy, { recursive: true });
  return copy;
}

const sessionUpdated = (built: BuiltStore) => (built.sessions[0]!.info.time as { updated: number }).updated;

interface ScanDoc {
  sessions: { id: string; findings: { rule: string }[] }[];
  skipped?: { id: string; reason: string; updatedAt: string }[];
  summary: { findings: number };
}

describe.each(FORMATS)("the live tail is judged by the records' own times (%s)", (format) => {
  it("an interrupted call whose records are hours old is reported, though the copied files are brand new", async () => {
    const built = killedDuringBash(Date.now() - 3 * 60 * MINUTE);
    const store = freshCopy(built, format);
    const r = await run(["session", "scan", "--store", store]);
    expectNoStack(r.stderr);
    expect(r.stdout).toContain("tool-call-interrupted");
    expect(r.stdout).not.toContain("in progress");
    expect(r.status).toBe(1);
    const doc = parseJsonDocument((await run(["session", "scan", "--store", store, "--json"])).stdout) as unknown as ScanDoc;
    expect(doc.sessions[0]!.findings.map((f) => f.rule)).toContain("tool-call-interrupted");
    expect(doc.skipped).toBeUndefined();
  });

  it("a session written 2 minutes ago is not judged, and says so; --include-live judges it", async () => {
    const built = killedDuringBash(Date.now() - 2 * MINUTE - 10 * SECOND);
    const id = built.sessions[0]!.id;
    const store = freshCopy(built, format);

    const human = await run(["session", "scan", "--store", store]);
    expectNoStack(human.stderr);
    expect(human.status).toBe(0);
    expect(human.stdout).not.toContain("tool-call-interrupted");
    expect(human.stdout).toMatch(new RegExp(`1 session is in progress \\(${id}, written 2 min ago\\): its last turn is not judged; --include-live judges it`));

    const doc = parseJsonDocument((await run(["session", "scan", "--store", store, "--json"])).stdout) as unknown as ScanDoc;
    expect(Object.keys(doc)).toEqual(["schemaVersion", "tool", "store", "sessions", "skipped", "summary"]);
    expect(doc.skipped).toEqual([{ id, reason: "live", updatedAt: new Date(sessionUpdated(built)).toISOString() }]);
    expect(doc.sessions[0]!.findings.map((f) => f.rule)).not.toContain("tool-call-interrupted");

    const included = await run(["session", "scan", "--store", store, "--include-live"]);
    expect(included.status).toBe(1);
    expect(included.stdout).toContain("tool-call-interrupted");
    expect(included.stdout).not.toContain("in progress");
    const includedDoc = parseJsonDocument((await run(["session", "scan", "--store", store, "--json", "--include-live"])).stdout) as unknown as ScanDoc;
    expect(includedDoc.skipped).toBeUndefined();
    expect(includedDoc.sessions[0]!.findings.map((f) => f.rule)).toContain("tool-call-interrupted");
  });

  it("repair leaves a live tail alone and says so; --include-live repairs it, and the 60 s write guard still holds", async () => {
    const env = { XDG_STATE_HOME: tempDir() };
    const built = killedDuringBash(Date.now() - 2 * MINUTE - 10 * SECOND);
    const id = built.sessions[0]!.id;
    const store = freshCopy(built, format);

    const dry = await run(["session", "repair", id, "--store", store, "--dry-run"], { env });
    expectNoStack(dry.stderr);
    expect(dry.status).toBe(0);
    expect(dry.stdout).toMatch(new RegExp(`1 session is in progress \\(${id}, written 2 min ago\\)`));
    expect(dry.stdout).toContain("nothing to repair");
    const dryDoc = parseJsonDocument((await run(["session", "repair", id, "--store", store, "--dry-run", "--json"], { env })).stdout);
    expect(dryDoc.skipped).toEqual([{ id, reason: "live", updatedAt: new Date(sessionUpdated(built)).toISOString() }]);

    const included = await run(["session", "repair", id, "--store", store, "--dry-run", "--include-live"], { env });
    expect(included.status).toBe(1);
    expect(included.stdout).toContain("tool-call-interrupted");
    expect(included.stdout).not.toContain("in progress");

    // Written 20 s ago: judged with --include-live, but not written under a possibly running agent.
    const justWritten = freshCopy(killedDuringBash(Date.now() - 20 * SECOND), format);
    const guarded = await run(["session", "repair", "--all", "--store", justWritten, "--include-live", "--yes", "--json"], { env });
    expect(guarded.status).toBe(3);
    expect((parseJsonDocument(guarded.stdout).error as { code: string }).code).toBe("live-writer");
  });
});
