// Commands are loaded lazily: a command imports only what it uses, so `session scan` starts without the git,
// prompt and spinner libraries (they cost start-up time on every run and in every crash trial).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BIN, childEnv, tempDir } from "./run.js";

const HOOK = path.resolve("test/support/record-imports.mjs");
const DEMO = path.resolve("fixtures/demo/opencode");

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
const loadsSource = (sources: string[], file: string) => sources.includes(`src/cli/commands/${file}.ts`);

describe("lazy commands", () => {
  it("session scan loads neither simple-git, inquirer nor ora", () => {
    const sources = sourcesOf(importsOf(["session", "scan", "--all", "--store", DEMO]));
    // The recording works: the command that ran was loaded.
    expect(loadsSource(sources, "session-scan")).toBe(true);
    for (const name of PACKAGES) expect(loadsPackage(sources, name), name).toBe(false);
    // Nor the battle and checkpoint commands, which bring simple-git.
    expect(sources.filter((source) => /^src\/cli\/commands\/(battle-|checkpoint)/.test(source))).toEqual([]);
  });

  it("checkpoint loads simple-git (the recording sees what a command does load)", () => {
    const sources = sourcesOf(importsOf(["checkpoint", "list", "no-such-task", "--repo", tempDir()]));
    expect(loadsPackage(sources, "simple-git")).toBe(true);
  });

  it("help lists every command, so it loads them all", () => {
    const sources = sourcesOf(importsOf(["--help"]));
    for (const name of ["session-scan", "battle-status", "checkpoint", "rules", "explain", "context-trim"]) {
      expect(loadsSource(sources, name), name).toBe(true);
    }
  });
});
