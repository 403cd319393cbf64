#!/usr/bin/env bun
/**
 * The plinth command line. `plinth` alone serves; `plinth help` lists commands.
 * Same commands through `bun src/main.ts …` and the compiled `dist/plinth …`.
 * Arguments are read strictly (src/cli/args.ts): unknown flags and commands
 * are errors (exit 2) naming the closest known spelling.
 */
import { parseArgs, usageLine } from "./cli/args";
import { UsageError } from "./cli/command";
import { ConfigError, loadConfig, parseFlags } from "./config";
import { engineOfUrl, setEngine } from "./core/engine";
import { VERSION } from "./version";

// Tables are built for one engine as their modules load (src/core/columns.ts):
// fix the engine from --database-url / PLINTH_DATABASE_URL before loading them.
// `db copy` always has PostgreSQL on one side, opened through the store with its media store (src/cli/db.ts).
{
  const { flags, rest } = parseFlags(process.argv.slice(2));
  const url = typeof flags["database-url"] === "string" ? flags["database-url"] : process.env.PLINTH_DATABASE_URL;
  setEngine(rest[0] === "db" && rest[1] === "copy" ? "pg" : engineOfUrl(url));
}
const { commands } = await import("./cli/index");

async function main(argv: string[]): Promise<number> {
  const parsed = parseArgs(argv, commands);
  switch (parsed.kind) {
    case "version":
      console.log(`plinth ${VERSION}`);
      return 0;
    case "help":
      console.log(parsed.text);
      return 0;
    case "error":
      console.error(`plinth: ${parsed.message}${parsed.usage ? `\nusage: ${parsed.usage}` : ""}`);
      return 2;
  }
  const { command: cmd, flags, rest } = parsed;
  try {
    const config = loadConfig(flags);
    const code = await cmd.run({ flags, rest, config });
    return code ?? 0;
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(`plinth: ${e.message}`);
      return 2;
    }
    if (e instanceof UsageError) {
      console.error(`plinth ${cmd.name}: ${e.message}\nusage: ${usageLine(cmd)}`);
      return 2;
    }
    if (e instanceof Error && e.name === "AppError") {
      console.error(`plinth ${cmd.name}: ${e.message}`);
      return 1;
    }
    throw e;
  }
}

process.exitCode = await main(process.argv.slice(2));
