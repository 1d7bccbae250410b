// Issue 40, row 16 (docs/research/severity-audit.md): a tool call left without a result in openclaw 2026.7.35's JSONL
// transcript, as the real client wrote it and then continued over it once (scenarios killed-mid-call and aborted-call
// of scripts/clients/scenarios/openclaw.mjs; fixtures/openclaw-2026.7/README.md). The client sends an error result of
// its own for the call, or leaves a turn that ended `aborted` out with its call, and the API takes the request: a
// warning. recover's fix writes that same result (or drops that call), so the request does not change and the file is
// mended too; restore gives the bytes back.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { expectSameBytes, run, snapshot, tempDir } from "../cli/run.js";
import { scanFindings } from "../support/openclaw-db.js";

const MISSING = "[openclaw] missing tool result in session history; inserted synthetic error result for transcript repair.";

type Line = { type: string; message?: { role: string; stopReason?: string; toolCallId?: string; content: { type: string; text?: string }[] } };

function store(name: string): { dir: string; id: string; file: string } {
  const dir = tempDir();
  const sessions = path.join(dir, "agents", "main", "sessions");
  fs.mkdirSync(sessions, { recursive: true });
  const text = fs.readFileSync(path.resolve(`fixtures/openclaw-2026.7/${name}.jsonl`), "utf8");
  const id = (JSON.parse(text.slice(0, text.indexOf("\n"))) as { id: string }).id;
  const file = path.join(sessions, `${id}.jsonl`);
  fs.writeFileSync(file, text);
  // Last written when the client wrote it, not now (a fresh copy would look like a running agent's).
  const captured = new Date("2026-11-27T21:00:00Z");
  fs.utimesSync(file, captured, captured);
  return { dir, id, file };
}

const messages = (file: string) =>
  fs
    .readFileSync(file, "utf8")
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l) as Line)
    .flatMap((l) => (l.type === "message" ? [l.message!] : []));

describe("a tool call without a result in openclaw 2026.7.35's transcript", () => {
  it.each([
    // SIGKILLed mid-call: the client answers the call with its own error result in every request.
    [
      "killed-mid-call",
      (file: string) =>
        expect(
          messages(file)
            .filter((m) => m.role === "toolResult")
            .map((m) => m.content[0]!.text),
        ).toEqual([MISSING]),
    ],
    // The turn ended `aborted`: the client leaves it out with its call; the repair drops the call (openclaw #4597), and
    // the turn, which held nothing else, goes with it. The user's two prompts stay.
    [
      "aborted-call",
      (file: string) => {
        expect(messages(file).map((m) => `${m.role}${m.stopReason ? ` ${m.stopReason}` : ""}`)).toEqual(["user", "user", "assistant stop"]);
      },
    ],
  ])("%s: a warning naming what the client does; the repair mends the file as the client sends it; restore undoes it", async (name, mended) => {
    const { dir, id, file } = store(name);
    const found = await scanFindings(dir);
    expect(found.map((f) => `${f.rule} ${f.severity}`)).toEqual(["tool-result-missing warning"]);
    expect(found[0]!.message).toMatch(/openclaw sends an error result of its own for it, or leaves out a turn that ended aborted or error/);

    const before = snapshot(dir);
    const repaired = await run(["session", "repair", id, "--yes", "--include-live", "--store", dir]);
    expect(repaired.status, repaired.stderr).toBe(0);
    mended(file);
    expect(await scanFindings(dir)).toEqual([]);
    const restored = await run(["session", "restore", "--last", "--yes", "--store", dir]);
    expect(restored.status, restored.stderr).toBe(0);
    expectSameBytes(before, snapshot(dir));
  });
});
