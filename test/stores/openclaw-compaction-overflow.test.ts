// A session over the model's window whose auto-compaction failed too, frozen across restarts (issue 40 row 13), in
// the database the real openclaw 2026.9.6 left (fixtures/openclaw-2026.9-sqlite/compaction-overflow.sqlite.gz;
// docs/research/openclaw-compaction.md). The client prints a text with no count; the count and the window are in the
// refused turns it stored, and the trim takes them from there.
import { describe, expect, it } from "vitest";
import { parseJsonDocument, run } from "../cli/run.js";
import { onlySession, openclawState, sessionRows } from "../support/openclaw-db.js";

const OPENCLAW_OVERFLOW = "Context overflow: prompt too large for the model. Try /reset (or /new) to start a fresh session, or use a larger-context model.";
/** The window the mock enforced, as the refusals the client stored state it. */
const WINDOW = /limit 33,258\b/;

type ScanDoc = { sessions: { findings: { rule: string }[] }[] };

describe("openclaw 2026.9.6 frozen by a failed compaction (compaction-overflow)", () => {
  it("repair --error with the client's own text trims under the window the stored refusal states; restore gives every row back", async () => {
    const { state, db } = openclawState("compaction-overflow");
    const id = onlySession(db);
    const before = sessionRows(db);
    const repaired = await run(["session", "repair", id, "--error", OPENCLAW_OVERFLOW, "--yes", "--force", "--include-live", "--store", state]);
    expect(repaired.status, repaired.stderr).toBe(0);
    expect(repaired.stdout).toMatch(WINDOW);
    // Under the window now: a scan judged against it finds no overflow.
    const scan = await run(["session", "scan", id, "--context-limit", "33258", "--include-live", "--json", "--exit-zero", "--store", state]);
    expect(scan.status, scan.stderr).toBe(0);
    const doc = parseJsonDocument(scan.stdout) as ScanDoc;
    expect(doc.sessions.flatMap((s) => s.findings.map((f) => f.rule))).not.toContain("context-overflow");
    const restored = await run(["session", "restore", "--last", "--yes", "--store", state]);
    expect(restored.status, restored.stderr).toBe(0);
    expect(sessionRows(db)).toBe(before);
  });

  it("context trim with nothing given reads the window from the refusal the client stored", async () => {
    const { state, db } = openclawState("compaction-overflow");
    const r = await run(["context", "trim", onlySession(db), "--dry-run", "--force", "--store", state]);
    // A dry run with changes exits 1.
    expect(r.status, r.stderr).toBe(1);
    expect(r.stdout).toMatch(WINDOW);
  });

  it("without a count anywhere, the text alone is still an overflow (explain)", async () => {
    const r = await run(["explain", OPENCLAW_OVERFLOW]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^context_overflow /);
  });
});
