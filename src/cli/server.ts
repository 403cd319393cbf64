/** serve (the default), migrate, seed --demo. */
import { openDeps } from "../core/open";
import { openStore } from "../core/db";
import { seedDemo, isEmpty } from "../../db/seed/demo";
import { startServer } from "../server";
import { UsageError, type Command } from "./command";

export const serverCommands: Command[] = [
  {
    name: "serve",
    usage: "plinth serve [--port N] [--host H] [--data-dir DIR] [--public-url URL] [--rate-limit N]",
    summary: "Migrate, seed the demo site into an empty data dir, and serve (default command).",
    async run({ config }) {
      const s = await startServer(config);
      const base = config.publicUrl;
      const lines = [`Plinth is listening on ${s.url} (public URL ${base})`];
      if (s.demo) {
        const d = s.demo;
        lines.push(
          "",
          "Demo site seeded. These secrets are shown once; only their hashes are stored.",
          `  REST key (site ${d.siteId}):  ${d.restKey}`,
          `  MCP key (demo user):    ${d.mcpKey}`,
          `  Portal sign-in:         ${base}/login  ${d.email} / ${d.password}`,
          "",
          "Try:",
          `  curl -H "Authorization: Bearer ${d.restKey}" ${base}/api/v1/sites/${d.siteId}/posts?limit=3`,
          `  curl ${base}/api/v1/sites/${d.siteId}/config`,
          `  curl -X POST ${base}/api/mcp -H "Authorization: Bearer ${d.mcpKey}" -H "Content-Type: application/json" -H "Accept: application/json, text/event-stream" -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","arguments":{}}}'`,
        );
      } else {
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
      console.log(lines.join("\n"));
      await new Promise(() => {}); // serve until killed
    },
  },
  {
    name: "migrate",
    usage: "plinth migrate [--data-dir DIR]",
    summary: "Apply pending migrations; a no-op on an up-to-date database.",
    async run({ config }) {
      const store = openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
      const applied = await store.migrate().finally(() => store.close());
      console.log(applied.length ? `applied: ${applied.join(", ")}` : "database is up to date");
    },
  },
  {
    name: "seed",
    usage: "plinth seed --demo [--data-dir DIR]",
    summary: "Seed the bundled demo site (only into a data dir without sites).",
    async run({ flags, config }) {
      if (!flags.demo) throw new UsageError("only --demo is supported");
      const deps = await openDeps(config, { listen: false });
      if (!(await isEmpty(deps))) {
        await deps.close();
        console.error("seed: the database already has sites; refusing to mix the demo into them");
        return 1;
      }
      const d = await seedDemo(deps).finally(() => deps.close());
      if (d) {
        console.log(`REST key (site ${d.siteId}): ${d.restKey}`);
        console.log(`MCP key: ${d.mcpKey}`);
        console.log(`Portal: ${d.email} / ${d.password}`);
      }
    },
  },
];
