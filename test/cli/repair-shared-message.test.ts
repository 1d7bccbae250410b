// Issue 14.6: a message file present in two sessions (JSON tree: message/<A>/<id>.json copied to message/<B>/).
// Its parts live once, under part/<id>/, so both sessions read them; repairing one session deleted part files the
// other still shows. A repair never changes a record another session references: the duplicate is reported
// (shared-message, a warning) and its records are left alone. Real JSON trees, through main(). (SQLite cannot hold
// this: a message id is its table's primary key.)
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildStore, healthySession, SECOND, Transcript, type SessionSpec } from "../support/opencode-fixtures.js";
import { sandbox, storeState, type TestStore, writeTestStore } from "./repair-support.js";
import { parseJsonDocument } from "./run.js";
import { DAY, T0 } from "./stores.js";

interface ScanDoc {
  sessions: { id: string; findings: { rule: string; severity: string; messageId?: string }[] }[];
}

/** A session whose first reply holds a blank text part (empty-text-part, whose fix deletes the part). */
function blankReplySession(start: number): SessionSpec {
  const w = new Transcript({ start });
  return {
    title: "Blank reply",
    directory: w.directory,
    created: start,
    messages: [
      w.user("Rename the invoice total field.", { gap: 2 * SECOND }),
      w.assistant([w.stepStart(), w.text("Renamed it to totalCents."), w.text("   "), w.stepFinish("stop")]),
    ],
  };
}

/** Files session `from`'s message into session `to`'s folder too, as a copy of the file does. */
function fileUnder(store: TestStore, from: string, to: string, messageId: string): void {
  const dir = path.join(store.readPath, "message");
  fs.copyFileSync(path.join(dir, from, `${messageId}.json`), path.join(dir, to, `${messageId}.json`));
}

/** The part files of a message (what both sessions read), with their bytes. */
const partFiles = (store: TestStore, messageId: string) =>
  Object.fromEntries(Object.entries(storeState(store)).filter(([key]) => key.startsWith(`part${path.sep}${messageId}${path.sep}`)));

async function scan(sb: ReturnType<typeof sandbox>, store: TestStore): Promise<ScanDoc> {
  return parseJsonDocument((await sb.run(["session", "scan", "--all", "--json", "--store", store.store])).stdout) as unknown as ScanDoc;
}

describe("a message filed under two sessions (opencode-json)", () => {
  it("repairing one session leaves the shared parts alone and reports the duplicate in both sessions", async () => {
    const built = buildStore({ seed: 6, sessions: [blankReplySession(T0), healthySession({ start: T0 + DAY, title: "Other", turns: 2 })] });
    const [a, b] = built.sessions;
    const shared = a!.messages[1]!;
    const store = writeTestStore(built, "opencode-json");
    fileUnder(store, a!.id, b!.id, shared.id);
    const sb = sandbox();

    const parts = partFiles(store, shared.id);
    expect(Object.keys(parts)).toHaveLength(4);

    const r = await sb.run(["session", "repair", b!.id, "--yes", "--store", store.store]);
    expect(r.stderr).not.toMatch(/at \S+ \(/);
    // Not one part file of the shared message was deleted or rewritten: session A still reads all of them.
    expect(partFiles(store, shared.id)).toEqual(parts);
    expect(fs.existsSync(path.join(store.readPath, "message", a!.id, `${shared.id}.json`))).toBe(true);

    // The duplicate is reported, in both sessions, under a stable rule id; what it holds is left for the user.
    const after = await scan(sb, store);
    for (const [session, other] of [
      [a!.id, b!.id],
      [b!.id, a!.id],
    ] as const) {
      const findings = after.sessions.find((s) => s.id === session)!.findings;
      expect(findings).toContainEqual(expect.objectContaining({ rule: "shared-message", severity: "warning", messageId: shared.id }));
      expect(findings.find((f) => f.rule === "shared-message")).toMatchObject({ message: expect.stringContaining(`also filed under session ${other}`) });
      expect(findings).toContainEqual(expect.objectContaining({ rule: "empty-text-part", messageId: shared.id }));
    }
  });

  it("the rest of the session is repaired; what is left is the copy, and the error it causes where it sorts first (exit 1)", async () => {
    const sessions = [healthySession({ start: T0, title: "Owner", turns: 2 }), blankReplySession(T0 + DAY)];
    const built = buildStore({ seed: 8, sessions });
    const [a, b] = built.sessions;
    const shared = a!.messages[1]!;
    const blank = b!.messages[1]!.parts.find((p) => p.data?.type === "text" && p.data.text === "   ")!;
    const store = writeTestStore(built, "opencode-json");
    fileUnder(store, a!.id, b!.id, shared.id);
    const sb = sandbox();
    const parts = partFiles(store, shared.id);

    const r = await sb.run(["session", "repair", "--all", "--yes", "--store", store.store]);
    // The copy (A's earlier answer) sorts first in B, so B's history begins with an assistant turn: an error the API
    // refuses that no fix may touch (the record is A's too), so the repair says it is left: exit 1, never 0.
    expect(r.status, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toMatch(new RegExp(`delete part ${blank.id} \\[empty-text-part\\]`));
    expect(partFiles(store, shared.id)).toEqual(parts);

    const after = await scan(sb, store);
    const left = after.sessions.flatMap((s) => s.findings.map((f) => `${s.id} ${f.rule} ${f.severity}`));
    expect(left.sort()).toEqual([`${a!.id} shared-message warning`, `${b!.id} shared-message warning`, `${b!.id} leading-assistant error`].sort());
    const list = parseJsonDocument((await sb.run(["session", "list", "--json", "--store", store.store])).stdout) as { sessions: { id: string }[] };
    expect(list.sessions.map((s) => s.id).sort()).toEqual([a!.id, b!.id].sort());
  });
});
