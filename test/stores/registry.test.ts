// The registry of store formats (src/stores/registry.ts): its order is the --format order and the order in which
// what-is-here names what a folder holds; each built-in adapter's resume command and capabilities; registering.
import { describe, expect, it } from "vitest";
import type { StoreAdapter } from "../../src/stores/adapter.js";
import { registerStore, storeAdapter, storeAdapters, storeFormats } from "../../src/stores/registry.js";

describe("the store registry", () => {
  it("lists the built-in formats, the default (opencode's) first", () => {
    expect(storeFormats()).toEqual(["opencode-sqlite", "opencode-json", "claude", "openclaw-sqlite", "openclaw", "codex", "gemini"]);
    expect(storeAdapters()[0]?.format).toBe("opencode-sqlite");
    expect(storeAdapter("pokeralph-battle")).toBeUndefined();
  });

  it("each adapter knows how its agent resumes a session (openclaw: by the key that points at it, none without one)", () => {
    const resume = (keys: string[]) => Object.fromEntries(storeAdapters().map((a) => [a.format, a.resumeArgv("s1", keys)]));
    expect(resume(["agent:main:main"])).toEqual({
      "opencode-sqlite": ["opencode", "--session", "s1"],
      "opencode-json": ["opencode", "--session", "s1"],
      claude: ["claude", "--resume", "s1"],
      "openclaw-sqlite": ["openclaw", "chat", "--session", "agent:main:main"],
      openclaw: ["openclaw", "chat", "--session", "agent:main:main"],
      codex: ["codex", "resume", "s1"],
      gemini: ["gemini", "--resume", "s1"],
    });
    expect(resume([]).openclaw).toBeUndefined();
    expect(resume([])["openclaw-sqlite"]).toBeUndefined();
  });

  it("only the SQLite stores write beside their file (its -journal, -wal, -shm)", () => {
    expect(
      storeAdapters()
        .filter((a) => a.capabilities.writesBesideStore)
        .map((a) => a.format),
    ).toEqual(["opencode-sqlite", "openclaw-sqlite"]);
  });

  it("takes a registration after the built-ins, refuses a format twice, and lets it go again", () => {
    const extra: StoreAdapter = { ...storeAdapter("claude")!, format: "extra" };
    const unregister = registerStore(extra);
    try {
      expect(storeFormats().at(-1)).toBe("extra");
      expect(storeAdapter("extra")).toBe(extra);
      expect(() => registerStore(extra)).toThrow(/store format extra is registered already/);
    } finally {
      unregister();
    }
    expect(storeFormats()).toEqual(["opencode-sqlite", "opencode-json", "claude", "openclaw-sqlite", "openclaw", "codex", "gemini"]);
  });
});
