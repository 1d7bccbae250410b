import { beforeAll, describe, expect, it } from "vitest";
import { expectNoAnsi, expectNoStack, HAS_SCRIPT, run, runInTerminal } from "./run.js";
import { BROKEN_RULES, defectStore, FORMATS, healthyStore, WARNING_RULES, writeStore, type Format } from "./stores.js";

const TRIM_RULES = new Set(["oversized-tool-output", "context-overflow"]);

/** stdout split into session groups: header line + the finding lines below it, then the summary. */
function groups(stdout: string): { header: string; lines: string[] }[] {
  const blocks = stdout
    .split(/\n{2,}/)
    .map((b) => b.trim())
    .filter(Boolean);
  return blocks.slice(0, -1).map((block) => {
    const [header, ...lines] = block.split("\n");
    return { header: header!, lines };
  });
}

describe.each(FORMATS)("session scan, human output (%s)", (format: Format) => {
  const fixture = defectStore();
  let store: string;
  let readPath: string;
  beforeAll(() => {
    ({ store, readPath } = writeStore(fixture.built, format));
  });

  it("groups findings by session, one line per finding with where it is, and one command that fixes the session", async () => {
    const r = await run(["session", "scan", "--all", "--store", store]);
    expect(r.status).toBe(1);
    expectNoStack(r.stderr);
    const found = groups(r.stdout);
    // Only sessions with findings get a group; the healthy one does not appear at all.
    expect(found.map((g) => g.header.split(/\s+/)[0]).sort()).toEqual([fixture.brokenId, fixture.warningsId].sort());
    expect(r.stdout).not.toContain(fixture.healthyId);

    for (const [id, rules] of [
      [fixture.brokenId, BROKEN_RULES],
      [fixture.warningsId, WARNING_RULES],
    ] as const) {
      const session = fixture.built.sessions.find((s) => s.id === id)!;
      const group = found.find((g) => g.header.startsWith(id))!;
      expect(group.header).toContain(String(session.info.title));
      // The findings, then (when a repair fixes any) the one command that fixes them all, on a line of its own.
      const repaired = rules.filter((r) => !TRIM_RULES.has(r));
      const findingLines = repaired.length > 0 ? group.lines.slice(0, -1) : group.lines;
      if (repaired.length > 0) expect(group.lines.at(-1)).toBe(`  → recover session repair ${id} --store ${store}`);
      expect(findingLines).toHaveLength(rules.length);
      const seen: string[] = [];
      for (const line of findingLines) {
        expect(line).toMatch(/^\s+(error|warning)\s/);
        const rule = rules.find((r) => new RegExp(`\\s${r}\\s`).test(line));
        expect(rule, `a rule id in: ${line}`).toBeDefined();
        seen.push(rule!);
        // A finding another command fixes says that command; the others are fixed by the session's.
        if (TRIM_RULES.has(rule!)) expect(line).toContain(`→ recover context trim ${id}`);
        else expect(line).not.toContain("→");
        expect(line.trim().split(/\s+/)[0]).toBe(id === fixture.brokenId ? "error" : "warning");
      }
      expect(seen.sort()).toEqual([...rules].sort());
    }
  });

  it("names the message and part of each finding", async () => {
    const r = await run(["session", "scan", "--all", "--store", store]);
    const broken = fixture.built.sessions.find((s) => s.id === fixture.brokenId)!;
    const assistant = broken.messages[1]!;
    const line = (rule: string) => r.stdout.split("\n").find((l) => l.includes(` ${rule} `))!;
    const blank = assistant.parts.find((p) => p.data?.type === "text" && p.data.text === "   ")!;
    const running = assistant.parts.find((p) => p.data?.type === "tool")!;
    const tornTurn = broken.messages[3]!;
    const torn = tornTurn.parts.find((p) => p.corrupt)!;
    expect(line("empty-text-part")).toContain(`${assistant.id}/${blank.id}`);
    expect(line("tool-call-interrupted")).toContain(`${assistant.id}/${running.id}`);
    expect(line("unreadable-record")).toContain(`${tornTurn.id}/${torn.id}`);
    const unfinished = fixture.built.sessions.find((s) => s.id === fixture.warningsId)!.messages.at(-1)!;
    expect(line("incomplete-message")).toContain(unfinished.id);
  });

  it("ends with a summary line counting findings, errors, warnings and sessions", async () => {
    const r = await run(["session", "scan", "--all", "--store", store]);
    const last = r.stdout.trimEnd().split("\n").at(-1)!;
    expect(last).toMatch(/5 findings \(3 errors, 2 warnings\) in 2 of 3 sessions$/);
    // What is scanned is said on stderr, so stdout stays the report.
    expect(r.stderr).toContain(readPath);
  });

  it("prints no ANSI escapes with NO_COLOR, with --no-color, or when stdout is not a terminal", async () => {
    for (const [args, env] of [
      [[], { NO_COLOR: "1" }],
      [["--no-color"], { NO_COLOR: undefined }],
      [[], { NO_COLOR: undefined, CI: undefined }],
    ] as const) {
      const r = await run(["session", "scan", "--all", ...args, "--store", store], { env });
      expect(r.status).toBe(1);
      expect(r.stdout).toContain("tool-call-interrupted");
      expectNoAnsi(r.stdout);
      expectNoAnsi(r.stderr);
      expectNoStack(r.stderr);
    }
  });

  it("a healthy store: no finding lines, a clean summary, exit 0", async () => {
    const r = await run(["session", "scan", "--all", "--store", writeStore(healthyStore(2), format).store]);
    expect(r.status).toBe(0);
    expectNoStack(r.stderr);
    expect(r.stdout.trim()).toMatch(/^\S* ?no findings in 2 sessions$/);
    expect(r.stdout).not.toMatch(/\b(error|warning)\b/);
  });
});

describe.skipIf(!HAS_SCRIPT)("session scan on a terminal", () => {
  const fixture = defectStore();
  let store: string;
  beforeAll(() => {
    ({ store } = writeStore(fixture.built, "opencode-sqlite"));
  });
  // Spinner allowed: no CI, no NO_COLOR unless the test sets it.
  const terminalEnv = { CI: undefined, NO_COLOR: undefined };
  const REPORT_COLOURS = /\u001b\[(1|2|31|32|33)m/;

  it("colours the report on a terminal (so the NO_COLOR tests below can fail)", () => {
    const r = runInTerminal(["session", "scan", "--all", "--store", store], { env: terminalEnv });
    expect(r.status).toBe(1);
    expect(r.output).toContain("tool-call-interrupted");
    expect(r.output).toMatch(REPORT_COLOURS);
    expectNoStack(r.output);
  });

  it("NO_COLOR on a terminal: the report itself has no colour", () => {
    const r = runInTerminal(["session", "scan", "--all", "--store", store], { env: { ...terminalEnv, NO_COLOR: "1" } });
    expect(r.status).toBe(1);
    expect(r.output).toContain("tool-call-interrupted");
    expect(r.output).not.toMatch(REPORT_COLOURS);
  });

  // BUG (src/cli/io.ts, createIo → spinner): the progress spinner on stderr ignores NO_COLOR. On a terminal with
  // NO_COLOR=1 it still draws a cyan frame (ESC[36m … ESC[39m) plus cursor hide/show and line-clear sequences;
  // only the chalk instance used for the report honours NO_COLOR.
  it("NO_COLOR on a terminal: no ANSI escape codes at all", () => {
    const r = runInTerminal(["session", "scan", "--all", "--store", store], { env: { ...terminalEnv, NO_COLOR: "1" } });
    expect(r.output).toContain("tool-call-interrupted");
    expectNoAnsi(r.output);
  });
});
