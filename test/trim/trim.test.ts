// `recover context trim`: the built CLI on both store formats. A realistic overflowing session is trimmed under the
// target with the last turns untouched, tool pairs intact, a second trim a no-op and a restore giving back every
// byte; each strategy alone does exactly its job; the limit comes from the flags, the error text or the error stored
// on the session; a byte budget counts characters; dry runs write nothing; the JSON document has its shape.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { calibrate } from "../../src/cli/trim-budget.js";
import { truncationMarker } from "../../src/rules/trim/truncate-outputs.js";
import {
  BACKUP_ID,
  expectFailure,
  expectStoreBytes,
  sandbox,
  storeBytes,
  storeState,
  writeTestStore,
  type Sandbox,
  type TestStore,
} from "../cli/repair-support.js";
import { expectJsonError, expectOneLineError } from "../cli/run.js";
import { FORMATS, type Format } from "../cli/stores.js";
import type { Json } from "../support/opencode-fixtures.js";
import {
  bytesSession,
  call,
  chatTurn,
  cid,
  dedupeSession,
  dropSession,
  estimate,
  loadRecords,
  overflowSession,
  partByTag,
  pruneSession,
  purgeSession,
  recentTurns,
  runWithInput,
  session,
  sqliteIds,
  stateOf,
  storedTurns,
  toolTurn,
  storeWith,
  treeMtimes,
  trimDoc,
  truncateSession,
  turnKeys,
  viewOf,
  violations,
  withStoredError,
  type TrimDoc,
} from "./sessions.js";

const TRIM_RULE_IDS = ["drop-images", "truncate-outputs", "prune-old-outputs", "dedupe-outputs", "purge-errors", "drop-oldest-turns"];
const PAIR_KINDS = ["orphan_tool_use", "orphan_tool_result", "tool_result_not_first"];
const CLEARED = "[Old tool result content cleared]";
const MARKER = /\n\[… truncated ([\d,]+) characters to fit the context window …\]\n/;

interface Written {
  store: TestStore;
  id: string;
  sb: Sandbox;
}

function written(format: Format, spec: Parameters<typeof storeWith>[0]): Written {
  const built = storeWith(spec);
  return { store: writeTestStore(built, format), id: built.sessions[0]!.id, sb: sandbox() };
}

async function trim(w: Written, ...args: string[]) {
  return await w.sb.run(["context", "trim", w.id, ...args, "--store", w.store.store]);
}

/** A trim with --json that must succeed with this exit status; its document. */
async function trimJson(w: Written, status: number, ...args: string[]): Promise<TrimDoc> {
  const r = await trim(w, ...args, "--json");
  expect(r.status, `${args.join(" ")}\n${r.stdout.slice(0, 2000)}${r.stderr}`).toBe(status);
  expect(r.stderr).toBe("");
  return trimDoc(r);
}

/** --limit that makes the target (with --target 1) exactly `tokens` below the current estimate (calibration 1). */
function limitBelow(w: Written, tokens: number): string {
  return String(estimate(w.store, w.id).tokens - tokens);
}

/** Part ids the document says each strategy changed. */
function changedBy(doc: TrimDoc, rule: string): string[] {
  return doc.sessions[0]!.changes.filter((c) => c.rules.includes(rule)).map((c) => c.id);
}

function isCompacted(state: Json): boolean {
  return typeof (state.time as Json | undefined)?.compacted === "number";
}

function tagsWhere(w: Written, tags: string[], test: (state: Json) => boolean): string[] {
  const records = loadRecords(w.store, w.id);
  return tags.filter((t) => test(stateOf(records, t)));
}

// =============================================================================================
// 1. A realistic overflowing session
// =============================================================================================

describe.each(FORMATS)("context trim on a realistic overflowing session (%s)", (format) => {
  it("lands under the target with the last 4 turns byte-identical, tool pairs intact; a second trim is a no-op; restore gives it all back", async () => {
    const w = written(format, overflowSession());
    const before = loadRecords(w.store, w.id);
    const turns = storedTurns(before);
    expect(turns).toHaveLength(12);
    const raw = estimate(w.store, w.id);
    expect(raw.tokens).toBeGreaterThan(250_000);
    const { factor } = calibrate(viewOf(w.store, w.id));
    // Stored usage is truth: the last reply's prompt (input + cache.read + cache.write) is a little over our estimate.
    expect(factor).toBeGreaterThan(1);
    expect(factor).toBeLessThan(1.1);
    expect(violations(w.store, w.id, "on").filter((v) => PAIR_KINDS.includes(v.kind))).toEqual([]);
    const original = storeState(w.store);
    const keptKeys = turns.slice(-4).flatMap((t) => turnKeys(w.store, w.id, t, before));
    const keptMtimes = format === "opencode-json" ? treeMtimes(w.store.readPath) : {};

    const doc = await trimJson(w, 0, "--yes");
    expect(doc.dryRun).toBe(false);
    expect(doc.backup?.id).toMatch(BACKUP_ID);
    expect(doc.stillOver).toBe(false);
    expect(doc.tokens.limit).toBe(200_000);
    expect(doc.tokens.target).toBe(160_000);
    expect(doc.tokens.before).toBe(Math.round(raw.raw * factor));
    expect(doc.tokens.after).toBeLessThanOrEqual(160_000);
    expect(doc.tokens.method).toMatch(/calibrated ×1\.0\d against the [\d,]+ prompt tokens opencode stored/);
    expect(doc.sessions[0]!.changes.length).toBeGreaterThan(0);

    // A rescan estimates what the document says (same calibration), and the calibration was remembered.
    expect(estimate(w.store, w.id, factor).tokens).toBe(doc.tokens.after);
    const memory = fs.readdirSync(path.join(w.sb.state, "calibration"));
    expect(memory).toHaveLength(1);
    expect(JSON.parse(fs.readFileSync(path.join(w.sb.state, "calibration", memory[0]!), "utf8"))).toEqual({ [w.id]: factor });

    // The last four turns: every record byte-identical (SQLite: every column; JSON: the files, not even rewritten).
    const after = storeState(w.store);
    for (const key of keptKeys) expect(after[key], key).toBe(original[key]);
    if (format === "opencode-json") {
      const mtimes = treeMtimes(w.store.readPath);
      for (const key of keptKeys) expect(mtimes[key], key).toBe(keptMtimes[key]);
    }
    // The first turn (the task as first stated) is still there.
    expect(loadRecords(w.store, w.id).messages.map((m) => m.ref.id)).toContain(turns[0]!.messageIds[0]);

    // Tool pairs intact: the request has no tool_use without its result, no result without its use.
    for (const mode of ["on", "auto"] as const) expect(violations(w.store, w.id, mode).filter((v) => PAIR_KINDS.includes(v.kind))).toEqual([]);

    // Trimming again plans nothing: the same estimate (the remembered calibration), nothing to do.
    const dry = await trimJson(w, 0, "--dry-run");
    expect(dry.tokens.before).toBe(doc.tokens.after);
    expect(dry.tokens.method).toMatch(/as by the previous trim of this session/);
    expect(dry.sessions[0]!.changes).toEqual([]);
    const again = await trim(w, "--yes");
    expect(again.stderr).toBe("");
    expect(again.status).toBe(0);
    expect(again.stdout).toContain("✔ nothing to trim");
    expect(storeState(w.store)).toEqual(after);

    // The backup gives back the original exactly.
    const restored = await w.sb.run(["session", "restore", doc.backup!.id, "--yes"]);
    expect(restored.stderr).toBe("");
    expect(restored.status).toBe(0);
    expect(storeState(w.store)).toEqual(original);
  });

  it("marks its phases in order (loaded, planned, writing, written): what bench:trim times its targets by", async () => {
    const w = written(format, overflowSession());
    performance.clearMarks();
    await trimJson(w, 1, "--dry-run");
    const names = () => performance.getEntriesByType("mark").map((m) => m.name);
    expect(names()).toEqual(["recover:loaded", "recover:planned"]);
    performance.clearMarks();
    await trimJson(w, 0, "--yes");
    const marks = performance.getEntriesByType("mark");
    expect(names()).toEqual(["recover:loaded", "recover:planned", "recover:writing", "recover:written"]);
    for (let i = 1; i < marks.length; i++) expect(marks[i]!.startTime).toBeGreaterThanOrEqual(marks[i - 1]!.startTime);
  });

  it("pruning alone reaches the target on this session (what makes dropping whole turns unnecessary)", async () => {
    const w = written(format, overflowSession());
    const doc = await trimJson(w, 1, "--dry-run", "--strategy", "prune-old-outputs");
    expect(doc.stillOver).toBe(false);
    expect(doc.tokens.after).toBeLessThanOrEqual(doc.tokens.target);
  });

  // BUG: truncate-outputs takes the big old outputs first; prune-old-outputs then skips every part an earlier
  // strategy took this pass, and in the next pass its walk stops at the first output it compacted (opencode's "stop
  // at an already compacted part"), so the truncated outputs older than that are never cleared. The deficit left is
  // handed to drop-oldest-turns, which deletes three whole turns (prompts and answers) although clearing old outputs
  // alone reaches the target (test above); with only truncate + prune allowed the trim ends "still over".
  it("drop-oldest-turns stays the last resort: with every strategy allowed no turn is deleted when pruning alone suffices", async () => {
    const w = written(format, overflowSession());
    const all = await trimJson(w, 1, "--dry-run");
    expect(all.strategies.map((s) => s.id)).not.toContain("drop-oldest-turns");
    const two = await trimJson(w, 1, "--dry-run", "--strategy", "truncate-outputs,prune-old-outputs");
    expect(two.stillOver).toBe(false);
  });
});

// =============================================================================================
// 2. Each strategy alone
// =============================================================================================

describe.each(FORMATS)("each strategy alone (%s)", (format) => {
  it("truncate-outputs: largest first, only as many as needed; head + marker + tail, at most --max-output-chars", async () => {
    const w = written(format, truncateSession());
    const before = loadRecords(w.store, w.id);
    const original = Object.fromEntries(["A", "B", "C", "D", "E", "P"].map((t) => [t, stateOf(before, t).output!]));
    // Needs 50,000 tokens: A saves 37,500, B 25,000 → A and B; C (the oldest) and D stay.
    const doc = await trimJson(w, 0, "--yes", "--strategy", "truncate-outputs", "--target", "1", "--limit", limitBelow(w, 50_000));
    expect(doc.strategies).toEqual([{ id: "truncate-outputs", records: 2, tokens: 62_500, bytes: 249_992 }]);
    expect(doc.tokens.method).toBe("characters / 4 (no stored token counts to calibrate against)");
    const after = loadRecords(w.store, w.id);
    expect(changedBy(doc, "truncate-outputs").sort()).toEqual([partByTag(after, "A")!.partId, partByTag(after, "B")!.partId].sort());
    for (const tag of ["C", "D", "E", "P"]) expect(stateOf(after, tag).output, tag).toBe(original[tag]);
    for (const tag of ["A", "B"]) {
      const text = stateOf(after, tag).output!;
      const orig = original[tag]!;
      expect(text.length, tag).toBeLessThanOrEqual(50_000);
      expect(text.length, tag).toBeGreaterThan(49_990);
      const m = MARKER.exec(text);
      expect(m, tag).not.toBeNull();
      const head = text.slice(0, m!.index);
      const tail = text.slice(m!.index + m![0].length);
      const removed = Number(m![1]!.replace(/,/g, ""));
      expect(orig.startsWith(head), `${tag} keeps the head`).toBe(true);
      expect(orig.endsWith(tail), `${tag} keeps the tail`).toBe(true);
      expect(head.length + removed + tail.length, `${tag}: the marker counts what was taken out`).toBe(orig.length);
      expect(head.length).toBeGreaterThan(tail.length);
      expect(text).toBe(`${head}${truncationMarker(removed)}${tail}`);
      // Only the output changed.
      const { output: _a, ...rest } = stateOf(after, tag);
      const { output: _b, ...was } = stateOf(before, tag);
      expect(rest).toEqual(was);
    }
    expect(estimate(w.store, w.id).tokens).toBe(doc.tokens.after);
  });

  it("truncate-outputs with the budget out of reach: every output over the limit, the last turns' too once older turns gave all; never a short one", async () => {
    const w = written(format, truncateSession());
    const before = loadRecords(w.store, w.id);
    const doc = await trimJson(w, 1, "--yes", "--strategy", "truncate-outputs", "--limit", "1000", "--max-output-chars", "20000");
    expect(doc.stillOver).toBe(true);
    expect(doc.backup).not.toBeNull();
    const after = loadRecords(w.store, w.id);
    for (const tag of ["A", "B", "C", "D", "E"]) {
      expect(stateOf(after, tag).output!.length, tag).toBeLessThanOrEqual(20_000);
      expect(stateOf(after, tag).output, tag).toMatch(MARKER);
    }
    // P sits in the last 4 turns but not in the last 2 steps: it is truncated last, and the document says so.
    expect(stateOf(after, "P").output!.length).toBeLessThanOrEqual(20_000);
    expect(stateOf(before, "P").output!.length).toBeGreaterThan(20_000);
    expect(doc.reached).toEqual([{ id: "truncate-outputs", records: 1 }]);
    // Truncated already: a second trim has nothing left to truncate (and says it is still over).
    const again = await trimJson(w, 1, "--yes", "--strategy", "truncate-outputs", "--limit", "1000", "--max-output-chars", "20000");
    expect(again.sessions[0]!.changes).toEqual([]);
    expect(again.stillOver).toBe(true);
  });

  it("prune-old-outputs: old outputs marked compacted, oldest first; out of reach, the newest 40,000 tokens then the last turns follow; the last 2 steps and skill never; text stays on disk", async () => {
    const w = written(format, pruneSession());
    const before = loadRecords(w.store, w.id);
    const logs = ["L2", "L3", "L4", "L5", "L6", "L7", "L8"];
    // Out of reach: everything prunable goes, older turns first; R10 is in the last 2 steps, S2 a skill.
    const all = await trimJson(w, 1, "--yes", "--strategy", "prune-old-outputs", "--keep-turns", "2", "--limit", "1000");
    expect(all.stillOver).toBe(true);
    expect(tagsWhere(w, [...logs, "S2", "R9", "R10"], isCompacted)).toEqual([...logs, "R9"]);
    expect(all.reached).toEqual([{ id: "prune-old-outputs", records: 1 }]);
    const after = loadRecords(w.store, w.id);
    for (const tag of [...logs, "S2", "R9", "R10"]) {
      expect(stateOf(after, tag).output, `${tag}: the output stays on disk`).toBe(stateOf(before, tag).output);
      const { time: t1, ...rest } = stateOf(after, tag);
      const { time: t0, ...was } = stateOf(before, tag);
      expect(rest).toEqual(was);
      expect({ ...(t1 as Json), compacted: undefined }).toEqual({ ...(t0 as Json), compacted: undefined });
    }
    // What is sent for a compacted output is opencode's placeholder.
    const sent = viewOf(w.store, w.id)
      .conversation.messages.flatMap((m) => m.blocks)
      .find((b) => b.type === "tool_result" && b.toolUseId === cid("L2"));
    expect(sent?.text).toBe(CLEARED);
  });

  it("prune-old-outputs takes only as many as needed, oldest first", async () => {
    const w = written(format, pruneSession());
    // Each cleared 40,000-character output saves 9,992 tokens: 15,000 takes two, the two oldest.
    const doc = await trimJson(w, 0, "--yes", "--strategy", "prune-old-outputs", "--keep-turns", "2", "--target", "1", "--limit", limitBelow(w, 15_000));
    expect(doc.strategies).toEqual([{ id: "prune-old-outputs", records: 2, tokens: 19_984, bytes: 79_934 }]);
    expect(tagsWhere(w, ["L2", "L3", "L4", "L5", "L6", "L7", "L8", "S2", "R9", "R10"], isCompacted)).toEqual(["L2", "L3"]);
  });

  it("prune-old-outputs with the default --keep-turns 4 takes from the last four turns only after every older output", async () => {
    const w = written(format, pruneSession());
    // Enough for the older turns alone: turns 7–10 stay whole. Walking back from turn 6, L6, L5, L4, L3 are the
    // newest 40,000 tokens, so L2 goes first, then the window itself, oldest first.
    const enough = await trimJson(w, 0, "--yes", "--strategy", "prune-old-outputs", "--target", "1", "--limit", limitBelow(w, 25_000));
    expect(enough.reached).toBeUndefined();
    expect(tagsWhere(w, ["L2", "L3", "L4", "L5", "L6", "L7", "L8", "S2", "R9", "R10"], isCompacted)).toEqual(["L2", "L3", "L4"]);
    // Out of reach: the last four turns too, oldest step first; never R10 (the last 2 steps).
    const all = await trimJson(w, 1, "--yes", "--strategy", "prune-old-outputs", "--limit", "1000");
    expect(all.reached).toEqual([{ id: "prune-old-outputs", records: 3 }]);
    expect(tagsWhere(w, ["L2", "L3", "L4", "L5", "L6", "L7", "L8", "S2", "R9", "R10"], isCompacted)).toEqual(["L2", "L3", "L4", "L5", "L6", "L7", "L8", "R9"]);
  });

  it("dedupe: the same tool with the same input (keys in any order, nested too) keeps only its newest output", async () => {
    const w = written(format, dedupeSession());
    const before = loadRecords(w.store, w.id);
    const doc = await trimJson(w, 1, "--yes", "--strategy", "dedupe", "--limit", "1000");
    expect(doc.stillOver).toBe(true);
    expect(doc.strategies.map((s) => [s.id, s.records])).toEqual([["dedupe-outputs", 3]]);
    const tags = ["D2", "D3", "D4", "OTHER", "G1", "G2", "T5", "T10"];
    expect(tagsWhere(w, tags, isCompacted)).toEqual(["D2", "D3", "T5"]);
    const after = loadRecords(w.store, w.id);
    for (const tag of tags) expect(stateOf(after, tag).output, tag).toBe(stateOf(before, tag).output);
  });

  it("dedupe clears oldest first, only as far as needed", async () => {
    const w = written(format, dedupeSession());
    const doc = await trimJson(w, 0, "--yes", "--strategy", "dedupe", "--target", "1", "--limit", limitBelow(w, 5_000));
    expect(doc.strategies.map((s) => [s.id, s.records])).toEqual([["dedupe-outputs", 1]]);
    expect(tagsWhere(w, ["D2", "D3", "D4", "T5", "T10"], isCompacted)).toEqual(["D2"]);
  });

  it("purge-errors: errored calls more than 4 turns old lose their input first, then newer ones, never in the last 2 steps; the rest of the record stays", async () => {
    const w = written(format, purgeSession());
    const before = loadRecords(w.store, w.id);
    const doc = await trimJson(w, 1, "--yes", "--strategy", "purge-errors", "--limit", "1000");
    expect(doc.stillOver).toBe(true);
    const after = loadRecords(w.store, w.id);
    for (const tag of ["E2", "E3", "E4", "E6", "E7", "E8"]) {
      const { input, ...rest } = stateOf(after, tag);
      expect(input, tag).toEqual({});
      const { input: _, ...was } = stateOf(before, tag);
      expect(rest, tag).toEqual(was);
    }
    for (const tag of ["E9", "OK3"]) expect(stateOf(after, tag), tag).toEqual(stateOf(before, tag));
    expect(doc.strategies.map((s) => [s.id, s.records])).toEqual([["purge-errors", 6]]);
    expect(doc.reached).toEqual([{ id: "purge-errors", records: 3 }]);
    // The emptied calls still have their results: the pairs hold.
    expect(violations(w.store, w.id, "on").filter((v) => PAIR_KINDS.includes(v.kind))).toEqual([]);
  });

  it("drop-oldest-turns: whole oldest turns go (messages and all their parts), never the first nor the last --keep-turns; pairs hold", async () => {
    const w = written(format, dropSession());
    const before = loadRecords(w.store, w.id);
    const turns = storedTurns(before);
    expect(turns).toHaveLength(10);
    const original = storeState(w.store);
    // A turn is ~10,100 tokens: 25,000 takes three, the oldest after the first.
    const doc = await trimJson(w, 0, "--yes", "--strategy", "drop-oldest-turns", "--target", "1", "--limit", limitBelow(w, 25_000));
    expect(doc.strategies.map((s) => [s.id, s.records])).toEqual([["drop-oldest-turns", 3]]);
    const gone = turns.slice(1, 4);
    const kept = [turns[0]!, ...turns.slice(4)];
    const now = storeState(w.store);
    for (const t of gone) for (const key of turnKeys(w.store, w.id, t, before)) expect(now[key], `${key} deleted`).toBeUndefined();
    for (const t of kept) for (const key of turnKeys(w.store, w.id, t, before)) expect(now[key], `${key} untouched`).toBe(original[key]);
    expect(doc.sessions[0]!.changes.map((c) => `${c.op} ${c.record} ${c.id}`).sort()).toEqual(
      gone.flatMap((t) => [...t.messageIds.map((id) => `delete message ${id}`), ...t.partIds.map((id) => `delete part ${id}`)]).sort(),
    );
    if (format === "opencode-sqlite") {
      const ids = sqliteIds(w.store.readPath, w.id);
      expect(ids.messages).toEqual(kept.flatMap((t) => t.messageIds).sort());
      expect(ids.parts).toEqual(kept.flatMap((t) => t.partIds).sort());
    }
    expect(violations(w.store, w.id, "on").filter((v) => PAIR_KINDS.includes(v.kind))).toEqual([]);
    expect(violations(w.store, w.id, "on").filter((v) => v.kind === "first_not_user" || v.kind === "roles_not_alternating")).toEqual([]);
  });

  it("drop-oldest-turns with the budget out of reach stops at the first turn and the last --keep-turns", async () => {
    const w = written(format, dropSession());
    const turns = storedTurns(loadRecords(w.store, w.id));
    const doc = await trimJson(w, 1, "--yes", "--strategy", "drop-oldest-turns", "--keep-turns", "3", "--limit", "1000");
    expect(doc.stillOver).toBe(true);
    const left = storedTurns(loadRecords(w.store, w.id)).map((t) => t.prompt);
    expect(left).toEqual([turns[0]!.prompt, ...turns.slice(-3).map((t) => t.prompt)]);
  });
});

// =============================================================================================
// 3. Limits: flags, error texts, the stored error, byte budgets
// =============================================================================================

const CONTEXT_ERRORS: [string, string, number][] = [
  ["Anthropic", "prompt is too long: 219898 tokens > 200000 maximum", 200_000],
  ["Anthropic, another maximum", "prompt is too long: 219898 tokens > 180000 maximum", 180_000],
  ["Anthropic JSON body", '{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 212345 tokens > 150000 maximum"}}', 150_000],
  [
    "Anthropic max_tokens",
    "input length and `max_tokens` exceed context limit: 199759 + 8192 > 200000, decrease input length or `max_tokens` and try again",
    200_000,
  ],
  [
    "Anthropic max_tokens, another maximum",
    "input length and `max_tokens` exceed context limit: 99759 + 8192 > 100000, decrease input length or `max_tokens` and try again",
    100_000,
  ],
  [
    "OpenAI",
    "This model's maximum context length is 128000 tokens. However, your messages resulted in 202868 tokens (202767 in the messages, 101 in the functions). Please reduce the length of the messages or functions.",
    128_000,
  ],
  ["Bedrock", "The model returned the following errors: prompt is too long: 200049 tokens > 200000 maximum", 200_000],
  ["Bedrock, another maximum", "The model returned the following errors: prompt is too long: 190049 tokens > 190000 maximum", 190_000],
];

describe("the limit", () => {
  it.each(CONTEXT_ERRORS)("--error - (%s): tokens.limit is the maximum the text names", async (_name, text, max) => {
    const w = written("opencode-sqlite", dropSession());
    const r = await runWithInput(w.sb, ["context", "trim", w.id, "--error", "-", "--dry-run", "--json", "--store", w.store.store], text);
    expect(r.stderr).toBe("");
    const doc = trimDoc(r);
    expect(doc.tokens.limit).toBe(max);
    expect(doc.tokens.target).toBe(Math.floor(max * 0.8));
    expect(doc.bytes).toBeUndefined();
    expect(r.status).toBe(doc.sessions[0]!.changes.length > 0 ? 1 : 0);
  });

  it("--error <text> and --error-file read the same; --limit wins over the text", async () => {
    const w = written("opencode-sqlite", dropSession());
    const text = "prompt is too long: 212345 tokens > 150000 maximum";
    expect((await trimJson(w, 0, "--error", text, "--dry-run")).tokens.limit).toBe(150_000);
    const file = path.join(w.sb.stateHome, "error.txt");
    fs.writeFileSync(file, `${text}\n`);
    expect((await trimJson(w, 0, "--error-file", file, "--dry-run")).tokens.limit).toBe(150_000);
    expect((await trimJson(w, 0, "--error", text, "--limit", "300000", "--dry-run")).tokens.limit).toBe(300_000);
    expect((await trimJson(w, 0, "--context-limit", "300000", "--dry-run")).tokens.limit).toBe(300_000);
  });

  it("--limit and --context-limit together: exit 2", async () => {
    const w = written("opencode-sqlite", dropSession());
    await expectFailure(
      w.sb,
      ["context", "trim", w.id, "--limit", "100000", "--context-limit", "100000", "--dry-run", "--store", w.store.store],
      2,
      "usage",
      /--limit or --context-limit, not both/,
    );
  });

  it.each([
    [
      "an orphan tool_use",
      "messages.3: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01AbCdEfGhIjKlMnOpQrStUv. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
    ],
    [
      "a rate limit",
      '{"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization of 400,000 input tokens per minute."}}',
    ],
    ["an unknown text", "socket hang up"],
  ])("--error with %s (not a context or size error): exit 2, nothing written", async (_name, text) => {
    const w = written("opencode-sqlite", dropSession());
    const bytes = storeBytes(w.store);
    const r = await runWithInput(w.sb, ["context", "trim", w.id, "--error", "-", "--yes", "--store", w.store.store], text);
    expect(r.status).toBe(2);
    expectOneLineError(r, /not a context or size error/);
    expectStoreBytes(w.store, bytes);
  });

  it("the size the error counts is the truth for the request: what it holds beyond the messages is never trimmed", async () => {
    // The client's system prompt and tools: 8,000 tokens outside the messages (measured: opencode 1.18 sends about
    // that much). The error counts them; a trim that counted the messages only found nothing to do
    // (docs/research/opencode-prefix-thinking.md, finding 2).
    const w = written("opencode-sqlite", dropSession());
    const messages = estimate(w.store, w.id).tokens;
    const counted = messages + 8_000;
    const max = messages + 1_000;
    const doc = await trimJson(w, 1, "--dry-run", "--error", `prompt is too long: ${counted} tokens > ${max} maximum`);
    expect(doc.tokens.before).toBe(counted);
    expect(doc.tokens.method).toMatch(
      /^characters \/ 4, plus 8,000 tokens sent outside the messages \(system prompt, tools\): the [\d,]+ tokens the error counted/,
    );
    expect(doc.sessions[0]!.changes.length).toBeGreaterThan(0);
    // After the trim, the messages and the 8,000 outside them fit the target together.
    expect(doc.tokens.after).toBeLessThanOrEqual(Math.floor(max * 0.8));
    const saved = doc.strategies.reduce((n, s) => n + s.tokens, 0);
    // (each strategy's figure is rounded on its own)
    expect(Math.abs(doc.tokens.after - (counted - saved))).toBeLessThanOrEqual(doc.strategies.length);
    // A count far above anything this history could be (another session's error) is not believed.
    const foreign = await trimJson(w, 0, "--dry-run", "--error", `prompt is too long: ${messages + 150_000} tokens > ${messages + 149_000} maximum`);
    expect(foreign.tokens.method).toMatch(/too far above this history to be its request/);
  });

  describe.each(FORMATS)("the error stored on the session's last message (%s)", (format) => {
    const overflow = { name: "ContextOverflowError", data: { message: "prompt is too long: 212345 tokens > 150000 maximum" } };

    it("sets the limit when no flag does; a flag or an error text wins over it", async () => {
      const w = written(format, withStoredError(dropSession(), overflow));
      const doc = await trimJson(w, 0, "--dry-run");
      expect(doc.tokens.limit).toBe(150_000);
      expect(doc.tokens.target).toBe(120_000);
      expect((await trimJson(w, 1, "--dry-run", "--limit", "100000")).tokens.limit).toBe(100_000);
      expect((await trimJson(w, 0, "--dry-run", "--error", "prompt is too long: 219898 tokens > 180000 maximum")).tokens.limit).toBe(180_000);
    });

    it("trims to it", async () => {
      // ~101,000 tokens; 110,000 × 0.8 = 88,000: two turns go.
      const w = written(
        format,
        withStoredError(dropSession(), { name: "ContextOverflowError", data: { message: "prompt is too long: 120345 tokens > 110000 maximum" } }),
      );
      const doc = await trimJson(w, 0, "--yes");
      expect(doc.tokens.limit).toBe(110_000);
      expect(doc.tokens.after).toBeLessThanOrEqual(88_000);
      expect(doc.stillOver).toBe(false);
    });
  });

  describe.each(FORMATS)("a byte budget (%s)", (format) => {
    it("a 413 request_too_large body: bytes counted against 30,000,000 by default", async () => {
      const w = written(format, bytesSession());
      const r = await runWithInput(
        w.sb,
        ["context", "trim", w.id, "--error", "-", "--yes", "--json", "--store", w.store.store],
        '{"error":{"type":"request_too_large","message":"Request exceeds the maximum size"}}',
      );
      expect(r.stderr).toBe("");
      expect(r.status).toBe(0);
      const doc = trimDoc(r);
      const chars = estimate(w.store, w.id).chars;
      expect(doc.bytes).toEqual({ before: chars, after: chars, max: 30_000_000 });
      expect(doc.sessions[0]!.changes).toEqual([]);
      expect(doc.stillOver).toBe(false);
    });

    it("--max-bytes N: trims until the request is at most N characters, and says so in `bytes`", async () => {
      const w = written(format, bytesSession());
      const before = estimate(w.store, w.id);
      expect(before.chars).toBeGreaterThan(850_000);
      const doc = await trimJson(w, 0, "--yes", "--max-bytes", "500000");
      expect(doc.bytes!.before).toBe(before.chars);
      expect(doc.bytes!.max).toBe(500_000);
      expect(doc.bytes!.after).toBeLessThanOrEqual(500_000);
      expect(doc.stillOver).toBe(false);
      expect(estimate(w.store, w.id).chars).toBe(doc.bytes!.after);
      // The flag wins over a 413's default.
      const again = await runWithInput(
        w.sb,
        ["context", "trim", w.id, "--error", "-", "--max-bytes", "400000", "--dry-run", "--json", "--store", w.store.store],
        '{"error":{"type":"request_too_large","message":"Request exceeds the maximum size"}}',
      );
      expect(trimDoc(again).bytes!.max).toBe(400_000);
    });

    it("--max-bytes: truncates the largest outputs first", async () => {
      const w = written(format, bytesSession());
      // 150,000 characters to go: B2 saves 70,000, B3 40,000, B4 20,000… the image would do it alone, but an output
      // strategy comes first: B2, B3 and B4 are truncated largest first.
      const target = estimate(w.store, w.id).chars - 100_000;
      const doc = await trimJson(w, 0, "--yes", "--strategy", "truncate-outputs", "--max-bytes", String(target));
      expect(doc.strategies.map((s) => [s.id, s.records])).toEqual([["truncate-outputs", 2]]);
      const after = loadRecords(w.store, w.id);
      expect(stateOf(after, "B2").output).toMatch(MARKER);
      expect(stateOf(after, "B3").output).toMatch(MARKER);
      expect(stateOf(after, "B4").output).not.toMatch(MARKER);
    });

    // BUG (gap): nothing trims an image. With a byte budget the 600,000-character data: URL is by far the largest
    // item, yet the outputs are truncated and pruned first and the image only leaves with its whole turn
    // (drop-oldest-turns, the user's prompt and the model's answer with it); had it been in the first turn or the
    // last --keep-turns, the trim would end "still over" with the image still there.
    it("--max-bytes: the largest item goes first, even when it is an image (nothing else touched when that suffices)", async () => {
      const w = written(format, bytesSession());
      const before = loadRecords(w.store, w.id);
      const doc = await trimJson(w, 0, "--yes", "--max-bytes", "500000");
      expect(doc.bytes!.after).toBeLessThanOrEqual(500_000);
      const after = loadRecords(w.store, w.id);
      const touched = ["B2", "B3", "B4"].filter((tag) => JSON.stringify(partByTag(after, tag)?.data) !== JSON.stringify(partByTag(before, tag)!.data));
      expect(touched, "outputs truncated, cleared or deleted").toEqual([]);
      expect(storedTurns(after).map((t) => t.prompt)).toEqual(storedTurns(before).map((t) => t.prompt));
    });
  });
});

// =============================================================================================
// 4. Dry runs, exit codes, usage errors
// =============================================================================================

describe.each(FORMATS)("dry runs and exit codes (%s)", (format) => {
  it("--dry-run writes nothing and exits 1 when there is something to trim", async () => {
    const w = written(format, dropSession());
    const bytes = storeBytes(w.store);
    const human = await trim(w, "--dry-run", "--limit", "100000");
    expect(human.stderr).toBe("");
    expect(human.status).toBe(1);
    // How the figures were estimated only with --verbose (issue 37: not on every run).
    expect(human.stdout).toMatch(/\ntokens: [\d,]+ → [\d,]+ \(limit 100,000, target 80,000\)\n/);
    const verbose = await trim(w, "--dry-run", "--limit", "100000", "--verbose");
    expect(verbose.stdout).toMatch(/\ntokens: [\d,]+ → [\d,]+ \(limit 100,000, target 80,000; characters \/ 4/);
    expect(human.stdout.trimEnd().split("\n").at(-1)).toMatch(/^dry run: \d+ changes in 1 session planned; nothing was written$/);
    const doc = await trimJson(w, 1, "--dry-run", "--limit", "100000");
    expect(doc.dryRun).toBe(true);
    expect(doc.backup).toBeNull();
    expect(doc.sessions[0]!.changes.length).toBeGreaterThan(0);
    expectStoreBytes(w.store, bytes);
    expect(fs.existsSync(w.sb.backups)).toBe(false);
    expect(fs.existsSync(path.join(w.sb.state, "calibration"))).toBe(false);
    // Nothing to trim: exit 0.
    expect((await trimJson(w, 0, "--dry-run")).sessions[0]!.changes).toEqual([]);
  });

  it("still over the target after every allowed strategy: exit 1, 'still over the target', what could be trimmed is", async () => {
    const w = written(format, dropSession());
    const human = await trim(w, "--yes", "--limit", "1000");
    expect(human.stderr).toBe("");
    expect(human.status).toBe(1);
    expect(human.stdout).toContain("still over the target");
    expect(human.stdout).toMatch(/^backup \S+ \(/m);
    const dry = await trimJson(w, 1, "--dry-run", "--limit", "1000");
    expect(dry.stillOver).toBe(true);
    expect(dry.sessions[0]!.changes).toEqual([]);
  });

  it.each(["0", "1.5", "-0.5", "abc", "NaN"])("--target %s: exit 2", async (value) => {
    const w = written(format, dropSession());
    await expectFailure(
      w.sb,
      ["context", "trim", w.id, `--target=${value}`, "--dry-run", "--store", w.store.store],
      2,
      "usage",
      /--target takes a ratio above 0 and at most 1/,
    );
  });

  it("--target 1 is accepted", async () => {
    const w = written(format, dropSession());
    expect((await trimJson(w, 0, "--dry-run", "--target", "1")).tokens.target).toBe(200_000);
  });

  it.each(["bogus", "truncate-outputs,bogus", "drop-everything"])("--strategy %s: exit 2", async (value) => {
    const w = written(format, dropSession());
    await expectFailure(w.sb, ["context", "trim", w.id, "--strategy", value, "--dry-run", "--store", w.store.store], 2, "usage", /unknown strategy/);
  });

  it("no terminal and no --yes: exit 2, nothing written", async () => {
    const w = written(format, dropSession());
    const bytes = storeBytes(w.store);
    const human = await trim(w, "--limit", "100000");
    expect(human.status).toBe(2);
    expectOneLineError(human, /without --yes/);
    const json = await trim(w, "--limit", "100000", "--json");
    expect(json.status).toBe(2);
    expectJsonError(json, "needs-confirmation");
    expectStoreBytes(w.store, bytes);
  });
});

// =============================================================================================
// 5. The JSON document
// =============================================================================================

describe.each(FORMATS)("the JSON document (%s)", (format) => {
  it("has the repair document's fields plus tokens, strategies and stillOver; the method names the stored count", async () => {
    const spec = overflowSession();
    const built = storeWith(spec);
    const w: Written = { store: writeTestStore(built, format), id: built.sessions[0]!.id, sb: sandbox() };
    const doc = await trimJson(w, 0, "--yes");
    expect(Object.keys(doc)).toEqual([
      "schemaVersion",
      "tool",
      "store",
      "dryRun",
      "backup",
      "undo",
      "sessions",
      "summary",
      "tokens",
      "strategies",
      "stillOver",
    ]);
    expect(doc.schemaVersion).toBe(1);
    expect(doc.tool).toEqual({ name: "recover", version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
    expect(doc.store).toEqual({ format, path: fs.realpathSync(w.store.readPath), notices: [] });
    expect(doc.dryRun).toBe(false);
    expect(doc.backup).toEqual({ id: expect.stringMatching(BACKUP_ID), path: path.join(fs.realpathSync(w.sb.backups), doc.backup!.id) });
    // Pasted, it restores the store the trim changed: the --store given to trim goes with it.
    expect(doc.undo).toBe(`recover session restore ${doc.backup!.id} --store ${w.store.store}`);
    const session = doc.sessions[0]!;
    expect(doc.sessions).toHaveLength(1);
    expect(session.id).toBe(w.id);
    expect(session.title).toBe("Nightly ETL fails with ECONNRESET");
    expect(session.unfixed).toEqual([]);
    for (const change of session.changes) {
      expect(change).toMatchObject({ op: expect.stringMatching(/^(update|delete)$/), record: expect.stringMatching(/^(message|part)$/), sessionId: w.id });
      expect(change.rules.every((r) => TRIM_RULE_IDS.includes(r))).toBe(true);
      expect(change.reasons.length).toBeGreaterThan(0);
    }
    expect(doc.summary).toEqual({ sessions: 1, changes: session.changes.length, unfixed: 0 });
    expect(Object.keys(doc.tokens)).toEqual(["before", "after", "limit", "target", "method"]);
    // Strategies in the order they run, each with what it took off; together what the estimate lost.
    const ids = doc.strategies.map((s) => s.id);
    expect(ids).toEqual(TRIM_RULE_IDS.filter((id) => ids.includes(id)));
    for (const s of doc.strategies) {
      expect(Object.keys(s)).toEqual(["id", "records", "tokens", "bytes"]);
      expect(s.records).toBeGreaterThan(0);
      expect(s.tokens).toBeGreaterThan(0);
    }
    const saved = doc.strategies.reduce((n, s) => n + s.tokens, 0);
    expect(Math.abs(saved - (doc.tokens.before - doc.tokens.after))).toBeLessThan(0.01 * saved);
    expect(doc.stillOver).toBe(false);
    // The method: the calibration against the count opencode stored on the last reply.
    const last = built.sessions[0]!.messages.filter((m) => m.role === "assistant").at(-1)!;
    const t = last.info!.tokens as { input: number; cache: { read: number; write: number } };
    const truth = t.input + t.cache.read + t.cache.write;
    const m =
      /^characters \/ 4, calibrated ×(\d\.\d\d) against the ([\d,]+) prompt tokens opencode stored for message (msg_\w+) \(our estimate there: ([\d,]+), (\d+\.\d)% off\)$/.exec(
        doc.tokens.method,
      );
    expect(m, doc.tokens.method).not.toBeNull();
    expect(Number(m![2]!.replace(/,/g, ""))).toBe(truth);
    expect(m![3]).toBe(last.id);
    const ours = Number(m![4]!.replace(/,/g, ""));
    expect(Number(m![1])).toBeCloseTo(truth / ours, 2);
    expect(Number(m![5])).toBeCloseTo((truth / ours - 1) * 100, 1);
  });
});

// =============================================================================================
// 6. Bugs found (it.fails: each assertion states the expected behaviour; they pass once fixed)
// =============================================================================================

/** A lone UTF-16 surrogate: what JSON.stringify escapes as \udXXX and the Anthropic API rejects as invalid JSON. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe.each(FORMATS)("bugs (%s)", (format) => {
  // BUG: truncated() cuts the output at a UTF-16 index (src/rules/trim/truncate-outputs.ts, `output.slice(0, head)`
  // and `output.slice(-tail)`), so an output with astral characters (emoji in pnpm/turbo/vitest logs) can keep half a
  // surrogate pair. opencode then sends "\ud83d" and the API answers `The request body is not valid JSON: no low
  // surrogate in string`: the trim turns an overflow into an invalid request.
  it("truncate-outputs never splits a surrogate pair", async () => {
    // "x" + 40,000 × "📦 " (120,001 code units): with the default 50,000 the head is 29,963 units, which ends between
    // the two halves of a 📦.
    const w = written(
      format,
      session("Emoji build log", (x) => [
        ...chatTurn(x, "Why is the build slow?"),
        ...toolTurn(x, "Build it.", (y) => [call(y, "bash", { command: "pnpm -r build", description: "Build" }, `x${"📦 ".repeat(40_000)}`, "EMOJI")]),
        ...recentTurns(x, 4),
      ]),
    );
    await trimJson(w, 1, "--yes", "--strategy", "truncate-outputs", "--limit", "1000");
    const output = stateOf(loadRecords(w.store, w.id), "EMOJI").output!;
    expect(output).toMatch(MARKER);
    expect(LONE_SURROGATE.exec(output)?.index).toBeUndefined();
  });

  // BUG: a --max-output-chars below the marker's own length (~66 characters) makes every truncation longer than the
  // limit, so the next planning pass truncates the marker again, forever: exit 1 with the internal error "the fixes
  // for session … did not settle after 64 passes; nothing was changed (please report this)". parsePositiveInt
  // accepts any positive number; either reject such a value (exit 2) or keep outputs within it.
  it("--max-output-chars 50: a usage error or outputs of at most 50 characters, never an internal fix-failed", async () => {
    const w = written(format, truncateSession());
    const r = await trim(w, "--yes", "--json", "--strategy", "truncate-outputs", "--limit", "1000", "--max-output-chars", "50");
    expect(r.stdout).not.toContain('"fix-failed"');
    if (r.status === 2) return;
    expect(stateOf(loadRecords(w.store, w.id), "A").output!.length).toBeLessThanOrEqual(50);
  });

  // BUG: a byte budget counts UTF-16 code units (requestChars, src/rules/trim/budget.ts: "a slight underestimate"),
  // not bytes. For text in CJK scripts (3 bytes a character in UTF-8) the request left is about three times the
  // --max-bytes it reports fitting; a 413 (32 MB) comes back.
  it("--max-bytes counts bytes: the UTF-8 size of what is sent afterwards is at most the budget", async () => {
    const log = "東京都の売上データを集計しています。".repeat(6_000);
    const w = written(
      format,
      session("Japanese logs", (x) => [
        ...chatTurn(x, "売上の集計が遅い。"),
        ...toolTurn(x, "ログを見せて。", (y) => [call(y, "bash", { command: "cat logs/a.log", description: "Log A" }, log, "JA1")]),
        ...toolTurn(x, "もう一つ。", (y) => [call(y, "bash", { command: "cat logs/b.log", description: "Log B" }, log, "JA2")]),
        ...recentTurns(x, 4),
      ]),
    );
    const doc = await trimJson(w, 0, "--yes", "--max-bytes", "150000");
    expect(doc.bytes!.after).toBeLessThanOrEqual(150_000);
    const blocks = viewOf(w.store, w.id).conversation.messages.flatMap((m) => m.blocks);
    const bytes = blocks.reduce((n, b) => n + (b.text !== undefined ? Buffer.byteLength(b.text) : b.chars), 0);
    expect(bytes).toBeLessThanOrEqual(150_000);
  });

  // BUG: the limit read from the error opencode stored on the last message is forgotten once recover itself has
  // written the session: storedError() (src/plan/error-fixes.ts) takes any write more than 60 s after the error as "a
  // repair already answered it", and context trim uses it for the limit (src/cli/commands/context-trim.ts). A partial
  // trim (here --strategy truncate-outputs, which ends "still over the target … allow more (--strategy)") is such a
  // write: the run that follows the advice falls back to 200,000, reports "nothing to trim" and exits 0 while the
  // session is still over the model's 130,000-token window.
  it("a second trim after a partial one still uses the limit of the stored error", async () => {
    const w = written(
      format,
      withStoredError(truncateSession(), { name: "ContextOverflowError", data: { message: "prompt is too long: 160000 tokens > 130000 maximum" } }),
    );
    const partial = await trimJson(w, 1, "--yes", "--strategy", "truncate-outputs", "--max-output-chars", "120000");
    expect(partial.tokens.limit).toBe(130_000);
    expect(partial.stillOver).toBe(true);
    expect(partial.tokens.after).toBeGreaterThan(130_000);
    const r = await trim(w, "--yes", "--json");
    const doc = trimDoc(r);
    expect(doc.tokens.limit).toBe(130_000);
  });
});
