/**
 * The reader every battle command starts from: find `.pokeralph/`, load the project and the battles, ask the
 * pokeralph server (only when a battle claims to run) and git (only when commits were recorded), then classify
 * each battle and list its findings. Read-only. `battle status` prints the result; rollback and resume will decide
 * from it what they may do.
 */
import { classifyBattle, DEFAULT_ARTEFACT_STALE_MS, DEFAULT_STALE_AFTER_MS, type Liveness } from "./classify.js";
import { findPokeralph, listBattleIds, resolveTaskId, type PokeralphRepo } from "../stores/pokeralph/discover.js";
import { battleFindings, projectFindings, type BattleFinding } from "./findings.js";
import { gitFacts, type GitFacts } from "./git-facts.js";
import { loadBattles, loadProject, type LoadedBattle, type LoadedProject } from "../stores/pokeralph/load.js";
import type { BattleFailure } from "./recovery-options.js";
import { DEFAULT_CONFIG, type BattleStatus, type Config } from "../stores/pokeralph/schemas.js";
import { httpProbe, type ServerAnswer, type ServerProbe } from "./server-probe.js";
import { join } from "node:path";
import { BattleFilesStore } from "../stores/pokeralph/battle-store.js";
import { stateDir } from "../txn/state-dir.js";
import { settleOnRead } from "../txn/store-transaction.js";

export interface AssessOptions {
  /** `--repo`. */
  repo?: string;
  cwd: string;
  /** One battle: its task id or a unique prefix. */
  taskId?: string;
  /** Epoch ms; tests pin it. */
  now?: number;
  /** How to ask whether pokeralph runs (default: HTTP on PORT / RECOVER_POKERALPH_URL from `env`). */
  probe?: ServerProbe;
  env: NodeJS.ProcessEnv;
  staleAfterMs?: number;
  artefactStaleMs?: number;
}

/** A commit that belongs to a battle: recorded as an iteration's commitHash, or found by pokeralph's subject. */
export interface BattleCommit {
  hash: string;
  source: "recorded" | "log";
  /** The iteration it belongs to (recorded, or the one running when it was committed). */
  iteration?: number;
  subject?: string;
  time?: string;
  exists: boolean;
  /** null: not asked (missing commit, no HEAD, or git unavailable). */
  inHead: boolean | null;
}

export interface BattleAssessment {
  taskId: string;
  battle: LoadedBattle;
  /** null when history.json is missing or unreadable. */
  status: BattleStatus | null;
  failure: BattleFailure | null;
  liveness: Liveness;
  commits: BattleCommit[];
  findings: BattleFinding[];
}

export interface RepoAssessment {
  repo: PokeralphRepo;
  project: LoadedProject;
  /** config.json, or pokeralph's defaults when it is missing or invalid. */
  config: Config;
  /** Asked only when a battle says it is running or awaiting approval. */
  server: ServerAnswer | null;
  /** What git says about the recorded and `[PokéRalph]` commits (`available: false` outside a work tree). */
  git: GitFacts;
  /** Findings about the project rather than one battle (config, prd, leftovers in .pokeralph/, git). */
  findings: BattleFinding[];
  battles: BattleAssessment[];
  /** What settling an unfinished change of a battle's files did, if anything. */
  notices: string[];
}

export async function assessBattles(options: AssessOptions): Promise<RepoAssessment> {
  const repo = findPokeralph({ ...(options.repo !== undefined ? { repo: options.repo } : {}), cwd: options.cwd });
  const ids = options.taskId !== undefined ? [resolveTaskId(repo, options.taskId)] : undefined;
  const now = options.now ?? Date.now();
  const staleAfterMs = options.staleAfterMs ?? DEFAULT_STALE_AFTER_MS;
  const artefactStaleMs = options.artefactStaleMs ?? DEFAULT_ARTEFACT_STALE_MS;

  // A rollback (or resume) a crash cut short is settled first, as every command on a store does: what is read is
  // the battle as it was before that change, or after it, never half of it.
  const notices: string[] = [];
  for (const id of ids ?? listBattleIds(repo)) {
    const store = new BattleFilesStore(join(repo.battlesDir, id));
    settleOnRead(store, stateDir(options.env));
    notices.push(...store.info.notices);
  }
  const project = loadProject(repo);
  const battles = loadBattles(repo, ids);
  const config = project.config.value ?? DEFAULT_CONFIG;

  const claimsToRun = battles.some((b) => b.history.value?.status === "running" || b.history.value?.status === "awaiting_approval");
  const probe = options.probe ?? httpProbe({ env: options.env });
  const server = claimsToRun ? await probe(repo.root) : null;

  const hashes = battles.flatMap((b) => b.history.value?.iterations.flatMap((it) => (it.commitHash !== undefined ? [it.commitHash] : [])) ?? []);
  const git = await gitFacts(repo.root, hashes);

  const context = { now, artefactStaleMs };
  const assessed = battles.map((battle): BattleAssessment => {
    const classification = classifyBattle(battle, {
      now,
      server: server ?? { kind: "absent", url: "", detail: "not asked" },
      staleAfterMs,
      artefactStaleMs,
    });
    return {
      taskId: battle.taskId,
      battle,
      status: battle.history.value?.status ?? null,
      failure: classification.failure,
      liveness: classification.liveness,
      commits: battleCommits(battle, git),
      findings: battleFindings(battle, classification, project, git, context),
    };
  });
  // Only say git is unavailable when it mattered: some iteration recorded a commit.
  const projectGit = hashes.length > 0 ? git : undefined;
  return { repo, project, config, server, git, findings: projectFindings(project, projectGit, context), battles: assessed, notices };
}

function battleCommits(battle: LoadedBattle, git: GitFacts): BattleCommit[] {
  const history = battle.history.value;
  const out: BattleCommit[] = [];
  const seen = new Set<string>();
  for (const it of history?.iterations ?? []) {
    if (it.commitHash === undefined) continue;
    const state = git.commits.get(it.commitHash);
    const hash = state?.full ?? it.commitHash;
    seen.add(hash);
    out.push({
      hash,
      source: "recorded",
      iteration: it.number,
      ...(state?.subject !== undefined ? { subject: state.subject } : {}),
      ...(state?.time !== undefined ? { time: state.time } : {}),
      exists: state?.exists ?? false,
      inHead: state?.inHead ?? null,
    });
  }
  // Claude often commits itself (the prompt tells it to), leaving a clean tree and so no recorded hash.
  for (const c of [...(git.taskCommits.get(battle.taskId) ?? [])].reverse()) {
    if (seen.has(c.hash)) continue;
    const iteration = iterationAt(history?.iterations ?? [], Date.parse(c.time));
    out.push({ hash: c.hash, source: "log", ...(iteration !== undefined ? { iteration } : {}), subject: c.subject, time: c.time, exists: true, inHead: true });
  }
  // Iteration order; commits no iteration covers last (the sort is stable: recorded before found).
  return out.sort((a, b) => (a.iteration ?? Infinity) - (b.iteration ?? Infinity));
}

/** The iteration whose run covers `time` (commit dates have whole seconds: a second of slack each side). */
function iterationAt(iterations: readonly { number: number; startedAt: string; endedAt?: string }[], time: number): number | undefined {
  if (!Number.isFinite(time)) return undefined;
  for (const it of iterations) {
    const start = Date.parse(it.startedAt) - 1000;
    const end = it.endedAt ? Date.parse(it.endedAt) + 1000 : Infinity;
    if (time >= start && time <= end) return it.number;
  }
  return undefined;
}
