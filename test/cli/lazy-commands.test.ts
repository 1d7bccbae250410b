// Commands are loaded lazily: a command imports only what it uses, so `session scan` starts without the git,
// prompt and spinner libraries (they cost start-up time on every run and in every crash trial).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BIN, childEnv, tempDir } from "./run.js";

const HOOK = path.resolve("test/support/record-imports.mjs");
const DEMO = path.resolve("fixtures/demo/opencode");
const CLAUDE = path.resolve("fixtures/demo/claude");

/** The URLs of every module a real run of `recover <args>` imported. */
function importsOf(args: string[]): string[] {
  const log = path.join(tempDir(), "imports.txt");
  const result = spawnSync(process.execPath, ["--import", HOOK, BIN, ...args], {
    encoding: "utf8",
    env: childEnv({ RECOVER_TEST_IMPORTS: log }),
    timeout: 25_000,
  });
  expect(result.error).toBeUndefined();
  expect(result.status, result.stderr).not.toBeNull();
  return fs.readFileSync(log, "utf8").split("\n").filter(Boolean);
}

const PACKAGES = ["simple-git", "inquirer", "ora"];
/** What the build put into each file of dist/ (esbuild's metafile, written by scripts/build.mjs). */
const META = JSON.parse(fs.readFileSync(path.resolve("dist/meta.json"), "utf8")) as { outputs: Record<string, { inputs: Record<string, unknown> }> };
/** The source files (src/… and node_modules/…) inside the dist files a run loaded. */
function sourcesOf(urls: string[]): string[] {
  const loaded = new Set(urls.filter((url) => url.startsWith("file:")).map((url) => path.relative(process.cwd(), new URL(url).pathname)));
  return Object.entries(META.outputs).flatMap(([file, output]) => (loaded.has(file) ? Object.keys(output.inputs) : []));
}
const loadsPackage = (sources: string[], name: string) => sources.some((source) => source.includes(`node_modules/${name}/`));
const commandsLoaded = (sources: string[]) => sources.filter((source) => source.startsWith("src/cli/commands/")).sort();
const requiresSqlite = (urls: string[]) => urls.includes("require:better-sqlite3");

describe("lazy commands", () => {
  it("session scan loads neither simple-git, inquirer nor ora, nor any other command", () => {
    const urls = importsOf(["session", "scan", "--all", "--store", DEMO]);
    const sources = sourcesOf(urls);
    // The recording works: the command that ran was loaded, and the SQLite library its store needs.
    expect(commandsLoaded(sources)).toEqual(["src/cli/commands/session-scan.ts"]);
    expect(requiresSqlite(urls)).toBe(true);
    for (const name of PACKAGES) expect(loadsPackage(sources, name), name).toBe(false);
  });

  it("a scan of a store that is not SQLite does not load better-sqlite3", () => {
    const urls = importsOf(["session", "scan", "--all", "--store", CLAUDE, "--format", "claude"]);
    expect(commandsLoaded(sourcesOf(urls))).toEqual(["src/cli/commands/session-scan.ts"]);
    expect(requiresSqlite(urls)).toBe(false);
  });

  it("checkpoint loads simple-git (the recording sees what a command does load)", () => {
    const sources = sourcesOf(importsOf(["checkpoint", "list", "no-such-task", "--repo", tempDir()]));
    expect(loadsPackage(sources, "simple-git")).toBe(true);
  });

  it("help and version load no command, no store, no zod: they are answered from the commands' summaries", () => {
    for (const args of [["--help"], ["--version"], []]) {
      const urls = importsOf(args);
      const sources = sourcesOf(urls);
      expect(commandsLoaded(sources), args.join(" ")).toEqual([]);
      expect(sources.filter((source) => source.startsWith("src/stores/") && source !== "src/stores/formats.ts")).toEqual([]);
      expect(loadsPackage(sources, "zod")).toBe(false);
      expect(requiresSqlite(urls)).toBe(false);
    }
  });

  it("help about a command loads that command: recover help session lists every session command", () => {
    const sources = sourcesOf(importsOf(["help", "session"]));
    expect(commandsLoaded(sources)).toEqual(
      ["session-backups", "session-import", "session-list", "session-repair", "session-restore", "session-scan"].map((name) => `src/cli/commands/${name}.ts`),
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
