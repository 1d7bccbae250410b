// The fuzz loop on openclaw stores: see fuzz-support.ts. One file per format, so the two test workers share them.
import { fuzzLoop } from "./fuzz-support.js";

fuzzLoop("openclaw");
