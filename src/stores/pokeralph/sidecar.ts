/**
 * `.pokeralph/battles/<taskId>/checkpoints.json`: the record of the checkpoints recover made for a battle. It is
 * ours, beside pokeralph's history.json and never inside it: pokeralph parses its files with non-strict zod objects
 * and writes back only the keys it knows, so anything we added there would vanish at its next save.
 *
 * Unknown keys are kept (loose objects, and the parsed original is what gets written back), so a later recover
 * (a rollback archiving iterations under `rolledBack`, say) can extend the file without an older one erasing it.
 * Reading it and its bytes are here; changing it is a transaction (checkpoint/sidecar.ts).
 */
import { readFileSync } from "node:fs";
import * as z from "zod";
import { RecoverError } from "../../errors.js";
import { FeedbackResults, HistoryIterationSchema } from "./battle-files.js";

export const SIDECAR_SCHEMA_VERSION = 1;

export const SidecarCheckpoint = z.looseObject({
  /** `cp-<epochMs>-<random7>`, pokeralph's own checkpoint id format. */
  id: z.string().min(1),
  /** 0 = before the battle started; n = after iteration n. */
  afterIteration: z.number().int().min(0),
  commit: z.string().regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/, "a full commit hash"),
  ref: z.string().startsWith("refs/pokeralph/"),
  time: z.iso.datetime(),
  description: z.string(),
  /** What changed since the previous checkpoint of this battle (or since HEAD, for the first). */
  files: z.array(z.string()),
  /** The iteration's feedback loop results, as history.json has them. */
  feedback: FeedbackResults.optional(),
  battleId: z.string().optional(),
  /** HEAD when the checkpoint was taken (its parent), and the branch then (null: detached). */
  parent: z.string().optional(),
  branch: z.string().nullable().optional(),
});
export type SidecarCheckpoint = z.infer<typeof SidecarCheckpoint>;

/**
 * One rollback, as battle rollback archives it (`rolledBack`): when, the iterations it took out of history.json (a
 * rollback to its safety ref puts them back there, so they must be iterations history.json can hold), the safety
 * ref, and the checkpoint it went to (`battle fix` diffs against it). Checked by readRollbacks, not by readSidecar:
 * checkpoint create and list never read the archive and keep it as it is.
 */
export const SidecarRollback = z.looseObject({
  at: z.string(),
  iterations: z.array(HistoryIterationSchema),
  safetyRef: z.string(),
  target: z.looseObject({ checkpoint: z.string(), afterIteration: z.number().int().min(0), commit: z.string() }),
});
export type SidecarRollback = z.infer<typeof SidecarRollback>;

export const Sidecar = z.looseObject({
  schemaVersion: z.literal(SIDECAR_SCHEMA_VERSION),
  taskId: z.string(),
  checkpoints: z.array(SidecarCheckpoint),
});
export type Sidecar = z.infer<typeof Sidecar>;

/** The sidecar, or null when recover never recorded a checkpoint for this battle. A damaged one stops everything. */
export function readSidecar(path: string): Sidecar | null {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new RecoverError("store-unreadable", `${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new RecoverError(
      "store-corrupt",
      `${path} is not valid JSON (${(error as Error).message}); fix it or move it away (its checkpoints' refs stay under refs/pokeralph/checkpoints/)`,
    );
  }
  const parsed = Sidecar.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new RecoverError(
      "store-corrupt",
      `${path} is not a checkpoint record (${issue ? `${issue.path.join(".") || "top level"}: ${issue.message}` : "invalid"}); fix it or move it away`,
    );
  }
  // The parsed original, not zod's output: written back, it is exactly what was read plus our change.
  return json as Sidecar;
}

/**
 * The sidecar's archive of rollbacks, checked: battle rollback and battle fix read it, and a damaged entry stops them
 * (exit 2, naming it) as a damaged checkpoint entry stops every command.
 */
export function readRollbacks(sidecar: Sidecar | null, path: string): SidecarRollback[] {
  if (sidecar === null || sidecar.rolledBack === undefined) return [];
  const parsed = z.array(SidecarRollback).safeParse(sidecar.rolledBack);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new RecoverError(
      "store-corrupt",
      `${path} is not a checkpoint record (${["rolledBack", ...(issue?.path ?? [])].join(".")}: ${issue?.message ?? "invalid"}); fix it or move it away`,
    );
  }
  return sidecar.rolledBack as SidecarRollback[];
}

/** The sidecar's bytes as recover writes them (pokeralph's own style: two-space JSON and a newline). */
export function sidecarText(sidecar: Sidecar): string {
  return `${JSON.stringify(sidecar, null, 2)}\n`;
}
