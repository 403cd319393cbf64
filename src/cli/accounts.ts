import type { Command } from "./command";

export const accountCommands: Command[] = [];
