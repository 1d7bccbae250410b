/**
 * `recover battle status [<taskId>] [--repo <dir>]`: read-only. Every battle (or one) of the pokeralph project
 * found upward from the cwd: its status, iterations, commits, the failure classification and the findings.
 * Exit 1 when any finding is an error (a crashed or failed battle, a missing commit, a file pokeralph would
 * reject), 0 otherwise, as a scan does.
 */
import type { Command } from "commander";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { assessBattles, type RepoAssessment } from "../../battle/assess.js";
import { findRalphLoops, staleLoopFinding } from "../../battle/ralph-loops.js";
import { ExitCode, RecoverError } from "../../errors.js";
import { action, commandIn } from "../command-kit.js";
import { printBattleStatus } from "../reporters/battle-status-human.js";
import { battleStatusDocument } from "../reporters/battle-status-json.js";

interface StatusFlags {
  repo?: string;
}

export function addBattleStatus(battle: Command): void {
  battle
    .command("status")
    .description("status, iterations, commits and failure classification of pokeralph battles, read-only")
    .argument("[taskId]", "one battle: its task id or a unique prefix (default: every battle)")
    .option("--repo <dir>", "the repository holding .pokeralph/ (default: the first one upward from the cwd)")
    .addHelpText(
      "after",
      `
Examples:
  recover battle status                          every battle of the project around the cwd
  recover battle status 002-auth-system          one battle (or a unique prefix: 002)
  recover battle status --repo ~/src/invoices --json

Claude Code ralph-loop plugin loops (.claude/ralph-loop*.local.md, ~/.claude/ralph-loop/*.local.md) are listed too,
with whether their session runs; an active loop whose session is gone is an error (ralph-loop-stale), cleared with
recover battle fix --clear-stale <loop>. Without .pokeralph/, only such loops are listed.

A battle that says it is running counts as crashed when no pokeralph server runs it (asked at
http://localhost:$PORT/api/battle/current, PORT defaulting to 3456; RECOVER_POKERALPH_URL overrides) and its
progress is stale.

Exit codes: 0 no error finding, 1 error findings (crashed or failed battle, missing commit, invalid file),
2 usage or input error (no .pokeralph/ and no ralph loop, unknown task id).`,
    )
    .action(
      action<StatusFlags>(async ({ args, options, io }) => {
        const now = Date.now();
        const dir = resolve(io.cwd, options.repo ?? ".");
        let result: RepoAssessment | null = null;
        let noProject: RecoverError | null = null;
        try {
          result = await assessBattles({
            cwd: io.cwd,
            env: io.env,
            ...(options.repo !== undefined ? { repo: options.repo } : {}),
            ...(args[0] !== undefined ? { taskId: args[0] } : {}),
            now,
          });
        } catch (error) {
          // No .pokeralph/ is no battle, but a project may still run another Ralph loop.
          if (!(error instanceof RecoverError && error.code === "store-not-found" && args[0] === undefined && existsSync(dir))) throw error;
          noProject = error;
        }
        const root = result?.repo.root ?? dir;
        const loops = findRalphLoops(root, io.env, now);
        if (result === null && loops.length === 0) throw noProject!;
        // The command must work pasted where this one ran: it names the project when that is not the cwd.
        const loopFindings = loops.filter((l) => l.stale).map((l) => staleLoopFinding(l, root, commandIn(io, root)));
        const all = [...(result?.findings ?? []), ...(result?.battles.flatMap((b) => b.findings) ?? []), ...loopFindings];
        const totals = { errors: all.filter((f) => f.severity === "error").length, warnings: all.filter((f) => f.severity === "warning").length };
        if (io.json) io.out(battleStatusDocument(result, root, loops, loopFindings, totals));
        else printBattleStatus(io, result, loops, loopFindings, totals, now);
        return totals.errors > 0 ? ExitCode.findings : ExitCode.ok;
      }),
    );
}
