/**
 * Which other processes hold a file open right now: a running opencode keeps its database open, and writing
 * under it would race its own writes. Linux answers through /proc/<pid>/fd; macOS through lsof. Where neither
 * answers, nobody is reported (the session's update time is the other guard).
 *
 * Another run of this same recover (the same entry script, on Linux where its command line can be read) is not
 * counted: it only reads without the store's lock, and writes only under it. Counting it made two repairs started
 * together both refuse: the one holding the lock saw the other still reading.
 */
import { createRequire } from "node:module";
import { readdirSync, readFileSync, readlinkSync, realpathSync } from "node:fs";
import { join, resolve } from "node:path";

export interface Opener {
  pid: number;
  name: string;
}

export function processesHolding(paths: readonly string[]): Opener[] {
  const wanted = new Set<string>();
  for (const p of paths) {
    wanted.add(p);
    try {
      wanted.add(realpathSync(p));
    } catch {
      /* a -wal or -shm file may not exist */
    }
  }
  if (process.platform === "linux") return fromProc(wanted);
  if (process.platform === "darwin") return fromLsof([...wanted]);
  return [];
}

function fromProc(wanted: Set<string>): Opener[] {
  const found: Opener[] = [];
  const ourEntry = entryScript(process.argv, process.cwd());
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  for (const pid of pids) {
    if (Number(pid) === process.pid) continue;
    let fds: string[];
    try {
      fds = readdirSync(join("/proc", pid, "fd"));
    } catch {
      continue; // another user's process, or gone already
    }
    const holds = fds.some((fd) => {
      try {
        return wanted.has(readlinkSync(join("/proc", pid, "fd", fd)));
      } catch {
        return false;
      }
    });
    if (holds && !(ourEntry !== undefined && entryScript(commandLine(pid), workingDir(pid)) === ourEntry))
      found.push({ pid: Number(pid), name: processName(pid) });
  }
  return found;
}

/** The script a node process runs (its second word, from the folder it was started in), as a real path. */
function entryScript(argv: readonly string[], cwd: string | undefined): string | undefined {
  const [runtime, script] = argv;
  if (runtime === undefined || script === undefined || cwd === undefined || !/(^|\/)node[\d.]*$/.test(runtime)) return undefined;
  try {
    return realpathSync(resolve(cwd, script));
  } catch {
    return undefined;
  }
}

function workingDir(pid: string): string | undefined {
  try {
    return readlinkSync(join("/proc", pid, "cwd"));
  } catch {
    return undefined;
  }
}

function commandLine(pid: string): string[] {
  try {
    return readFileSync(join("/proc", pid, "cmdline"), "utf8")
      .split("\0")
      .filter(Boolean);
  } catch {
    return [];
  }
}

function processName(pid: string): string {
  try {
    return readFileSync(join("/proc", pid, "comm"), "utf8").trim();
  } catch {
    return "?";
  }
}

function fromLsof(paths: string[]): Opener[] {
  // Required here, not imported: only a system without /proc (macOS) asks lsof, and loading child_process cost
  // every run on Linux ~2 % of a small scan's start-up.
  const { spawnSync } = createRequire(import.meta.url)("node:child_process") as typeof import("node:child_process");
  const result = spawnSync("lsof", ["-F", "pc", "--", ...paths], { encoding: "utf8", timeout: 10_000 });
  if (result.error || typeof result.stdout !== "string") return [];
  const found = new Map<number, string>();
  let pid = 0;
  for (const line of result.stdout.split("\n")) {
    if (line.startsWith("p")) pid = Number(line.slice(1));
    else if (line.startsWith("c") && pid !== process.pid) found.set(pid, line.slice(1));
  }
  return [...found].map(([p, name]) => ({ pid: p, name }));
}
