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
const loadsPackage = (urls: string[], name: string) => urls.some((url) => url.includes(`/node_modules/${name}/`));

describe("lazy commands", () => {
  it("session scan loads neither simple-git, inquirer nor ora", () => {
    const urls = importsOf(["session", "scan", "--all", "--store", DEMO]);
    // The recording works: the command that ran was loaded.
    expect(urls.some((url) => url.endsWith("/dist/cli/commands/session-scan.js"))).toBe(true);
    for (const name of PACKAGES) expect(loadsPackage(urls, name), name).toBe(false);
    // Nor the battle and checkpoint commands, which bring simple-git.
    expect(urls.filter((url) => /\/dist\/cli\/commands\/(battle-|checkpoint)/.test(url))).toEqual([]);
  });

  it("checkpoint loads simple-git (the recording sees what a command does load)", () => {
    const urls = importsOf(["checkpoint", "list", "no-such-task", "--repo", tempDir()]);
    expect(loadsPackage(urls, "simple-git")).toBe(true);
  });

  it("help lists every command, so it loads them all", () => {
    const urls = importsOf(["--help"]);
    for (const name of ["session-scan", "battle-status", "checkpoint", "rules", "explain", "context-trim"]) {
      expect(
        urls.some((url) => url.endsWith(`/dist/cli/commands/${name}.js`)),
        name,
      ).toBe(true);
    }
  });
});
