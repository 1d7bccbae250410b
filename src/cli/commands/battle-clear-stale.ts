/**
 * `recover battle fix --clear-stale <loop>`: a stale Claude Code ralph loop (battle/ralph-loops.ts) set inactive,
 * shown as a diff of its state file, backed up; refused while its session runs unless --force.
 */
import { resolve } from "node:path";
import { clearStaleLoop, findRalphLoops, pickLoop } from "../../battle/ralph-loops.js";
import { ExitCode, RecoverError } from "../../errors.js";
import { unifiedDiff } from "../../plan/diff.js";
import { findPokeralph } from "../../stores/pokeralph/discover.js";
import { stateDir } from "../../txn/state-dir.js";
import type { GlobalOptions, Io } from "../io.js";
import { DOCUMENT_HEAD } from "../json-output.js";
import { confirmChange, runBackupRoot } from "../mutation.js";
import { restoreCommand } from "../write-plans.js";

export interface ClearStaleFlags {
  repo?: string;
  dryRun?: boolean;
  force?: boolean;
}

/** `battle fix --clear-stale <loop>`: the loop's state file with `active: false`, one backed-up transaction. */
export async function clearStale(io: Io, options: ClearStaleFlags & GlobalOptions, wanted: string): Promise<number> {
  const from = resolve(io.cwd, options.repo ?? ".");
  let root = from;
  try {
    root = findPokeralph({ cwd: io.cwd, ...(options.repo !== undefined ? { repo: options.repo } : {}) }).root;
  } catch {
    // Not a pokeralph project: the loop is looked for from the directory itself.
  }
  const loop = pickLoop(findRalphLoops(root, io.env), wanted, io.cwd, root);
  const c = io.color;
  if (!loop.file.active) {
    if (io.json) io.out(`${JSON.stringify({ ...DOCUMENT_HEAD, loop: loop.id, path: loop.file.path, changed: false, backup: null })}\n`);
    else io.out(`${c.green("✔")} ralph loop ${loop.id} is already inactive: nothing to do\n`);
    return ExitCode.ok;
  }
  if (!loop.stale && !options.force && loop.session.state !== "running") {
    throw new RecoverError("usage", `ralph loop ${loop.id} is not stale (${loop.session.detail}); pass --force to set it inactive anyway`);
  }
  const dryRun = options.dryRun === true;
  const running = loop.session.state === "running";
  if (!dryRun && (!running || options.force)) {
    await confirmChange(io, options, `${loop.file.path}: set ralph loop ${loop.id} inactive${running ? " while its session runs" : ""}`);
  }
  const outcome = clearStaleLoop(loop, {
    stateDir: stateDir(io.env),
    backupRoot: runBackupRoot(options, io),
    dryRun,
    ...(options.force ? { force: true } : {}),
  });
  const diff = unifiedDiff({ record: "file", id: loop.file.path, sessionId: loop.id, path: loop.file.path }, outcome.before, outcome.after);
  const undo = outcome.backup ? restoreCommand(outcome.backup.manifest.id, io) : null;
  if (io.json) {
    io.out(
      `${JSON.stringify({ ...DOCUMENT_HEAD, loop: loop.id, path: loop.file.path, dryRun, changed: !dryRun, diff, backup: outcome.backup ? { id: outcome.backup.manifest.id, path: outcome.backup.dir } : null, undo })}\n`,
    );
  } else {
    io.out(diff);
    if (dryRun) io.out(`${c.yellow("dry run:")} nothing was changed\n`);
    else io.out(`${c.green("✔")} ralph loop ${loop.id} set inactive; its Stop hook lets sessions end again\nundo with: ${c.bold(undo!)}\n`);
  }
  return dryRun ? ExitCode.findings : ExitCode.ok;
}
