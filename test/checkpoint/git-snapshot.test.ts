// Snapshots through a temporary index, in real repositories: what a checkpoint holds, and everything it must leave
// exactly as it was (status, branch, HEAD, the index to the byte, the stash, ignored files, the nested repository).
import fs from "node:fs";
import { exitCodeOf } from "../../src/cli/exit-codes.js";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createCheckpoint } from "../../src/checkpoint/create.js";
import { captureWorktree, openRepo, TEMP_INDEX_PATTERN } from "../../src/checkpoint/git-snapshot.js";
import { readSidecar } from "../../src/stores/pokeralph/sidecar.js";
import { RecoverError } from "../../src/errors.js";
import {
  attempt,
  battleFile,
  commitAt,
  gitIn,
  IGNORED,
  initRepo,
  makeProject,
  NESTED,
  observe,
  stateDir,
  TASK,
  tempDir,
  treeEntries,
  treeFiles,
  write,
  writePokeralph,
} from "../support/git-repo.js";

describe("checkpoint create leaves the repository exactly as it was", () => {
  it("status, branch, HEAD, index (ls-files -s and raw bytes), stash, other refs, ignored files, the nested repo", async () => {
    const { dir } = await makeProject();
    const before = await observe(dir);
    expect(before.stash).toContain("wip: stronger sign test");
    expect(before.lsFiles).toContain("README.md");

    const created = await createCheckpoint(dir, { taskId: TASK, stateDir: stateDir() });

    const after = await observe(dir);
    expect(after.indexSha).toBe(before.indexSha);
    expect(after.lsFiles).toBe(before.lsFiles);
    // The only new entry in git status is the sidecar itself (.pokeralph/ is untracked in this project).
    expect(after.status.replace(`?? .pokeralph/battles/${TASK}/checkpoints.json\n`, "")).toBe(before.status);
    expect(after.status).not.toBe(before.status);
    expect(after.head).toBe(before.head);
    expect(after.branch).toBe("refs/heads/main");
    expect(after.stash).toBe(before.stash);
    expect(after.refs).toBe(before.refs);
    expect(after.ignored).toEqual(before.ignored);
    expect(Object.keys(after.ignored).sort()).toEqual([...IGNORED].sort());
    expect(after.nestedHead).toBe(before.nestedHead);
    expect(after.nestedStatus).toBe(before.nestedStatus);
    // No temporary index (or its lock or pathspec file) left in .git.
    expect(after.gitDirEntries.filter((e) => TEMP_INDEX_PATTERN.test(e))).toEqual([]);
    expect(created.repo.branch).toBe("main");
  });

  it("the commit holds tracked + untracked-not-ignored files as on disk; not ignored ones, not the nested repo", async () => {
    const { dir, git } = await makeProject();
    const { checkpoint } = await createCheckpoint(dir, { taskId: TASK, stateDir: stateDir() });
    const files = await treeFiles(dir, checkpoint.commit);

    // Tracked, with working-tree content (not the staged one), and untracked-not-ignored.
    expect(files).toEqual(
      expect.arrayContaining([
        ".gitignore",
        "README.md",
        "src/index.ts",
        "src/auth/jwt.ts",
        "src/auth/expiry.ts",
        "notes/todo.md",
        "scripts/build.sh",
        "assets/logo.bin",
        "docs/README.md",
      ]),
    );
    expect(await git.raw(["show", `${checkpoint.commit}:README.md`])).toBe(fs.readFileSync(path.join(dir, "README.md"), "utf8"));
    expect(await git.raw(["show", `${checkpoint.commit}:src/index.ts`])).toContain("console.log(sign({}))");
    // Deleted in the working tree: not in the checkpoint.
    expect(files).not.toContain("src/routes/invoices.ts");
    // Ignored: never captured.
    for (const ignored of IGNORED) expect(files).not.toContain(ignored);
    expect(files.some((f) => f.startsWith("node_modules/") || f.startsWith("dist/"))).toBe(false);
    // The nested repository: neither its files nor a gitlink.
    expect(files.some((f) => f === NESTED || f.startsWith(`${NESTED}/`) || f.startsWith("vendor"))).toBe(false);
    // Battle state is never captured from the working tree (HEAD holds none of it here).
    expect(files.some((f) => f.startsWith(".pokeralph"))).toBe(false);

    const modes = await treeEntries(dir, checkpoint.commit);
    expect(modes.get("scripts/build.sh")).toBe("100755");
    expect(modes.get("docs/README.md")).toBe("120000");
    expect([...modes.values()]).not.toContain("160000");
    const binary = await git.raw(["cat-file", "-s", `${checkpoint.commit}:assets/logo.bin`]);
    expect(Number(binary)).toBe(fs.statSync(path.join(dir, "assets/logo.bin")).size);

    // Parent HEAD, a private ref, a fixed identity, a message naming the battle.
    const head = (await git.raw(["rev-parse", "HEAD"])).trim();
    expect((await git.raw(["rev-parse", `${checkpoint.commit}^@`])).trim()).toBe(head);
    expect(checkpoint.ref).toBe(`refs/pokeralph/checkpoints/${TASK}/0`);
    expect((await git.raw(["rev-parse", checkpoint.ref])).trim()).toBe(checkpoint.commit);
    expect((await git.raw(["log", "-1", "--format=%an <%ae>|%s", checkpoint.commit])).trim()).toBe(
      `recover <recover@localhost>|pokeralph checkpoint ${TASK} #0: Before battle started`,
    );
    // Not on any branch, not in plain git log.
    expect(await git.raw(["branch", "--contains", checkpoint.commit])).toBe("");
    expect(await git.raw(["log", "--format=%H"])).not.toContain(checkpoint.commit);
  });

  it("records the checkpoint in the sidecar, and a second one for the same iteration gets its own ref", async () => {
    const { dir, git } = await makeProject();
    const state = stateDir();
    const first = await createCheckpoint(dir, { taskId: TASK, stateDir: state });
    write(dir, "src/auth/expiry.ts", "export const isExpired = () => false;\n");
    const second = await createCheckpoint(dir, { taskId: TASK, stateDir: state });
    expect(second.checkpoint.ref).toBe(`refs/pokeralph/checkpoints/${TASK}/0-2`);
    expect(second.checkpoint.commit).not.toBe(first.checkpoint.commit);
    expect((await git.raw(["rev-parse", first.checkpoint.ref])).trim()).toBe(first.checkpoint.commit);

    const sidecar = readSidecar(battleFile(dir, "checkpoints.json"))!;
    expect(sidecar.schemaVersion).toBe(1);
    expect(sidecar.taskId).toBe(TASK);
    expect(sidecar.checkpoints.map((c) => c.ref)).toEqual([first.checkpoint.ref, second.checkpoint.ref]);
    expect(sidecar.checkpoints[0]).toMatchObject({ afterIteration: 0, description: "Before battle started", parent: first.repo.head, branch: "main" });
    expect(sidecar.checkpoints[0]!.id).toMatch(/^cp-\d{13}-[0-9a-z]{7}$/);
    // The first one's files: what differs from HEAD (the dirty set), battle state excluded.
    expect(sidecar.checkpoints[0]!.files.sort()).toEqual(["README.md", "notes/todo.md", "src/auth/expiry.ts", "src/index.ts", "src/routes/invoices.ts"]);
    const refs = (await git.raw(["for-each-ref", "--format=%(refname)", "refs/pokeralph/"])).trim().split("\n");
    expect(refs).toEqual([`refs/pokeralph/checkpoints/${TASK}/0`, `refs/pokeralph/checkpoints/${TASK}/0-2`]);
  });

  it("keeps keys it does not know in the sidecar (a later recover may add some)", async () => {
    const { dir } = await makeProject({ clean: true });
    const state = stateDir();
    await createCheckpoint(dir, { taskId: TASK, stateDir: state });
    const file = battleFile(dir, "checkpoints.json");
    const doc = JSON.parse(fs.readFileSync(file, "utf8"));
    doc.rolledBack = [{ number: 3 }];
    doc.checkpoints[0].note = "kept";
    fs.writeFileSync(file, JSON.stringify(doc));
    await createCheckpoint(dir, { taskId: TASK, stateDir: state });
    const again = JSON.parse(fs.readFileSync(file, "utf8"));
    expect(again.rolledBack).toEqual([{ number: 3 }]);
    expect(again.checkpoints[0].note).toBe("kept");
    expect(again.checkpoints).toHaveLength(2);
  });

  it("submodule gitlinks in HEAD keep HEAD's commit; nested repos are found by git's own test (.git dir or valid .git file)", async () => {
    const { dir, git } = await makeProject({ clean: true });
    // A nested repository reached through a .git *file* (as `git worktree add` and submodules make them).
    const other = path.join(path.dirname(dir), `${path.basename(dir)}-linked`);
    fs.mkdirSync(other);
    await gitIn(other).raw(["init", "-q"]);
    fs.mkdirSync(path.join(dir, "packages/linked"), { recursive: true });
    fs.writeFileSync(path.join(dir, "packages/linked/.git"), `gitdir: ${path.join(other, ".git")}\n`);
    fs.writeFileSync(path.join(dir, "packages/linked/file.txt"), "inside a repo of its own\n");
    // A .git file pointing nowhere is not a repository: git captures the directory's other files as content.
    fs.mkdirSync(path.join(dir, "packages/stray"), { recursive: true });
    fs.writeFileSync(path.join(dir, "packages/stray/.git"), "gitdir: /nonexistent\n");
    fs.writeFileSync(path.join(dir, "packages/stray/file.txt"), "ordinary content\n");

    // A submodule HEAD records (a gitlink), whose checkout has moved on since: HEAD's commit is what is kept.
    const sub = path.join(dir, "packages/sub");
    fs.mkdirSync(sub, { recursive: true });
    const subGit = await initRepo(sub);
    write(sub, "a.txt", "one\n");
    await subGit.raw(["add", "-A"]);
    await subGit.raw(["commit", "-q", "-m", "one"]);
    const recorded = (await subGit.raw(["rev-parse", "HEAD"])).trim();
    await git.raw(["update-index", "--add", "--cacheinfo", `160000,${recorded},packages/sub`]);
    await git.raw(["commit", "-q", "-m", "Add packages/sub as a submodule"]);
    write(sub, "a.txt", "two\n");
    await subGit.raw(["commit", "-q", "-am", "two"]);

    const repo = await openRepo(dir);
    const capture = await captureWorktree(repo);
    expect(capture.nestedRepos).toEqual(["packages/linked"]);
    expect(capture.gitlinks).toEqual(["packages/sub"]);
    expect((await git.raw(["ls-tree", capture.tree, "packages/sub"])).trim()).toBe(`160000 commit ${recorded}\tpackages/sub`);
    const files = (await git.raw(["ls-tree", "-r", "-z", "--name-only", capture.tree])).split("\0");
    expect(files).toContain("packages/stray/file.txt");
    expect(files.some((f) => f.startsWith("packages/linked"))).toBe(false);
    fs.rmSync(other, { recursive: true, force: true });
  });
});

describe("battle state is never captured from the working tree", () => {
  it("a tracked .pokeralph/prd.json keeps HEAD's copy; a pokeralph project in a subdirectory (monorepo) works too", async () => {
    const { dir, git } = await makeProject({ clean: true, pokeralph: false });
    // Claude committed prd.json once (the prompt lets it); the battle has changed it since.
    writePokeralph(dir);
    await git.raw(["add", "-f", ".pokeralph/prd.json"]);
    await git.raw(["commit", "-q", "-m", "[PokéRalph] 002-auth-system: JWT authentication middleware"]);
    const committed = await git.raw(["show", "HEAD:.pokeralph/prd.json"]);
    write(dir, ".pokeralph/prd.json", '{"tasks":[]}\n');
    // A second pokeralph project deeper in the same repository.
    writePokeralph(path.join(dir, "packages/app"), "001-project-setup");
    write(dir, "packages/app/src/main.ts", "export {};\n");

    const top = await createCheckpoint(dir, { taskId: TASK, stateDir: stateDir() });
    expect(await git.raw(["show", `${top.checkpoint.commit}:.pokeralph/prd.json`])).toBe(committed);
    expect(top.checkpoint.files).toEqual(["packages/app/src/main.ts"]);

    const nested = await createCheckpoint(path.join(dir, "packages/app"), { taskId: "001-project-setup", stateDir: stateDir() });
    const files = await treeFiles(dir, nested.checkpoint.commit);
    expect(files).toContain("packages/app/src/main.ts");
    expect(files.filter((f) => f.includes(".pokeralph"))).toEqual([".pokeralph/prd.json"]);
    expect(fs.existsSync(path.join(dir, "packages/app/.pokeralph/battles/001-project-setup/checkpoints.json"))).toBe(true);
  });
});

describe("detached HEAD is fine, and said", () => {
  it("takes the checkpoint with the detached commit as parent and a notice", async () => {
    const { dir, git } = await makeProject({ clean: true });
    const head = (await git.raw(["rev-parse", "HEAD"])).trim();
    await git.raw(["checkout", "-q", "--detach"]);
    const before = await observe(dir);
    const created = await createCheckpoint(dir, { taskId: TASK, stateDir: stateDir() });
    expect(created.repo.branch).toBeNull();
    expect(created.notices.join("\n")).toMatch(/HEAD is detached at [0-9a-f]{7}/);
    expect(created.checkpoint.branch).toBeNull();
    expect((await git.raw(["rev-parse", `${created.checkpoint.commit}^`])).trim()).toBe(head);
    const after = await observe(dir);
    expect(after.head).toBe(before.head);
    expect(after.branch).toBe("");
    expect(after.indexSha).toBe(before.indexSha);
  });
});

describe("repositories in a state a checkpoint cannot be taken in are refused, with nothing changed", () => {
  async function conflict(kind: "merge" | "rebase" | "rebase-apply" | "cherry-pick" | "revert"): Promise<string> {
    const { dir, git } = await makeProject({ clean: true });
    await git.raw(["checkout", "-q", "-b", "feature"]);
    write(dir, "src/index.ts", "// feature version\n");
    const feature = await commitAt(dir, "feature: rewrite index", "2026-02-03T10:00:00Z");
    await git.raw(["checkout", "-q", "main"]);
    write(dir, "src/index.ts", "// main version\n");
    const main = await commitAt(dir, "main: rewrite index", "2026-02-03T11:00:00Z");
    if (kind === "merge") await attempt(git, ["merge", "feature"]);
    if (kind === "cherry-pick") await attempt(git, ["cherry-pick", feature]);
    if (kind === "revert") {
      write(dir, "src/index.ts", "// main version, edited again\n");
      await commitAt(dir, "main: edit again", "2026-02-03T12:00:00Z");
      await attempt(git, ["revert", "--no-edit", main]);
    }
    if (kind === "rebase" || kind === "rebase-apply") {
      await git.raw(["checkout", "-q", "feature"]);
      await attempt(git, ["rebase", ...(kind === "rebase-apply" ? ["--apply"] : ["--merge"]), "main"]);
    }
    return dir;
  }

  const cases: [string, () => Promise<string>, string, RegExp][] = [
    ["mid-merge (MERGE_HEAD)", () => conflict("merge"), "MERGE_HEAD", /a merge is in progress/],
    ["mid-rebase (rebase-merge/)", () => conflict("rebase"), "rebase-merge", /a rebase is in progress/],
    ["mid-rebase --apply (rebase-apply/)", () => conflict("rebase-apply"), "rebase-apply", /a rebase or `git am` is in progress/],
    ["mid-cherry-pick (CHERRY_PICK_HEAD)", () => conflict("cherry-pick"), "CHERRY_PICK_HEAD", /a cherry-pick is in progress/],
    ["mid-revert (REVERT_HEAD)", () => conflict("revert"), "REVERT_HEAD", /a revert is in progress/],
    [
      "mid-bisect (BISECT_LOG)",
      async () => {
        const { dir, git } = await makeProject({ clean: true });
        await git.raw(["bisect", "start"]);
        return dir;
      },
      "BISECT_LOG",
      /a bisect is in progress/,
    ],
    [
      "index.lock present",
      async () => {
        const { dir } = await makeProject({ clean: true });
        fs.writeFileSync(path.join(dir, ".git/index.lock"), "");
        return dir;
      },
      "index.lock",
      /index\.lock exists: another git command is running/,
    ],
    [
      "no commits yet",
      async () => {
        const dir = tempDir();
        await initRepo(dir);
        writePokeralph(dir);
        write(dir, "src/index.ts", "export {};\n");
        return dir;
      },
      "",
      /has no commits yet/,
    ],
  ];

  for (const [name, setUp, marker, message] of cases) {
    it(`${name}: exit 3, one line, no ref, no sidecar, index untouched`, async () => {
      const dir = await setUp();
      if (marker !== "") expect(fs.existsSync(path.join(dir, ".git", marker)), `${marker} exists`).toBe(true);
      const indexPath = path.join(dir, ".git/index");
      const index = fs.existsSync(indexPath) ? fs.readFileSync(indexPath) : null;
      const entries = fs.readdirSync(path.join(dir, ".git")).sort();
      const error = await createCheckpoint(dir, { taskId: TASK, stateDir: stateDir() }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(RecoverError);
      expect(exitCodeOf(error as RecoverError)).toBe(3);
      expect((error as RecoverError).message).toMatch(message);
      expect((error as RecoverError).message).not.toContain("\n");
      expect(fs.existsSync(battleFile(dir, "checkpoints.json"))).toBe(false);
      expect(await gitIn(dir).raw(["for-each-ref", "refs/pokeralph/"])).toBe("");
      expect(fs.readdirSync(path.join(dir, ".git")).sort()).toEqual(entries);
      if (index) expect(fs.readFileSync(indexPath).equals(index)).toBe(true);
    });
  }

  it("not a git repository: exit 2", async () => {
    const dir = tempDir();
    writePokeralph(dir);
    const error = (await createCheckpoint(dir, { taskId: TASK, stateDir: stateDir() }).catch((e: unknown) => e)) as RecoverError;
    expect(error).toBeInstanceOf(RecoverError);
    expect(exitCodeOf(error)).toBe(2);
    expect(error.message).toMatch(/is not in a git repository/);
    expect(fs.existsSync(battleFile(dir, "checkpoints.json"))).toBe(false);
  });
});
