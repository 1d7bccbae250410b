/**
 * Other Ralph loops than pokeralph's: Claude Code's ralph-loop plugin keeps its loop in a state file
 * (stores/claude-ralph/loop-state.ts). `battle status` lists them, with whether the session that runs the loop is
 * still running; an active loop whose session is gone is stale (its Stop hook hijacks the next session), and
 * `battle fix --clear-stale <loop>` sets it inactive: one backed-up transaction like every other change, undone by
 * `session restore <backup-id>`.
 *
 * Is the session running? A process whose command line names the session id (`claude --resume <id>`), a claude
 * process working in the loop's project (Linux: its /proc cwd; a session started as plain `claude` shows no id),
 * or its transcript (`~/.claude/projects/<project>/<id>.jsonl`) written within the last few minutes (Claude Code
 * appends to it all through a turn). A loop with no session id yet is claimed by the next session of the project.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { RecoverError } from "../errors.js";
import { NEW_FILE_MODE } from "../stores/file-writer.js";
import { findLoopFiles, RalphLoopStore, withInactive, type RalphLoopFile } from "../stores/claude-ralph/loop-state.js";
import type { StoredImage } from "../model/change.js";
import type { Backup } from "../txn/backup-store.js";
import type { BattleFinding } from "./findings.js";
import { backupsIn } from "../txn/state-dir.js";
import { withStoreTransaction } from "../txn/store-transaction.js";
import { changesOfTargets } from "../txn/targets.js";

/** A transcript written this recently belongs to a session still at work. */
export const TRANSCRIPT_LIVE_MS = 10 * 60 * 1000;

export interface SessionLiveness {
  state: "running" | "stopped" | "unclaimed";
  detail: string;
}

export interface RalphLoop {
  /** What `--clear-stale` takes: the session id, else the file's path relative to where we looked from. */
  id: string;
  file: RalphLoopFile;
  session: SessionLiveness;
  /** Active, and no session runs it. */
  stale: boolean;
}

/** `ps` answers on Linux and macOS alike: every process's pid and whole command line. */
function processLines(): { pid: number; args: string }[] {
  const ran = spawnSync("ps", ["-eo", "pid=,args="], { encoding: "utf8", maxBuffer: 64 << 20 });
  if (ran.status !== 0 || typeof ran.stdout !== "string") return [];
  return ran.stdout
    .split("\n")
    .map((line) => /^\s*(\d+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), args: m[2]! }))
    .filter((p) => p.pid !== process.pid);
}

function newestTranscript(home: string | undefined, sessionId: string): { path: string; mtimeMs: number } | null {
  if (!home) return null;
  const projects = join(home, ".claude", "projects");
  let newest: { path: string; mtimeMs: number } | null = null;
  let dirs: string[];
  try {
    dirs = readdirSync(projects);
  } catch {
    return null;
  }
  for (const dir of dirs) {
    const path = join(projects, dir, `${sessionId}.jsonl`);
    try {
      const mtimeMs = statSync(path).mtimeMs;
      if (newest === null || mtimeMs > newest.mtimeMs) newest = { path, mtimeMs };
    } catch {
      /* not this project's */
    }
  }
  return newest;
}

/** Claude Code as `ps` shows it: the `claude` binary, or node running the package. */
const CLAUDE_PROCESS = /(^|\/)claude(\s|$)|@anthropic-ai\/claude-code/;

/** Where a process runs (Linux: /proc/<pid>/cwd); null where that cannot be read. */
function processCwd(pid: number): string | null {
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return null;
  }
}

export function sessionLiveness(
  sessionId: string | null,
  home: string | undefined,
  now: number,
  processes = processLines(),
  projectDir?: string,
): SessionLiveness {
  const holder = sessionId === null ? undefined : processes.find((p) => p.args.includes(sessionId));
  if (holder) return { state: "running", detail: `pid ${holder.pid} runs it (${holder.args.slice(0, 80)})` };
  // A session started without its id on the command line (plain `claude`) shows only as claude running in the project.
  const inProject = projectDir === undefined ? undefined : processes.find((p) => CLAUDE_PROCESS.test(p.args) && processCwd(p.pid) === projectDir);
  if (inProject) return { state: "running", detail: `claude (pid ${inProject.pid}) runs in ${projectDir}: it may be this loop's session` };
  if (sessionId === null) return { state: "unclaimed", detail: "no session yet: the next Claude Code session in this project takes the loop over" };
  const transcript = newestTranscript(home, sessionId);
  if (transcript && now - transcript.mtimeMs < TRANSCRIPT_LIVE_MS) {
    return { state: "running", detail: `its transcript was written ${Math.round((now - transcript.mtimeMs) / 1000)} s ago` };
  }
  return {
    state: "stopped",
    detail: transcript
      ? `no process runs it; transcript last written ${new Date(transcript.mtimeMs).toISOString()}`
      : "no process runs it and no transcript of it was found",
  };
}

export function findRalphLoops(from: string, env: NodeJS.ProcessEnv, now = Date.now()): RalphLoop[] {
  const files = findLoopFiles(from, env.HOME);
  if (files.length === 0) return [];
  const processes = processLines();
  return files.map((file) => {
    // A project's loop file is in <project>/.claude/; the user's are not tied to a directory.
    const project = file.scope === "project" ? realDir(dirname(dirname(file.path))) : undefined;
    const session = sessionLiveness(file.sessionId, env.HOME, now, processes, project);
    const rel = relative(from, file.path);
    return {
      id: file.sessionId ?? (rel.startsWith("..") ? file.path : rel),
      file,
      session,
      // Unclaimed counts as stale only when no session could claim it soon: when the file itself went quiet.
      stale: file.active && (session.state === "stopped" || (session.state === "unclaimed" && now - file.mtimeMs > TRANSCRIPT_LIVE_MS)),
    };
  });
}

/** The loop `--clear-stale` names: its id (session id or path), or a path to its file. */
export function pickLoop(loops: RalphLoop[], wanted: string, cwd: string, root: string): RalphLoop {
  const byPath = (l: RalphLoop) => l.file.path === wanted || l.file.path === join(cwd, wanted);
  const found = loops.filter((l) => l.id === wanted || byPath(l) || (l.file.sessionId?.startsWith(wanted) === true && wanted.length >= 6));
  if (found.length === 1) return found[0]!;
  const known = loops.map((l) => l.id).join(", ") || "none found";
  if (found.length > 1) throw new RecoverError("usage", `${wanted} names more than one ralph loop (${known}): give the whole id`);
  throw new RecoverError("invalid-id", `no ralph loop ${JSON.stringify(wanted)} (loops: ${known})`, {
    words: ["battle", "status"],
    why: "to see them",
    repo: root,
  });
}

export interface ClearOutcome {
  backup: Backup | null;
  before: string;
  after: string;
}

/** Set the loop inactive: the file's `active` line, in one backed-up transaction of its folder. */
export function clearStaleLoop(loop: RalphLoop, options: { stateDir: string; backupRoot?: string; force?: boolean; dryRun?: boolean }): ClearOutcome {
  if (loop.session.state === "running" && !options.force) {
    throw new RecoverError(
      "live-writer",
      `the session of ralph loop ${loop.id} is running (${loop.session.detail}): end it (or its /cancel-ralph) first, or pass --force; nothing was changed`,
    );
  }
  const path = loop.file.path;
  const store = new RalphLoopStore(dirname(path));
  const key = { record: "file" as const, id: basename(path), sessionId: loop.file.sessionId ?? basename(path), path };
  const change = (before: StoredImage) => {
    if (!before.exists) throw new RecoverError("store-changed", `${path} is gone (the loop ended meanwhile); nothing was changed`);
    const text = before.bytes.toString("utf8");
    return { text, after: withInactive(text, path) };
  };
  // A dry run only reads: no lock, no journal, nothing written.
  if (options.dryRun) {
    const { text, after } = change(store.openWriter().read(key));
    return { backup: null, before: text, after };
  }
  return withStoreTransaction(
    store,
    (tx) => {
      const before = tx.writer.read(key);
      const { text, after } = change(before);
      if (!before.exists || after === text) return { backup: null, before: text, after };
      const targets = [{ key, before, after: { exists: true as const, bytes: Buffer.from(after), mode: before.mode ?? NEW_FILE_MODE } }];
      const backup = tx.commit({ kind: "repair", sessions: [key.sessionId], changes: changesOfTargets(targets, "ralph-loop-clear-stale"), targets });
      return { backup, before: text, after };
    },
    { stateDir: options.stateDir, backupRoot: options.backupRoot ?? backupsIn(options.stateDir), refuseUnwritable: false },
  );
}

/** A stale loop as a `battle status` finding, with the command that clears it. */
export function staleLoopFinding(loop: RalphLoop, root: string, command: (words: string[]) => string): BattleFinding {
  const rel = relative(root, loop.file.path);
  return {
    rule: "ralph-loop-stale",
    severity: "error",
    path: rel.startsWith("..") ? loop.file.path : rel.split("\\").join("/"),
    message: `ralph loop ${loop.id} is active (iteration ${loop.file.iteration ?? "?"}${loop.file.maxIterations ? `/${loop.file.maxIterations}` : ""}) but ${loop.session.detail}`,
    fix: command(["battle", "fix", "--clear-stale", loop.id]),
  };
}

function realDir(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
}
