// The SQLite store has two loads: lean (what a scan uses) and full (what a fix works from, with exact bytes).
// Both must see the same defects, large rows included, and so must the JSON tree.
import Database from "better-sqlite3";
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { MINUTE, replaceWithBytes, truncateAfter, writeSqliteStore, type BuiltStore, type Json, type Transcript } from "../support/opencode-fixtures.js";
import {
  expected,
  hasCall,
  hasText,
  HOUR,
  lastWrite,
  messageWhere,
  messageWithText,
  partWhere,
  scan,
  sessionOf,
  spotKey,
  spots,
  START,
  storeOf,
  tempDir,
  withStore,
  textPart,
  toolOutput,
  UNFINISHED,
  unsignedReasoning,
  type Spot,
} from "./harness.js";

/** `chars` characters of realistic log lines. */
function log(chars: number, line: string): string {
  return line.repeat(Math.ceil(chars / line.length)).slice(0, chars);
}

const BUILD_LINE = "webpack compiled module ./src/invoices/totals.ts 1.2 KiB [built] [code generated]\n";
const CSV_LINE = "4711;Hans Mueller;2026-03-01;59.97;EUR\n";
const SQL_LINE = "ALTER TABLE invoice_line ADD COLUMN amount_cents BIGINT NOT NULL DEFAULT 0;\n";
const THOUGHT = "The per-line rounding drifts by up to half a cent per line; with many lines that adds up to whole cents. ";

function bash(w: Transcript, command: string, output: string, callID: string) {
  return toolOutput(w, "bash", { command, description: command }, output, { callID, title: command });
}

/** One session holding every defect, most of them in rows far larger than 16 KB. */
function damagedSession() {
  return sessionOf((w) => [
    // oversized-tool-output (60k), next to a large signed reasoning part that is fine
    w.user("Build the project verbosely."),
    w.assistant([
      w.stepStart(),
      w.reasoning(`[large-signed] ${log(20_000, THOUGHT)}`),
      w.text("Building."),
      bash(w, "npm run build -- --verbose", log(60_000, BUILD_LINE), "toolu_01Build"),
      w.stepFinish("tool-calls"),
      w.stepStart(),
      w.text("The build is slow because nothing is cached."),
      w.stepFinish("stop"),
    ]),
    // corrupted-tool-output: NUL and lone surrogate in large outputs; a large output that only spells \u0000 is fine
    w.user("Dump the export and the logo, and grep for separators."),
    w.assistant([
      w.stepStart(),
      w.text("Dumping."),
      bash(w, "cat exports/march.bin", `${log(15_000, CSV_LINE)}\u0000\u0000PK\u0003\u0004${log(5_000, CSV_LINE)}`, "toolu_01Nul"),
      bash(w, "tail -c 20000 logs/export.log", `${log(20_000, "export ok \u{1F389}\n")}\u{1F389}`.slice(0, -1), "toolu_01Surrogate"),
      bash(w, "grep -rn SEP src", log(20_000, 'src/csv.ts:14:  const SEP = "\\u0000"; // "\\ud83d" never matches\n'), "toolu_01Escapes"),
      w.stepFinish("tool-calls"),
      w.stepStart(),
      w.text("The export has binary garbage in it."),
      w.stepFinish("stop"),
    ]),
    // a crash: large unsigned reasoning, a large whitespace-only text, a write tool with a large input left running
    w.user("Write the migration for amount_cents."),
    w.assistant(
      [
        w.stepStart(),
        unsignedReasoning(w, `[large-unsigned] ${log(20_000, THOUGHT)}`),
        textPart(w, " \n".repeat(10_000)),
        w.running("write", { filePath: "/home/dana/code/invoice-api/db/migrations/0042.sql", content: log(30_000, SQL_LINE) }),
      ],
      UNFINISHED,
    ),
    // invalid UTF-8, a torn write and a schema violation, all in large rows
    w.user("opencode crashed. Check the customer export again.", { gap: 30 * MINUTE }),
    w.assistant([
      w.stepStart(),
      w.text("Checking the export."),
      {
        ...bash(w, "cat exports/customers.csv", log(20_000, CSV_LINE), "toolu_01Latin1"),
        corrupt: replaceWithBytes("Mueller", Buffer.from([0x4d, 0xfc, 0x6c, 0x6c, 0x65, 0x72])),
      },
      { ...bash(w, "cat exports/april.csv", `${log(18_000, CSV_LINE)}TORN-HERE${log(4_000, CSV_LINE)}`, "toolu_01Torn"), corrupt: truncateAfter("TORN-HERE") },
      (() => {
        const spec = bash(w, "cat exports/may.csv", log(20_000, CSV_LINE), "toolu_01NoCallId");
        delete (spec.data as Json).callID;
        return spec;
      })(),
      w.stepFinish("tool-calls"),
      w.stepStart(),
      w.text("The customer export has a Latin-1 name in it."),
      w.stepFinish("stop"),
    ]),
    // a pruned 60k output is fine; reusing the build's call id is a duplicate
    w.user("Build again."),
    w.assistant([
      w.stepStart(),
      w.text("Building again."),
      toolOutput(w, "bash", { command: "npm run build -- --verbose --again" }, log(60_000, BUILD_LINE), {
        callID: "toolu_01Pruned",
        compactedAt: START + 5 * HOUR,
      }),
      bash(w, "npm run build", "webpack compiled successfully\n", "toolu_01Build"),
      w.stepFinish("tool-calls"),
      w.stepStart(),
      w.text("Built."),
      w.stepFinish("stop"),
    ]),
    // thinking-only reply, then an empty reply, then reasoning after text, then trailing reasoning
    w.user("Should tax be rounded again?"),
    w.assistant([w.stepStart(), w.reasoning("[thinking-only] No: tax is computed from the rounded subtotal."), w.stepFinish("stop")]),
    w.user("Anything else?"),
    w.assistant([w.stepStart(), w.stepFinish("stop", { input: 3_100, output: 0, reasoning: 0, cache: { read: 41_000, write: 0 } })]),
    w.user("Check the tax module."),
    w.assistant([
      w.stepStart(),
      w.text("Reading the tax module."),
      w.reasoning("[after-text] Tax might round per line too."),
      w.read("src/invoices/tax.ts", "export const tax = (subtotalCents: number) => Math.round(subtotalCents * 0.2);"),
      w.stepFinish("tool-calls"),
      w.stepStart(),
      w.reasoning("[trailing] It rounds once; nothing to do. Tell the user."),
      w.stepFinish("stop"),
    ]),
    w.user("Thanks."),
    w.assistant([w.stepStart(), w.text("You're welcome."), w.stepFinish("stop")]),
  ]);
}

/** A long session of large reads: context-overflow, judged from sizes of large rows. */
function overflowSession() {
  return sessionOf(
    (w) =>
      Array.from({ length: 5 }, (_, t) => [
        w.user(`Read migrations batch ${t + 1}.`),
        w.assistant([
          w.stepStart(),
          w.text("Reading."),
          ...Array.from({ length: 4 }, (_, i) =>
            toolOutput(w, "read", { filePath: `/home/dana/code/invoice-api/db/migrations/${t}${i}.sql` }, log(42_000, SQL_LINE), { title: `${t}${i}.sql` }),
          ),
          w.stepFinish("tool-calls"),
          w.stepStart(),
          w.text("All backfill amount_cents."),
          w.stepFinish("stop"),
        ]),
      ]).flat(),
    { start: START + 24 * HOUR, title: "Read all migrations" },
  );
}

function plantedStore(): BuiltStore {
  const damaged = damagedSession();
  damaged.orphanParts = [
    {
      messageId: "msg_0f4c2c400001DeletedMessage0",
      parts: [
        {
          time: START + 3 * HOUR,
          data: { type: "text", text: `[orphan] ${log(20_000, THOUGHT)}`, time: { start: START + 3 * HOUR, end: START + 3 * HOUR + 900 } },
        },
      ],
    },
  ];
  return storeOf(damaged, overflowSession());
}

/** The first build (60k output); the second call that reuses its id printed one line. */
const theBigBuild = (built: BuiltStore) => partWhere(built, (d) => d.callID === "toolu_01Build" && (d.state as { output: string }).output.length > 100);

function expectedSpots(built: BuiltStore): { damaged: Spot[]; overflow: Spot[] } {
  const tool = (callID: string) => partWhere(built, hasCall(callID));
  const part = (needle: string) => partWhere(built, hasText(needle));
  const at = (rule: string, severity: Spot["severity"], where: { messageId: string; partId: string }): Spot => ({ rule, severity, ...where });
  const crashed = messageWhere(built, (m) => m.parts.some((p) => p.data?.tool === "write"));
  return {
    damaged: expected(
      at("oversized-tool-output", "warning", theBigBuild(built)),
      at("corrupted-tool-output", "error", tool("toolu_01Nul")),
      at("corrupted-tool-output", "error", tool("toolu_01Surrogate")),
      // the large unsigned reasoning sits in the crashed turn: incomplete-message covers it (one defect, one finding)
      at(
        "empty-text-part",
        "error",
        partWhere(built, (d) => d.type === "text" && String(d.text).startsWith(" \n \n")),
      ),
      at(
        "tool-call-interrupted",
        "error",
        partWhere(built, (d) => d.tool === "write"),
      ),
      { rule: "incomplete-message", severity: "warning", messageId: crashed },
      at("corrupted-tool-output", "error", tool("toolu_01Latin1")),
      at("unreadable-record", "error", tool("toolu_01Torn")),
      at(
        "schema-violation",
        "error",
        partWhere(built, (d) => d.type === "tool" && !("callID" in d)),
      ),
      at(
        "duplicate-tool-call-id",
        "error",
        partWhere(built, (d) => d.callID === "toolu_01Build" && (d.state as { output: string }).output.length < 100),
      ),
      { rule: "thinking-only-message", severity: "error", messageId: messageWhere(built, messageWithText("[thinking-only]")) },
      {
        rule: "empty-message",
        severity: "error",
        messageId: messageWhere(built, (m) => m.role === "assistant" && m.parts.every((p) => String(p.data?.type).startsWith("step-"))),
      },
      at("thinking-block-order", "error", part("[after-text]")),
      at("trailing-thinking", "error", part("[trailing]")),
      { rule: "orphan-part", severity: "warning", messageId: "msg_0f4c2c400001DeletedMessage0", partId: built.sessions[0]!.orphanParts[0]!.id },
    ),
    overflow: expected({ rule: "context-overflow", severity: "warning" }),
  };
}

const key = (s: Spot) => spotKey(s);

describe("SQLite lean and full loads see the same defects", () => {
  const built = plantedStore();
  const [damaged, overflow] = built.sessions;
  const now = lastWrite(built) + HOUR;
  const want = expectedSpots(built);

  it("the planted store really has large rows (over 16 KB) of every damaged kind", () => {
    const dir = tempDir();
    const db = new Database(writeSqliteStore(dir, built), { readonly: true });
    try {
      const large = db.prepare("SELECT id FROM part WHERE octet_length(data) > 16384").pluck().all() as string[];
      const ids = [
        theBigBuild(built).partId,
        partWhere(built, hasCall("toolu_01Nul")).partId,
        partWhere(built, hasCall("toolu_01Surrogate")).partId,
        partWhere(built, hasCall("toolu_01Escapes")).partId,
        partWhere(built, hasCall("toolu_01Latin1")).partId,
        partWhere(built, hasCall("toolu_01Torn")).partId,
        partWhere(built, hasCall("toolu_01Pruned")).partId,
        partWhere(built, hasText("[large-signed]")).partId,
        partWhere(built, hasText("[large-unsigned]")).partId,
        partWhere(built, (d) => d.tool === "write").partId,
        built.sessions[0]!.orphanParts[0]!.id,
      ];
      expect(large).toEqual(expect.arrayContaining(ids));
    } finally {
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the damaged session: lean, full and the expected set agree", () => {
    const lean = spots(scan("sqlite", built, { now, sessionId: damaged!.id }));
    const full = spots(scan("sqlite", built, { now, sessionId: damaged!.id, mode: "full" }));
    expect(lean.map(key)).toEqual(full.map(key));
    expect(lean).toEqual(want.damaged);
  });

  it("the overflowing session: lean, full and the expected set agree", () => {
    const lean = spots(scan("sqlite", built, { now, sessionId: overflow!.id }));
    const full = spots(scan("sqlite", built, { now, sessionId: overflow!.id, mode: "full" }));
    expect(lean).toEqual(full);
    expect(lean).toEqual(want.overflow);
  });

  it("the JSON tree of the same store reports the same defects", () => {
    expect(spots(scan("json", built, { now, sessionId: damaged!.id }))).toEqual(want.damaged);
    expect(spots(scan("json", built, { now, sessionId: overflow!.id }))).toEqual(want.overflow);
  });

  it("the lean load measures and judges every part exactly as the full load does", () => {
    withStore("sqlite", built, (store) => {
      for (const session of built.sessions) {
        const summary = (mode: "lean" | "full") => {
          const records = store.loadSession(session.id, mode);
          return [...records.messages.flatMap((m) => m.parts), ...records.orphanParts].map((p) => ({
            id: p.ref.id,
            content: p.content,
            problem: p.problem?.kind,
            type: p.part?.type,
          }));
        };
        const lean = summary("lean");
        expect(lean.length).toBeGreaterThan(10);
        expect(lean).toEqual(summary("full"));
      }
    });
  });
});
