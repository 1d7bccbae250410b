/** One scanning thread: opens the store read-only, scans each session id it receives, replies with the result. */
import { parentPort, workerData } from "node:worker_threads";
import { RecoverError } from "../errors.js";
import { RULES } from "../rules/index.js";
import { openStore } from "../stores/discover.js";
import type { WorkerReply, WorkerSetup } from "./parallel-scan.js";
import { scanSession } from "./scan.js";

const setup = workerData as WorkerSetup;
const store = openStore({ store: setup.store.path, format: setup.store.format });
const options = { ...setup.options, rules: RULES.filter((r) => setup.ruleIds.includes(r.id)) };

parentPort!.on("message", ({ index, id }: { index: number; id: string }) => {
  let reply: WorkerReply;
  try {
    reply = { index, result: scanSession(store, id, options) };
  } catch (error) {
    const known = error instanceof RecoverError ? error : new RecoverError("internal", `internal error: ${(error as Error).message}`);
    reply = { index, error: { code: known.code, message: known.message } };
  }
  parentPort!.postMessage(reply);
});
