// Run before every test file (vitest `setupFiles`): the temp dirs and the installed binary a file's tests made with
// test/cli/run.ts go when that file ends, in a worker that runs many files one after the other.
import { afterAll } from "vitest";
import { removeTempDirs } from "../cli/run.js";

afterAll(removeTempDirs);
