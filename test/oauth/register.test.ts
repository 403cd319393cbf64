/** Dynamic client registration (RFC 7591) and the discovery documents clients start from. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { row, startTestServer, type TestServer } from "../harness";
import { register } from "./helpers";

let s: TestServer;
let base: string;
beforeAll(async () => {
  s = await startTestServer({ seed: false });
  base = s.config.publicUrl;
});
afterAll(() => s.stop());

describe("metadata", () => {
  test("RFC 8414 authorization server metadata names every endpoint, S256, iss support and the scopes", async () => {
    const res = await fetch(`${base}/.well-known/oauth-authorization-server`, {
      headers: { origin: "https://inspector.example" },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const m = (await res.json()) as any;
    expect(m.issuer).toBe(base);
    expect(m.authorization_endpoint).toBe(`${base}/oauth/authorize`);
    expect(m.token_endpoint).toBe(`${base}/oauth/token`);
    expect(m.registration_endpoint).toBe(`${base}/oauth/register`);
    expect(m.revocation_endpoint).toBe(`${base}/oauth/revoke`);
    expect(m.code_challenge_methods_supported).toEqual(["S256"]);
    expect(m.response_types_supported).toEqual(["code"]);
    expect(m.grant_types_supported).toEqual(["authorization_code", "refresh_token"]);
    expect(m.authorization_response_iss_parameter_supported).toBe(true);
    expect(m.client_id_metadata_document_supported).toBe(true);
    expect(m.scopes_supported).toContain("crm:read");
    expect(m.scopes_supported).toContain("*");
  });

  test("the RFC 9728 protected resource documents point at this issuer with the same scopes", async () => {
    const as = (await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()) as any;
    for (const path of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/api/mcp"]) {
      const prm = (await (await fetch(base + path)).json()) as any;
      expect(prm.resource).toBe(`${base}/api/mcp`);
      expect(prm.authorization_servers).toEqual([as.issuer]);
      expect(prm.scopes_supported).toEqual(as.scopes_supported);
    }
  });

  test("the 401 from /api/mcp points to the protected resource document", async () => {
    const res = await fetch(`${s.url}/api/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe(
      `Bearer realm="service-mcp", resource_metadata="${base}/.well-known/oauth-protected-resource"`,
    );
  });
});

describe("registration", () => {
  test("a public native client gets a client id, no secret, and its metadata echoed", async () => {
    const r = await register(base, {
      client_name: "Claude Desktop",
      redirect_uris: ["http://127.0.0.1/callback", "cursor://anysphere.cursor-retrieval/oauth/callback"],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      scope: "crm:read crm:write",
      unknown_field: "ignored",
    });
    expect(r.status).toBe(201);
    expect(r.body.client_id).toMatch(/^plinth_client_[0-9a-f]{32}$/);
    expect(r.body.client_secret).toBeUndefined();
    expect(r.body.client_id_issued_at).toBe(Math.floor(s.clock.ms() / 1000));
    expect(r.body).toMatchObject({
      client_name: "Claude Desktop",
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      scope: "crm:read crm:write",
    });
    expect(r.body.unknown_field).toBeUndefined();
  });

  test("a confidential client gets a secret, shown once and stored hashed", async () => {
    const r = await register(base, {
      redirect_uris: ["https://app.example/cb"],
      token_endpoint_auth_method: "client_secret_post",
    });
    expect(r.status).toBe(201);
    expect(r.body.client_secret).toMatch(/^plinth_secret_[0-9a-f]{64}$/);
    expect(r.body.client_secret_expires_at).toBe(0);
    const stored = (await row(
      s.deps,
      "SELECT secret_hash FROM oauth_clients WHERE client_id = ?",
      r.body.client_id,
    )) as any;
    expect(stored.secret_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored.secret_hash).not.toContain(r.body.client_secret);
  });

  const bad: [string, unknown, string][] = [
    ["no redirect URIs", {}, "invalid_redirect_uri"],
    ["empty redirect URIs", { redirect_uris: [] }, "invalid_redirect_uri"],
    ["redirect URIs as a string", { redirect_uris: "https://a.example/cb" }, "invalid_client_metadata"],
    ["a number in redirect URIs", { redirect_uris: [42] }, "invalid_client_metadata"],
    ["javascript: scheme", { redirect_uris: ["javascript:alert(1)"] }, "invalid_redirect_uri"],
    ["data: scheme", { redirect_uris: ["data:text/html,<script>alert(1)</script>"] }, "invalid_redirect_uri"],
    ["plain http off loopback", { redirect_uris: ["http://evil.example/cb"] }, "invalid_redirect_uri"],
    ["a fragment", { redirect_uris: ["https://a.example/cb#x"] }, "invalid_redirect_uri"],
    ["credentials in the URI", { redirect_uris: ["https://user:pw@a.example/cb"] }, "invalid_redirect_uri"],
    ["a relative URI", { redirect_uris: ["/cb"] }, "invalid_redirect_uri"],
    [
      "eleven redirect URIs",
      { redirect_uris: Array.from({ length: 11 }, (_, i) => `https://a.example/${i}`) },
      "invalid_redirect_uri",
    ],
    ["a huge redirect URI", { redirect_uris: ["https://a.example/" + "x".repeat(3000)] }, "invalid_redirect_uri"],
    [
      "the implicit grant",
      { redirect_uris: ["https://a.example/cb"], grant_types: ["implicit"] },
      "invalid_client_metadata",
    ],
    [
      "client_credentials",
      { redirect_uris: ["https://a.example/cb"], grant_types: ["client_credentials"] },
      "invalid_client_metadata",
    ],
    [
      "response type token",
      { redirect_uris: ["https://a.example/cb"], response_types: ["token"] },
      "invalid_client_metadata",
    ],
    [
      "an unknown auth method",
      { redirect_uris: ["https://a.example/cb"], token_endpoint_auth_method: "private_key_jwt" },
      "invalid_client_metadata",
    ],
    [
      "a name that is not a string",
      { redirect_uris: ["https://a.example/cb"], client_name: { $gt: "" } },
      "invalid_client_metadata",
    ],
    [
      "a huge name",
      { redirect_uris: ["https://a.example/cb"], client_name: "x".repeat(500) },
      "invalid_client_metadata",
    ],
    [
      "an unknown scope",
      { redirect_uris: ["https://a.example/cb"], scope: "crm:read '; DROP TABLE users; --" },
      "invalid_client_metadata",
    ],
    [
      "a javascript client_uri",
      { redirect_uris: ["https://a.example/cb"], client_uri: "javascript:alert(1)" },
      "invalid_client_metadata",
    ],
    ["an array body", [{ redirect_uris: ["https://a.example/cb"] }], "invalid_client_metadata"],
    ["null", null, "invalid_client_metadata"],
  ];
  for (const [what, body, error] of bad)
    test(`refuses ${what} with 400 ${error}`, async () => {
      const r = await register(base, body as any);
      expect(r.status).toBe(400);
      expect(r.body.error).toBe(error);
      expect(r.body.error_description).toBeString();
    });

  test("refuses non-JSON, the wrong content type and oversized bodies; GET is 405", async () => {
    const post = (body: string, type = "application/json") =>
      fetch(`${base}/oauth/register`, { method: "POST", headers: { "content-type": type }, body });
    const notJson = await post("{redirect_uris:");
    expect(notJson.status).toBe(400);
    expect(((await notJson.json()) as any).error).toBe("invalid_client_metadata");
    expect((await post("redirect_uris=x", "application/x-www-form-urlencoded")).status).toBe(400);
    const huge = await post(JSON.stringify({ redirect_uris: ["https://a.example/cb"], pad: "x".repeat(50_000) }));
    expect(huge.status).toBe(413);
    expect((await fetch(`${base}/oauth/register`)).status).toBe(405);
  });

  test("registrations are rate limited per address", async () => {
    const fresh = await startTestServer({ seed: false });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 30; i++)
        statuses.push(
          (
            await register(fresh.config.publicUrl, {
              redirect_uris: ["https://a.example/cb"],
              token_endpoint_auth_method: "none",
            })
          ).status,
        );
      expect(statuses.every((x) => x === 201)).toBe(true);
      const limited = await fetch(`${fresh.config.publicUrl}/oauth/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ redirect_uris: ["https://a.example/cb"] }),
      });
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
      fresh.clock.advance(10 * 60 * 1000);
      expect((await register(fresh.config.publicUrl, { redirect_uris: ["https://a.example/cb"] })).status).toBe(201);
    } finally {
      await fresh.stop();
    }
  });
});
