// Crash safety of a repair of a Codex CLI rollout, SIGKILLed at chosen and random moments: see
// transcript-crash-trials.ts. One file per format, so the two test workers share the trials.
import { codexCrashTranscript, transcriptCrashTrials } from "./transcript-crash-trials.js";

transcriptCrashTrials(codexCrashTranscript);
