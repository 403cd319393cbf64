/** A CLI command: `plinth <name> …`. Each family of commands lives in its own file under src/cli/. */
import type { Config } from "../config";

export interface Command {
  /** e.g. "keys create" */
  name: string;
  usage: string;
  summary: string;
  run(args: { flags: Record<string, string | true>; rest: string[]; config: Config }): Promise<number | void>;
}

/** A usage error: printed as one line with the command's usage, exit code 2. */
export class UsageError extends Error {}

export function needFlag(flags: Record<string, string | true>, name: string): string {
  const v = flags[name];
  if (v === undefined || v === true || v === "") throw new UsageError(`--${name} is required`);
  return v;
}
