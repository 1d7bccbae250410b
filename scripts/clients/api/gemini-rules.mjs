// The rules of the Gemini API that the loopback mock (gemini.mjs) applies to a request before its scripted reply.
import { checkContents } from "./gemini.mjs";

/** The rules as one run applies them (lib/engine.mjs); see messages-rules.mjs's enforcer. */
export function enforcer() {
  return {
    check(body) {
      const refused = checkContents(body);
      return refused ? { refused, rule: "invalid_argument" } : null;
    },
    served() {},
  };
}
