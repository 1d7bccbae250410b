// Progress at a real terminal (a pty through script(1)): a long scan or repair shows, on stderr, the sessions done
// out of all and the session being read; --json and -q show none. Each change is drawn at once the first time and
// then at most every 100 ms, so the first two lines (0 done, 1 done) are always there to see.
import { beforeAll, describe, expect, it } from "vitest";
import { buildStore, healthySession } from "../support/opencode-fixtures.js";
import { HAS_SCRIPT, run, runInTerminal } from "./run.js";
import { brokenTurnSession, DAY, T0, writeStore } from "./stores.js";

const terminal = { env: { CI: undefined, NO_COLOR: undefined, RECOVER_SCAN_THREADS: "1" } };

describe.runIf(HAS_SCRIPT)("progress on a terminal", () => {
  const built = buildStore({
    seed: 9,
    sessions: Array.from({ length: 6 }, (_, i) =>
      i % 2 === 0 ? healthySession({ start: T0 + i * DAY, title: `Healthy ${i}` }) : brokenTurnSession(T0 + i * DAY),
    ),
  });
  const { store } = writeStore(built, "opencode-sqlite");
  // In the order --all takes them (newest first), as the scan's own JSON lists them.
  let ids: string[] = [];
  beforeAll(async () => {
    const scanned = await run(["session", "scan", "--all", "--json", "--store", store]);
    ids = (JSON.parse(scanned.stdout) as { sessions: { id: string }[] }).sessions.map((s) => s.id);
    expect(ids).toHaveLength(6);
  });

  it("scan: sessions done / total, the session being read, and the findings so far", () => {
    const { output, status } = runInTerminal(["session", "scan", "--all", "--store", store], terminal);
    expect(status).toBe(1);
    expect(output).toContain(`scanning 0/6 sessions · ${ids[0]}`);
    expect(output).toMatch(new RegExp(`scanning 1/6 sessions · ${ids[1]} · \\d+ findings?`));
    // The report itself is still there, after the spinner's line was cleared.
    expect(output).toContain("tool-call-interrupted");
  });

  it("repair: sessions planned / total, the session being planned, and the changes so far", () => {
    const { output } = runInTerminal(["session", "repair", "--all", "--dry-run", "--store", store], terminal);
    expect(output).toContain(`planning 0/6 sessions · ${ids[0]}`);
    expect(output).toMatch(new RegExp(`planning 1/6 sessions · ${ids[1]} · \\d+ changes?`));
  });

  it("none with --json or -q, nor without a terminal's colours (NO_COLOR)", () => {
    for (const flags of [["--json"], ["-q"]]) {
      const { output } = runInTerminal(["session", "scan", "--all", ...flags, "--store", store], terminal);
      expect(output).not.toMatch(/scanning \d+\/6/);
    }
    const { output } = runInTerminal(["session", "scan", "--all", "--store", store], { env: { ...terminal.env, NO_COLOR: "1" } });
    expect(output).not.toMatch(/scanning \d+\/6/);
  });
});
