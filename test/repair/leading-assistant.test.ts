// Issue 14.3's top causes, through the built CLI (npm run build first): a history whose first prompt was lost begins
// with an assistant turn, which the API refuses (`first message must use the "user" role`). A repair takes that turn
// out up to the next prompt, so the request the agent sends is accepted and a scan passes; when no prompt follows it
// leaves the session alone and exits 1 naming what is left, in words and in --json. An openclaw line that took an
// earlier line's id is renamed when the chain is relinked onto it, so the relinked chain keeps the prompt.
import Database from "better-sqlite3";
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import type { SessionRecords } from "../../src/model/opencode-records.js";
import type { TranscriptRecords } from "../../src/model/transcript.js";
import { anthropicRequest } from "../../src/provider/anthropic-request.js";
import { thinkingMode, validateAnthropic } from "../../src/provider/validate-anthropic.js";
import { sessionView } from "../../src/scan/session-view.js";
import { openStore } from "../../src/stores/discover.js";
import { sandbox } from "../cli/repair-support.js";
import { parseJsonDocument, tempDir } from "../cli/run.js";
import { FORMATS, T0, writeStore } from "../cli/stores.js";
import { buildStore, healthySession } from "../support/opencode-fixtures.js";
import { ClaudeTranscript, OpenclawTranscript } from "../support/transcript-fixtures.js";

const HOUR = 60 * 60 * 1000;
const START = Date.UTC(2026, 3, 6, 14, 0, 0);

interface Finding {
  rule: string;
  severity: string;
  message: string;
}

function lines(file: string): string[] {
  return fs.readFileSync(file, "utf8").split("\n").slice(0, -1);
}

/** Rewrites the file's lines, and ages it (an agent that stopped an hour ago). */
function rewrite(file: string, change: (lines: string[]) => string[]): string[] {
  const kept = change(lines(file));
  fs.writeFileSync(file, `${kept.join("\n")}\n`);
  const then = new Date(Date.now() - HOUR);
  fs.utimesSync(file, then, then);
  return kept;
}

const idOf = (line: string) => {
  const value = JSON.parse(line) as { uuid?: string; id?: string };
  return value.uuid ?? value.id;
};

/** What the API would answer to the request the agent builds from the file now: nothing, when it is accepted. */
function violations(store: string, sessionId: string): string[] {
  const opened = openStore({ store });
  try {
    const view = sessionView(opened.loadSession(sessionId, "lean") as TranscriptRecords, { now: Date.now(), liveWindowMs: 0 });
    const request = anthropicRequest(view.conversation);
    return validateAnthropic(request, thinkingMode(request, "auto")).map((v) => v.text);
  } finally {
    opened.close();
  }
}

async function repairThenScan(store: string) {
  const sb = sandbox();
  const repair = await sb.run(["session", "repair", "--all", "--yes", "--json", "--store", store]);
  const scan = await sb.run(["session", "scan", "--all", "--json", "--store", store]);
  const errors = (parseJsonDocument(scan.stdout).sessions as { findings: Finding[] }[]).flatMap((s) => s.findings.filter((f) => f.severity === "error"));
  return { repair, doc: parseJsonDocument(repair.stdout), errors, sb };
}

/** Two turns: the first prompt answered with a tool call and a reply, then a second prompt and its answer. */
function openclawTwoTurns(): { t: OpenclawTranscript; firstPrompt: string; firstTurn: string[]; secondPrompt: string } {
  const t = new OpenclawTranscript({ seed: 14, start: START });
  t.entry({ type: "model_change", provider: "anthropic", modelId: "claude-sonnet-4-5" });
  const firstPrompt = t.user("How full is the NAS?");
  const df = t.toolCallId();
  const call = t.assistant([
    { type: "thinking", thinking: "Run df." },
    { type: "toolCall", id: df, name: "exec", arguments: { command: "df -h /volume1" } },
  ]);
  const result = t.toolResult(df, "exec", "/dev/md2  7.0T  6.6T  400G  95% /volume1");
  const reply = t.assistant([{ type: "text", text: "95% full." }]);
  const secondPrompt = t.user("Prune the old docker images.");
  t.assistant([{ type: "text", text: "Pruned 2 GB of images." }]);
  return { t, firstPrompt, firstTurn: [call, result, reply], secondPrompt };
}

function claudeTwoTurns(): { t: ClaudeTranscript; firstPrompt: string; firstTurn: string[]; secondPrompt: string } {
  // A client that sends the reply first (2.1.277 and later; 2.1.197 leads with its own context: issue 40, row 16).
  const t = new ClaudeTranscript({ seed: 14, start: START, cwd: "/home/dana/code/invoice-api", version: "2.1.332" });
  const firstPrompt = t.user("Why does GET /invoices ignore ?status=paid?");
  const read = t.toolUseId();
  const call = t.assistant([
    { type: "thinking", thinking: "Look at the route." },
    { type: "tool_use", id: read, name: "Read", input: { file_path: "src/routes/invoices.ts" } },
  ]);
  const result = t.toolResult(read, "export function list(req) { return db.invoices.findMany(); }");
  const reply = t.assistant([{ type: "text", text: "The handler drops the filter." }]);
  const secondPrompt = t.user("Fix it.");
  t.assistant([{ type: "text", text: "Fixed." }]);
  return { t, firstPrompt, firstTurn: [...call, result, ...reply], secondPrompt };
}

describe.each([
  ["openclaw", openclawTwoTurns, (t: OpenclawTranscript | ClaudeTranscript, dir: string) => (t as OpenclawTranscript).writeTo(dir)],
  ["claude", claudeTwoTurns, (t: OpenclawTranscript | ClaudeTranscript, dir: string) => (t as ClaudeTranscript).writeTo(dir)],
] as const)("a %s transcript whose first prompt line was deleted", (_dialect, build, write) => {
  it("repair takes out the turn that answered it, up to the next prompt: exit 0, the API accepts the request, a scan passes", async () => {
    const { t, firstPrompt, firstTurn, secondPrompt } = build();
    const store = tempDir();
    const file = write(t, store);
    const damaged = rewrite(file, (all) => all.filter((line) => idOf(line) !== firstPrompt));
    expect(violations(store, t.sessionId)).toEqual(['messages: first message must use the "user" role']);

    const { repair, doc, errors } = await repairThenScan(store);
    expect(repair.status, repair.stdout).toBe(0);
    expect(doc.summary).toMatchObject({ errorsLeft: 0 });
    expect(errors).toEqual([]);
    expect(violations(store, t.sessionId)).toEqual([]);
    // The first turn's lines are gone (in the backup); the next prompt and everything after it are still there.
    const after = lines(file).map(idOf);
    for (const id of firstTurn) expect(after).not.toContain(id);
    expect(after).toContain(secondPrompt);
    expect(after.slice(after.indexOf(secondPrompt))).toEqual(damaged.map(idOf).slice(damaged.map(idOf).indexOf(secondPrompt)));
  });

  it("when no prompt follows, nothing is removed: exit 1, the finding is listed as left with no automatic fix", async () => {
    const { t, firstPrompt, secondPrompt } = build();
    const store = tempDir();
    const file = write(t, store);
    // Only the first turn is left, without its prompt.
    const cut = rewrite(file, (all) => {
      const second = all.findIndex((line) => idOf(line) === secondPrompt);
      return all.slice(0, second).filter((line) => idOf(line) !== firstPrompt);
    });
    const { repair, doc, errors, sb } = await repairThenScan(store);
    expect(repair.status, repair.stdout).toBe(1);
    // Nothing removed (the answer's dangling parent link is relinked: broken-parent-chain).
    expect(lines(file).map(idOf)).toEqual(cut.map(idOf));
    expect(errors.map((f) => f.rule)).toEqual(["leading-assistant"]);
    const sessions = doc.sessions as { unfixed: Finding[] }[];
    expect(sessions.flatMap((s) => s.unfixed.map((f) => f.rule))).toEqual(["leading-assistant"]);
    expect(doc.summary).toMatchObject({ errorsLeft: 1 });

    const human = await sb.run(["session", "repair", "--all", "--yes", "--store", store]);
    expect(human.status).toBe(1);
    expect(human.stdout).toMatch(/left alone: error leading-assistant .*no automatic fix/);
    expect(human.stdout).toMatch(/1 error finding left that no automatic fix covers/);
  });
});

describe("an openclaw line that took an earlier line's id", () => {
  it("the chain relinked onto it keeps the prompt: the line gets an id of its own, exit 0, the API accepts the request", async () => {
    const { t, firstPrompt } = openclawTwoTurns();
    const store = tempDir();
    const file = t.writeTo(store);
    // The prompt line now holds the model_change line's id: its answer's parentId names no line, and the id it holds
    // names the earlier line, so a relink by that id would skip the prompt.
    let modelChange = "";
    rewrite(file, (all) =>
      all.map((line) => {
        const value = JSON.parse(line) as { type: string; id: string };
        if (value.type === "model_change") modelChange = value.id;
        return value.id === firstPrompt ? JSON.stringify({ ...value, id: modelChange }) : line;
      }),
    );
    const { repair, errors } = await repairThenScan(store);
    expect(repair.status, repair.stdout).toBe(0);
    expect(errors).toEqual([]);
    expect(violations(store, t.sessionId)).toEqual([]);
    const prompt = lines(file)
      .map((line) => JSON.parse(line) as { id: string; parentId: string | null; message?: { content?: unknown } })
      .find((v) => v.message?.content === "How full is the NAS?");
    expect(prompt?.id).not.toBe(modelChange);
    expect(prompt?.id).toMatch(/^[0-9a-f]{8}$/);
  });
});

describe.each(FORMATS)("an opencode session whose first user message was lost (%s)", (format) => {
  it("repair removes the reply to it, so the request begins with the next prompt: exit 0, a scan passes", async () => {
    const built = buildStore({ seed: 14, sessions: [healthySession({ start: T0, title: "Three turns", turns: 3 })] });
    const session = built.sessions[0]!;
    const [lostPrompt, firstReply, ...rest] = session.messages;
    const { store, readPath } = writeStore(built, format);
    if (format === "opencode-sqlite") {
      const db = new Database(readPath);
      db.prepare("DELETE FROM part WHERE message_id = ?").run(lostPrompt!.id);
      db.prepare("DELETE FROM message WHERE id = ?").run(lostPrompt!.id);
      db.close();
    } else {
      fs.rmSync(`${readPath}/message/${session.id}/${lostPrompt!.id}.json`);
      fs.rmSync(`${readPath}/part/${lostPrompt!.id}`, { recursive: true, force: true });
    }
    const { repair, errors } = await repairThenScan(store);
    expect(repair.status, repair.stdout).toBe(0);
    expect(errors).toEqual([]);
    const opened = openStore({ store });
    try {
      const ids = (opened.loadSession(session.id, "lean") as SessionRecords).messages.map((m) => m.ref.id);
      expect(ids).toEqual(rest.map((m) => m.id));
      expect(ids).not.toContain(firstReply!.id);
    } finally {
      opened.close();
    }
  });
});
