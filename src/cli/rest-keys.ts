import type { Command } from "./command";

export const restKeyCommands: Command[] = [];
