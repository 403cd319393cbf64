/**
 * The portal over the demo workspace (two companies, four sites, an owner/
 * admin and a viewer): every page, the company switcher, REST keys, team
 * management with roles, and the approvals inbox.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { DEMO_EMAIL, VIEWER_EMAIL } from "../../db/seed/demo";
import { companies } from "../../src/domains/accounts/tables";
import { sites } from "../../src/domains/sites/tables";
import { callTool, mcpClient, mintMcpKey } from "../fixtures/accounts";
import { row, startTestServer, type TestServer } from "../harness";
import { Browser, pageText, readForms } from "../oauth/helpers";

let s: TestServer;
let owner: Browser;
let viewer: Browser;
let northwind: number;
let harbor: number;
let northwindSite: number;
let harborSite: number;

const companyId = async (name: string) =>
  (await s.deps.db.select().from(companies).where(eq(companies.name, name)).limit(1))[0]!.id;
const siteOf = async (company: number) =>
  (await s.deps.db.select().from(sites).where(eq(sites.companyId, company)))[0]!.id;
const text = async (b: Browser, path: string) => pageText(await (await b.get(path)).text());

beforeAll(async () => {
  s = await startTestServer();
  northwind = await companyId("Northwind Studio");
  harbor = await companyId("Harbor Coffee Roasters");
  northwindSite = await siteOf(northwind);
  harborSite = (await s.deps.db.select().from(sites).where(eq(sites.subdomain, "harbor-coffee")).limit(1))[0]!.id;
  owner = new Browser(s.config.publicUrl);
  viewer = new Browser(s.config.publicUrl);
  expect((await owner.signIn(DEMO_EMAIL, s.demo!.password)).status).toBe(303);
  expect((await viewer.signIn(VIEWER_EMAIL, s.demo!.password)).status).toBe(303);
  // The tests below start on Northwind, whichever company a session starts on (the lowest id).
  for (const b of [owner, viewer])
    expect((await b.post("/company", { _csrf: await b.csrf("/"), company_id: String(northwind) })).status).toBe(303);
});
afterAll(() => s.stop());

async function submit(
  b: Browser,
  path: string,
  pick: (f: { action: string }) => boolean,
  values: Record<string, string | string[]> = {},
) {
  const form = (await readForms(await (await b.get(path)).text())).find(pick);
  if (!form) throw new Error(`no matching form on ${path}`);
  const fields: Record<string, string | string[]> = {};
  for (const f of form.fields)
    if (f.type !== "submit" && (f.type !== "checkbox" || f.checked)) fields[f.name] = f.value;
  return b.post(form.action, { ...fields, ...values });
}

describe("pages", () => {
  const PAGES = [
    "/",
    "/approvals",
    "/settings/api-keys",
    "/settings/rest-keys",
    "/settings/connections",
    "/team",
    "/inbox",
    "/settings/profile",
    "/billing",
    "/ai/credits",
  ];
  test("every page renders for owner and viewer, script-free, framed by nobody, with the one stylesheet", async () => {
    for (const b of [owner, viewer])
      for (const path of PAGES) {
        const res = await b.get(path);
        expect(res.status).toBe(200);
        const csp = res.headers.get("content-security-policy")!;
        expect(csp).toContain("default-src 'none'");
        expect(csp).not.toContain("script-src");
        expect(res.headers.get("x-frame-options")).toBe("DENY");
        const html = await res.text();
        expect(html).not.toContain("<script");
        expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1"/>');
        const css = /href="(\/assets\/portal\.css\?v=[0-9a-f]{12})"/.exec(html)![1]!;
        const sheet = await fetch(new URL(css, s.config.publicUrl));
        expect(sheet.headers.get("content-type")).toContain("text/css");
        expect(sheet.headers.get("cache-control")).toContain("immutable");
      }
  });

  test("the live chat pages carry one script, allowed by its nonce alone, for owner and viewer", async () => {
    const n = (
      (await row(
        s.deps,
        "SELECT number FROM chat_conversations WHERE company_id = ? ORDER BY number LIMIT 1",
        northwind,
      )) as { number: number }
    ).number;
    for (const b of [owner, viewer])
      for (const path of ["/chat", `/chat/${n}`]) {
        const res = await b.get(path);
        expect(res.status).toBe(200);
        const csp = res.headers.get("content-security-policy")!;
        expect(csp).toContain("default-src 'none'");
        const nonce = /script-src 'nonce-([A-Za-z0-9+/=_-]+)'; connect-src 'self'/.exec(csp)![1]!;
        const html = await res.text();
        expect(html.match(/<script[^>]*>/g)).toEqual([`<script nonce="${nonce}">`]);
      }
  });

  test("the company switcher changes what every page acts on, and only to the person's companies", async () => {
    expect(await text(owner, "/team")).toContain("Team of Northwind Studio");
    const res = await submit(owner, "/team", (f) => f.action === "/company", { company_id: String(harbor) });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/team");
    expect(await text(owner, "/team")).toContain("Team of Harbor Coffee Roasters");
    const foreign = await submit(owner, "/team", (f) => f.action === "/company", { company_id: "999" });
    expect(foreign.status).toBe(400);
    const bad = await submit(owner, "/team", (f) => f.action === "/company", { company_id: "<b>x</b>" });
    expect(bad.status).toBe(400);
    const offsite = await submit(owner, "/team", (f) => f.action === "/company", {
      company_id: String(northwind),
      next: "https://evil.example",
    });
    expect(offsite.headers.get("location")).toBe("/");
    expect(await text(owner, "/team")).toContain("Team of Northwind Studio");
  });
});

describe("REST keys", () => {
  test("an owner creates a key for a site (shown once), the REST API accepts it, revoking ends it", async () => {
    const res = await submit(owner, "/settings/rest-keys", (f) => f.action === "/settings/rest-keys", {
      name: "Front end",
      expiry: "",
    });
    expect(res.status).toBe(200);
    const key = /svc_live_[0-9a-f]{64}/.exec(await res.text())![0];
    const page = await (await owner.get(`/settings/rest-keys?site=${northwindSite}`)).text();
    expect(page).not.toContain(key);
    expect(await pageText(page)).toContain("Front end");
    const api = await fetch(`${s.url}/api/v1/sites/${northwindSite}/posts`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(api.status).toBe(200);
    const revoked = await submit(owner, `/settings/rest-keys?site=${northwindSite}`, (f) =>
      f.action.endsWith("/revoke"),
    );
    expect(revoked.status).toBe(303);
    expect(await text(owner, revoked.headers.get("location")!)).toContain("Key revoked");
    expect(
      (await fetch(`${s.url}/api/v1/sites/${northwindSite}/posts`, { headers: { authorization: `Bearer ${key}` } }))
        .status,
    ).toBe(401);
  });

  test("another company's site is not found, whether viewed, keyed or revoked", async () => {
    expect((await owner.get(`/settings/rest-keys?site=${harborSite}`)).status).toBe(404);
    expect((await owner.get(`/settings/rest-keys?site=abc`)).status).toBe(404);
    const csrf = await owner.csrf();
    expect(
      (await owner.post("/settings/rest-keys", { _csrf: csrf, site_id: String(harborSite), name: "x", expiry: "" }))
        .status,
    ).toBe(404);
    expect(
      (await owner.post("/settings/rest-keys/1/revoke", { _csrf: csrf, site_id: String(harborSite) })).status,
    ).toBe(404);
  });

  test("hostile names are escaped; bad values are 400", async () => {
    const name = "<script>alert('rest')</script>";
    const ok = await submit(owner, "/settings/rest-keys", (f) => f.action === "/settings/rest-keys", {
      name,
      expiry: "7",
    });
    expect(ok.status).toBe(200);
    const html = await (await owner.get("/settings/rest-keys")).text();
    expect(html).not.toContain(name);
    expect(await pageText(html)).toContain(name);
    const bad: Record<string, string>[] = [
      { name: "" },
      { name: "x".repeat(101) },
      { name: "k", expiry: "forever" },
      { name: "k", site_id: "-3" },
    ];
    for (const values of bad) {
      const res = await submit(owner, "/settings/rest-keys", (f) => f.action === "/settings/rest-keys", {
        expiry: "",
        ...values,
      });
      expect(res.status).toBe(400);
    }
  });

  test("a viewer sees the keys but cannot create or revoke them", async () => {
    const page = await (await viewer.get(`/settings/rest-keys?site=${northwindSite}`)).text();
    expect(await pageText(page)).toContain("Front end");
    expect(await pageText(page)).toContain("Only owners and admins can create or revoke keys.");
    const forms = await readForms(page);
    expect(forms.some((f) => f.action.startsWith("/settings/rest-keys") && f.method === "post")).toBe(false);
    const csrf = await viewer.csrf();
    const create = await viewer.post("/settings/rest-keys", {
      _csrf: csrf,
      site_id: String(northwindSite),
      name: "mine",
      expiry: "",
    });
    expect(create.status).toBe(403);
    expect(await pageText(await create.text())).toContain("your role is viewer");
    expect(
      (await viewer.post("/settings/rest-keys/1/revoke", { _csrf: csrf, site_id: String(northwindSite) })).status,
    ).toBe(403);
  });
});

describe("team", () => {
  test("a viewer sees members and roles but no controls except leaving, and posts are refused", async () => {
    const page = await (await viewer.get("/team")).text();
    const t = await pageText(page);
    expect(t).toContain("Demo User");
    expect(t).toContain("owner");
    expect((await readForms(page)).filter((f) => f.action.startsWith("/team")).map((f) => f.action)).toEqual([
      "/team/leave",
    ]);
    const csrf = await viewer.csrf("/team");
    const demoId = (await row(s.deps, "SELECT id FROM users WHERE email = ?", DEMO_EMAIL)) as { id: number };
    expect((await viewer.post(`/team/${demoId.id}/role`, { _csrf: csrf, role: "viewer" })).status).toBe(403);
    expect((await viewer.post(`/team/${demoId.id}/remove`, { _csrf: csrf })).status).toBe(403);
    expect(
      (await viewer.post("/team/invitations", { _csrf: csrf, email: "maya@harborcoffee.example", role: "viewer" }))
        .status,
    ).toBe(403);
  });

  test("an owner invites a member, who joins; roles change and they are removed; the rules hold", async () => {
    const csrf = await owner.csrf("/team");
    // No SMTP on this server: the answer shows the link to pass on.
    const invite = await owner.post("/team/invitations", {
      _csrf: csrf,
      email: "maya@harborcoffee.example",
      role: "viewer",
      days: "7",
    });
    expect(invite.status).toBe(200);
    const link = /\/invite\/[0-9a-f]{64}/.exec(await invite.text())![0];
    expect(await text(owner, "/team")).toContain("maya@harborcoffee.example");
    expect(
      (await owner.post("/team/invitations", { _csrf: csrf, email: "maya@harborcoffee.example", role: "admin" }))
        .status,
    ).toBe(409);
    // Maya's account has no password: accepting sets one.
    const maya = new Browser(s.config.publicUrl);
    expect(await pageText(await (await maya.get(link)).text())).toContain("Set your password");
    expect(
      (await maya.post(link, { name: "Maya Ortiz", password: "maya's passphrase", confirm: "maya's passphrase" }))
        .status,
    ).toBe(303);
    expect(await text(owner, "/team")).toContain("Maya Ortiz");
    const mayaId = (
      (await row(s.deps, "SELECT id FROM users WHERE email = ?", "maya@harborcoffee.example")) as { id: number }
    ).id;
    expect((await owner.post(`/team/${mayaId}/role`, { _csrf: csrf, role: "admin" })).status).toBe(303);
    expect(
      await row(s.deps, "SELECT role FROM memberships WHERE user_id = ? AND company_id = ?", mayaId, northwind),
    ).toEqual({ role: "admin" });
    // The only owner cannot step down, be removed or leave.
    const me = ((await row(s.deps, "SELECT id FROM users WHERE email = ?", DEMO_EMAIL)) as { id: number }).id;
    const demote = await owner.post(`/team/${me}/role`, { _csrf: csrf, role: "viewer" });
    expect(demote.status).toBe(409);
    expect(await pageText(await demote.text())).toContain("must keep at least one owner");
    expect((await owner.post(`/team/${me}/remove`, { _csrf: csrf })).status).toBe(409);
    expect((await owner.post("/team/leave", { _csrf: csrf })).status).toBe(409);
    expect((await owner.post(`/team/${mayaId}/remove`, { _csrf: csrf })).status).toBe(303);
    expect(await text(owner, "/team")).not.toContain("Maya Ortiz");
  });

  test("an admin cannot touch owners or make new ones", async () => {
    await submit(owner, "/team", (f) => f.action === "/company", { company_id: String(harbor) });
    try {
      const csrf = await owner.csrf("/team");
      const maya = (
        (await row(s.deps, "SELECT id FROM users WHERE email = ?", "maya@harborcoffee.example")) as { id: number }
      ).id;
      const sam = ((await row(s.deps, "SELECT id FROM users WHERE email = ?", VIEWER_EMAIL)) as { id: number }).id;
      expect((await owner.post(`/team/${maya}/remove`, { _csrf: csrf })).status).toBe(403);
      expect((await owner.post(`/team/${maya}/role`, { _csrf: csrf, role: "viewer" })).status).toBe(403);
      expect((await owner.post(`/team/${sam}/role`, { _csrf: csrf, role: "owner" })).status).toBe(403);
      expect(
        (await owner.post("/team/invitations", { _csrf: csrf, email: "boss@example.test", role: "owner" })).status,
      ).toBe(403);
      expect((await owner.post(`/team/${sam}/role`, { _csrf: csrf, role: "admin" })).status).toBe(303);
      expect((await owner.post(`/team/${sam}/role`, { _csrf: csrf, role: "viewer" })).status).toBe(303);
    } finally {
      await submit(owner, "/team", (f) => f.action === "/company", { company_id: String(northwind) });
    }
  });

  test("bad input: bad addresses, unknown roles, hostile strings, other tenants' users", async () => {
    const csrf = await owner.csrf("/team");
    expect((await owner.post("/team/invitations", { _csrf: csrf, email: "<script>@x", role: "viewer" })).status).toBe(
      400,
    );
    expect(
      (await owner.post("/team/invitations", { _csrf: csrf, email: "someone@example.test", role: "god" })).status,
    ).toBe(400);
    expect(
      (await owner.post("/team/invitations", { _csrf: csrf, email: "someone@example.test", role: ["viewer", "owner"] }))
        .status,
    ).toBe(400);
    expect(
      (
        await owner.post("/team/invitations", {
          _csrf: csrf,
          email: "someone@example.test",
          role: "viewer",
          days: "365",
        })
      ).status,
    ).toBe(400);
    // Maya is no longer in Northwind: she is not a member to change here.
    const maya = (
      (await row(s.deps, "SELECT id FROM users WHERE email = ?", "maya@harborcoffee.example")) as { id: number }
    ).id;
    expect((await owner.post(`/team/${maya}/role`, { _csrf: csrf, role: "viewer" })).status).toBe(404);
    expect((await owner.post(`/team/abc/remove`, { _csrf: csrf })).status).toBe(404);
    expect((await owner.post(`/team/invitations/99999/revoke`, { _csrf: csrf })).status).toBe(404);
  });
});

describe("approvals inbox", () => {
  let approvalId: number;
  const title = `<script>alert("post")</script> Spring menu`;

  test("pending links are listed with their previews, hostile titles escaped", async () => {
    // Priya's agent asks, so the demo user (an owner, not the requester) may decide it in the inbox.
    const priya = (
      (await row(s.deps, "SELECT id FROM users WHERE email = ?", "priya@northwind.example")) as { id: number }
    ).id;
    const mcp = await mcpClient(
      s.url,
      (await mintMcpKey(s.deps, { userId: priya, scopes: ["*"], companyIds: [northwind] })).key,
    );
    const r = await callTool(mcp, "posts_create", { clientId: northwind, siteId: northwindSite, title });
    await mcp.close();
    expect(r.isError).toBe(false);
    expect(r.data.approval.status).toBe("pending");
    approvalId = ((await row(s.deps, "SELECT id FROM approval_links ORDER BY id DESC LIMIT 1")) as { id: number }).id;
    const html = await (await owner.get("/approvals")).text();
    expect(html).not.toContain(`<script>alert("post")</script>`);
    const t = await pageText(html);
    expect(t).toContain(title);
    expect(t).toMatch(/[1-9]\d* pending/);
    expect(html).toContain(`href="/approvals/${approvalId}"`);
  });

  test("the detail page shows the rendered preview; a viewer cannot decide", async () => {
    const page = await (await viewer.get(`/approvals/${approvalId}`)).text();
    expect(page).not.toContain(`<script>alert("post")</script>`);
    expect(await pageText(page)).toContain("Only owners and admins can approve or reject.");
    expect(page).toContain(`/approvals/${approvalId}/preview.css`);
    const css = await viewer.get(`/approvals/${approvalId}/preview.css`);
    expect(css.headers.get("content-type")).toContain("text/css");
    const csrf = await viewer.csrf("/approvals");
    expect((await viewer.post(`/approvals/${approvalId}/decide`, { _csrf: csrf, decision: "approve" })).status).toBe(
      403,
    );
  });

  test("an owner approves from the portal; the decision is recorded with who made it", async () => {
    const csrf = await owner.csrf("/approvals");
    expect((await owner.post(`/approvals/${approvalId}/decide`, { _csrf: csrf, decision: "maybe" })).status).toBe(400);
    const res = await owner.post(`/approvals/${approvalId}/decide`, {
      _csrf: csrf,
      decision: "approve",
      comment: "Looks good",
    });
    expect(res.status).toBe(303);
    const t = await text(owner, res.headers.get("location")!);
    expect(t).toContain("Approved: the change is live.");
    expect(t).toContain("decided by Demo User (member)");
    const again = await owner.post(`/approvals/${approvalId}/decide`, { _csrf: csrf, decision: "reject" });
    expect(again.status).toBe(409);
  });

  test("another company's approval is not found; malformed ids too", async () => {
    await submit(owner, "/team", (f) => f.action === "/company", { company_id: String(harbor) });
    try {
      expect((await owner.get(`/approvals/${approvalId}`)).status).toBe(404);
      expect((await owner.get(`/approvals/${approvalId}/preview.css`)).status).toBe(404);
      expect((await owner.get(`/approvals/x1`)).status).toBe(404);
      expect((await owner.get(`/approvals?offset=-4`)).status).toBe(200);
    } finally {
      await submit(owner, "/team", (f) => f.action === "/company", { company_id: String(northwind) });
    }
  });
});
