// The fuzz loop on codex stores (sessions the real client wrote): see fuzz-support.ts. One file per format.
import { fuzzLoop } from "./fuzz-support.js";

fuzzLoop("codex");
