import { cpSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseJsonDocument, run, tempDir } from "./run.js";

interface Expected {
  sessionId: string;
  expect: { rule: string; messageId?: string; partId?: string }[];
}

const EXPECTED = JSON.parse(readFileSync("fixtures/demo/expected.json", "utf8")) as Expected[];
const key = (f: { rule: string; messageId?: string; partId?: string }) => `${f.rule} ${f.messageId ?? "-"} ${f.partId ?? "-"}`;

/**
 * The bundled demo store (what `npm start` scans) against its answer key: one planted defect per rule, each
 * reported with the right rule, message and part, and nothing at all on the healthy sessions.
 */
describe.each([
  ["opencode-sqlite", "fixtures/demo/opencode"],
  ["opencode-json", "fixtures/demo/opencode-legacy"],
])("the demo store (%s)", (format, source) => {
  // A copy: opening a WAL database creates -wal/-shm files beside it, and the fixture stays untouched.
  const store = join(tempDir(), "store");
  cpSync(source, store, { recursive: true });

  it("reports exactly the planted defects, session by session", async () => {
    const r = await run(["session", "scan", "--all", "--json", "--store", store]);
    expect(r.status).toBe(1);
    const document = parseJsonDocument(r.stdout) as {
      store: { format: string };
      sessions: { id: string; findings: { rule: string; messageId?: string; partId?: string }[] }[];
    };
    expect(document.store.format).toBe(format);
    const found = new Map(document.sessions.map((s) => [s.id, s.findings.map(key).sort()]));
    for (const session of EXPECTED) expect(found.get(session.sessionId), session.sessionId).toEqual(session.expect.map(key).sort());
    expect(found.size).toBe(EXPECTED.length);
    const rules = new Set(EXPECTED.flatMap((s) => s.expect.map((f) => f.rule)));
    expect(rules.size).toBe(15);
  });
});
