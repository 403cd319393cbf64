/**
 * The command line read strictly, through real processes: unknown flags and
 * commands are errors naming the closest spelling (exit 2), `--version` and
 * `version` print package.json's version, every command has help (`-h`,
 * `--help`, `help <command>`) listing its flags and, for settings, their
 * environment variables, in at most 100 columns; settings flags are taken
 * by the commands that use configuration, before or after the command.
 */
import { renderSettingsTable, withSettingsTable } from "../../src/cli/settings-doc";
import "../../src/catalog"; // the domains declare their settings when the catalog is built
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { allHelpTexts, WIDTH } from "../../src/cli/args";
import { commands } from "../../src/cli/index";
import { allSettings } from "../../src/config";
import { dropDatabase, freshDatabaseUrl, ON_PG } from "../db";
import { childEnv, MAIN, ROOT } from "../ops/child";

let dir: string;
let databaseUrl: string | null = null;

function plinth(...args: string[]) {
  const t0 = performance.now();
  const p = Bun.spawnSync([process.execPath, MAIN, ...args], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
    env: childEnv({ PLINTH_DATABASE_URL: databaseUrl ?? undefined }),
    timeout: 20_000,
  });
  return { code: p.exitCode, out: p.stdout.toString(), err: p.stderr.toString(), ms: performance.now() - t0 };
}

/** The same, without blocking, so many can run at once. */
async function plinthAsync(...args: string[]) {
  const p = Bun.spawn([process.execPath, MAIN, ...args], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
    env: childEnv(),
  });
  const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
  return { code: await p.exited, out, err };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "plinth-flags-"));
  if (ON_PG) databaseUrl = await freshDatabaseUrl();
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await dropDatabase(databaseUrl);
});

describe("mistakes are errors with a suggestion", () => {
  test.each([
    [["--dta-dir", "PLACE"], "unknown flag --dta-dir; did you mean --data-dir?"],
    [["serve", "--prot", "9000"], "unknown flag --prot; did you mean --port?"],
    [["keys", "create", "--sit", "1"], "unknown flag --sit; did you mean --site?"],
    [["mcp-keys", "create", "--email", "a@b.c", "--scope", "*"], "unknown flag --scope; did you mean --scopes?"],
    [["users", "create", "--emial", "a@b.c", "--password", "x"], "unknown flag --emial; did you mean --email?"],
    [["keys", "list", "--site", "1", "--port", "5"], "unknown flag --port; it is not a flag of keys list"],
    [["migrate", "--public-url", "http://x"], "unknown flag --public-url; it is not a flag of migrate"],
    [["--verison"], "unknown flag --verison; did you mean --version?"],
    [["-v"], "unknown flag -v; did you mean --version?"],
  ])("plinth %p", (args, message) => {
    const data = join(dir, `never-${args.join("-").replace(/\W+/g, "")}`);
    const r = plinth(...args.map((a) => (a === "PLACE" ? data : a)));
    expect(r.code).toBe(2);
    expect(r.err.split("\n")[0]).toBe(`plinth: ${message}`);
    expect(r.out).toBe("");
    expect(existsSync(data)).toBe(false); // nothing ran: no server, no data dir
  });

  test.each([
    [["servve"], 'unknown command "servve"; did you mean "serve"?'],
    [["keys", "craete", "--site", "1"], 'unknown command "keys craete"; did you mean "keys create"?'],
    [["key", "list"], 'unknown command "key list"; did you mean "keys list"?'],
    [["mcp-keys"], '"mcp-keys" needs a subcommand: mcp-keys create, mcp-keys revoke, mcp-keys list'],
    [["frobnicate"], 'unknown command "frobnicate" (plinth help lists the commands)'],
    [["help", "kyes", "list"], 'unknown command "kyes list"; did you mean "keys list"?'],
  ])("plinth %p", (args, message) => {
    const r = plinth(...args);
    expect(r.code).toBe(2);
    expect(r.err.trim().split("\n")[0]).toStartWith(`plinth: ${message}`);
  });

  test.each([
    [["keys", "create", "--site"], "--site needs a value"],
    [["seed", "--demo=yes"], "--demo takes no value"],
    [["keys", "list", "--site", "1", "--site", "2"], "--site is given more than once"],
    [["migrate", "now"], 'unexpected argument "now"'],
    [["serve", "extra"], 'unexpected argument "extra"'],
  ])("plinth %p", (args, message) => {
    const r = plinth(...args);
    expect(r.code).toBe(2);
    expect(r.err.split("\n")[0]).toBe(`plinth: ${message}`);
    expect(r.err.split("\n")[1]).toStartWith("usage: plinth ");
  });
});

describe("version", () => {
  test("plinth --version and plinth version print package.json's version and start nothing", async () => {
    for (const r of await Promise.all([plinthAsync("--version"), plinthAsync("version")]))
      expect(r).toMatchObject({ code: 0, out: `plinth ${pkg.version}\n`, err: "" });
  });
});

describe("help", () => {
  test("every line of every help text fits in 100 columns", () => {
    const texts = allHelpTexts(commands);
    expect(texts.length).toBeGreaterThan(commands.length);
    for (const t of texts)
      for (const line of t.split("\n")) expect({ line, width: line.length <= WIDTH }).toEqual({ line, width: true });
  });

  test("-h, --help and help <command> print the same usage for every command, with each of its flags", async () => {
    // A few at a time: dozens of processes at once starve a small machine.
    const runs: {
      c: (typeof commands)[number];
      help: Awaited<ReturnType<typeof plinthAsync>>;
      long: Awaited<ReturnType<typeof plinthAsync>>;
      short: Awaited<ReturnType<typeof plinthAsync>>;
    }[] = [];
    for (let i = 0; i < commands.length; i += 3)
      runs.push(
        ...(await Promise.all(
          commands.slice(i, i + 3).map(async (c) => {
            const words = c.name.split(" ");
            const [help, long, short] = await Promise.all([
              plinthAsync("help", ...words),
              plinthAsync(...words, "--help"),
              plinthAsync(...words, "-h"),
            ]);
            return { c, help, long, short };
          }),
        )),
      );
    for (const { c, help, long, short } of runs) {
      expect({ c: c.name, code: help.code, err: help.err }).toEqual({ c: c.name, code: 0, err: "" });
      expect(help.out).toStartWith(`Usage: plinth ${c.name}`);
      for (const line of help.out.split("\n")) expect(line.length).toBeLessThanOrEqual(WIDTH);
      for (const f of c.flags ?? []) expect(help.out).toContain(`--${f.name}`);
      expect(help.out).toContain("-h, --help");
      expect({ c: c.name, out: long.out, err: long.err }).toEqual({ c: c.name, out: help.out, err: "" });
      expect({ c: c.name, out: short.out, err: short.err }).toEqual({ c: c.name, out: help.out, err: "" });
    }
  }, 240_000); // ~3 × 40 process starts: minutes on a loaded 2-core machine

  test("serve's help lists every setting with its flag and its environment variable", async () => {
    const [r, k] = await Promise.all([plinthAsync("help", "serve"), plinthAsync("keys", "create", "--help")]);
    for (const s of allSettings()) {
      expect(r.out).toContain(s.env);
      if (s.flag) expect(r.out).toContain(`--${s.flag} ${s.value}`);
    }
    const keys = k.out;
    expect(keys).toContain("PLINTH_DATA_DIR");
    expect(keys).not.toContain("PLINTH_PORT"); // keys create takes only the settings that open the data
  });

  test("the README's settings table is the one made from every setting, the domains' included (regenerate with `make docs`)", async () => {
    const readme = await Bun.file(join(ROOT, "README.md")).text();
    expect(readme).toContain(renderSettingsTable());
    // A domain's setting is in it: the table is made from allSettings(), not the core's list alone.
    expect(renderSettingsTable()).toContain("| `--hosting-interval <s>` | `PLINTH_HOSTING_INTERVAL` |");
    expect(withSettingsTable(readme)).toBe(readme);
  });

  test("the README's settings table names every setting: its flag and its environment variable", async () => {
    const readme = await Bun.file(join(ROOT, "README.md")).text();
    const table = readme.slice(readme.indexOf("| Flag | Environment | What it sets |"));
    const missing = allSettings().flatMap((s) =>
      [s.flag && `\`--${s.flag} `, `\`${s.env}\``].filter((x): x is string => !!x && !table.includes(x)),
    );
    expect(missing).toEqual([]);
  });

  test("plinth -h, plinth --help and plinth help list every command", async () => {
    const [a, h, help, keys, keysHelp] = await Promise.all([
      plinthAsync("help"),
      plinthAsync("-h"),
      plinthAsync("--help"),
      plinthAsync("help", "keys"),
      plinthAsync("keys", "--help"),
    ]);
    expect(a.code).toBe(0);
    for (const c of commands) expect(a.out).toContain(`  ${c.name} `);
    expect(h.out).toBe(a.out);
    expect(help.out).toBe(a.out);
    expect(keys.out).toContain("keys create");
    expect(keysHelp.out).toBe(keys.out);
  }, 60_000);
});

describe("settings flags go to the commands that use configuration", () => {
  test("before or after the command words, as --name value or --name=value", () => {
    const data = join(dir, "settings");
    const made = plinth(
      "--data-dir",
      data,
      "users",
      "create",
      "--email",
      "ada@example.test",
      "--password",
      "correct horse battery",
    );
    expect(made.err).toBe("");
    expect(made.code).toBe(0);
    const company = plinth("companies", "create", "--name", "Acme", `--owner=ada@example.test`, `--data-dir=${data}`);
    expect(company.code).toBe(0);
    const key = plinth(
      "mcp-keys",
      "create",
      "--data-dir",
      data,
      "--email",
      "ada@example.test",
      "--scopes",
      "*",
      "--require-cms-approval",
      "--name",
      "laptop",
    );
    expect(key.code).toBe(0);
    expect(key.out.trim()).toMatch(/^svc_mcp_[0-9a-f]{64}$/);
    const listed = plinth("mcp-keys", "list", "--email", "ada@example.test", "--data-dir", data);
    expect(listed.out).toContain('"laptop"');
    expect(listed.out).toContain("cms-approval");
    expect(plinth("migrate", "--data-dir", data).out).toBe("database is up to date\n");
    if (!ON_PG) expect(existsSync(join(data, "plinth.sqlite"))).toBe(true);
  }, 60_000);
});
