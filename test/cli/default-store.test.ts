import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildStore, healthySession, writeJsonStore, writeSqliteStore } from "../support/opencode-fixtures.js";
import { expectJsonError, expectOneLineError, parseJsonDocument, run, tempDir } from "./run.js";
import { DAY, T0 } from "./stores.js";

/** An environment where only what the test names exists: no OPENCODE_DB, an empty HOME, XDG_DATA_HOME as given. */
function env(vars: { XDG_DATA_HOME?: string; OPENCODE_DB?: string; HOME?: string }): Record<string, string | undefined> {
  return { HOME: vars.HOME ?? tempDir(), XDG_DATA_HOME: vars.XDG_DATA_HOME, OPENCODE_DB: vars.OPENCODE_DB };
}

function storeWith(title: string, seed: number) {
  return buildStore({ seed, sessions: [healthySession({ start: T0 + seed * DAY, title })] });
}

function listed(stdout: string): { store: { format: string; path: string }; titles: string[] } {
  const doc = parseJsonDocument(stdout);
  return { store: doc.store as { format: string; path: string }, titles: (doc.sessions as { title: string }[]).map((s) => s.title) };
}

describe("the default store location (no --store)", () => {
  it("$XDG_DATA_HOME/opencode/opencode.db is found", async () => {
    const xdg = tempDir();
    const db = writeSqliteStore(path.join(xdg, "opencode"), storeWith("In XDG_DATA_HOME", 1));
    const r = await run(["session", "list", "--json"], { env: env({ XDG_DATA_HOME: xdg }) });
    expect(r.status, r.stderr).toBe(0);
    expect(listed(r.stdout)).toEqual({ store: expect.objectContaining({ format: "opencode-sqlite", path: db }), titles: ["In XDG_DATA_HOME"] });
    const scan = await run(["session", "scan", "--all", "--json"], { env: env({ XDG_DATA_HOME: xdg }) });
    expect(scan.status).toBe(0);
    expect(parseJsonDocument(scan.stdout).summary).toMatchObject({ sessions: 1, findings: 0 });
  });

  it("a legacy JSON tree in $XDG_DATA_HOME/opencode/storage is found too", async () => {
    const xdg = tempDir();
    const storage = writeJsonStore(path.join(xdg, "opencode"), storeWith("Legacy tree", 2));
    const r = await run(["session", "list", "--json"], { env: env({ XDG_DATA_HOME: xdg }) });
    expect(r.status, r.stderr).toBe(0);
    expect(listed(r.stdout)).toEqual({ store: expect.objectContaining({ format: "opencode-json", path: storage }), titles: ["Legacy tree"] });
  });

  it("without XDG_DATA_HOME, ~/.local/share/opencode is used", async () => {
    const home = tempDir();
    const db = writeSqliteStore(path.join(home, ".local", "share", "opencode"), storeWith("In HOME", 3));
    const r = await run(["session", "list", "--json"], { env: env({ HOME: home }) });
    expect(r.status, r.stderr).toBe(0);
    expect(listed(r.stdout)).toEqual({ store: expect.objectContaining({ path: db }), titles: ["In HOME"] });
  });

  it("OPENCODE_DB=<absolute path> is honoured, over the XDG data dir", async () => {
    const xdg = tempDir();
    writeSqliteStore(path.join(xdg, "opencode"), storeWith("In XDG_DATA_HOME", 1));
    const elsewhere = writeSqliteStore(path.join(tempDir(), "elsewhere"), storeWith("Named by OPENCODE_DB", 4));
    const r = await run(["session", "list", "--json"], { env: env({ XDG_DATA_HOME: xdg, OPENCODE_DB: elsewhere }) });
    expect(r.status, r.stderr).toBe(0);
    expect(listed(r.stdout)).toEqual({ store: expect.objectContaining({ format: "opencode-sqlite", path: elsewhere }), titles: ["Named by OPENCODE_DB"] });
    // --store still wins over both.
    const explicit = writeSqliteStore(path.join(tempDir(), "explicit"), storeWith("Named by --store", 5));
    const r2 = await run(["session", "list", "--json", "--store", explicit], { env: env({ XDG_DATA_HOME: xdg, OPENCODE_DB: elsewhere }) });
    expect(listed(r2.stdout).titles).toEqual(["Named by --store"]);
  });

  it("OPENCODE_DB=<name> is taken relative to the data dir", async () => {
    const xdg = tempDir();
    const dataDir = path.join(xdg, "opencode");
    const db = writeSqliteStore(dataDir, storeWith("Channel db", 6));
    const renamed = path.join(dataDir, "opencode-local.db");
    fs.renameSync(db, renamed);
    const r = await run(["session", "list", "--json"], { env: env({ XDG_DATA_HOME: xdg, OPENCODE_DB: "opencode-local.db" }) });
    expect(r.status, r.stderr).toBe(0);
    expect(listed(r.stdout)).toEqual({ store: expect.objectContaining({ path: renamed }), titles: ["Channel db"] });
  });

  it('with neither, exit 2 "no opencode store found"', async () => {
    const vars = env({ XDG_DATA_HOME: tempDir() });
    for (const command of [
      ["session", "list"],
      ["session", "scan", "--all"],
    ]) {
      const r = await run(command, { env: vars });
      expect(r.status).toBe(2);
      expect(r.stdout).toBe("");
      expectOneLineError(r, /no opencode store found/);
      const json = await run([...command, "--json"], { env: vars });
      expect(json.status).toBe(2);
      expect(expectJsonError(json, "store-not-found").message).toMatch(/no opencode store found/);
    }
  });

  it("OPENCODE_DB naming a missing file exits 2 naming it", async () => {
    const missing = path.join(tempDir(), "gone.db");
    const r = await run(["session", "list"], { env: env({ XDG_DATA_HOME: tempDir(), OPENCODE_DB: missing }) });
    expect(r.status).toBe(2);
    expectOneLineError(r, new RegExp(missing.replace(/[/.]/g, "\\$&")));
  });
});
