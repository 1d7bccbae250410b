// Races with another writer (a recover with another state dir, the agent itself), made deterministic: a file the
// store listed is removed before it is read, and a file is changed while a transaction replaces the others. Either
// is store-changed (exit 3: "nothing was written; run again"), never store-not-found (exit 2), and the store keeps
// the other writer's change and none of ours. Real files and the real writer; only the moment is chosen.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { RecoverError } from "../../src/errors.js";
import type { ImageTarget } from "../../src/stores/store.js";
import { openStore } from "../../src/stores/discover.js";
import { FileWriter } from "../../src/stores/file-writer.js";
import { readManifest } from "../../src/txn/backup-store.js";
import { runTransaction } from "../../src/txn/transaction.js";
import { EXIT_CODES } from "../../src/cli/exit-codes.js";
import { tempDir } from "../cli/run.js";

const DEMO = path.resolve("fixtures/demo");

function caught(work: () => unknown): RecoverError {
  try {
    work();
  } catch (error) {
    if (error instanceof RecoverError) return error;
    throw error;
  }
  throw new Error("it did not throw");
}

describe("a race with another writer", () => {
  it("a transcript listed, then removed before it is read: store-changed (exit 3), not store-not-found", () => {
    const copy = path.join(tempDir(), "claude");
    fs.cpSync(path.join(DEMO, "claude"), copy, { recursive: true });
    const store = openStore({ store: copy });
    try {
      const [first] = store.listSessions();
      const projects = path.join(copy, "projects");
      const file = fs
        .readdirSync(projects)
        .map((p) => path.join("projects", p, `${first!.id}.jsonl`))
        .find((f) => fs.existsSync(path.join(copy, f)))!;
      // Another repair removed it between this run's listing and its read.
      fs.rmSync(path.join(copy, file));
      const error = caught(() => store.loadSession(first!.id, "full"));
      expect(error.code).toBe("store-changed");
      expect(EXIT_CODES[error.code]).toBe(3);
      expect(error.message).toMatch(/^the store changed while recover worked \(.*was removed while it was read\); nothing was written; run again$/);
    } finally {
      store.close();
    }
  });

  it("a file changed while the others are replaced: ours are put back, theirs kept, store-changed", () => {
    const dir = tempDir();
    const state = path.join(dir, "state");
    const files = ["a.json", "b.json", "c.json"].map((n) => path.join(dir, "store", n));
    fs.mkdirSync(path.dirname(files[0]!), { recursive: true });
    for (const f of files) fs.writeFileSync(f, `{"v":"before ${path.basename(f)}"}`);
    const info = { format: "opencode-json", path: path.join(dir, "store"), notices: [] };
    // The real writer. Its second read of c is c's own check just before c is replaced, after a and b were: there,
    // another writer rewrites c.
    let armed = false;
    let readsOfC = 0;
    const writer = new (class extends FileWriter {
      override read(key: Parameters<FileWriter["read"]>[0]) {
        if (armed && key.path === files[2] && ++readsOfC === 2) fs.writeFileSync(files[2]!, '{"v":"theirs"}');
        return super.read(key);
      }
    })(info);
    const targets: ImageTarget[] = files.map((f) => {
      const key = { record: "file" as const, id: path.basename(f), sessionId: "s", path: f };
      return { key, before: writer.read(key), after: { exists: true, bytes: Buffer.from(`{"v":"ours ${path.basename(f)}"}`), mode: 0o644 } };
    });
    armed = true;
    const error = caught(() =>
      runTransaction({
        kind: "repair",
        writer,
        backupRoot: path.join(state, "backups"),
        stateDir: state,
        sessions: ["s"],
        changes: [],
        targets,
        now: Date.now(),
      }),
    );
    expect(error.code).toBe("store-changed");
    expect(error.message).toMatch(/nothing was written; run again$/);
    expect(fs.readFileSync(files[0]!, "utf8")).toBe('{"v":"before a.json"}');
    expect(fs.readFileSync(files[1]!, "utf8")).toBe('{"v":"before b.json"}');
    expect(fs.readFileSync(files[2]!, "utf8")).toBe('{"v":"theirs"}');
    expect(readsOfC, "c was changed just before its replacement").toBeGreaterThanOrEqual(2);
    const [backup] = fs.readdirSync(path.join(state, "backups"));
    expect(readManifest(path.join(state, "backups", backup!)).state).toBe("rolled-back");
  });
});
