// The built CLI (bin/recover) in a real pseudo-terminal of every size: python3's pty through test/support/pty-run.py,
// which types keys, resizes the terminal (TIOCSWINSZ: the kernel sends SIGWINCH), sends signals and closes the
// terminal, and reports the exit and every byte drawn. No mock of the terminal. A pty whose size was never set says
// 0 columns and 0 rows: the spinner must not draw there (ora counted Infinity lines to clear and looped), nor below
// one line's width, and stops when resized below that while it turns; the prompt works at every size; SIGTERM and
// SIGHUP end any command promptly (143, 129), at a prompt, while planning and while writing, without a half-written
// store or a lock left behind; a terminal closed at the prompt or while the spinner turns ends the process. Each run
// is bounded: a regression fails at the driver's timeout (the process SIGKILLed), and whatever a failed test left
// running is SIGKILLed when it ends (onTestFinished: the afterEach of tests that run side by side).
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it, type TestContext } from "vitest";
import { BIN, childEnv, expectSameBytes, parseJsonDocument, run, snapshot, tempDir } from "./run.js";

const DRIVER = path.resolve("test/support/pty-run.py");
const HAS_PYTHON = spawnSync("python3", ["-c", "import pty, termios, fcntl"]).status === 0;

const DEMO = path.resolve("fixtures/demo/claude");
const PROJECT = "projects/-home-dana-code-invoice-api";
/** fixtures/TRANSCRIPTS.md #2: a Bash call killed before its result (tool-result-missing); repair adds the result. */
const DAMAGED = "b08bc1fc-ecb5-4fcd-bd28-85ebd0cfb5cf";
/** #1: healthy, the largest demo transcript: many copies of it make planning and scanning take a while. */
const HEALTHY = "22c38aa4-62b1-46f6-ba13-62cb64e0791c";

type Size = [rows: number, columns: number] | null;

/** Every size the issue names; null is a pty whose size was never set (0x0). */
const SIZES: [string, Size][] = [
  ["0x0 (never set)", null],
  ["0 columns", [24, 0]],
  ["0 rows", [0, 100]],
  ["1 column", [24, 1]],
  ["24x100", [24, 100]],
];

type Step =
  | { wait: string; timeout?: number; squash?: boolean }
  | { waitPath: string; timeout?: number }
  | { sleep: number }
  | { send: string; interval?: number }
  | { resize: [number, number] }
  | { signal: "TERM" | "HUP" }
  | { close: true };

interface PtyRun {
  pid: number;
  status: number | null;
  signal: string | null;
  timedOut: boolean;
  failedStep: number | null;
  bytes: number;
  output: string;
  /** [ms since the start, what happened, bytes of output read by then] */
  events: [number, string, number][];
}

// ---------------------------------------------------------------------------------------------
// Stores: throw-away copies, last written an hour ago (a fresh copy would look like a running agent's)
// ---------------------------------------------------------------------------------------------

interface StoreCopy {
  dir: string;
  store: string;
  backups: string;
  stateHome: string;
  lock: string;
}

const templates = new Map<string, string>();

/** The demo store plus `copies` copies of one of its sessions under new ids (none: the demo store as it is). */
function template(copies = 0, of = HEALTHY): string {
  const key = `${copies}:${of}`;
  let dir = templates.get(key);
  if (dir === undefined) {
    dir = path.join(tempDir(), "claude");
    fs.cpSync(DEMO, dir, { recursive: true });
    const text = fs.readFileSync(path.join(dir, PROJECT, `${of}.jsonl`), "utf8");
    for (let i = 0; i < copies; i++) {
      const id = `${of.slice(0, 8)}-0000-4000-8000-${String(i).padStart(12, "0")}`;
      fs.writeFileSync(path.join(dir, PROJECT, `${id}.jsonl`), text.split(of).join(id));
    }
    templates.set(key, dir);
  }
  return dir;
}

function copyOf(source: string): StoreCopy {
  const dir = tempDir();
  const store = path.join(dir, "claude");
  fs.cpSync(source, store, { recursive: true });
  const hourAgo = new Date(Date.now() - 3_600_000);
  for (const rel of fs.readdirSync(store, { recursive: true }) as string[]) fs.utimesSync(path.join(store, rel), hourAgo, hourAgo);
  return { dir, store, backups: path.join(dir, "backups"), stateHome: path.join(dir, "state"), lock: path.join(store, ".recover.lock") };
}

/** Each session's findings (`id rule`), sorted, as a scan of the store reports them. */
async function findings(copy: StoreCopy): Promise<string[]> {
  const scanned = await run(["session", "scan", "--all", "--json", "--store", copy.store], { env: { XDG_STATE_HOME: copy.stateHome } });
  const doc = parseJsonDocument(scanned.stdout) as { sessions: { id: string; findings: { rule: string }[] }[] };
  return doc.sessions.flatMap((s) => s.findings.map((f) => `${s.id} ${f.rule}`)).sort();
}

// ---------------------------------------------------------------------------------------------
// The terminal
// ---------------------------------------------------------------------------------------------

/**
 * `recover <args> --store <copy> --backup-dir …` at a terminal of `size`, driven by `steps`. Whatever is still running
 * when the test ends (a driver that did not finish, the command it started) is SIGKILLed then: `test` is the test's
 * context, whose onTestFinished is the concurrent tests' afterEach.
 */
function inTerminal(
  test: TestContext,
  args: string[],
  copy: StoreCopy,
  size: Size,
  steps: Step[] = [],
  timeout = 8,
  options: { stderrTo?: string; home?: string } = {},
): Promise<PtyRun> {
  // `home`: no --store, every agent's store found under that HOME.
  const store = options.home === undefined ? ["--store", copy.store] : [];
  const command = [process.execPath, BIN, ...args, ...store, "--backup-dir", copy.backups];
  const home =
    options.home === undefined
      ? {}
      : { HOME: options.home, XDG_DATA_HOME: undefined, CLAUDE_CONFIG_DIR: undefined, CODEX_HOME: undefined, OPENCODE_DB: undefined };
  const spec = {
    // `2>file`, as a shell would do it: stdin and stdout stay the terminal.
    argv: options.stderrTo === undefined ? command : ["sh", "-c", 'exec "$@" 2>"$0"', options.stderrTo, ...command],
    // A person's terminal: colours and the spinner allowed (no CI, no NO_COLOR); state and backups in the temp dir.
    // One scan thread: a scan of many sessions takes long enough to be resized while it runs.
    env: childEnv({ CI: undefined, NO_COLOR: undefined, TERM: "xterm-256color", XDG_STATE_HOME: copy.stateHome, RECOVER_SCAN_THREADS: "1", ...home }),
    cwd: copy.dir,
    size,
    timeout,
    steps,
  };
  const live = new Set<number>();
  test.onTestFinished(() => {
    for (const pid of live) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        /* gone already */
      }
    }
  });
  return new Promise((resolve, reject) => {
    const driver = spawn("python3", [DRIVER], { stdio: ["pipe", "pipe", "pipe"] });
    live.add(driver.pid!);
    let stdout = "";
    let stderr = "";
    driver.stdout.setEncoding("utf8");
    driver.stderr.setEncoding("utf8");
    driver.stdout.on("data", (chunk: string) => (stdout += chunk));
    driver.stderr.on("data", (chunk: string) => {
      stderr += chunk;
      const pid = /^pid (\d+)$/m.exec(stderr);
      if (pid) live.add(Number(pid[1]));
    });
    driver.on("error", reject);
    driver.on("close", () => {
      // The driver waited for its command (and SIGKILLed it at the timeout): neither is there to kill any more.
      live.clear();
      try {
        resolve(JSON.parse(stdout) as PtyRun);
      } catch {
        reject(new Error(`pty-run.py failed: ${stderr}`));
      }
    });
    driver.stdin.end(JSON.stringify(spec));
  });
}

const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[@-Z\\-_]/g;
/** What a person reads: escape codes removed, lines as \n. */
const plain = (output: string) => output.replace(ANSI, "").replace(/\r\n/g, "\n");
/** Without any white space: a 1-column terminal puts each character on a line of its own. */
const squashed = (output: string) => plain(output).replace(/\s+/g, "");
/** A cursor movement up (CSI n A), which erases or redraws lines above. */
const CURSOR_UP = /\x1b\[\d*A/;
/** No more than a screenful or two of the run's own output: a spinner that loops writes megabytes a second. */
const MAX_BYTES = 64 * 1024;

/** A run that ended on its own: not SIGKILLed at the driver's timeout, every step carried out, no runaway output. */
function expectEnded(r: PtyRun, maxBytes = MAX_BYTES): void {
  expect(r.timedOut, `still running at the timeout; ${r.bytes} bytes, ending ${JSON.stringify(r.output.slice(-300))}`).toBe(false);
  expect(r.failedStep, `a step waited in vain: ${JSON.stringify(r.events)} ${JSON.stringify(plain(r.output).slice(-600))}`).toBeNull();
  expect(r.bytes).toBeLessThan(maxBytes);
}

/** Milliseconds from the first event named `what` to the process's exit. */
function msFrom(r: PtyRun, what: string): number {
  const at = (name: string) => r.events.find(([, e]) => e === name)?.[0];
  return at("exit")! - at(what)!;
}

/** The cursor a spinner or a prompt hid is shown again. */
function expectCursorShown(output: string): void {
  const hidden = output.lastIndexOf("\x1b[?25l");
  if (hidden >= 0) expect(output.indexOf("\x1b[?25h", hidden), "the cursor is shown again").toBeGreaterThan(hidden);
}

const PROMPT = { wait: "\\(y/N\\)", squash: true, timeout: 6 } as const;

/** Smaller sizes a terminal is resized to while the spinner turns or the prompt waits. */
const SMALLER: [string, [number, number]][] = [
  ["0 columns", [24, 0]],
  ["1 column", [24, 1]],
  ["0x0", [0, 0]],
];

describe.skipIf(!HAS_PYTHON)("a real terminal of any size", () => {
  beforeAll(() => {
    template(600, HEALTHY);
    template(200, DAMAGED);
  });

  // Not timed: these run side by side.
  describe.concurrent.each(SIZES)("at %s", (_, size) => {
    it("session scan --all prints its findings and ends; no spinner loop, never a line above erased", async (test) => {
      const copy = copyOf(template());
      const r = await inTerminal(test, ["session", "scan", "--all"], copy, size);
      expectEnded(r);
      expect(r.status, plain(r.output)).toBe(1);
      expect(squashed(r.output)).toContain("tool-result-missing");
      expect(squashed(r.output)).toContain("orphan-tool-result");
      expect(r.output).not.toMatch(CURSOR_UP);
      expectCursorShown(r.output);
    });

    // 0x0, 0 rows and 24x100 answer yes, the others no: both answers with a spinner before the prompt and without.
    const yes = size === null || size[0] === 0 || size[1] === 100;
    it(`session repair <id>: the prompt waits, and "${yes ? "y" : "n"}" typed at 50 ms answers it`, async (test) => {
      const copy = copyOf(template());
      const before = snapshot(copy.store);
      const r = await inTerminal(test, ["session", "repair", DAMAGED], copy, size, [PROMPT, { send: yes ? "y\r" : "n\r", interval: 0.05 }]);
      expectEnded(r);
      expect(fs.existsSync(copy.lock), "the store's lock is released").toBe(false);
      expectCursorShown(r.output);
      if (yes) {
        expect(r.status, plain(r.output)).toBe(0);
        expect(await findings(copy)).not.toContain(`${DAMAGED} tool-result-missing`);
        expect(fs.readdirSync(copy.backups)).toHaveLength(1);
      } else {
        expect(r.status, plain(r.output)).toBe(1);
        expect(squashed(r.output)).toContain("notconfirmed;nothingwaschanged");
        expectSameBytes(before, snapshot(copy.store));
      }
    });
  });

  describe.concurrent.each([
    ["0x0 (never set)", null],
    ["1 column", [24, 1]],
  ] as [string, Size][])("the session picker at %s", (_, size) => {
    it("typing narrows the list and Enter picks: the dry run of the session picked", async (test) => {
      const copy = copyOf(template());
      const steps: Step[] = [{ wait: "Whichsessiontorepair\\?", squash: true }, { send: "prisma", interval: 0.05 }, { sleep: 0.3 }, { send: "\r" }];
      const r = await inTerminal(test, ["session", "repair", "--dry-run"], copy, size, steps);
      // At 1 column every line of the list is drawn a character a line, at each key.
      expectEnded(r, 256 * 1024);
      expect(r.status, plain(r.output).slice(-1000)).toBe(1);
      expect(squashed(r.output)).toContain(`+++b/${DAMAGED}/`);
    });
  });

  it("with no store named and two agents' stores found, one list of both, and the one picked is repaired", async (test) => {
    const copy = copyOf(template());
    // HOME holds the copy as ~/.claude and the demo Codex store as ~/.codex.
    const home = path.join(copy.dir, "home");
    fs.mkdirSync(home);
    fs.symlinkSync(copy.store, path.join(home, ".claude"));
    fs.cpSync(path.resolve("fixtures/demo/codex"), path.join(home, ".codex"), { recursive: true });
    const steps: Step[] = [{ wait: "Whichsessiontorepair\\?", squash: true }, { send: "prisma", interval: 0.05 }, { sleep: 0.3 }, { send: "\r" }];
    const r = await inTerminal(test, ["session", "repair", "--dry-run"], copy, [24, 160], steps, 10, { home });
    expectEnded(r);
    expect(r.status, plain(r.output).slice(-1000)).toBe(1);
    expect(plain(r.output)).toMatch(/codex +Run `echo hi`/);
    expect(squashed(r.output)).toContain(`+++b/${DAMAGED}/`);
  });

  it.for([
    ["the y/N prompt", "repair"],
    ["the picker", "pick"],
  ])("--no-color reaches %s: no colour code is drawn", async ([, what], test) => {
    const copy = copyOf(template());
    const steps: Step[] =
      what === "repair"
        ? [PROMPT, { send: "n\r", interval: 0.05 }]
        : [{ wait: "Whichsessiontorepair\\?", squash: true }, { send: "prisma", interval: 0.05 }, { sleep: 0.3 }, { send: "\r" }];
    const args = what === "repair" ? ["session", "repair", DAMAGED, "--no-color"] : ["session", "repair", "--dry-run", "--no-color"];
    const r = await inTerminal(test, args, copy, [24, 100], steps);
    expectEnded(r);
    expect(r.status, plain(r.output)).toBe(1);
    // Select Graphic Rendition (colour, bold, dim): none; cursor movement is not colour.
    expect(r.output).not.toMatch(/\x1b\[[0-9;]*m/);
  });

  it("explain - with nothing piped in says how to end the text, then reads it", async (test) => {
    const copy = copyOf(template());
    const steps: Step[] = [{ wait: "Ctrl-D" }, { send: "prompt is too long: 212345 tokens > 200000 maximum\r", interval: 0.01 }, { send: "\x04" }];
    const r = await inTerminal(test, ["explain", "-"], copy, [24, 100], steps);
    expectEnded(r);
    expect(r.status, plain(r.output)).toBe(0);
    expect(plain(r.output)).toContain("paste the error text, then press Ctrl-D on a line of its own:");
    expect(plain(r.output)).toContain("context_overflow");
  });

  describe.concurrent.each(SMALLER)("resized to %s while the prompt waits", (_, smaller) => {
    it("the prompt still takes the answer", async (test) => {
      const copy = copyOf(template());
      const steps: Step[] = [PROMPT, { resize: smaller }, { sleep: 0.2 }, { send: "y\r", interval: 0.05 }];
      const r = await inTerminal(test, ["session", "repair", DAMAGED], copy, [24, 100], steps);
      expectEnded(r);
      expect(r.status, plain(r.output)).toBe(0);
      expect(await findings(copy)).not.toContain(`${DAMAGED} tool-result-missing`);
    });
  });

  it.for(SMALLER)("resized to %s while the spinner turns: it stops, the scan goes on to its findings, nothing above is erased", async ([, smaller], test) => {
    const copy = copyOf(template(600, HEALTHY));
    const steps: Step[] = [{ wait: "scanning [1-9]\\d*/6\\d\\d sessions" }, { resize: smaller }];
    const r = await inTerminal(test, ["session", "scan", "--all"], copy, [24, 100], steps, 15);
    expectEnded(r);
    expect(r.status, plain(r.output).slice(-2000)).toBe(1);
    expect(plain(r.output)).toContain("tool-result-missing");
    expect(r.output).not.toMatch(CURSOR_UP);
    expectCursorShown(r.output);
  });

  it.for([
    // Typed while the spinner turns: ora's stdin-discarder reads them.
    ["while the spinner turns (24x100)", [24, 100], { wait: "planning [1-9]\\d*/6\\d\\d sessions" }],
    // Typed as it starts, with no spinner: they wait in the terminal until inquirer reads and drops them.
    ["with no spinner (0x0)", null, { sleep: 0.05 }],
  ] as [string, Size, Step][])("keys typed ahead of the prompt %s do not answer it", async ([, size, when], test) => {
    const copy = copyOf(template(600, HEALTHY));
    const before = snapshot(copy.store);
    // "y", Enter, "y", Enter before the prompt; then, once it is there, "n", Enter.
    const steps: Step[] = [when, { send: "y\ry\r", interval: 0.05 }, PROMPT, { sleep: 0.3 }, { send: "n\r", interval: 0.05 }];
    const r = await inTerminal(test, ["session", "repair", "--all"], copy, size, steps, 15);
    expectEnded(r);
    expect(r.status, plain(r.output).slice(-1000)).toBe(1);
    expect(squashed(r.output)).toContain("notconfirmed;nothingwaschanged");
    expectSameBytes(before, snapshot(copy.store));
  });

  it("SIGTERM while planning: exit 143 at once, no prompt, the store untouched, the cursor back", async (test) => {
    const copy = copyOf(template(600, HEALTHY));
    const before = snapshot(copy.store);
    const steps: Step[] = [{ wait: "planning [1-9]\\d*/6\\d\\d sessions" }, { signal: "TERM" }];
    const r = await inTerminal(test, ["session", "repair", "--all"], copy, [24, 100], steps);
    expectEnded(r);
    expect(r.signal).toBeNull();
    expect(r.status, plain(r.output).slice(-1000)).toBe(143);
    expect(msFrom(r, "SIGTERM")).toBeLessThan(2000);
    expect(plain(r.output)).not.toContain("(y/N)");
    expect(plain(r.output)).toContain("recover: stopped by SIGTERM; nothing was changed");
    expectSameBytes(before, snapshot(copy.store));
    expectCursorShown(r.output);
  });

  it.for([
    ["SIGTERM", 143, "TERM"],
    ["SIGHUP", 129, "HUP"],
  ] as const)("%s at the prompt: exit %i, nothing changed, the lock released, the cursor back", async ([name, code, signal], test) => {
    const copy = copyOf(template());
    const before = snapshot(copy.store);
    const r = await inTerminal(test, ["session", "repair", DAMAGED], copy, [24, 100], [PROMPT, { sleep: 0.1 }, { signal }]);
    expectEnded(r);
    expect(r.signal).toBeNull();
    expect(r.status, plain(r.output)).toBe(code);
    expect(msFrom(r, name)).toBeLessThan(2000);
    expect(plain(r.output)).toContain(`recover: stopped by ${name}; nothing was changed`);
    expect(fs.existsSync(copy.lock), "the store's lock is released").toBe(false);
    expectSameBytes(before, snapshot(copy.store));
    expectCursorShown(r.output);
  });

  it("SIGTERM while writing: the write finishes whole, then exit 143; the lock released", async (test) => {
    const copy = copyOf(template(200, DAMAGED));
    // The backup is the transaction's first step: the signal comes while it backs up and applies 200 sessions.
    const steps: Step[] = [{ waitPath: path.join(copy.backups, "*"), timeout: 10 }, { signal: "TERM" }];
    const r = await inTerminal(test, ["session", "repair", "--all", "--yes", "--json"], copy, [24, 100], steps, 20);
    // The JSON document of 200 repaired sessions is the output.
    expectEnded(r, 1024 * 1024);
    expect(r.signal).toBeNull();
    expect(r.status, plain(r.output).slice(-1000)).toBe(143);
    expect(fs.existsSync(copy.lock), "the store's lock is released").toBe(false);
    const left = await findings(copy);
    expect(left.filter((f) => f.endsWith(" tool-result-missing"))).toEqual([]);
    // The next run finds nothing to settle or fix: the store was repaired whole.
    const again = await run(["session", "repair", "--all", "--yes", "--json", "--store", copy.store, "--backup-dir", copy.backups], {
      env: { XDG_STATE_HOME: copy.stateHome },
    });
    const doc = parseJsonDocument(again.stdout) as { store: { notices: string[] }; sessions: { changes: unknown[] }[] };
    expect(doc.store.notices).toEqual([]);
    expect(doc.sessions.flatMap((s) => s.changes)).toEqual([]);
  });

  it("the terminal closed at the prompt: the process ends (129), nothing changed, the lock released", async (test) => {
    const copy = copyOf(template());
    const before = snapshot(copy.store);
    const r = await inTerminal(test, ["session", "repair", DAMAGED], copy, [24, 100], [PROMPT, { sleep: 0.1 }, { close: true }]);
    expectEnded(r);
    expect(r.signal, "not a crash (SIGABRT) nor killed").toBeNull();
    expect(r.status).toBe(129);
    expect(msFrom(r, "closed")).toBeLessThan(2000);
    expect(fs.existsSync(copy.lock), "the store's lock is released").toBe(false);
    expectSameBytes(before, snapshot(copy.store));
  });

  it("stderr redirected (2>file): no prompt nobody can see; the repair refuses at once without --yes (exit 2)", async (test) => {
    const copy = copyOf(template());
    const before = snapshot(copy.store);
    const errors = path.join(copy.dir, "errors.txt");
    const r = await inTerminal(test, ["session", "repair", DAMAGED], copy, [24, 100], [], 8, { stderrTo: errors });
    expectEnded(r);
    expect(r.status, fs.readFileSync(errors, "utf8")).toBe(2);
    expect(fs.readFileSync(errors, "utf8")).toMatch(/refusing to change .* without --yes \(no terminal to ask; nothing was changed\)/);
    expectSameBytes(before, snapshot(copy.store));
  });

  it("the terminal closed while the spinner turns: the process ends (129), nothing changed", async (test) => {
    const copy = copyOf(template(600, HEALTHY));
    const before = snapshot(copy.store);
    const steps: Step[] = [{ wait: "planning [1-9]\\d*/6\\d\\d sessions" }, { close: true }];
    const r = await inTerminal(test, ["session", "repair", "--all"], copy, [24, 100], steps);
    expectEnded(r);
    expect(r.signal, "not a crash (SIGABRT) nor killed").toBeNull();
    expect(r.status).toBe(129);
    expect(msFrom(r, "closed")).toBeLessThan(2000);
    expectSameBytes(before, snapshot(copy.store));
  });
});
