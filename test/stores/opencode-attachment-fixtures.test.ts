// An attachment the API refuses by itself, on a store the real opencode client wrote (issue 40, rows 11–12).
// fixtures/opencode-1.18/request-too-large is the store as opencode-ai 1.18.33 left it right before recover ran in the
// real repair loop (`node scripts/clients/capture.mjs opencode --scenario request-too-large --loop`): a text turn, then
// a prompt with a 25 MB PDF (`-f big.pdf`, 33 MB as base64), which the mock refused with the API's 413
// `request_too_large` (automatic compaction off). The store is kept gzipped (its padding compresses to nothing) and
// unpacked here. The repair the loop ran (`--error "Request exceeds the maximum size"`) replaces the PDF with a
// note although it is in the latest prompt, which context trim otherwise keeps byte-identical: no request of the
// session is accepted while it is there. `session restore` brings the PDF back, byte for byte.
import Database from "better-sqlite3";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { afterEach, describe, expect, it, vi } from "vitest";
import { run, tempDir } from "../cli/run.js";
import { sessionView } from "../../src/scan/session-view.js";
import { checkSession } from "../../src/scan/check.js";
import { openStore } from "../../src/stores/discover.js";
import { DEFAULT_RULE_OPTIONS } from "../../src/model/rule-options.js";
import { RULES } from "../../src/rules/index.js";

const FIXTURE = path.resolve("fixtures/opencode-1.18/request-too-large");

interface Expected {
  sessionId: string;
  recover: string[];
  ranAt: number;
  plan: { changes: number; rules: Record<string, number> };
}

function unpack(): { dir: string; db: string; env: Record<string, string> } {
  const dir = tempDir();
  const db = path.join(dir, "opencode.db");
  fs.writeFileSync(db, zlib.gunzipSync(fs.readFileSync(path.join(FIXTURE, "opencode.db.gz"))));
  return { dir, db, env: { XDG_STATE_HOME: tempDir() } };
}

/** A part as SQLite measures it (no blob reaches JS): its type, mime, the length of its data URL, its data's length. */
function partOf(db: string, id: string): { type: string; mime: string | null; urlChars: number | null; dataChars: number } {
  const conn = new Database(db, { readonly: true });
  try {
    return conn
      .prepare(
        `SELECT json_extract(data, '$.type') AS type, json_extract(data, '$.mime') AS mime,
                length(json_extract(data, '$.url')) AS urlChars, length(data) AS dataChars
         FROM part WHERE id = ?`,
      )
      .get(id) as { type: string; mime: string | null; urlChars: number | null; dataChars: number };
  } finally {
    conn.close();
  }
}

function pdfPartOf(db: string, sessionId: string): string {
  const conn = new Database(db, { readonly: true });
  try {
    return conn.prepare("SELECT id FROM part WHERE session_id = ? AND json_extract(data, '$.mime') = 'application/pdf'").pluck().get(sessionId) as string;
  } finally {
    conn.close();
  }
}

function partData(db: string, id: string): string {
  const conn = new Database(db, { readonly: true });
  try {
    return conn.prepare("SELECT data FROM part WHERE id = ?").pluck().get(id) as string;
  } finally {
    conn.close();
  }
}

afterEach(() => {
  vi.useRealTimers();
});

describe("opencode 1.18: a PDF over the API's 32 MB request limit, refused with a 413", () => {
  const x = JSON.parse(fs.readFileSync(path.join(FIXTURE, "expected.json"), "utf8")) as Expected;

  it("the repair of the real loop replaces the PDF in the latest prompt with a note, and restore brings it back", async () => {
    const { dir, db, env } = unpack();
    const id = pdfPartOf(db, x.sessionId);
    const before = partOf(db, id);
    expect(before.type).toBe("file");
    expect(before.urlChars).toBeGreaterThan(32 * 1024 * 1024);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(x.ranAt);

    const planned = await run([...x.recover.filter((a) => a !== "--yes"), "--dry-run", "--json", "--store", dir], { env });
    expect(planned.status, planned.stderr).toBe(1);
    const doc = JSON.parse(planned.stdout) as { sessions: { changes: { rules: string[]; message?: string }[] }[] };
    const rules: Record<string, number> = {};
    for (const c of doc.sessions.flatMap((s) => s.changes)) for (const r of c.rules) rules[r] = (rules[r] ?? 0) + 1;
    expect(rules).toEqual(x.plan.rules);

    const repaired = await run([...x.recover, "--json", "--store", dir], { env });
    expect(repaired.status, repaired.stderr).toBe(0);
    // The part holds a short text note now, and no data URL.
    const after = partOf(db, id);
    expect(after.urlChars).toBeNull();
    expect(after.dataChars).toBeLessThan(1_000);
    expect(partData(db, id)).toMatch(/attachment removed: .* kept in recover's backup/);

    // Again: the session is under the limit now, and the repair says so and changes nothing (docs/trim.md).
    const again = await run([...x.recover, "--json", "--store", dir], { env });
    expect(again.stdout).toMatch(/already under the limit it states.*nothing was changed/);
    expect(partData(db, id)).toMatch(/attachment removed: .* kept in recover's backup/);

    const backup = (JSON.parse(repaired.stdout) as { backup?: { id: string } }).backup!.id;
    const restored = await run(["session", "restore", backup, "--yes", "--json", "--store", dir], { env });
    expect(restored.status, restored.stderr).toBe(0);
    expect(partOf(db, id)).toEqual(before);
  });

  it("context trim (its strategies only) takes the PDF from the latest prompt too: no request is accepted while it is there", async () => {
    const { dir, db, env } = unpack();
    const id = pdfPartOf(db, x.sessionId);
    const r = await run(["context", "trim", x.sessionId, "--error", "Request exceeds the maximum size", "--yes", "--force", "--json", "--store", dir], { env });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/"drop-images"/);
    expect(partOf(db, id).urlChars).toBeNull();
    expect(partData(db, id)).toMatch(/removed to fit the provider's limits/);
  });

  it("a scan measures the 33 MB row in SQLite: the attachment never reaches JavaScript, and oversized-attachment names it", () => {
    const { dir, db } = unpack();
    const id = pdfPartOf(db, x.sessionId);
    const store = openStore({ store: dir });
    try {
      global.gc?.();
      const before = process.memoryUsage().heapUsed;
      const records = store.loadSession(x.sessionId, "lean");
      const grown = process.memoryUsage().heapUsed - before;
      // Reading the row as text and parsing it holds twice its 33 MB; measured in SQLite, the session's records
      // are a few kilobytes (the bound is loose for a garbage collector that runs when it likes).
      expect(grown).toBeLessThan(16 * 1024 * 1024);
      if (!("messages" in records)) throw new Error("not an opencode session");
      const part = records.messages.flatMap((m) => m.parts).find((p) => p.ref.id === id)!;
      expect(part.content.urlChars).toBe(partOf(db, id).urlChars);
      const options = { ...DEFAULT_RULE_OPTIONS, now: Date.UTC(2030, 0, 1), liveWindowMs: 0 };
      const found = checkSession(sessionView(records, options), RULES, options).filter((f) => f.rule === "oversized-attachment");
      expect(found.map((f) => f.partId)).toEqual([id]);
      expect(found[0]!.message).toMatch(/application\/pdf attachment of 34,952,564 bytes .* over the API's 32 MB request limit by itself/);
    } finally {
      store.close();
    }
  });

  it("a plain repair moves the attachment out (the note in its place), and restore brings it back", async () => {
    const { dir, db, env } = unpack();
    const id = pdfPartOf(db, x.sessionId);
    const before = partOf(db, id);
    const repaired = await run(["session", "repair", x.sessionId, "--yes", "--force", "--json", "--store", dir], { env });
    expect(repaired.status, repaired.stderr).toBe(0);
    expect(partOf(db, id).urlChars).toBeNull();
    expect(partData(db, id)).toMatch(/over the provider's 32 MB request limit by itself; it is kept in recover's backup/);
    const again = await run(["session", "repair", x.sessionId, "--dry-run", "--force", "--json", "--store", dir], { env });
    expect(again.status, again.stdout).toBe(0);
    const backup = (JSON.parse(repaired.stdout) as { backup?: { id: string } }).backup!.id;
    const restored = await run(["session", "restore", backup, "--yes", "--json", "--store", dir], { env });
    expect(restored.status, restored.stderr).toBe(0);
    expect(partOf(db, id)).toEqual(before);
  });
});
