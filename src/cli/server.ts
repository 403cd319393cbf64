/** serve (the default), migrate, seed --demo. */
import { join } from "node:path";
import { catalog } from "../catalog";
import { openDeps, openStore } from "../core/open";
import { CODE_MAIL_TAG } from "../domains/approvals/reviewers";
import { DEMO_REVIEWER, seedDemo, isEmpty, type DemoCredentials } from "../../db/seed/demo";
import { isWildcardHost, type Config } from "../config";
import { startServer, type RunningServer } from "../server";
import { UsageError, type Command } from "./command";

/** Writes to stdout and waits until it is out (the process may exit next). */
const say = (text: string) => new Promise<void>((resolve) => void process.stdout.write(text + "\n", () => resolve()));

function banner(config: Config, s: RunningServer): string[] {
  const base = config.publicUrl;
  const lines = [`Plinth is listening on ${s.url} (public URL ${base})`];
  if (isWildcardHost(config.host) && new URL(base).hostname === "localhost")
    lines.push(
      `  Every interface: clients elsewhere need --public-url / PLINTH_PUBLIC_URL set to the address they use.`,
    );
  if (s.metricsUrl) lines.push(`  Metrics: ${s.metricsUrl}/metrics (loopback only, no token)`);
  if (config.metricsToken) lines.push(`  Metrics: ${base}/metrics with Authorization: Bearer $PLINTH_METRICS_TOKEN`);
  if (config.log === "access")
    lines.push(`  Access log: one JSON line per request below (PLINTH_LOG=off to silence it)`);
  return lines;
}

/** A command that prints the newest one-time approval code kept in the mail outbox (no SMTP configured). */
function outboxQuery(config: Config): string {
  const sql = `SELECT "to", text FROM mail_outbox WHERE tag = '${CODE_MAIL_TAG}' ORDER BY id DESC LIMIT 1`;
  return config.databaseUrl
    ? `psql "$PLINTH_DATABASE_URL" -c "${sql.replace(/"/g, '\\"')}"`
    : `sqlite3 ${join(config.dataDir, "plinth.sqlite")} "${sql.replace(/"/g, '\\"')}"`;
}

function demoLines(config: Config, d: DemoCredentials): string[] {
  const base = config.publicUrl;
  const mcpCall = (name: string, args: string) =>
    `  curl -X POST ${base}/api/mcp -H "Authorization: Bearer ${d.mcpKey}" -H "Content-Type: application/json" -H "Accept: application/json, text/event-stream" -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"${name}","arguments":${args}}}'`;
  const others = d.companies.filter((c) => c.id !== d.defaultCompany.id);
  return [
    "",
    "Demo site seeded. These secrets are shown once; only their hashes are stored.",
    `  REST key (site ${d.siteId}):  ${d.restKey}`,
    `  MCP key (demo user):    ${d.mcpKey}`,
    `  MCP key's default company: ${d.defaultCompany.id} "${d.defaultCompany.name}" (owns site ${d.siteId})` +
      (others.length
        ? `; it also reaches ${others.map((c) => `${c.id} "${c.name}"`).join(", ")}: pass clientId on every tool call`
        : ""),
    `  Portal sign-in:         ${base}/login  ${d.email} / ${d.password}`,
    "",
    "Approval links (the url in a write tool's result) need a person other than the one who asked:",
    `  signed in as ${d.email} you decide links others asked for (Approvals in the portal);`,
    `  links your MCP key asked for: on the link's page, "Get a code by email" for ${DEMO_REVIEWER} (Harbor's listed reviewer).`,
    `  Without SMTP the code is not sent but kept in the mail outbox:`,
    `  ${outboxQuery(config)}`,
    "",
    "Try:",
    `  curl -H "Authorization: Bearer ${d.restKey}" ${base}/api/v1/sites/${d.siteId}/posts?limit=3`,
    `  curl ${base}/api/v1/sites/${d.siteId}/config`,
    mcpCall("whoami", "{}"),
    mcpCall("sites_list", `{"clientId":${d.defaultCompany.id}}`),
  ];
}

/**
 * Serves until SIGTERM or SIGINT, then drains (src/server.ts): the listener
 * closes, requests in flight get PLINTH_SHUTDOWN_GRACE_MS to finish, the
 * store and Redis are closed, and the process exits 0 with one line. A
 * second signal cuts the requests still running at once.
 */
async function serveUntilSignalled(config: Config, s: RunningServer): Promise<never> {
  const signal = await new Promise<{ name: string; again: Promise<void> }>((resolve) => {
    let first: string | null = null;
    let again!: () => void;
    const second = new Promise<void>((r) => (again = r));
    for (const sig of ["SIGTERM", "SIGINT"] as const)
      process.on(sig, () => {
        if (first) return again();
        first = sig;
        resolve({ name: sig, again: second });
      });
  });
  const { finished, cut } = await s.drain({ cutNow: signal.again });
  const what = `${finished} request${finished === 1 ? "" : "s"} in flight`;
  await say(
    cut
      ? `plinth: stopped on ${signal.name} after finishing ${what}; ${cut} still running ${
          cut === 1 ? "was" : "were"
        } cut off (grace ${config.shutdownGraceMs} ms); database closed`
      : `plinth: stopped on ${signal.name} after finishing ${what}; database closed`,
  );
  process.exit(0);
}

export const serverCommands: Command[] = [
  {
    name: "serve",
    summary: "Migrate, seed the demo site into an empty data dir, and serve (default command).",
    flags: [],
    settings: ["store", "server"],
    async run({ config }) {
      const s = await startServer(config);
      const lines = banner(config, s);
      if (s.demo) lines.push(...demoLines(config, s.demo));
      else {
        const base = config.publicUrl;
        lines.push(
          "",
          "Existing data dir: keys were printed when it was first seeded. New ones:",
          `  plinth keys create --site 1          (REST key)`,
          `  plinth mcp-keys create --email demo@plinth.dev --scopes "*"   (MCP key)`,
          "",
          "Try:",
          `  curl ${base}/api/v1/sites/1/config`,
          `  curl ${base}/api/v1/sites/1/navigation`,
        );
      }
      await say(lines.join("\n"));
      await serveUntilSignalled(config, s);
    },
  },
  {
    name: "migrate",
    summary: "Apply pending migrations; a no-op on an up-to-date database.",
    flags: [],
    async run({ config }) {
      const store = openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
      const applied = await store.migrate().finally(() => store.close());
      console.log(applied.length ? `applied: ${applied.join(", ")}` : "database is up to date");
    },
  },
  {
    name: "seed",
    summary: "Seed the bundled demo site (only into a data dir without sites).",
    flags: [
      { name: "demo", required: true, help: "the bundled demo: two companies, four sites, a store (docs/demo.md)" },
    ],
    async run({ flags, config }) {
      if (!flags.demo) throw new UsageError("only --demo is supported");
      const deps = await openDeps(config, catalog, { listen: false });
      if (!(await isEmpty(deps))) {
        await deps.close();
        console.error("seed: the database already has sites; refusing to mix the demo into them");
        return 1;
      }
      const d = await seedDemo(deps).finally(() => deps.close());
      if (d) {
        console.log(`REST key (site ${d.siteId}): ${d.restKey}`);
        console.log(`MCP key: ${d.mcpKey}`);
        console.log(
          `MCP key's default company: ${d.defaultCompany.id} "${d.defaultCompany.name}" (owns site ${d.siteId})`,
        );
        console.log(`Portal: ${d.email} / ${d.password}`);
      }
    },
  },
];
