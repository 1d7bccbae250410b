// The battle fuzz loop (fuzz-battle.test.ts): fast-check draws damage to a pokeralph project's `.pokeralph/` files
// (fuzz-battle-damage.ts) and a rollback to attempt; a copy of a real git repository with four battles and recover's
// checkpoints gets the damage, and the CLI's main() of the build (test/cli/run.ts, in this process) runs the battle
// commands on it, in --json: `battle status`, `checkpoint list`, `battle fix` and `battle rollback --dry-run`
// (read-only), then the rollback itself (`--yes`), `battle status` again, and `battle rollback --undo --yes`.
//
// The base repository (built once per run, copied per case with its .git): 001-project-setup completed,
// 003-invoice-pdf failed its test loop, 002-auth-system crashed during iteration 4 with iteration 3's changes left
// uncommitted, 004-rate-limiting failed on a timeout; recover checkpoints of 002 (after iteration 3), 003 (after 3)
// and 004 (after 1); and 004 already rolled back once (to after iteration 1: a safety checkpoint, `rolledBack` in its
// sidecar, status paused). No pokeralph server answers (RECOVER_POKERALPH_URL is a closed port); HOME is an empty
// folder (no Claude Code ralph loop is found); each case has a state dir of its own.
//
// The properties, for every case (docs/battles.md, README's exit codes):
// 1. no command crashes: exit 0, 1, 2 or 3; at most one line on stderr; no stack; no "internal error";
// 2. --json output is always exactly one JSON document;
// 3. nothing hangs (each command within FUZZ_TIMEOUT_MS, 30 s);
// 4. `battle status` reports, never stops: exit 0 or 1 (1 exactly when the summary counts an error), and every
//    pokeralph state file (config.json, prd.json, a battle's history.json and progress.json) that is there but not a
//    JSON object is an `invalid-file` finding;
// 5. the read-only commands are read-only: status, checkpoint list, fix and the dry run change no byte or mode of
//    the working tree (`.pokeralph/` included), no ref, not HEAD and not the index;
// 6. the dry run says what the rollback does: its exit (0 nothing to do, 1 something, 2 input error, 3 refused)
//    matches the rollback's (0, 0, 2, 3), and when both ran, the same files and iterations;
// 7. a rollback that exits 0 leaves no error for that battle the rollback could have caused: on re-status no
//    `battle-crashed` or `battle-failed`, and no error finding that was not a finding before; `checkpoint list` reads
//    the sidecar it wrote; the branch, HEAD, the index and every ref but the new refs/pokeralph/safety/* untouched;
//    a rollback that does not exit 0 changes no file (a safety ref may stay);
// 8. the undo is exact: `battle rollback <task> --undo --yes` exits 0 and gives back the damaged state byte for
//    byte (every file and folder of the working tree with its mode, `.pokeralph/` included; refs but the safety
//    ones, HEAD, the index), and `battle status` then reports the same findings as before the rollback.
//
// FUZZ_VERBOSE=1 prints every command a case runs, with its time and exit code (and an exit 2's document).
import { createHash } from "node:crypto";
import { spawnSync } from "node:child_process";
import fc from "fast-check";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createCheckpoint } from "../../src/checkpoint/create.js";
import { closedPort } from "../battle/fake-pokeralph.js";
import { run, type RunResult } from "../cli/run.js";
import {
  completedBattle,
  crashedBattle,
  createPokeralphRepo,
  failedFeedbackBattle,
  TASKS,
  timeoutBattle,
  writeProjectFile,
} from "../support/pokeralph-fixtures.js";
import { applyBattleDamage, battleDamageArbitrary, type BattleDamage } from "./fuzz-battle-damage.js";
import { checkCommand, runBounded, SEED } from "./fuzz-support.js";

export { SEED };

/** FUZZ_BATTLE_RUNS, else FUZZ_RUNS: a battle case costs a second or more of git, so the soak runs fewer of them. */
export const RUNS = Number(process.env.FUZZ_BATTLE_RUNS ?? process.env.FUZZ_RUNS ?? 75);
export const PATH = process.env.FUZZ_PATH || undefined;

/** The fixture's "now": fixed, so the battles (and their commits) are the same on every run; checkpoints are taken now. */
const NOW = Date.parse("2026-02-05T12:00:00.000Z");
/** Every `.pokeralph/` file's mtime after the damage: long ago, so leftovers are stale and a crash is a crash. */
const OLD = new Date(NOW - 3_600_000);

// ---------------------------------------------------------------------------------------------
// What a case draws: the damage, and the rollback to try on the damaged state
// ---------------------------------------------------------------------------------------------

export type RollbackChoice = { kind: "iteration"; iteration: number } | { kind: "full" } | { kind: "checkpoint"; pick: number };

export interface BattleCase {
  damage: BattleDamage[];
  /** The battle: an index into the battle folders the damaged state has, or the one the first damage hit. */
  task: number | "damaged";
  rollback: RollbackChoice;
  hard: boolean;
  /** The read-only commands besides status and the dry run, each in half the cases (a git-heavy second each). */
  list: boolean;
  fix: boolean;
}

const rollbackChoice: fc.Arbitrary<RollbackChoice> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant("iteration" as const), iteration: fc.integer({ min: 1, max: 4 }) }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant("full" as const) }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant("checkpoint" as const), pick: fc.nat({ max: 15 }) }), weight: 2 },
);

export function battleCaseArbitrary(): fc.Arbitrary<BattleCase> {
  return fc.record({
    damage: battleDamageArbitrary(),
    task: fc.oneof({ arbitrary: fc.nat({ max: 7 }), weight: 1 }, { arbitrary: fc.constant("damaged" as const), weight: 3 }),
    rollback: rollbackChoice,
    hard: fc.boolean(),
    list: fc.boolean(),
    fix: fc.boolean(),
  });
}

// ---------------------------------------------------------------------------------------------
// The base repository
// ---------------------------------------------------------------------------------------------

const gitEnv = { GIT_OPTIONAL_LOCKS: "0", GIT_TERMINAL_PROMPT: "0", GIT_CONFIG_NOSYSTEM: "1", LANG: "C" };

function git(root: string, args: string[], env: Record<string, string> = {}): string {
  const r = spawnSync("git", args, { cwd: root, encoding: "utf8", env: { ...process.env, ...gitEnv, ...env } });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")} failed in ${root}: ${r.stderr}`);
  return r.stdout;
}

/** Every file under `.pokeralph/` dated OLD (the damage just rewrote some). */
function age(root: string): void {
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      // A link's own time: what it points at (a project file) keeps its own.
      if (e.isSymbolicLink()) fs.lutimesSync(p, OLD, OLD);
      else fs.utimesSync(p, OLD, OLD);
    }
  };
  const dir = path.join(root, ".pokeralph");
  if (fs.existsSync(dir)) walk(dir);
}

let serverUrl: Promise<string> | undefined;
/** Where no pokeralph server answers (a port bound once and released). */
const noServer = (): Promise<string> => (serverUrl ??= closedPort().then((port) => `http://127.0.0.1:${port}`));

async function buildBase(root: string, scratch: string): Promise<void> {
  const state = path.join(scratch, "base-state");
  const home = path.join(scratch, "base-home");
  fs.mkdirSync(home, { recursive: true });
  const fx = await createPokeralphRepo({ root, now: NOW });
  await completedBattle(fx);
  await failedFeedbackBattle(fx);
  await crashedBattle(fx);
  await timeoutBattle(fx);
  await createCheckpoint(root, { taskId: TASKS.auth.id, afterIteration: 3, stateDir: state });
  await createCheckpoint(root, { taskId: TASKS.pdf.id, afterIteration: 3, stateDir: state });
  await createCheckpoint(root, { taskId: TASKS.rateLimit.id, afterIteration: 1, stateDir: state });
  // 004 rolled back once already: its sidecar archives iteration 2 under a safety ref (a rollback to that ref brings
  // it back), and README.md is put back as it was at the checkpoint.
  writeProjectFile(fx, "README.md", "# invoice-service\n\nEdited after the rate-limiting checkpoint.\n");
  const rolled = await run(["battle", "rollback", TASKS.rateLimit.id, "--iteration", "2", "--yes", "--json", "--repo", root], {
    env: { XDG_STATE_HOME: state, HOME: home, RECOVER_POKERALPH_URL: await noServer(), PORT: undefined },
  });
  if (rolled.status !== 0) throw new Error(`the base repository's rollback failed: ${rolled.stderr}${rolled.stdout}`);
  age(root);
}

// ---------------------------------------------------------------------------------------------
// What must (not) change: the working tree, byte for byte with modes, and git's refs, HEAD and index
// ---------------------------------------------------------------------------------------------

const sha = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

/** Every file and folder of the working tree but .git/: a file as mode + sha256, a folder as its mode, a link as its target. */
function worktreeImage(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string) => {
    for (const name of fs.readdirSync(path.join(root, rel)).sort()) {
      if (rel === "" && name === ".git") continue;
      const r = rel === "" ? name : `${rel}/${name}`;
      const full = path.join(root, r);
      const stat = fs.lstatSync(full);
      const mode = (stat.mode & 0o7777).toString(8);
      if (stat.isSymbolicLink()) out.set(r, `link:${fs.readlinkSync(full)}`);
      else if (stat.isDirectory()) {
        out.set(`${r}/`, `dir:${mode}`);
        walk(r);
      } else out.set(r, `${mode}:${sha(fs.readFileSync(full))}`);
    }
  };
  walk("");
  return out;
}

const SAFETY = "refs/pokeralph/safety/";

interface GitImage {
  head: string;
  index: string;
  /** What .git/ holds at its top (a temporary index or a lock left behind shows here). */
  entries: string;
  /** `<ref> <object>`, sorted; the safety refs apart (a rollback and an undo add one each). */
  refs: string[];
  safety: string[];
}

function gitImage(root: string): GitImage {
  const refs = git(root, ["for-each-ref", "--format=%(refname) %(objectname)"])
    .split("\n")
    .filter((l) => l !== "");
  return {
    head: fs.readFileSync(path.join(root, ".git", "HEAD"), "utf8"),
    index: sha(fs.readFileSync(path.join(root, ".git", "index"))),
    entries: fs.readdirSync(path.join(root, ".git")).sort().join(" "),
    refs: refs.filter((r) => !r.startsWith(SAFETY)),
    safety: refs.filter((r) => r.startsWith(SAFETY)),
  };
}

function differences(before: Map<string, string>, after: Map<string, string>): string[] {
  return [...new Set([...before.keys(), ...after.keys()])].filter((k) => before.get(k) !== after.get(k)).sort();
}

function gitDifferences(before: GitImage, after: GitImage, safetyToo: boolean): string[] {
  const out: string[] = [];
  if (before.head !== after.head) out.push(`HEAD ${before.head.trim()} → ${after.head.trim()}`);
  if (before.index !== after.index) out.push("the index");
  if (before.entries !== after.entries) out.push(`.git/ held ${before.entries}, now ${after.entries}`);
  const refs = (a: string[], b: string[]) => [...a.filter((r) => !b.includes(r)).map((r) => `-${r}`), ...b.filter((r) => !a.includes(r)).map((r) => `+${r}`)];
  out.push(...refs(before.refs, after.refs));
  if (safetyToo) out.push(...refs(before.safety, after.safety));
  return out;
}

// ---------------------------------------------------------------------------------------------
// Running a command: properties 1–3
// ---------------------------------------------------------------------------------------------

export interface BattleFailure {
  property:
    | "no-crash"
    | "json-parses"
    | "no-hang"
    | "status-reports"
    | "read-only"
    | "dry-run-predicts"
    | "rollback-clean"
    | "rollback-untouched"
    | "undo-exact"
    | "harness";
  detail: string;
}

type Doc = Record<string, unknown>;

const statusOf = (r: RunResult | "hang") => (r === "hang" ? "hang" : r.status);

// ---------------------------------------------------------------------------------------------
// What the state holds: the battles, the checkpoints a rollback may name, the files status must flag
// ---------------------------------------------------------------------------------------------

function battleIds(root: string): string[] {
  try {
    return fs
      .readdirSync(path.join(root, ".pokeralph", "battles"), { withFileTypes: true })
      .filter((e) => e.isDirectory() && !e.name.startsWith("."))
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}

const lossy = new TextDecoder("utf-8", { fatal: false });

/** Whether the file at `rel` is there and is not a JSON object (a folder, empty, zero bytes, torn, not JSON, an array). */
function notAJsonObject(root: string, rel: string): boolean {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(path.join(root, rel));
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EISDIR";
  }
  try {
    const value = JSON.parse(lossy.decode(bytes)) as unknown;
    return typeof value !== "object" || value === null || Array.isArray(value);
  } catch {
    return true;
  }
}

/** The pokeralph files `battle status` validates, relative to the project. */
function stateFiles(root: string): string[] {
  return [
    ".pokeralph/config.json",
    ".pokeralph/prd.json",
    ...battleIds(root).flatMap((id) => ["history", "progress"].map((f) => `.pokeralph/battles/${id}/${f}.json`)),
  ];
}

/** What `--to-checkpoint` may name: the sidecar's ids and refs as they are now, the inferred ids, and ones that do not exist. */
function checkpointNames(root: string, taskId: string): string[] {
  const names: string[] = [];
  try {
    const sidecar = JSON.parse(fs.readFileSync(path.join(root, ".pokeralph", "battles", taskId, "checkpoints.json"), "utf8")) as { checkpoints?: unknown };
    if (Array.isArray(sidecar.checkpoints))
      for (const c of sidecar.checkpoints as Record<string, unknown>[])
        for (const k of ["id", "ref"]) if (typeof c?.[k] === "string") names.push(c[k] as string);
  } catch {
    /* no usable sidecar: the other names */
  }
  return [...names, "inferred-0", "inferred-1", "inferred-2", "inferred-3", `refs/pokeralph/checkpoints/${taskId}/3`, "cp-0-missing"];
}

interface Finding {
  rule: string;
  severity: string;
  path: string;
  message: string;
  iteration?: number;
}

function findingsOf(doc: Doc | undefined, taskId?: string): Finding[] {
  if (doc === undefined) return [];
  const battles = (doc.battles ?? []) as { taskId: string; findings?: Finding[] }[];
  const project = (doc.findings ?? []) as Finding[];
  return [...project, ...battles.filter((b) => taskId === undefined || b.taskId === taskId).flatMap((b) => b.findings ?? [])];
}

/** A finding as the rollback may not add one: the off-HEAD commit of a completed battle is the same one unfinished. */
const findingKey = (f: Finding) =>
  `${f.rule === "commit-not-ancestor" ? "commit-off-head" : f.rule} ${f.path}${f.iteration !== undefined ? ` #${f.iteration}` : ""}`;

// ---------------------------------------------------------------------------------------------
// One case
// ---------------------------------------------------------------------------------------------

export interface BattleOutcome {
  failures: BattleFailure[];
  /** How the rollback ended, for the tally. */
  tally: string;
}

let caseCounter = 0;

async function battleCase(pristine: string, scratch: string, drawn: BattleCase): Promise<BattleOutcome> {
  const dir = path.join(scratch, `case-${++caseCounter}`);
  const root = path.join(dir, "repo");
  const state = path.join(dir, "state");
  const home = path.join(dir, "home");
  fs.cpSync(pristine, root, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
  fs.mkdirSync(state);
  fs.mkdirSync(home);
  const env = { XDG_STATE_HOME: state, HOME: home, RECOVER_POKERALPH_URL: await noServer(), PORT: undefined };
  const failures: BattleFailure[] = [];
  let tally = "?";
  try {
    // The copy's index has stale stat data: refreshed as git would on its next look, so that the index the commands
    // must leave alone is the repository's own.
    git(root, ["update-index", "-q", "--refresh"], { GIT_OPTIONAL_LOCKS: "1" });
    const hit = applyBattleDamage(root, drawn.damage);
    age(root);
    const tree0 = worktreeImage(root);
    const git0 = gitImage(root);
    const ids = battleIds(root);
    const damaged = hit.map((f) => /^\.pokeralph\/battles\/([^/]+)\//.exec(`${f.split(path.sep).join("/")}/`)?.[1]).find((id) => id !== undefined);
    const taskId =
      drawn.task === "damaged" && damaged !== undefined
        ? damaged
        : ids.length === 0
          ? TASKS.auth.id
          : ids[(drawn.task === "damaged" ? 0 : drawn.task) % ids.length]!;
    const repo = ["--repo", root];
    const cmd = async (...args: string[]) => {
      const t = performance.now();
      const r = await runBounded([...args, "--json", ...repo], env);
      if (process.env.FUZZ_VERBOSE)
        console.log(
          `${(performance.now() - t).toFixed(0)} ms ${args.join(" ")} → ${r === "hang" ? r : `${r.status} ${r.status === 2 ? r.stdout.slice(0, 300) : ""}`}`,
        );
      return r;
    };

    // 4. status reports whatever the damage, never stops.
    const status0 = checkCommand("battle status", await cmd("battle", "status"), failures, [0, 1]);
    if (status0 !== undefined) {
      const summary = status0.summary as { errors?: number } | undefined;
      const errors = findingsOf(status0).filter((f) => f.severity === "error").length;
      if (summary?.errors !== errors)
        failures.push({ property: "status-reports", detail: `summary.errors is ${summary?.errors}, the findings hold ${errors} errors` });
      const flagged = new Set(
        findingsOf(status0)
          .filter((f) => f.rule === "invalid-file")
          .map((f) => f.path),
      );
      const missed = stateFiles(root).filter((f) => notAJsonObject(root, f) && !flagged.has(f));
      if (missed.length > 0) failures.push({ property: "status-reports", detail: `not a JSON object, yet no invalid-file finding: ${missed.join(", ")}` });
    }

    // 5. The read-only commands.
    if (drawn.list) checkCommand("checkpoint list", await cmd("checkpoint", "list", taskId), failures, [0, 2]);
    if (drawn.fix) checkCommand("battle fix", await cmd("battle", "fix", taskId), failures, [0, 2]);
    const mode =
      drawn.rollback.kind === "iteration"
        ? ["--iteration", String(drawn.rollback.iteration)]
        : drawn.rollback.kind === "full"
          ? ["--full"]
          : ["--to-checkpoint", checkpointNames(root, taskId)[drawn.rollback.pick % checkpointNames(root, taskId).length]!];
    const rollbackArgs = ["battle", "rollback", taskId, ...mode, ...(drawn.hard ? ["--hard"] : [])];
    const dryResult = await cmd(...rollbackArgs, "--dry-run");
    const dry = checkCommand("rollback --dry-run", dryResult, failures, [0, 1, 2, 3]);
    const readOnly = [...differences(tree0, worktreeImage(root)), ...gitDifferences(git0, gitImage(root), true)];
    if (readOnly.length > 0)
      failures.push({ property: "read-only", detail: `status, checkpoint list, fix or the dry run changed: ${readOnly.join(", ").slice(0, 600)}` });

    // 6, 7. The rollback.
    const rollbackResult = await cmd(...rollbackArgs, "--yes");
    const rolled = checkCommand("rollback", rollbackResult, failures, [0, 2, 3]);
    const exit = statusOf(rollbackResult);
    const dryExit = statusOf(dryResult);
    const backup = (rolled?.backup ?? null) as { id: string } | null;
    tally = `dry run ${dryExit}, rollback ${exit}${backup !== null ? ", wrote" : ""}`;
    const expected = { 0: 0, 1: 0, 2: 2, 3: 3 }[dryExit as 0 | 1 | 2 | 3];
    if (expected !== undefined && exit !== expected && !(dryExit === 1 && exit === 3))
      failures.push({
        property: "dry-run-predicts",
        detail: `the dry run exited ${dryExit}, the rollback ${exit}: ${JSON.stringify(rolled ?? rollbackResult).slice(0, 400)}`,
      });
    if (dry !== undefined && rolled !== undefined && exit === 0) {
      const what = (d: Doc) => JSON.stringify({ files: d.files, iterations: d.iterationsRolledBack, target: d.target });
      if (what(dry) !== what(rolled))
        failures.push({ property: "dry-run-predicts", detail: `the dry run showed ${what(dry)}, the rollback did ${what(rolled)}` });
      if (dryExit === 0 && backup !== null)
        failures.push({ property: "dry-run-predicts", detail: "the dry run had nothing to do, the rollback wrote a backup" });
    }
    const git1 = gitImage(root);
    if (exit !== 0) {
      const changed = [...differences(tree0, worktreeImage(root)), ...gitDifferences(git0, git1, false)];
      if (changed.length > 0)
        failures.push({ property: "rollback-untouched", detail: `the rollback exited ${exit} but changed: ${changed.join(", ").slice(0, 600)}` });
      return { failures, tally };
    }
    const moved = gitDifferences(git0, git1, false);
    if (moved.length > 0) failures.push({ property: "rollback-untouched", detail: `the rollback moved ${moved.join(", ")}` });
    // What the rollback wrote (the sidecar: a safety checkpoint, the archive), recover reads back.
    const listed = await cmd("checkpoint", "list", taskId);
    checkCommand("checkpoint list (after the rollback)", listed, failures, [0, 2]);
    if (statusOf(listed) === 2)
      failures.push({ property: "rollback-clean", detail: `checkpoint list refuses what the rollback wrote: ${(listed as RunResult).stdout.slice(0, 400)}` });
    const restatus = checkCommand("battle status (after the rollback)", await cmd("battle", "status", taskId), failures, [0, 1]);
    if (restatus !== undefined) {
      const now = findingsOf(restatus, taskId);
      const failed = now.filter((f) => f.rule === "battle-crashed" || f.rule === "battle-failed");
      const before = new Set(findingsOf(status0, taskId).map(findingKey));
      const added = now.filter((f) => f.severity === "error" && !before.has(findingKey(f)));
      if (failed.length + added.length > 0)
        failures.push({
          property: "rollback-clean",
          detail: `the rollback exited 0, the battle's status then has ${[...new Set([...failed, ...added])]
            .map((f) => `${f.rule} (${f.path}): ${f.message}`)
            .join(" | ")
            .slice(0, 600)}`,
        });
    }

    // 8. The undo.
    if (backup === null) {
      const changed = differences(tree0, worktreeImage(root));
      if (changed.length > 0)
        failures.push({ property: "undo-exact", detail: `the rollback wrote no backup but changed: ${changed.join(", ").slice(0, 600)}` });
      return { failures, tally };
    }
    const undo = await cmd("battle", "rollback", taskId, "--undo", "--yes");
    checkCommand("rollback --undo", undo, failures, [0]);
    if (statusOf(undo) === 0) {
      const differ = [...differences(tree0, worktreeImage(root)), ...gitDifferences(git0, gitImage(root), false)];
      if (differ.length > 0) failures.push({ property: "undo-exact", detail: `not as before the rollback after its undo: ${differ.join(", ").slice(0, 600)}` });
      const status2 = checkCommand("battle status (after the undo)", await cmd("battle", "status", taskId), failures, [0, 1]);
      const keys = (d: Doc | undefined) =>
        findingsOf(d, taskId)
          .map((f) => `${f.severity} ${findingKey(f)}`)
          .sort()
          .join("\n");
      if (status2 !== undefined && status0 !== undefined && keys(status2) !== keys(status0))
        failures.push({ property: "undo-exact", detail: `battle status after the undo differs: before\n${keys(status0)}\nafter\n${keys(status2)}` });
    }
  } catch (error) {
    failures.push({ property: "harness", detail: `the case itself threw: ${(error as Error).stack ?? String(error)}` });
  } finally {
    if (failures.length === 0) fs.rmSync(dir, { recursive: true, force: true });
    else for (const f of failures) f.detail += ` [repository kept in ${root}]`;
  }
  return { failures, tally };
}

// ---------------------------------------------------------------------------------------------
// The base, once per run; a case on it
// ---------------------------------------------------------------------------------------------

export interface BattleBench {
  scratch: string;
  pristine: string;
}

export async function prepareBench(): Promise<BattleBench> {
  const scratch = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "recover-fuzz-battle-")));
  const pristine = path.join(scratch, "pristine");
  await buildBase(pristine, scratch);
  return { scratch, pristine };
}

export function runBattleCase(bench: BattleBench, drawn: BattleCase): Promise<BattleOutcome> {
  return battleCase(bench.pristine, bench.scratch, drawn);
}
