/**
 * The accounts CLI as a self-hoster runs it: real processes on a temp data
 * dir, then the minted key used against a real server on the same data.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config";
import { startServer, type RunningServer } from "../../src/server";
import { openStore } from "../../src/core/open";
import { callTool, mcpClient, rawMcp } from "../fixtures/accounts";
import { dropDatabase, freshDatabaseUrl, ON_PG } from "../db";
import { afterForeignWrite, rows, storeEnv } from "../harness";

const root = join(import.meta.dir, "../..");
let dataDir: string;
let databaseUrl: string | null = null;

function plinth(...args: string[]) {
  const p = Bun.spawnSync([process.execPath, join(root, "src/main.ts"), ...args, "--data-dir", dataDir], {
    cwd: root,
    stdout: "pipe",
    stderr: "pipe",
    env: storeEnv({ dataDir, databaseUrl }),
  });
  return { code: p.exitCode, out: p.stdout.toString().trim(), err: p.stderr.toString().trim() };
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "plinth-cli-"));
  if (ON_PG) databaseUrl = await freshDatabaseUrl();
});
afterAll(async () => {
  rmSync(dataDir, { recursive: true, force: true });
  await dropDatabase(databaseUrl);
});

test("users, companies, members and MCP keys from the command line", async () => {
  expect(plinth("users", "create", "--email", "Ada@Example.test", "--password", "correct horse battery").code).toBe(0);
  expect(plinth("users", "create", "--email", "bob@example.test", "--password", "hunter2hunter2").code).toBe(0);
  const dup = plinth("users", "create", "--email", "ada@example.test", "--password", "whatever123");
  expect(dup.code).toBe(1);
  expect(dup.err).toContain("already exists");
  expect(plinth("users", "create", "--email", "not-an-email", "--password", "whatever123").code).toBe(1);

  const c1 = plinth("companies", "create", "--name", "Acme", "--owner", "ada@example.test");
  expect(c1.code).toBe(0);
  expect(c1.out).toContain('company 1 "Acme"');
  expect(plinth("companies", "create", "--name", "Bobco", "--owner", "bob@example.test").code).toBe(0);
  expect(plinth("members", "add", "--company", "2", "--email", "ada@example.test", "--role", "viewer").code).toBe(0);
  const badRole = plinth("members", "add", "--company", "2", "--email", "ada@example.test", "--role", "god");
  expect(badRole.code).toBe(2);
  expect(badRole.err).toContain("--role must be one of owner, admin, viewer");

  const badScope = plinth("mcp-keys", "create", "--email", "ada@example.test", "--scopes", "services:read nope:write");
  expect(badScope.code).toBe(2);
  expect(badScope.err).toContain("nope:write");
  const foreign = plinth("mcp-keys", "create", "--email", "bob@example.test", "--scopes", "*", "--companies", "1");
  expect(foreign.code).toBe(1);
  expect(foreign.err).toContain("not a member");

  const made = plinth(
    "mcp-keys",
    "create",
    "--email",
    "ada@example.test",
    "--scopes",
    "services:read",
    "--name",
    "laptop",
  );
  expect(made.code).toBe(0);
  expect(made.out).toMatch(/^svc_mcp_[0-9a-f]{64}$/); // only the key on stdout
  const key = made.out;
  const multi = plinth(
    "mcp-keys",
    "create",
    "--email",
    "ada@example.test",
    "--scopes",
    "* services:*",
    "--require-cms-approval",
    "--expires",
    "2999-01-01",
    "--listing",
    "toolsets:Services",
  );
  expect(multi.out).toMatch(/^svc_mcp_[0-9a-f]{64}$/);
  const badListing = plinth("mcp-keys", "create", "--email", "ada@example.test", "--scopes", "*", "--listing", "some");
  expect(badListing.code).toBe(2);
  expect(badListing.err).toContain("--listing: Listing must be auto, full, discovery or toolsets:");
  const badDate = plinth("mcp-keys", "create", "--email", "ada@example.test", "--scopes", "*", "--expires", "tomorrow");
  expect(badDate.code).toBe(2);

  const listed = plinth("mcp-keys", "list", "--email", "ada@example.test");
  expect(listed.code).toBe(0);
  expect(listed.out).not.toContain(key); // no secrets
  expect(listed.out).not.toContain(key.slice(20));
  expect(listed.out).toContain('"laptop"');
  expect(listed.out).toContain("companies=1,2"); // defaults to all memberships
  expect(listed.out).toContain("cms-approval");
  expect(listed.out).toContain("listing=auto");
  expect(listed.out).toContain("listing=toolsets:services");

  // The key works against a server on the same data dir.
  const config = { ...loadConfig({}, {}), port: 0, dataDir, databaseUrl, log: "off" as const };
  const server: RunningServer = await startServer(config, { seed: false });
  try {
    const client = await mcpClient(server.url, key);
    const who = await callTool(client, "whoami");
    expect(who.data.clients).toEqual([
      { id: 1, company: "Acme", role: "owner" },
      { id: 2, company: "Bobco", role: "viewer" },
    ]);
    expect(who.data.scopes).toEqual(["services:read"]);
    await client.close();
    // The stored listing applies: the services toolset and the way in.
    const sets = await rawMcp(server.url, multi.out, { jsonrpc: "2.0", id: 1, method: "tools/list" });
    const names: string[] = (await sets.json()).result.tools.map((t: any) => t.name);
    expect(names.filter((n) => !/^(service|tools_|toolsets_|whoami)/.test(n))).toEqual([]);
    expect(names).toContain("tools_call_write");

    expect(plinth("members", "remove", "--company", "2", "--email", "ada@example.test").code).toBe(0);
    expect(plinth("members", "remove", "--company", "2", "--email", "ada@example.test").code).toBe(1);
    await afterForeignWrite();
    const after = await rawMcp(server.url, key, {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "whoami", arguments: {} },
    });
    expect(JSON.parse((await after.json()).result.content[0].text).clients).toEqual([
      { id: 1, company: "Acme", role: "owner" },
    ]);

    const id = listed.out.split("\n")[0]!.split(/\s+/)[0]!;
    expect(plinth("mcp-keys", "revoke", id).code).toBe(0);
    await afterForeignWrite();
    const revoked = await rawMcp(server.url, key, { jsonrpc: "2.0", id: 1, method: "tools/list" });
    expect(revoked.status).toBe(401);
    expect(plinth("mcp-keys", "revoke", "999").code).toBe(1);
    expect(plinth("mcp-keys", "list", "--email", "ada@example.test").out).toContain("revoked");
  } finally {
    await server.stop();
  }
}, 90_000); // about twenty real process starts

test("passwords are stored as argon2id, never in clear", async () => {
  const store = openStore({ dataDir, databaseUrl });
  const users = await rows<{ email: string; password_hash: string }>(
    { store },
    "SELECT email, password_hash FROM users",
  );
  await store.close();
  expect(users.length).toBe(2);
  for (const r of users) {
    expect(r.password_hash.startsWith("$argon2id$")).toBe(true);
    expect(r.password_hash).not.toContain("correct horse");
  }
});
