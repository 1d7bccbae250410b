// The front door, tried as a new user would (issue 37): a group's subcommand typed without its group, one rule asked
// about by id, a restore with no backup named.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { expectOneLineError, parseJsonDocument, run, tempDir } from "./run.js";

describe("first words", () => {
  it.each([
    ["scan", "recover session scan"],
    ["repair", "recover session repair"],
    ["trim", "recover context trim"],
    ["salvage", "recover store salvage"],
  ])("recover %s suggests %s", async (word, meant) => {
    const r = await run([word]);
    expect(r.status).toBe(2);
    expectOneLineError(r, new RegExp(`unknown command '${word}' for recover \\(did you mean ${meant}\\?\\)`));
  });

  it("recover rules <id> describes that rule; an id it does not know names the near ones", async () => {
    const r = await run(["rules", "tool-result-missing"]);
    expect(r.status).toBe(0);
    expect(r.stdout.split("\n")).toEqual([
      "tool-result-missing  error",
      expect.stringContaining("tool call with no tool result"),
      "fixed by: recover session repair",
      "",
    ]);
    const json = JSON.parse((await run(["rules", "tool-result-missing", "--json"])).stdout) as { rules: { id: string }[] };
    expect(json.rules.map((x) => x.id)).toEqual(["tool-result-missing"]);
    const unknown = await run(["rules", "tool-result"]);
    expect(unknown.status).toBe(2);
    expectOneLineError(unknown, /no rule "tool-result" \(did you mean tool-result-missing, orphan-tool-result\?\)/);
  });

  it("session restore with no backup named says where the ids are, and --last takes the newest", async () => {
    const none = await run(["session", "restore", "--backup-dir", tempDir()]);
    expect(none.status).toBe(2);
    expectOneLineError(none, /give a backup id or --last \(`.*session backups --backup-dir .*` lists them\)/);
    const empty = await run(["session", "restore", "--last", "--backup-dir", tempDir()]);
    expect(empty.status).toBe(2);
    expectOneLineError(empty, /no backups in /);
  });
});

describe("what scan suggests is what repair does", () => {
  it("a line recover keeps verbatim: not fixable in the scan, left alone by the repair at the same line", async () => {
    const store = path.resolve("fixtures/demo/claude");
    const id = "49f222e2-5335-4906-bd25-0b1539855e0e";
    const scan = parseJsonDocument((await run(["session", "scan", id, "--json", "--store", store])).stdout) as {
      sessions: { findings: { rule: string; line?: number; fixable: boolean; message: string }[] }[];
    };
    const kept = scan.sessions[0]!.findings.find((f) => f.message.includes("kept verbatim"))!;
    expect(kept).toMatchObject({ rule: "unreadable-record", fixable: false });
    const dry = await run(["session", "repair", id, "--dry-run", "--store", store]);
    expect(dry.stdout).toContain(
      `left alone: warning unreadable-record line ${kept.line}  a record of type "future-record", unknown to recover; kept verbatim  → no automatic fix`,
    );
    // Every finding the scan calls fixable is changed by the repair; none it leaves alone.
    const left = [...dry.stdout.matchAll(/left alone: \w+ (\S+) line (\d+)/g)].map((m) => `${m[1]} ${m[2]}`);
    expect(left).toEqual([`unreadable-record ${kept.line}`]);
    const human = await run(["session", "scan", id, "--store", store]);
    expect(human.stdout).toContain(`line ${kept.line}  a record of type "future-record", unknown to recover; kept verbatim  → no automatic fix`);
    expect(human.stdout).toContain(`  → recover session repair ${id} --store ${store}\n`);
  });
});

describe("a dry run is a faithful preview; a batch goes on without a session just written", () => {
  function freshCopy(): { store: string; env: Record<string, string>; recent: string } {
    const dir = tempDir();
    const store = path.join(dir, "claude");
    fs.cpSync(path.resolve("fixtures/demo/claude"), store, { recursive: true });
    const hourAgo = new Date(Date.now() - 3_600_000);
    const files = (fs.readdirSync(store, { recursive: true }) as string[]).filter((f) => f.endsWith(".jsonl"));
    for (const f of files) fs.utimesSync(path.join(store, f), hourAgo, hourAgo);
    // One session written just now: its agent may still be running.
    const recent = path.join(store, files.find((f) => f.includes("49f222e2"))!);
    fs.utimesSync(recent, new Date(), new Date());
    return { store, env: { XDG_STATE_HOME: path.join(dir, "state") }, recent };
  }
  const ID = "49f222e2-5335-4906-bd25-0b1539855e0e";

  it("the dry run says the real run would be refused, and why", async () => {
    const { store, env } = freshCopy();
    const r = await run(["session", "repair", ID, "--dry-run", "--json", "--store", store], { env });
    expect(r.status).toBe(1);
    expect((parseJsonDocument(r.stdout) as { wouldRefuse?: string }).wouldRefuse).toMatch(
      new RegExp(`^session ${ID} was written \\d+ s ago: its agent may still be running`),
    );
    const human = await run(["session", "repair", ID, "--dry-run", "--store", store], { env });
    expect(human.stdout).toMatch(/note: without --dry-run this would be refused: session \S+ was written \d+ s ago/);
    // And it is.
    expect((await run(["session", "repair", ID, "--yes", "--store", store], { env })).status).toBe(3);
  });

  it("repair --all repairs the others, names the one it left out, and exits 1 (it is not all done)", async () => {
    const { store, env, recent } = freshCopy();
    const before = fs.readFileSync(recent);
    const dry = parseJsonDocument((await run(["session", "repair", "--all", "--dry-run", "--json", "--store", store], { env })).stdout) as {
      liveWriters?: { id: string }[];
    };
    expect(dry.liveWriters?.map((s) => s.id)).toEqual([ID]);
    const r = await run(["session", "repair", "--all", "--yes", "--json", "--store", store], { env });
    expect(r.status, r.stderr).toBe(1);
    const doc = parseJsonDocument(r.stdout) as { liveWriters: { id: string }[]; sessions: { id: string; changes: unknown[] }[]; backup: unknown };
    expect(doc.liveWriters.map((s) => s.id)).toEqual([ID]);
    expect(doc.backup).not.toBeNull();
    expect(doc.sessions.map((s) => s.id)).not.toContain(ID);
    expect(doc.sessions.some((s) => s.changes.length > 0)).toBe(true);
    expect(fs.readFileSync(recent)).toEqual(before);
  });
});

describe("explain --last", () => {
  it("maps the error onto the most recently updated session, and its fix command names that session", async () => {
    const store = path.resolve("fixtures/demo/claude");
    const listed = parseJsonDocument((await run(["session", "list", "--json", "--store", store])).stdout) as { sessions: { id: string }[] };
    const r = await run(["explain", "--last", "--json", "--store", store, "prompt is too long: 212345 tokens > 200000 maximum"]);
    expect(r.status, r.stderr).toBe(0);
    const doc = parseJsonDocument(r.stdout) as { session?: string; fix?: string };
    expect(JSON.stringify(doc)).toContain(listed.sessions[0]!.id);
  });
});

describe("--backup-dir that cannot hold a backup: the advice follows the failure", () => {
  it.each([
    [
      "a file",
      (dir: string) => fs.writeFileSync(path.join(dir, "b"), ""),
      /\(a file is in the way where a folder must be\); nothing was changed; pass --backup-dir <a folder, not a file>/,
    ],
    [
      "a symlink loop",
      (dir: string) => {
        fs.symlinkSync(path.join(dir, "c"), path.join(dir, "b"));
        fs.symlinkSync(path.join(dir, "b"), path.join(dir, "c"));
      },
      /\(symbolic links that loop\); nothing was changed; pass --backup-dir <a folder reached without a symlink loop>/,
    ],
  ])("%s", async (_, make, message) => {
    const dir = tempDir();
    const store = path.join(dir, "claude");
    fs.cpSync(path.resolve("fixtures/demo/claude"), store, { recursive: true });
    const hourAgo = new Date(Date.now() - 3_600_000);
    for (const f of fs.readdirSync(store, { recursive: true }) as string[]) fs.utimesSync(path.join(store, f), hourAgo, hourAgo);
    make(dir);
    const r = await run(["session", "repair", "49f222e2", "--yes", "--store", store, "--backup-dir", path.join(dir, "b")], {
      env: { XDG_STATE_HOME: path.join(dir, "state") },
    });
    expect(r.status).toBe(2);
    expectOneLineError(r, message);
  });
});
