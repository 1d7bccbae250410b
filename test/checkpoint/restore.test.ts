// restoreTree, the primitive a rollback will use: a checkpoint's files come back byte for byte without moving the
// branch or touching the index; files created since stay (or go, with hard); ignored files are never touched.
import fs from "node:fs";
import { exitCodeOf } from "../../src/cli/exit-codes.js";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createCheckpoint } from "../../src/checkpoint/create.js";
import { restoreTree } from "../../src/checkpoint/git-snapshot.js";
import { RecoverError } from "../../src/errors.js";
import { commitAt, gitIn, IGNORED, makeProject, observe, stateDir, TASK, treeFiles, worktreeBytes, write } from "../support/git-repo.js";

/** The checkpoint's files as they were on disk when it was taken (path → mode flag + sha, or link target). */
async function checkpointed(dir: string) {
  const { checkpoint } = await createCheckpoint(dir, { taskId: TASK, stateDir: stateDir() });
  const files = await treeFiles(dir, checkpoint.commit);
  const disk = worktreeBytes(dir);
  const expected = new Map(files.map((f) => [f, disk.get(f)!]));
  expect([...expected.values()].every((v) => v !== undefined)).toBe(true);
  return { checkpoint, expected, disk };
}

/** What a battle's later iterations (and a person) do to the tree. */
async function laterWork(dir: string): Promise<void> {
  write(dir, "src/index.ts", "// rewritten by iteration 4\n");
  fs.rmSync(path.join(dir, "src/auth/jwt.ts"));
  write(dir, "assets/logo.bin", Buffer.from([9, 9, 9]));
  fs.chmodSync(path.join(dir, "scripts/build.sh"), 0o644);
  fs.rmSync(path.join(dir, "docs/README.md"));
  fs.symlinkSync("../package.json", path.join(dir, "docs/README.md"));
  // Created since: untracked, in a new directory, and one the user even staged.
  write(dir, "src/auth/refresh.ts", "export const refresh = () => 'token';\n");
  write(dir, "src/feature/deep/flag.ts", "export const on = true;\n");
  write(dir, "CHANGELOG.md", "## unreleased\n");
  await gitIn(dir).raw(["add", "CHANGELOG.md"]);
  // Ignored files change and appear: none of it may be touched.
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the file holds JavaScript source with a template literal
  write(dir, "node_modules/left-pad/index.js", "module.exports = (s) => ` ${s}`;\n");
  write(dir, "dist/new-chunk.js", "// built later\n");
  write(dir, "src/feature/deep/trace.log", "ignored, inside a directory created since\n");
}

describe("restoreTree round trip", () => {
  it("writes the checkpoint's files back byte for byte (modes, symlinks, binaries, deletions), keeps files created since", async () => {
    const { dir, git } = await makeProject();
    const { checkpoint, expected } = await checkpointed(dir);
    await laterWork(dir);
    // HEAD moves on too: a restore must not move it back.
    await commitAt(dir, "[PokéRalph] 002-auth-system: JWT authentication middleware", "2026-02-04T14:10:00Z");
    write(dir, "src/after-commit.ts", "export {};\n");
    const before = await observe(dir);
    const ignoredBefore = new Map(
      [...worktreeBytes(dir)].filter(([f]) => f.startsWith("node_modules/") || f.startsWith("dist/") || f.endsWith(".log") || f === ".env"),
    );

    const result = await restoreTree(dir, checkpoint.commit);

    const now = worktreeBytes(dir);
    for (const [file, bytes] of expected) expect(now.get(file), file).toBe(bytes);
    expect(result.restored.sort()).toEqual(
      expect.arrayContaining(["assets/logo.bin", "docs/README.md", "scripts/build.sh", "src/auth/jwt.ts", "src/index.ts"]),
    );
    expect(result.kept.sort()).toEqual(["CHANGELOG.md", "src/after-commit.ts", "src/auth/refresh.ts", "src/feature/deep/flag.ts"]);
    expect(result.deleted).toEqual([]);
    for (const file of result.kept) expect(now.has(file), file).toBe(true);
    // Ignored files: exactly as they were.
    for (const [file, bytes] of ignoredBefore) expect(now.get(file), file).toBe(bytes);
    // Branch, HEAD, index, stash: not moved, not written.
    const after = await observe(dir);
    expect(after.head).toBe(before.head);
    expect(after.branch).toBe("refs/heads/main");
    expect(after.indexSha).toBe(before.indexSha);
    expect(after.lsFiles).toBe(before.lsFiles);
    expect(after.stash).toBe(before.stash);
    expect(after.refs).toBe(before.refs);
    expect(after.nestedHead).toBe(before.nestedHead);
    expect(after.nestedStatus).toBe(before.nestedStatus);
    expect(after.ignored).toEqual(before.ignored);
    expect((await git.raw(["rev-parse", "HEAD"])).trim()).not.toBe(checkpoint.parent);
  });

  it("hard: files created since go (and directories they emptied); ignored files and the nested repo stay", async () => {
    const { dir } = await makeProject();
    const { checkpoint, expected } = await checkpointed(dir);
    await laterWork(dir);
    const before = await observe(dir);

    const result = await restoreTree(dir, checkpoint.commit, { hard: true });

    expect(result.deleted.sort()).toEqual(["CHANGELOG.md", "src/auth/refresh.ts", "src/feature/deep/flag.ts"]);
    expect(result.kept).toEqual([]);
    const now = worktreeBytes(dir);
    for (const file of result.deleted) expect(now.has(file), file).toBe(false);
    // src/feature/deep/ still holds an ignored log: it stays, and so does its directory.
    expect(now.has("src/feature/deep/trace.log")).toBe(true);
    for (const [file, bytes] of expected) expect(now.get(file), file).toBe(bytes);
    // Apart from the ignored files the working tree is now exactly the checkpoint (plus .pokeralph/, vendor/lib).
    const tracked = [...now.keys()].filter(
      (f) =>
        !f.startsWith(".pokeralph/") &&
        !f.startsWith("vendor/lib/") &&
        !IGNORED.includes(f) &&
        !f.startsWith("dist/") &&
        !f.endsWith(".log") &&
        !f.startsWith("node_modules/"),
    );
    expect(tracked.sort()).toEqual([...expected.keys()].sort());
    const after = await observe(dir);
    expect(after.ignored).toEqual(before.ignored);
    expect(fs.existsSync(path.join(dir, "dist/new-chunk.js"))).toBe(true);
    expect(after.indexSha).toBe(before.indexSha);
    expect(after.head).toBe(before.head);
    expect(after.nestedStatus).toBe(before.nestedStatus);
    // The staged CHANGELOG.md is gone from disk, yet still staged: the user's index is theirs.
    expect(after.lsFiles).toContain("CHANGELOG.md");
  });

  it("hard deletes a directory that only files created since filled", async () => {
    const { dir } = await makeProject({ clean: true });
    const { checkpoint } = await checkpointed(dir);
    write(dir, "src/feature/deep/flag.ts", "export const on = true;\n");
    await restoreTree(dir, checkpoint.commit, { hard: true });
    expect(fs.existsSync(path.join(dir, "src/feature"))).toBe(false);
    expect(fs.existsSync(path.join(dir, "src"))).toBe(true);
  });

  it("dry run: reports the same plan and changes nothing", async () => {
    const { dir } = await makeProject();
    const { checkpoint } = await checkpointed(dir);
    await laterWork(dir);
    const bytes = worktreeBytes(dir);
    const before = await observe(dir);
    const plan = await restoreTree(dir, checkpoint.commit, { hard: true, dryRun: true });
    expect(plan.dryRun).toBe(true);
    expect(plan.deleted.sort()).toEqual(["CHANGELOG.md", "src/auth/refresh.ts", "src/feature/deep/flag.ts"]);
    expect(plan.restored.length).toBeGreaterThan(0);
    expect(worktreeBytes(dir)).toEqual(bytes);
    expect(await observe(dir)).toEqual(before);
  });

  it("restoring the state a checkpoint was taken in changes nothing", async () => {
    const { dir } = await makeProject();
    const { checkpoint } = await checkpointed(dir);
    const bytes = worktreeBytes(dir);
    const result = await restoreTree(dir, checkpoint.commit, { hard: true });
    expect(result.restored).toEqual([]);
    expect(result.deleted).toEqual([]);
    expect(worktreeBytes(dir)).toEqual(bytes);
  });

  it("never touches battle state, and never overwrites a file that is ignored now", async () => {
    const { dir } = await makeProject({ clean: true });
    write(dir, "notes/todo.md", "- refresh tokens\n");
    const { checkpoint } = await checkpointed(dir);
    // notes/ becomes ignored and its file changes: the checkpoint's copy must not overwrite it.
    write(dir, ".gitignore", "node_modules/\ndist/\n*.log\n.env\nnotes/\n");
    write(dir, "notes/todo.md", "- private, now ignored\n");
    write(dir, ".pokeralph/prd.json", '{"changed":true}\n');
    const result = await restoreTree(dir, checkpoint.commit, { hard: true });
    expect(fs.readFileSync(path.join(dir, "notes/todo.md"), "utf8")).toBe("- private, now ignored\n");
    expect(result.skipped.map((s) => s.path)).toContain("notes/todo.md");
    expect(fs.readFileSync(path.join(dir, ".pokeralph/prd.json"), "utf8")).toBe('{"changed":true}\n');
    // .gitignore itself is a checkpointed file: restored.
    expect(fs.readFileSync(path.join(dir, ".gitignore"), "utf8")).toBe("node_modules/\ndist/\n*.log\n.env\n");
  });

  it("a directory where the checkpoint has a file: refused (exit 3, nothing written) unless hard empties it", async () => {
    const { dir } = await makeProject({ clean: true });
    const { checkpoint, expected } = await checkpointed(dir);
    fs.rmSync(path.join(dir, "src/index.ts"));
    write(dir, "src/index.ts/inner.ts", "export {};\n");
    write(dir, "src/index.ts/trace.log", "ignored: hard cannot delete it, so the directory cannot go\n");
    write(dir, "README.md", "changed\n");
    const bytes = worktreeBytes(dir);
    for (const hard of [false, true]) {
      const error = (await restoreTree(dir, checkpoint.commit, { hard }).catch((e: unknown) => e)) as RecoverError;
      expect(error).toBeInstanceOf(RecoverError);
      expect(exitCodeOf(error)).toBe(3);
      expect(error.message).toMatch(/src\/index\.ts is a directory now but a file in the checkpoint/);
      expect(error.message).not.toContain("\n");
      expect(worktreeBytes(dir)).toEqual(bytes);
    }
    fs.rmSync(path.join(dir, "src/index.ts/trace.log"));
    const result = await restoreTree(dir, checkpoint.commit, { hard: true });
    expect(result.deleted).toEqual(["src/index.ts/inner.ts"]);
    expect(worktreeBytes(dir).get("src/index.ts")).toBe(expected.get("src/index.ts"));
    expect(worktreeBytes(dir).get("README.md")).toBe(expected.get("README.md"));
  });

  it("a file created since where the checkpoint has a directory: refused softly, replaced with hard", async () => {
    const { dir } = await makeProject({ clean: true });
    const { checkpoint } = await checkpointed(dir);
    fs.rmSync(path.join(dir, "src/auth"), { recursive: true });
    write(dir, "src/auth", "now a file\n");
    const soft = (await restoreTree(dir, checkpoint.commit).catch((e: unknown) => e)) as RecoverError;
    expect(soft).toBeInstanceOf(RecoverError);
    expect(soft.message).toMatch(/src\/auth is a file now but a directory in the checkpoint.*--hard/);
    expect(fs.readFileSync(path.join(dir, "src/auth"), "utf8")).toBe("now a file\n");
    const hard = await restoreTree(dir, checkpoint.commit, { hard: true });
    expect(hard.deleted).toEqual(["src/auth"]);
    expect(fs.statSync(path.join(dir, "src/auth")).isDirectory()).toBe(true);
    expect(fs.existsSync(path.join(dir, "src/auth/jwt.ts"))).toBe(true);
  });

  it("a commit the repository does not hold: exit 2, nothing changed", async () => {
    const { dir } = await makeProject({ clean: true });
    const error = (await restoreTree(dir, "0123456789abcdef0123456789abcdef01234567").catch((e: unknown) => e)) as RecoverError;
    expect(error).toBeInstanceOf(RecoverError);
    expect(exitCodeOf(error)).toBe(2);
  });

  it("a repository mid-merge is refused before anything is written", async () => {
    const { dir } = await makeProject({ clean: true });
    const { checkpoint } = await checkpointed(dir);
    write(dir, "README.md", "changed\n");
    fs.writeFileSync(path.join(dir, ".git/MERGE_HEAD"), `${checkpoint.parent}\n`);
    const error = (await restoreTree(dir, checkpoint.commit).catch((e: unknown) => e)) as RecoverError;
    expect(exitCodeOf(error)).toBe(3);
    expect(fs.readFileSync(path.join(dir, "README.md"), "utf8")).toBe("changed\n");
  });
});
