import { at } from "./helpers.js";
import type { Report, Rule } from "./rule.js";

/**
 * A message file filed under two sessions (JSON tree: message/<A>/<id>.json and message/<B>/<id>.json, a copy).
 * Its parts live once, under part/<id>/, so both sessions read them, and a repair of one that deleted or rewrote
 * them changed the other. No fix: which copy belongs where is the user's call; until then recover leaves every
 * record of that message alone (stores/opencode/working.ts untouchable) and says so here.
 */
export const sharedMessage: Rule = {
  id: "shared-message",
  severity: "warning",
  description: "message filed under another session too (a copied message file); its parts serve both, so no repair changes them",
  fixedBy: "none",
  check(view) {
    const session = view.opencode;
    const shared = session?.sharedMessages;
    if (!session || !shared) return [];
    const reports: Report[] = [];
    for (const message of session.messages) {
      const others = shared[message.ref.id];
      if (!others) continue;
      // From the parsed record only (a scan and a repair load it alike): the JSON tree keeps the ids in the file.
      const named = (message.info as { sessionID?: unknown } | undefined)?.sessionID;
      const owner = typeof named === "string" ? `; its record names session ${named}` : "";
      reports.push(
        at(
          message,
          `message is also filed under session ${others.join(", ")}; its parts serve both, so no repair changes them${owner}: remove the copy that does not belong`,
        ),
      );
    }
    return reports;
  },
};
