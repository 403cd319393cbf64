/**
 * Cross-site request refusal, as a table: every state-changing portal route
 * (and the OAuth consent post) × the ways a forged or stray post arrives.
 * Each refused post is 403 and changes nothing (no committed write, the
 * state the route acts on unchanged); the same post from our own page then
 * succeeds, so the refusals are not an accident of a broken fixture.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { DEMO_EMAIL } from "../../db/seed/demo";
import { companies } from "../../src/domains/accounts/tables";
import { createRestKey } from "../../src/domains/sites/rest-keys";
import { sites } from "../../src/domains/sites/tables";
import { notify } from "../../src/domains/notifications/notify";
import { addMember, callTool, createUser, mcpClient, mintMcpKey } from "../fixtures/accounts";
import { commits, row, rows, startTestServer, type TestServer } from "../harness";
import {
  authorizeCode,
  Browser,
  consentFields,
  pageText,
  pkce,
  readForms,
  register,
  toParams,
  tokenRequest,
} from "../oauth/helpers";

let s: TestServer;
let base: string;
let owner: Browser;
let ownerId: number;
let northwind: number;
let harbor: number;
let site: number;
let maya: number;
const REDIRECT = "http://127.0.0.1:7300/cb";

beforeAll(async () => {
  s = await startTestServer();
  base = s.config.publicUrl;
  const company = async (name: string) =>
    (await s.deps.db.select().from(companies).where(eq(companies.name, name)).limit(1))[0]!.id;
  northwind = await company("Northwind Studio");
  harbor = await company("Harbor Coffee Roasters");
  site = (await s.deps.db.select().from(sites).where(eq(sites.companyId, northwind)).limit(1))[0]!.id;
  ownerId = ((await row(s.deps, "SELECT id FROM users WHERE email = ?", DEMO_EMAIL)) as { id: number }).id;
  maya = ((await row(s.deps, "SELECT id FROM users WHERE email = ?", "maya@harborcoffee.example")) as { id: number })
    .id;
  owner = new Browser(base);
  expect((await owner.signIn(DEMO_EMAIL, s.demo!.password)).status).toBe(303);
  // The rows act on Northwind (its site, its team, its approvals), whichever company the session starts on.
  expect((await owner.post("/company", { _csrf: await owner.csrf("/"), company_id: String(northwind) })).status).toBe(
    303,
  );
}, 30_000);
afterAll(() => s.stop());

type Fields = Record<string, string | string[]>;

const invitationId = async (email: string) =>
  ((await row(s.deps, "SELECT id FROM invitations WHERE email = ? ORDER BY id DESC LIMIT 1", email)) as { id: number })
    .id;

/** A raw form post with exactly the given headers (Browser.post always adds our Origin). */
function send(b: Browser, path: string, fields: Fields, headers: Record<string, string>) {
  return fetch(new URL(path, base), {
    method: "POST",
    redirect: "manual",
    headers: { cookie: b.jar.header(), "content-type": "application/x-www-form-urlencoded", ...headers },
    body: toParams(fields).toString(),
  });
}

interface Route {
  /** The post: its path and fields, without `_csrf`; may set up what it acts on. */
  prepare(): Promise<{ path: string; fields: Fields }>;
  /** What the post changes, read behind the portal's back. */
  state(): Promise<unknown>;
  /** Status of the accepted post. */
  ok: number;
  /** Sign-in has no session and so no token to leave out. */
  noToken?: false;
  browser?: () => Promise<Browser>;
}

const snapshot = async (sql: string, ...params: unknown[]) => JSON.stringify(await rows(s.deps, sql, ...params));

const ROUTES: Record<string, Route> = {
  "POST /login": {
    prepare: async () => ({ path: "/login", fields: { email: DEMO_EMAIL, password: s.demo!.password, next: "/" } }),
    state: () => snapshot("SELECT count(*) AS n FROM sessions"),
    ok: 303,
    noToken: false,
    browser: async () => new Browser(base),
  },
  "POST /settings/api-keys (create)": {
    prepare: async () => ({
      path: "/settings/api-keys",
      fields: { name: "forged", access_services: "read", company: String(northwind), expiry: "" },
    }),
    state: () => snapshot("SELECT count(*) AS n FROM mcp_keys"),
    ok: 200,
  },
  "POST /settings/api-keys/:id/revoke": {
    prepare: async () => {
      const k = await mintMcpKey(s.deps, {
        userId: ownerId,
        name: "to revoke",
        scopes: ["services:read"],
        companyIds: [northwind],
      });
      return { path: `/settings/api-keys/${k.id}/revoke`, fields: {} };
    },
    state: () => snapshot("SELECT id, revoked_at FROM mcp_keys ORDER BY id"),
    ok: 303,
  },
  "POST /settings/rest-keys (create)": {
    prepare: async () => ({
      path: "/settings/rest-keys",
      fields: { site_id: String(site), name: "forged", expiry: "" },
    }),
    state: () => snapshot("SELECT count(*) AS n FROM rest_keys"),
    ok: 200,
  },
  "POST /settings/rest-keys/:id/revoke": {
    prepare: async () => {
      const k = await createRestKey(s.deps, { siteId: site, name: "to revoke" });
      return { path: `/settings/rest-keys/${k.id}/revoke`, fields: { site_id: String(site) } };
    },
    state: () => snapshot("SELECT id, revoked_at FROM rest_keys ORDER BY id"),
    ok: 303,
  },
  "POST /team/invitations": {
    prepare: async () => ({
      path: "/team/invitations",
      fields: { email: "newhire@example.test", role: "viewer", days: "7", message: "" },
    }),
    state: () => snapshot("SELECT email, status FROM invitations WHERE company_id = ? ORDER BY id", northwind),
    // No SMTP on this server: the page answers with the link to pass on.
    ok: 200,
  },
  "POST /team/invitations/:id/resend": {
    prepare: async () => {
      s.clock.advance(61_000);
      return { path: `/team/invitations/${await invitationId("newhire@example.test")}/resend`, fields: {} };
    },
    state: () => snapshot("SELECT id, send_count FROM invitations ORDER BY id"),
    ok: 200,
  },
  "POST /team/invitations/:id/revoke": {
    prepare: async () => ({
      path: `/team/invitations/${await invitationId("newhire@example.test")}/revoke`,
      fields: {},
    }),
    state: () => snapshot("SELECT id, status FROM invitations ORDER BY id"),
    ok: 303,
  },
  "POST /team/:userId/role": {
    prepare: async () => {
      await addMember(s.deps, northwind, maya, "viewer");
      return { path: `/team/${maya}/role`, fields: { role: "admin" } };
    },
    state: () => snapshot("SELECT user_id, role FROM memberships WHERE company_id = ? ORDER BY user_id", northwind),
    ok: 303,
  },
  "POST /team/:userId/remove": {
    prepare: async () => ({ path: `/team/${maya}/remove`, fields: {} }),
    state: () => snapshot("SELECT user_id, role FROM memberships WHERE company_id = ? ORDER BY user_id", northwind),
    ok: 303,
  },
  "POST /team/leave": {
    browser: async () => {
      const u = await createUser(s.deps, { email: `leaver${Date.now()}@example.test`, password: "a long passphrase" });
      await addMember(s.deps, northwind, u.id, "viewer");
      const b = new Browser(base);
      await b.signIn(u.email, "a long passphrase");
      return b;
    },
    prepare: async () => ({ path: "/team/leave", fields: {} }),
    state: () => snapshot("SELECT user_id FROM memberships WHERE company_id = ? ORDER BY user_id", northwind),
    ok: 200,
  },
  "POST /inbox/:id/read": {
    prepare: async () => {
      await s.deps.store.transaction(() =>
        notify(s.deps, { companyId: northwind, userIds: [ownerId], type: "message", title: "Read me" }),
      );
      const id = ((await row(s.deps, "SELECT id FROM notifications ORDER BY id DESC LIMIT 1")) as { id: number }).id;
      return { path: `/inbox/${id}/read`, fields: { back: "/inbox" } };
    },
    state: () => snapshot("SELECT id, read_at FROM notifications ORDER BY id"),
    ok: 303,
  },
  "POST /inbox/read-all": {
    prepare: async () => {
      await s.deps.store.transaction(() =>
        notify(s.deps, { companyId: northwind, userIds: [ownerId], type: "message", title: "Read us all" }),
      );
      return { path: "/inbox/read-all", fields: { back: "/inbox" } };
    },
    state: () => snapshot("SELECT id, read_at FROM notifications ORDER BY id"),
    ok: 303,
  },
  "POST /settings/profile": {
    prepare: async () => ({
      path: "/settings/profile",
      fields: { name: "Demo User", title: "Founder", time_zone: "Europe/Lisbon" },
    }),
    state: () => snapshot("SELECT title, time_zone FROM user_profiles WHERE user_id = ?", ownerId),
    ok: 303,
  },
  "POST /invite/:token (sign up, signed out)": {
    noToken: false,
    browser: async () => new Browser(base),
    prepare: async () => {
      const html = await (
        await owner.post("/team/invitations", {
          _csrf: await owner.csrf("/team"),
          email: "signup@example.test",
          role: "viewer",
          days: "7",
        })
      ).text();
      const path = /\/invite\/[0-9a-f]{64}/.exec(html)![0];
      return { path, fields: { name: "New Person", password: "a long passphrase", confirm: "a long passphrase" } };
    },
    state: () => snapshot("SELECT id FROM users WHERE email = ?", "signup@example.test"),
    ok: 303,
  },
  "POST /settings/connections/:family/disconnect": {
    prepare: async () => {
      const client = (
        await register(base, {
          client_name: "Connected",
          redirect_uris: [REDIRECT],
          token_endpoint_auth_method: "none",
        })
      ).body;
      const c = await authorizeCode(owner, base, {
        clientId: client.client_id,
        redirectUri: REDIRECT,
        scope: "services:read",
        companies: [northwind],
      });
      const t = await tokenRequest(base, {
        grant_type: "authorization_code",
        code: c.code,
        code_verifier: c.verifier,
        client_id: client.client_id,
      });
      expect(t.status).toBe(200);
      const family = (
        (await row(s.deps, "SELECT family_id FROM oauth_refresh_tokens ORDER BY id DESC LIMIT 1")) as {
          family_id: string;
        }
      ).family_id;
      return { path: `/settings/connections/${family}/disconnect`, fields: {} };
    },
    state: () => snapshot("SELECT id, revoked_at FROM oauth_refresh_tokens ORDER BY id"),
    ok: 303,
  },
  "POST /approvals/:id/decide": {
    prepare: async () => {
      // Priya's agent asks: the signed-in demo user may decide only what someone else asked for.
      const priya = (
        (await row(s.deps, "SELECT id FROM users WHERE email = ?", "priya@northwind.example")) as { id: number }
      ).id;
      const mcp = await mcpClient(
        s.url,
        (await mintMcpKey(s.deps, { userId: priya, scopes: ["*"], companyIds: [northwind] })).key,
      );
      const r = await callTool(mcp, "posts_create", { clientId: northwind, siteId: site, title: "Forged approval" });
      await mcp.close();
      expect(r.data.approval.status).toBe("pending");
      const id = ((await row(s.deps, "SELECT id FROM approval_links ORDER BY id DESC LIMIT 1")) as { id: number }).id;
      return { path: `/approvals/${id}/decide`, fields: { decision: "reject", comment: "forged" } };
    },
    state: () => snapshot("SELECT id, status FROM approval_links ORDER BY id"),
    ok: 303,
  },
  "POST /chat/:number/reply (a domain's page)": {
    prepare: async () => {
      const n = (
        (await row(
          s.deps,
          "SELECT number FROM chat_conversations WHERE company_id = ? ORDER BY number LIMIT 1",
          northwind,
        )) as { number: number }
      ).number;
      return { path: `/chat/${n}/reply`, fields: { body: "Forged reply" } };
    },
    state: () => snapshot("SELECT count(*) AS n FROM chat_messages WHERE company_id = ?", northwind),
    ok: 303,
  },
  "POST /ai/credits/grant (a domain's page)": {
    prepare: async () => ({ path: "/ai/credits/grant", fields: { amount: "10", note: "forged" } }),
    state: () => snapshot("SELECT count(*) AS n FROM ai_credit_ledger WHERE company_id = ?", northwind),
    ok: 303,
  },
  "POST /oauth/authorize (consent)": {
    prepare: async () => {
      const client = (
        await register(base, { client_name: "Consent", redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" })
      ).body;
      const u = new URL("/oauth/authorize", base);
      for (const [k, v] of Object.entries({
        response_type: "code",
        client_id: client.client_id,
        redirect_uri: REDIRECT,
        code_challenge: pkce().challenge,
        code_challenge_method: "S256",
        scope: "services:read",
      }))
        u.searchParams.set(k, v);
      const form = (await readForms(await (await owner.get(u.pathname + u.search)).text())).find(
        (f) => f.action === "/oauth/authorize",
      )!;
      const fields = Object.fromEntries(
        [...consentFields(form, { companies: [northwind] }).entries()].filter(([k]) => k !== "_csrf"),
      );
      return { path: "/oauth/authorize", fields };
    },
    state: () => snapshot("SELECT count(*) AS n FROM oauth_codes"),
    ok: 303,
  },
  // Late: the rows above act on the active company (Northwind).
  "POST /company (switch)": {
    prepare: async () => ({ path: "/company", fields: { company_id: String(harbor), next: "/" } }),
    state: () => snapshot("SELECT active_company_id FROM sessions WHERE user_id = ? ORDER BY id_hash", ownerId),
    ok: 303,
  },
  // Last: it ends the session the rows above use.
  "POST /logout": {
    prepare: async () => ({ path: "/logout", fields: {} }),
    state: () => snapshot("SELECT count(*) AS n FROM sessions"),
    ok: 303,
  },
};

describe("every state-changing portal route refuses cross-site posts and posts without the token", () => {
  for (const [name, route] of Object.entries(ROUTES))
    test(name, async () => {
      const b = route.browser ? await route.browser() : owner;
      const { path, fields } = await route.prepare();
      const token: Fields = route.noToken === false ? {} : { _csrf: await b.csrf("/") };
      const cases: [string, Fields, Record<string, string>][] = [
        ["cross-site Origin, valid token", { ...fields, ...token }, { origin: "https://evil.example" }],
        [
          "cross-site Sec-Fetch-Site, valid token",
          { ...fields, ...token },
          { origin: "https://evil.example", "sec-fetch-site": "cross-site" },
        ],
        // A sibling subdomain: refused like cross-site, even with our Origin beside it.
        [
          "Sec-Fetch-Site: same-site, valid token",
          { ...fields, ...token },
          { origin: base, "sec-fetch-site": "same-site" },
        ],
        ["no Origin and no Sec-Fetch-Site, valid token", { ...fields, ...token }, {}],
        ["Origin: null, valid token", { ...fields, ...token }, { origin: "null", "sec-fetch-site": "same-origin" }],
      ];
      if (route.noToken !== false) {
        cases.push(["same origin, no token", fields, { origin: base, "sec-fetch-site": "same-origin" }]);
        cases.push(["same origin, wrong token", { ...fields, _csrf: "0".repeat(64) }, { origin: base }]);
      }
      const before = await route.state();
      // Deliveries of earlier events (the seed's, prepare's) and periodic jobs (the demo's booking reminders
      // catching up) commit in the background: finish them, and hold the jobs while refused posts are counted.
      await s.jobs.stop();
      await s.jobs.runDue();
      await s.dispatcher.drain();
      const writes = commits(s.deps);
      for (const [what, f, headers] of cases) {
        const res = await send(b, path, f, headers);
        expect({ what, status: res.status }).toEqual({ what, status: 403 });
        expect(await pageText(await res.text())).toMatch(/sent from another site|did not come from this site/);
      }
      expect(commits(s.deps)).toBe(writes);
      s.jobs.start();
      expect(await route.state()).toBe(before);

      const ok = await send(b, path, { ...fields, ...token }, { origin: base, "sec-fetch-site": "same-origin" });
      expect(ok.status).toBe(route.ok);
      b.jar.store(ok);
      expect(await route.state()).not.toBe(before);
    });
});

describe("what the guard accepts", () => {
  test("our Origin without Sec-Fetch-Site (older browsers), and Sec-Fetch-Site: same-origin without Origin", async () => {
    const b = new Browser(base);
    await b.signIn(DEMO_EMAIL, s.demo!.password);
    const csrf = await b.csrf("/");
    expect((await send(b, "/company", { _csrf: csrf, company_id: String(northwind) }, { origin: base })).status).toBe(
      303,
    );
    expect(
      (await send(b, "/company", { _csrf: csrf, company_id: String(northwind) }, { "sec-fetch-site": "same-origin" }))
        .status,
    ).toBe(303);
  });

  test("other methods are guarded too; GET and HEAD are not", async () => {
    for (const method of ["PUT", "DELETE", "PATCH"]) {
      const res = await fetch(new URL("/team", base), {
        method,
        headers: { cookie: owner.jar.header(), origin: "https://evil.example" },
      });
      expect(res.status).toBe(403);
    }
    expect(
      (
        await fetch(new URL("/login", base), {
          headers: { origin: "https://evil.example", "sec-fetch-site": "cross-site" },
        })
      ).status,
    ).toBe(200);
  });

  test("signed out, a same-origin post to a signed-in page goes to sign in; a cross-site one is refused first", async () => {
    const anon = new Browser(base);
    expect((await send(anon, "/team/invitations", { email: "x@example.test" }, { origin: base })).status).toBe(303);
    expect(
      (await send(anon, "/team/invitations", { email: "x@example.test" }, { origin: "https://evil.example" })).status,
    ).toBe(403);
  });
});
