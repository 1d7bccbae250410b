// Text from the store reaches a person's terminal with its control characters escaped and long values shortened:
// a session title holding `ESC]0;…BEL ESC[2J` must not retitle and clear the terminal. Point 11 of the issue.
import { describe, expect, it } from "vitest";
import {
  buildStore,
  MINUTE,
  Transcript,
  writeJsonStore,
  writeSqliteStore,
  type BuiltStore,
  type Json,
  type SessionSpec,
} from "../support/opencode-fixtures.js";
import { expectNoStack, parseJsonDocument, run, tempDir } from "./run.js";
import { FORMATS, type Format } from "./stores.js";

const HOSTILE_TITLE = "\u001b]0;pwned\u0007\u001b[2J\u009b31mred\u202eevil";
const HOSTILE_DIRECTORY = "/home/dana/\u001b[1;1Hcode";
/** 100 KB: too long for a file name, so only a database can hold it. */
const HUGE_ID = `ses_${"\u001b[2J".repeat(10)}${"a".repeat(100_000)}`;
const UNFINISHED: Json = { time: { completed: undefined }, finish: undefined };

/** Any control character but newline and tab (and C1, which some terminals take as CSI). */
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const MAX_LINE = 2_000;

/** An interrupted bash call (a finding, so every command prints the session), hours old. */
function hostileStore(format: Format): BuiltStore {
  const start = Date.now() - 5 * 60 * MINUTE;
  const w = new Transcript({ start, seed: 9, directory: HOSTILE_DIRECTORY });
  const messages = () => [
    w.user("Run the whole test suite."),
    w.assistant([w.stepStart(), w.text("Running it."), w.running("bash\u001b[2J", { command: "npm test", description: "Run all tests" })], UNFINISHED),
  ];
  const sessions: SessionSpec[] = [{ title: HOSTILE_TITLE, directory: HOSTILE_DIRECTORY, created: start, messages: messages() }];
  if (format === "opencode-sqlite")
    sessions.push({ id: HUGE_ID, title: HOSTILE_TITLE, directory: HOSTILE_DIRECTORY, created: start + MINUTE, messages: messages() });
  return buildStore({ seed: 4, sessions });
}

function writeHostile(format: Format): string {
  const dir = tempDir();
  if (format === "opencode-sqlite") writeSqliteStore(dir, hostileStore(format));
  else writeJsonStore(dir, hostileStore(format));
  return dir;
}

function expectSafe(output: string): void {
  expect(output).not.toMatch(RAW_CONTROL);
  for (const line of output.split("\n")) expect(line.length, line.slice(0, 120)).toBeLessThanOrEqual(MAX_LINE);
}

describe.each(FORMATS)("store text is printed escaped and shortened (%s)", (format) => {
  const env = { XDG_STATE_HOME: tempDir() };

  it("session list, scan and repair --dry-run: no raw control character, the escapes visible, no endless line", async () => {
    const store = writeHostile(format);
    for (const args of [
      ["session", "list"],
      ["session", "scan"],
      ["session", "repair", "--all", "--dry-run"],
    ]) {
      const r = await run([...args, "--store", store], { env });
      expectNoStack(r.stderr);
      expectSafe(r.stdout);
      expectSafe(r.stderr);
      expect(r.stdout, args.join(" ")).toContain("\\x1b]0;pwned\\x07\\x1b[2J");
      if (args[1] !== "list") expect(r.stdout, args.join(" ")).toContain("\\x1b]0;pwned\\x07\\x1b[2J\\x9b31mred\\u202eevil");
      if (args[1] !== "repair") expect(r.stdout, args.join(" ")).toContain("/home/dana/\\x1b[1;1Hcode");
      if (format === "opencode-sqlite") expect(r.stdout, args.join(" ")).toMatch(/ses_(\\x1b\[2J){10}a+…\(100,044 chars\)…a+/);
    }
  });

  it("--json keeps every value exact (the JSON encoder escapes control characters itself)", async () => {
    const store = writeHostile(format);
    const doc = parseJsonDocument((await run(["session", "list", "--store", store, "--json"], { env })).stdout) as {
      sessions: { id: string; title: string; directory: string }[];
    };
    expect(doc.sessions.map((s) => s.title)).toContain(HOSTILE_TITLE);
    expect(doc.sessions.map((s) => s.directory)).toContain(HOSTILE_DIRECTORY);
    if (format === "opencode-sqlite") expect(doc.sessions.map((s) => s.id)).toContain(HUGE_ID);
  });

  it("an error quoting a 100 KB id with control characters: one short line, escaped", async () => {
    const store = writeHostile(format);
    const wanted = `ses_\u001b]0;pwned\u0007${"z".repeat(100_000)}`;
    const r = await run(["session", "scan", wanted, "--store", store], { env });
    expect(r.status).toBe(2);
    expectSafe(r.stderr);
    const lines = r.stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^recover: no session ses_\\x1b\]0;pwned\\x07z+…\(100,014 chars\)…z+ in /);
    // The JSON error document keeps the message exact.
    const json = parseJsonDocument((await run(["session", "scan", wanted, "--store", store, "--json"], { env })).stdout) as { error: { message: string } };
    expect(json.error.message).toContain(wanted);
  });
});
