// Running a real client: in its own process group, its output collected (and written to files when asked), killed
// with everything it started on a timeout or when a scenario says so (a Ctrl-C is not what users' crashes are; a
// SIGKILL of the whole tree is the hardest case: nothing gets to flush).
import { spawn } from "node:child_process";
import fs from "node:fs";

/** Every descendant of `pid` (from /proc: each task's children list): a tool may have started its own process group. */
function descendants(pid) {
  const out = [];
  const walk = (p) => {
    let kids = [];
    try {
      for (const t of fs.readdirSync(`/proc/${p}/task`))
        kids = kids.concat(fs.readFileSync(`/proc/${p}/task/${t}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number));
    } catch {}
    for (const k of kids) {
      out.push(k);
      walk(k);
    }
  };
  walk(pid);
  return out;
}

const cmdline = (pid) => {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean).join(" ");
  } catch {
    return "?";
  }
};

/**
 * Start `command args`; returns `{ kill(why), done }`. `done` resolves to { code, signal, stdout, stderr (text),
 * killed: null | { why, processes } }. stdin is /dev/null: no client here may wait for a keypress. `input` (a list of
 * { text, afterMs }) instead feeds stdin those texts, each `afterMs` after the one before, then closes it: several
 * prompts to one process (Claude Code's `--input-format stream-json`).
 */
export function startProcess(command, args, { cwd, env, timeoutMs, stdoutFile, stderrFile, input }) {
  const child = spawn(command, args, { cwd, env, stdio: [input ? "pipe" : "ignore", "pipe", "pipe"], detached: true });
  if (input) {
    child.stdin.on("error", () => {});
    (async () => {
      for (const { text, afterMs = 0 } of input) {
        await new Promise((r) => setTimeout(r, afterMs));
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.stdin.write(text);
      }
      child.stdin.end();
    })();
  }
  const out = [];
  const err = [];
  child.stdout.on("data", (c) => out.push(c));
  child.stderr.on("data", (c) => err.push(c));
  let killed = null;
  const kill = (why) => {
    if (killed || child.exitCode !== null || child.signalCode !== null) return;
    const kids = descendants(child.pid);
    killed = { why, processes: [child.pid, ...kids].map((pid) => ({ pid, cmd: cmdline(pid) })) };
    for (const target of [-child.pid, child.pid, ...kids])
      try {
        process.kill(target, "SIGKILL");
      } catch {}
  };
  const timer = setTimeout(() => kill("timeout"), timeoutMs);
  const done = new Promise((resolve) => {
    child.on("error", (e) => {
      err.push(Buffer.from(`${e.message}\n`));
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const stdout = Buffer.concat(out);
      const stderr = Buffer.concat(err);
      if (stdoutFile) fs.writeFileSync(stdoutFile, stdout);
      if (stderrFile) fs.writeFileSync(stderrFile, stderr);
      resolve({ code, signal, stdout: stdout.toString("utf8"), stderr: stderr.toString("utf8"), killed });
    });
  });
  return { pid: child.pid, kill, done };
}

/** startProcess, waited for. */
export function runProcess(command, args, options) {
  return startProcess(command, args, options).done;
}
