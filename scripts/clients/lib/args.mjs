// The one argument parser of the client scripts: node's own (util.parseArgs), with a usage line on a bad argument
// and exit 2, as recover itself does.
import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

/**
 * `options`: util.parseArgs options ({ name: { type, short?, default?, multiple? } }). Returns { values, positionals }.
 * Numbers are given as strings by util.parseArgs; `numbers` names the options to convert.
 */
export function parseCommand(argv, { options, usage, numbers = [] }) {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { ...options, help: { type: "boolean", short: "h" } }, allowPositionals: true, strict: true });
  } catch (e) {
    console.error(`${e.message}\n${usage}`);
    process.exit(2);
  }
  if (parsed.values.help) {
    console.log(usage);
    process.exit(0);
  }
  for (const n of numbers) {
    if (parsed.values[n] === undefined) continue;
    const v = Number(parsed.values[n]);
    if (!Number.isFinite(v)) {
      console.error(`--${n} takes a number, not ${JSON.stringify(parsed.values[n])}\n${usage}`);
      process.exit(2);
    }
    parsed.values[n] = v;
  }
  return parsed;
}

/** True when this module is the script node was started with (the scripts are modules and commands both). */
export const isMain = (url) => Boolean(process.argv[1]) && fileURLToPath(url) === fs.realpathSync(process.argv[1]);
