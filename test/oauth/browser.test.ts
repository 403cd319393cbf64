/**
 * A person in a real browser (headless Chromium through playwright-core):
 * an application sends them to Plinth, they sign in, tick only one of their
 * two companies on the consent screen and narrow one area from read and
 * change to read, and the resulting connection has exactly that: it cannot
 * reach the other company nor change the narrowed area. Every form post
 * here is a real browser's, so it also proves the portal's cross-site guard
 * accepts our own pages (Origin and Sec-Fetch-Site as Chromium sends them).
 * A screenshot of the consent screen is kept in test-artifacts/.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext } from "playwright-core";
import { callTool, createCompany, createUser, mcpClient } from "../fixtures/accounts";
import { startTestServer, type TestServer } from "../harness";
import { pkce, register, tokenRequest } from "./helpers";

let s: TestServer;
let app: ReturnType<typeof Bun.serve>;
let context: BrowserContext;
let profile: string;
const callbacks: URL[] = [];

beforeAll(async () => {
  s = await startTestServer({ seed: false });
  // The "application": it only needs a redirect URI that records what comes back.
  app = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      callbacks.push(new URL(req.url));
      return new Response("<!doctype html><title>Connected</title><p>You can close this window.</p>", {
        headers: { "content-type": "text/html" },
      });
    },
  });
  profile = mkdtempSync(join(tmpdir(), "plinth-chromium-"));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
}, 30_000);

afterAll(async () => {
  await context?.close();
  app?.stop(true);
  await s?.stop();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

const ARTIFACTS = join(import.meta.dir, "../../test-artifacts");

test("sign in, consent to one company with one area narrowed, and the token has exactly that", async () => {
  const ana = await createUser(s.deps, { email: "ana@example.test", password: "correct horse battery" });
  const acme = await createCompany(s.deps, { name: "Acme", ownerUserId: ana.id });
  const globex = await createCompany(s.deps, { name: "Globex", ownerUserId: ana.id });
  const redirectUri = `http://127.0.0.1:${app.port}/callback`;
  const reg = await register(s.config.publicUrl, {
    client_name: "Browser Test App",
    redirect_uris: [redirectUri],
    token_endpoint_auth_method: "none",
  });
  const { verifier, challenge } = pkce();
  const auth = new URL("/oauth/authorize", s.config.publicUrl);
  for (const [k, v] of Object.entries({
    response_type: "code",
    client_id: reg.body.client_id,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "browser-state",
    scope: "services:read services:write branding:read branding:write",
  }))
    auth.searchParams.set(k, v);

  const page = await context.newPage();
  await page.goto(auth.href);
  // Not signed in: the sign-in page, which returns to the request afterwards.
  expect(new URL(page.url()).pathname).toBe("/login");
  await page.fill("#email", "ana@example.test");
  await page.fill("#password", "correct horse battery");
  await Promise.all([page.waitForURL((u) => u.pathname === "/oauth/authorize"), page.click("button[type=submit]")]);
  expect(await page.textContent("h1")).toBe("Connect Browser Test App to Plinth?");

  // What it asks for, in words: one line per area (in the order the domains are listed), each pre-set to what was asked.
  expect(await page.locator("p.summary").textContent()).toContain("asks to read and change Branding and Services");
  expect(await page.locator("fieldset.area").count()).toBe(2);
  const branding = page.getByRole("group", { name: "Branding" });
  expect(await branding.getByRole("radio", { name: "Read and change" }).isChecked()).toBe(true);
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, "oauth-consent.png"), fullPage: true });

  // Both companies are offered (by their labels); tick only Acme. Narrow Branding to read.
  const companies = page.getByRole("group", { name: "Companies it may act for" });
  await companies.getByRole("checkbox", { name: /Acme/ }).check();
  await companies.getByRole("checkbox", { name: /Globex/ }).uncheck();
  expect(await page.locator(`input[name=grant_company][value="${globex.id}"]`).isChecked()).toBe(false);
  await branding.getByRole("radio", { name: "Read", exact: true }).check();
  await Promise.all([
    page.waitForURL((u) => u.port === String(app.port)),
    page.getByRole("button", { name: "Allow access" }).click(),
  ]);

  const cb = callbacks.filter((u) => u.pathname === "/callback").at(-1)!;
  expect(cb.searchParams.get("state")).toBe("browser-state");
  expect(cb.searchParams.get("iss")).toBe(s.config.publicUrl);
  const t = await tokenRequest(s.config.publicUrl, {
    grant_type: "authorization_code",
    code: cb.searchParams.get("code")!,
    code_verifier: verifier,
    redirect_uri: redirectUri,
    client_id: reg.body.client_id,
  });
  expect(t.status).toBe(200);
  expect(t.body.scope).toBe("branding:read services:read services:write");

  const mcp = await mcpClient(s.url, t.body.access_token);
  const who = await callTool(mcp, "whoami");
  expect(who.data.clients).toEqual([{ id: acme.id, company: "Acme", role: "owner", sites: expect.any(Array) }]);
  expect(who.data.scopes).toEqual(["branding:read", "services:read", "services:write"]);
  expect((await callTool(mcp, "service_catalog_list", { clientId: acme.id })).isError).toBe(false);
  const other = await callTool(mcp, "service_catalog_list", { clientId: globex.id });
  expect(other.isError).toBe(true);
  await mcp.close();

  // The portal lists the connection; disconnecting it in the browser ends the token.
  await page.goto(new URL("/settings/connections", s.config.publicUrl).href);
  expect(await page.textContent("table")).toContain("Browser Test App");
  await Promise.all([
    page.waitForURL((u) => u.searchParams.get("disconnected") === "1"),
    page.click("text=Disconnect"),
  ]);
  const after = await fetch(`${s.url}/api/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${t.body.access_token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
  });
  expect(after.status).toBe(401);
}, 60_000);
