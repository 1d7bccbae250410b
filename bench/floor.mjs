#!/usr/bin/env node
// The floor for the scan benchmark: the least work any scan must do. It reads every part row once
// with better-sqlite3 and JSON.parses it, and nothing more.
//
//   node bench/floor.mjs <store dir | opencode.db>   →   {"rows":…,"parseFailures":…,"ms":…,"maxRssMB":…}
import Database from "better-sqlite3";
import { statSync } from "node:fs";
import { join } from "node:path";

const arg = process.argv[2];
if (!arg) {
  process.stderr.write("usage: node bench/floor.mjs <store dir | opencode.db>\n");
  process.exit(2);
}
const dbPath = statSync(arg).isDirectory() ? join(arg, "opencode.db") : arg;

const t0 = performance.now();
const db = new Database(dbPath, { readonly: true, fileMustExist: true });
let rows = 0;
let parseFailures = 0;
// iterate() streams one row at a time; pluck() hands back the column value without a row object.
for (const data of db.prepare("SELECT data FROM part").pluck().iterate()) {
  rows++;
  try {
    JSON.parse(data);
  } catch {
    parseFailures++; // the generator plants truncated rows on purpose
  }
}
db.close();
const ms = Math.round(performance.now() - t0);
// maxRSS is in kilobytes (Linux ru_maxrss).
const maxRssMB = Math.round(process.resourceUsage().maxRSS / 1024);
process.stdout.write(JSON.stringify({ rows, parseFailures, ms, maxRssMB }) + "\n");
