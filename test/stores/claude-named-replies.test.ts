// Which stored reply Claude Code 2.1.332 names as `diagnostics.previous_message_id` (docs/research/
// claude-code-previous-message-id.md), on transcripts the real client wrote (scenarios previous-id-api-error-tail and
// previous-id-foreign): recover's view must pick the entry the client picked, and flag it only when its id is not
// the API's.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { sessionView } from "../../src/scan/session-view.js";
import { loadRecords } from "../support/rule-tester.js";

const FIXTURES = path.resolve("fixtures/claude-code-2.1");
type Line = Record<string, unknown> & { message?: Record<string, unknown> };

/** The fixture's lines, `edit`ed, as the view names them. */
function named(fixture: string, edit: (lines: Line[]) => void = () => {}) {
  const lines = fs
    .readFileSync(path.join(FIXTURES, `${fixture}.jsonl`), "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Line);
  edit(lines);
  const bytes = Buffer.from(`${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
  const view = sessionView(loadRecords({ dialect: "claude", bytes }), { now: Date.UTC(2030, 0, 1), liveWindowMs: 0 });
  return (view.transcript?.namedReplies ?? []).map((r) => ({ id: r.id, marks: r.marks }));
}
const replies = (lines: Line[]) => lines.filter((l) => l.type === "assistant");

describe("the reply Claude Code names as the previous response", () => {
  it("its own API error entry at the tail (isApiErrorMessage, a uuid id, a requestId): passed over, as the client does", () => {
    const lines: Line[] = [];
    named("previous-id-api-error-tail", (l) => lines.push(...l));
    const tail = replies(lines).at(-1)!;
    expect(tail).toMatchObject({ isApiErrorMessage: true, requestId: expect.stringMatching(/^req_/) });
    expect(tail.message!.id).not.toMatch(/^msg_/);
    expect(named("previous-id-api-error-tail")).toEqual([]);
  });

  it("the same entry without its isApiErrorMessage: named, by its requestId", () => {
    expect(
      named("previous-id-api-error-tail", (lines) => {
        delete replies(lines).at(-1)!.isApiErrorMessage;
      }),
    ).toEqual([{ id: expect.stringMatching(/^[0-9a-f-]{36}$/), marks: ["requestId"] }]);
  });

  it("a gateway's id on the latest reply: named; without its requestId the client passes over it to turn one's msg_ id", () => {
    expect(named("previous-id-foreign")).toEqual([{ id: "gen-1764230000-AbCdEfGhIjKlMnOp", marks: ["requestId"] }]);
    expect(
      named("previous-id-foreign", (lines) => {
        for (const l of replies(lines)) if (l.message!.id === "gen-1764230000-AbCdEfGhIjKlMnOp") delete l.requestId;
      }),
    ).toEqual([]);
  });

  it("every reply through the gateway, latest first, down to the first API id", () => {
    expect(
      named("previous-id-foreign", (lines) => {
        for (const l of replies(lines)) if (l.message!.id !== "gen-1764230000-AbCdEfGhIjKlMnOp" && !l.isApiErrorMessage) l.message!.id = "gen-earlier";
      }),
    ).toEqual([
      { id: "gen-1764230000-AbCdEfGhIjKlMnOp", marks: ["requestId"] },
      { id: "gen-earlier", marks: ["requestId"] },
    ]);
  });
});
