// Runs the built CLI: `run()` calls its main() in this process with captured stdout/stderr (the environment, cwd and
// argv a spawned one would get); `runProcess()` and the helpers below start a real node process on bin/recover,
// for what needs one (signals, a terminal, a closed pipe, crash trials, one smoke run per command and store).
// Build first: `npm run build` (both run dist/main.cjs).
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { expect } from "vitest";

/** The built CLI; RECOVER_TEST_BIN runs the same tests against another build (say, the last release's). */
export const BIN = path.resolve(process.env.RECOVER_TEST_BIN ?? "bin/recover");

export interface RunResult {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /** Standard input, for an argument given as `-`. */
  input?: string;
  /** Added to the environment; a key set to undefined is removed from it. */
  env?: Record<string, string | undefined>;
  cwd?: string;
}

/**
 * A folder holding `recover` → the built bin, first on the child's PATH: the CLI runs as an installed one does, so
 * the commands it prints for the user start with `recover` (without it on PATH they start with `node …/bin/recover`).
 */
let installedBin: string | undefined;
export function recoverOnPath(): string {
  if (installedBin === undefined) {
    installedBin = fs.mkdtempSync(path.join(os.tmpdir(), "recover-bin-"));
    fs.symlinkSync(BIN, path.join(installedBin, "recover"));
  }
  return installedBin;
}

/** Where spawned CLIs keep their code cache: one per test file, so the tests use it without touching ~/.cache. */
let codeCacheHome: string | undefined;

/**
 * The environment every spawned CLI gets: no colour, CI set, no debugging switches, `recover` on PATH, the code cache
 * in a temp dir, plus `extra`.
 */
export function childEnv(extra: RunOptions["env"] = {}): NodeJS.ProcessEnv {
  codeCacheHome ??= fs.mkdtempSync(path.join(os.tmpdir(), "recover-cache-"));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NO_COLOR: "1",
    CI: "1",
    PATH: `${recoverOnPath()}${path.delimiter}${process.env.PATH ?? ""}`,
    XDG_CACHE_HOME: codeCacheHome,
  };
  // A developer's own debugging switch must not change what the tests see.
  delete env.RECOVER_DEBUG;
  delete env.FORCE_COLOR;
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

interface CliModule {
  main(argv: string[], context: import("../../src/cli/io.js").CliContext): Promise<number>;
}

let cli: Promise<CliModule> | undefined;
// Required as Node requires it: the bundle is CommonJS, run by this process as it is, not through vitest's transforms.
const loadCli = (): Promise<CliModule> => (cli ??= Promise.resolve(createRequire(import.meta.url)(path.resolve("dist/main.cjs")) as CliModule));

/**
 * The CLI in this process: main() of the build, stdout and stderr captured as strings, no terminal, the environment
 * childEnv() gives a spawned CLI and argv as node would give it (so printed commands start with `recover`). With
 * RECOVER_TEST_BIN set (another build) every run is a real process on that bin instead.
 */
export async function run(args: string[], options: RunOptions = {}): Promise<RunResult> {
  if (process.env.RECOVER_TEST_BIN !== undefined) return runProcess(args, options);
  const { main } = await loadCli();
  let stdout = "";
  let stderr = "";
  const status = await main([process.execPath, BIN, ...args], {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: childEnv(options.env),
    cwd: path.resolve(options.cwd ?? process.cwd()),
    isTTY: { stdin: false, stdout: false, stderr: false },
    readInput: () => options.input ?? "",
  });
  return { status, signal: null, stdout, stderr };
}

/** The CLI as a separate node process on bin/recover, the way a user starts it. */
export function runProcess(args: string[], options: RunOptions = {}): RunResult {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    encoding: "utf8",
    env: childEnv(options.env),
    cwd: options.cwd,
    timeout: 25_000,
    ...(options.input !== undefined ? { input: options.input } : {}),
  });
  if (result.error) throw result.error;
  return { status: result.status, signal: result.signal, stdout: result.stdout, stderr: result.stderr };
}

/** A command line recover printed, run as a user pasting it into a shell (`recover` on PATH). */
export function paste(command: string, options: RunOptions = {}): RunResult {
  const r = spawnSync("sh", ["-c", command], { encoding: "utf8", cwd: options.cwd, env: childEnv(options.env), input: options.input ?? "", timeout: 25_000 });
  return { status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

/** Runs the CLI with the read end of its stdout already closed, like `recover … | head -c0`. */
export function runWithClosedStdout(args: string[], options: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ["ignore", "pipe", "pipe"], env: childEnv(options.env), cwd: options.cwd });
    child.stdout.destroy();
    let stderr = "";
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (status, signal) => resolve({ status, signal, stdout: "", stderr }));
  });
}

/** util-linux `script` gives the CLI a real terminal (stdout and stderr both a TTY); absent on BSD/macOS. */
export const HAS_SCRIPT = spawnSync("script", ["--version"], { encoding: "utf8" }).status === 0;

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Runs the CLI on a 120x40 pseudo-terminal; stdout and stderr arrive interleaved in `output`. */
export function runInTerminal(args: string[], options: RunOptions = {}): { status: number | null; output: string } {
  const command = `stty cols 120 rows 40; exec ${[process.execPath, BIN, ...args].map(shellQuote).join(" ")}`;
  const result = spawnSync("script", ["-qec", command, "/dev/null"], {
    encoding: "utf8",
    env: childEnv(options.env),
    cwd: options.cwd,
    input: "",
    timeout: 25_000,
  });
  if (result.error) throw result.error;
  return { status: result.status, output: result.stdout };
}

// ---------------------------------------------------------------------------------------------
// Temp dirs, removed after each test file (test/support/remove-temp-dirs.ts: with isolate off a module's own
// afterAll would run after the first file that loaded it only, and every later file's dirs stayed in /tmp)
// ---------------------------------------------------------------------------------------------

const created: string[] = [];

export function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "recover-cli-"));
  created.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of [installedBin, codeCacheHome]) if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
  installedBin = undefined;
  codeCacheHome = undefined;
  for (const dir of created.splice(0)) {
    // chmod 000 tests may leave unreadable entries behind; give them back before removing.
    try {
      restorePermissions(dir);
    } catch {
      /* best effort */
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function restorePermissions(dir: string): void {
  fs.chmodSync(dir, 0o700);
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    // chmod follows a symlink: it would change whatever the link points at, outside the temp dir.
    if (entry.isSymbolicLink()) continue;
    if (entry.isDirectory()) restorePermissions(p);
    else fs.chmodSync(p, 0o600);
  }
}

// ---------------------------------------------------------------------------------------------
// Assertions shared by the CLI tests
// ---------------------------------------------------------------------------------------------

/** A JavaScript stack frame as Node prints it ("    at fn (file:1:2)"), or Node's own crash banner. */
const STACK = /^\s+at \S|node:internal|^Node\.js v\d|^\s*\^\s*$|Unhandled 'error' event/m;

export function expectNoStack(text: string): void {
  expect(text).not.toMatch(STACK);
  expect(text).not.toMatch(/\b(TypeError|ReferenceError|RangeError|SyntaxError): /);
}

export function expectNoAnsi(text: string): void {
  expect(text).not.toMatch(/\u001b\[/);
}

/** stdout must be exactly one JSON document (plus its trailing newline): parse all of it. */
export function parseJsonDocument(stdout: string): Record<string, unknown> {
  expect(stdout.endsWith("\n"), `stdout ends with a newline: ${JSON.stringify(stdout.slice(-200))}`).toBe(true);
  expect(stdout.trimEnd().split("\n"), "one line of JSON").toHaveLength(1);
  let doc: unknown;
  expect(() => (doc = JSON.parse(stdout))).not.toThrow();
  expect(doc).toBeTypeOf("object");
  expect(Array.isArray(doc)).toBe(false);
  return doc as Record<string, unknown>;
}

/** stderr of a failed command: exactly one line, `recover: …`, no stack. */
export function expectOneLineError(result: RunResult, pattern?: RegExp): string {
  expectNoStack(result.stderr);
  const lines = result.stderr.split("\n").filter((l) => l.trim() !== "");
  expect(lines, `stderr: ${result.stderr}`).toHaveLength(1);
  expect(lines[0]).toMatch(/^recover: /);
  if (pattern) expect(lines[0]).toMatch(pattern);
  return lines[0]!;
}

/** A JSON error document: schemaVersion 1, tool, error {code, message}; nothing on stderr but (maybe) nothing. */
export function expectJsonError(result: RunResult, code?: string): { code: string; message: string } {
  const doc = parseJsonDocument(result.stdout);
  expect(Object.keys(doc)[0]).toBe("schemaVersion");
  expect(doc.schemaVersion).toBe(1);
  const error = doc.error as { code: string; message: string };
  expect(error).toEqual({ code: expect.any(String), message: expect.any(String) });
  expect(error.message.length).toBeGreaterThan(0);
  if (code) expect(error.code).toBe(code);
  expectNoStack(result.stderr);
  return error;
}

// ---------------------------------------------------------------------------------------------
// Byte snapshots: bad input must never be modified
// ---------------------------------------------------------------------------------------------

/** Every file under `target` (or `target` itself) with its bytes. */
export function snapshot(target: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const walk = (p: string) => {
    const stat = fs.statSync(p);
    if (stat.isDirectory()) for (const name of fs.readdirSync(p).sort()) walk(path.join(p, name));
    else files.set(p, fs.readFileSync(p));
  };
  walk(target);
  return files;
}

export function expectSameBytes(before: Map<string, Buffer>, after: Map<string, Buffer>): void {
  expect([...after.keys()]).toEqual([...before.keys()]);
  for (const [file, bytes] of before) expect(after.get(file)!.equals(bytes), `${file} changed`).toBe(true);
}
