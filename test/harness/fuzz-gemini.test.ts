// The fuzz loop on gemini stores (sessions the real client wrote): see fuzz-support.ts. One file per format.
import { fuzzLoop } from "./fuzz-support.js";

fuzzLoop("gemini");
