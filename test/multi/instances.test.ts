/**
 * Several Plinth processes on one PostgreSQL database behind a real haproxy
 * (deploy/haproxy.cfg), with and without Redis: what one instance writes,
 * the other serves; a key revoked on one is refused by the other; a REST key
 * limited to N a minute gets N across both (with Redis); an approval link
 * minted on one is decided on the other (a post, and a supervised key's
 * staged branding change); killing one instance mid-load loses no
 * acknowledged write and the balancer keeps answering.
 *
 * PostgreSQL-only by nature: it runs in `make test-pg`, on the server that
 * target started (PLINTH_TEST_PG_URL).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { DEMO_REVIEWER } from "../../db/seed/demo";
import { dropDatabase, freshDatabaseUrl, ON_PG } from "../db";
import { FOREIGN_WRITE_DELAY_MS } from "../harness";
import { collectLines } from "../ops/child";
import {
  ensureDebianPackages,
  freePort,
  SERVICE_PACKAGES,
  startHaproxy,
  startRedis,
  type HaproxyServer,
  type RedisServer,
} from "../infra/services";

const ROOT = join(import.meta.dir, "../..");
const MAIN = join(ROOT, "src/main.ts");
const RATE = 40;

interface Instance {
  name: string;
  url: string;
  port: number;
  proc: ReturnType<typeof Bun.spawn>;
  out: string[];
  dataDir: string;
}

interface Cluster {
  db: string;
  redis: RedisServer | null;
  a: Instance;
  b: Instance;
  lb: HaproxyServer;
  publicUrl: string;
  restKey: string;
  mcpKey: string;
  siteId: number;
  env: Record<string, string | undefined>;
  stop(): Promise<void>;
}

async function waitReady(url: string, ms = 30_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    try {
      if ((await fetch(`${url}/readyz`)).status === 200) return;
    } catch {}
    await Bun.sleep(100);
  }
  throw new Error(`${url} did not become ready`);
}

async function startCluster(withRedis: boolean): Promise<Cluster> {
  const db = await freshDatabaseUrl();
  const redis = withRedis ? await startRedis() : null;
  const [pa, pb, lbPort] = [await freePort(), await freePort(), await freePort()];
  const publicUrl = `http://127.0.0.1:${lbPort}`;
  const env: Record<string, string | undefined> = {
    ...process.env,
    PLINTH_DATABASE_URL: db,
    PLINTH_REDIS_URL: redis?.url,
    PLINTH_PUBLIC_URL: publicUrl,
    PLINTH_RATE_LIMIT: String(RATE),
    PLINTH_ALLOWED_HOSTS: `127.0.0.1:${pa},127.0.0.1:${pb}`,
  };
  const start = (name: string, port: number): Instance => {
    const dataDir = mkdtempSync(join(tmpdir(), `plinth-${name}-`));
    const proc = Bun.spawn([process.execPath, MAIN, "serve", "--port", String(port), "--data-dir", dataDir], {
      cwd: ROOT,
      env,
      stdout: "pipe",
      stderr: "pipe",
    });
    const out: string[] = [];
    void collectLines(proc.stdout as ReadableStream<Uint8Array>, out);
    void collectLines(proc.stderr as ReadableStream<Uint8Array>, out);
    return { name, url: `http://127.0.0.1:${port}`, port, proc, out, dataDir };
  };
  // Both start at once on the empty database: exactly one seeds the demo.
  const a = start("a", pa);
  const b = start("b", pb);
  await Promise.all([waitReady(a.url), waitReady(b.url)]);
  const lb = await startHaproxy([
    { host: "127.0.0.1", port: pa },
    { host: "127.0.0.1", port: pb },
  ]);
  // Ready answers can come before their stdout is read (a loaded machine): wait for both banners.
  for (
    const end = Date.now() + 20_000;
    Date.now() < end &&
    !(
      [a, b].every((i) => i.out.some((l) => l.includes("Plinth is listening"))) &&
      [...a.out, ...b.out].some((l) => l.includes("MCP key (demo user)"))
    );
  )
    await Bun.sleep(50);
  const printed = [...a.out, ...b.out];
  const rest = printed.map((l) => /REST key \(site (\d+)\):\s+(svc_live_\w+)/.exec(l)).find(Boolean);
  const mcp = printed.map((l) => /MCP key \(demo user\):\s+(svc_mcp_\w+)/.exec(l)).find(Boolean);
  if (!rest || !mcp) throw new Error(`no demo credentials printed:\n${printed.join("\n")}`);
  const seeded = [a, b].filter((i) => i.out.some((l) => l.includes("Demo site seeded")));
  expect(seeded.length).toBe(1);
  return {
    db,
    redis,
    a,
    b,
    lb,
    publicUrl,
    restKey: rest[2]!,
    siteId: Number(rest[1]),
    mcpKey: mcp[1]!,
    env,
    async stop() {
      await lb.stop();
      for (const i of [a, b]) {
        i.proc.kill("SIGKILL");
        await i.proc.exited;
        rmSync(i.dataDir, { recursive: true, force: true });
      }
      await redis?.stop();
      await dropDatabase(db);
    },
  };
}

const rest = (base: string, path: string, key: string, headers: Record<string, string> = {}) =>
  fetch(`${base}/api/v1${path}`, { headers: { Authorization: `Bearer ${key}`, ...headers } });

async function mcp(base: string, key: string, name: string, args: Record<string, unknown>) {
  const r = await fetch(`${base}/api/mcp`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      Authorization: `Bearer ${key}`,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
  });
  const j = (await r.json()) as { result?: { isError?: boolean; content: { text: string }[] } };
  const text = j.result?.content[0]?.text ?? "";
  if (j.result?.isError) throw new Error(`${name}: ${text}`);
  return JSON.parse(text);
}

/** Polls until `ok` holds, at most `ms`: the documented delay for a change to reach another instance. */
async function within<T>(ms: number, probe: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (ok(v) || Date.now() > end) return v;
    await Bun.sleep(20);
  }
}

/** The company (clientId) that owns the demo REST key's site. */
async function companyOfSite(base: string, c: Cluster): Promise<number> {
  const who = await mcp(base, c.mcpKey, "whoami", {});
  for (const client of who.clients as { id: number }[]) {
    const sites = await mcp(base, c.mcpKey, "sites_list", { clientId: client.id });
    if ((sites.items as { id: number }[]).some((s) => s.id === c.siteId)) return client.id;
  }
  throw new Error(`no company of the demo key reaches site ${c.siteId}`);
}

/**
 * Approves a link as the demo's listed reviewer would, across the two
 * instances: the code is asked for on `codeBase`, read where unsent mail is
 * kept (the outbox; no SMTP here), and entered on `base`'s page.
 */
async function approveOn(base: string, linkUrl: string, c: Cluster, codeBase: string) {
  const path = new URL(linkUrl).pathname;
  const form = async (at: string) => {
    const page = await fetch(`${at}${path}`);
    const html = await page.text();
    return {
      cookie: (page.headers.get("set-cookie") ?? "").split(";")[0]!,
      csrf: /name="csrf" value="([0-9a-f]+)"/.exec(html)?.[1] ?? "",
    };
  };
  const post = (at: string, f: { cookie: string }, suffix: string, body: Record<string, string>) =>
    fetch(`${at}${path}${suffix}`, {
      method: "POST",
      redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: f.cookie, Origin: at },
      body: new URLSearchParams(body).toString(),
    });
  const asked = await form(codeBase);
  expect((await post(codeBase, asked, "/code", { csrf: asked.csrf, email: DEMO_REVIEWER })).status).toBe(200);
  const sql = postgres(c.db, { max: 1, onnotice: () => {} });
  const mail = await sql<
    { text: string }[]
  >`SELECT text FROM mail_outbox WHERE tag = 'approvals.code' ORDER BY id DESC LIMIT 1`;
  await sql.end();
  const code = /Your code: ([0-9]{8})/.exec(mail[0]?.text ?? "")?.[1] ?? "";
  const there = await form(base);
  return post(base, there, "", {
    csrf: there.csrf,
    email: DEMO_REVIEWER,
    code,
    decision: "approve",
    comment: "from the other instance",
  });
}

for (const withRedis of [true, false]) {
  describe.skipIf(!ON_PG)(`two instances on one PostgreSQL, ${withRedis ? "with" : "without"} Redis`, () => {
    let c: Cluster;
    beforeAll(async () => {
      await ensureDebianPackages([SERVICE_PACKAGES.haproxy, SERVICE_PACKAGES.redis]);
      c = await startCluster(withRedis);
    }, 90_000);
    afterAll(async () => {
      await c?.stop();
    });

    test("a post drafted on A and approved on B is served by both with a new ETag", async () => {
      const posts = `/sites/${c.siteId}/posts?limit=100`;
      const before = await rest(c.b.url, posts, c.restKey);
      expect(before.status).toBe(200);
      const etag = before.headers.get("etag")!;
      const clientId = await companyOfSite(c.a.url, c);
      // posts_list answers from each instance's result cache: warm both before the change.
      const listed = async (base: string) =>
        (await mcp(base, c.mcpKey, "posts_list", { clientId, siteId: c.siteId, limit: 100 })).items as {
          slug: string;
          status: string;
        }[];
      for (const inst of [c.a, c.b]) await listed(inst.url);
      const created = await mcp(c.a.url, c.mcpKey, "posts_create", {
        clientId,
        siteId: c.siteId,
        title: `Two instances ${withRedis}`,
        blocks: [{ type: "paragraph", props: { text: "Served by both." } }],
      });
      // Minted on A, a reviewer's code asked for on A, the decision made with it on B.
      const decided = await approveOn(c.b.url, created.approval.url, c, c.a.url);
      expect(decided.status).toBe(303);
      const link = await mcp(c.a.url, c.mcpKey, "approvals_get", { clientId, id: created.approval.id });
      expect(link).toMatchObject({ status: "approved", decidedBy: `${DEMO_REVIEWER} (verified reviewer)` });
      for (const inst of [c.a, c.b]) {
        const after = await within(
          FOREIGN_WRITE_DELAY_MS + 2000,
          () => rest(inst.url, posts, c.restKey, { "If-None-Match": etag }),
          (r) => r.status === 200,
        );
        expect(after.status).toBe(200);
        expect(after.headers.get("etag")).not.toBe(etag);
        const body = (await after.json()) as { data: { slug: string }[] };
        expect(body.data.map((p) => p.slug)).toContain(created.slug);
        // And the MCP read on each instance shows it published, not the cached draft or nothing.
        const items = await within(
          FOREIGN_WRITE_DELAY_MS + 2000,
          () => listed(inst.url),
          (xs) => xs.some((p) => p.slug === created.slug && p.status === "published"),
        );
        expect(items.find((p) => p.slug === created.slug)?.status).toBe("published");
      }
    });

    test("a supervised key's branding change, staged on A and approved by another member on B, is served by A", async () => {
      const cli = (...args: string[]) =>
        Bun.spawnSync([process.execPath, MAIN, ...args], { cwd: ROOT, env: c.env, stdout: "pipe", stderr: "pipe" });
      // The demo user's agent with require_cms_approval; Maya, Harbor's owner, is the other member who decides.
      const supervised = cli(
        "mcp-keys",
        "create",
        "--email",
        "demo@plinth.dev",
        "--scopes",
        "*",
        "--require-cms-approval",
        "--name",
        "supervised agent",
      )
        .stdout.toString()
        .trim();
      const member = cli("mcp-keys", "create", "--email", DEMO_REVIEWER, "--scopes", "*", "--name", "Maya's agent")
        .stdout.toString()
        .trim();
      const clientId = await companyOfSite(c.a.url, c);
      const colour = withRedis ? "#0f766e" : "#7c3aed";
      const served = async (base: string) =>
        (
          (await (await rest(base, `/sites/${c.siteId}/branding`, c.restKey)).json()) as {
            data: { primaryColor?: string };
          }
        ).data.primaryColor;
      // Read on both first, so a cached answer would show if the change did not reach it.
      const before = await served(c.a.url);
      expect(await served(c.b.url)).toBe(before);
      expect(before).not.toBe(colour);
      const staged = await mcp(c.a.url, supervised, "branding_update_profile", {
        clientId,
        siteId: c.siteId,
        branding: { primaryColor: colour },
      });
      expect(staged).toMatchObject({ status: "staged", approval: { linkType: "pending_change", status: "pending" } });
      expect(await served(c.a.url)).toBe(before);
      const decided = await mcp(c.b.url, member, "approvals_approve", { id: staged.approval.id });
      expect(decided).toMatchObject({ status: "approved", result: { applied: "branding_update_profile" } });
      for (const inst of [c.a, c.b])
        expect(
          await within(
            FOREIGN_WRITE_DELAY_MS + 2000,
            () => served(inst.url),
            (v) => v === colour,
          ),
        ).toBe(colour);
    }, 30_000);

    test("a REST key revoked by the CLI, and an MCP key revoked on A, are refused by both", async () => {
      const cli = (...args: string[]) =>
        Bun.spawnSync([process.execPath, MAIN, ...args], { cwd: ROOT, env: c.env, stdout: "pipe", stderr: "pipe" });
      const made = cli("keys", "create", "--site", String(c.siteId), "--name", "revoke me");
      expect(made.exitCode).toBe(0);
      const key = made.stdout.toString().trim();
      for (const inst of [c.a, c.b]) expect((await rest(inst.url, `/sites/${c.siteId}/tags`, key)).status).toBe(200);
      const id = cli("keys", "list", "--site", String(c.siteId))
        .stdout.toString()
        .split("\n")
        .find((l) => l.includes("revoke me"))!
        .split(/\s+/)[0]!;
      expect(cli("keys", "revoke", id).exitCode).toBe(0);
      for (const inst of [c.a, c.b]) {
        const r = await within(
          FOREIGN_WRITE_DELAY_MS + 2000,
          () => rest(inst.url, `/sites/${c.siteId}/tags`, key),
          (x) => x.status === 401,
        );
        expect(r.status).toBe(401);
      }
      // Cached on B first, then revoked on A.
      const mint = cli("mcp-keys", "create", "--email", "demo@plinth.dev", "--scopes", "*", "--name", "revoke me too");
      const mcpKey = mint.stdout.toString().trim();
      expect((await mcp(c.b.url, mcpKey, "whoami", {})).userId).toBeGreaterThan(0);
      const listed = cli("mcp-keys", "list", "--email", "demo@plinth.dev").stdout.toString();
      const mcpId = listed
        .split("\n")
        .find((l) => l.includes("revoke me too"))!
        .trim()
        .split(/\s+/)[0]!;
      expect(cli("mcp-keys", "revoke", mcpId).exitCode).toBe(0);
      const refused = await within(
        FOREIGN_WRITE_DELAY_MS + 2000,
        () =>
          fetch(`${c.b.url}/api/mcp`, {
            method: "POST",
            headers: {
              "Content-Type": "application/json",
              Accept: "application/json, text/event-stream",
              Authorization: `Bearer ${mcpKey}`,
            },
            body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
          }),
        (r) => r.status === 401,
      );
      expect(refused.status).toBe(401);
    });

    test(
      withRedis
        ? `a REST key limited to ${RATE} a minute gets ${RATE} in total across both instances`
        : `without Redis each instance limits on its own: ${RATE} per instance (documented)`,
      async () => {
        const cli = Bun.spawnSync([process.execPath, MAIN, "keys", "create", "--site", String(c.siteId)], {
          cwd: ROOT,
          env: c.env,
          stdout: "pipe",
        });
        const key = cli.stdout.toString().trim();
        const statuses: number[] = [];
        for (let i = 0; i < RATE * 2 + 10; i++)
          statuses.push((await rest(c.lb.url, `/sites/${c.siteId}/tags`, key)).status);
        const ok = statuses.filter((s) => s === 200).length;
        const limited = statuses.filter((s) => s === 429).length;
        expect(ok + limited).toBe(statuses.length);
        expect(ok).toBe(withRedis ? RATE : RATE * 2);
      },
    );

    test("killing one instance mid-load loses no acknowledged write, and the balancer keeps answering", async () => {
      const clientId = await companyOfSite(c.lb.url, c);
      const catalog = await mcp(c.lb.url, c.mcpKey, "service_catalog_list", { clientId });
      const serviceId = catalog.services[0].id;
      const acknowledged: number[] = [];
      let failed = 0;
      let killedAt = 0;
      const victim = withRedis ? c.a : c.b;
      const writer = async (n: number) => {
        for (let i = 0; i < n; i++) {
          try {
            const r = await mcp(c.lb.url, c.mcpKey, "service_requests_create", {
              clientId,
              serviceId,
              details: `load ${withRedis} ${i}`,
            });
            acknowledged.push(r.id);
          } catch {
            failed++;
          }
        }
      };
      const load = Promise.all([writer(60), writer(60), writer(60)]);
      await Bun.sleep(300);
      victim.proc.kill("SIGKILL");
      killedAt = Date.now();
      await load;
      // Every write that was answered is in the database.
      const sql = postgres(c.db, { max: 1, onnotice: () => {} });
      const ids = (await sql<{ id: number }[]>`SELECT id::int AS id FROM service_requests`).map((r) => r.id);
      await sql.end();
      for (const id of acknowledged) expect(ids).toContain(id);
      expect(acknowledged.length).toBeGreaterThan(100);
      // Once the health check has noticed (checks every 200 ms), every request is answered by the survivor.
      await Bun.sleep(Math.max(0, killedAt + 1000 - Date.now()));
      for (let i = 0; i < 20; i++)
        expect((await rest(c.lb.url, `/sites/${c.siteId}/config`, c.restKey)).status).toBeLessThan(500);
      for (let i = 0; i < 10; i++) expect((await mcp(c.lb.url, c.mcpKey, "whoami", {})).userId).toBeGreaterThan(0);
      expect(failed).toBeLessThan(10);
    }, 60_000);
  });
}
