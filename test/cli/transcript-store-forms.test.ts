// One transcript store, however --store names it: a repair through a single .jsonl is backed up as a change to the
// config dir's store, so its restore (with no --store, or through the config dir) finds the file, and locks and the
// journal are the same for every form. Needs the built CLI (npm run build).
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseJsonDocument, run, tempDir } from "./run.js";

const HOUR = 3_600_000;

function copyOfDemo(): string {
  const dir = path.join(tempDir(), "claude");
  fs.cpSync("fixtures/demo/claude", dir, { recursive: true });
  const old = new Date(Date.now() - HOUR);
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) fs.utimesSync(path.join(entry.parentPath, entry.name), old, old);
  }
  return dir;
}

describe("a transcript store named through any of its parts", () => {
  it("a repair through one .jsonl records the config dir as its store; restore puts the file back byte for byte", async () => {
    const config = copyOfDemo();
    const file = path.join(config, "projects/-home-dana-code-invoice-api/b08bc1fc-ecb5-4fcd-bd28-85ebd0cfb5cf.jsonl");
    const original = fs.readFileSync(file);
    const env = { XDG_STATE_HOME: path.join(config, "..", "state") };
    const repaired = await run(["session", "repair", "b08bc1fc", "--store", file, "--yes", "--json"], { env });
    expect(repaired.status, repaired.stderr).toBe(0);
    const doc = parseJsonDocument(repaired.stdout) as { store: { path: string }; backup: { id: string } };
    expect(doc.store.path).toBe(config);
    expect(fs.readFileSync(file).equals(original)).toBe(false);

    const restored = await run(["session", "restore", doc.backup.id, "--yes", "--json"], { env });
    expect(restored.status, restored.stderr).toBe(0);
    expect(fs.readFileSync(file).equals(original)).toBe(true);

    // Repaired again through the config dir, restored through the project dir: the same store either way.
    const again = await run(["session", "repair", "b08bc1fc", "--store", config, "--yes", "--json"], { env });
    expect(again.status, again.stderr).toBe(0);
    const restoredAgain = await run(
      ["session", "restore", (parseJsonDocument(again.stdout) as { backup: { id: string } }).backup.id, "--store", path.dirname(file), "--yes"],
      { env },
    );
    expect(restoredAgain.status, restoredAgain.stderr).toBe(0);
    expect(fs.readFileSync(file).equals(original)).toBe(true);
  });
});
