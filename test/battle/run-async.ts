// The built CLI in a child process, without blocking this one: a test's fake pokeralph server (in this process)
// must be able to answer the CLI's probe while it runs. Same environment rules as test/cli/run.ts.
import { spawn } from "node:child_process";
import { BIN, childEnv, type RunOptions, type RunResult } from "../cli/run.js";

export function runAsync(args: string[], options: RunOptions = {}): Promise<RunResult> {
  const env = childEnv(options.env);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: options.cwd, env, stdio: ["ignore", "pipe", "pipe"] });
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
