/**
 * A CLI command: `plinth <name> …`. Each family of commands lives in its own
 * file under src/cli/. A command declares its own flags and whether it takes
 * the settings of src/config.ts; the parser (src/cli/args.ts) refuses any
 * other flag, and help texts are made from the declarations.
 */
import type { Config } from "../config";

export interface Flag {
  /** Without the dashes: "site". */
  name: string;
  /** The value's placeholder ("<id>"); absent for a switch that takes none. */
  value?: string;
  help: string;
  required?: boolean;
}

export interface Command {
  /** e.g. "keys create" */
  name: string;
  summary: string;
  /** The command's own flags; settings (--data-dir, …) come from `settings`. */
  flags?: Flag[];
  /** Positional arguments as help shows them ("<key-id>"); none are accepted when absent. */
  args?: string;
  /**
   * Which groups of settings (src/config.ts allSettings(): the core's and the domains') the command accepts:
   * "store" for every command that opens the data, plus "server" for serve.
   * Default ["store"].
   */
  settings?: ("store" | "server")[];
  /**
   * A hand-written usage line. Only for commands that declare no `flags`:
   * their flags are then read from it (`--from <x>` takes a value, `[--dry]`
   * none), and positional arguments are left to the command to check.
   */
  usage?: string;
  /** Lines help shows after the flags (e.g. the scopes a key may be given); each fits the help's width. */
  notes?: () => string[];
  run(args: { flags: Record<string, string | true>; rest: string[]; config: Config }): Promise<number | void>;
}

/** A usage error: printed as one line with the command's usage, exit code 2. */
export class UsageError extends Error {}

export function needFlag(flags: Record<string, string | true>, name: string): string {
  const v = flags[name];
  if (v === undefined || v === true || v === "") throw new UsageError(`--${name} is required`);
  return v;
}
