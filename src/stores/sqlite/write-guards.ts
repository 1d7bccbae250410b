/**
 * What every writer of a SQLite store checks before it writes: that the database is whole (a write into a damaged
 * one spreads the damage), and who holds it open right now (its agent, writing it).
 */
import type Database from "better-sqlite3";
import { RecoverError } from "../../errors.js";
import { processesHolding } from "../openers.js";
import { SALVAGE, guarded } from "./errors.js";

/** Refuse a database that PRAGMA quick_check finds damaged; nothing is written into it. */
export function assertWhole(db: Database.Database, path: string): void {
  const result = guarded(path, () => db.prepare("PRAGMA quick_check(3)").pluck().all() as string[]);
  if (result.length === 1 && result[0] === "ok") return;
  const damage = result.map((line) => line.replace(/\s*\n\s*/g, " ")).join("; ");
  throw new RecoverError("store-corrupt", `${path} is damaged (PRAGMA quick_check: ${damage}); nothing was changed`, SALVAGE);
}

/** Processes holding the database, its -wal or its -shm open. */
export function databaseOpeners(path: string): { pid: number; name: string }[] {
  return processesHolding([path, `${path}-wal`, `${path}-shm`]);
}
