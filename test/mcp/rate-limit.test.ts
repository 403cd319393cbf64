/**
 * The MCP endpoint's per-credential rate limit (a Plinth choice; interface.md
 * leaves MCP limits open): every JSON-RPC message spends one token, a refused
 * request runs nothing and says when to retry, and credentials do not share
 * a bucket.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../harness";
import { createCompany, createUser, mintMcpKey, rawMcp } from "../fixtures/accounts";

let s: TestServer;
let key: string;
let otherKey: string;

const whoami = (id: number) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "whoami", arguments: {} },
});

beforeAll(async () => {
  s = await startTestServer({ seed: false, config: { mcpRateLimit: 3 } });
  const u = await createUser(s.deps, { email: "limits@acme.test" });
  const acme = await createCompany(s.deps, { name: "Acme", ownerUserId: u.id });
  key = (await mintMcpKey(s.deps, { userId: u.id, scopes: ["*"], companyIds: [acme.id] })).key;
  otherKey = (await mintMcpKey(s.deps, { userId: u.id, scopes: ["*"], companyIds: [acme.id] })).key;
});
afterAll(() => s.stop());

describe("MCP rate limit", () => {
  test("the limit'th message passes, the next is 429 with Retry-After and rate-limit headers", async () => {
    for (let i = 1; i <= 3; i++) expect((await rawMcp(s.url, key, whoami(i))).status).toBe(200);
    const r = await rawMcp(s.url, key, whoami(4));
    expect(r.status).toBe(429);
    expect(Number(r.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(Number(r.headers.get("retry-after"))).toBeLessThanOrEqual(20);
    expect(r.headers.get("x-ratelimit-limit")).toBe("3");
    expect(r.headers.get("x-ratelimit-remaining")).toBe("0");
    const body: any = await r.json();
    expect(body.error.code).toBe(-32000);
    expect(body.error.message).toMatch(/Rate limit exceeded.*3 MCP messages per minute/);
  });

  test("another credential has its own bucket", async () => {
    expect((await rawMcp(s.url, otherKey, whoami(1))).status).toBe(200);
  });

  test("a minute later the credential may call again", async () => {
    s.clock.advance(60_000);
    expect((await rawMcp(s.url, key, whoami(5))).status).toBe(200);
  });

  test("a batch spends one token per message; a batch larger than what is left is refused whole", async () => {
    s.clock.advance(60_000);
    const r = await rawMcp(s.url, key, [whoami(1), whoami(2), whoami(3), whoami(4)]);
    expect(r.status).toBe(429);
    s.clock.advance(60_000);
    const ok = await rawMcp(s.url, key, [whoami(1), whoami(2)]);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toHaveLength(2);
  });

  test("unauthenticated requests are answered 401, not counted against anyone", async () => {
    const r = await rawMcp(s.url, null, whoami(1));
    expect(r.status).toBe(401);
  });
});
