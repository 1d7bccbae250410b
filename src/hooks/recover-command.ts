/** How a hook recover installs runs recover, and how its files are known as recover's. */

/** This node and this install's bin/recover, by absolute path: the hook works whatever the agent's PATH. */
export interface RecoverCommand {
  node: string;
  bin: string;
}

/** The marker every hook recover writes carries: how `status` and `uninstall` know it is recover's. */
export const HOOK_MARKER = "recover hooks";
