// Crash safety of a repair of an opencode JSON-tree store, SIGKILLed at chosen and random moments: see crash-trials.ts.
// One file per format, so the two test workers share the trials.
import { crashTrials } from "./crash-trials.js";

crashTrials("opencode-json");
