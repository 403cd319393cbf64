/**
 * The command line, read strictly: every command declares its flags
 * (src/cli/command.ts), settings flags come from src/config.ts allSettings() (the core's and the domains'),
 * and anything else is an error that names the closest known spelling:
 *
 *   plinth --dta-dir ./x      → unknown flag --dta-dir; did you mean --data-dir?   (exit 2)
 *   plinth servve             → unknown command "servve"; did you mean "serve"?    (exit 2)
 *
 * Flags may come before or after the command words (`plinth --data-dir d
 * keys list` and `plinth keys list --data-dir d` are the same), as
 * `--name value` or `--name=value`; `--` ends the flags. `-h`/`--help`,
 * `help [command]`, `--version` and `version` need no configuration.
 * Help texts are made here from the declarations and fit 100 columns.
 */
import { allSettings, type Setting } from "../config";
import type { Command, Flag } from "./command";

export const WIDTH = 100;

export type Parsed =
  | { kind: "run"; command: Command; flags: Record<string, string | true>; rest: string[] }
  | { kind: "help"; text: string }
  | { kind: "version" }
  | { kind: "error"; message: string; usage?: string };

const HELP_FLAG: Flag = { name: "help", help: "show this help" };

/** Edit distance with adjacent transpositions (optimal string alignment). */
export function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  return d[a.length]![b.length]!;
}

/** The candidate closest to `word`, if it is close enough to be a likely typo. */
export function closest(word: string, candidates: Iterable<string>): string | null {
  let best: string | null = null;
  let bestD = Infinity;
  for (const c of candidates) {
    const d = distance(word, c);
    if (d < bestD) [best, bestD] = [c, d];
  }
  const allowed = Math.max(1, Math.min(3, Math.floor((best?.length ?? 0) / 3)));
  return best !== null && bestD <= allowed ? best : null;
}

/** Flags a command declared outright, or read from its hand-written usage line. */
export function ownFlags(cmd: Command): Flag[] {
  if (cmd.flags) return cmd.flags;
  const out: Flag[] = [];
  for (const m of (cmd.usage ?? "").matchAll(/--([a-z][a-z0-9-]*)(=|\s+(?=[^\s\-[\]]))?/g))
    if (!out.some((f) => f.name === m[1])) out.push({ name: m[1]!, value: m[2] ? "<value>" : undefined, help: "" });
  return out;
}

function settingsOf(cmd: Command): Setting[] {
  const groups = cmd.settings ?? ["store"];
  return allSettings().filter((s) => groups.includes(s.group));
}

/** Every flag the command accepts: its own, its settings', and --help. */
function accepted(cmd: Command): Map<string, Flag> {
  const m = new Map<string, Flag>();
  for (const f of ownFlags(cmd)) m.set(f.name, f);
  for (const s of settingsOf(cmd)) if (s.flag) m.set(s.flag, { name: s.flag, value: s.value, help: s.help });
  m.set("help", HELP_FLAG);
  return m;
}

/** Whether a flag name takes a value, judged from every command and setting (flags may precede the command). */
function arities(commands: Command[]): Map<string, boolean> {
  const m = new Map<string, boolean>([
    ["help", false],
    ["version", false],
  ]);
  for (const s of allSettings()) if (s.flag) m.set(s.flag, true);
  for (const c of commands) for (const f of ownFlags(c)) m.set(f.name, f.value !== undefined);
  return m;
}

/** Command families ("keys" for keys create/list/revoke). */
function families(commands: Command[]): Map<string, Command[]> {
  const m = new Map<string, Command[]>();
  for (const c of commands) {
    const [head, ...tail] = c.name.split(" ");
    if (tail.length) m.set(head!, [...(m.get(head!) ?? []), c]);
  }
  return m;
}

/** The longest command name that prefixes `words` ("keys create" before "keys"). */
function findCommand(commands: Command[], words: string[]): Command | undefined {
  return [...commands]
    .sort((a, b) => b.name.split(" ").length - a.name.split(" ").length)
    .find((c) => c.name.split(" ").every((w, i) => words[i] === w));
}

function unknownCommand(commands: Command[], words: string[]): string {
  const fam = families(commands);
  if (words.length === 1 && fam.has(words[0]!))
    return `"${words[0]}" needs a subcommand: ${fam
      .get(words[0]!)!
      .map((c) => c.name)
      .join(", ")}`;
  const names = [...commands.map((c) => c.name), "help", "version"];
  // Compare as many words as each candidate has: "keys craete 5" against "keys create".
  let best: string | null = null;
  let bestD = Infinity;
  for (const n of names) {
    const given = words.slice(0, n.split(" ").length).join(" ");
    const d = distance(given, n);
    if (d < bestD) [best, bestD] = [n, d];
  }
  const shown = words.slice(0, 2).join(" ");
  const close = best !== null && bestD <= Math.max(1, Math.min(3, Math.floor(best.length / 3)));
  return `unknown command "${shown}"${close ? `; did you mean "${best}"?` : ""} (plinth help lists the commands)`;
}

export function parseArgs(argv: string[], commands: Command[]): Parsed {
  const arity = arities(commands);
  const flags: Record<string, string | true> = {};
  const given: string[] = [];
  const words: string[] = [];
  const problems: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--") {
      words.push(...argv.slice(i + 1));
      break;
    }
    if (a === "-h") {
      flags.help = true;
      given.push("help");
    } else if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      const name = eq > 0 ? a.slice(2, eq) : a.slice(2);
      let value: string | true = eq > 0 ? a.slice(eq + 1) : true;
      const takes = arity.get(name);
      // The next word is the value unless it is itself a flag ("-1" is a value: `keys revoke --x -1`).
      if (eq < 0 && takes !== false && i + 1 < argv.length && !/^-[-A-Za-z]/.test(argv[i + 1]!)) value = argv[++i]!;
      else if (eq < 0 && takes === true) problems.push(`--${name} needs a value`);
      if (takes === false && eq > 0) problems.push(`--${name} takes no value`);
      if (name in flags) problems.push(`--${name} is given more than once`);
      flags[name] = value;
      given.push(name);
    } else if (/^-[A-Za-z]/.test(a)) {
      problems.push(`unknown flag ${a}${a === "-v" || a === "-V" ? "; did you mean --version?" : ""}`);
    } else words.push(a);
  }

  if (flags.version === true && !words.length) return { kind: "version" };
  if (words[0] === "version" && words.length === 1)
    return given.every((f) => f === "version")
      ? { kind: "version" }
      : { kind: "error", message: "version takes no flags" };
  if (flags.help && !words.length) return { kind: "help", text: mainHelp(commands) };
  if (words[0] === "help") {
    const topic = words.slice(1);
    if (!topic.length) return { kind: "help", text: mainHelp(commands) };
    const cmd = findCommand(commands, topic);
    if (cmd && cmd.name.split(" ").length === topic.length) return { kind: "help", text: commandHelp(cmd) };
    const fam = families(commands).get(topic[0]!);
    if (fam && topic.length === 1) return { kind: "help", text: familyHelp(topic[0]!, fam) };
    return { kind: "error", message: unknownCommand(commands, topic) };
  }

  const cmdWords = words.length ? words : ["serve"];
  const command = findCommand(commands, cmdWords);
  // Unknown flags are reported before an unknown command: `plinth --dta-dir x` is about the flag.
  const known = command ? accepted(command) : null;
  const allFlags = new Set([...arity.keys()]);
  for (const name of given) {
    if (name === "version") {
      problems.push(`--version takes no command (plinth --version)`);
      continue;
    }
    if (known ? known.has(name) : allFlags.has(name)) continue;
    // --version is asked for alone, so it is a candidate wherever a flag was mistyped.
    const near = closest(name, known ? [...known.keys(), ...(words.length ? [] : ["version"])] : allFlags);
    const elsewhere = !near && allFlags.has(name) ? `; it is not a flag of ${command!.name}` : "";
    problems.push(`unknown flag --${name}${near ? `; did you mean --${near}?` : elsewhere}`);
  }
  const fam = families(commands).get(cmdWords[0]!);
  if (flags.help && !command && fam && cmdWords.length === 1)
    return { kind: "help", text: familyHelp(cmdWords[0]!, fam) };
  if (problems.length)
    return {
      kind: "error",
      message: [...new Set(problems)].join("\n"),
      usage: command ? usageLine(command) : undefined,
    };
  if (!command) return { kind: "error", message: unknownCommand(commands, cmdWords) };
  if (flags.help) return { kind: "help", text: commandHelp(command) };
  const rest = words.slice(words.length ? command.name.split(" ").length : 0);
  if (rest.length && !command.args && command.flags)
    return { kind: "error", message: `unexpected argument "${rest[0]!.slice(0, 100)}"`, usage: usageLine(command) };
  return { kind: "run", command, flags, rest };
}

// ---------------------------------------------------------------------------
// Help texts

/** Wraps `text` to WIDTH, the first line after `first`, the others indented by `indent` spaces. */
export function wrap(text: string, first: string, indent: number): string[] {
  const lines: string[] = [];
  let line = first;
  let empty = true;
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (!empty && line.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = " ".repeat(indent) + word;
    } else line += (empty ? "" : " ") + word;
    empty = false;
  }
  lines.push(line);
  return lines;
}

/** A term and its description: side by side when the term is short, else the description below it. */
function entry(term: string, help: string, column = 24): string[] {
  const head = `  ${term}`;
  if (head.length + 2 <= column) return wrap(help, head.padEnd(column), column);
  return [head, ...wrap(help, " ".repeat(column), column)];
}

function flagTerm(f: Flag): string {
  return f.name === "help" ? "-h, --help" : `--${f.name}${f.value ? ` ${f.value}` : ""}`;
}

/** "plinth keys create --site <id> [--name <text>] <args> [settings]", wrapped. */
export function usageLine(cmd: Command): string {
  if (!cmd.flags && cmd.usage) return wrap(cmd.usage, "", 4).join("\n");
  const parts = [`plinth ${cmd.name}`];
  for (const f of cmd.flags ?? []) parts.push(f.required ? flagTerm(f) : `[${flagTerm(f)}]`);
  if (cmd.args) parts.push(cmd.args);
  if (settingsOf(cmd).length) parts.push("[settings]");
  return wrap(parts.join(" ").replace(/\s+/g, " "), "", 4).join("\n");
}

function settingsHelp(cmd: Command): string[] {
  const list = settingsOf(cmd);
  if (!list.length) return [];
  const out = ["", "Settings (each flag can also be set by its environment variable; the flag wins):"];
  for (const s of list) {
    const term = s.flag ? `--${s.flag} ${s.value}` : "(environment only)";
    out.push(`  ${term.padEnd(38)} ${s.env}`, ...wrap(s.help, "      ", 6));
  }
  return out;
}

export function commandHelp(cmd: Command): string {
  const lines = [...wrap(usageLine(cmd).replace(/\n\s+/g, " "), "Usage: ", 4), "", ...wrap(cmd.summary, "", 0)];
  lines.push("", "Flags:");
  for (const f of ownFlags(cmd))
    lines.push(...entry(flagTerm(f), (f.required ? "required: " : "") + (f.help || "see the usage line")));
  lines.push(...entry(flagTerm(HELP_FLAG), HELP_FLAG.help));
  if (cmd.notes) lines.push("", ...cmd.notes());
  lines.push(...settingsHelp(cmd));
  return lines.join("\n");
}

function familyHelp(name: string, list: Command[]): string {
  return [
    `Commands under "${name}":`,
    ...list.flatMap((c) => entry(c.name, c.summary, 24)),
    "",
    `plinth help ${name} <command> shows a command's flags.`,
  ].join("\n");
}

export function mainHelp(commands: Command[]): string {
  return [
    "Usage: plinth [command] [flags]",
    "",
    ...wrap("Plinth: a headless content and commerce service in one executable. Without a command it serves.", "", 0),
    "",
    "Commands:",
    ...commands.flatMap((c) => entry(c.name, c.summary)),
    ...entry("help [command]", "Show this, or a command's flags and settings."),
    ...entry("version", "Print the version (also plinth --version)."),
    "",
    ...wrap(
      "plinth help <command> (or plinth <command> --help) lists its flags and their environment variables.",
      "",
      0,
    ),
  ].join("\n");
}

/** Every help text there is, for the test that holds them to WIDTH columns. */
export function allHelpTexts(commands: Command[]): string[] {
  return [
    mainHelp(commands),
    ...commands.map(commandHelp),
    ...[...families(commands)].map(([n, l]) => familyHelp(n, l)),
  ];
}
