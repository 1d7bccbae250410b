/**
 * `battle status` for a person: per battle its status, each iteration with result and feedback (the first line
 * of what failed), its commits, the failure with what can be done about it, and the findings, one line each as
 * the session scan prints them. `--quiet` keeps only the findings.
 */
import type { BattleAssessment, BattleCommit, RepoAssessment } from "../../battle/assess.js";
import { failingLoops, formatAge } from "../../battle/classify.js";
import type { BattleFinding } from "../../battle/findings.js";
import type { RalphLoop } from "../../battle/ralph-loops.js";
import { allowedStrategies, defaultStrategy, failureSeverity } from "../../battle/recovery-options.js";
import type { Iteration } from "../../stores/pokeralph/schemas.js";
import type { Io } from "../io.js";
import { escapeControls, safeCommand, safeMessage, safeValue } from "../safe-text.js";

export function printBattleStatus(
  io: Io,
  result: RepoAssessment | null,
  loops: RalphLoop[],
  loopFindings: BattleFinding[],
  totals: { errors: number; warnings: number },
  now: number,
): void {
  const c = io.color;
  if (result && !io.quiet) io.err(c.dim(`battles in ${safeValue(result.repo.dir)}\n`));
  for (const notice of result?.notices ?? []) io.note(notice);
  if (result && result.findings.length > 0) {
    if (!io.quiet) io.out(`\n${c.bold("project")}\n`);
    for (const f of result.findings) io.out(`${io.quiet ? "" : "  "}${findingLine(f, io)}\n`);
  }
  for (const battle of result?.battles ?? []) {
    if (io.quiet) {
      for (const f of battle.findings) io.out(`${findingLine(f, io)}\n`);
      continue;
    }
    printBattle(io, battle, result!, now);
  }
  printLoops(io, loops, loopFindings);
  if (io.quiet) return;
  const n = result?.battles.length ?? 0;
  const battles = result ? `${n} battle${n === 1 ? "" : "s"}` : `${loops.length} ralph loop${loops.length === 1 ? "" : "s"}`;
  const { errors, warnings } = totals;
  const summary =
    result && n === 0 && errors + warnings === 0
      ? c.green(`✔ no battles in ${safeValue(result.repo.battlesDir)} yet`)
      : errors + warnings === 0
        ? c.green(`✔ ${battles}, no findings`)
        : `${errors > 0 ? c.red("✖") : c.yellow("⚠")} ${battles}: ${errors} error${errors === 1 ? "" : "s"}, ${warnings} warning${warnings === 1 ? "" : "s"}`;
  io.out(`\n${summary}\n`);
}

/** Claude Code ralph-loop plugin loops: one line each (active, iteration n/max, session and whether it runs). */
function printLoops(io: Io, loops: RalphLoop[], findings: BattleFinding[]): void {
  const c = io.color;
  if (!io.quiet && loops.length > 0) {
    io.out(`\n${c.bold("ralph loops")} ${c.dim("(Claude Code ralph-loop plugin)")}\n`);
    for (const l of loops) {
      const f = l.file;
      const state = !f.active ? c.dim("inactive") : l.stale ? c.red("active (stale)") : c.green("active");
      const iteration = `iteration ${f.iteration ?? "?"}/${f.maxIterations ? f.maxIterations : "∞"}`;
      const session = f.sessionId ? `session ${safeValue(f.sessionId)} ${l.session.state}` : "no session yet";
      io.out(`  ${c.bold(safeValue(l.id))}  ${state}  ${iteration}  ${session}\n`);
      io.out(`    ${c.dim(`${safeValue(f.path)} · ${safeMessage(l.session.detail)}`)}\n`);
    }
  }
  for (const f of findings) io.out(`${io.quiet ? "" : "  "}${findingLine(f, io)}\n`);
}

function printBattle(io: Io, b: BattleAssessment, result: RepoAssessment, now: number): void {
  const c = io.color;
  const history = b.battle.history.value;
  const title = result.project.prd.value?.tasks.find((t) => t.id === b.taskId)?.title;
  const status = safeValue(b.status ?? "unknown");
  const shown =
    b.liveness.state === "crashed"
      ? `${c.red(status)} ${c.red("(crashed)")}`
      : b.liveness.state === "live"
        ? `${c.green(status)} ${c.dim("(live)")}`
        : colourStatus(io, status, b.failure !== null);
  io.out(`\n${c.bold(safeValue(b.taskId))}  ${shown}${title ? `  ${safeValue(title)}` : ""}\n`);
  if (history) {
    const parts = [`started ${stamp(history.startedAt)}`, `${history.iterations.length} iteration${history.iterations.length === 1 ? "" : "s"}`];
    if (history.completedAt) parts.push(`ended ${stamp(history.completedAt)}`);
    const progress = b.battle.progress.value;
    if (progress) {
      const age = now - Date.parse(progress.lastUpdate);
      parts.push(
        `progress: iteration ${progress.currentIteration} ${progress.status}, updated ${Number.isFinite(age) ? `${formatAge(age)} ago` : progress.lastUpdate}`,
      );
    }
    io.out(`  ${c.dim(safeMessage(parts.join(" · ")))}\n`);
    for (const it of history.iterations) printIteration(io, it);
    // The battle's error is often the last iteration's own, already printed under it.
    if (history.error && history.error !== history.iterations.at(-1)?.error) io.out(`  ${c.dim("error:")} ${safeMessage(history.error)}\n`);
  }
  if (b.commits.length > 0) {
    io.out(`  ${c.dim("commits:")}\n`);
    for (const commit of b.commits) io.out(`    ${commitLine(io, commit)}\n`);
  }
  if (b.failure) {
    const f = b.failure;
    const strategies = allowedStrategies(f).map((s) => (s === defaultStrategy(f) ? `${s} (default)` : s));
    io.out(
      `  ${c.bold("failure:")} ${f.type} ${c.dim(`(${failureSeverity(f.type)} severity)`)} · ${f.recoverable ? c.green("recoverable") : c.red("not recoverable")} · suggested action: ${safeMessage(f.suggestedAction)}\n`,
    );
    // A crash's finding already says all of it; other findings name the failure in a few words.
    if (!b.findings.some((finding) => finding.message === f.message)) io.out(`    ${safeMessage(f.message)}\n`);
    if (f.details) for (const line of clip(f.details, 6)) io.out(`    ${c.dim(line)}\n`);
    io.out(`    resume strategies: ${strategies.join(", ")}\n`);
  } else if (b.liveness.state === "live") {
    io.out(`  ${c.green(safeMessage(b.liveness.detail))}\n`);
  }
  for (const f of b.findings) io.out(`  ${findingLine(f, io)}\n`);
}

function printIteration(io: Io, it: Iteration): void {
  const c = io.color;
  const ok = it.result === "success";
  const mark = ok ? c.green("✓") : it.result === "pending" ? c.dim("…") : c.red("✗");
  const duration = it.endedAt ? ` ${c.dim(formatAge(Date.parse(it.endedAt) - Date.parse(it.startedAt)))}` : "";
  const feedback = Object.entries(it.feedbackResults ?? {})
    .map(([name, r]) => `${safeValue(name)} ${r.passed ? c.green("✓") : c.red("✗")}`)
    .join("  ");
  const commit = it.commitHash ? `  ${c.dim("commit")} ${safeValue(it.commitHash.slice(0, 8))}` : "";
  const retry = it.retryCount ? c.dim(` (retry ${it.retryCount})`) : "";
  io.out(
    `  #${String(it.number).padEnd(3)}${mark} ${safeValue(it.result).padEnd(9)}${safeValue(stamp(it.startedAt))}${duration}${retry}  ${feedback}${commit}\n`,
  );
  for (const [name, r] of failingLoops(it)) io.out(`        ${c.dim(`${safeValue(name)}:`)} ${telling(r.output)}\n`);
  if (it.error) io.out(`        ${c.dim("error:")} ${clip(it.error, 1)[0]}\n`);
}

function commitLine(io: Io, commit: BattleCommit): string {
  const c = io.color;
  const where = commit.iteration !== undefined ? `#${commit.iteration}` : "  ";
  const state = !commit.exists ? c.red("missing") : commit.inHead === false ? c.yellow("not in HEAD") : commit.inHead ? c.green("in HEAD") : c.dim("unchecked");
  const how = commit.source === "recorded" ? "recorded" : "by subject";
  return `${safeValue(commit.hash.slice(0, 8))}  ${where.padEnd(4)}${state}  ${c.dim(how)}${commit.subject ? `  ${safeValue(commit.subject)}` : ""}`;
}

function colourStatus(io: Io, status: string, failed: boolean): string {
  const c = io.color;
  if (status === "completed") return c.green(status);
  if (failed || status === "unknown") return c.red(status);
  return c.yellow(status);
}

export function findingLine(f: BattleFinding, io: Io): string {
  const c = io.color;
  const severity = f.severity === "error" ? c.red("error  ") : c.yellow("warning");
  const fix = f.fix !== undefined ? `  ${c.dim(`→ ${safeCommand(f.fix)}`)}` : "";
  return `${severity} ${c.cyan(f.rule.padEnd(19))} ${c.dim(safeValue(f.path))}  ${safeMessage(f.message)}${fix}`;
}

/** The line of a tool's output that says what failed (an error, a ✗), else its first line. */
function telling(output: string): string {
  const lines = output
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  const line = lines.find((l) => /error|fail|✗|✖/i.test(l) && !/^\d+ fail$|\b0 fail\b/.test(l)) ?? lines[0];
  return line === undefined ? "(no output)" : clip(line, 1)[0]!;
}

/** `2026-02-04T14:00:03.402Z` → `2026-02-04 14:00:03Z`. */
function stamp(iso: string): string {
  return /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/.test(iso) ? `${iso.slice(0, 10)} ${iso.slice(11, 19)}Z` : iso;
}

/** At most `lines` lines, each at most 160 characters: tool output can be megabytes. */
function clip(text: string, lines: number): string[] {
  const all = text
    .trim()
    .split("\n")
    .filter((l) => l.trim() !== "");
  const kept = all.slice(0, lines).map((l) => escapeControls(l.length > 160 ? `${l.slice(0, 159)}…` : l));
  if (all.length > lines) kept.push(`… ${all.length - lines} more line${all.length - lines === 1 ? "" : "s"}`);
  return kept;
}
