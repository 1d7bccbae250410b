/**
 * The entry of a scan thread (scan/parallel-scan.ts starts its workers here, built as dist/launch-worker.cjs): the
 * scan worker's bundle beside this file, compiled through the code cache as bin/recover compiles the CLI's. The
 * worker's environment is the run's (parallel-scan.ts hands it over), so the cache is where the run keeps its own.
 */
import { fileURLToPath } from "node:url";
import { cacheDirIn, loadBundle } from "./compile-cache.js";

// The bundle's top level is the whole scan loop: by the time loadBundle returns, this thread's sessions are done.
loadBundle(fileURLToPath(new URL("./scan-worker.cjs", import.meta.url)), cacheDirIn(process.env)).save();
