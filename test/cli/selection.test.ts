import { spawnSync } from "node:child_process";
import { beforeAll, describe, expect, it } from "vitest";
import { childEnv, expectJsonError, expectNoStack, expectOneLineError, parseJsonDocument, run } from "./run.js";
import { defectStore, FORMATS, listStore, uniquePrefix, writeStore, type Format } from "./stores.js";

interface ScanDoc {
  sessions: { id: string; findings: { rule: string; severity: string }[] }[];
  summary: { sessions: number; findings: number; errors: number; warnings: number };
}

describe.each(FORMATS)("session selection (%s)", (format: Format) => {
  const fixture = defectStore();
  const ids = fixture.built.sessions.map((s) => s.id);
  let store: string;
  beforeAll(() => {
    ({ store } = writeStore(fixture.built, format));
  });

  it("a unique id prefix selects that session only", async () => {
    const prefix = uniquePrefix(fixture.warningsId, ids);
    expect(prefix.length).toBeLessThan(fixture.warningsId.length);
    const r = await run(["session", "scan", prefix, "--json", "--store", store]);
    expectNoStack(r.stderr);
    const doc = parseJsonDocument(r.stdout) as unknown as ScanDoc;
    expect(doc.sessions.map((s) => s.id)).toEqual([fixture.warningsId]);
    // That session has warnings only: exit 0, even though the store has error findings elsewhere.
    expect(r.status).toBe(0);
  });

  it("a full id selects that session; several ids select several", async () => {
    const r = await run(["session", "scan", fixture.brokenId, "--json", "--store", store]);
    expect(r.status).toBe(1);
    expect((parseJsonDocument(r.stdout) as unknown as ScanDoc).sessions.map((s) => s.id)).toEqual([fixture.brokenId]);
    const two = await run(["session", "scan", fixture.healthyId, uniquePrefix(fixture.warningsId, ids), "--json", "--store", store]);
    expect(two.status).toBe(0);
    expect((parseJsonDocument(two.stdout) as unknown as ScanDoc).sessions.map((s) => s.id).sort()).toEqual([fixture.healthyId, fixture.warningsId].sort());
  });

  it("an ambiguous prefix exits 2 and names the matching sessions", async () => {
    const r = await run(["session", "scan", "ses_", "--store", store]);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe("");
    const line = expectOneLineError(r, /ses_/);
    for (const id of ids) expect(line).toContain(id);
    const json = await run(["session", "scan", "ses_", "--json", "--store", store]);
    expect(json.status).toBe(2);
    const error = expectJsonError(json, "session-ambiguous");
    for (const id of ids) expect(error.message).toContain(id);
  });

  it("an unknown id exits 2 with one line naming it", async () => {
    const r = await run(["session", "scan", "ses_0000nosuchsession", "--store", store]);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe("");
    expectOneLineError(r, /ses_0000nosuchsession/);
    const json = await run(["session", "scan", "ses_0000nosuchsession", "--json", "--store", store]);
    expect(json.status).toBe(2);
    expect(expectJsonError(json, "session-not-found").message).toContain("ses_0000nosuchsession");
  });

  it.each([["a/b"], [".."], ["../x"], [`${"ses_"}../../etc/passwd`], ["..\\x"], ["/etc/passwd"]])(
    "a path-like id %j exits 2 with a one-line error",
    async (id) => {
      const r = await run(["session", "scan", id, "--store", store]);
      expect(r.status).toBe(2);
      expect(r.stdout).toBe("");
      expectOneLineError(r, /invalid session id/);
      const json = await run(["--json", "session", "scan", id, "--store", store]);
      expect(json.status).toBe(2);
      expectJsonError(json, "invalid-id");
    },
  );

  it("--rule a,b restricts the scan to those rules", async () => {
    const r = await run(["session", "scan", "--all", "--rule", "empty-text-part,incomplete-message", "--json", "--store", store]);
    expect(r.status).toBe(1);
    const doc = parseJsonDocument(r.stdout) as unknown as ScanDoc;
    const rules = doc.sessions.flatMap((s) => s.findings.map((f) => f.rule)).sort();
    expect(rules).toEqual(["empty-text-part", "incomplete-message"]);
    expect(doc.summary).toEqual({ sessions: 3, findings: 2, errors: 1, warnings: 1 });
    // Only warning rules selected: the error findings are not looked for, so exit 0.
    const warningsOnly = await run(["session", "scan", "--all", "--rule", "incomplete-message,oversized-tool-output", "--json", "--store", store]);
    expect(warningsOnly.status).toBe(0);
    expect((parseJsonDocument(warningsOnly.stdout) as unknown as ScanDoc).summary).toEqual({ sessions: 3, findings: 2, errors: 0, warnings: 2 });
  });

  it("an unknown rule exits 2 naming it", async () => {
    const r = await run(["session", "scan", "--all", "--rule", "empty-text-part,no-such-rule", "--store", store]);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe("");
    expectOneLineError(r, /no-such-rule/);
    // The way to list the ids is a command that works when pasted (the program as started, the store flags).
    const pasted = /\(run `([^`]+)` to list them\)/.exec(r.stderr)?.[1];
    expect(pasted, r.stderr).toBe(`recover rules --store ${store}`);
    const listed = spawnSync("bash", ["-c", pasted!], { env: childEnv(), encoding: "utf8" });
    expect(listed.status, listed.stderr).toBe(0);
    expect(listed.stdout).toContain("empty-text-part");
    const json = await run(["session", "scan", "--all", "--rule", "no-such-rule", "--json", "--store", store]);
    expect(json.status).toBe(2);
    expect(expectJsonError(json, "usage").message).toContain("no-such-rule");
  });
});

describe.each(FORMATS)("--last (%s)", (format: Format) => {
  const fixture = listStore();
  let store: string;
  beforeAll(() => {
    ({ store } = writeStore(fixture.built, format));
  });

  it("picks the most recently updated session, not the newest created one", async () => {
    const newestUpdated = fixture.byUpdatedDesc[0]!;
    const newestCreated = fixture.built.sessions.at(-1)!.id;
    expect(newestUpdated).not.toBe(newestCreated);
    const r = await run(["session", "scan", "--last", "--json", "--store", store]);
    expect(r.status).toBe(0);
    const doc = parseJsonDocument(r.stdout) as unknown as ScanDoc;
    expect(doc.sessions.map((s) => s.id)).toEqual([newestUpdated]);
    expect(doc.summary.sessions).toBe(1);
  });

  it("cannot be combined with ids or --all (exit 2)", async () => {
    for (const extra of [["--all"], [fixture.byUpdatedDesc[1]!]]) {
      const r = await run(["session", "scan", "--last", ...extra, "--store", store]);
      expect(r.status).toBe(2);
      expectOneLineError(r, /--last/);
    }
  });

  it("`--last 3` says --last takes no value, naming what it read as a session id", async () => {
    const r = await run(["session", "scan", "--last", "3", "--store", store]);
    expect(r.status).toBe(2);
    expectOneLineError(r, /^recover: --last is the one most recently updated session: it takes no value and no session ids \(got "3"\)$/);
  });
});
