/**
 * The token endpoint and what its tokens can reach, over real HTTP:
 * happy paths, then every way a code or token must be refused.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addMember, callTool, createCompany, createUser, mcpClient, rawMcp, removeMember } from "../fixtures/accounts";
import { sha256Hex } from "../../src/core/secrets";
import { row, startTestServer, type TestServer } from "../harness";
import { authorizeCode, Browser, pageText, register, revokeRequest, tokenRequest } from "./helpers";

let s: TestServer;
let base: string;
let browser: Browser;
let client: { client_id: string };
let other: { client_id: string };
let acme: { id: number };
let globex: { id: number };
let ana: { id: number };
const REDIRECT = "http://127.0.0.1:8123/cb";

beforeAll(async () => {
  s = await startTestServer({ seed: false });
  base = s.config.publicUrl;
  ana = await createUser(s.deps, { email: "ana@example.test", password: "correct horse battery" });
  acme = await createCompany(s.deps, { name: "Acme", ownerUserId: ana.id });
  globex = await createCompany(s.deps, { name: "Globex", ownerUserId: ana.id });
  browser = new Browser(base);
  expect((await browser.signIn("ana@example.test", "correct horse battery")).status).toBe(303);
  client = (
    await register(base, { client_name: "Token tests", redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" })
  ).body;
  other = (
    await register(base, { client_name: "Other", redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" })
  ).body;
});
afterAll(() => s.stop());

async function code(opts: { scopes?: string[]; companies?: number[]; clientId?: string } = {}) {
  return authorizeCode(browser, base, {
    clientId: opts.clientId ?? client.client_id,
    redirectUri: REDIRECT,
    scope: "services:read approvals:read sites:read",
    scopes: opts.scopes,
    companies: opts.companies ?? [acme.id],
  });
}

async function exchange(c: { code: string; verifier: string }, extra: Record<string, string> = {}) {
  return tokenRequest(base, {
    grant_type: "authorization_code",
    code: c.code,
    code_verifier: c.verifier,
    redirect_uri: REDIRECT,
    client_id: client.client_id,
    ...extra,
  });
}

async function tokens(opts: Parameters<typeof code>[0] = {}) {
  const r = await exchange(await code(opts));
  expect(r.status).toBe(200);
  return r.body as { access_token: string; refresh_token: string; scope: string; expires_in: number };
}

const whoami = async (token: string) => {
  const res = await rawMcp(s.url, token, {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "whoami", arguments: {} },
  });
  return { status: res.status, body: (await res.json()) as any };
};

describe("authorization_code", () => {
  test("issues a Bearer svc_oauth_ token, a refresh token, the granted scope, no-store", async () => {
    const r = await exchange(await code({ scopes: ["services:read"] }));
    expect(r.status).toBe(200);
    expect(r.headers.get("cache-control")).toBe("no-store");
    expect(r.body.token_type).toBe("Bearer");
    expect(r.body.access_token).toMatch(/^svc_oauth_[0-9a-f]{64}$/);
    expect(r.body.refresh_token).toMatch(/^svc_refresh_[0-9a-f]{64}$/);
    expect(r.body.expires_in).toBe(3600);
    expect(r.body.scope).toBe("services:read");
    const who = await whoami(r.body.access_token);
    expect(who.status).toBe(200);
    expect(JSON.parse(who.body.result.content[0].text).scopes).toEqual(["services:read"]);
  });

  test("a wrong PKCE verifier is invalid_grant", async () => {
    const c = await code();
    const r = await exchange({ ...c, verifier: "x".repeat(43) });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("invalid_grant");
    expect(r.body.error_description).toContain("code_verifier");
  });

  test("a reused code is refused and the tokens issued from it are revoked", async () => {
    const c = await code();
    const first = await exchange(c);
    expect(first.status).toBe(200);
    expect((await whoami(first.body.access_token)).status).toBe(200);
    const again = await exchange(c);
    expect(again.status).toBe(400);
    expect(again.body.error).toBe("invalid_grant");
    expect((await whoami(first.body.access_token)).status).toBe(401);
    const refreshed = await tokenRequest(base, {
      grant_type: "refresh_token",
      refresh_token: first.body.refresh_token,
      client_id: client.client_id,
    });
    expect(refreshed.body.error).toBe("invalid_grant");
  });

  test("a code issued to another client is invalid_grant", async () => {
    const c = await code({ clientId: other.client_id });
    const r = await exchange(c);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("invalid_grant");
    expect(r.body.error_description).toContain("another client");
  });

  test("a redirect_uri different from the authorization request is invalid_grant", async () => {
    const r = await exchange(await code(), { redirect_uri: "http://127.0.0.1:8123/other" });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("invalid_grant");
  });

  test("an expired code is invalid_grant", async () => {
    const c = await code();
    s.clock.advance(5 * 60 * 1000 + 1);
    const r = await exchange(c);
    expect(r.body.error).toBe("invalid_grant");
    expect(r.body.error_description).toContain("expired");
  });

  test("an unknown code, a missing verifier, another resource", async () => {
    expect((await exchange({ code: "nope", verifier: "v".repeat(43) })).body.error).toBe("invalid_grant");
    const c = await code();
    const missing = await tokenRequest(base, {
      grant_type: "authorization_code",
      code: c.code,
      client_id: client.client_id,
    });
    expect(missing.body).toMatchObject({ error: "invalid_request", error_description: "code_verifier is required." });
    expect((await exchange(c, { resource: "https://evil.example/api/mcp" })).body.error).toBe("invalid_target");
    expect((await exchange(c, { resource: `${base}/api/mcp` })).status).toBe(200);
  });
});

describe("access tokens", () => {
  test("expire after an hour", async () => {
    const t = await tokens();
    expect((await whoami(t.access_token)).status).toBe(200);
    s.clock.advance(60 * 60 * 1000);
    const res = await whoami(t.access_token);
    expect(res.status).toBe(401);
    expect(res.body.error).toEqual({ code: -32001, message: "Unauthorized" });
  });

  test("revoked through RFC 7009 stop working at once; unknown tokens still answer 200", async () => {
    const t = await tokens();
    expect((await revokeRequest(base, { token: t.access_token, client_id: client.client_id })).status).toBe(200);
    expect((await whoami(t.access_token)).status).toBe(401);
    // The refresh token (the connection) survives an access-token revocation.
    expect(
      (
        await tokenRequest(base, {
          grant_type: "refresh_token",
          refresh_token: t.refresh_token,
          client_id: client.client_id,
        })
      ).status,
    ).toBe(200);
    expect(
      (await revokeRequest(base, { token: "svc_oauth_" + "0".repeat(64), client_id: client.client_id })).status,
    ).toBe(200);
    expect((await revokeRequest(base, { token: "garbage", client_id: client.client_id })).status).toBe(200);
  });

  test("revoking a refresh token ends the whole connection", async () => {
    const t = await tokens();
    expect(
      (
        await revokeRequest(base, {
          token: t.refresh_token,
          token_type_hint: "refresh_token",
          client_id: client.client_id,
        })
      ).status,
    ).toBe(200);
    expect((await whoami(t.access_token)).status).toBe(401);
    expect(
      (
        await tokenRequest(base, {
          grant_type: "refresh_token",
          refresh_token: t.refresh_token,
          client_id: client.client_id,
        })
      ).body.error,
    ).toBe("invalid_grant");
  });

  test("another client cannot revoke them", async () => {
    const t = await tokens();
    const r = await revokeRequest(base, { token: t.access_token, client_id: other.client_id });
    expect(r.status).toBe(400);
    expect(JSON.parse(r.text).error).toBe("unauthorized_client");
    expect((await whoami(t.access_token)).status).toBe(200);
  });

  test("reach only the consented companies, intersected with live membership", async () => {
    const bob = await createUser(s.deps, { email: "bob@example.test", password: "bob's long password" });
    await addMember(s.deps, acme.id, bob.id, "admin");
    await addMember(s.deps, globex.id, bob.id, "admin");
    const bobBrowser = new Browser(base);
    await bobBrowser.signIn("bob@example.test", "bob's long password");
    const c = await authorizeCode(bobBrowser, base, {
      clientId: client.client_id,
      redirectUri: REDIRECT,
      scope: "services:read",
      companies: [acme.id, globex.id],
    });
    const t = (await exchange(c)).body;
    const mcp = await mcpClient(s.url, t.access_token);
    expect((await callTool(mcp, "whoami")).data.clients.map((x: any) => x.id)).toEqual([acme.id, globex.id]);
    const before = await callTool(mcp, "service_catalog_list", { clientId: globex.id });
    expect(before.isError).toBe(false);
    // Removed from Globex: the very next call cannot reach it, the token still works for Acme.
    await removeMember(s.deps, globex.id, bob.id);
    expect((await callTool(mcp, "whoami")).data.clients.map((x: any) => x.id)).toEqual([acme.id]);
    const after = await callTool(mcp, "service_catalog_list", { clientId: globex.id });
    expect(after.isError).toBe(true);
    expect((await callTool(mcp, "service_catalog_list", { clientId: acme.id })).isError).toBe(false);
    // A company joined after consenting is not reachable: connecting again is how companies are added.
    const initech = await createCompany(s.deps, { name: "Initech", ownerUserId: bob.id });
    expect((await callTool(mcp, "whoami")).data.clients.map((x: any) => x.id)).toEqual([acme.id]);
    expect((await callTool(mcp, "service_catalog_list", { clientId: initech.id })).isError).toBe(true);
    await mcp.close();
  });
});

describe("what is not yours stays working", () => {
  /** Both halves of a connection still work: the access token answers, and the refresh token refreshes. */
  async function stillConnected(t: { access_token: string; refresh_token: string }) {
    expect((await whoami(t.access_token)).status).toBe(200);
    const r = await tokenRequest(base, {
      grant_type: "refresh_token",
      refresh_token: t.refresh_token,
      client_id: client.client_id,
    });
    expect(r.status).toBe(200);
    return r.body as { access_token: string; refresh_token: string };
  }

  test("another client revoking a refresh token is unauthorized_client; the connection, access token included, keeps working", async () => {
    const t = await tokens();
    const hints: Record<string, string>[] = [
      {},
      { token_type_hint: "refresh_token" },
      { token_type_hint: "access_token" },
    ];
    for (const hint of hints) {
      const r = await revokeRequest(base, { token: t.refresh_token, client_id: other.client_id, ...hint });
      expect(r.status).toBe(400);
      expect(JSON.parse(r.text)).toEqual({
        error: "unauthorized_client",
        error_description: "This token was issued to another client.",
      });
    }
    const next = await stillConnected(t);
    // The owning client can still revoke it: the refusal above was about the client, not the token.
    expect((await revokeRequest(base, { token: next.refresh_token, client_id: client.client_id })).status).toBe(200);
    expect((await whoami(next.access_token)).status).toBe(401);
  });

  test("another client revoking an access token is unauthorized_client; that token and its refresh token keep working", async () => {
    const t = await tokens();
    const r = await revokeRequest(base, {
      token: t.access_token,
      client_id: other.client_id,
      token_type_hint: "access_token",
    });
    expect(r.status).toBe(400);
    expect(JSON.parse(r.text).error).toBe("unauthorized_client");
    await stillConnected(t);
  });

  test("another person disconnecting a connection by its id in the portal is refused (404); the connection keeps working", async () => {
    const t = await tokens();
    const family = (
      (await row(
        s.deps,
        "SELECT family_id FROM oauth_refresh_tokens WHERE token_hash = ?",
        sha256Hex(t.refresh_token),
      )) as { family_id: string }
    ).family_id;
    await createUser(s.deps, { email: "eve@example.test", password: "eve's long password" });
    const eve = new Browser(base);
    expect((await eve.signIn("eve@example.test", "eve's long password")).status).toBe(303);
    const page = await (await eve.get("/settings/connections")).text();
    expect(page).not.toContain(family);
    const refused = await eve.post(`/settings/connections/${family}/disconnect`, { _csrf: await eve.csrf() });
    expect(refused.status).toBe(404);
    expect(await pageText(await refused.text())).toContain("No such connection among yours.");
    const next = await stillConnected(t);

    // Its owner can: the same post from Ana's session ends it.
    const own = await browser.post(`/settings/connections/${family}/disconnect`, { _csrf: await browser.csrf() });
    expect(own.status).toBe(303);
    expect((await whoami(next.access_token)).status).toBe(401);
    expect(
      (
        await tokenRequest(base, {
          grant_type: "refresh_token",
          refresh_token: next.refresh_token,
          client_id: client.client_id,
        })
      ).body.error,
    ).toBe("invalid_grant");
  });
});

describe("refresh_token", () => {
  test("rotates: a new pair each time, the old refresh token is spent", async () => {
    const t = await tokens();
    const r1 = await tokenRequest(base, {
      grant_type: "refresh_token",
      refresh_token: t.refresh_token,
      client_id: client.client_id,
    });
    expect(r1.status).toBe(200);
    expect(r1.body.refresh_token).not.toBe(t.refresh_token);
    expect(r1.body.access_token).not.toBe(t.access_token);
    expect((await whoami(r1.body.access_token)).status).toBe(200);
  });

  test("reuse of a spent refresh token revokes the whole family", async () => {
    const t = await tokens();
    const r1 = await tokenRequest(base, {
      grant_type: "refresh_token",
      refresh_token: t.refresh_token,
      client_id: client.client_id,
    });
    expect(r1.status).toBe(200);
    const replay = await tokenRequest(base, {
      grant_type: "refresh_token",
      refresh_token: t.refresh_token,
      client_id: client.client_id,
    });
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe("invalid_grant");
    // The legitimate holder's newest tokens are gone too.
    expect((await whoami(r1.body.access_token)).status).toBe(401);
    const r2 = await tokenRequest(base, {
      grant_type: "refresh_token",
      refresh_token: r1.body.refresh_token,
      client_id: client.client_id,
    });
    expect(r2.body.error).toBe("invalid_grant");
  });

  test("may narrow the scope but never widen it", async () => {
    const t = await tokens({ scopes: ["services:read", "approvals:read"] });
    const wider = await tokenRequest(base, {
      grant_type: "refresh_token",
      refresh_token: t.refresh_token,
      client_id: client.client_id,
      scope: "services:read sites:write",
    });
    expect(wider.status).toBe(400);
    expect(wider.body.error).toBe("invalid_scope");
    const star = await tokenRequest(base, {
      grant_type: "refresh_token",
      refresh_token: t.refresh_token,
      client_id: client.client_id,
      scope: "*",
    });
    expect(star.body.error).toBe("invalid_scope");
    const narrower = await tokenRequest(base, {
      grant_type: "refresh_token",
      refresh_token: t.refresh_token,
      client_id: client.client_id,
      scope: "services:read",
    });
    expect(narrower.status).toBe(200);
    expect(narrower.body.scope).toBe("services:read");
    // The next refresh without scope gets the whole consented set back (RFC 6749 §6).
    const back = await tokenRequest(base, {
      grant_type: "refresh_token",
      refresh_token: narrower.body.refresh_token,
      client_id: client.client_id,
    });
    expect(back.body.scope.split(" ").sort()).toEqual(["approvals:read", "services:read"]);
  });

  test("expires after 30 days; another client cannot use it", async () => {
    const t = await tokens();
    expect(
      (
        await tokenRequest(base, {
          grant_type: "refresh_token",
          refresh_token: t.refresh_token,
          client_id: other.client_id,
        })
      ).body.error,
    ).toBe("invalid_grant");
    s.clock.advance(30 * 24 * 60 * 60 * 1000);
    const r = await tokenRequest(base, {
      grant_type: "refresh_token",
      refresh_token: t.refresh_token,
      client_id: client.client_id,
    });
    expect(r.body).toMatchObject({ error: "invalid_grant", error_description: "The refresh token has expired." });
    // The portal session did not survive 30 days either; sign in again for the tests that follow.
    browser = new Browser(base);
    expect((await browser.signIn("ana@example.test", "correct horse battery")).status).toBe(303);
  });
});

describe("housekeeping", () => {
  test("codes and refresh tokens are forgotten a day after they expire", async () => {
    const count = async (table: string) =>
      ((await row(s.deps, `SELECT count(*) AS n FROM ${table}`)) as { n: number }).n;
    await tokens();
    expect(await count("oauth_codes")).toBeGreaterThan(0);
    s.clock.advance(32 * 24 * 60 * 60 * 1000);
    browser = new Browser(base);
    await browser.signIn("ana@example.test", "correct horse battery");
    await tokens();
    // Only the code and refresh token just issued remain.
    expect(await count("oauth_codes")).toBe(1);
    expect(await count("oauth_refresh_tokens")).toBe(1);
  });
});

describe("client authentication and malformed requests", () => {
  test("confidential clients must present their secret (Basic or post)", async () => {
    const reg = await register(base, { client_name: "Server app", redirect_uris: ["https://app.example/cb"] });
    expect(reg.status).toBe(201);
    expect(reg.body.token_endpoint_auth_method).toBe("client_secret_basic");
    const { client_id, client_secret } = reg.body;
    expect(client_secret).toBeString();
    const c = await authorizeCode(browser, base, {
      clientId: client_id,
      redirectUri: "https://app.example/cb",
      scope: "services:read",
      companies: [acme.id],
    });
    const fields = { grant_type: "authorization_code", code: c.code, code_verifier: c.verifier };
    const none = await tokenRequest(base, { ...fields, client_id });
    expect(none.status).toBe(401);
    expect(none.body.error).toBe("invalid_client");
    expect(none.headers.get("www-authenticate")).toContain("Basic");
    const wrong = await tokenRequest(base, fields, { authorization: "Basic " + btoa(`${client_id}:wrong`) });
    expect(wrong.body.error).toBe("invalid_client");
    const ok = await tokenRequest(base, fields, { authorization: "Basic " + btoa(`${client_id}:${client_secret}`) });
    expect(ok.status).toBe(200);
    const post = await tokenRequest(base, {
      grant_type: "refresh_token",
      refresh_token: ok.body.refresh_token,
      client_id,
      client_secret,
    });
    expect(post.status).toBe(200);
  });

  test("unknown client, unsupported grant, wrong content type, repeated and oversized parameters: 4xx JSON", async () => {
    expect(
      (
        await tokenRequest(base, {
          grant_type: "authorization_code",
          code: "x",
          code_verifier: "y",
          client_id: "nobody",
        })
      ).body.error,
    ).toBe("invalid_client");
    const pw = await tokenRequest(base, {
      grant_type: "password",
      client_id: client.client_id,
      username: "a",
      password: "b",
    });
    expect(pw).toMatchObject({ status: 400, body: { error: "unsupported_grant_type" } });
    const json = await fetch(`${base}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(json.status).toBe(400);
    expect(((await json.json()) as any).error).toBe("invalid_request");
    const twice = await fetch(`${base}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `grant_type=refresh_token&grant_type=authorization_code&client_id=${client.client_id}`,
    });
    expect(((await twice.json()) as any).error_description).toContain("more than once");
    const huge = await fetch(`${base}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "code=" + "a".repeat(100_000),
    });
    expect(huge.status).toBe(413);
    expect(((await huge.json()) as any).error).toBe("invalid_request");
    const get = await fetch(`${base}/oauth/token`);
    expect(get.status).toBe(405);
    const hostile = await tokenRequest(base, { grant_type: "<script>alert(1)</script>", client_id: client.client_id });
    expect(hostile.status).toBe(400);
    expect(hostile.headers.get("content-type")).toContain("application/json");
  });
});
