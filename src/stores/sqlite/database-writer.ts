/**
 * What every writer of a SQLite store shares: its one read-write connection, opened on first use (a transaction of
 * whole files, such as undoing a salvage, must not hold the database open), SQLite's errors said in one line, and the
 * checks before a write (the database whole, no one else holding it).
 *
 * Foreign keys are off on the connection: each store's writer keeps parents and children consistent itself (a plan,
 * or a session's image, names every row it writes), and a restore must be able to put back a row whose parent is
 * already gone, which the store's own cascades would otherwise delete.
 */
import type Database from "better-sqlite3";
import type { StoreInfo } from "../store.js";
import { guarded } from "./errors.js";
import { openDatabase } from "./open.js";
import { assertWhole, databaseOpeners } from "./write-guards.js";

export abstract class SqliteDatabaseWriter {
  private connection?: Database.Database;

  constructor(readonly info: StoreInfo) {}

  protected get db(): Database.Database {
    if (!this.connection) {
      const db = this.guard(() => openDatabase(this.info.path, { fileMustExist: true, timeout: 5000 }));
      db.pragma("foreign_keys = OFF");
      this.connection = db;
    }
    return this.connection;
  }

  protected guard<T>(work: () => T): T {
    return guarded(this.info.path, work);
  }

  /** Refuse to write into a damaged database (PRAGMA quick_check). */
  checkIntegrity(): void {
    assertWhole(this.db, this.info.path);
  }

  /** A running agent holds its database open, and its -wal and -shm beside it. */
  openers(): { pid: number; name: string }[] {
    return databaseOpeners(this.info.path);
  }

  close(): void {
    this.connection?.close();
    this.connection = undefined;
  }
}
