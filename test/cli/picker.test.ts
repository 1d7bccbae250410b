// No session id at a terminal: a searchable picker (a real pty through util-linux `script`, real keystrokes) of the
// demo store's sessions, newest first with their error findings; typing narrows it, Enter picks, and the command
// goes on with the session picked. Without a terminal nothing changes: repair stays a usage error (exit 2).
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { HAS_SCRIPT, parseJsonDocument, run, tempDir } from "./run.js";
import { runInTerminalAnswering } from "./repair-support.js";

const DEMO = path.resolve("fixtures/demo/opencode");
const plain = (text: string) => text.replace(/\x1b\[[0-9;?]*[a-zA-Z]/g, "");

function demoCopy(): string {
  const dir = tempDir();
  fs.cpSync(DEMO, dir, { recursive: true });
  return dir;
}

describe.skipIf(!HAS_SCRIPT)("the session picker, at a terminal", () => {
  it("repair with no id: the list, newest first with error counts; typing narrows it and Enter repairs the one picked", async () => {
    const store = demoCopy();
    const listed = parseJsonDocument((await run(["session", "list", "--json", "--store", store])).stdout) as { sessions: { id: string; title: string }[] };
    const wanted = listed.sessions.find((s) => s.title === "Invoice total off by a cent")!;
    const env = { XDG_STATE_HOME: tempDir() };
    const r = await runInTerminalAnswering(["session", "repair", "--store", store, "--dry-run"], ["invoice total", "\r"], {
      env,
      when: /Which session to repair\?/,
    });
    const output = plain(r.output);
    expect(r.prompted).toBe(true);
    expect(r.status, output).toBe(1);
    // Newest first, with what the scan found.
    const first = output.indexOf(listed.sessions[0]!.title);
    expect(first).toBeGreaterThan(-1);
    expect(output.indexOf(listed.sessions[1]!.title)).toBeGreaterThan(first);
    expect(output).toMatch(/Invoice total off by a cent\s+invoice-api\s+\d+ days ago\s+4 msgs\s+1 error/);
    // The dry run of exactly that session.
    expect(output, output.slice(-3000)).toContain(`+++ b/${wanted.id}/`);
    expect(output).not.toContain(`+++ b/${listed.sessions[0]!.id}/`);
    expect(output).toMatch(/dry run: .* in 1 session planned/);
  });

  it("scan offers all sessions first; Ctrl-C at the picker exits 130", async () => {
    const store = demoCopy();
    const all = await runInTerminalAnswering(["session", "scan", "--store", store], ["\r"], { when: /Which session to scan\?/ });
    expect(plain(all.output)).toMatch(/❯ all 16 sessions/);
    expect(all.status).toBe(1);
    expect(plain(all.output)).toMatch(/16 sessions/);
    const interrupted = await runInTerminalAnswering(["context", "trim", "--store", store], ["\u0003"], { when: /Which session to trim\?/ });
    expect(interrupted.status).toBe(130);
  });

  it("without a terminal: repair with no id is still the usage error", async () => {
    const r = await run(["session", "repair", "--store", demoCopy()]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/give a session id, --last or --all/);
  });
});
