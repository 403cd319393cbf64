/**
 * GET /metrics over HTTP: only with PLINTH_METRICS_TOKEN set and the right
 * bearer token on the public listener, or without a token on the
 * loopback-only --metrics-port listener; the Prometheus text format; route
 * templates (bounded labels), latency histograms, MCP tool outcomes, rate
 * limit refusals, approvals by state read at scrape time, database and
 * process gauges; and never a secret or a tool argument.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DAY_MS } from "../../src/core/clock";
import { bearerMatches } from "../../src/ops/metrics-routes";
import { ON_PG } from "../db";
import { rawMcp } from "../fixtures/accounts";
import { startTestServer, type TestServer } from "../harness";

const TOKEN = "metrics-token-0123456789abcdef";
let s: TestServer;

/** Parses the exposition into `name{labels}` → value, checking every line's shape on the way. */
function parse(text: string): Map<string, number> {
  const out = new Map<string, number>();
  const types = new Set<string>();
  for (const line of text.trimEnd().split("\n")) {
    if (line.startsWith("# HELP ")) continue;
    const t = /^# TYPE (\w+) (counter|gauge|histogram)$/.exec(line);
    if (t) {
      expect(types.has(t[1]!)).toBe(false); // each family once
      types.add(t[1]!);
      continue;
    }
    const m = /^([a-zA-Z_:][\w:]*)(\{(?:[a-zA-Z_]\w*="(?:[^"\\\n]|\\.)*",?)*\})? (-?[\d.e+-]+|\+Inf|NaN)$/.exec(line);
    expect({ line, ok: !!m }).toEqual({ line, ok: true });
    out.set(`${m![1]}${m![2] ?? ""}`, Number(m![3]));
  }
  return out;
}

async function scrape(): Promise<{ text: string; values: Map<string, number> }> {
  const r = await fetch(`${s.url}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } });
  expect(r.status).toBe(200);
  expect(r.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
  const text = await r.text();
  return { text, values: parse(text) };
}

const mcp = (body: unknown) => rawMcp(s.url, s.demo!.mcpKey, body);
const call = (id: number, name: string, args: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args },
});

beforeAll(async () => {
  s = await startTestServer({ config: { metricsToken: TOKEN, metricsPort: 0, rateLimit: 5, mcpRateLimit: 20 } });
});
afterAll(async () => {
  await s?.stop();
});

describe("access", () => {
  test("the public /metrics needs the token: 401 without or with a wrong one, 200 with it", async () => {
    for (const h of [
      {} as Record<string, string>,
      { Authorization: "Bearer wrong" },
      { Authorization: `Bearer ${TOKEN}x` },
      { Authorization: `Basic ${TOKEN}` },
      { Authorization: TOKEN },
    ]) {
      const r = await fetch(`${s.url}/metrics`, { headers: h });
      expect(r.status).toBe(401);
      expect(r.headers.get("www-authenticate")).toBe('Bearer realm="plinth-metrics"');
      expect(await r.text()).not.toContain("plinth_");
    }
    expect((await fetch(`${s.url}/metrics`, { headers: { Authorization: `bearer ${TOKEN}` } })).status).toBe(200);
  });

  test("without PLINTH_METRICS_TOKEN the public listener has no /metrics at all", async () => {
    const plain = await startTestServer({ seed: false });
    try {
      expect((await fetch(`${plain.url}/metrics`)).status).toBe(404);
      expect((await fetch(`${plain.url}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } })).status).toBe(404);
      expect(plain.metricsUrl).toBeNull();
    } finally {
      await plain.stop();
    }
  });

  test("--metrics-port serves it on 127.0.0.1 without a token, and nothing else", async () => {
    expect(s.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const r = await fetch(`${s.metricsUrl}/metrics`);
    expect(r.status).toBe(200);
    expect(parse(await r.text()).get('plinth_db_info{engine="' + (ON_PG ? "pg" : "sqlite") + '"}')).toBe(1);
    expect((await fetch(`${s.metricsUrl}/`)).status).toBe(404);
    expect((await fetch(`${s.metricsUrl}/api/v1/sites/1/config`)).status).toBe(404);
    expect((await fetch(`${s.metricsUrl}/metrics`, { method: "POST" })).status).toBe(405);
  });

  test("the token comparison", () => {
    expect(bearerMatches(`Bearer ${TOKEN}`, TOKEN)).toBe(true);
    expect(bearerMatches(`Bearer  ${TOKEN} `, TOKEN)).toBe(true);
    for (const h of [
      undefined,
      null,
      "",
      "Bearer",
      `Bearer ${TOKEN.slice(1)}`,
      `Bearer ${TOKEN} extra`,
      `Token ${TOKEN}`,
    ])
      expect(bearerMatches(h, TOKEN)).toBe(false);
  });
});

describe("what it counts", () => {
  test("requests by route template, method and status, with a latency histogram per route; never a raw URL", async () => {
    const site = s.demo!.siteId;
    const key = { Authorization: `Bearer ${s.demo!.restKey}` };
    const before = (await scrape()).values;
    for (const slug of ["a-first-slug", "another-slug-zz9"])
      expect((await fetch(`${s.url}/api/v1/sites/${site}/posts/${slug}`, { headers: key })).status).toBe(404);
    expect((await fetch(`${s.url}/approve/${"cd".repeat(32)}`)).status).toBe(404);
    const { text, values } = await scrape();
    const detail = `route="/api/v1/sites/{siteId}/posts/{slug}"`;
    const count = `plinth_http_requests_total{${detail},method="GET",status="404"}`;
    expect((values.get(count) ?? 0) - (before.get(count) ?? 0)).toBe(2);
    expect(values.get(`plinth_http_request_duration_seconds_count{${detail}}`)).toBeGreaterThanOrEqual(2);
    expect(values.get(`plinth_http_request_duration_seconds_bucket{${detail},le="+Inf"}`)).toBe(
      values.get(`plinth_http_request_duration_seconds_count{${detail}}`),
    );
    // Buckets are cumulative.
    const buckets = [...values]
      .filter(([k]) => k.startsWith(`plinth_http_request_duration_seconds_bucket{${detail}`))
      .map(([, v]) => v);
    expect(buckets.length).toBe(15);
    expect([...buckets].sort((a, b) => a - b)).toEqual(buckets);
    expect(values.get(`plinth_http_requests_total{route="/approve/{token}",method="GET",status="404"}`)).toBe(1);
    for (const raw of ["a-first-slug", "another-slug", "cdcd", `/sites/${site}/`]) expect(text).not.toContain(raw);
    expect(values.get("plinth_http_requests_in_flight")).toBe(1); // the scrape itself
  });

  test("MCP tool calls by tool and outcome; unknown names are one label; arguments never appear", async () => {
    const marker = "argument-marker-91c2";
    const who = await (await mcp(call(1, "whoami", {}))).json();
    const clientId = JSON.parse(who.result.content[0].text).defaultClientId;
    const before = (await scrape()).values;
    const batch = [
      call(1, "sites_list", { clientId }),
      call(2, "sites_list", { clientId }),
      call(3, "posts_get", { clientId, siteId: 123456, slug: marker }),
      call(4, `unknown_${marker}`, { clientId }),
      call(5, "another_unknown_tool", { clientId }),
      { jsonrpc: "2.0", id: 6, method: "tools/call", params: { arguments: { clientId } } }, // no name: refused before any handler
    ];
    expect((await mcp(batch)).status).toBe(200);
    const { text, values } = await scrape();
    const delta = (tool: string, outcome: string) => {
      const k = `plinth_mcp_tool_calls_total{tool="${tool}",outcome="${outcome}"}`;
      return (values.get(k) ?? 0) - (before.get(k) ?? 0);
    };
    expect(delta("sites_list", "ok")).toBe(2);
    expect(delta("posts_get", "tool_error")).toBe(1);
    expect(delta("(unknown)", "protocol_error")).toBe(3);
    expect(values.get(`plinth_mcp_tool_calls_total{tool="whoami",outcome="ok"}`)).toBeGreaterThanOrEqual(1);
    expect(text).not.toContain(marker);
    expect(text).not.toMatch(/svc_(live|mcp)_/);
    expect(text).not.toContain(TOKEN);
  });

  test("rate-limit refusals by limiter", async () => {
    const before = (await scrape()).values;
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await fetch(`${s.url}/api/v1/sites/${s.demo!.siteId}/config`)).status);
    expect(statuses.filter((x) => x === 429).length).toBeGreaterThan(0);
    // 21 messages in one batch: more than the MCP limit can ever hold, refused whole.
    const big = Array.from({ length: 21 }, (_, i) => call(i + 1, "whoami", {}));
    expect((await mcp(big)).status).toBe(429);
    const { values } = await scrape();
    const delta = (l: string) =>
      values.get(`plinth_rate_limited_total{limiter="${l}"}`)! -
      before.get(`plinth_rate_limited_total{limiter="${l}"}`)!;
    expect(delta("rest")).toBe(statuses.filter((x) => x === 429).length);
    expect(delta("mcp")).toBe(1);
    s.clock.advance(60_000); // refill, for the tests after this one
  });

  test("approvals by state, read from the database at scrape time (lapsed pending links count as expired)", async () => {
    const state = (v: Map<string, number>, st: string) => v.get(`plinth_approvals{state="${st}"}`)!;
    const before = (await scrape()).values;
    expect(
      ["pending", "approved", "rejected", "expired", "superseded", "withdrawn"].map((st) => typeof state(before, st)),
    ).toEqual(Array(6).fill("number"));
    const who = await (await mcp(call(1, "whoami", {}))).json();
    const clientId = JSON.parse(who.result.content[0].text).defaultClientId;
    const created = await (
      await mcp(call(2, "posts_create", { clientId, siteId: s.demo!.siteId, title: "Counted by the gauge" }))
    ).json();
    expect(created.result.isError).toBeFalsy();
    const after = (await scrape()).values;
    expect(state(after, "pending") - state(before, "pending")).toBe(1);
    s.clock.advance(15 * DAY_MS);
    const lapsed = (await scrape()).values;
    expect(state(lapsed, "pending")).toBe(state(before, "pending"));
    expect(state(lapsed, "expired") - state(before, "expired")).toBe(1);
  });

  test("database, Redis and process gauges", async () => {
    const { values } = await scrape();
    const engine = ON_PG ? "pg" : "sqlite";
    expect(values.get(`plinth_db_info{engine="${engine}"}`)).toBe(1);
    expect(values.get(`plinth_db_up{engine="${engine}"}`)).toBe(1);
    if (ON_PG) expect(values.get("plinth_db_pool_max_connections")).toBe(s.config.dbPoolSize);
    else expect(values.get("plinth_sqlite_wal_bytes")).toBeGreaterThan(0); // the seed wrote through the WAL
    expect(values.has("plinth_redis_up")).toBe(false); // not configured
    expect(values.get("process_resident_memory_bytes")).toBeGreaterThan(10 * 1024 * 1024);
    expect(Math.abs(values.get("process_start_time_seconds")! - (Date.now() / 1000 - process.uptime()))).toBeLessThan(
      5,
    );
    expect([...values.keys()].some((k) => /^plinth_build_info\{version="\d+\.\d+\.\d+"\}$/.test(k))).toBe(true);
  });
});
