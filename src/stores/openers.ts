/**
 * Which other processes hold a file open right now: a running opencode keeps its database open, and writing
 * under it would race its own writes. Linux answers through /proc/<pid>/fd; macOS through lsof. Where neither
 * answers, nobody is reported (the session's update time is the other guard).
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, readlinkSync, realpathSync } from "node:fs";
import { join } from "node:path";

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
    if (holds) found.push({ pid: Number(pid), name: processName(pid) });
  }
  return found;
}

function processName(pid: string): string {
  try {
    return readFileSync(join("/proc", pid, "comm"), "utf8").trim();
  } catch {
    return "?";
  }
}

function fromLsof(paths: string[]): Opener[] {
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
