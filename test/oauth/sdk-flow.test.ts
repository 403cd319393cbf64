/**
 * The whole flow as a real MCP client performs it: the SDK's own OAuth
 * support (@modelcontextprotocol/client) against a running server. It
 * discovers everything from the 401 (protected-resource document →
 * authorization server metadata), registers itself (RFC 7591), sends the
 * person to the consent screen (driven here over HTTP with a signed-in
 * session cookie), exchanges the code and calls tools with the token.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from "@modelcontextprotocol/client";
import { covers } from "../../src/core/scopes";
import { DISCOVERY_ONLY } from "../../src/mcp/discovery";
import { registry } from "../../src/mcp/routes";
import { callTool, createCompany, createUser, mcpClient, mintMcpKey } from "../fixtures/accounts";
import { startTestServer, type TestServer } from "../harness";
import { Browser, consent, MemoryProvider } from "./helpers";

let s: TestServer;
let user: { id: number };
let acme: { id: number; name: string };
let globex: { id: number; name: string };

beforeAll(async () => {
  s = await startTestServer({ seed: false });
  user = await createUser(s.deps, { email: "ana@example.test", password: "correct horse battery" });
  acme = await createCompany(s.deps, { name: "Acme", ownerUserId: user.id });
  globex = await createCompany(s.deps, { name: "Globex", ownerUserId: user.id });
});
afterAll(() => s.stop());

const GRANTED = ["services:read", "approvals:read"];

describe("SDK client OAuth flow", () => {
  test("discovery, registration, consent, token, tools/list limited to the consented scopes", async () => {
    const mcpUrl = new URL("/api/mcp", s.config.publicUrl);
    const provider = new MemoryProvider("http://127.0.0.1:4999/callback");

    // 1. Unauthenticated connect: the SDK follows the 401, registers, and asks us to send the person to consent.
    const first = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
    const c1 = new Client({ name: "oauth-test", version: "1.0.0" });
    const err = await c1.connect(first).then(
      () => null,
      (e) => e,
    );
    expect(err).toBeInstanceOf(UnauthorizedError);
    expect(provider.info?.client_id).toMatch(/^plinth_client_[0-9a-f]{32}$/);
    const authUrl = provider.authorizationUrl!;
    expect(authUrl.origin + authUrl.pathname).toBe(`${s.config.publicUrl}/oauth/authorize`);
    expect(authUrl.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authUrl.searchParams.get("resource")).toBe(mcpUrl.href);

    // 2. The person signs in and consents to two scopes and one company.
    const browser = new Browser(s.config.publicUrl);
    expect((await browser.signIn("ana@example.test", "correct horse battery")).status).toBe(303);
    const { page, response } = await consent(browser, authUrl, { scopes: GRANTED, companies: [acme.id] });
    expect(page).toContain("SDK test client");
    expect(response.status).toBe(303);
    const callback = new URL(response.headers.get("location")!);
    expect(callback.origin + callback.pathname).toBe(provider.redirectUrl);
    expect(callback.searchParams.get("state")).toBe("sdk-state-1");
    expect(callback.searchParams.get("iss")).toBe(s.config.publicUrl);

    // 3. The SDK exchanges the code (checking iss and state) and stores the tokens.
    await first.finishAuth(callback.searchParams);
    expect(provider.saved.access_token).toMatch(/^svc_oauth_[0-9a-f]{64}$/);
    expect(provider.saved.refresh_token).toBeString();
    expect(provider.saved.scope.split(" ").sort()).toEqual([...GRANTED].sort());

    // 4. Connected: tools/list shows exactly the tools the consented scopes cover.
    const c2 = new Client({ name: "oauth-test", version: "1.0.0" });
    await c2.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
    const listed = (await c2.listTools()).tools.map((t) => t.name).sort();
    const expected = registry()
      .tools.filter((t) => covers(GRANTED, t.def.scope) && !DISCOVERY_ONLY.has(t.def.name))
      .map((t) => t.def.name)
      .sort();
    expect(listed).toEqual(expected);
    expect(listed.length).toBeLessThan(registry().tools.length);

    // The same scopes on a portal key list the same tools: both credentials resolve alike.
    const { key } = await mintMcpKey(s.deps, { userId: user.id, scopes: GRANTED, companyIds: [acme.id] });
    const viaKey = await mcpClient(s.url, key);
    expect((await viaKey.listTools()).tools.map((t) => t.name).sort()).toEqual(listed);
    await viaKey.close();

    // whoami: the user, only the consented company, only the consented scopes.
    const who = await callTool(c2, "whoami");
    expect(who.data.userId).toBe(user.id);
    expect(who.data.clients).toEqual([{ id: acme.id, company: "Acme", role: "owner" }]);
    expect(who.data.scopes.sort()).toEqual([...GRANTED].sort());
    expect(who.data.clients.some((x: any) => x.id === globex.id)).toBe(false);
    // A tool beyond the consented scopes is not there to call.
    const beyond = await c2.callTool({ name: "posts_create", arguments: { siteId: 1, title: "x" } }).then(
      (r: any) => r.isError === true,
      () => true,
    );
    expect(beyond).toBe(true);
    await c2.close();
  });
});
