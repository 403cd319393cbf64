/** Every CLI command. Families live in their own files; this only lists them. */
import type { Command } from "./command";
import { serverCommands } from "./server";
import { restKeyCommands } from "./rest-keys";
import { accountCommands } from "./accounts";

export const commands: Command[] = [...serverCommands, ...restKeyCommands, ...accountCommands];
