/** `recover rules`: every rule with id, severity, description and how it is fixed. */
import type { Command } from "commander";
import { ExitCode } from "../../errors.js";
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
    .description(TOP_COMMAND_SUMMARIES.rules.description)
    .addHelpText("after", "\nExamples:\n  recover rules\n  recover rules --json")
    .action(
      action(({ io }) => {
        const rows = RULES.map((r) => ({
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
        const width = Math.max(...rows.map((r) => r.id.length));
        for (const r of rows) {
          const severity = r.severity === "error" ? io.color.red("error  ") : io.color.yellow("warning");
          io.out(`${io.color.cyan(r.id.padEnd(width))}  ${severity}  ${r.description}${r.fixedBy ? io.color.dim(`  (fix: ${r.fixedBy})`) : ""}\n`);
        }
        return ExitCode.ok;
      }),
    );
}
