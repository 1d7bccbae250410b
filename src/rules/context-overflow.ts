import type { Rule } from "./rule.js";
import { formatCount, plural } from "../model/format-count.js";

export const contextOverflow: Rule = {
  id: "context-overflow",
  severity: "warning",
  description: "estimated tokens of what would be sent exceed the model's window (default 200,000, --context-limit)",
  fixedBy: "trim",
  check(view, options) {
    if (view.estimatedTokens <= options.contextLimit) return [];
    const measured = view.measuredPrompt?.tokens;
    const truth = measured === undefined ? "" : `; the last reply's stored prompt was ${plural(measured, "token")}`;
    return [
      {
        message: `about ${plural(view.estimatedTokens, "token")} would be sent, over the ${formatCount(options.contextLimit)}-token window (estimate: characters / 4${truth})`,
      },
    ];
  },
};
