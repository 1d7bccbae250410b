/**
 * The opencode plugin `recover hooks install opencode` writes (`<config>/opencode/plugin/recover.js`), as its text.
 * Measured with opencode 1.18.33 (docs/research/hooks-opencode.md):
 * - `session.error` carries the session id and the provider's error (`error.data.message`);
 * - the refused assistant message is written after the first `session.idle` that follows, so the repair waits for
 *   the idle after which that message is final (its `time.completed`), then runs once;
 * - the next prompt's history is read from opencode.db again, so a repair written between the two is what is sent.
 * The repair runs synchronously inside opencode's loop (a few hundred milliseconds, and only after a refusal): while
 * it runs opencode writes nothing, so recover is not racing it. `--agent-pid` tells recover that this opencode, which
 * holds the database open, is the one asking; any other process holding it still makes the repair refuse, and the
 * refusal goes to opencode's log. Nothing else is done on any other event.
 */
import { HOOK_MARKER, type RecoverCommand } from "./recover-command.js";

export function opencodePlugin(recover: RecoverCommand): string {
  return `// ${HOOK_MARKER}: written by \`recover hooks install opencode\`; \`recover hooks uninstall opencode\` removes it.
// After opencode's provider refuses a session with an error recover knows, the session is repaired (backed up first:
// \`recover session backups\`), so the next prompt is sent repaired. Runs recover as:
//   ${recover.node} ${recover.bin}
import { spawnSync } from "node:child_process";

const NODE = ${JSON.stringify(recover.node)};
const RECOVER = ${JSON.stringify(recover.bin)};

export const RecoverRepair = async ({ client }) => {
  /** Refused sessions waiting for their refused message to be final: session id -> the provider's text. */
  const pending = new Map();
  const log = (level, message) =>
    client?.app?.log?.({ body: { service: "recover", level, message } }).catch?.(() => {});
  const finalRefusal = async (sessionID) => {
    try {
      const res = await client.session.messages({ path: { id: sessionID } });
      const last = (res?.data ?? []).at(-1)?.info;
      return last?.role === "assistant" && last.error !== undefined && last.time?.completed !== undefined;
    } catch {
      return true;
    }
  };
  return {
    event: async ({ event }) => {
      if (event.type === "session.error") {
        const { sessionID, error } = event.properties ?? {};
        const text = error?.data?.message ?? error?.data?.responseBody;
        if (sessionID && typeof text === "string" && error?.name === "APIError") pending.set(sessionID, text);
        return;
      }
      if (event.type !== "session.idle") return;
      const sessionID = event.properties?.sessionID;
      const text = pending.get(sessionID);
      if (text === undefined || !(await finalRefusal(sessionID))) return;
      pending.delete(sessionID);
      const run = spawnSync(
        NODE,
        [RECOVER, "session", "repair", sessionID, "--error", text, "--yes", "--include-live", "--agent", "opencode", "--agent-pid", String(process.pid)],
        { encoding: "utf8", timeout: 20000 },
      );
      const said = \`\${run.stdout ?? ""}\${run.stderr ?? ""}\`.trim().split("\\n").slice(-3).join(" | ");
      if (run.status === 0) await log("info", \`recover repaired session \${sessionID} after the provider refused it: \${said}\`);
      else await log("warn", \`recover did not repair session \${sessionID} (exit \${run.status ?? run.signal}): \${said}\`);
    },
  };
};
`;
}
