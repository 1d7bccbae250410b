// The fuzz loop on opencode-json stores: see fuzz-support.ts. One file per format, so the two test workers share them.
import { fuzzLoop } from "./fuzz-support.js";

fuzzLoop("opencode-json");
