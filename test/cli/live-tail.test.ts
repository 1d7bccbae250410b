// The live tail (an unfinished last turn written in the last 10 minutes) is decided by the records' own times, not
// by file times, and a session left unjudged as live is always reported as skipped. Point 10 of the issue.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildStore, MINUTE, SECOND, Transcript, writeJsonStore, writeSqliteStore, type BuiltStore, type Json } from "../support/opencode-fixtures.js";
import { expectNoStack, expectOneLineError, parseJsonDocument, run, tempDir } from "./run.js";
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

/** The call id of the bash call killedDuringBash left running. */
const runningCall = (built: BuiltStore) => {
  const parts = built.sessions[0]!.messages.flatMap((m) => m.parts ?? []);
  return (parts.find((p) => (p.data as Json).type === "tool")!.data as { callID: string }).callID;
};

/** The Messages API's answer to a request whose tool call at messages.1 has no result. */
const ORPHAN_CALL = (callId: string) =>
  `messages.1: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${callId}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;

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

  it("--error that points into a live last turn judges it: the provider refused a request that held it (issue 38); the 60 s write guard still holds", async () => {
    const env = { XDG_STATE_HOME: tempDir() };
    const built = killedDuringBash(Date.now() - 2 * MINUTE - 10 * SECOND);
    const id = built.sessions[0]!.id;
    const store = freshCopy(built, format);
    const error = ORPHAN_CALL(runningCall(built));

    const dry = await run(["session", "repair", id, "--store", store, "--dry-run", "--error", error], { env });
    expectNoStack(dry.stderr);
    expect(dry.status).toBe(1);
    // The whole turn is judged, as --include-live judges it: the call is closed and the turn completed.
    expect(dry.stdout).toContain("tool-call-interrupted");
    expect(dry.stdout).toContain("incomplete-message");
    expect(dry.stdout).not.toContain("in progress");
    expect(dry.stdout + dry.stderr).toMatch(
      /its last turn was written 2 min ago, but the provider refused a request that held it, so no agent is writing it any more/,
    );
    const doc = parseJsonDocument((await run(["session", "repair", id, "--store", store, "--dry-run", "--json", "--error", error], { env })).stdout);
    expect(doc.skipped).toBeUndefined();

    // An error naming a call this session does not hold is no sign the turn went out: the running call is left alone.
    const other = await run(["session", "repair", id, "--store", store, "--yes", "--error", ORPHAN_CALL("toolu_01NotInThisSession000000")], { env });
    expect(other.status).toBe(1);
    expectOneLineError(
      other,
      /recover found nothing this error is about; nothing was changed; its last turn, written 2 min ago, holds what this kind of error is about, but the error names nothing there, so it is left alone as in progress \(its agent may be writing it\); --include-live judges it$/,
    );

    const repaired = await run(["session", "repair", id, "--store", store, "--yes", "--json", "--error", error], { env });
    expect(repaired.status, repaired.stderr).toBe(0);
    const scan = parseJsonDocument((await run(["session", "scan", id, "--store", store, "--json", "--include-live"], { env })).stdout) as unknown as ScanDoc;
    expect(scan.sessions[0]!.findings).toEqual([]);

    const justWritten = killedDuringBash(Date.now() - 20 * SECOND);
    const guarded = await run(
      [
        "session",
        "repair",
        justWritten.sessions[0]!.id,
        "--store",
        freshCopy(justWritten, format),
        "--error",
        ORPHAN_CALL(runningCall(justWritten)),
        "--yes",
        "--json",
      ],
      { env },
    );
    expect(guarded.status).toBe(3);
    expect((parseJsonDocument(guarded.stdout).error as { code: string }).code).toBe("live-writer");
  });

  it("--error about an earlier turn leaves a live last turn alone; a repair that answers nothing says the turn was not judged, and how to judge it", async () => {
    const env = { XDG_STATE_HOME: tempDir() };
    const start = Date.now() - 2 * MINUTE - 10 * SECOND;
    const w = new Transcript({ start, seed: 7 });
    const earlier = w.running("bash", { command: "npm run lint", description: "Lint" }, { title: "Lint" });
    const built = buildStore({
      seed: 4,
      sessions: [
        {
          title: "Lint, then test",
          created: start,
          messages: [
            w.user("Lint it.", { gap: SECOND }),
            // A finished turn whose call was never closed: the error is about it.
            w.assistant([w.stepStart(), w.text("Linting."), earlier, w.stepFinish("tool-calls")]),
            w.user("Now run the whole test suite."),
            w.assistant(
              [w.stepStart(), w.text("Running the full suite."), w.running("bash", { command: "npm test", description: "Run all tests" })],
              UNFINISHED,
            ),
          ],
        },
      ],
    });
    const id = built.sessions[0]!.id;
    const store = freshCopy(built, format);
    const lintCall = (earlier.data as { callID: string }).callID;

    const dry = await run(["session", "repair", id, "--store", store, "--dry-run", "--json", "--error", ORPHAN_CALL(lintCall)], { env });
    expect(dry.status).toBe(1);
    const doc = parseJsonDocument(dry.stdout) as { skipped?: { id: string }[]; sessions: { changes: { summary: string }[] }[] };
    expect(doc.skipped?.map((s) => s.id)).toEqual([id]);
    expect(doc.sessions[0]!.changes).toHaveLength(1);

    // Thinking the request does not hold before its latest assistant message: nothing answers it.
    const signature = "messages.1.content.0: Invalid `signature` in `thinking` block";
    const refused = await run(["session", "repair", id, "--store", store, "--yes", "--error", signature], { env });
    expect(refused.status).toBe(1);
    expectOneLineError(
      refused,
      /nothing in session \S+ matches what it names, so nothing was changed \(`recover explain` says more\); its last turn was written \d+ min ago and is left alone as in progress \(not judged\); --include-live judges it$/,
    );
  });
});
