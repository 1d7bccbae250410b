// The client versions recover was checked against (src/stores/checked-clients.ts) are the client suite's: each
// client's newest (its line in scripts/clients/index.mjs, `versions: [oldest … newest]`). And what each store says of the
// client that wrote its newest session, read from that session alone.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { checkClient, checkedClient, checkedClients, compareVersions, parseVersion } from "../../src/stores/checked-clients.js";
import { openStore } from "../../src/stores/discover.js";
import { storeAdapters } from "../../src/stores/registry.js";
import type { SessionStore } from "../../src/stores/store.js";
import { tempDir } from "../cli/run.js";

/** Each agent's driver in the client suite (scripts/clients/index.mjs CLIENT_NAMES). */
const DRIVERS: Record<string, string> = { opencode: "opencode", claude: "claude-code", codex: "codex", gemini: "gemini", openclaw: "openclaw" };

const DEMO = path.resolve("fixtures/demo");

describe("the client versions recover was checked with", () => {
  it("name every agent of the registry, each with its driver", () => {
    const agents = [...new Set(storeAdapters().map((a) => a.agent))].sort();
    expect([...checkedClients().keys()].sort()).toEqual(agents);
    expect(Object.keys(DRIVERS).sort()).toEqual(agents);
  });

  const index = path.resolve("scripts/clients/index.mjs");
  for (const [agent, name] of Object.entries(DRIVERS))
    it(`${agent}: the table's version is the newest the client suite checks (scripts/clients/index.mjs, ${name})`, async () => {
      const { CLIENTS } = (await import(pathToFileURL(index).href)) as { CLIENTS: { name: string; versions: string[] }[] };
      const newest = CLIENTS.find((c) => c.name === name)?.versions.at(-1);
      expect(newest, `scripts/clients/index.mjs has no line for ${name}`).toBeTypeOf("string");
      expect(
        checkedClient(agent)?.version,
        `src/stores/checked-clients.ts says recover was checked with ${agent} ${checkedClient(agent)?.version}, but the client suite's newest ${name} is ${newest} (scripts/clients/index.mjs): change both together`,
      ).toBe(newest);
    });
});

describe("comparing versions", () => {
  it("compares dotted numbers number by number; anything else is unknown, never newer", () => {
    expect(compareVersions("2.1.332", "2.1.332")).toBe(0);
    expect(compareVersions("2.1.1000", "2.1.332")).toBe(1);
    expect(compareVersions("2.1.90", "2.1.332")).toBe(-1);
    expect(compareVersions("0.171.0", "0.169.9")).toBe(1);
    expect(compareVersions("1.18", "1.18.0")).toBe(0);
    expect(compareVersions("2026.10.1", "2026.9.6")).toBe(1);
    for (const odd of ["", "v2.1.400", "2.1.400-beta.1", "0.0.0-dev-202611241200", "2..1", "2.1.", " 2.1.400", "99999999999999999999.1"]) {
      expect(parseVersion(odd), odd).toBeUndefined();
      expect(compareVersions(odd, "2.1.332"), odd).toBeUndefined();
      expect(checkClient("claude", odd).status, odd).toBe("unknown");
    }
  });

  it("says checked, older, not yet checked or unknown against the agent's checked client", () => {
    expect(checkClient("claude", "2.1.332")).toEqual({ version: "2.1.332", checked: "2.1.332", status: "checked" });
    expect(checkClient("claude", "2.1.999")).toEqual({ version: "2.1.999", checked: "2.1.332", status: "not yet checked" });
    expect(checkClient("codex", "0.169.0")).toEqual({ version: "0.169.0", checked: "0.171.0", status: "older" });
    expect(checkClient("gemini", undefined)).toEqual({ version: null, checked: "0.61.0", status: "unknown" });
    expect(checkClient("toyagent", "1.0.0")).toEqual({ version: "1.0.0", checked: null, status: "unknown" });
    // An agent name that is an Object.prototype key is no agent.
    expect(checkClient("constructor", "1.0.0").checked).toBeNull();
  });
});

/** The version a store reports for its newest session. */
function newestClient(store: SessionStore): string | undefined {
  try {
    const newest = store.listSessions()[0];
    return newest === undefined ? undefined : store.clientVersion?.(newest.id);
  } finally {
    store.close();
  }
}

/** A Claude Code config dir holding one transcript of `lines` (objects, one JSON line each). */
function claudeHome(lines: object[]): string {
  const home = tempDir();
  const dir = path.join(home, "projects", "-home-dana-code-app");
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "0b6c1d2e-1111-4222-8333-944445555666.jsonl"), lines.map((l) => `${JSON.stringify(l)}\n`).join(""));
  return home;
}

function claudeLine(n: number, version: string | undefined, extra: object = {}): object {
  return {
    type: n % 2 === 0 ? "user" : "assistant",
    uuid: `u${n}`,
    parentUuid: n === 0 ? null : `u${n - 1}`,
    timestamp: new Date(Date.UTC(2026, 10, 24, 10, 0, n)).toISOString(),
    sessionId: "0b6c1d2e-1111-4222-8333-944445555666",
    ...(version !== undefined ? { version } : {}),
    message: { role: n % 2 === 0 ? "user" : "assistant", content: [{ type: "text", text: `turn ${n}` }] },
    ...extra,
  };
}

describe("the client that wrote a store's newest session", () => {
  it("Claude Code: the newest record's `version` (a session a newer client resumed says so), past records that carry none", () => {
    const home = claudeHome([
      { type: "file-history-snapshot", messageId: "m0", snapshot: {} },
      claudeLine(0, "2.1.300"),
      claudeLine(1, "2.1.300"),
      claudeLine(2, "2.1.332"),
      claudeLine(3, "2.1.332"),
      { type: "custom-title", customTitle: "the app", sessionId: "0b6c1d2e-1111-4222-8333-944445555666" },
    ]);
    expect(newestClient(openStore({ store: home }))).toBe("2.1.332");
  });

  it("Claude Code: a last line longer than the tail read is read whole", () => {
    const huge = "x".repeat(400 * 1024);
    const home = claudeHome([claudeLine(0, "2.1.300"), claudeLine(1, "2.1.401", { message: { role: "assistant", content: [{ type: "text", text: huge }] } })]);
    expect(newestClient(openStore({ store: home }))).toBe("2.1.401");
  });

  it("Claude Code: a transcript that names no version reports none", () => {
    expect(newestClient(openStore({ store: claudeHome([claudeLine(0, undefined), claudeLine(1, undefined)]) }))).toBeUndefined();
  });

  it("Codex CLI: the rollout's session_meta `cli_version`", () => {
    const home = tempDir();
    fs.cpSync(path.join(DEMO, "codex"), home, { recursive: true });
    expect(newestClient(openStore({ store: home }))).toBe("0.169.0");
    // The newest rollout names a newer client.
    const store = openStore({ store: home });
    const newest = store.listSessions()[0]!.id;
    store.close();
    const day = path.join(home, "sessions", "2026", "11", "24");
    const file = path.join(day, fs.readdirSync(day).find((f) => f.endsWith(`${newest}.jsonl`))!);
    fs.writeFileSync(file, fs.readFileSync(file, "latin1").replace('"cli_version":"0.169.0"', '"cli_version":"0.172.1"'), "latin1");
    expect(newestClient(openStore({ store: home }))).toBe("0.172.1");
  });

  it("opencode: the session's `version`, in the SQLite store and the JSON tree", () => {
    const data = tempDir();
    fs.cpSync(path.join(DEMO, "opencode"), data, { recursive: true });
    expect(newestClient(openStore({ store: path.join(data, "opencode.db") }))).toBe("1.18.31");
    const legacy = tempDir();
    fs.cpSync(path.join(DEMO, "opencode-legacy"), legacy, { recursive: true });
    const tree = openStore({ store: path.join(legacy, "storage") });
    expect(tree.info.format).toBe("opencode-json");
    expect(newestClient(tree)).toBe("1.18.31");
  });

  it("Gemini CLI and openclaw record none (openclaw's header `version` is its line format's)", () => {
    for (const agent of ["gemini", "openclaw"]) {
      const home = tempDir();
      fs.cpSync(path.join(DEMO, agent), home, { recursive: true });
      const store = openStore({ store: home });
      expect(store.info.format, agent).toBe(agent);
      expect(newestClient(store), agent).toBeUndefined();
    }
  });
});
