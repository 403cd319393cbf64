/**
 * Client ID Metadata Documents: a client id that is a URL, whose document
 * we fetch, check and cache. A local server plays the client's website; the
 * loopback-http switch (config.oauthDevLoopbackClientIds) lets it use http.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createCompany, createUser } from "../fixtures/accounts";
import { startTestServer, type TestServer } from "../harness";
import { authorizeCode, Browser, pageText, pkce, tokenRequest } from "./helpers";

let s: TestServer;
let docs: ReturnType<typeof Bun.serve>;
let origin: string;
let browser: Browser;
let acme: { id: number };
const hits = new Map<string, number>();
const REDIRECT = "http://127.0.0.1:7100/cb";

function doc(path: string, extra: Record<string, unknown> = {}) {
  return {
    client_id: `${origin}${path}`,
    client_name: "Doc Client",
    redirect_uris: [REDIRECT],
    token_endpoint_auth_method: "none",
    ...extra,
  };
}

beforeAll(async () => {
  docs = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const path = new URL(req.url).pathname;
      hits.set(path, (hits.get(path) ?? 0) + 1);
      switch (path) {
        case "/good.json":
          return Response.json(doc(path));
        case "/mismatch.json":
          return Response.json({ ...doc(path), client_id: "https://someone-else.example/client.json" });
        case "/huge.json":
          return Response.json({ ...doc(path), padding: "x".repeat(40_000) });
        case "/not-json":
          return new Response("<html>hello</html>", { headers: { "content-type": "text/html" } });
        case "/redirect.json":
          return Response.redirect(`${origin}/good.json`, 302);
        case "/secret.json":
          return Response.json(doc(path, { token_endpoint_auth_method: "client_secret_basic" }));
        case "/bad-redirect.json":
          return Response.json(doc(path, { redirect_uris: ["javascript:alert(1)"] }));
        case "/space-redirect.json":
          return Response.json(doc(path, { redirect_uris: [REDIRECT, `${REDIRECT} `] }));
        case "/tab-redirect.json":
          return Response.json(doc(path, { redirect_uris: ["http://127.0.0.1:7100/c\tb"] }));
        case "/newline-redirect.json":
          return Response.json(doc(path, { redirect_uris: ["http://127.0.0.1:7100/cb\n"] }));
        case "/noncanonical-redirect.json":
          return Response.json(doc(path, { redirect_uris: ["HTTP://127.0.0.1:7100/cb"] }));
        case "/encoding-redirect.json":
          return Response.json(doc(path, { redirect_uris: ["http://127.0.0.1:7100/%7ecb"] }));
        case "/short-cache.json":
          return Response.json(doc(path), { headers: { "cache-control": "max-age=120" } });
        default:
          return new Response("not found", { status: 404 });
      }
    },
  });
  origin = `http://127.0.0.1:${docs.port}`;
  s = await startTestServer({ seed: false, config: { oauthDevLoopbackClientIds: true } });
  const ana = await createUser(s.deps, { email: "ana@example.test", password: "correct horse battery" });
  acme = await createCompany(s.deps, { name: "Acme", ownerUserId: ana.id });
  browser = new Browser(s.config.publicUrl);
  await browser.signIn("ana@example.test", "correct horse battery");
});
afterAll(async () => {
  await s.stop();
  docs.stop(true);
});

function authorizeUrl(clientId: string, base = s.config.publicUrl) {
  const u = new URL("/oauth/authorize", base);
  u.searchParams.set("response_type", "code");
  u.searchParams.set("client_id", clientId);
  u.searchParams.set("redirect_uri", REDIRECT);
  u.searchParams.set("code_challenge", pkce().challenge);
  u.searchParams.set("code_challenge_method", "S256");
  u.searchParams.set("scope", "services:read");
  return u;
}

describe("a valid document", () => {
  test("names the client on the consent screen and completes the flow with the URL as client_id", async () => {
    const clientId = `${origin}/good.json`;
    const page = await browser.get(authorizeUrl(clientId).pathname + authorizeUrl(clientId).search);
    expect(page.status).toBe(200);
    const text = await pageText(await page.text());
    expect(text).toContain("Connect Doc Client to Plinth?");
    expect(text).toContain(`Identified by its metadata document at 127.0.0.1:${docs.port}`);
    const c = await authorizeCode(browser, s.config.publicUrl, {
      clientId,
      redirectUri: REDIRECT,
      scope: "services:read",
      companies: [acme.id],
    });
    const t = await tokenRequest(s.config.publicUrl, {
      grant_type: "authorization_code",
      code: c.code,
      code_verifier: c.verifier,
      client_id: clientId,
    });
    expect(t.status).toBe(200);
    expect(t.body.access_token).toMatch(/^svc_oauth_/);
  });

  test("is cached, then fetched again once the cache lifetime passes", async () => {
    const clientId = `${origin}/short-cache.json`;
    const u = authorizeUrl(clientId);
    await browser.get(u.pathname + u.search);
    await browser.get(u.pathname + u.search);
    expect(hits.get("/short-cache.json")).toBe(1);
    s.clock.advance(121_000);
    await browser.get(u.pathname + u.search);
    expect(hits.get("/short-cache.json")).toBe(2);
    // The portal session is fine after two minutes; keep the clock moving forward only.
  });
});

describe("documents that are refused (a 400 page, never a redirect)", () => {
  const cases: [string, string][] = [
    ["/mismatch.json", "has a client_id that differs from its URL"],
    ["/huge.json", "is larger than 16384 bytes"],
    ["/not-json", "is not JSON"],
    ["/redirect.json", "answered HTTP 302"],
    ["/missing.json", "answered HTTP 404"],
    ["/secret.json", "only none is supported"],
    ["/bad-redirect.json", "has a redirect URI (redirect_uris[0]) that must not use the javascript: scheme"],
    // Redirect URIs must be in canonical form, as at registration (test/oauth/redirect-uri.test.ts).
    [
      "/space-redirect.json",
      "has a redirect URI (redirect_uris[1]) that must not contain spaces (found a space (U+0020) at the end)",
    ],
    [
      "/tab-redirect.json",
      "has a redirect URI (redirect_uris[0]) that must not contain control characters (found a tab (U+0009) at position 24)",
    ],
    ["/newline-redirect.json", "must not contain control characters (found a line feed (U+000A) at the end)"],
    ["/noncanonical-redirect.json", "is not in canonical form; register it as http://127.0.0.1:7100/cb"],
    ["/encoding-redirect.json", "uses lower-case percent-encoding (%7e); write %7E"],
  ];
  for (const [path, message] of cases)
    test(`${path}: ${message}`, async () => {
      const u = authorizeUrl(`${origin}${path}`);
      const res = await browser.get(u.pathname + u.search);
      expect(res.status).toBe(400);
      expect(res.headers.get("location")).toBeNull();
      expect(await pageText(await res.text())).toContain(message);
    });

  test("the token endpoint refuses them as invalid_client", async () => {
    const r = await tokenRequest(s.config.publicUrl, {
      grant_type: "authorization_code",
      code: "x",
      code_verifier: "y".repeat(43),
      client_id: `${origin}/mismatch.json`,
    });
    expect(r.status).toBe(401);
    expect(r.body.error).toBe("invalid_client");
    const spaced = await tokenRequest(s.config.publicUrl, {
      grant_type: "authorization_code",
      code: "x",
      code_verifier: "y".repeat(43),
      client_id: `${origin}/space-redirect.json`,
    });
    expect(spaced.body.error).toBe("invalid_client");
    expect(spaced.body.error_description).toContain("redirect_uris[1]) that must not contain spaces");
  });
});

describe("without the loopback switch", () => {
  test("http URLs, URLs without a path and private addresses are refused before any fetch", async () => {
    const strict = await startTestServer({ seed: false });
    try {
      const before = hits.get("/good.json") ?? 0;
      const check = async (clientId: string, message: string) => {
        const u = authorizeUrl(clientId, strict.config.publicUrl);
        const res = await fetch(u, { redirect: "manual" });
        expect(res.status).toBe(400);
        expect(await pageText(await res.text())).toContain(message);
      };
      await check(`${origin}/good.json`, "must use https");
      await check("https://client.example", "must have a path");
      await check("https://localhost/client.json", "points to a private or loopback address");
      await check("https://127.0.0.1/client.json", "points to a private or loopback address");
      await check("https://[::1]/client.json", "points to a private or loopback address");
      await check("https://10.1.2.3/client.json", "points to a private or loopback address");
      await check("https://a.example/x/../client.json#frag", "must not contain a fragment");
      expect(hits.get("/good.json") ?? 0).toBe(before);
    } finally {
      await strict.stop();
    }
  });
});
