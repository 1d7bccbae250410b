// Crash safety, end to end (the trials of test/harness/crash-{sqlite,json}.test.ts, one file per store format so both
// test workers share them): the built CLI repairs a large session and is SIGKILLed at random moments. After every
// kill each record holds its before or its after image, the store opens cleanly, the next command leaves the store
// all-before or all-after (SQLite at once, the JSON tree once the journal is settled), and a completed backup
// restores the original byte for byte.
//
// Needs the built CLI (npm run build). Every kill is timed from the spawn or from a milestone of the transaction
// (seen by polling the backup's manifest), so it lands at the same point of the run even on a slower machine.
// `npm run test:harness` makes the fixed kills of FIXED_KILLS (crash-support.ts), every anchor early and late, plus
// CRASH_TRIALS=<n> randomized kills per format (4 there, 25 in `npm run soak`); reproduce one with
// CRASH_SEED=<seed> (printed in every failure), from which its moment is drawn. CRASH_VERBOSE=1 logs each trial's steps.
//
// Only the killed run is a process of its own; the commands after it (the scan that settles the journal, the
// restore, the repair run to the end) run main() of the build in this process, with the same environment.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FORMATS, T0, writeStore, type Format } from "../cli/stores.js";
import {
  backupRootOf,
  compareWithImages,
  crashStore,
  FIXED_KILLS,
  killPlanFor,
  scratchSpace,
  isLockFile,
  jsonSnapshot,
  normaliseJsonFile,
  normaliseSqliteRow,
  randomKills,
  runCli,
  runSettled,
  sqliteIntegrity,
  sqliteSnapshot,
  trialCount,
  wholeState,
  type Comparison,
  type Normalise,
  type RunResult,
  type Snapshot,
} from "./crash-support.js";

const BASE_SEED = Number(process.env.CRASH_SEED ?? 20_261_122) >>> 0 || 1;
const TRIALS = trialCount("CRASH_TRIALS");
/** 150 turns: 112 interrupted calls, 37 unfinished replies, 21 blank text parts → 170 records + the session. */
const TURNS = 150;
const TEMP_MARKER = ".recover-tmp-";

const { built, sessionId } = crashStore(T0, { turns: TURNS });

// ---------------------------------------------------------------------------------------------
// Per-format plumbing
// ---------------------------------------------------------------------------------------------

interface FormatOps {
  snapshot(dataDir: string): Snapshot;
  normalise: Normalise;
  /** Problems with the store as a reader would open it; empty when it opens cleanly. */
  openProblems(dataDir: string): string[];
  /** Leftover temp files of an interrupted write inside the store. */
  tempFiles(dataDir: string): string[];
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else out.push(p);
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return out.sort();
}

const OPS: Record<Format, FormatOps> = {
  "opencode-sqlite": {
    snapshot: (dataDir) => sqliteSnapshot(path.join(dataDir, "opencode.db")),
    normalise: normaliseSqliteRow,
    openProblems(dataDir) {
      const result = sqliteIntegrity(path.join(dataDir, "opencode.db"));
      return result === "ok" ? [] : [`PRAGMA integrity_check: ${result}`];
    },
    tempFiles: (dataDir) => fs.readdirSync(dataDir).filter((n) => n.includes(TEMP_MARKER)),
  },
  "opencode-json": {
    snapshot(dataDir) {
      const all = jsonSnapshot(path.join(dataDir, "storage"));
      for (const key of [...all.keys()]) if (key.includes(TEMP_MARKER)) all.delete(key);
      return all;
    },
    normalise: normaliseJsonFile,
    openProblems(dataDir) {
      const problems: string[] = [];
      const storage = path.join(dataDir, "storage");
      for (const file of filesUnder(storage)) {
        if (file.includes(TEMP_MARKER)) continue;
        // recover's lock, and the temp a kill can leave while it is written, sit at the top of storage/, where opencode
        // reads nothing (src/txn/lock.ts); the snapshot leaves them out too, and lockFilesIn checks they go.
        if (path.dirname(file) === storage && isLockFile(path.basename(file))) continue;
        try {
          JSON.parse(fs.readFileSync(file, "utf8"));
        } catch (error) {
          problems.push(`${path.relative(dataDir, file)} does not parse: ${(error as Error).message}`);
        }
      }
      return problems;
    },
    tempFiles: (dataDir) => filesUnder(path.join(dataDir, "storage")).filter((f) => path.basename(f).includes(TEMP_MARKER)),
  },
};

/** recover's lock files beside or at the top of the store (opencode.db's folder, or storage/). */
function lockFilesIn(dataDir: string): string[] {
  return [dataDir, path.join(dataDir, "storage")]
    .filter((dir) => fs.existsSync(dir))
    .flatMap((dir) => fs.readdirSync(dir).filter((name) => isLockFile(name) || name.includes(".recover.lock")));
}

// ---------------------------------------------------------------------------------------------
// Scratch space: one pristine store per format, one copy per trial (kept when the trial fails)
// ---------------------------------------------------------------------------------------------

const space = scratchSpace("recover-crash-", "crash-safety");
const scratch = space.root;
const cleanUp = space.cleanUp;

function copyStore(pristine: string, group: string, name: string): { dataDir: string; stateHome: string; root: string } {
  const root = path.join(scratch, group, name);
  const dataDir = path.join(root, "data");
  const stateHome = path.join(root, "state");
  // The JSON reader takes file mtimes as activity: keep them, or every copy would look like a live session.
  fs.cpSync(pristine, dataDir, { recursive: true, preserveTimestamps: true });
  fs.mkdirSync(stateHome);
  return { dataDir, stateHome, root };
}

function repairArgs(dataDir: string, ...extra: string[]): string[] {
  return ["session", "repair", sessionId, "--store", dataDir, "--yes", "--json", ...extra];
}

interface BackupSeen {
  id: string;
  state: string;
}

function backupsOf(stateHome: string): BackupSeen[] {
  const root = backupRootOf(stateHome);
  if (!fs.existsSync(root)) return [];
  return fs
    .readdirSync(root)
    .filter((name) => fs.existsSync(path.join(root, name, "manifest.json")))
    .sort()
    .map((id) => ({ id, state: (JSON.parse(fs.readFileSync(path.join(root, id, "manifest.json"), "utf8")) as { state: string }).state }));
}

function journalPointers(stateHome: string): string[] {
  const dir = path.join(stateHome, "recover", "journal");
  return fs.existsSync(dir) ? fs.readdirSync(dir).filter((n) => n.endsWith(".json")) : [];
}

function tally(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

/** Where in the run a kill landed, from what it left behind. */
function landing(result: RunResult, backups: BackupSeen[], comparison: Comparison): string {
  if (!result.killed) return "not killed: the run had finished";
  const backup = backups[0];
  if (backup === undefined) return result.milestones.backup === undefined ? "planning (no backup started)" : "writing the backup";
  switch (backup.state) {
    case "planned":
      return "backup written, apply not started";
    case "applying":
      return `during apply (store ${wholeState(comparison)})`;
    case "done":
      return "after apply, before exit";
    default:
      return `backup ${backup.state}`;
  }
}

/**
 * How long a run and its phases take on this machine right now: the median of every complete observation so far,
 * from the reference runs and from each trial (a load spike during calibration must not send every later kill
 * past the end of the run).
 */
class PhaseTiming {
  private readonly samples = { run: [] as number[], backupWriting: [] as number[], applying: [] as number[] };

  observe(result: RunResult): void {
    const m = result.milestones;
    if (!result.killed) this.samples.run.push(m.exit);
    // A state shorter than the 1 ms poll may go unseen: it then ended no later than the next one was seen.
    const planned = m.planned ?? m.applying ?? m.done;
    if (m.backup !== undefined && planned !== undefined) this.samples.backupWriting.push(planned - m.backup);
    if (m.applying !== undefined && m.done !== undefined) this.samples.applying.push(m.done - m.applying);
  }

  private median(values: number[]): number {
    if (values.length === 0) throw new Error("no complete run observed yet");
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)]!;
  }

  get run(): number {
    return this.median(this.samples.run);
  }

  get backupWriting(): number {
    return this.median(this.samples.backupWriting);
  }

  get applying(): number {
    return this.median(this.samples.applying);
  }
}

// ---------------------------------------------------------------------------------------------
// The trials
// ---------------------------------------------------------------------------------------------

/** The crash trials of one store format: FIXED_KILLS, then CRASH_TRIALS randomized kills. */
export function crashTrials(format: Format): void {
  describe(`a repair SIGKILLed at chosen and random moments: ${format}`, () => {
    const ops = OPS[format];
    const formatSeed = (BASE_SEED + FORMATS.indexOf(format) * 0x9e37) >>> 0;
    let pristine: string;
    let before: Snapshot;
    let after: Snapshot;
    const timing = new PhaseTiming();
    const landings = new Map<string, number>();
    const anchors = new Map<string, number>();
    let tempKills = 0;
    const started = performance.now();

    beforeAll(async () => {
      pristine = writeStore(built, format).dataDir;
      before = ops.snapshot(pristine);

      // The after-image, and how long each phase takes here: two complete runs on copies.
      for (let i = 0; i < 2; i++) {
        const { dataDir, stateHome } = copyStore(pristine, format, `reference-${i}`);
        const result = await runCli(repairArgs(dataDir), stateHome);
        expect(result.status, `reference repair: ${result.stderr}${result.stdout.slice(0, 2000)}`).toBe(0);
        timing.observe(result);
        if (i === 0) after = ops.snapshot(dataDir);
      }

      // The fixture must give the kills something to hit: many records changed, of every kind of change.
      const reference = compareWithImages(after, before, after, ops.normalise);
      expect(reference.changed).toBeGreaterThanOrEqual(170);
      expect([...before.keys()].filter((k) => !after.has(k)).length, "deleted records").toBeGreaterThanOrEqual(20);
      expect(reference.clock.size, "a repair stamps one or two instants").toBeGreaterThanOrEqual(1);
      expect(reference.clock.size).toBeLessThanOrEqual(2);
      // …and the normalisation never makes a before-image pass for its after-image.
      for (const [key, b] of before) {
        const a = after.get(key);
        if (a !== undefined && a !== b) expect(ops.normalise(b, b, new Set()), key).not.toBe(ops.normalise(a, b, new Set()));
      }
    }, 120_000);

    afterAll(() => {
      const lines = [...landings].sort((a, b) => b[1] - a[1]).map(([where, n]) => `  ${String(n).padStart(3)}  ${where}`);
      const fmt = (n: () => number) => {
        try {
          return `${Math.round(n())} ms`;
        } catch {
          return "?";
        }
      };
      console.log(
        [
          `crash-safety ${format}: ${kills.length} kills (${FIXED_KILLS.length} fixed, ${TRIALS} random), seed ${formatSeed} (CRASH_SEED=${BASE_SEED}), ${((performance.now() - started) / 1000).toFixed(1)} s`,
          `  median run ${fmt(() => timing.run)}, writing the backup ${fmt(() => timing.backupWriting)}, applying ${fmt(() => timing.applying)}`,
          `  kills timed from: ${[...anchors].map(([a, n]) => `${a} ${n}`).join(", ")}; kills that left a temp file in the store: ${tempKills}`,
          ...lines,
        ].join("\n"),
      );
      cleanUp(format);
    });

    const kills = [...FIXED_KILLS, ...randomKills(formatSeed, TRIALS)];
    it.each(kills.map((k) => [k.name, k] as const))(
      "%s",
      async (_name, kill) => {
        // SQLite's apply is one short transaction: a floor of 5 ms is how kills land inside it.
        const { trial, plan } = killPlanFor(kill, timing, 5);
        tally(anchors, plan.anchor);
        const t0 = performance.now();
        const { dataDir, stateHome, root } = copyStore(pristine, format, `trial-${trial}`);
        let where = "?";
        let killedAt: number | undefined;
        const context = () =>
          `${format} ${kill.name}, seed ${formatSeed} (CRASH_SEED=${BASE_SEED}): kill ${Math.round(plan.delayMs)} ms after ${plan.anchor}` +
          ` (${killedAt === undefined ? "not sent" : `${Math.round(killedAt)} ms after spawn`}), landed ${where}; store kept in ${root}`;
        const lap = (what: string) => {
          if (process.env.CRASH_VERBOSE) console.log(`${format} trial ${trial}: ${what} at ${Math.round(performance.now() - t0)} ms`);
        };
        try {
          lap("copied");
          const result = await runCli(repairArgs(dataDir), stateHome, plan);
          killedAt = result.killedAt;
          timing.observe(result);
          lap("killed run");
          expect(result.killed || result.status === 0, `${context()}: the run failed: ${result.stderr}`).toBe(true);

          // 1. Every record holds its before or its after image (temp files of a cut-short write aside).
          const backupsAtKill = backupsOf(stateHome);
          const atKill = compareWithImages(ops.snapshot(dataDir), before, after, ops.normalise);
          where = landing(result, backupsAtKill, atKill);
          tally(landings, where.replace(/mixed \(\d+ of \d+ records repaired\)/, "partly applied"));
          lap(`snapshot (${where})`);
          const strayAtKill = ops.tempFiles(dataDir).length;
          if (strayAtKill > 0) tempKills++;
          expect(atKill.strangers, `${context()}: records in neither state`).toEqual([]);
          expect(atKill.clock.size, `${context()}: one repair stamps at most two instants`).toBeLessThanOrEqual(2);
          // The manifest says how far the transaction got: nothing reaches the store before "applying", all of it by "done".
          const stateAtKill = backupsAtKill[0]?.state ?? "none";
          if (stateAtKill === "none" || stateAtKill === "planned") expect(wholeState(atKill), `${context()}: manifest ${stateAtKill}`).toBe("before");
          if (stateAtKill === "done") expect(wholeState(atKill), `${context()}: manifest done`).toBe("after");

          // 2. The store opens cleanly.
          expect(ops.openProblems(dataDir), context()).toEqual([]);

          // 3. SQLite is all-or-nothing at once; the JSON tree once the next command settled the journal.
          if (format === "opencode-sqlite") expect(wholeState(atKill), context()).toMatch(/^(before|after)$/);
          const scan = await runSettled(["session", "scan", sessionId, "--store", dataDir, "--json", "--exit-zero"], stateHome);
          lap("scan");
          expect(scan.status, `${context()}: scan after the kill: ${scan.stderr}${scan.stdout.slice(0, 1000)}`).toBe(0);
          const settled = compareWithImages(ops.snapshot(dataDir), before, after, ops.normalise);
          expect(settled.strangers, `${context()}: after settling`).toEqual([]);
          const state = wholeState(settled);
          expect(state, `${context()}: after settling`).toMatch(/^(before|after)$/);
          expect(ops.tempFiles(dataDir), `${context()}: temp files left in the store after settling`).toEqual([]);
          expect(lockFilesIn(dataDir), `${context()}: the killed run's lock left after settling`).toEqual([]);
          expect(ops.openProblems(dataDir), context()).toEqual([]);
          expect(journalPointers(stateHome), `${context()}: journal left unsettled`).toEqual([]);
          const backups = backupsOf(stateHome);
          const done = backups.filter((b) => b.state === "done");
          if (state === "after") expect(done, `${context()}: repaired store, backups ${JSON.stringify(backups)}`).toHaveLength(1);
          else expect(done, `${context()}: store as before, backups ${JSON.stringify(backups)}`).toHaveLength(0);

          // 4. A completed backup restores the original exactly; a store left as it was can still be repaired.
          if (done.length === 1) {
            const restore = await runSettled(["session", "restore", done[0]!.id, "--store", dataDir, "--yes", "--json"], stateHome);
            expect(restore.status, `${context()}: restore: ${restore.stderr}${restore.stdout.slice(-1000)}`).toBe(0);
            const restored = ops.snapshot(dataDir);
            const differing = [...new Set([...before.keys(), ...restored.keys()])].filter((k) => before.get(k) !== restored.get(k));
            expect(differing, `${context()}: records not back to their original after restore`).toEqual([]);
            expect(ops.tempFiles(dataDir), context()).toEqual([]);
            expect(ops.openProblems(dataDir), context()).toEqual([]);
          } else {
            const again = await runSettled(repairArgs(dataDir), stateHome);
            expect(again.status, `${context()}: repair after the kill: ${again.stderr}${again.stdout.slice(0, 1000)}`).toBe(0);
            const repaired = compareWithImages(ops.snapshot(dataDir), before, after, ops.normalise);
            expect(repaired.strangers, context()).toEqual([]);
            expect(wholeState(repaired), context()).toBe("after");
            const nothing = await runSettled(repairArgs(dataDir, "--dry-run"), stateHome);
            expect(nothing.status, `${context()}: a second repair still plans changes: ${nothing.stdout.slice(0, 1000)}`).toBe(0);
            expect((JSON.parse(nothing.stdout) as { summary: { changes: number } }).summary.changes, context()).toBe(0);
          }
          lap("checked");
          fs.rmSync(root, { recursive: true, force: true });
          lap("removed");
        } catch (error) {
          space.failed();
          throw error;
        }
      },
      60_000,
    );
  });
}
