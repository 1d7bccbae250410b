// A RuleTester in ESLint's manner: one rule, sessions written in memory as records of any store family, `valid`
// cases (no findings) and `invalid` cases (the findings expected, and what the rule's fix makes of the records).
// Records are built by the stores' own record builders, so a rule sees exactly what a load from disk would give it;
// the fix runs through the real planner (every pass, the self-checks, the store's working copy).
// The transcript formats register with their store adapters: the registry makes every one of them known.
import "../../src/stores/registry.js";
import { describe, expect, it } from "vitest";
import type { RecordChange } from "../../src/model/change.js";
import type { LoadedRecords } from "../../src/model/fixing.js";
import type { MessageRecord, PartRecord } from "../../src/model/opencode-records.js";
import type { TranscriptDialect } from "../../src/model/transcript.js";
import { planSession } from "../../src/plan/planner.js";
import { DEFAULT_RULE_OPTIONS, type Finding, type Rule, type RuleOptions } from "../../src/rules/rule.js";
import { checkSession } from "../../src/scan/check.js";
import { isTranscript } from "../../src/model/transcript.js";
import { opencodeFixing } from "../../src/stores/opencode/working.js";
import { transcriptFixing } from "../../src/stores/transcript/working.js";
import { sessionView } from "../../src/scan/session-view.js";
import { sqliteCodec } from "../../src/stores/opencode/codec.js";
import { assembleSession, messageFromBytes, partFromBytes } from "../../src/stores/opencode/record-builder.js";
import { assembleTranscript } from "../../src/stores/transcript/assemble.js";

type Json = Record<string, unknown>;

/**
 * A JSONL transcript: its lines (objects are serialised as the agent writes them, strings are taken as they are), or
 * the file's bytes (e.g. a fixture's `toBuffer()`).
 */
export type TranscriptSource = { dialect: TranscriptDialect } & ({ lines: (Json | string)[] } | { bytes: Buffer });

/** An opencode session as its SQLite rows hold it: each message's info and its parts' data, ids beside them. */
export interface OpencodeSource {
  messages: { id: string; info: Json; parts?: { id: string; data: Json | string }[] }[];
}

export type RecordsSource = TranscriptSource | OpencodeSource;

export interface ValidCase {
  name: string;
  records: RecordsSource;
  /** Rule options over the defaults (`now` defaults to long after every record: nothing is live). */
  options?: Partial<RuleOptions>;
}

export interface InvalidCase extends ValidCase {
  /** The findings, in order, each matched as a subset (`toMatchObject`). */
  findings: Partial<Pick<Finding, "message" | "messageId" | "partId" | "line" | "severity">>[];
  /** A transcript: the file's text after the fix (ESLint's `output`); a pattern where the fix mints a random id. */
  output?: string | RegExp;
  /** opencode: the changes the fix plans, in order, each matched as a subset. */
  changes?: Partial<Pick<RecordChange, "op" | "after" | "reasons">>[];
}

const SESSION = "ses_rule_tester";
/** Far after any record a case writes: no turn is live. */
const NOW = Date.UTC(2030, 0, 1);

/** Load a source as its store would: the same record builders, full records with their bytes. */
export function loadRecords(source: RecordsSource): LoadedRecords {
  if ("dialect" in source) {
    const bytes = "bytes" in source ? source.bytes : Buffer.from(`${source.lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n")}\n`);
    return assembleTranscript(bytes, { path: `/memory/${SESSION}.jsonl`, sessionId: SESSION, dialect: source.dialect, mtime: 0 }, true);
  }
  const messages: MessageRecord[] = [];
  const parts: PartRecord[] = [];
  for (const m of source.messages) {
    const created = typeof (m.info.time as Json | undefined)?.created === "number" ? ((m.info.time as Json).created as number) : 0;
    messages.push(messageFromBytes({ kind: "message", id: m.id, sessionId: SESSION }, sqliteCodec.encode(m.info), created, true));
    for (const p of m.parts ?? []) {
      const bytes = typeof p.data === "string" ? Buffer.from(p.data) : sqliteCodec.encode(p.data);
      parts.push(partFromBytes({ kind: "part", id: p.id, sessionId: SESSION, messageId: m.id }, bytes, true));
    }
  }
  const created = messages[0]?.created ?? 0;
  const updated = Math.max(created, ...messages.map((m) => m.created));
  const summary = { id: SESSION, title: "rule tester", directory: "/memory", created, updated, messages: messages.length };
  return assembleSession(summary, { kind: "session", id: SESSION, sessionId: SESSION }, messages, parts, updated);
}

function optionsOf(c: ValidCase): RuleOptions {
  return { ...DEFAULT_RULE_OPTIONS, now: NOW, ...c.options };
}

/** The findings of `rule` alone on a source. */
export function findingsOf(rule: Rule, source: RecordsSource, options?: Partial<RuleOptions>): Finding[] {
  const opts = optionsOf({ name: "", records: source, ...(options ? { options } : {}) });
  return checkSession(sessionView(loadRecords(source), opts), [rule], opts);
}

/** Register the cases as vitest tests, under the rule's id. */
export function ruleTester(rule: Rule, cases: { valid: ValidCase[]; invalid: InvalidCase[] }): void {
  describe(rule.id, () => {
    describe("valid", () => {
      for (const c of cases.valid) {
        it(c.name, () => {
          expect(findingsOf(rule, c.records, c.options)).toEqual([]);
        });
      }
    });
    describe("invalid", () => {
      for (const c of cases.invalid) {
        it(c.name, () => {
          const findings = findingsOf(rule, c.records, c.options);
          expect(findings).toHaveLength(c.findings.length);
          for (const [i, want] of c.findings.entries()) expect(findings[i]).toMatchObject({ rule: rule.id, ...want });
          if (c.output === undefined && c.changes === undefined) return;
          const loaded = loadRecords(c.records);
          const plan = planSession(loaded, isTranscript(loaded) ? transcriptFixing : opencodeFixing(sqliteCodec), { ...optionsOf(c), rules: [rule] });
          if (c.output !== undefined) {
            const after = plan.files?.[0]?.after?.toString("utf8") ?? ("bytes" in loaded ? loaded.bytes?.toString("utf8") : undefined);
            if (typeof c.output === "string") expect(after).toBe(c.output);
            else expect(after).toMatch(c.output);
          }
          if (c.changes !== undefined) {
            expect(plan.changes).toHaveLength(c.changes.length);
            for (const [i, want] of c.changes.entries()) expect(plan.changes[i]).toMatchObject(want);
          }
          // Fixed means fixed: the rule finds nothing in what the fix leaves.
          expect(plan.remaining.filter((f) => f.rule === rule.id)).toEqual([]);
        });
      }
    });
  });
}
