// `recover context trim` always brings the session back: the weight of a real overflow sits in the running (last)
// turn — a prompt or two, then a long tool loop with big outputs — and the trim reaches into it, oldest step first,
// keeping byte-identical only the first prompt (the task), the last prompt and the last two steps with their results.
// The built CLI on real stores: opencode (SQLite and JSON tree), Claude Code and openclaw transcripts; pasted
// screenshots over the provider's 20-images-over-2000-px rule; `session repair --error "prompt is too long…"` that
// trims in the same transaction; and the one case nothing can fix (the intact part alone over the limit).
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BACKUP_ID, sandbox, storeState, writeTestStore, type Sandbox, type TestStore } from "../cli/repair-support.js";
import { parseJsonDocument, tempDir, type RunResult } from "../cli/run.js";
import { FORMATS, type Format } from "../cli/stores.js";
import type { Json } from "../support/opencode-fixtures.js";
import {
  claudeImages,
  claudeRunningTurn,
  dataUrlImages,
  heavyTailSession,
  imageSession,
  imagesFit,
  linesByKey,
  openclawRunningTurn,
  runningTurnStore,
  transcriptImages,
  type RunningTurnStore,
  type TranscriptStore,
} from "./running-turn-stores.js";
import { estimate, loadRecords, violations } from "./sessions.js";

const PAIR_KINDS = ["orphan_tool_use", "orphan_tool_result", "tool_result_not_first"];
const LIMIT = 200_000;
const TARGET = 160_000;

// ---------------------------------------------------------------------------------------------
// The documents (assumed shape: the trim's figures under `trim`, see the issue)
// ---------------------------------------------------------------------------------------------

interface TrimPart {
  tokens: { before: number; after: number; limit: number; target: number; method: string };
  strategies: { id: string; records: number; tokens: number; bytes?: number }[];
  stillOver: boolean;
  reached?: { id: string; records: number }[];
}

interface Doc {
  dryRun?: boolean;
  backup: { id: string; path: string } | null;
  sessions: { id: string; changes: { op: string; record: string; id: string; rules: string[] }[] }[];
  summary: { changes: number };
  trim?: TrimPart;
}

function docOf(r: RunResult): Doc {
  return parseJsonDocument(r.stdout) as unknown as Doc;
}

/** The trim figures sit at the top of the repair document (`tokens`, `strategies`, `stillOver`, `reached`). */
function trimOf(doc: Doc): TrimPart {
  const found = doc as unknown as TrimPart;
  expect(found.tokens, `trim figures in ${JSON.stringify(doc).slice(0, 600)}`).toBeTypeOf("object");
  return found;
}

const show = (r: RunResult) => `exit ${r.status}\nstdout: ${r.stdout.slice(0, 1500)}\nstderr: ${r.stderr.slice(0, 1500)}`;

/** Nothing left to do: no change planned (summary or per session), exit 0. */
function expectNothingToDo(r: RunResult): void {
  expect(r.status, show(r)).toBe(0);
  const doc = docOf(r);
  const changes = doc.summary?.changes ?? doc.sessions.reduce((n, s) => n + s.changes.length, 0);
  expect(changes, show(r)).toBe(0);
}

// ---------------------------------------------------------------------------------------------
// opencode
// ---------------------------------------------------------------------------------------------

interface Opencode {
  fixture: RunningTurnStore;
  store: TestStore;
  sb: Sandbox;
  id: string;
}

function write(fixture: RunningTurnStore, format: Format): Opencode {
  return { fixture, store: writeTestStore(fixture.built, format), sb: sandbox(), id: fixture.sessionId };
}

async function cli(o: { sb: Sandbox; store: { store: string } }, ...args: string[]): Promise<RunResult> {
  return await o.sb.run([...args, "--store", o.store.store]);
}

/** storeState keys of a message and its parts. */
function messageKeys(o: Opencode, messageId: string): string[] {
  const parts = o.fixture.partsOf[messageId]!;
  if (o.store.format === "opencode-sqlite") return [`message/${messageId}`, ...parts.map((p) => `part/${p}`)];
  return [path.join("message", o.id, `${messageId}.json`), ...parts.map((p) => path.join("part", messageId, `${p}.json`))];
}

/** The first prompt, the last prompt, the last two steps (their tool parts hold the results). */
function intactKeys(o: Opencode): string[] {
  const f = o.fixture;
  return [f.firstUserId, f.lastUserId, ...f.lastStepIds].flatMap((m) => messageKeys(o, m));
}

function expectIntact(o: Opencode, original: Record<string, string>): void {
  const now = storeState(o.store);
  for (const key of intactKeys(o)) expect(now[key], `${key} byte-identical`).toBe(original[key]);
}

/** Tool pairs: the request has no tool_use without its result, and the scan finds no error. */
async function expectPairsAndCleanScan(o: Opencode): Promise<void> {
  for (const mode of ["on", "auto"] as const) expect(violations(o.store, o.id, mode).filter((v) => PAIR_KINDS.includes(v.kind))).toEqual([]);
  const scan = await cli(o, "session", "scan", o.id, "--json");
  expect(scan.status, show(scan)).toBe(0);
  const doc = parseJsonDocument(scan.stdout) as { sessions: { findings: { rule: string; severity: string }[] }[] };
  expect(doc.sessions.flatMap((s) => s.findings).filter((f) => f.severity === "error")).toEqual([]);
}

// Built once: the same session bytes for every test, written to a fresh store each time.
let running: RunningTurnStore | undefined;
const runningFixture = () => (running ??= runningTurnStore());

/**
 * The whole promise on one store: under the target, reached into the running turn, the intact part byte-identical,
 * tool pairs whole, a second trim with nothing to do, a restore that gives back every record byte for byte.
 */
async function trimsTheRunningTurn(format: Format, keepTurns?: string): Promise<void> {
  const o = write(runningFixture(), format);
  const messages = o.fixture.built.sessions[0]!.messages;
  expect(messages.filter((m) => m.role === "user")).toHaveLength(2);
  expect(messages.slice(3).every((m) => m.role === "assistant" && m.parts.some((p) => p.data?.type === "tool"))).toBe(true);
  expect(messages.slice(3)).toHaveLength(16);
  const before = estimate(o.store, o.id);
  // What the fixture claims: two user turns, about 1.2 MB of tool output in the second, far over the window.
  expect(before.tokens).toBeGreaterThan(280_000);
  const original = storeState(o.store);
  const keep = keepTurns === undefined ? [] : ["--keep-turns", keepTurns];

  const r = await cli(o, "context", "trim", o.id, ...keep, "--yes", "--json");
  expect(r.status, show(r)).toBe(0);
  const doc = docOf(r);
  expect(doc.backup?.id).toMatch(BACKUP_ID);
  // What is on disk first: a rescan under the target (zero stored usage, so no calibration), the intact part
  // byte-identical, tool pairs whole.
  expect(estimate(o.store, o.id).tokens).toBeLessThanOrEqual(TARGET);
  expectIntact(o, original);
  await expectPairsAndCleanScan(o);

  // Then what the document says.
  const trim = trimOf(doc);
  expect(trim.tokens.limit).toBe(LIMIT);
  expect(trim.tokens.target).toBe(TARGET);
  expect(trim.tokens.before).toBeGreaterThan(LIMIT);
  expect(trim.tokens.after).toBeLessThanOrEqual(trim.tokens.target);
  expect(trim.stillOver).toBe(false);
  // Everything but the first turn and the last two steps is in the running turn: the trim had to reach into it
  // (with --keep-turns 0 nothing is protected, so only then may it be absent).
  if (keepTurns !== "0") {
    expect(trim.reached, JSON.stringify(trim)).toBeDefined();
    expect(trim.reached!.reduce((n, s) => n + s.records, 0)).toBeGreaterThan(0);
  }

  // Trimming again has nothing to do.
  const again = await cli(o, "context", "trim", o.id, ...keep, "--yes", "--json");
  expectNothingToDo(again);

  // The backup gives back every record exactly.
  const restored = await cli(o, "session", "restore", doc.backup!.id, "--yes");
  expect(restored.status, show(restored)).toBe(0);
  expect(storeState(o.store)).toEqual(original);
}

describe.each(FORMATS)("context trim reaches into the running turn (%s)", (format) => {
  it("2 prompts, 16 tool steps of 40–110 KB in the last turn: under the target, task + last prompt + last 2 steps byte-identical, pairs whole, second trim a no-op, restore exact", async () => {
    await trimsTheRunningTurn(format);
  });

  it.each(["0", "1"])("--keep-turns %s is accepted and keeps the same guarantees", async (keepTurns) => {
    await trimsTheRunningTurn(format, keepTurns);
  });

  it("the human output says it reached into the running turn (dry run)", async () => {
    const o = write(runningFixture(), format);
    const r = await cli(o, "context", "trim", o.id, "--dry-run");
    // A dry run with something to do exits 1 (docs/repair.md: terraform's -detailed-exitcode).
    expect(r.status, show(r)).toBe(1);
    expect(r.stdout).toMatch(/^reached into the running turn:/m);
    expect(r.stdout).not.toContain("nothing to trim");
  });

  it('session repair --error "prompt is too long: 812345 tokens > 200000 maximum" trims in the same transaction: the session fits; restore undoes it', async () => {
    const o = write(runningFixture(), format);
    const original = storeState(o.store);
    const r = await cli(o, "session", "repair", o.id, "--error", "prompt is too long: 812345 tokens > 200000 maximum", "--yes", "--json");
    expect(r.status, show(r)).toBe(0);
    const doc = docOf(r);
    expect(doc.backup?.id).toMatch(BACKUP_ID);
    expectIntact(o, original);

    const dry = await cli(o, "context", "trim", o.id, "--json", "--dry-run");
    // Exit 0: nothing to do; exit 1: a dry run with something to do, which must then start under the target.
    expect([0, 1], show(dry)).toContain(dry.status);
    const after = docOf(dry);
    const nothing = dry.status === 0 && (after.summary?.changes ?? 0) === 0 && after.sessions.every((s) => s.changes.length === 0);
    if (!nothing) expect(trimOf(after).tokens.before).toBeLessThanOrEqual(TARGET);
    expect(estimate(o.store, o.id).tokens).toBeLessThanOrEqual(TARGET);
    await expectPairsAndCleanScan(o);

    const restored = await cli(o, "session", "restore", doc.backup!.id, "--yes");
    expect(restored.status, show(restored)).toBe(0);
    expect(storeState(o.store)).toEqual(original);
  });

  it("the last prompt and the last 2 steps alone over the limit (two 1 MB logs): exit 1 with one sentence saying so, never 'nothing to trim'", async () => {
    const o = write(runningTurnStore(heavyTailSession()), format);
    // The two last steps alone: 2 × 1,000,000 characters ≈ 500,000 tokens.
    expect(estimate(o.store, o.id).tokens).toBeGreaterThan(500_000);
    const human = await cli(o, "context", "trim", o.id, "--yes");
    expect(human.status, show(human)).toBe(1);
    expect(`${human.stdout}\n${human.stderr}`).toMatch(/alone are [\d,]+ tokens/);
    expect(human.stdout).not.toContain("nothing to trim");
    const json = await cli(o, "context", "trim", o.id, "--dry-run", "--json");
    expect(json.status, show(json)).toBe(1);
    expect(`${json.stdout}\n${json.stderr}`).toContain("alone are");
    expect(json.stdout).not.toContain("nothing to trim");
  });
});

// ---------------------------------------------------------------------------------------------
// Transcripts
// ---------------------------------------------------------------------------------------------

type Dialect = "claude" | "openclaw";
const BUILDERS: Record<Dialect, (dir: string) => TranscriptStore> = { claude: claudeRunningTurn, openclaw: openclawRunningTurn };

describe.each(["claude", "openclaw"] as Dialect[])("context trim reaches into the running turn of a %s transcript", (dialect) => {
  it("one 3 MB tool output inside the latest turn, older than the last 2 steps: under the target, intact lines byte-identical, second trim a no-op, restore exact", async () => {
    const sb = sandbox();
    const t = BUILDERS[dialect](tempDir());
    const o = { sb, store: { store: t.store } };
    const originalBytes = fs.readFileSync(t.file);
    const original = linesByKey(t.file);
    for (const key of [...t.intact, t.hugeLine]) expect(original.has(key), key).toBe(true);
    // The fixture loads, and its one error-free session is far over the window.
    const scan = await cli(o, "session", "scan", t.sessionId, "--json");
    expect(scan.status, show(scan)).toBe(0);

    const r = await cli(o, "context", "trim", t.sessionId, "--yes", "--json");
    expect(r.status, show(r)).toBe(0);
    const doc = docOf(r);
    expect(doc.backup?.id).toMatch(BACKUP_ID);

    const now = linesByKey(t.file);
    for (const key of t.intact) expect(now.get(key), `line ${key} byte-identical`).toBe(original.get(key));
    // The huge result is still there as a line (its tool call keeps a result), only smaller.
    expect(now.get(t.hugeLine)).toBeDefined();
    expect(now.get(t.hugeLine)!.length).toBeLessThan(original.get(t.hugeLine)!.length);
    const rescan = await cli(o, "session", "scan", t.sessionId, "--json");
    expect(rescan.status, show(rescan)).toBe(0);
    const findings = (parseJsonDocument(rescan.stdout) as { sessions: { findings: { severity: string }[] }[] }).sessions.flatMap((s) => s.findings);
    expect(findings.filter((f) => f.severity === "error")).toEqual([]);

    const trim = trimOf(doc);
    expect(trim.tokens.before).toBeGreaterThan(700_000);
    expect(trim.tokens.after).toBeLessThanOrEqual(trim.tokens.target);
    expect(trim.stillOver).toBe(false);
    expect(trim.reached, JSON.stringify(trim)).toBeDefined();

    expectNothingToDo(await cli(o, "context", "trim", t.sessionId, "--yes", "--json"));

    const restored = await cli(o, "session", "restore", doc.backup!.id, "--yes");
    expect(restored.status, show(restored)).toBe(0);
    expect(fs.readFileSync(t.file).equals(originalBytes)).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------
// Images: at most 20, or none over 2000 px
// ---------------------------------------------------------------------------------------------

describe.each(FORMATS)("drop-images: 25 screenshots of 3000×3000 px (%s)", (format) => {
  it("after the trim the request holds at most 20 images or none over 2000 px; the last prompt is byte-identical", async () => {
    const fixture = runningTurnStore(imageSession());
    const o = write(fixture, format);
    const allParts = () => loadRecords(o.store, o.id).messages.flatMap((m) => m.parts.map((p) => p.original as Json));
    const images = dataUrlImages(allParts());
    expect(images).toHaveLength(25);
    expect(images.every((i) => i.width === 3000 && i.height === 3000)).toBe(true);
    const original = storeState(o.store);

    const r = await cli(o, "context", "trim", o.id, "--yes", "--json");
    expect(r.status, show(r)).toBe(0);
    const left = dataUrlImages(allParts());
    expect(imagesFit(left), `${left.length} images left`).toBe(true);
    const now = storeState(o.store);
    for (const key of messageKeys(o, fixture.lastUserId)) expect(now[key], `${key} byte-identical`).toBe(original[key]);
    expect(trimOf(docOf(r)).strategies.map((s) => s.id)).toContain("drop-images");
  });
});

describe("drop-images: 25 screenshots of 3000×3000 px (claude)", () => {
  it("after the trim the transcript holds at most 20 images or none over 2000 px; the last prompt line is byte-identical", async () => {
    const sb = sandbox();
    const t = claudeImages(tempDir());
    const o = { sb, store: { store: t.store } };
    expect(transcriptImages(t.file)).toHaveLength(25);
    const original = linesByKey(t.file);

    const r = await cli(o, "context", "trim", t.sessionId, "--yes", "--json");
    expect(r.status, show(r)).toBe(0);
    const left = transcriptImages(t.file);
    expect(imagesFit(left), `${left.length} images left`).toBe(true);
    expect(linesByKey(t.file).get(t.lastUser)).toBe(original.get(t.lastUser));
    expect(trimOf(docOf(r)).strategies.map((s) => s.id)).toContain("drop-images");
  });
});

// ---------------------------------------------------------------------------------------------
// One command from the error, on every store: the repair runs the trim in its own transaction
// ---------------------------------------------------------------------------------------------

describe.each(["claude", "openclaw"] as Dialect[])("session repair --error on a %s transcript that overflows", (dialect) => {
  it('"prompt is too long: 812345 tokens > 200000 maximum": one repair fits it, the intact lines stay, restore gives every byte back', async () => {
    const sb = sandbox();
    const t = BUILDERS[dialect](tempDir());
    const o = { sb, store: { store: t.store } };
    const originalBytes = fs.readFileSync(t.file);
    const original = linesByKey(t.file);
    const r = await cli(o, "session", "repair", t.sessionId, "--error", "prompt is too long: 812345 tokens > 200000 maximum", "--yes", "--json");
    expect(r.status, show(r)).toBe(0);
    const doc = docOf(r);
    expect(trimOf(doc).tokens.after).toBeLessThanOrEqual(TARGET);
    const now = linesByKey(t.file);
    for (const key of t.intact) expect(now.get(key), `line ${key} byte-identical`).toBe(original.get(key));
    expectNothingToDo(await cli(o, "context", "trim", t.sessionId, "--yes", "--json"));
    const restored = await cli(o, "session", "restore", doc.backup!.id, "--yes");
    expect(restored.status, show(restored)).toBe(0);
    expect(fs.readFileSync(t.file).equals(originalBytes)).toBe(true);
  });
});

describe.each(FORMATS)("session repair --error with the many-image error (%s)", (format) => {
  it("drops exactly the images that break the rule, nothing else; explain names the repair", async () => {
    const fixture = runningTurnStore(imageSession());
    const o = write(fixture, format);
    const allParts = () => loadRecords(o.store, o.id).messages.flatMap((m) => m.parts.map((p) => p.original as Json));
    const error =
      "messages.9.content.3.image.source.base64.data: At least one of the image dimensions exceed max allowed size for many-image requests: 2000 pixels";
    const explained = await cli(o, "explain", error, "--json");
    expect(parseJsonDocument(explained.stdout).fix).toMatch(/^recover session repair <session-id> --error 'messages\.9\.content\.3\.image/);
    const r = await cli(o, "session", "repair", o.id, "--error", error, "--yes", "--json");
    expect(r.status, show(r)).toBe(0);
    const left = dataUrlImages(allParts());
    expect(left).toHaveLength(20);
    expect(docOf(r).sessions[0]!.changes.every((c) => c.rules.includes("drop-images"))).toBe(true);
    expect(docOf(r).sessions[0]!.changes).toHaveLength(5);
  });
});
