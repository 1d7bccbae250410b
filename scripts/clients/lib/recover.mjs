// The recover step of the real-client loops (lib/engine.mjs): the command's plan first, as JSON (`--dry-run --json`:
// droppedThinking, each change's rule), then the command as a user runs it, both kept in the run's folder; and the
// plan's summary that each verdict.json reports.
import fs from "node:fs";
import path from "node:path";
import { runProcess } from "./proc.mjs";

/** A word as a shell reads it back: quoted only when it has to be. */
export const shellQuote = (a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`);

/**
 * Run `recover <cmd>` (argv after node: the script, then its words) as step `n` in `out`: step-<n>.plan.json,
 * step-<n>.stdout/.stderr, step-<n>.exit. Returns the plan's summary and the run's result.
 */
export async function runRecoverStep(cmd, { n, out, cwd, env, timeoutSeconds }) {
  const files = (name) => ({
    stdoutFile: path.join(out, `step-${n}.${name}`),
    stderrFile: path.join(out, `step-${n}.${name === "plan.json" ? "plan.stderr" : "stderr"}`),
  });
  const planned = await runProcess(process.execPath, [...cmd.filter((a) => a !== "--yes"), "--dry-run", "--json"], {
    cwd,
    env,
    timeoutMs: timeoutSeconds * 1000,
    ...files("plan.json"),
  });
  const plan = planSummary(planned.stdout);
  const r = await runProcess(process.execPath, cmd, { cwd, env, timeoutMs: timeoutSeconds * 1000, ...files("stdout") });
  fs.writeFileSync(path.join(out, `step-${n}.exit`), `${r.code}${r.signal ? " " + r.signal : ""}\n`);
  return { planned, plan, r };
}

/** What a recover --json document plans: changes by rule, thinking dropped, notices, and a trim's figures. */
export function planSummary(stdout) {
  let doc;
  try {
    doc = JSON.parse(stdout);
  } catch {
    return null;
  }
  const rules = {};
  const list = [];
  let changes = 0;
  let droppedThinking = 0;
  for (const session of doc.sessions ?? []) {
    for (const c of session.changes ?? []) {
      changes++;
      list.push(`${c.op} ${c.record ?? ""} ${c.id ?? ""} [${(c.rules ?? []).join(",")}]`);
      for (const r of c.rules ?? []) rules[r] = (rules[r] ?? 0) + 1;
    }
    droppedThinking += session.droppedThinking?.blocks ?? 0;
  }
  return {
    changes,
    droppedThinking,
    rules,
    list,
    notices: doc.store?.notices ?? [],
    summary: doc.summary,
    ...(doc.tokens ? { tokens: doc.tokens, stillOver: doc.stillOver, ...(doc.advice ? { advice: doc.advice } : {}) } : {}),
  };
}
