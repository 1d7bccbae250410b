/**
 * Where a provider error text comes from: `--error "<text>"`, `--error -` (stdin) or `--error-file <path>`.
 * Anthropic errors are full of backticks, which a shell's double quotes would run as commands: stdin and files
 * take them as they are.
 */
import { readFileSync } from "node:fs";
import { RecoverError, fsError } from "../errors.js";

export function readErrorText(error: string | undefined, errorFile: string | undefined, readInput: () => string, textName = "--error"): string | undefined {
  if (error !== undefined && errorFile !== undefined) throw new RecoverError("usage", `give ${textName} or --error-file, not both`);
  let text: string | undefined;
  try {
    if (errorFile !== undefined) text = readFileSync(errorFile, "utf8");
    else if (error === "-") text = readInput();
    else text = error;
  } catch (cause) {
    throw fsError(cause, errorFile ?? "stdin") ?? new RecoverError("usage", `cannot read the error text: ${(cause as Error).message}`);
  }
  if (text !== undefined && text.trim() === "") throw new RecoverError("usage", "the error text is empty");
  return text?.trim();
}
