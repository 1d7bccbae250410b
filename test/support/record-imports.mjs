// `node --import ./record-imports.mjs …`: every module the program imports is appended (one URL a line) to the
// file named by RECOVER_TEST_IMPORTS, so a test can tell what a command loaded. Packages loaded with require()
// (CommonJS, which the import hooks do not see: better-sqlite3 is loaded so) are appended as `require:<name>`.
import { appendFileSync } from "node:fs";
import Module, { register } from "node:module";

const file = process.env.RECOVER_TEST_IMPORTS;
register("./record-imports-hooks.mjs", import.meta.url, { data: { file } });

const load = Module._load;
Module._load = function recordedLoad(request, ...rest) {
  if (file && !request.startsWith("node:") && !request.startsWith(".") && !request.startsWith("/")) appendFileSync(file, `require:${request}\n`);
  return load.call(this, request, ...rest);
};
