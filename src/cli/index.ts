/** Every CLI command. Families live in their own files; this only lists them. */
import type { Command } from "./command";
import { serverCommands } from "./server";
import { restKeyCommands } from "./rest-keys";
import { accountCommands } from "./accounts";
import { dbCommands } from "./db";
import { backupCommands } from "./backup";
import { creditCommands } from "./credits";
import { emailCommands } from "./email";

export const commands: Command[] = [
  ...serverCommands,
  ...restKeyCommands,
  ...accountCommands,
  ...dbCommands,
  ...backupCommands,
  ...creditCommands,
  ...emailCommands,
];
