// Prefix-bound thinking (issue 36) on transcripts written by the real Claude Code client: each fixture is a session
// as the client left it right before recover ran in a repair or trim loop of scripts/clients/scenarios/claude-code.mjs
// (docs/research/claude-code-prefix-thinking.md), and its expected.json says what that loop showed: the recover
// commands, and the thinking blocks (by signature) left on the chain afterwards, which the binding mock then accepted.
// The same commands on a copy must leave exactly those blocks: one kept after the first changed position, or one
// dropped before it, fails.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { run, tempDir } from "../cli/run.js";

const FIXTURES = path.resolve("fixtures/claude-code-2.1/prefix-thinking");

interface Expected {
  scenario: string;
  client: string;
  sessionId: string;
  model: string;
  recover: { command: string; args: string[]; exit: number; droppedThinking: number | null }[];
  error: string | null;
  thinkingBefore: string[];
  keptThinking: string[];
  dropped: number;
  sentAfter: string[];
  finalAnswers: number[];
  /** The loop's result is not the least loss the binding allows: what a right plan keeps, and why it did not. */
  knownBug?: { minimalKept: string[]; why: string };
}

interface Line {
  uuid?: string;
  parentUuid?: string | null;
  type?: string;
  isSidechain?: boolean;
  message?: { content?: unknown };
}

/** The signatures of the thinking blocks on the chain (from the last user/assistant line up), in order. */
function chainThinking(text: string): string[] {
  const lines = text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Line);
  const byUuid = new Map(lines.filter((l) => l.uuid).map((l) => [l.uuid!, l]));
  const chain: Line[] = [];
  const seen = new Set<string>();
  for (
    let l = lines.filter((x) => x.uuid && !x.isSidechain && (x.type === "user" || x.type === "assistant")).at(-1);
    l?.uuid !== undefined && !seen.has(l.uuid);
    l = l.parentUuid ? byUuid.get(l.parentUuid) : undefined
  ) {
    seen.add(l.uuid);
    chain.unshift(l);
  }
  return chain.flatMap((l) =>
    l.type === "assistant" && Array.isArray(l.message?.content)
      ? (l.message.content as { type: string; signature?: string; data?: string }[])
          .filter((b) => b.type === "thinking" || b.type === "redacted_thinking")
          .map((b) => b.signature ?? b.data ?? "")
      : [],
  );
}

const cases = fs
  .readdirSync(FIXTURES)
  .filter((f) => f.endsWith(".expected.json"))
  .map((f) => f.replace(/\.expected\.json$/, ""))
  .sort();

/** A Claude Code config dir holding the one transcript, where the client keeps it, last written when captured. */
function storeOf(name: string, expected: Expected): { dir: string; file: string } {
  const text = fs.readFileSync(path.join(FIXTURES, `${name}.jsonl`), "utf8");
  const cwd = /"cwd":"([^"]+)"/.exec(text)![1]!;
  const dir = tempDir();
  const project = path.join(dir, "projects", cwd.replace(/[^a-zA-Z0-9]/g, "-"));
  fs.mkdirSync(project, { recursive: true });
  const file = path.join(project, `${expected.sessionId}.jsonl`);
  fs.writeFileSync(file, text);
  const captured = new Date("2026-11-27T00:00:00Z");
  fs.utimesSync(file, captured, captured);
  return { dir, file };
}

describe("prefix-bound thinking: the real Claude Code client's transcripts, repaired and trimmed again", () => {
  it("has the cases the loops wrote", () => {
    expect(cases).toEqual(
      expect.arrayContaining([
        "prefix-blank-text",
        "prefix-blank-prompt",
        "prefix-interrupted",
        "prefix-interrupted-tail-live",
        "prefix-blank-reply",
        "prefix-trim",
        "prefix-blank-prompt-sonnet45-plain",
      ]),
    );
  });

  /** The loop's recover commands on a copy of the fixture; the thinking left on the chain. */
  async function rerun(name: string, expected: Expected): Promise<string[]> {
    const { dir, file } = storeOf(name, expected);
    expect(chainThinking(fs.readFileSync(file, "utf8"))).toEqual(expected.thinkingBefore);
    const env = { XDG_STATE_HOME: path.join(dir, "state") };
    for (const step of expected.recover) {
      const r = await run([...step.args, "--store", dir], { env });
      expect(r.status, `${step.command}\n${r.stdout}\n${r.stderr}`).toBe(step.exit);
    }
    return chainThinking(fs.readFileSync(file, "utf8"));
  }

  for (const name of cases) {
    const expected = JSON.parse(fs.readFileSync(path.join(FIXTURES, `${name}.expected.json`), "utf8")) as Expected;
    const what = expected.recover.map((r) => r.args.slice(0, 2).join(" ")).join(", then ");
    if (expected.knownBug) {
      // Passes while the bug is there; once fixed, this fails: record the new loop in the fixture and drop knownBug.
      it.fails(`${name}: ${what} should keep ${expected.knownBug.minimalKept.length} of ${expected.thinkingBefore.length} (known bug: ${expected.knownBug.why})`, async () => {
        expect(await rerun(name, expected)).toEqual(expected.knownBug!.minimalKept);
      });
      continue;
    }
    it(`${name}: ${what} keeps exactly the thinking the real loop kept (${expected.keptThinking.length} of ${expected.thinkingBefore.length})`, async () => {
      const kept = await rerun(name, expected);
      expect(kept).toEqual(expected.keptThinking);
      // What stays is an unbroken run of the sequence: what goes is the blocks after the first changed position, and
      // (context trim's strip-old-thinking) the oldest ones; never one from between kept ones.
      const start = kept.length === 0 ? 0 : expected.thinkingBefore.indexOf(kept[0]!);
      expect(expected.thinkingBefore.slice(start, start + kept.length)).toEqual(kept);
      expect(expected.thinkingBefore.length - kept.length).toBe(expected.dropped);
      // A model without the binding: nothing is dropped.
      if (!/opus-5-5|sonnet-5-5|haiku-5-5|fable|mythos/.test(expected.model)) expect(kept).toEqual(expected.thinkingBefore);
    });
  }
});
