/**
 * Scan many sessions on every core. This thread scans too, and each worker thread opens the store itself
 * (read-only) and scans the sessions it is handed one at a time. Ids are handed out as threads free up and
 * results are yielded in the order the ids were given, so output is identical to a sequential scan. Memory stays
 * bounded: each thread holds one session, and only results (findings) wait here for their turn.
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { RecoverError, type ErrorCode } from "../errors.js";
import type { RuleOptions } from "../rules/rule.js";
import type { StoreFormat } from "../stores/store.js";
import type { SessionResult } from "./session-result.js";

export interface WorkerSetup {
  store: { path: string; format: StoreFormat };
  ruleIds: string[];
  options: RuleOptions;
}

export type WorkerReply = { index: number; result: SessionResult } | { index: number; error: { code: ErrorCode; message: string } };

const IN_FLIGHT = 8;

/** Below this many sessions, starting threads costs more than it saves. */
export const PARALLEL_MIN_SESSIONS = 16;

/** How many threads (this one included) scan `sessions` sessions; RECOVER_SCAN_THREADS overrides (0 or 1 = this thread only). */
export function workerCount(sessions: number, env: NodeJS.ProcessEnv): number {
  const forced = Number.parseInt(env.RECOVER_SCAN_THREADS ?? "", 10);
  if (Number.isInteger(forced) && forced >= 0) return forced;
  if (sessions < PARALLEL_MIN_SESSIONS) return 0;
  return Math.min(availableParallelism(), 4, Math.ceil(sessions / PARALLEL_MIN_SESSIONS));
}

export async function* scanInParallel(
  ids: readonly string[],
  setup: WorkerSetup,
  threads: number,
  scanHere: (id: string) => SessionResult,
): AsyncGenerator<SessionResult> {
  const workers = Array.from({ length: threads - 1 }, () => new Worker(new URL("./scan-worker.js", import.meta.url), { workerData: setup }));
  const done = new Map<number, SessionResult>();
  let next = 0;
  let emitted = 0;
  let failure: Error | undefined;
  let finished = false;
  let wake: (() => void) | undefined;
  const notify = () => {
    wake?.();
    wake = undefined;
  };
  const handOut = (worker: Worker) => {
    if (next < ids.length && !failure) worker.postMessage({ index: next, id: ids[next++] });
  };
  for (const worker of workers) {
    worker.on("message", (reply: WorkerReply) => {
      if ("error" in reply) failure ??= new RecoverError(reply.error.code, reply.error.message);
      else done.set(reply.index, reply.result);
      handOut(worker);
      notify();
    });
    worker.on("error", (error) => {
      failure ??= error;
      notify();
    });
    // A worker that ends before we end it (killed, out of memory) would leave its sessions unanswered forever.
    worker.on("exit", (code) => {
      if (finished) return;
      failure ??= new Error(`a scanning thread stopped unexpectedly (exit code ${code})`);
      notify();
    });
    // Several sessions in flight per worker: this thread only hands out more between its own sessions, and a
    // worker must not sit idle meanwhile. Only ids are queued there; a worker holds one session at a time.
    for (let i = 0; i < IN_FLIGHT; i++) handOut(worker);
  }
  try {
    while (emitted < ids.length) {
      const result = done.get(emitted);
      if (result) {
        done.delete(emitted++);
        yield result;
        continue;
      }
      if (failure) throw failure;
      if (next < ids.length) {
        const index = next++;
        done.set(index, scanHere(ids[index]!));
        // Let worker replies in before the next session here, so no worker waits for work.
        await new Promise<void>((resolve) => setImmediate(resolve));
        continue;
      }
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    finished = true;
    await Promise.all(workers.map((w) => w.terminate()));
  }
}
