import { describe, expect, it } from "vitest";
import { escapeControls, safeMessage, safeValue, shorten } from "../../src/cli/safe-text.js";

describe("safe-text", () => {
  it("shows every control character as a visible escape, and leaves other text alone", () => {
    expect(escapeControls("\u001b]0;pwned\u0007\u001b[2J")).toBe("\\x1b]0;pwned\\x07\\x1b[2J");
    expect(escapeControls("a\rb\bc\u007fd\u009be\nf\tg")).toBe("a\\x0db\\x08c\\x7fd\\x9be\\x0af\\x09g");
    expect(escapeControls("\u2028\u202e\u2066")).toBe("\\u2028\\u202e\\u2066");
    expect(escapeControls("Fix flaky test — café ✔ 日本")).toBe("Fix flaky test — café ✔ 日本");
  });

  it("keeps the head and tail of a long value around its length", () => {
    const long = `${"a".repeat(150)}${"b".repeat(99_800)}${"c".repeat(50)}`;
    expect(shorten(long)).toBe(`${"a".repeat(150)}…(100,000 chars)…${"c".repeat(50)}`);
    expect(shorten("short")).toBe("short");
    expect(safeValue(undefined)).toBe("");
  });

  it("a message keeps its words and shortens the long run inside it", () => {
    const text = `no session ses_${"z".repeat(10_000)} in /tmp/store`;
    expect(safeMessage(text)).toMatch(/^no session ses_z+…\(10,004 chars\)…z+ in \/tmp\/store$/);
  });
});
