// The promises of the Trust issue, each checked through the built CLI on real copies of the demo stores:
// a forced --format never writes a store of another kind, a store of nothing is not green, a printed command
// works when pasted, and exit codes survive a closed pipe and a Ctrl-C at the prompt.
import { spawnSync } from "node:child_process";
import Database from "better-sqlite3";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { RecoverError } from "../../src/errors.js";
import { openStore } from "../../src/stores/discover.js";
import { runAsync } from "../battle/run-async.js";
import { recentBrokenStore, runInTerminalAnswering, sqliteRows, writeTestStore } from "./repair-support.js";
import {
  BIN,
  childEnv,
  expectOneLineError,
  expectSameBytes,
  HAS_SCRIPT,
  parseJsonDocument,
  run,
  runWithClosedStdout,
  paste,
  snapshot,
  tempDir,
  type RunResult,
} from "./run.js";

const DEMO = path.resolve("fixtures/demo");
type Kind = "opencode-sqlite" | "opencode-json" | "claude" | "openclaw";
const FORMATS: Kind[] = ["opencode-sqlite", "opencode-json", "claude", "openclaw"];

/** A copy of each demo store, and the paths by which --store names it (a data dir, the db file itself, …). */
function demoCopies(): Record<Kind, { root: string; forms: string[] }> {
  const dir = tempDir();
  const copy = (from: string, to: string) => {
    fs.cpSync(path.join(DEMO, from), path.join(dir, to), { recursive: true });
    return path.join(dir, to);
  };
  const sqlite = copy("opencode", "opencode data");
  const json = copy("opencode-legacy", "legacy");
  const claude = copy("claude", "claude");
  const openclaw = copy("openclaw", "openclaw");
  const project = path.join(claude, "projects", fs.readdirSync(path.join(claude, "projects"))[0]!);
  const sessions = path.join(openclaw, "agents", "main", "sessions");
  return {
    "opencode-sqlite": { root: sqlite, forms: [sqlite, path.join(sqlite, "opencode.db")] },
    "opencode-json": { root: json, forms: [json, path.join(json, "storage")] },
    claude: { root: claude, forms: [claude, project, path.join(project, fs.readdirSync(project).find((f) => f.endsWith(".jsonl"))!)] },
    openclaw: { root: openclaw, forms: [openclaw, sessions, path.join(sessions, fs.readdirSync(sessions).find((f) => f.endsWith(".jsonl"))!)] },
  };
}

/** How a refusal names what is really at the path, per kind of store. */
const SAYS: Record<Kind, RegExp> = {
  "opencode-sqlite": /SQLite database|opencode data dir/,
  "opencode-json": /opencode JSON tree/,
  claude: /Claude Code/,
  openclaw: /openclaw/,
};

/** Every command that opens a store, read-only or not (context trim and explain need a session id: any will do). */
const COMMANDS: string[][] = [
  ["session", "list"],
  ["session", "scan", "--all"],
  ["session", "repair", "--all", "--dry-run"],
  ["session", "repair", "--all", "--yes", "--force"],
  ["context", "trim", "x", "--yes", "--force"],
  ["explain", "messages.1: text content blocks must be non-empty", "--session", "x"],
];

describe("a forced --format that does not match what is on disk is refused, and nothing is written", () => {
  it("every format × every store kind and every --store form of it: openStore refuses, naming what is there", () => {
    const stores = demoCopies();
    let pairs = 0;
    for (const kind of FORMATS) {
      for (const store of stores[kind].forms) {
        for (const format of FORMATS.filter((f) => f !== kind)) {
          let caught: unknown;
          try {
            openStore({ store, format }).close();
          } catch (error) {
            caught = error;
          }
          expect(caught, `${store} --format ${format}`).toBeInstanceOf(RecoverError);
          expect((caught as RecoverError).code).toBe("not-a-store");
          expect((caught as RecoverError).message).toMatch(SAYS[kind]);
          pairs++;
        }
      }
    }
    expect(pairs).toBe(10 * 3);
  });

  it("every command through the built CLI: exit 2, one line saying what is there, not a byte written", { timeout: 120_000 }, async () => {
    const stores = demoCopies();
    const env = { XDG_STATE_HOME: tempDir() };
    const before = new Map(FORMATS.map((k) => [k, snapshot(stores[k].root)]));
    const planned: { args: string[]; kind: Kind }[] = [];
    for (const kind of FORMATS) {
      // The write that used to leave opencode.db at 0 bytes, for every kind × every other format.
      for (const format of FORMATS.filter((f) => f !== kind))
        planned.push({ args: ["session", "repair", "--all", "--yes", "--force", "--store", stores[kind].root, "--format", format], kind });
    }
    // Every other command on the issue's own pair (a database forced to claude) and on a transcript store forced to opencode.
    for (const [kind, format] of [
      ["opencode-sqlite", "claude"],
      ["claude", "opencode-json"],
    ] as const) {
      for (const command of COMMANDS) planned.push({ args: [...command, "--store", stores[kind].forms.at(-1)!, "--format", format], kind });
    }
    const results: { label: string; result: RunResult; kind: Kind }[] = [];
    for (let i = 0; i < planned.length; i += 4) {
      const batch = planned.slice(i, i + 4).map(({ args, kind }) => runAsync(args, { env }).then((result) => ({ label: args.join(" "), result, kind })));
      results.push(...(await Promise.all(batch)));
    }
    for (const { label, result, kind } of results) {
      expect(result.status, `${label}\n${result.stderr}`).toBe(2);
      expect(expectOneLineError(result, /--format \S+: .* is (a|an) .*, not an? /), label).toMatch(SAYS[kind]);
      expect(result.stdout, label).toBe("");
    }
    for (const kind of FORMATS) expectSameBytes(before.get(kind)!, snapshot(stores[kind].root));
  });

  it("the matching format still opens every form of each store, and finds its sessions", () => {
    const stores = demoCopies();
    for (const kind of FORMATS) {
      for (const store of stores[kind].forms) {
        const opened = openStore({ store, format: kind });
        expect(opened.info.format).toBe(kind);
        expect(opened.listSessions().length, store).toBeGreaterThan(0);
        opened.close();
      }
    }
  });

  it("a SQLite database named .jsonl is no transcript, with or without --format", async () => {
    const dir = tempDir();
    const fake = path.join(dir, "0b5c7a2e-0000-4000-8000-000000000000.jsonl");
    fs.copyFileSync(path.join(DEMO, "opencode", "opencode.db"), fake);
    const before = fs.readFileSync(fake);
    const forced = await run(["session", "repair", "--all", "--yes", "--store", fake, "--format", "claude"], { env: { XDG_STATE_HOME: tempDir() } });
    expect(forced.status).toBe(2);
    expectOneLineError(forced, /is a SQLite database, not a Claude Code store/);
    // Unforced, it is what its bytes say: an opencode database (read-only here).
    const detected = await run(["session", "list", "--json", "--store", fake]);
    expect(detected.status, detected.stderr).toBe(0);
    expect((parseJsonDocument(detected.stdout).store as { format: string }).format).toBe("opencode-sqlite");
    expect(fs.readFileSync(fake).equals(before)).toBe(true);
  });

  it("restore into a store of another kind is refused before anything is written", async () => {
    const stores = demoCopies();
    const state = tempDir();
    const env = { XDG_STATE_HOME: state };
    const repaired = await run(["session", "repair", "--all", "--yes", "--force", "--json", "--store", stores["opencode-sqlite"].root], { env });
    const backup = (parseJsonDocument(repaired.stdout).backup as { id: string }).id;
    const before = snapshot(stores.claude.root);
    const r = await run(["session", "restore", backup, "--yes", "--force", "--store", stores.claude.root], { env });
    expect(r.status).toBe(2);
    expectOneLineError(r, /backup \S+ was taken from a store of format opencode-sqlite; .* is claude/);
    expectSameBytes(before, snapshot(stores.claude.root));
  });
});

describe("a store that holds no session of the named format is not-a-store (exit 2), never green", () => {
  it("an empty folder, with or without --format, for scan (and list and repair)", async () => {
    const empty = tempDir();
    const scans = [undefined, ...FORMATS].map((format) => ["session", "scan", "--all", "--store", empty, ...(format ? ["--format", format] : []), "--json"]);
    const others = [
      ["session", "list", "--format", "claude"],
      ["session", "repair", "--all", "--yes", "--format", "openclaw"],
    ].map((c) => [...c, "--store", empty, "--json"]);
    const runs = [...scans, ...others].map((args) => runAsync(args));
    for (const r of await Promise.all(runs)) {
      expect(r.status, r.stdout).toBe(2);
      expect((parseJsonDocument(r.stdout).error as { code: string }).code).toBe("not-a-store");
    }
  });

  it("a Claude Code config dir whose projects/ holds no transcript, and an openclaw state dir without sessions", async () => {
    const claude = tempDir();
    fs.mkdirSync(path.join(claude, "projects", "-home-dana-x"), { recursive: true });
    const openclaw = tempDir();
    fs.mkdirSync(path.join(openclaw, "agents", "main", "sessions"), { recursive: true });
    for (const [store, format, says] of [
      [claude, "claude", /holds no Claude Code transcripts/],
      [openclaw, "openclaw", /holds no openclaw transcripts/],
    ] as const) {
      for (const forced of [[], ["--format", format]]) {
        const r = await run(["session", "scan", "--all", "--store", store, ...forced]);
        expect(r.status).toBe(2);
        expectOneLineError(r, says);
      }
    }
  });

  it("an opencode database without sessions is still a store: it lists none and exits 0", async () => {
    const dir = tempDir();
    const db = path.join(dir, "opencode.db");
    fs.copyFileSync(path.join(DEMO, "opencode", "opencode.db"), db);
    emptyDatabase(db);
    const r = await run(["session", "scan", "--all", "--store", dir]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/no findings in 0 sessions/);
  });
});

describe("a transcript most of whose lines cannot be read is not rewritten without --force", () => {
  it("a log saved as .jsonl in a project: repair is refused (exit 3, file unchanged); --force repairs it", async () => {
    const claude = path.join(tempDir(), "claude");
    fs.cpSync(path.join(DEMO, "claude"), claude, { recursive: true });
    const project = path.join(claude, "projects", fs.readdirSync(path.join(claude, "projects"))[0]!);
    const healthy = fs.readFileSync(path.join(project, fs.readdirSync(project).find((f) => f.endsWith(".jsonl"))!), "utf8").split("\n");
    const file = path.join(project, "aaaa1111-2222-3333-4444-555566667777.jsonl");
    const lines = [...healthy.slice(0, 2), ...Array.from({ length: 10 }, (_, i) => `2026-11-20 12:00:0${i} INFO build step ${i} done`)];
    fs.writeFileSync(file, `${lines.join("\n")}\n`);
    const old = new Date(Date.now() - 3_600_000);
    fs.utimesSync(file, old, old);
    const before = fs.readFileSync(file);
    const env = { XDG_STATE_HOME: tempDir() };
    const refused = await run(["session", "repair", "aaaa1111", "--yes", "--store", claude], { env });
    expect(refused.status).toBe(3);
    expectOneLineError(
      refused,
      /10 of 12 lines cannot be read as records, so this is not a damaged transcript but something else; nothing was changed \(--force rewrites it anyway\)/,
    );
    expect(fs.readFileSync(file).equals(before)).toBe(true);
    // A dry run still shows what would happen; --force does it.
    expect((await run(["session", "repair", "aaaa1111", "--dry-run", "--store", claude], { env })).status).toBe(1);
    const forced = await run(["session", "repair", "aaaa1111", "--yes", "--force", "--store", claude], { env });
    expect(forced.status, forced.stderr).toBe(0);
    expect(fs.readFileSync(file).equals(before)).toBe(false);
  });
});

/** An opencode database with its tables and no rows (a fresh install). */
function emptyDatabase(db: string): void {
  const sqlite = new Database(db);
  sqlite.pragma("foreign_keys = OFF");
  for (const table of ["part", "message", "session"]) sqlite.prepare(`DELETE FROM ${table}`).run();
  sqlite.close();
}

/** Paste a printed command into a shell, as a user does. */
describe("every command recover prints for the user works when pasted, on the store that was scanned", () => {
  /** A copy in a folder whose name needs quoting, and a different "live" store where opencode would look by default. */
  function scannedAndLive() {
    const dir = tempDir();
    const store = path.join(dir, "dana's copy", "opencode");
    fs.cpSync(path.join(DEMO, "opencode"), store, { recursive: true });
    // The live store is opencode's own database with none of the copy's sessions: a command that lost --store
    // and fell back to it finds nothing (or changes the wrong store, which the tests check too).
    const data = tempDir();
    fs.cpSync(path.join(DEMO, "opencode"), path.join(data, "opencode"), { recursive: true });
    emptyDatabase(path.join(data, "opencode", "opencode.db"));
    const backups = path.join(dir, "my backups");
    return { store, backups, env: { XDG_STATE_HOME: tempDir(), XDG_DATA_HOME: data }, live: path.join(data, "opencode") };
  }

  it("scan's → hints and repair's undo with: carry --store, --format and --backup-dir, shell-quoted", async () => {
    const { store, backups, env, live } = scannedAndLive();
    const liveBefore = snapshot(live);
    const scan = await run(["session", "scan", "--all", "--store", store, "--format", "opencode-sqlite", "--backup-dir", backups], { env });
    expect(scan.status).toBe(1);
    // One command per session fixes all its findings a repair fixes (issue 37: one command fixes a session).
    const hints = [...scan.stdout.matchAll(/^ {2}→ (recover session repair \S+ .*)$/gm)].map((m) => m[1]!);
    expect(hints.length).toBeGreaterThan(3);
    for (const hint of hints) expect(hint).toMatch(/ --store '[^']*dana'\\''s copy\/opencode' --format opencode-sqlite --backup-dir '.*my backups'$/);
    const db = path.join(store, "opencode.db");
    const storeBefore = sqliteRows(db);
    const repaired = paste(`${hints[0]} --yes --force`, { env });
    expect(repaired.status, repaired.stderr).toBe(0);
    expect(sqliteRows(db)).not.toEqual(storeBefore);
    const undo = /^undo with: (.*)$/m.exec(repaired.stdout)?.[1];
    expect(undo).toMatch(/^recover session restore \S+ --store .* --backup-dir '.*my backups'$/);
    expect(fs.readdirSync(backups).length).toBe(1);
    const restored = paste(`${undo} --yes`, { env });
    expect(restored.status, restored.stderr).toBe(0);
    expect(sqliteRows(db)).toEqual(storeBefore);
    // The default (live) store was never touched by any pasted command.
    expectSameBytes(liveBefore, snapshot(live));
  });

  it("an unknown id's error names the list command for the same store", async () => {
    const { store, env } = scannedAndLive();
    const r = await run(["session", "scan", "nope", "--store", store], { env });
    const hint = /run `(.*)` to see them/.exec(expectOneLineError(r, /no session nope in this store/))?.[1];
    const listed = paste(hint!, { env });
    expect(listed.status, listed.stderr).toBe(0);
    expect(listed.stdout).toContain("ses_e1743f57fffeMI01W2B0cSdrJl");
  });

  it("a store path too long to show or holding a newline: the hints are printed whole and work pasted (bash)", async () => {
    const { env } = scannedAndLive();
    const bash = (command: string) => spawnSync("bash", ["-c", command], { encoding: "utf8", env: childEnv(env) });
    const deep = path.join(tempDir(), ...Array.from({ length: 12 }, (_, i) => `project-folder-number-${i}`), "claude");
    const odd = path.join(tempDir(), "two\nlines", "claude");
    for (const store of [deep, odd]) {
      fs.cpSync(path.join(DEMO, "claude"), store, { recursive: true });
      const scan = await run(["session", "scan", "--all", "--store", store], { env });
      expect(scan.status).toBe(1);
      const hint = /^ {2}→ (recover session repair \S+ --store .*)$/m.exec(scan.stdout)?.[1];
      // Never shortened (…) and never a raw control character: the newline is bash's $'\n' escape.
      expect(hint).not.toContain("…");
      expect(hint).toContain(store === deep ? `--store ${deep}` : `--store $'${odd.replace("\n", "\\x0a")}'`);
      const dry = bash(`${hint} --dry-run`);
      expect(dry.status, dry.stderr).toBe(1);
      expect(dry.stdout).toMatch(/^--- a\/49f222e2-5335-4906-bd25-0b1539855e0e\/line-1$/m);
      // An error's next step, the same.
      const unknown = await run(["session", "scan", "nope", "--store", store], { env });
      const list = /run `(.*)` to see them/.exec(expectOneLineError(unknown, /no session nope in this store/))?.[1];
      expect(list).not.toContain("…");
      const listed = bash(list!);
      expect(listed.status, listed.stderr).toBe(0);
      expect(listed.stdout).toContain("49f222e2-5335-4906-bd25-0b1539855e0e");
    }
    expect(deep.length).toBeGreaterThan(300);
  });

  it("explain's fix: repairs the session of the store it was pointed at, reading the error the same way", async () => {
    const { store, env, live } = scannedAndLive();
    const liveBefore = snapshot(live);
    const error = "messages.1.content.0: text content blocks must be non-empty";
    const scan = parseJsonDocument((await run(["session", "scan", "--all", "--json", "--store", store], { env })).stdout);
    const empty = (scan.sessions as { id: string; findings: { rule: string }[] }[]).find((s) => s.findings.some((f) => f.rule === "empty-text-part"))!;
    const explained = await run(["explain", error, "--session", empty.id, "--store", store], { env });
    const fix = /^fix: +(.*)$/m.exec(explained.stdout)?.[1];
    expect(fix).toBe(`recover session repair ${empty.id} --error '${error}' --store '${store.replace(/'/g, `'\\''`)}'`);
    const before = sqliteRows(path.join(store, "opencode.db"));
    const r = paste(`${fix} --yes --force`, { env });
    expect([0, 1], r.stderr).toContain(r.status);
    expect(sqliteRows(path.join(store, "opencode.db"))).not.toEqual(before);
    expectSameBytes(liveBefore, snapshot(live));
  });

  it("without recover on PATH (npm start), the hints start with node bin/recover and work from the same folder", () => {
    const { store, env } = scannedAndLive();
    const root = path.resolve(".");
    const noRecover = { ...env, PATH: process.env.PATH ?? "" };
    const bin = path.relative(root, BIN);
    const scan = spawnSync(process.execPath, [bin, "session", "scan", "--all", "--store", store], {
      encoding: "utf8",
      cwd: root,
      env: { ...childEnv(noRecover), PATH: process.env.PATH },
    });
    const hint = new RegExp(`→ (node ${bin.replace(/[.]/g, "\\.")} session repair \\S+ --rule \\S+ --store .*)$`, "m").exec(scan.stdout)?.[1];
    expect(hint, scan.stdout.slice(0, 2000)).toBeDefined();
    const r = spawnSync("sh", ["-c", `${hint} --dry-run`], { encoding: "utf8", cwd: root, env: { ...childEnv(noRecover), PATH: process.env.PATH } });
    expect(r.status, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/dry run: \d+ changes? in 1 session planned; nothing was written/);
  });

  it("demo:repair prints the commands it runs, with the store and backup dir, and its undo works when pasted", () => {
    const r = spawnSync(process.execPath, ["scripts/demo-repair.mjs"], { encoding: "utf8", env: childEnv({ PATH: process.env.PATH }) });
    expect(r.status, r.stderr).toBe(0);
    const commands = [...r.stdout.matchAll(/^\$ (node bin\/recover .*)$/gm)].map((m) => m[1]!);
    expect(commands).toHaveLength(4);
    for (const c of commands) expect(c).toMatch(/ --store \/\S+\/opencode --backup-dir \/\S+\/backups$/);
    const undo = /^undo with: (.*)$/m.exec(r.stdout)?.[1];
    expect(undo).toMatch(/^node bin\/recover session restore \S+ --store \/\S+\/opencode --backup-dir \/\S+\/backups$/);
    // The demo restored already: pasting its undo again finds the backup and says there is nothing left to do.
    const again = spawnSync("sh", ["-c", `${undo} --yes --dry-run`], { encoding: "utf8", env: childEnv({ PATH: process.env.PATH }) });
    expect(again.stderr).not.toMatch(/no backup|no such/);
    const work = /in (\/\S+); run these/.exec(r.stdout)?.[1];
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it("context trim without an id suggests what it accepts", async () => {
    const { store, env } = scannedAndLive();
    const r = await run(["context", "trim", "--store", store], { env });
    expect(r.status).toBe(2);
    const line = expectOneLineError(r, /give a session id or --last$/);
    expect(line).not.toMatch(/--all/);
    expect((await run(["context", "trim", "--last", "--dry-run", "--store", store], { env })).status).not.toBe(2);
  });
});

describe("exit codes that tell the truth", () => {
  it("a closed pipe (`scan | head -1`) keeps the exit code the scan decides", async () => {
    const store = path.join(tempDir(), "opencode");
    fs.cpSync(path.join(DEMO, "opencode"), store, { recursive: true });
    for (const extra of [[], ["--json"]]) {
      const unpiped = await run(["session", "scan", "--all", "--store", store, ...extra]);
      const piped = await runWithClosedStdout(["session", "scan", "--all", "--store", store, ...extra]);
      expect(unpiped.status).toBe(1);
      expect(piped.status).toBe(1);
      expect(piped.stderr).not.toMatch(/EPIPE|at \S+ \(/);
    }
  });

  it.runIf(HAS_SCRIPT)("Ctrl-C at the confirmation prompt exits 130 and changes nothing", async () => {
    const store = path.join(tempDir(), "opencode");
    fs.cpSync(path.join(DEMO, "opencode"), store, { recursive: true });
    const before = sqliteRows(path.join(store, "opencode.db"));
    const r = await runInTerminalAnswering(["session", "repair", "--all", "--force", "--store", store], "\u0003", { env: { XDG_STATE_HOME: tempDir() } });
    expect(r.prompted, r.output).toBe(true);
    expect(r.status).toBe(130);
    expect(r.output).toMatch(/recover: interrupted; nothing was changed/);
    expect(sqliteRows(path.join(store, "opencode.db"))).toEqual(before);
  });
});

describe("smaller things a user noticed", () => {
  const demoCopy = () => {
    const store = path.join(tempDir(), "opencode");
    fs.cpSync(path.join(DEMO, "opencode"), store, { recursive: true });
    return store;
  };

  it("a did-you-mean error is one line, also in --json", async () => {
    const r = await run(["sesion", "list"]);
    expect(r.status).toBe(2);
    expectOneLineError(r, /^recover: unknown command 'sesion' for recover \(did you mean session\?\)$/);
    const j = await run(["sesion", "list", "--json"]);
    expect((parseJsonDocument(j.stdout).error as { message: string }).message).toBe("unknown command 'sesion' for recover (did you mean session?)");
    expectOneLineError(await run(["session", "scan", "--al"]), /unknown option '--al' \(did you mean --all\?\)$/);
  });

  it("recover help session repair shows the help of session repair; every --help lists the global options; battle and context have examples", async () => {
    const [help, scan, battle, context] = await Promise.all([
      await runAsync(["help", "session", "repair"]),
      await runAsync(["session", "scan", "--help"]),
      await runAsync(["battle", "--help"]),
      await runAsync(["context", "--help"]),
    ]);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^Usage: recover session repair /);
    expect(scan.stdout).toMatch(/Global Options:[\s\S]*--store <path>[\s\S]*--backup-dir <dir>/);
    for (const r of [battle, context]) expect(r.stdout).toMatch(/Examples:\n {2}recover (battle|context) /);
  });

  it("FORCE_COLOR and --color turn colour on without a terminal; --no-color and NO_COLOR turn it off", async () => {
    const store = demoCopy();
    const scan = ["session", "scan", "--all", "--exit-zero", "--store", store];
    const [forced, flag, off] = await Promise.all([
      await runAsync(scan, { env: { NO_COLOR: undefined, FORCE_COLOR: "1" } }),
      await runAsync([...scan, "--color"]),
      await runAsync([...scan, "--no-color"], { env: { NO_COLOR: undefined, FORCE_COLOR: "1" } }),
    ]);
    expect(forced.stdout).toMatch(/\u001b\[31merror/);
    expect(flag.stdout).toMatch(/\u001b\[31merror/);
    expect(off.stdout).not.toMatch(/\u001b\[/);
  });

  it("-q prints no note: lines; without it, a note about one session names it", async () => {
    const store = demoCopy();
    const loud = await run(["session", "repair", "--all", "--dry-run", "--store", store]);
    expect(loud.stderr).toMatch(/^note: session ses_\S+: the error opencode stored on the last message/m);
    const quiet = await run(["session", "repair", "--all", "--dry-run", "-q", "--store", store]);
    expect(quiet.status).toBe(1);
    expect(quiet.stderr).not.toMatch(/note:/);
  });

  it("an empty id has its own message", async () => {
    const r = await run(["session", "scan", "", "--store", demoCopy()]);
    expect(r.status).toBe(2);
    expectOneLineError(r, /^recover: empty session id: give an id or a unique prefix of one$/);
  });

  it("a refusal that comes before writing (a session written seconds ago) is printed before any diff, not after it", async () => {
    const { built, id } = recentBrokenStore(20_000);
    const fixture = writeTestStore(built, "opencode-sqlite");
    const r = await run(["session", "repair", id, "--yes", "--store", fixture.store], { env: { XDG_STATE_HOME: tempDir() } });
    expect(r.status).toBe(3);
    expectOneLineError(r, /was written \d+ s ago/);
    expect(r.stdout).not.toMatch(/^(\+\+\+|---|@@) /m);
  });
});
