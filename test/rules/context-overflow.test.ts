import { describe, expect, it } from "vitest";
import { MINUTE, type MessageSpec, type Transcript } from "../support/opencode-fixtures.js";
import { expected, FORMATS, HOUR, lastWrite, scan, sessionOf, spots, START, storeOf, toolOutput, userMessage } from "./harness.js";

const FILE_CHARS = 42_000; // each read stays under the 50,000-character oversized limit
const TURNS = 5;
const READS_PER_TURN = 4; // 20 reads × 42,000 chars ≈ 210,000 tokens at 4 chars per token

function migration(n: number): string {
  const line = `ALTER TABLE invoice_line_${n} ADD COLUMN amount_cents BIGINT NOT NULL DEFAULT 0; -- backfilled below\n`;
  return line.repeat(Math.ceil(FILE_CHARS / line.length)).slice(0, FILE_CHARS);
}

/** The user has the agent read every migration, four per turn, without any compaction. */
function readMigrations(w: Transcript, opts: { prunedTurns?: number } = {}): MessageSpec[] {
  const out: MessageSpec[] = [];
  for (let t = 0; t < TURNS; t++) {
    const reads = Array.from({ length: READS_PER_TURN }, (_, i) => {
      const n = t * READS_PER_TURN + i + 1;
      const pruned = t < (opts.prunedTurns ?? 0);
      return toolOutput(w, "read", { filePath: `/home/dana/code/invoice-api/db/migrations/${String(n).padStart(4, "0")}.sql` }, migration(n), {
        title: `db/migrations/${String(n).padStart(4, "0")}.sql`,
        ...(pruned ? { compactedAt: START + 6 * HOUR } : {}),
      });
    });
    out.push(
      w.user(`Read the next ${READS_PER_TURN} migrations and check they all backfill amount_cents.`, { gap: 2 * MINUTE }),
      w.assistant([
        w.stepStart(),
        w.text("Reading them."),
        ...reads,
        w.stepFinish("tool-calls"),
        w.stepStart(),
        w.text("All four backfill amount_cents."),
        w.stepFinish("stop"),
      ]),
    );
  }
  return out;
}

describe.each(FORMATS)("context-overflow (%s store)", (format) => {
  it("a long session of large reads that was never compacted is reported once, for the session", () => {
    const built = storeOf(sessionOf((w) => readMigrations(w)));
    const findings = scan(format, built, { now: lastWrite(built) + HOUR });
    expect(spots(findings)).toEqual(expected({ rule: "context-overflow", severity: "warning" }));
    expect(findings[0]!.messageId).toBeUndefined();
    expect(findings[0]!.partId).toBeUndefined();
    expect(findings[0]!.message).toMatch(/^about 21\d,\d{3} tokens would be sent, over the 200,000-token window/);
  });

  it("the same session after opencode's auto-compaction sends only the summary onward: no overflow", () => {
    const built = storeOf(
      sessionOf((w) => [
        ...readMigrations(w),
        // opencode's auto-compaction: a user message carrying only a compaction part, answered by a summary.
        userMessage(w, [{ type: "compaction", auto: true }], 10 * MINUTE),
        w.assistant(
          [
            w.stepStart(),
            w.text("We read migrations 0001–0020; all of them backfill amount_cents. Next: switch invoiceTotal to integer cents."),
            w.stepFinish("stop"),
          ],
          { mode: "compaction", agent: "compaction", summary: true },
        ),
        w.user("Continue with the totals change."),
        w.assistant([w.stepStart(), w.text("Switching invoiceTotal to integer cents now."), w.stepFinish("stop")]),
      ]),
    );
    expect(scan(format, built, { now: lastWrite(built) + HOUR })).toEqual([]);
  });

  it("old outputs pruned by opencode (state.time.compacted) are sent as placeholders: no overflow", () => {
    const built = storeOf(sessionOf((w) => readMigrations(w, { prunedTurns: 3 })));
    expect(scan(format, built, { now: lastWrite(built) + HOUR })).toEqual([]);
  });
});
