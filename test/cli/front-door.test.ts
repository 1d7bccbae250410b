// The front door, tried as a new user would (issue 37): a group's subcommand typed without its group, one rule asked
// about by id, a restore with no backup named.
import { describe, expect, it } from "vitest";
import { expectOneLineError, run, tempDir } from "./run.js";

describe("first words", () => {
  it.each([
    ["scan", "recover session scan"],
    ["repair", "recover session repair"],
    ["trim", "recover context trim"],
    ["salvage", "recover store salvage"],
  ])("recover %s suggests %s", async (word, meant) => {
    const r = await run([word]);
    expect(r.status).toBe(2);
    expectOneLineError(r, new RegExp(`unknown command '${word}' for recover \\(did you mean ${meant}\\?\\)`));
  });

  it("recover rules <id> describes that rule; an id it does not know names the near ones", async () => {
    const r = await run(["rules", "tool-result-missing"]);
    expect(r.status).toBe(0);
    expect(r.stdout.split("\n")).toEqual([
      "tool-result-missing  error",
      expect.stringContaining("tool call with no tool result"),
      "fixed by: recover session repair",
      "",
    ]);
    const json = JSON.parse((await run(["rules", "tool-result-missing", "--json"])).stdout) as { rules: { id: string }[] };
    expect(json.rules.map((x) => x.id)).toEqual(["tool-result-missing"]);
    const unknown = await run(["rules", "tool-result"]);
    expect(unknown.status).toBe(2);
    expectOneLineError(unknown, /no rule "tool-result" \(did you mean tool-result-missing, orphan-tool-result\?\)/);
  });

  it("session restore with no backup named says where the ids are, and --last takes the newest", async () => {
    const none = await run(["session", "restore", "--backup-dir", tempDir()]);
    expect(none.status).toBe(2);
    expectOneLineError(none, /give a backup id or --last \(`.*session backups --backup-dir .*` lists them\)/);
    const empty = await run(["session", "restore", "--last", "--backup-dir", tempDir()]);
    expect(empty.status).toBe(2);
    expectOneLineError(empty, /no backups in /);
  });
});
