/**
 * One scanning thread: opens the store read-only, then scans sessions, taking each from the counter all threads
 * share, until none is left; every result (or error) is posted back as soon as it is known.
 */
import { parentPort, workerData } from "node:worker_threads";
import { RecoverError } from "../errors.js";
import { RULES } from "../rules/index.js";
import { openStore } from "../stores/discover.js";
import { takeNext, type WorkerReply, type WorkerSetup } from "./parallel-scan.js";
import { scanSession } from "./scan.js";

const setup = workerData as WorkerSetup;
const store = openStore({ store: setup.store.path, format: setup.store.format });
const options = { ...setup.options, rules: RULES.filter((r) => setup.ruleIds.includes(r.id)) };
const next = new Int32Array(setup.next);

for (let index = takeNext(next, setup.ids.length); index >= 0; index = takeNext(next, setup.ids.length)) {
  let reply: WorkerReply;
  try {
    reply = { index, result: scanSession(store, setup.ids[index]!, options) };
  } catch (error) {
    const known = error instanceof RecoverError ? error : new RecoverError("internal", `internal error: ${(error as Error).message}`);
    reply = { index, error: { code: known.code, message: known.message } };
  }
  parentPort!.postMessage(reply);
}
store.close();
