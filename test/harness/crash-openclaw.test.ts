// Crash safety of a repair of an openclaw transcript, SIGKILLed at chosen and random moments: see
// transcript-crash-trials.ts. One file per format, so the two test workers share the trials.
import { openclawCrashTranscript, transcriptCrashTrials } from "./transcript-crash-trials.js";

transcriptCrashTrials(openclawCrashTranscript);
