// `node --import ./record-imports.mjs …`: every module the program imports is appended (one URL a line) to the
// file named by RECOVER_TEST_IMPORTS, so a test can tell what a command loaded.
import { register } from "node:module";

register("./record-imports-hooks.mjs", import.meta.url, { data: { file: process.env.RECOVER_TEST_IMPORTS } });
