import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";

/** Is `command` runnable (a path that exists, or a name found on `env.PATH`)? Its path, or null. */
export function findExecutable(command: string, env: NodeJS.ProcessEnv): string | null {
  if (command.includes("/")) return existsSync(command) ? command : null;
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (dir && existsSync(join(dir, command))) return join(dir, command);
  }
  return null;
}
