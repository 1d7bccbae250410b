// The built CLI without blocking this process: a test's fake pokeralph server (in this process) must be able to
// answer the CLI's probe while it runs. main() is async, so the in-process run of test/cli/run.ts does exactly that;
// runProcessAsync is the same as a child process, for what an in-process run cannot show.
import { spawn } from "node:child_process";
import { BIN, childEnv, run, type RunOptions, type RunResult } from "../cli/run.js";

export function runAsync(args: string[], options: RunOptions = {}): Promise<RunResult> {
  return run(args, options);
}

export function runProcessAsync(args: string[], options: RunOptions = {}): Promise<RunResult> {
  return spawnCollect(process.execPath, [BIN, ...args], { ...(options.cwd !== undefined ? { cwd: options.cwd } : {}), env: childEnv(options.env) });
}

/** Any command as a child process, its output collected; killed after 25 s so a hung child fails the test. */
export function spawnCollect(command: string, args: string[], options: { cwd?: string; env: NodeJS.ProcessEnv }): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), 25_000);
    child.on("error", reject);
    child.on("close", (status, signal) => {
      clearTimeout(timer);
      resolve({ status, signal, stdout, stderr });
    });
  });
}
