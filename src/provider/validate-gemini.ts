/**
 * Check a Gemini API request's `contents` against the API's rules for function calling (the texts it answers, from
 * google-gemini/gemini-cli#29365 and the reference codex-and-gemini.md): a function call turn is answered by the next
 * turn with as many function responses; function responses come right after a call turn, a call turn right after a
 * user turn; no turn is empty.
 */
import type { ProviderErrorKind } from "./classify-error.js";

export interface GeminiTurn {
  role: string;
  parts: Record<string, unknown>[];
}

export interface GeminiViolation {
  kind: ProviderErrorKind;
  /** `contents[N]`. */
  index: number;
  text: string;
}

const calls = (turn: GeminiTurn | undefined) => turn?.parts.filter((p) => p.functionCall !== undefined).length ?? 0;
const responses = (turn: GeminiTurn | undefined) => turn?.parts.filter((p) => p.functionResponse !== undefined).length ?? 0;

export function validateGemini(contents: readonly GeminiTurn[]): GeminiViolation[] {
  const found: GeminiViolation[] = [];
  contents.forEach((turn, n) => {
    if (turn.parts.length === 0)
      found.push({ kind: "empty_content", index: n, text: `* GenerateContentRequest.contents[${n}].parts: contents.parts must not be empty.` });
    const answered = responses(turn);
    if (answered > 0 && calls(contents[n - 1]) === 0)
      found.push({ kind: "orphan_tool_result", index: n, text: "Please ensure that function response turn comes immediately after a function call turn." });
    const asked = calls(turn);
    if (asked > 0 && n > 0 && contents[n - 1]!.role !== "user")
      found.push({
        kind: "roles_not_alternating",
        index: n,
        text: "Please ensure that function call turn comes immediately after a user turn or after a function response turn.",
      });
    if (asked > 0 && responses(contents[n + 1]) !== asked && n + 1 < contents.length)
      found.push({
        kind: "tool_response_mismatch",
        index: n,
        text: "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.",
      });
  });
  return found;
}
