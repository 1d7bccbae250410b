import { messages, plural } from "./helpers.js";
import type { Rule } from "./rule.js";

export const contextOverflow: Rule = {
  id: "context-overflow",
  severity: "warning",
  description: "estimated tokens of what would be sent exceed the model's window (default 200,000, --context-limit)",
  fixedBy: "trim",
  check(view, options) {
    if (view.estimatedTokens <= options.contextLimit) return [];
    const measured = lastPromptTokens(view);
    const truth = measured === undefined ? "" : `; the last reply's stored prompt was ${plural(measured, "token")}`;
    return [
      {
        message: `about ${plural(view.estimatedTokens, "token")} would be sent, over the ${options.contextLimit.toLocaleString("en-US")}-token window (estimate: characters / 4${truth})`,
      },
    ];
  },
};

/** The real prompt size opencode stored for the latest finished reply: input + cache read + cache write. */
function lastPromptTokens(view: Parameters<Rule["check"]>[0]): number | undefined {
  const all = messages(view);
  for (let i = all.length - 1; i >= 0; i--) {
    const info = all[i]!.info;
    if (info?.role !== "assistant") continue;
    const t = info.tokens;
    const total = t.input + t.cache.read + t.cache.write;
    if (total > 0) return total;
  }
  return undefined;
}
