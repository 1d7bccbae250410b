// The fuzz loop (test/harness/fuzz-*.test.ts, one file per format so both workers share them): fast-check draws a
// list of damage operations (fuzz-damage.ts), a copy of a small store with defects of its own gets them, and the
// CLI's main() of the build (test/cli/run.ts, in this process: no node start per case) scans it, repairs it, scans
// it again and restores the repair's backup. The properties, for every store:
// 1. scan and repair never crash: exit 0, 1, 2 or 3; at most one line on stderr, no stack, no "internal error", and
//    no backup the transaction's read-back check refuses (backup-unverified);
// 2. --json output is always exactly one JSON document;
// 3. nothing hangs (each command has FUZZ_TIMEOUT_MS, 30 s by default);
// 4. a repair that exits 0 leaves no error finding for the next scan;
// 5. `session restore` of the repair's backup gives back the damaged store byte for byte (SQLite: every column of
//    every session/message/part row, typed, as exact bytes; files: bytes and mode);
// 6. no readable record silently disappears: a record that parsed before the repair and is gone after it is named
//    by one of the plan's changes.
//
// FUZZ_RUNS cases per format (50 in `npm run test:harness`, 500 in `npm run soak`), from FUZZ_SEED (drawn anew for
// every run by vitest.harness.config.ts, so each CI run covers new ground; always printed). A failure is shrunk to a
// minimal list of operations and reported with its seed and path: `FUZZ_SEED=<seed> FUZZ_PATH=<path> npm run
// test:harness -- fuzz-<format>` replays exactly that case (the store it failed on is kept; its folder is printed).
// Failures that product fixes in flight will remove are listed in known-failures.ts and tallied, not failed;
// known-failures.test.ts replays each entry's counterexample (replayCase below) so a fixed one is noticed.
import fc from "fast-check";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { brokenTurnSession, DAY, T0 } from "../cli/stores.js";
import { run, type RunResult } from "../cli/run.js";
import { buildStore, healthySession, writeJsonStore, writeSqliteStore } from "../support/opencode-fixtures.js";
import { ClaudeTranscript, MINUTE, OpenclawTranscript } from "../support/transcript-fixtures.js";
import { sqliteSnapshot } from "./crash-support.js";
import { applyDamage, damageArbitrary, filesUnder, recordId, type Damage, type HarnessFormat } from "./fuzz-damage.js";
import { knownFailure, type Failure } from "./known-failures.js";

/** The run's seed: FUZZ_SEED (the harness config draws one per run), else a fixed one for a file run without it. */
function seedOf(): number {
  if (process.env.FUZZ_SEED !== undefined && process.env.FUZZ_SEED !== "") return Number(process.env.FUZZ_SEED) | 0;
  return 20_261_124;
}

export const SEED = seedOf();
const RUNS = Number(process.env.FUZZ_RUNS ?? 75);
const PATH = process.env.FUZZ_PATH || undefined;
const TIMEOUT_MS = Number(process.env.FUZZ_TIMEOUT_MS ?? 30_000);
const OLD = new Date(T0 + 30 * DAY);

// ---------------------------------------------------------------------------------------------
// The stores damage is done to: small (a case must take a fraction of a second), each with defects a repair fixes
// ---------------------------------------------------------------------------------------------

function writeBase(format: HarnessFormat, root: string): void {
  if (format === "opencode-sqlite" || format === "opencode-json") {
    const built = buildStore({ seed: 29, sessions: [healthySession({ start: T0, turns: 2 }), brokenTurnSession(T0 + DAY)] });
    if (format === "opencode-sqlite") writeSqliteStore(root, built);
    else writeJsonStore(root, built);
    return;
  }
  if (format === "codex" || format === "gemini") {
    writeCaptures(format, root);
    return;
  }
  for (const [i, start] of [T0, T0 + DAY].entries()) {
    if (format === "claude") {
      const t = new ClaudeTranscript({ seed: 71 + i, start, cwd: `/home/dana/code/project-${i}` });
      t.user("Run the tests and tell me what fails.");
      const call = t.toolUseId();
      t.assistant([
        { type: "thinking", thinking: "Run the test suite first." },
        { type: "tool_use", id: call, name: "Bash", input: { command: "npm test", description: "Run tests" } },
      ]);
      t.toolResult(call, "2 passed, 1 failed: config.test.ts");
      t.assistant([{ type: "tool_use", name: "Bash", input: { command: "npx vitest run config.test.ts" } }]);
      t.advance(2 * MINUTE);
      t.user("Never mind, what did the failing test check?");
      t.assistant([{ type: "text", text: "It checks that an empty config is rejected." }]);
      t.writeTo(root);
    } else {
      const t = new OpenclawTranscript({ seed: 71 + i, start });
      t.user("Run the tests and tell me what fails.");
      const call = t.toolCallId();
      t.assistant([
        { type: "thinking", thinking: "Run the test suite first." },
        { type: "toolCall", id: call, name: "bash", arguments: { command: "npm test" } },
      ]);
      t.toolResult(call, "bash", "2 passed, 1 failed: config.test.ts");
      t.assistant([{ type: "toolCall", name: "bash", arguments: { command: "npx vitest run config.test.ts" } }]);
      t.advance(2 * MINUTE);
      t.user("Never mind, what did the failing test check?");
      t.assistant([{ type: "text", text: "It checks that an empty config is rejected." }]);
      t.writeTo(root, "main", `agent:main:session-${i}`);
    }
  }
}

/**
 * Sessions the real clients wrote, each with damage of its own: Codex's killed call and healthy tool turn; Gemini's
 * double-recorded tool result and a call whose result is null (fixtures/codex-0.169, fixtures/gemini-0.61).
 */
function writeCaptures(format: "codex" | "gemini", root: string): void {
  const from = path.resolve("fixtures", format === "codex" ? "codex-0.169" : "gemini-0.61");
  const captures = format === "codex" ? ["killed-mid-call", "tool"] : ["tool", "result-null-repaired"];
  for (const capture of captures) {
    const bytes = fs.readFileSync(path.join(from, `${capture}.jsonl`));
    const first = JSON.parse(bytes.toString("utf8", 0, bytes.indexOf(0x0a))) as { payload?: { id: string }; sessionId?: string };
    const rel =
      format === "codex"
        ? path.join("sessions", "2026", "11", "24", `rollout-2026-11-24T19-07-00-${first.payload!.id}.jsonl`)
        : path.join("tmp", "project", "chats", `session-2026-11-24T19-21-${first.sessionId!.slice(0, 8)}.jsonl`);
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), bytes);
  }
}

/** Every file months old: the write guard refuses a session written in the last minute, and JSON trees read mtimes. */
function age(dir: string): void {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) age(p);
    fs.utimesSync(p, OLD, OLD);
  }
}

// ---------------------------------------------------------------------------------------------
// What a store holds: its bytes (for the restore), its readable records (for the records that disappear)
// ---------------------------------------------------------------------------------------------

const TEMP_MARKER = ".recover-tmp-";

/** The store as restore must give it back: SQLite rows (typed, exact bytes), or every file with its mode. */
function storeImage(format: HarnessFormat, root: string): Map<string, string> {
  if (format === "opencode-sqlite") {
    try {
      return sqliteSnapshot(path.join(root, "opencode.db"));
    } catch (error) {
      return new Map([["unreadable", (error as Error).message]]);
    }
  }
  const out = new Map<string, string>();
  for (const rel of filesUnder(root)) {
    if (rel.includes(TEMP_MARKER)) continue;
    const p = path.join(root, rel);
    out.set(rel, `${(fs.statSync(p).mode & 0o7777).toString(8)}:${fs.readFileSync(p).toString("base64")}`);
  }
  return out;
}

function parsed(text: string | Buffer): unknown {
  try {
    return JSON.parse(text.toString());
  } catch {
    return undefined;
  }
}

/**
 * A record's identity: its id without the characters a repair strips from a damaged record (U+FFFD, as invalid
 * UTF-8 reads, NULs, lone surrogates), so a record whose id the damage hit and the repair cleaned is the same record.
 */
const identity = (id: string) => id.replace(/[\uFFFD\u0000]|[\uD800-\uDFFF]/g, "");

/** The ids of every record that parses (the records a reader could still show), whatever else is wrong with it. */
function readableIds(format: HarnessFormat, root: string): Set<string> {
  const found = new Set<string>();
  const ids = { add: (id: string) => found.add(identity(id)) };
  if (format === "opencode-sqlite") {
    try {
      const snap = sqliteSnapshot(path.join(root, "opencode.db"));
      for (const [key, row] of snap) {
        const columns = JSON.parse(row) as [string, string, string | null][];
        const data = columns.find(([n]) => n === "data")?.[2];
        const table = key.slice(0, key.indexOf("/"));
        if (table === "session" || (typeof data === "string" && parsed(Buffer.from(data, "base64")) !== undefined)) ids.add(key.slice(table.length + 1));
      }
    } catch {
      // A database SQLite cannot read: no record is readable, so none can disappear.
    }
    return found;
  }
  const files = format === "opencode-json" ? filesUnder(path.join(root, "storage")).map((f) => path.join("storage", f)) : filesUnder(root);
  for (const rel of files) {
    if (rel.includes(TEMP_MARKER)) continue;
    const bytes = fs.readFileSync(path.join(root, rel));
    if (format === "opencode-json") {
      // opencode addresses a record by its file name; the id inside is what the damage may have changed.
      if (rel.endsWith(".json") && parsed(bytes) !== undefined) ids.add(path.basename(rel, ".json"));
      continue;
    }
    if (!rel.endsWith(".jsonl")) continue;
    for (const line of bytes.toString("utf8").split("\n")) {
      const id = recordId(parsed(line));
      if (id !== undefined) ids.add(id);
    }
  }
  return found;
}

// ---------------------------------------------------------------------------------------------
// One case
// ---------------------------------------------------------------------------------------------

/** A command through main(), in this process, or "hang" once FUZZ_TIMEOUT_MS has passed. */
export async function runBounded(args: string[], env: Record<string, string | undefined>): Promise<RunResult | "hang"> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<"hang">((resolve) => (timer = setTimeout(() => resolve("hang"), TIMEOUT_MS)));
  try {
    return await Promise.race([run(args, { env }), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const STACK = /^\s+at \S|node:internal|^Node\.js v\d|\b(TypeError|ReferenceError|RangeError|SyntaxError): /m;

/** Where checkCommand reports: any loop's list of failures whose properties include these three. */
interface CommandFailures {
  push(failure: { property: "no-crash" | "json-parses" | "no-hang"; detail: string }): unknown;
}

/**
 * Properties 1–3 of one command; its JSON document when there is one. `allowed`: the exit codes this command may end
 * with here (any of 0–3 unless the loop knows better: battle status, say, never refuses).
 */
export function checkCommand(
  name: string,
  result: RunResult | "hang",
  failures: CommandFailures,
  allowed: readonly number[] = [0, 1, 2, 3],
): Record<string, unknown> | undefined {
  if (result === "hang") {
    failures.push({ property: "no-hang", detail: `${name} did not finish within ${TIMEOUT_MS} ms` });
    return undefined;
  }
  if (![0, 1, 2, 3].includes(result.status ?? -1))
    failures.push({ property: "no-crash", detail: `${name} exited ${result.status}: ${result.stderr.slice(0, 500)}` });
  else if (!allowed.includes(result.status!))
    failures.push({
      property: "no-crash",
      detail: `${name} exited ${result.status}, not ${allowed.join("/")}: ${(result.stderr + result.stdout).slice(0, 500)}`,
    });
  const stderrLines = result.stderr.split("\n").filter((l) => l.trim() !== "");
  if (stderrLines.length > 1)
    failures.push({ property: "no-crash", detail: `${name} wrote ${stderrLines.length} lines on stderr: ${result.stderr.slice(0, 500)}` });
  if (STACK.test(result.stderr) || STACK.test(result.stdout))
    failures.push({ property: "no-crash", detail: `${name} printed a stack: ${(result.stderr + result.stdout).slice(0, 800)}` });
  if (/internal error/i.test(result.stderr) || /internal error/i.test(result.stdout))
    failures.push({ property: "no-crash", detail: `${name} reported an internal error: ${(result.stderr + result.stdout).slice(0, 800)}` });
  // The transaction's read-back check refusing is recover catching its own bug (a backup restore could not read): the
  // store is safe, but the change could not be made, so it fails the case as a crash would.
  if (/backup-unverified/.test(result.stderr) || /backup-unverified/.test(result.stdout))
    failures.push({ property: "no-crash", detail: `${name} wrote a backup that does not read back: ${(result.stderr + result.stdout).slice(0, 800)}` });
  const lines = result.stdout.trimEnd().split("\n");
  try {
    if (!result.stdout.endsWith("\n") || lines.length !== 1) throw new Error(`${lines.length} lines`);
    const doc = JSON.parse(result.stdout) as unknown;
    if (typeof doc !== "object" || doc === null || Array.isArray(doc)) throw new Error("not an object");
    return doc as Record<string, unknown>;
  } catch (error) {
    failures.push({
      property: "json-parses",
      detail: `${name} --json output is not one JSON document (${(error as Error).message}): ${result.stdout.slice(0, 300)}`,
    });
    return undefined;
  }
}

interface Change {
  op: string;
  id: string;
  rules: string[];
}

export interface CaseOutcome {
  failures: Failure[];
  known: Failure[];
  /** How the repair ended, for the tally: its exit code and whether it wrote. */
  repair: string;
}

let caseCounter = 0;

async function fuzzCase(format: HarnessFormat, pristine: string, scratch: string, damage: Damage[]): Promise<CaseOutcome> {
  const dir = path.join(scratch, `case-${++caseCounter}`);
  const root = path.join(dir, "store");
  const stateHome = path.join(dir, "state");
  fs.cpSync(pristine, root, { recursive: true, preserveTimestamps: true });
  fs.mkdirSync(stateHome);
  const failures: Failure[] = [];
  let repairTally = "?";
  try {
    applyDamage(root, format, damage);
    age(root);
    const damaged = storeImage(format, root);
    const readable = readableIds(format, root);
    const store = ["--store", root];

    checkCommand("scan", await runBounded(["session", "scan", "--all", "--json", ...store], { XDG_STATE_HOME: stateHome }), failures);
    const repair = await runBounded(["session", "repair", "--all", "--yes", "--json", ...store], { XDG_STATE_HOME: stateHome });
    const doc = checkCommand("repair", repair, failures);
    const status = repair === "hang" ? "hang" : repair.status;
    const sessions = (doc?.sessions ?? []) as { changes?: Change[] }[];
    const changes = sessions.flatMap((s) => s.changes ?? []);
    repairTally = `repair exit ${status}${changes.length > 0 ? ", wrote" : ""}`;

    // 6. A record that could be read before and is gone after is named by a change of the plan.
    const named = new Set(changes.map((c) => identity(c.id)));
    const gone = [...readable].filter((id) => !readableIds(format, root).has(id) && !named.has(id));
    if (gone.length > 0) failures.push({ property: "no-silent-drop", detail: `records gone without a change naming them: ${gone.join(", ")}` });

    if (status === 0) {
      // 4. Nothing the repair could fix is left as an error.
      const rescan = await runBounded(["session", "scan", "--all", "--json", ...store], { XDG_STATE_HOME: stateHome });
      const again = checkCommand("rescan", rescan, failures);
      const summary = again?.summary as { errors?: number } | undefined;
      if (summary !== undefined && (summary.errors ?? 0) > 0) {
        const left = ((again?.sessions ?? []) as { findings?: { rule: string; severity: string; message: string }[] }[])
          .flatMap((s) => s.findings ?? [])
          .filter((f) => f.severity === "error")
          .map((f) => `${f.rule}: ${f.message}`);
        failures.push({ property: "rescan-clean", detail: `repair exited 0, the rescan finds ${summary.errors} error(s): ${left.join(" | ").slice(0, 600)}` });
      }
      // 5. The backup gives back the damaged store exactly.
      const backup = doc?.backup as { id?: string } | undefined;
      if (backup?.id !== undefined && changes.length > 0) {
        const restore = await runBounded(["session", "restore", backup.id, "--yes", "--json", ...store], { XDG_STATE_HOME: stateHome });
        checkCommand("restore", restore, failures);
        if (restore !== "hang" && restore.status !== 0)
          failures.push({ property: "restore-exact", detail: `restore exited ${restore.status}: ${(restore.stderr + restore.stdout).slice(0, 500)}` });
        else {
          const restored = storeImage(format, root);
          const differ = [...new Set([...damaged.keys(), ...restored.keys()])].filter((k) => damaged.get(k) !== restored.get(k));
          if (differ.length > 0)
            failures.push({ property: "restore-exact", detail: `not as before the repair after restore: ${differ.join(", ").slice(0, 600)}` });
        }
      }
    }
  } catch (error) {
    failures.push({ property: "harness", detail: `the case itself threw: ${(error as Error).stack ?? String(error)}` });
  }
  const known = failures.filter((f) => knownFailure(format, f) !== undefined);
  const unknown = failures.filter((f) => knownFailure(format, f) === undefined);
  for (const f of unknown) f.detail += ` [store kept in ${root}]`;
  if (unknown.length === 0) fs.rmSync(dir, { recursive: true, force: true });
  return { failures: unknown, known, repair: repairTally };
}

/**
 * One case with the given damage on a fresh base store of the format (known-failures.test.ts replays each recorded
 * counterexample this way). The scratch folder is removed unless the case failed in a way not known.
 */
export async function replayCase(format: HarnessFormat, damage: Damage[]): Promise<CaseOutcome> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), `recover-replay-${format}-`));
  const pristine = path.join(scratch, "pristine");
  writeBase(format, pristine);
  age(pristine);
  const outcome = await fuzzCase(format, pristine, scratch, damage);
  if (outcome.failures.length === 0) fs.rmSync(scratch, { recursive: true, force: true });
  return outcome;
}

// ---------------------------------------------------------------------------------------------
// The loop
// ---------------------------------------------------------------------------------------------

/** The fuzz loop of one format: RUNS cases from SEED, shrunk on failure, the known failures tallied. */
export function fuzzLoop(format: HarnessFormat): void {
  describe(`${format}: scan, repair, rescan and restore of fuzzed stores`, () => {
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), `recover-fuzz-${format}-`));
    const pristine = path.join(scratch, "pristine");
    const tallies = new Map<string, number>();
    const knownSeen = new Map<string, number>();
    let failed = false;
    const tally = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);

    afterAll(() => {
      if (!failed) fs.rmSync(scratch, { recursive: true, force: true });
    });

    it(
      `${RUNS} cases, FUZZ_SEED=${SEED}`,
      async () => {
        writeBase(format, pristine);
        age(pristine);
        const started = performance.now();
        let cases = 0;
        const property = fc.asyncProperty(damageArbitrary(format), async (damage) => {
          cases++;
          const outcome = await fuzzCase(format, pristine, scratch, damage);
          tally(tallies, outcome.repair);
          for (const k of outcome.known) tally(knownSeen, knownFailure(format, k)!.id);
          if (outcome.failures.length > 0) throw new Error(outcome.failures.map((f) => `${f.property}: ${f.detail}`).join("\n"));
        });
        const result = await fc.check(property, { seed: SEED, numRuns: RUNS, ...(PATH !== undefined ? { path: PATH } : {}), endOnFailure: false });
        const seconds = ((performance.now() - started) / 1000).toFixed(1);
        console.log(
          [
            `fuzz ${format}: ${cases} runs (${RUNS} cases + shrinking), FUZZ_SEED=${SEED}, ${seconds} s`,
            `  ${[...tallies].map(([k, n]) => `${k}: ${n}`).join("; ")}`,
            `  known failures met (known-failures.ts): ${knownSeen.size === 0 ? "none" : [...knownSeen].map(([k, n]) => `${k} ×${n}`).join(", ")}`,
          ].join("\n"),
        );
        if (result.failed) {
          failed = true;
          const error = result.errorInstance instanceof Error ? result.errorInstance.message : String(result.errorInstance);
          expect.fail(
            [
              `fuzz ${format} failed after ${result.numRuns} case(s), shrunk ${result.numShrinks} time(s).`,
              `Reproduce: FUZZ_SEED=${result.seed} FUZZ_PATH=${result.counterexamplePath} npx vitest run --config vitest.harness.config.ts test/harness/fuzz-${format}.test.ts`,
              `Minimal damage: ${fc.stringify(result.counterexample?.[0])}`,
              error,
            ].join("\n"),
          );
        }
        // A loop that passes ran every case it was asked for (none skipped by a filter), each through all properties.
        if (PATH === undefined) expect({ runs: result.numRuns, skipped: result.numSkips }).toEqual({ runs: RUNS, skipped: 0 });
      },
      // Bounded by the runs; shrinking a failure takes longer, so the limit is generous but finite.
      RUNS * TIMEOUT_MS,
    );
  });
}
