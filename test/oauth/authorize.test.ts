/**
 * The authorization endpoint and the consent screen: which requests are
 * shown as an error page (never redirected), which go back to the client as
 * an error, what the person sees, and what the consent form accepts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addMember, createCompany, createUser } from "../fixtures/accounts";
import { startTestServer, type TestServer } from "../harness";
import { covers } from "../../src/core/scopes";
import {
  areasWithTools,
  authorizeCode,
  Browser,
  consent,
  gatingScopes,
  pageText,
  pkce,
  readForms,
  register,
  tokenRequest,
} from "./helpers";

let s: TestServer;
let base: string;
let browser: Browser;
let clientId: string;
let acme: { id: number };
let globex: { id: number };
let elsewhere: { id: number };
const REDIRECT = "http://127.0.0.1:7000/callback";

beforeAll(async () => {
  s = await startTestServer({ seed: false });
  base = s.config.publicUrl;
  const ana = await createUser(s.deps, { email: "ana@example.test", password: "correct horse battery" });
  const zed = await createUser(s.deps, { email: "zed@example.test" });
  acme = await createCompany(s.deps, { name: "Acme", ownerUserId: ana.id });
  globex = await createCompany(s.deps, { name: "Globex" });
  await addMember(s.deps, globex.id, ana.id, "viewer");
  elsewhere = await createCompany(s.deps, { name: "Elsewhere", ownerUserId: zed.id });
  browser = new Browser(base);
  await browser.signIn("ana@example.test", "correct horse battery");
  const reg = await register(base, {
    client_name: `<script>alert("x")</script> Evil & Co`,
    redirect_uris: [REDIRECT, "https://app.example/cb"],
    token_endpoint_auth_method: "none",
  });
  clientId = reg.body.client_id;
});
afterAll(() => s.stop());

function authorizeUrl(params: Record<string, string | null> = {}) {
  const u = new URL("/oauth/authorize", base);
  const defaults: Record<string, string> = {
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: pkce().challenge,
    code_challenge_method: "S256",
    state: "s1",
    scope: "services:read sites:write",
  };
  for (const [k, v] of Object.entries({ ...defaults, ...params })) if (v !== null) u.searchParams.set(k, v);
  return u;
}
const open = (u: URL, b = browser) => b.get(u.pathname + u.search);

describe("requests that cannot be trusted with a redirect", () => {
  test("unknown client, missing client, unregistered or missing redirect URI: a 400 page, no redirect", async () => {
    const cases: Record<string, string | null>[] = [
      { client_id: "plinth_client_00000000000000000000000000000000" },
      { client_id: null },
      { redirect_uri: "https://evil.example/cb" },
      { redirect_uri: "http://127.0.0.1:7000/callback/extra" },
      { redirect_uri: null },
    ];
    for (const params of cases) {
      const res = await open(authorizeUrl(params));
      expect(res.status).toBe(400);
      expect(res.headers.get("location")).toBeNull();
      expect(res.headers.get("content-type")).toContain("text/html");
    }
  });

  test("a loopback redirect URI may use any port, nothing else may differ", async () => {
    const res = await open(authorizeUrl({ redirect_uri: "http://127.0.0.1:65000/callback" }));
    expect(res.status).toBe(200);
    expect((await open(authorizeUrl({ redirect_uri: "http://localhost:7000/callback" }))).status).toBe(400);
  });
});

describe("errors returned to the client", () => {
  const expectError = async (params: Record<string, string | null>, error: string) => {
    const res = await open(authorizeUrl(params));
    expect(res.status).toBe(302);
    const loc = new URL(res.headers.get("location")!);
    expect(loc.origin + loc.pathname).toBe(REDIRECT);
    expect(loc.searchParams.get("error")).toBe(error);
    expect(loc.searchParams.get("state")).toBe("s1");
    expect(loc.searchParams.get("iss")).toBe(base);
    return loc;
  };
  test("PKCE is required, S256 only", async () => {
    await expectError({ code_challenge: null }, "invalid_request");
    await expectError({ code_challenge_method: "plain" }, "invalid_request");
    await expectError({ code_challenge_method: null }, "invalid_request");
    await expectError({ code_challenge: "short" }, "invalid_request");
  });
  test("response type, scope, resource", async () => {
    await expectError({ response_type: "token" }, "unsupported_response_type");
    const loc = await expectError({ scope: "services:read root:everything" }, "invalid_scope");
    expect(loc.searchParams.get("error_description")).toContain("root:everything");
    await expectError({ resource: "https://other.example/api/mcp" }, "invalid_target");
    const long = await open(authorizeUrl({ state: "x".repeat(5000) }));
    expect(new URL(long.headers.get("location")!).searchParams.get("error")).toBe("invalid_request");
  });
  test("a repeated parameter is invalid_request", async () => {
    const u = authorizeUrl();
    u.searchParams.append("scope", "crm:read");
    const res = await open(u);
    expect(new URL(res.headers.get("location")!).searchParams.get("error")).toBe("invalid_request");
  });
});

describe("the consent screen", () => {
  test("asks a signed-out person to sign in, then comes back to the same request", async () => {
    const anon = new Browser(base);
    const u = authorizeUrl();
    const res = await open(u, anon);
    expect(res.status).toBe(303);
    const login = new URL(res.headers.get("location")!, base);
    expect(login.pathname).toBe("/login");
    expect(login.searchParams.get("next")).toBe(u.pathname + u.search);
    const signed = await anon.post("/login", {
      email: "ana@example.test",
      password: "correct horse battery",
      next: login.searchParams.get("next")!,
    });
    expect(signed.headers.get("location")).toBe(u.pathname + u.search);
  });

  test("shows the client (escaped), where it redirects, its scopes and the person's companies only", async () => {
    const res = await open(authorizeUrl());
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(res.headers.get("content-security-policy")).toContain("form-action 'self' http://127.0.0.1:7000");
    const html = await res.text();
    expect(html).not.toContain("<script>");
    expect(html).toContain("&lt;script&gt;");
    const text = await pageText(html);
    expect(text).toContain(`Connect <script>alert("x")</script> Evil & Co to Plinth?`);
    expect(text).toContain("127.0.0.1:7000");
    // No company switcher here: switching would drop the request; the companies are chosen in the form.
    expect((await readForms(html)).some((f) => f.action === "/company")).toBe(false);
    const form = (await readForms(html)).find((f) => f.action === "/oauth/authorize")!;
    // One choice per area the request covers, pre-set to what was asked; nothing else offered.
    // The areas' radios (the tool listing's own radio group: test/oauth/listing-flow.test.ts).
    const radios = form.fields.filter((f) => f.type === "radio" && f.name.startsWith("access_"));
    const level = (area: string) => radios.filter((f) => f.name === `access_${area}`).map((f) => [f.value, f.checked]);
    expect(level("sites")).toEqual([
      ["none", false],
      ["read", false],
      ["write", true],
    ]);
    expect(level("services")).toEqual([
      ["none", false],
      ["read", true],
    ]);
    const asked = ["services:read", "sites:write"];
    const covered = areasWithTools().filter((d) =>
      gatingScopes().some((g) => g.startsWith(`${d}:`) && covers(asked, g)),
    );
    expect([...new Set(radios.map((f) => f.name))]).toEqual(covered.map((d) => `access_${d}`));
    expect(form.fields.some((f) => f.name === "full_access")).toBe(false);
    expect(text).toContain("asks to read and change Sites & content, and to read ");
    expect(text).toMatch(/and to read [^.]*Services, acting as you/);
    const companies = form.fields.filter((f) => f.name === "grant_company").map((f) => Number(f.value));
    expect(companies.sort()).toEqual([acme.id, globex.id].sort());
    expect(companies).not.toContain(elsewhere.id);
  });

  test("deny sends access_denied back", async () => {
    const { response } = await consent(browser, authorizeUrl(), { decision: "deny" });
    expect(response.status).toBe(303);
    const loc = new URL(response.headers.get("location")!);
    expect(loc.searchParams.get("error")).toBe("access_denied");
    expect(loc.searchParams.get("code")).toBeNull();
  });

  test("a person may grant fewer scopes than asked, never more", async () => {
    const c = await authorizeCode(browser, base, {
      clientId,
      redirectUri: REDIRECT,
      scope: "services:read sites:write",
      scopes: ["services:read", "store:write", "*"],
      companies: [acme.id],
    });
    const t = await tokenRequest(base, {
      grant_type: "authorization_code",
      code: c.code,
      code_verifier: c.verifier,
      client_id: clientId,
    });
    expect(t.body.scope).toBe("services:read");
  });

  test("companies the person does not belong to are never granted", async () => {
    const { response, page } = await consent(browser, authorizeUrl(), { companies: [elsewhere.id] });
    expect(response.status).toBe(400);
    expect(await pageText(await response.text())).toContain("Tick at least one company");
    expect(page).not.toContain("Elsewhere");
  });

  test("no scope ticked re-shows the form with a message", async () => {
    const { response } = await consent(browser, authorizeUrl(), { scopes: [], companies: [acme.id] });
    expect(response.status).toBe(400);
    expect(await pageText(await response.text())).toContain("Choose Read or Read and change for at least one area");
  });

  test("the consent post needs the session's CSRF token and a same-origin Origin", async () => {
    const u = authorizeUrl();
    const fields = Object.fromEntries(u.searchParams);
    const body = { ...fields, access_services: "read", grant_company: String(acme.id), decision: "approve" };
    const noToken = await browser.post("/oauth/authorize", body);
    expect(noToken.status).toBe(403);
    const token = (await readForms(await (await open(u)).text()))
      .flatMap((f) => f.fields)
      .find((f) => f.name === "_csrf")!.value;
    const crossSite = await browser.post(
      "/oauth/authorize",
      { ...body, _csrf: token },
      { origin: "https://evil.example" },
    );
    expect(crossSite.status).toBe(403);
    const ok = await browser.post("/oauth/authorize", { ...body, _csrf: token });
    expect(ok.status).toBe(303);
    expect(new URL(ok.headers.get("location")!).searchParams.get("code")).toMatch(/^[0-9a-f]{64}$/);
  });

  test("hidden fields are re-validated: a tampered redirect URI is refused", async () => {
    const u = authorizeUrl();
    const token = (await readForms(await (await open(u)).text()))
      .flatMap((f) => f.fields)
      .find((f) => f.name === "_csrf")!.value;
    const res = await browser.post("/oauth/authorize", {
      ...Object.fromEntries(u.searchParams),
      redirect_uri: "https://evil.example/steal",
      _csrf: token,
      access_services: "read",
      grant_company: String(acme.id),
      decision: "approve",
    });
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
  });

  test("hostile values in the consent form are 4xx, never 500", async () => {
    const u = authorizeUrl();
    const token = (await readForms(await (await open(u)).text()))
      .flatMap((f) => f.fields)
      .find((f) => f.name === "_csrf")!.value;
    const base = { ...Object.fromEntries(u.searchParams), _csrf: token, access_services: "read", decision: "approve" };
    for (const extra of [
      { grant_company: "abc" },
      { grant_company: "-1" },
      { grant_company: "99999999999999999999" },
      { grant_company: String(acme.id), decision: "<script>" },
      { grant_company: String(acme.id), access_services: "x".repeat(300) },
      { grant_company: String(acme.id), access_services: ["read", "read"] },
    ]) {
      const res = await browser.post("/oauth/authorize", { ...base, ...extra });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(await res.text()).not.toContain("<script>");
    }
    const multipart = await fetch(`${s.config.publicUrl}/oauth/authorize`, {
      method: "POST",
      headers: { cookie: browser.jar.header(), origin: s.config.publicUrl },
      body: (() => {
        const f = new FormData();
        f.append("client_id", clientId);
        f.append("file", new Blob(["x"]), "x.txt");
        return f;
      })(),
    });
    expect(multipart.status).toBe(400);
  });
});
