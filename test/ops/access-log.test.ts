/**
 * The access log and request ids, over HTTP against a real server: one JSON
 * line per request (the REST fast path included), the same id in the line
 * and in the X-Request-Id of every response, credentials by kind and id,
 * MCP methods, tools and outcomes, route templates instead of URLs, and
 * never a secret or a tool argument. The lines are captured in process
 * (the sink of src/ops/access-log.ts); test/ops/shutdown.test.ts reads
 * them from a real process's stdout.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createApp } from "../../src/app";
import { AccessLog } from "../../src/ops/access-log";
import { Telemetry } from "../../src/ops/telemetry";
import { rawMcp } from "../fixtures/accounts";
import { row, startTestServer, type TestServer } from "../harness";

let s: TestServer;
const lines: string[] = [];

async function lineFor(id: string): Promise<Record<string, any>> {
  await s.telemetry.flush();
  const found = lines.filter((l) => JSON.parse(l).id === id);
  expect(found).toHaveLength(1);
  return JSON.parse(found[0]!);
}

const rest = (path: string, headers: Record<string, string> = {}, init: RequestInit = {}) =>
  fetch(`${s.url}/api/v1${path}`, { ...init, headers: { Authorization: `Bearer ${s.demo!.restKey}`, ...headers } });

beforeAll(async () => {
  s = await startTestServer({
    config: { log: "access" },
    accessLog: (chunk) => void lines.push(...chunk.split("\n").filter(Boolean)),
  });
});
afterAll(async () => {
  await s?.stop();
});

describe("request ids", () => {
  test("every REST response, 200 and 304 included, carries X-Request-Id, and its log line has the same id", async () => {
    const site = s.demo!.siteId;
    const ok = await rest(`/sites/${site}/posts?limit=2`);
    expect(ok.status).toBe(200);
    const id = ok.headers.get("x-request-id")!;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const keyId = (await row<{ id: number }>(s.deps, "SELECT id FROM rest_keys WHERE site_id = ?", site))!.id;
    const line = await lineFor(id);
    expect(line).toMatchObject({
      method: "GET",
      route: "/api/v1/sites/{siteId}/posts",
      status: 200,
      cred: "rest_key",
      credId: keyId,
    });
    expect(line.client).toBeUndefined(); // a keyed read that succeeded is named by its key (the peer lookup is a system call)
    const again = await rest(`/sites/${site}/posts?limit=2`, { "If-None-Match": ok.headers.get("etag")! });
    expect(again.status).toBe(304);
    expect((await lineFor(again.headers.get("x-request-id")!)).status).toBe(304);
    const head = await rest(`/sites/${site}/config`, {}, { method: "HEAD" });
    expect(await lineFor(head.headers.get("x-request-id")!)).toMatchObject({
      method: "HEAD",
      route: "/api/v1/sites/{siteId}/config",
      status: 200,
    });
    const ids = new Set([id, again.headers.get("x-request-id"), head.headers.get("x-request-id")]);
    expect(ids.size).toBe(3);
  });

  test("a sane incoming X-Request-Id is kept everywhere; anything else is replaced", async () => {
    const mine = "trace-42_abc";
    const responses = [
      await rest(`/sites/${s.demo!.siteId}/tags`, { "X-Request-Id": mine }),
      await fetch(`${s.url}/healthz`, { headers: { "X-Request-Id": mine } }),
      await fetch(`${s.url}/login`, { headers: { "X-Request-Id": mine } }),
      await rawMcp(s.url, s.demo!.mcpKey, { jsonrpc: "2.0", id: 1, method: "tools/list" }, { "X-Request-Id": mine }),
    ];
    for (const r of responses) expect(r.headers.get("x-request-id")).toBe(mine);
    for (const bad of ["has space", "x".repeat(256), "semi;colon", "dots.are.not.words", "<script>"]) {
      const r = await rest(`/sites/${s.demo!.siteId}/tags`, { "X-Request-Id": bad });
      expect(r.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
      const m = await rawMcp(
        s.url,
        s.demo!.mcpKey,
        { jsonrpc: "2.0", id: 1, method: "tools/list" },
        { "X-Request-Id": bad },
      );
      expect(m.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  test("errors, 404s, redirects and MCP 401s carry it too", async () => {
    const responses = [
      await rest(`/sites/abc/posts`),
      await fetch(`${s.url}/nowhere`),
      await fetch(`${s.url}/settings/api-keys`, { redirect: "manual" }),
      await rawMcp(s.url, null, { jsonrpc: "2.0", id: 1, method: "tools/list" }),
      await fetch(`${s.url}/api/mcp`),
    ];
    expect(responses.map((r) => r.status)).toEqual([400, 404, 303, 401, 405]);
    for (const r of responses) {
      const id = r.headers.get("x-request-id")!;
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect((await lineFor(id)).status).toBe(r.status);
    }
  });
});

describe("access log lines", () => {
  test("one line per MCP request: credential, and each message of a batch with its tool and outcome; no key, no argument", async () => {
    const marker = "do-not-log-this-argument-7f3a";
    const who = await rawMcp(s.url, s.demo!.mcpKey, {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "whoami", arguments: {} },
    });
    const clientId = JSON.parse((await who.json()).result.content[0].text).defaultClientId;
    const batch = [
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "sites_list", arguments: { clientId } } },
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "no_such_tool", arguments: { clientId } } },
      {
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: { name: "posts_get", arguments: { clientId, siteId: 987654, slug: marker } },
      },
      { jsonrpc: "2.0", id: 4, method: "tools/list" },
    ];
    const r = await rawMcp(s.url, s.demo!.mcpKey, batch);
    expect(r.status).toBe(200);
    const line = await lineFor(r.headers.get("x-request-id")!);
    const keyId = (await row<{ id: number }>(s.deps, "SELECT id FROM mcp_keys ORDER BY id LIMIT 1"))!.id;
    expect(line).toMatchObject({ method: "POST", route: "/api/mcp", status: 200, cred: "mcp_key", credId: keyId });
    expect(line.mcp).toEqual([
      { method: "tools/call", tool: "sites_list", outcome: "ok" },
      { method: "tools/call", tool: "no_such_tool", outcome: "protocol_error" },
      { method: "tools/call", tool: "posts_get", outcome: "tool_error" },
      { method: "tools/list" },
    ]);
    await s.telemetry.flush();
    const all = lines.join("\n");
    expect(all).not.toContain(marker);
    expect(all).not.toContain(s.demo!.mcpKey);
    expect(all).not.toContain(s.demo!.restKey);
    expect(all).not.toMatch(/svc_(live|mcp)_/);
  });

  test("routes are templates: an approval token or a file name never reaches the log", async () => {
    const token = "ab".repeat(32);
    const approve = await fetch(`${s.url}/approve/${token}`);
    expect(await lineFor(approve.headers.get("x-request-id")!)).toMatchObject({
      route: "/approve/{token}",
      status: approve.status,
    });
    const file = await fetch(`${s.url}/media/${s.demo!.siteId}/secret-name.png`);
    expect((await lineFor(file.headers.get("x-request-id")!)).route).toBe("/media/{siteId}/{name}");
    const slug = await rest(`/sites/${s.demo!.siteId}/posts/some-slug-${token}`);
    expect(await lineFor(slug.headers.get("x-request-id")!)).toMatchObject({
      route: "/api/v1/sites/{siteId}/posts/{slug}",
      status: 404,
    });
    const limited = await rest(`/sites/${s.demo!.siteId}/nonsense`);
    expect((await lineFor(limited.headers.get("x-request-id")!)).route).toBe("unmatched");
    await s.telemetry.flush();
    expect(lines.join("\n")).not.toContain(token);
    expect(lines.join("\n")).not.toContain("secret-name");
  });

  test("each line is one JSON object with time, id, method, route, status, ms and client (but a keyed REST read that succeeded)", async () => {
    await s.telemetry.flush();
    expect(lines.length).toBeGreaterThan(10);
    const kinds = new Set<string>();
    for (const l of lines) {
      const o = JSON.parse(l);
      const keyedRead = o.cred === "rest_key" && o.status < 400;
      kinds.add(keyedRead ? "keyed read" : o.cred ? `${o.cred} ${o.status < 400 ? "ok" : "refused"}` : "anonymous");
      const expected = ["time", "id", "method", "route", "status", "ms", ...(keyedRead ? [] : ["client"])];
      expect(Object.keys(o).slice(0, expected.length)).toEqual(expected);
      if (keyedRead) expect(o.client).toBeUndefined();
      expect(new Date(o.time).toISOString()).toBe(o.time);
      expect(o.ms).toBeGreaterThanOrEqual(0);
    }
    // A keyed REST request that was refused (the 429 above) names its client like any other.
    expect([...kinds].sort()).toEqual(["anonymous", "keyed read", "mcp_key ok", "rest_key refused"]);
  });

  test("the client is the TCP peer: X-Forwarded-For is ignored unless trustProxy is set", async () => {
    const r = await fetch(`${s.url}/api/v1/sites/${s.demo!.siteId}/config`, {
      headers: { "X-Forwarded-For": "203.0.113.5" },
    });
    expect((await lineFor(r.headers.get("x-request-id")!)).client).toBe("127.0.0.1");

    const mine: string[] = [];
    const proxied = await startTestServer({
      seed: false,
      config: { log: "access", trustProxy: true },
      accessLog: (c) => void mine.push(...c.split("\n").filter(Boolean)),
    });
    try {
      const cases: [string | null, string][] = [
        ["203.0.113.5, 198.51.100.7", "198.51.100.7"], // the last entry is the one our proxy added
        ["2001:db8::1", "2001:db8::1"],
        ["not an address", "127.0.0.1"],
        [null, "127.0.0.1"],
      ];
      for (const [xff, client] of cases) {
        const res = await fetch(`${proxied.url}/healthz`, { headers: xff ? { "X-Forwarded-For": xff } : {} });
        await proxied.telemetry.flush();
        const line = mine.map((l) => JSON.parse(l)).find((o) => o.id === res.headers.get("x-request-id"));
        expect({ xff, client: line?.client }).toEqual({ xff, client });
      }
    } finally {
      await proxied.stop();
    }
  });

  test("the TCP peer is looked up once per request at most (a system call in Bun), and not for a keyed REST read that succeeded", async () => {
    // The root app over the running server's database, served by hand so each requestIP call can be counted.
    const asked: string[] = [];
    const peer = { requestIP: (req: Request) => (asked.push(new URL(req.url).pathname), { address: "198.51.100.20" }) };
    const run = async (trustProxy: boolean, path: string, init: RequestInit = {}) => {
      const out: string[] = [];
      const t = new Telemetry({
        log: new AccessLog((c) => void out.push(...c.split("\n").filter(Boolean))),
        trustProxy,
      });
      const app = createApp(s.deps, t);
      asked.length = 0;
      const headers = new Headers(init.headers);
      headers.set("Host", new URL(s.url).host); // what a client's fetch sends (MCP checks it)
      const res = await app.fetch(new Request(`${s.url}${path}`, { ...init, headers }), peer);
      await t.flush();
      const line = JSON.parse(out.find((l) => JSON.parse(l).id === res.headers.get("x-request-id"))!);
      return { status: res.status, lookups: asked.length, client: line.client as string | undefined };
    };
    const site = s.demo!.siteId;
    const key = { Authorization: `Bearer ${s.demo!.restKey}` };
    const etag = (await rest(`/sites/${site}/posts?limit=1`)).headers.get("etag")!;
    const other = site + 1000;
    expect([
      await run(false, `/api/v1/sites/${site}/posts?limit=1`, { headers: key }),
      await run(false, `/api/v1/sites/${site}/posts?limit=1`, { headers: { ...key, "If-None-Match": etag } }),
      await run(false, `/api/v1/sites/${site}/config`), // anonymous: the rate-limit bucket and the line share one lookup
      await run(false, `/api/v1/sites/${site}/posts`, {
        headers: { Authorization: "Bearer svc_live_" + "0".repeat(64) },
      }),
      await run(false, `/api/v1/sites/${other}/posts`, { headers: key }), // a valid key, another site: refused, so named
      await run(false, `/api/v1/sites/${site}/posts`, {
        method: "OPTIONS",
        headers: { Origin: "https://shop.example" },
      }),
      await run(false, "/healthz"),
      await run(true, `/api/v1/sites/${site}/posts?limit=1`, { headers: { ...key, "X-Forwarded-For": "203.0.113.7" } }), // free: the proxy's header
      await run(true, `/api/v1/sites/${site}/posts?limit=1`, { headers: key }), // trusted proxy, but no header: a keyed read still skips it
      await run(true, "/healthz", { headers: { "X-Forwarded-For": "203.0.113.8" } }),
    ]).toEqual([
      { status: 200, lookups: 0, client: undefined },
      { status: 304, lookups: 0, client: undefined },
      { status: 200, lookups: 1, client: "198.51.100.20" },
      { status: 401, lookups: 1, client: "198.51.100.20" },
      { status: 401, lookups: 1, client: "198.51.100.20" },
      { status: 204, lookups: 1, client: "198.51.100.20" },
      { status: 200, lookups: 1, client: "198.51.100.20" },
      { status: 200, lookups: 0, client: "203.0.113.7" },
      { status: 200, lookups: 0, client: undefined },
      { status: 200, lookups: 0, client: "203.0.113.8" },
    ]);
    const mcp = await run(false, "/api/mcp", {
      method: "POST",
      headers: {
        Authorization: `Bearer ${s.demo!.mcpKey}`,
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(mcp).toEqual({ status: 200, lookups: 1, client: "198.51.100.20" });
  });

  test("with the log off (the harness default, PLINTH_LOG=off) nothing is written", async () => {
    const none: string[] = [];
    const quiet = await startTestServer({ seed: false, accessLog: (c) => void none.push(c) });
    try {
      const r = await fetch(`${quiet.url}/healthz`);
      expect(r.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
      await quiet.telemetry.flush();
      expect(none).toEqual([]);
    } finally {
      await quiet.stop();
    }
  });
});

describe("a reader that falls behind", () => {
  const line = (i: number) => `{"n":${String(i).padStart(5, "0")},"pad":"${"x".repeat(83)}"}`; // 100 characters

  test("past the bound, lines are dropped and counted instead of held; the next chunk written starts by saying how many", async () => {
    const written: string[] = [];
    let release!: () => void;
    const stalled = new Promise<void>((r) => (release = r));
    const log = new AccessLog(async (chunk) => {
      written.push(chunk);
      await stalled;
    }, 60_000);
    for (let i = 0; i < 512; i++) log.write(line(i)); // a chunk of 51,712 characters goes to the (stalled) sink
    for (let i = 512; i < 1024; i++) log.write(line(i)); // the next would make 103,424 pending: dropped
    for (let i = 1024; i < 1124; i++) log.write(line(i));
    void log.flush(); // and so would these 100 (10,100 more)
    await Bun.sleep(0);
    expect(written).toHaveLength(1);
    expect(written[0]!.split("\n").filter(Boolean)).toHaveLength(512);
    expect(log.dropped).toBe(612);

    release();
    log.write(line(9999));
    await log.flush();
    expect(written).toHaveLength(2);
    const [notice, after, ...rest] = written[1]!.split("\n").filter(Boolean);
    expect(JSON.parse(notice!)).toEqual({ time: expect.any(String), log: "dropped", lines: 612 });
    expect(after).toBe(line(9999));
    expect(rest).toEqual([]);
    expect(log.dropped).toBe(612);
  });

  test("with nothing pending a chunk goes whatever its size, and a sink that keeps up never drops a line", async () => {
    const got: string[] = [];
    const log = new AccessLog(async (chunk) => void got.push(...chunk.split("\n").filter(Boolean)), 1_000);
    // Each chunk of 512 lines (51,712 characters) is over the bound on its own.
    for (let round = 0; round < 4; round++) {
      for (let i = 0; i < 512; i++) log.write(line(round * 512 + i));
      await log.flush();
    }
    expect(log.dropped).toBe(0);
    expect(got).toEqual(Array.from({ length: 2_048 }, (_, i) => line(i)));
  });
});
