// Finding `.pokeralph/`: upward from the cwd, or exactly where --repo says; task ids that could walk out of
// battles/ are refused; every failure is a one-line input error (exit 2).
import fs from "node:fs";
import { exitCodeOf } from "../../../src/cli/exit-codes.js";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { battleDir, findPokeralph, listBattleIds, resolveTaskId } from "../../../src/stores/pokeralph/discover.js";
import { RecoverError } from "../../../src/errors.js";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

function tree(battles: string[] = []): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "recover-discover-")));
  dirs.push(root);
  fs.mkdirSync(path.join(root, ".pokeralph"), { recursive: true });
  for (const id of battles) fs.mkdirSync(path.join(root, ".pokeralph", "battles", id), { recursive: true });
  fs.mkdirSync(path.join(root, "src", "auth"), { recursive: true });
  return root;
}

function inputError(work: () => unknown, code: string, pattern: RegExp): void {
  let error: unknown;
  try {
    work();
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(RecoverError);
  expect((error as RecoverError).code).toBe(code);
  expect(exitCodeOf(error as RecoverError)).toBe(2);
  expect((error as RecoverError).message).toMatch(pattern);
  expect((error as RecoverError).message).not.toContain("\n");
}

describe("findPokeralph", () => {
  it("finds .pokeralph/ in the cwd and in any parent", () => {
    const root = tree();
    expect(findPokeralph({ cwd: root })).toEqual({ root, dir: path.join(root, ".pokeralph"), battlesDir: path.join(root, ".pokeralph", "battles") });
    expect(findPokeralph({ cwd: path.join(root, "src", "auth") }).root).toBe(root);
  });

  it("--repo takes the repository root, or its .pokeralph/ folder, relative to the cwd", () => {
    const root = tree();
    expect(findPokeralph({ repo: root, cwd: "/" }).root).toBe(root);
    expect(findPokeralph({ repo: path.join(root, ".pokeralph"), cwd: "/" }).root).toBe(root);
    expect(findPokeralph({ repo: path.basename(root), cwd: path.dirname(root) }).root).toBe(root);
  });

  it("--repo does not search upward: a subdirectory is not the repository", () => {
    const root = tree();
    inputError(() => findPokeralph({ repo: path.join(root, "src"), cwd: "/" }), "store-not-found", /no \.pokeralph\/ in .*src: not a pokeralph repository/);
  });

  it("no .pokeralph/ anywhere upward is an input error naming where it looked", () => {
    const empty = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "recover-discover-")));
    dirs.push(empty);
    inputError(() => findPokeralph({ cwd: empty }), "store-not-found", /no \.pokeralph\/ found in .* or any parent directory; .*--repo/);
  });

  it("--repo that does not exist, or is a file; a .pokeralph that is a file", () => {
    const root = tree();
    inputError(() => findPokeralph({ repo: path.join(root, "nope"), cwd: "/" }), "store-not-found", /no such directory/);
    fs.writeFileSync(path.join(root, "notes.txt"), "x");
    inputError(() => findPokeralph({ repo: path.join(root, "notes.txt"), cwd: "/" }), "not-a-store", /is a file/);
    const other = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "recover-discover-")));
    dirs.push(other);
    fs.writeFileSync(path.join(other, ".pokeralph"), "");
    inputError(() => findPokeralph({ repo: other, cwd: "/" }), "not-a-store", /is not a directory/);
  });
});

describe("task ids", () => {
  it("lists battle folders in task order, ignoring files and hidden entries", () => {
    const root = tree(["002-auth-system", "001-project-setup"]);
    fs.writeFileSync(path.join(root, ".pokeralph", "battles", "notes.txt"), "");
    fs.mkdirSync(path.join(root, ".pokeralph", "battles", ".trash"));
    expect(listBattleIds(findPokeralph({ cwd: root }))).toEqual(["001-project-setup", "002-auth-system"]);
  });

  it("no battles/ folder yet: no battles", () => {
    expect(listBattleIds(findPokeralph({ cwd: tree() }))).toEqual([]);
  });

  it("resolves an exact id or a unique prefix", () => {
    const repo = findPokeralph({ cwd: tree(["001-project-setup", "002-auth-system", "002-auth-tokens"]) });
    expect(resolveTaskId(repo, "001")).toBe("001-project-setup");
    expect(resolveTaskId(repo, "002-auth-system")).toBe("002-auth-system");
    inputError(() => resolveTaskId(repo, "002-auth"), "usage", /matches 2 battles \(002-auth-system, 002-auth-tokens\)/);
    inputError(() => resolveTaskId(repo, "009"), "usage", /no battle for task 009 .*battles: 001-project-setup, 002-auth-system/);
  });

  it.each(["../002-auth-system", "002/../../etc", "..", "a\\b", "x\0y", ""])("refuses %j before touching the disk", (id) => {
    const repo = findPokeralph({ cwd: tree(["001-project-setup"]) });
    // An empty id gets its own message; the others are told what an id never contains.
    const said = id === "" ? /^empty task id: give an id/ : /invalid task id .*never contain/;
    inputError(() => resolveTaskId(repo, id), "invalid-id", said);
    inputError(() => battleDir(repo, id), "invalid-id", id === "" ? said : /invalid task id/);
  });
});
