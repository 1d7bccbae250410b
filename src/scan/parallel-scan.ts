/**
 * Scan many sessions on every core. This thread scans too, and each worker thread opens the store itself
 * (read-only). Every thread takes the next session from one shared counter (an Atomics add on a SharedArrayBuffer),
 * so no thread waits for another to hand it work: sessions of very different sizes still keep every thread busy,
 * and the last one to finish is at most one session behind. Results are yielded in the order the ids were given,
 * so output is identical to a sequential scan. Memory stays bounded: each thread holds one session, and only
 * results (findings) wait here for their turn.
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { RecoverError, type ErrorCode } from "../errors.js";
import type { RuleOptions } from "../rules/rule.js";
import type { StoreFormat } from "../stores/store.js";
import { occasionalTurns } from "./event-loop.js";
import type { SessionResult } from "./session-result.js";

export interface WorkerSetup {
  store: { path: string; format: StoreFormat };
  ruleIds: string[];
  options: RuleOptions;
  /** Every id of the scan; a thread scans those whose index it takes from `next`. */
  ids: readonly string[];
  /** One Int32: the index of the next session nobody has taken yet. */
  next: SharedArrayBuffer;
}

export type WorkerReply = { index: number; result: SessionResult } | { index: number; error: { code: ErrorCode; message: string } };

/** Below this many sessions, starting threads costs more than it saves. */
export const PARALLEL_MIN_SESSIONS = 16;

/**
 * How many threads (this one included) scan `sessions` sessions; RECOVER_SCAN_THREADS overrides (0 or 1 = this thread
 * only), up to one thread per session: a thread with no session to take would only start up, a V8 isolate of its own
 * (RECOVER_SCAN_THREADS=300 on a five-session store took 10 s and 1.5 GB).
 */
export function workerCount(sessions: number, env: NodeJS.ProcessEnv): number {
  const forced = Number.parseInt(env.RECOVER_SCAN_THREADS ?? "", 10);
  if (Number.isInteger(forced) && forced >= 0) return Math.min(forced, sessions);
  if (sessions < PARALLEL_MIN_SESSIONS) return 0;
  return Math.min(availableParallelism(), 4, Math.ceil(sessions / PARALLEL_MIN_SESSIONS));
}

/** The index of the next session to scan, taken for good; -1 when every session is taken. */
export function takeNext(next: Int32Array, total: number): number {
  const index = Atomics.add(next, 0, 1);
  return index < total ? index : -1;
}

export async function* scanInParallel(
  ids: readonly string[],
  setup: Omit<WorkerSetup, "ids" | "next">,
  threads: number,
  /** The run's environment, the workers' too. */
  env: NodeJS.ProcessEnv,
  scanHere: (id: string) => SessionResult,
): AsyncGenerator<SessionResult> {
  const shared = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT);
  const next = new Int32Array(shared);
  const workers = Array.from(
    { length: threads - 1 },
    // Started through the launcher, which compiles the worker's bundle through the code cache; with the run's env,
    // not this process's, so the worker keeps its cache where the run keeps its own.
    () => new Worker(new URL("./launch-worker.cjs", import.meta.url), { workerData: { ...setup, ids, next: shared } satisfies WorkerSetup, env }),
  );
  const exited = workers.map((worker) => new Promise<void>((resolve) => worker.once("exit", () => resolve())));
  const done = new Map<number, SessionResult>();
  let emitted = 0;
  let failure: Error | undefined;
  let finished = false;
  let running = workers.length;
  let wake: (() => void) | undefined;
  const notify = () => {
    wake?.();
    wake = undefined;
  };
  for (const worker of workers) {
    worker.on("message", (reply: WorkerReply) => {
      if ("error" in reply) failure ??= new RecoverError(reply.error.code, reply.error.message);
      else done.set(reply.index, reply.result);
      notify();
    });
    worker.on("error", (error) => {
      failure ??= error;
      notify();
    });
    // A worker ends by itself (code 0) once no session is left, after posting every result. One that ends otherwise
    // (killed, out of memory) would leave the session it took unanswered forever.
    worker.on("exit", (code) => {
      running--;
      if (finished) return;
      if (code !== 0) failure ??= new Error(`a scanning thread stopped unexpectedly (exit code ${code})`);
      notify();
    });
  }
  const turn = occasionalTurns();
  try {
    while (emitted < ids.length) {
      const result = done.get(emitted);
      if (result) {
        done.delete(emitted++);
        yield result;
        continue;
      }
      if (failure) throw failure;
      const index = takeNext(next, ids.length);
      if (index >= 0) {
        done.set(index, scanHere(ids[index]!));
        // Now and then, let worker replies in between this thread's sessions, so results flow out as they come.
        await turn();
        continue;
      }
      // Every session is taken; one still missing must come from a worker. Node delivers a worker's last messages
      // before its exit, so once all have ended, a missing answer is one no thread will ever give.
      if (running === 0) throw new Error(`a scanning thread ended without answering for session ${ids[emitted]}`);
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    finished = true;
    if (emitted === ids.length && !failure) {
      // Every session answered: the workers end by themselves, after writing the code cache of their bundle on the
      // first run of a build (the launcher's last step); ending them now would leave that half-written.
      await Promise.all(exited);
    } else {
      // Workers still scanning (an error here, a reader that stopped early) take no more sessions, and are ended.
      Atomics.store(next, 0, ids.length);
      await Promise.all(workers.map((w) => w.terminate()));
    }
  }
}
