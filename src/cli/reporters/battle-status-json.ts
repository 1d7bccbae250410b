/**
 * `battle status --json`: one document. Its head is fixed: (`schemaVersion`, `tool` as in every document, `battles[]` with `taskId`,
 * `status`, `failure` {type, recoverable, suggestedAction, allowedStrategies} or null, `findings[]` {rule,
 * severity, path, message}); everything else comes after those keys, so a consumer of the fixed shape never sees
 * it move. Paths are relative to the repository root (`repo`).
 */
import type { BattleAssessment, RepoAssessment } from "../../battle/assess.js";
import type { BattleFinding } from "../../battle/findings.js";
import type { RalphLoop } from "../../battle/ralph-loops.js";
import { allowedStrategies, defaultStrategy, failureSeverity, recoveryActions, type BattleFailure } from "../../battle/recovery-options.js";
import { DOCUMENT_HEAD } from "../json-output.js";

export function battleStatusDocument(
  result: RepoAssessment | null,
  root: string,
  loops: RalphLoop[],
  loopFindings: BattleFinding[],
  totals: { errors: number; warnings: number },
): string {
  const battles = result?.battles ?? [];
  const doc = {
    ...DOCUMENT_HEAD,
    battles: battles.map(battleJson),
    repo: root,
    findings: [...(result?.findings ?? []), ...loopFindings].map(findingJson),
    server: result?.server ?? null,
    ralphLoops: loops.map(loopJson),
    notices: result?.notices ?? [],
    summary: { battles: battles.length, errors: totals.errors, warnings: totals.warnings },
  };
  return `${JSON.stringify(doc)}\n`;
}

function loopJson(l: RalphLoop): Record<string, unknown> {
  const f = l.file;
  return {
    id: l.id,
    path: f.path,
    scope: f.scope,
    active: f.active,
    iteration: f.iteration,
    maxIterations: f.maxIterations,
    completionPromise: f.completionPromise,
    sessionId: f.sessionId,
    startedAt: f.startedAt,
    session: l.session,
    stale: l.stale,
  };
}

function battleJson(b: BattleAssessment): Record<string, unknown> {
  const history = b.battle.history.value;
  const progress = b.battle.progress.value;
  return {
    taskId: b.taskId,
    status: b.status,
    failure: b.failure ? failureJson(b.failure) : null,
    findings: b.findings.map(findingJson),
    liveness: b.liveness,
    startedAt: history?.startedAt ?? null,
    completedAt: history?.completedAt ?? null,
    error: history?.error ?? null,
    iterations: (history?.iterations ?? []).map((it) => ({
      number: it.number,
      result: it.result,
      startedAt: it.startedAt,
      endedAt: it.endedAt ?? null,
      feedback: Object.fromEntries(
        Object.entries(it.feedbackResults ?? {}).map(([name, r]) => [name, { passed: r.passed, ...(r.passed ? {} : { output: r.output }) }]),
      ),
      commitHash: it.commitHash ?? null,
      error: it.error ?? null,
      filesChanged: it.filesChanged,
      ...(it.retryCount !== undefined ? { retryCount: it.retryCount } : {}),
    })),
    commits: b.commits,
    progress: progress
      ? { currentIteration: progress.currentIteration, status: progress.status, lastUpdate: progress.lastUpdate, error: progress.error }
      : null,
  };
}

function failureJson(f: BattleFailure): Record<string, unknown> {
  return {
    type: f.type,
    recoverable: f.recoverable,
    suggestedAction: f.suggestedAction,
    allowedStrategies: allowedStrategies(f),
    defaultStrategy: defaultStrategy(f),
    severity: failureSeverity(f.type),
    actions: recoveryActions(f.type),
    iteration: f.iteration,
    timestamp: f.timestamp,
    message: f.message,
    ...(f.details !== undefined ? { details: f.details } : {}),
  };
}

function findingJson(f: BattleFinding): Record<string, unknown> {
  return {
    rule: f.rule,
    severity: f.severity,
    path: f.path,
    message: f.message,
    ...(f.iteration !== undefined ? { iteration: f.iteration } : {}),
    ...(f.commit !== undefined ? { commit: f.commit } : {}),
    ...(f.fix !== undefined ? { fix: f.fix } : {}),
  };
}
