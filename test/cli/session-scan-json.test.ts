import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { buildStore, healthySession, truncateAfter, type BuiltStore } from "../support/opencode-fixtures.js";
import { expectNoStack, parseJsonDocument, run } from "./run.js";
import {
  BROKEN_RULES,
  brokenTurnSession,
  DAY,
  defectStore,
  FORMATS,
  healthyStore,
  T0,
  WARNING_RULES,
  warningsOnlySession,
  warningsOnlyStore,
  writeStore,
  type Format,
} from "./stores.js";

const PACKAGE_VERSION = (JSON.parse(readFileSync("package.json", "utf8")) as { version: string }).version;
const FINDING_KEYS = ["rule", "severity", "messageId", "partId", "path", "line", "message", "fixable"];

interface Finding {
  rule: string;
  severity: "error" | "warning";
  messageId?: string;
  partId?: string;
  message: string;
  fixable: boolean;
}
interface ScanDoc {
  schemaVersion: number;
  tool: { name: string; version: string };
  store: { format: string; path: string; notices: string[] };
  sessions: { id: string; title: string; findings: Finding[] }[];
  summary: { sessions: number; findings: number; errors: number; warnings: number };
}

/** Parses a scan document and checks everything that must hold for any scan. */
function scanDoc(stdout: string): ScanDoc {
  const doc = parseJsonDocument(stdout) as unknown as ScanDoc;
  expect(Object.keys(doc)[0]).toBe("schemaVersion");
  expect(doc.schemaVersion).toBe(1);
  expect(doc.tool).toEqual({ name: "recover", version: PACKAGE_VERSION });
  expect(doc.store).toMatchObject({ format: expect.any(String), path: expect.any(String) });
  expect(Array.isArray(doc.sessions)).toBe(true);
  const all = doc.sessions.flatMap((s) => s.findings);
  for (const session of doc.sessions) {
    expect(session).toMatchObject({ id: expect.stringMatching(/^ses_/), findings: expect.any(Array) });
    for (const f of session.findings) {
      for (const key of Object.keys(f)) expect(FINDING_KEYS).toContain(key);
      expect(f).toMatchObject({
        rule: expect.any(String),
        severity: expect.stringMatching(/^(error|warning)$/),
        message: expect.any(String),
        fixable: expect.any(Boolean),
      });
      expect(f.message.length).toBeGreaterThan(0);
      if ("messageId" in f) expect(f.messageId).toMatch(/^msg_/);
      if ("partId" in f) expect(f.partId).toMatch(/^prt_/);
    }
  }
  // The summary agrees with the findings listed.
  expect(doc.summary).toEqual({
    sessions: doc.sessions.length,
    findings: all.length,
    errors: all.filter((f) => f.severity === "error").length,
    warnings: all.filter((f) => f.severity === "warning").length,
  });
  return doc;
}

function rulesOf(doc: ScanDoc, id: string): string[] {
  const session = doc.sessions.find((s) => s.id === id);
  expect(session, `session ${id} in the report`).toBeDefined();
  return session!.findings.map((f) => f.rule).sort();
}

describe.each(FORMATS)("session scan --all --json (%s)", (format: Format) => {
  const fixture = defectStore();
  let store: string;
  let readPath: string;
  beforeAll(() => {
    ({ store, readPath } = writeStore(fixture.built, format));
  });

  it("reports every planted defect in one document and exits 1", async () => {
    const r = await run(["session", "scan", "--all", "--json", "--store", store]);
    expectNoStack(r.stderr);
    expect(r.status).toBe(1);
    const doc = scanDoc(r.stdout);
    expect(doc.store).toMatchObject({ format, path: readPath });
    // --all: every session is there, the clean one with an empty list.
    expect(doc.sessions.map((s) => s.id).sort()).toEqual(fixture.built.sessions.map((s) => s.id).sort());
    expect(doc.sessions.find((s) => s.id === fixture.healthyId)!.findings).toEqual([]);
    expect(rulesOf(doc, fixture.brokenId)).toEqual(BROKEN_RULES);
    expect(rulesOf(doc, fixture.warningsId)).toEqual(WARNING_RULES);
    expect(doc.summary).toEqual({ sessions: 3, findings: 5, errors: 3, warnings: 2 });
    expect(doc.sessions.find((s) => s.id === fixture.brokenId)!.title).toBe("Run the migrations");
  });

  it("points each finding at the record that holds the defect", async () => {
    const doc = scanDoc((await run(["session", "scan", "--all", "--json", "--store", store])).stdout);
    const broken = fixture.built.sessions.find((s) => s.id === fixture.brokenId)!;
    const assistant = broken.messages[1]!;
    const partWith = (pred: (d: Record<string, unknown>) => boolean) => assistant.parts.find((p) => p.data && pred(p.data))!;
    const blank = partWith((d) => d.type === "text" && d.text === "   ");
    const running = partWith((d) => d.type === "tool");
    const tornTurn = broken.messages[3]!;
    const torn = tornTurn.parts.find((p) => p.corrupt)!;
    const findings = doc.sessions.find((s) => s.id === fixture.brokenId)!.findings;
    const byRule = (rule: string) => findings.find((f) => f.rule === rule)!;
    expect(byRule("empty-text-part")).toMatchObject({ severity: "error", messageId: assistant.id, partId: blank.id, fixable: true });
    expect(byRule("tool-call-interrupted")).toMatchObject({ severity: "error", messageId: assistant.id, partId: running.id, fixable: true });
    expect(byRule("tool-call-interrupted").message).toContain(String(running.data!.callID));
    expect(byRule("unreadable-record")).toMatchObject({ severity: "error", messageId: tornTurn.id, partId: torn.id, fixable: true });

    const warnings = fixture.built.sessions.find((s) => s.id === fixture.warningsId)!;
    const unfinished = warnings.messages.at(-1)!;
    const bigOutput = warnings.messages[1]!.parts.find((p) => p.data?.type === "tool")!;
    const w = doc.sessions.find((s) => s.id === fixture.warningsId)!.findings;
    expect(w.find((f) => f.rule === "incomplete-message")).toMatchObject({ severity: "warning", messageId: unfinished.id });
    expect(w.find((f) => f.rule === "incomplete-message")).not.toHaveProperty("partId");
    expect(w.find((f) => f.rule === "oversized-tool-output")).toMatchObject({ severity: "warning", partId: bigOutput.id, fixable: true });
  });

  it("--exit-zero reports the same findings and exits 0", async () => {
    const r = await run(["session", "scan", "--all", "--json", "--exit-zero", "--store", store]);
    expect(r.status).toBe(0);
    expect(scanDoc(r.stdout).summary).toEqual({ sessions: 3, findings: 5, errors: 3, warnings: 2 });
  });

  it("without ids or --all scans every session too", async () => {
    const r = await run(["session", "scan", "--json", "--store", store]);
    expect(r.status).toBe(1);
    expect(scanDoc(r.stdout).summary.sessions).toBe(3);
  });

  it("exits 0 when only warnings exist", async () => {
    const built = warningsOnlyStore();
    const r = await run(["session", "scan", "--all", "--json", "--store", writeStore(built, format).store]);
    expect(r.status).toBe(0);
    const doc = scanDoc(r.stdout);
    expect(doc.summary).toEqual({ sessions: 2, findings: 2, errors: 0, warnings: 2 });
    expect(rulesOf(doc, built.sessions[1]!.id)).toEqual(WARNING_RULES);
  });

  it("exits 0 on a healthy store, every session with findings: []", async () => {
    const built = healthyStore(3);
    const r = await run(["session", "scan", "--all", "--json", "--store", writeStore(built, format).store]);
    expectNoStack(r.stderr);
    expect(r.status).toBe(0);
    const doc = scanDoc(r.stdout);
    expect(doc.summary).toEqual({ sessions: 3, findings: 0, errors: 0, warnings: 0 });
    expect(doc.sessions.map((s) => s.id).sort()).toEqual(built.sessions.map((s) => s.id).sort());
    for (const s of doc.sessions) expect(s.findings).toEqual([]);
  });
});

describe.each(FORMATS)("an unreadable record is a finding, not a crash (%s)", (format: Format) => {
  // Session 1: one torn part in an otherwise healthy session. Session 2: a torn message record.
  // Session 3: other defects after them. Session 4: healthy.
  const torn = healthySession({ start: T0, title: "Torn part" });
  const tornPart = torn.messages[1]!.parts.find((p) => p.data?.type === "text")!;
  tornPart.corrupt = truncateAfter('"text"');
  const tornMessage = healthySession({ start: T0 + DAY, title: "Torn message" });
  tornMessage.messages[2]!.corrupt = truncateAfter('"agent"');
  const built: BuiltStore = buildStore({
    seed: 21,
    sessions: [torn, tornMessage, brokenTurnSession(T0 + 2 * DAY), warningsOnlySession(T0 + 3 * DAY), healthySession({ start: T0 + 4 * DAY })],
  });
  const [tornS, tornMessageS, brokenS, warningsS, healthyS] = built.sessions;
  let store: string;
  beforeAll(() => {
    ({ store } = writeStore(built, format));
  });

  it("--json: the scan goes on and reports every session", async () => {
    const r = await run(["session", "scan", "--all", "--json", "--store", store]);
    expectNoStack(r.stderr);
    expect(r.status).toBe(1);
    const doc = scanDoc(r.stdout);
    expect(doc.summary.sessions).toBe(5);
    const tornFindings = doc.sessions.find((s) => s.id === tornS!.id)!.findings;
    const partId = tornS!.messages[1]!.parts.find((p) => p.corrupt)!.id;
    expect(tornFindings).toContainEqual(expect.objectContaining({ rule: "unreadable-record", severity: "error", partId }));
    const messageId = tornMessageS!.messages[2]!.id;
    expect(doc.sessions.find((s) => s.id === tornMessageS!.id)!.findings).toContainEqual(
      expect.objectContaining({ rule: "unreadable-record", severity: "error", messageId }),
    );
    expect(rulesOf(doc, brokenS!.id)).toEqual(BROKEN_RULES);
    expect(rulesOf(doc, warningsS!.id)).toEqual(WARNING_RULES);
    expect(rulesOf(doc, healthyS!.id)).toEqual([]);
  });

  it("human output: every damaged session is listed, then the summary", async () => {
    const r = await run(["session", "scan", "--all", "--store", store]);
    expectNoStack(r.stderr);
    expect(r.status).toBe(1);
    for (const s of [tornS!, tornMessageS!, brokenS!, warningsS!]) expect(r.stdout).toContain(s.id);
    expect(r.stdout).not.toContain(healthyS!.id);
    expect(r.stdout).toMatch(/ in 4 of 5 sessions\n$/);
  });
});
