/**
 * The default public URL follows the address Plinth listens on, so a client
 * pointed at the printed `http://127.0.0.1:<port>/api/mcp` passes the MCP
 * SDK's protected-resource check and completes OAuth; and on a loopback
 * public URL the other loopback spelling (localhost ↔ 127.0.0.1) is
 * accepted by the MCP Host/Origin allow-lists and by the OAuth resource
 * check. The wildcard host's start-up line says what to set.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from "@modelcontextprotocol/client";
import { loadConfig } from "../../src/config";
import { publicOrigins } from "../../src/oauth/metadata";
import { createCompany, createUser, mintMcpKey, rawMcp } from "../fixtures/accounts";
import { startTestServer, type TestServer } from "../harness";
import { authorizeCode, Browser, consent, MemoryProvider, pkce, register, tokenRequest } from "../oauth/helpers";
import { spawnServe } from "./child";

let s: TestServer;
let key: string;
let companyId: number;

beforeAll(async () => {
  // What `plinth serve --port 0` gets when no public URL is configured.
  s = await startTestServer({ seed: false, config: { publicUrl: loadConfig({ port: "0" }, {}).publicUrl } });
  const user = await createUser(s.deps, { email: "lo@example.test", password: "correct horse battery" });
  companyId = (await createCompany(s.deps, { name: "Loopback Ltd", ownerUserId: user.id })).id;
  key = (await mintMcpKey(s.deps, { userId: user.id, scopes: ["*"], companyIds: [companyId] })).key;
});
afterAll(async () => {
  await s?.stop();
});

describe("the default public URL", () => {
  test("is where the server listens: http://127.0.0.1:<port>, in every document that names it", async () => {
    expect(s.config.publicUrl).toBe(s.url);
    expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const doc = (await (await fetch(`${s.url}/.well-known/oauth-protected-resource`)).json()) as any;
    expect(doc.resource).toBe(`${s.url}/api/mcp`);
    const challenge = (await rawMcp(s.url, null, { jsonrpc: "2.0", id: 1, method: "tools/list" })).headers.get(
      "www-authenticate",
    );
    expect(challenge).toContain(`resource_metadata="${s.url}/.well-known/oauth-protected-resource"`);
    const as = (await (await fetch(`${s.url}/.well-known/oauth-authorization-server`)).json()) as any;
    expect(as.issuer).toBe(s.url);
  });

  test("an MCP client pointed at http://127.0.0.1:<port>/api/mcp completes OAuth with the SDK's own checks", async () => {
    const mcpUrl = new URL("/api/mcp", s.url);
    const provider = new MemoryProvider("http://127.0.0.1:4999/callback", {
      name: "loopback test",
      state: "loopback-state",
    });
    const first = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
    const err = await new Client({ name: "lo", version: "1.0.0" }).connect(first).then(
      () => null,
      (e) => e,
    );
    expect(err).toBeInstanceOf(UnauthorizedError);
    expect(provider.authorizationUrl!.searchParams.get("resource")).toBe(mcpUrl.href);
    const browser = new Browser(s.url);
    expect((await browser.signIn("lo@example.test", "correct horse battery")).status).toBe(303);
    const { response } = await consent(browser, provider.authorizationUrl!, { scopes: ["*"], companies: [companyId] });
    expect(response.status).toBe(303);
    await first.finishAuth(new URL(response.headers.get("location")!).searchParams);
    const client = new Client({ name: "lo", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
    const who = (await client.callTool({ name: "whoami", arguments: {} })) as any;
    expect(JSON.parse(who.content[0].text).defaultClientId).toBe(companyId);
    await client.close();
  });
});

describe("both loopback spellings are one server", () => {
  test("the MCP endpoint accepts Host and Origin as localhost and as 127.0.0.1 (and refuses others)", async () => {
    const port = s.port;
    const whoami = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "whoami", arguments: {} } };
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`])
      expect({ host, status: (await rawMcp(s.url, key, whoami, { Host: host })).status }).toEqual({
        host,
        status: 200,
      });
    for (const origin of [`http://localhost:${port}`, `http://127.0.0.1:${port}`])
      expect({ origin, status: (await rawMcp(s.url, key, whoami, { Origin: origin })).status }).toEqual({
        origin,
        status: 200,
      });
    expect((await rawMcp(s.url, key, whoami, { Host: "evil.example" })).status).toBe(403);
    expect((await rawMcp(s.url, key, whoami, { Origin: "http://evil.example" })).status).toBe(403);
  });

  test("the OAuth resource check takes the localhost form of a 127.0.0.1 public URL, at authorize and at token", async () => {
    const port = s.port;
    const redirectUri = "http://127.0.0.1:4999/cb";
    const reg = await register(s.url, {
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: "none",
      client_name: "alias",
    });
    expect(reg.status).toBe(201);
    const browser = new Browser(s.url);
    await browser.signIn("lo@example.test", "correct horse battery");
    const aliased = `http://localhost:${port}/api/mcp`;
    const { code, verifier } = await authorizeCode(browser, s.url, {
      clientId: reg.body.client_id,
      redirectUri,
      resource: aliased,
      scope: "services:read",
      scopes: ["services:read"],
      companies: [companyId],
    });
    const token = await tokenRequest(s.url, {
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      client_id: reg.body.client_id,
      redirect_uri: redirectUri,
      resource: aliased,
    });
    expect(token.status).toBe(200);
    expect(token.body.access_token).toMatch(/^svc_oauth_/);
    // Another host is still another resource.
    const { challenge } = pkce();
    const u = new URL("/oauth/authorize", s.url);
    for (const [k, v] of Object.entries({
      response_type: "code",
      client_id: reg.body.client_id,
      redirect_uri: redirectUri,
      code_challenge: challenge,
      code_challenge_method: "S256",
      resource: "http://evil.example/api/mcp",
    }))
      u.searchParams.set(k, v);
    const refused = await browser.get(u.pathname + u.search);
    expect([302, 303]).toContain(refused.status);
    expect(new URL(refused.headers.get("location")!).searchParams.get("error")).toBe("invalid_target");
  });

  test("publicOrigins: loopback names are aliases of each other; other hosts are only themselves", () => {
    expect(publicOrigins("http://127.0.0.1:8787")).toEqual([
      "http://127.0.0.1:8787",
      "http://localhost:8787",
      "http://[::1]:8787",
    ]);
    expect(publicOrigins("http://localhost:8787")).toEqual([
      "http://localhost:8787",
      "http://127.0.0.1:8787",
      "http://[::1]:8787",
    ]);
    expect(publicOrigins("https://cms.example.com")).toEqual(["https://cms.example.com"]);
  });
});

test("on every interface (0.0.0.0) the public URL stays localhost and the start-up line says to set it", async () => {
  const c = await spawnServe(["--host", "0.0.0.0"], { PLINTH_LOG: "off" });
  try {
    expect(c.out[0]).toBe(`Plinth is listening on http://0.0.0.0:${c.port} (public URL http://localhost:${c.port})`);
    expect(c.out[1]).toContain("--public-url / PLINTH_PUBLIC_URL");
    expect((await fetch(`http://127.0.0.1:${c.port}/healthz`)).status).toBe(200);
  } finally {
    await c.cleanup();
  }
}, 60_000);
