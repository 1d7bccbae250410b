/**
 * `recover explain "<error text>"`: what a provider error means, where it points in a session (with --session),
 * and the exact command that fixes it. Exit 0 when recognised, 1 when not.
 */
import type { Command } from "commander";
import { ExitCode, RecoverError } from "../../errors.js";
import { planForError } from "../../plan/error-fixes.js";
import { anthropicRequest, locate } from "../../provider/anthropic-request.js";
import { classifyProviderError, type ClassifiedError } from "../../provider/classify-error.js";
import { ERROR_CAUSES } from "../../provider/error-kinds.js";
import { DEFAULT_RULE_OPTIONS } from "../../rules/rule.js";
import { sessionView } from "../../scan/session-view.js";
import { resolveSessionId } from "../../stores/session-id.js";
import { action, withStore } from "../command-kit.js";
import { readErrorText } from "../error-input.js";
import type { Io } from "../io.js";
import { DOCUMENT_HEAD } from "../json-output.js";
import { safeCommand, safeMessage } from "../safe-text.js";
import { TOP_COMMAND_SUMMARIES } from "../top-commands.js";
import { formatCount } from "../../model/format-count.js";

interface ExplainFlags {
  errorFile?: string;
  session?: string;
  last?: boolean;
}

interface Located {
  session: string;
  messages: string[];
  part?: string;
  explanation: string;
}

/** The command that answers the error, reading it again the way this explain did (stdin or the same file). */
function fixCommand(error: ClassifiedError, session: string | undefined, from: string[], io: Io): string | null {
  const fixedBy = ERROR_CAUSES[error.kind].fixedBy;
  if (fixedBy === null) return null;
  const verb = fixedBy === "repair" ? ["session", "repair"] : ["context", "trim"];
  if (session !== undefined) return io.command([...verb, session, ...from]);
  // Without --session there is no id to give: a placeholder the user fills in, left unquoted so it reads as one.
  return io.command([...verb, "SESSION-ID", ...from]).replace(" SESSION-ID ", " <session-id> ");
}

/**
 * Whether the fix command can carry the error text itself (quoted), so that it works when pasted: a text given as the
 * argument, on one line and short enough to be printed whole. Otherwise it reads it again as this explain did.
 */
export function inlineText(arg: string | undefined, text: string): boolean {
  return arg !== undefined && arg !== "-" && text.length <= MAX_INLINE_ERROR_CHARS && !/[\u0000-\u001f\u007f]/.test(text);
}
const MAX_INLINE_ERROR_CHARS = 600;

export function addExplain(program: Command): void {
  program
    .command("explain")
    .description(TOP_COMMAND_SUMMARIES.explain.description)
    .argument("[text]", "the error text, or - to read it from stdin")
    .option("--error-file <path>", "read the error text from a file")
    .option("--session <id>", "map the error's position to this session's records (in whichever agent's store holds it, or --store's)")
    .option("--last", "as --session, with the most recently updated session of any agent")
    .addHelpText(
      "after",
      `
Examples:
  recover explain 'prompt is too long: 212345 tokens > 200000 maximum'
  pbpaste | recover explain - --session ses_52f1 --json
  recover explain --error-file err.txt

Exit codes: 0 recognised, 1 unknown error, 2 usage or input error.`,
    )
    .action(
      action<ExplainFlags>(async ({ args, options, io }) => {
        const text = readErrorText(args[0], options.errorFile, io.readInput, "the error text");
        if (text === undefined) throw new RecoverError("usage", "give the error text, - for stdin, or --error-file <path>");
        const error = classifyProviderError(text);
        const from = options.errorFile !== undefined ? ["--error-file", options.errorFile] : inlineText(args[0], text) ? ["--error", text] : ["--error", "-"];
        let located: Located | undefined;
        if (options.session !== undefined && options.last) throw new RecoverError("usage", "give --session or --last, not both");
        if (options.session !== undefined || options.last) {
          located = await withStore(
            options,
            io,
            (store) => {
              const id = options.last
                ? (store.listSessions()[0]?.id ?? "")
                : resolveSessionId(options.session!, [...store.listSessions(), ...store.listStraySessionIds().map((s) => ({ id: s }))]);
              if (id === "") throw new RecoverError("session-not-found", `${store.info.path} holds no sessions`);
              const view = sessionView(store.loadSession(id, "lean"), { now: Date.now(), liveWindowMs: DEFAULT_RULE_OPTIONS.liveWindowMs });
              const position = locate(anthropicRequest(view.conversation), error.index, error.contentIndex);
              const part = position?.block?.source.kind === "part" ? position.block.source.id : undefined;
              return {
                session: id,
                messages: position?.message.sourceMessageIds ?? [],
                ...(part ? { part } : {}),
                explanation: planForError(error, view).explanation,
              };
            },
            options.last ? { ids: [], last: true } : { ids: [options.session!] },
          );
        }
        const fix = fixCommand(error, located?.session, from, io);
        const { cause } = ERROR_CAUSES[error.kind];
        if (io.json) {
          const doc = {
            ...DOCUMENT_HEAD,
            kind: error.kind,
            index: error.index,
            contentIndex: error.contentIndex,
            ids: error.ids,
            tokens: error.tokens,
            provider: error.provider,
            fix,
            message: error.message,
            cause: error.note ?? cause,
            ...(located
              ? { session: located.session, records: { messages: located.messages, part: located.part ?? null }, explanation: located.explanation }
              : {}),
          };
          io.out(`${JSON.stringify(doc)}\n`);
        } else {
          const c = io.color;
          io.out(`${c.bold(error.kind)} (${error.provider})\n`);
          io.out(`cause: ${safeMessage(error.note ?? cause)}\n`);
          if (error.index !== null)
            io.out(`at:    messages.${error.index}${error.contentIndex === null ? "" : `.content.${error.contentIndex}`} of the request\n`);
          if (error.ids.length > 0) io.out(`ids:   ${safeMessage(error.ids.join(", "))}\n`);
          if (error.tokens) io.out(`size:  ${formatCount(error.tokens.current)} tokens > ${formatCount(error.tokens.max)}\n`);
          if (located) {
            io.out(
              `in:    ${safeMessage(`session ${located.session}: ${located.messages.length ? `message ${located.messages.join(", ")}` : "no request message at that position"}${located.part ? `, part ${located.part}` : ""}`)}\n`,
            );
            io.out(`what:  ${safeMessage(located.explanation)}\n`);
          }
          io.out(fix ? `fix:   ${c.bold(safeCommand(fix))}\n` : "fix:   none offline\n");
        }
        return error.kind === "unknown" ? ExitCode.findings : ExitCode.ok;
      }),
    );
}
