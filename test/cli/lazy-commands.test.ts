// Commands are loaded lazily: a command runs only the code it uses, so `session scan` starts without the git,
// prompt and spinner libraries (they cost start-up time on every run and in every crash trial). The CLI is one
// bundle (dist/main.cjs) whose modules are initialised on first use; what a real run initialised and called is read
// from V8's own coverage of it (NODE_V8_COVERAGE), each function that ran mapped back to its source file through the
// bundle's source map.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { SourceMap } from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { WRAPPER_HEAD } from "../../src/launch/compile-cache.js";
import { BIN, childEnv, tempDir } from "./run.js";

const DEMO = path.resolve("fixtures/demo/opencode");
const CLAUDE = path.resolve("fixtures/demo/claude");
const BUNDLE = path.resolve("dist/main.cjs");

interface Coverage {
  result: { url: string; functions: { ranges: { startOffset: number; count: number }[] }[] }[];
}

/** What a real run of `recover <args>` ran: the source files of the bundle's code that ran, and the other scripts. */
function codeThatRan(args: string[]): { sources: string[]; scripts: string[] } {
  const dir = tempDir();
  const result = spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", env: childEnv({ NODE_V8_COVERAGE: dir }), timeout: 25_000 });
  expect(result.error).toBeUndefined();
  expect(result.status, result.stderr).not.toBeNull();
  const text = fs.readFileSync(BUNDLE, "utf8");
  const lineStarts = [0];
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) lineStarts.push(i + 1);
  const map = new SourceMap(JSON.parse(fs.readFileSync(`${BUNDLE}.map`, "utf8")));
  const sources = new Set<string>();
  const scripts = new Set<string>();
  for (const file of fs.readdirSync(dir)) {
    for (const script of (JSON.parse(fs.readFileSync(path.join(dir, file), "utf8")) as Coverage).result) {
      if (!script.url.endsWith("/dist/main.cjs")) {
        if (script.functions.some((f) => f.ranges[0]!.count > 0)) scripts.add(script.url);
        continue;
      }
      for (const fn of script.functions) {
        const { startOffset, count } = fn.ranges[0]!;
        // The whole bundle's own function (offset 0) ran, and says nothing of which module did.
        if (count === 0 || startOffset === 0) continue;
        const offset = startOffset - WRAPPER_HEAD.length;
        let line = lineStarts.length - 1;
        while (lineStarts[line]! > offset) line--;
        const source = (map.findEntry(line, offset - lineStarts[line]!) as { originalSource?: string }).originalSource;
        if (source) sources.add(source.slice(source.search(/(src|node_modules)\//)));
      }
    }
  }
  return { sources: [...sources], scripts: [...scripts] };
}

const PACKAGES = ["simple-git", "inquirer", "ora"];
const loadsPackage = (sources: string[], name: string) => sources.some((source) => source.startsWith(`node_modules/${name}/`));
const commandsLoaded = (sources: string[]) => sources.filter((source) => source.startsWith("src/cli/commands/")).sort();
/** better-sqlite3 is not bundled: Node requires it from node_modules, as a script of its own. */
const requiresSqlite = (scripts: string[]) => scripts.some((url) => url.includes("/node_modules/better-sqlite3/"));

describe("lazy commands", () => {
  it("session scan loads neither simple-git, inquirer nor ora, nor any other command", () => {
    const { sources, scripts } = codeThatRan(["session", "scan", "--all", "--store", DEMO]);
    // The recording works: the command that ran was loaded, and the SQLite library its store needs.
    expect(commandsLoaded(sources)).toEqual(["src/cli/commands/session-scan.ts"]);
    expect(requiresSqlite(scripts)).toBe(true);
    for (const name of PACKAGES) expect(loadsPackage(sources, name), name).toBe(false);
  });

  it("a scan of a store that is not SQLite does not load better-sqlite3", () => {
    const { sources, scripts } = codeThatRan(["session", "scan", "--all", "--store", CLAUDE, "--format", "claude"]);
    expect(commandsLoaded(sources)).toEqual(["src/cli/commands/session-scan.ts"]);
    expect(requiresSqlite(scripts)).toBe(false);
  });

  it("checkpoint loads simple-git (the recording sees what a command does load)", () => {
    const { sources } = codeThatRan(["checkpoint", "list", "no-such-task", "--repo", tempDir()]);
    expect(loadsPackage(sources, "simple-git")).toBe(true);
  });

  it("help and version load no command, no store, no zod: they are answered from the commands' summaries", () => {
    for (const args of [["--help"], ["--version"], []]) {
      const { sources, scripts } = codeThatRan(args);
      expect(commandsLoaded(sources), args.join(" ")).toEqual([]);
      expect(sources.filter((source) => source.startsWith("src/stores/") && source !== "src/stores/formats.ts")).toEqual([]);
      expect(loadsPackage(sources, "zod")).toBe(false);
      expect(requiresSqlite(scripts)).toBe(false);
    }
  });

  it("help about a command loads that command: recover help session lists every session command", () => {
    const { sources } = codeThatRan(["help", "session"]);
    expect(commandsLoaded(sources)).toEqual(
      ["session-backups", "session-import", "session-list", "session-repair", "session-restore", "session-resume", "session-scan"].map(
        (name) => `src/cli/commands/${name}.ts`,
      ),
    );
  });
});

describe("the commands' summaries", () => {
  it("list every top-level command as the loaded commands do: recover --help is the same either way", async () => {
    const { buildProgram, loadAllCommands } = await import("../../src/cli/main.js");
    const context = { stdout: { write: () => true }, stderr: { write: () => true }, env: {}, cwd: "/", isTTY: { stdin: false, stdout: false, stderr: false } };
    const run = { context, script: "recover", stdoutOpen: true } as unknown as Parameters<typeof buildProgram>[0];
    const summarised = buildProgram(run, {});
    const loaded = buildProgram(run, await loadAllCommands());
    expect(summarised.helpInformation()).toBe(loaded.helpInformation());
    expect(summarised.helpInformation()).toMatch(/explain \[options\] \[text\]/);
  });
});
