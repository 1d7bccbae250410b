// shellQuote against real shells: every quoted word, run through bash (and the POSIX sh for the words that need no
// $'…'), prints back exactly the word, and nothing it prints carries a raw control character to the terminal.
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { shellQuote, UNSAFE_CHAR } from "../../src/model/shell-quote.js";

const WORDS = [
  "plain-word_1.2/x:y",
  "two words",
  "dana's copy",
  "back\\slash and 'quotes'",
  "two\nlines",
  "tab\there",
  "\u001b]0;pwned\u0007\u001b[2Jred",
  "bidi \u202eevil",
  "c1 \u009b31m",
  "ünïcödé ✓ 日本",
  "",
];

function printedBy(shell: string, quoted: string): string {
  const r = spawnSync(shell, ["-c", `printf '%s' ${quoted}`], { encoding: "utf8" });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

describe("shellQuote", () => {
  it("pastes back to the same word in bash, one line, with no raw control character", () => {
    for (const word of WORDS) {
      const quoted = shellQuote(word);
      expect(quoted, JSON.stringify(word)).not.toMatch(UNSAFE_CHAR);
      expect(printedBy("bash", quoted)).toBe(word);
    }
  });

  it("`lines`: newlines and tabs stay inside '…', which POSIX sh reads too; other controls still become $'…'", () => {
    expect(shellQuote("two\nlines", { lines: true })).toBe("'two\nlines'");
    expect(printedBy("sh", shellQuote("two\nlines\tand a tab", { lines: true }))).toBe("two\nlines\tand a tab");
    const colored = "test failed:\n\u001b[31mexpected 1\u001b[0m";
    const quoted = shellQuote(colored, { lines: true });
    expect(quoted.startsWith("$'")).toBe(true);
    expect(quoted).not.toMatch(UNSAFE_CHAR);
    expect(printedBy("bash", quoted)).toBe(colored);
  });

  it("needs no quotes for a plain word, and single quotes (any POSIX sh) for spaces and quotes", () => {
    expect(shellQuote("ses_e1743f57fffeMI01W2B0cSdrJl")).toBe("ses_e1743f57fffeMI01W2B0cSdrJl");
    for (const word of ["two words", "dana's copy", "back\\slash and 'quotes'"]) expect(printedBy("sh", shellQuote(word))).toBe(word);
  });
});
