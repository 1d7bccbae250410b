import { beforeAll, describe, expect, it } from "vitest";
import { buildStore } from "../support/opencode-fixtures.js";
import { expectNoAnsi, expectNoStack, parseJsonDocument, run } from "./run.js";
import { FORMATS, listStore, writeStore } from "./stores.js";

const SESSION_KEYS = ["id", "title", "directory", "updated", "messages", "agent", "format", "store"];

describe.each(FORMATS)("session list (%s)", (format) => {
  const fixture = listStore();
  let store: string;
  let readPath: string;
  beforeAll(() => {
    ({ store, readPath } = writeStore(fixture.built, format));
  });

  const expected = () =>
    fixture.byUpdatedDesc.map((id) => {
      const s = fixture.built.sessions.find((x) => x.id === id)!;
      return {
        id,
        title: fixture.titles[id],
        directory: s.info.directory,
        updated: new Date((s.info.time as { updated: number }).updated).toISOString(),
        messages: s.messages.length,
        agent: "opencode",
        format,
        store: readPath,
      };
    });

  it("--json prints one document with the store and every session, newest update first", async () => {
    const r = await run(["session", "list", "--json", "--store", store]);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe("");
    const doc = parseJsonDocument(r.stdout);
    expect(Object.keys(doc)[0]).toBe("schemaVersion");
    expect(doc.schemaVersion).toBe(1);
    expect(doc.store).toMatchObject({ format, path: readPath });
    const sessions = doc.sessions as Record<string, unknown>[];
    for (const s of sessions) expect(Object.keys(s).sort()).toEqual([...SESSION_KEYS].sort());
    expect(sessions).toEqual(expected());
    // Newest update first, and that is not the order of creation (the oldest session was resumed last).
    const updated = sessions.map((s) => Date.parse(String(s.updated)));
    expect([...updated].sort((a, b) => b - a)).toEqual(updated);
    expect(sessions.map((s) => s.id)).not.toEqual([...sessions.map((s) => String(s.id))].sort());
  });

  it("prints a table: a header, then one row per session in the same order", async () => {
    const r = await run(["session", "list", "--store", store]);
    expect(r.status).toBe(0);
    expectNoStack(r.stderr);
    expectNoAnsi(r.stdout + r.stderr);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^ID\s+AGENT\s+TITLE\s+UPDATED \(UTC\)\s+MSGS\s+DIRECTORY$/);
    const rows = lines.slice(1);
    expect(rows).toHaveLength(3);
    expected().forEach((s, i) => {
      const row = rows[i]!;
      expect(row).toMatch(new RegExp(`^${s.id}\\s+opencode\\s`));
      expect(row).toContain(String(s.title));
      expect(row).toContain(s.updated.replace("T", " ").slice(0, 16));
      expect(row).toMatch(new RegExp(`\\s${s.messages}\\s+${String(s.directory).replace(/[/.]/g, "\\$&")}$`));
    });
  });

  it("accepts the store file or folder itself (opencode.db / storage/)", async () => {
    const r = await run(["session", "list", "--json", "--store", readPath]);
    expect(r.status).toBe(0);
    const doc = parseJsonDocument(r.stdout);
    expect(doc.store).toMatchObject({ format, path: readPath });
    expect((doc.sessions as { id: string }[]).map((s) => s.id)).toEqual(fixture.byUpdatedDesc);
  });

  it.runIf(format === "opencode-sqlite")("a store without sessions lists none and exits 0", async () => {
    const { store: empty } = writeStore(buildStore({ sessions: [] }), format);
    const r = await run(["session", "list", "--json", "--store", empty]);
    expect(r.status, r.stderr).toBe(0);
    expect(parseJsonDocument(r.stdout).sessions).toEqual([]);
    const human = await run(["session", "list", "--store", empty]);
    expect(human.status).toBe(0);
    expect(human.stdout).toBe("no sessions\n");
  });
});
