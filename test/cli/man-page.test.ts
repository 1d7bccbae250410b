// recover(1), built by scripts/build.mjs from the command tree: one section per command, each the help `--help`
// prints for it; `man` renders it; the package ships it (package.json "man").
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { run } from "./run.js";

const PAGE = path.resolve("dist/recover.1");

/** Every command path `--help` shows, following each "Commands:" list down (the same tree, from outside). */
async function commandPaths(words: string[] = []): Promise<string[]> {
  const help = (await run([...words, "--help"])).stdout;
  const section = help.split(/\nCommands:\n/)[1]?.split(/\n\n/)[0] ?? "";
  const children = section
    .split("\n")
    .map((line) => /^ {2}(\S+)/.exec(line)?.[1])
    .filter((name): name is string => name !== undefined && name !== "help");
  const below = await Promise.all(children.map((child) => commandPaths([...words, child])));
  return [["recover", ...words].join(" "), ...below.flat()];
}

/** A section's text as man shows it: roff escapes undone. */
const plain = (roff: string) => roff.replace(/\\-/g, "-").replace(/\\e/g, "\\").replace(/^\\&/gm, "");

describe("recover(1)", () => {
  it("has a section per command, each holding that command's usage, options and examples", async () => {
    const page = fs.readFileSync(PAGE, "utf8");
    expect(page.startsWith('.TH RECOVER 1 "" "recover ')).toBe(true);
    const sections = [...page.matchAll(/^\.SS "([^"]+)"\n\.nf\n([\s\S]*?)\n\.fi$/gm)].map((m) => ({ name: plain(m[1]!), text: plain(m[2]!) }));
    const expected = await commandPaths();
    expect(sections.map((s) => s.name).sort()).toEqual(expected.sort());
    expect(expected).toContain("recover battle rollback");
    for (const { name, text } of sections) {
      const help = (await run([...name.split(" ").slice(1), "--help"])).stdout;
      // The same definitions: the usage line and every option of --help are in the section.
      expect(text.split("\n")[0], name).toBe(help.split("\n")[0]);
      for (const option of help.match(/^ {2}(-\S+|--\S+)/gm) ?? []) expect(text, `${name}: ${option}`).toContain(option.trim());
    }
    const rollback = sections.find((s) => s.name === "recover battle rollback")!.text;
    expect(rollback).toContain("--undo");
    expect(rollback).toContain("recover battle rollback 002-auth-system --iteration 3 --dry-run");
  });

  it("man renders it, and the package names it", () => {
    // An array: npm links man pages only from one (bin-links reads `man` as it stands in package.json).
    const pkg = JSON.parse(fs.readFileSync("package.json", "utf8")) as { man?: string[] };
    expect(pkg.man?.map((m) => path.resolve(m))).toEqual([PAGE]);
    const man = spawnSync("man", ["-l", PAGE], { encoding: "utf8", env: { ...process.env, MANPAGER: "cat", PAGER: "cat", MANWIDTH: "80" } });
    if (man.error) return; // no man on this machine: the page is still checked above
    expect(man.status, man.stderr).toBe(0);
    expect(man.stdout).toMatch(/^RECOVER\(1\)\s+User Commands\s+RECOVER\(1\)/);
    expect(man.stdout).toContain("recover session repair");
    expect(man.stdout).not.toMatch(/\\-|\\e/);
  });
});
