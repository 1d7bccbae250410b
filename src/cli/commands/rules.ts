/** `recover rules`: every rule with id, severity, description and how it is fixed. */
import type { Command } from "commander";
import { ExitCode, RecoverError } from "../../errors.js";
import { RULES } from "../../rules/index.js";
import { action } from "../command-kit.js";
import { DOCUMENT_HEAD } from "../json-output.js";
import { fixedBy } from "../reporters/rule-lookup.js";
import { TOP_COMMAND_SUMMARIES } from "../top-commands.js";

/** The listing documents the command itself, not this run of it: no store flags. */
const recoverCommand = (words: string[] | null) => (words ? ["recover", ...words].join(" ") : null);

export function addRules(program: Command): void {
  program
    .command("rules")
    .argument("[id]", "one rule: what it finds and what fixes it")
    .description(TOP_COMMAND_SUMMARIES.rules.description)
    .addHelpText("after", "\nExamples:\n  recover rules\n  recover rules tool-result-missing\n  recover rules --json")
    .action(
      action(({ args, io }) => {
        const wanted = args[0];
        const chosen = wanted === undefined ? RULES : RULES.filter((r) => r.id === wanted);
        if (chosen.length === 0) {
          const near = RULES.filter((r) => r.id.includes(wanted!) || wanted!.includes(r.id)).map((r) => r.id);
          throw new RecoverError(
            "usage",
            `no rule ${JSON.stringify(wanted)}${near.length > 0 ? ` (did you mean ${near.join(", ")}?)` : ""}; \`recover rules\` lists them all`,
          );
        }
        const rows = chosen.map((r) => ({
          id: r.id,
          severity: r.severity,
          description: r.description,
          fixable: r.fixedBy !== "none",
          fixedBy: recoverCommand(fixedBy(r)),
        }));
        if (io.json) {
          io.out(`${JSON.stringify({ ...DOCUMENT_HEAD, rules: rows })}\n`);
          return ExitCode.ok;
        }
        if (wanted !== undefined) {
          // One rule, as rustc --explain does: each thing on a line of its own.
          const [r] = rows;
          io.out(`${io.color.cyan(r!.id)}  ${r!.severity}\n${r!.description}\n`);
          io.out(r!.fixedBy ? `fixed by: ${r!.fixedBy}\n` : "no automatic fix: recover reports it and leaves it alone\n");
          return ExitCode.ok;
        }
        const width = Math.max(...rows.map((r) => r.id.length));
        for (const r of rows) {
          const severity = r.severity === "error" ? io.color.red("error  ") : io.color.yellow("warning");
          io.out(`${io.color.cyan(r.id.padEnd(width))}  ${severity}  ${r.description}${r.fixedBy ? io.color.dim(`  (fix: ${r.fixedBy})`) : ""}\n`);
        }
        return ExitCode.ok;
      }),
    );
}
