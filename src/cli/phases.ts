/**
 * Where a command's time goes, as User Timing marks (`performance.mark`): loaded, planned, writing, written. They
 * cost a few microseconds and print nothing; the benches' preload (bench/report-rss.mjs) reads them at exit, so a
 * figure such as "plans in ≤ 1 s" is measured inside the process, apart from start-up and reading the store.
 */
export type Phase = "loaded" | "planned" | "writing" | "written";

export function markPhase(phase: Phase): void {
  performance.mark(`recover:${phase}`);
}
