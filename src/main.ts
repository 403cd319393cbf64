#!/usr/bin/env bun
/**
 * The plinth command line. `plinth` alone serves; `plinth help` lists commands.
 * Same commands through `bun src/main.ts …` and the compiled `dist/plinth …`.
 */
import { UsageError } from "./cli/command";
import { ConfigError, loadConfig, parseFlags } from "./config";
import { engineOfUrl, setEngine } from "./core/engine";

// Tables are built for one engine as their modules load (src/core/columns.ts):
// fix the engine from --database-url / PLINTH_DATABASE_URL before loading them.
{
  const { flags } = parseFlags(process.argv.slice(2));
  const url = typeof flags["database-url"] === "string" ? flags["database-url"] : process.env.PLINTH_DATABASE_URL;
  setEngine(engineOfUrl(url));
}
const { commands } = await import("./cli/index");

function help() {
  const w = Math.max(...commands.map((c) => c.usage.length));
  return ["Usage: plinth <command> [options]", "", ...commands.map((c) => `  ${c.usage.padEnd(w)}  ${c.summary}`)].join("\n");
}

async function main(argv: string[]): Promise<number> {
  const { flags, rest } = parseFlags(argv);
  if (rest[0] === "help" || flags.help) {
    console.log(help());
    return 0;
  }
  // Longest command name that prefixes the words given ("keys create" before "keys").
  const words = rest.length ? rest : ["serve"];
  const cmd = [...commands]
    .sort((a, b) => b.name.split(" ").length - a.name.split(" ").length)
    .find((c) => c.name.split(" ").every((w, i) => words[i] === w));
  if (!cmd) {
    console.error(`plinth: unknown command "${words.join(" ")}"\n\n${help()}`);
    return 2;
  }
  try {
    const config = loadConfig(flags);
    const code = await cmd.run({ flags, rest: words.slice(cmd.name.split(" ").length), config });
    return code ?? 0;
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(`plinth: ${e.message}`);
      return 2;
    }
    if (e instanceof UsageError) {
      console.error(`plinth ${cmd.name}: ${e.message}\nusage: ${cmd.usage}`);
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
