/** Settings → API keys: create (shown once), list, use, revoke; and every kind of bad form. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addMember, callTool, createCompany, createUser, mcpClient, mintMcpKey, rawMcp } from "../fixtures/accounts";
import { jsonValue, row, startTestServer, type TestServer } from "../harness";
import { Browser, pageText, readForms } from "../oauth/helpers";

let s: TestServer;
let ana: Browser;
let acme: { id: number };
let globex: { id: number };
let elsewhere: { id: number };
let zedId: number;

beforeAll(async () => {
  s = await startTestServer({ seed: false });
  const a = await createUser(s.deps, { email: "ana@example.test", password: "correct horse battery" });
  const z = await createUser(s.deps, { email: "zed@example.test", password: "zed's long password" });
  zedId = z.id;
  acme = await createCompany(s.deps, { name: "Acme", ownerUserId: a.id });
  globex = await createCompany(s.deps, { name: "Globex" });
  await addMember(s.deps, globex.id, a.id, "viewer");
  elsewhere = await createCompany(s.deps, { name: "Elsewhere", ownerUserId: z.id });
  ana = new Browser(s.config.publicUrl);
  await ana.signIn("ana@example.test", "correct horse battery");
});
afterAll(() => s.stop());

async function create(b: Browser, fields: Record<string, string | string[]>) {
  const csrf = await b.csrf("/settings/api-keys");
  return b.post("/settings/api-keys", { _csrf: csrf, ...fields });
}
const secretIn = (html: string) => /svc_mcp_[0-9a-f]{64}/.exec(html)?.[0];

describe("the create form", () => {
  test("offers every scope with the wildcards, and only the person's companies", async () => {
    const html = await (await ana.get("/settings/api-keys")).text();
    const form = (await readForms(html)).find((f) => f.action === "/settings/api-keys")!;
    const scopes = form.fields.filter((f) => f.name === "scope").map((f) => f.value);
    expect(scopes).toContain("*");
    expect(scopes).toContain("crm:*");
    expect(scopes).toContain("email:send");
    expect(scopes).toContain("approvals:manage");
    expect(scopes.length).toBe(1 + 45 + 23);
    const companies = form.fields.filter((f) => f.name === "company").map((f) => Number(f.value));
    expect(companies.sort()).toEqual([acme.id, globex.id].sort());
    expect(form.fields.map((f) => f.name)).toContain("require_cms_approval");
    expect(form.fields.find((f) => f.name === "expiry")).toBeDefined();
  });
});

describe("a key's life", () => {
  test("created with its settings, shown exactly once, works on /api/mcp, listed with last use, revoked", async () => {
    const res = await create(ana, {
      name: "Claude on laptop",
      scope: ["services:read", "branding:*"],
      company: [String(acme.id), String(globex.id)],
      require_cms_approval: "on",
      expiry: "30",
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const html = await res.text();
    const key = secretIn(html)!;
    expect(key).toBeDefined();
    expect(await pageText(html)).toContain("it will not be shown again");

    // Stored hashed: the secret appears nowhere in the database.
    const stored = (await row(s.deps, "SELECT * FROM mcp_keys WHERE name = 'Claude on laptop'")) as any;
    expect(JSON.stringify(stored)).not.toContain(key);
    expect(jsonValue(stored.scopes)).toEqual(["services:read", "branding:*"]);
    expect(jsonValue(stored.company_ids)).toEqual([acme.id, globex.id].sort((x, y) => x - y));
    expect(Boolean(stored.require_cms_approval)).toBe(true);
    expect(new Date(stored.expires_at).getTime()).toBe(s.clock.ms() + 30 * 86_400_000);

    // Never shown again.
    const list = await (await ana.get("/settings/api-keys")).text();
    expect(secretIn(list)).toBeUndefined();
    expect(list).toContain(key.slice(0, 14));
    expect(await pageText(list)).toContain("Claude on laptop");

    const mcp = await mcpClient(s.url, key);
    const who = await callTool(mcp, "whoami");
    expect(who.data.scopes).toEqual(["services:read", "branding:*"]);
    expect(who.data.clients.map((c: any) => c.id)).toEqual([acme.id, globex.id]);
    await mcp.close();
    // Listed with its created and last-used times (the clock stands still, so both are "now").
    const now = new Date(s.clock.ms()).toISOString().slice(0, 16).replace("T", " ") + " UTC";
    const listed = await pageText(await (await ana.get("/settings/api-keys")).text());
    expect(listed).toContain(`Claude on laptopsvc_mcp_`);
    expect(listed).toContain(`Acme, Globex${now}${now}`);

    const form = (await readForms(await (await ana.get("/settings/api-keys")).text())).find((f) => f.action.endsWith("/revoke"))!;
    const revoke = await ana.post(form.action, Object.fromEntries(form.fields.map((f) => [f.name, f.value])));
    expect(revoke.status).toBe(303);
    const after = await pageText(await (await ana.get(revoke.headers.get("location")!)).text());
    expect(after).toContain("revoked");
    const refused = await rawMcp(s.url, key, { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
    expect(refused.status).toBe(401);
  });

  test("someone else's key cannot be revoked (404), and is not listed", async () => {
    const theirs = await mintMcpKey(s.deps, { userId: zedId, name: "Zed's key", scopes: ["*"], companyIds: [elsewhere.id] });
    const csrf = await ana.csrf();
    const res = await ana.post(`/settings/api-keys/${theirs.id}/revoke`, { _csrf: csrf });
    expect(res.status).toBe(404);
    expect(await (await ana.get("/settings/api-keys")).text()).not.toContain("Zed&#39;s key");
    expect((await rawMcp(s.url, theirs.key, { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} })).status).toBe(200);
    for (const id of ["abc", "-1", "1e3", "99999999999999999999"])
      expect((await ana.post(`/settings/api-keys/${id}/revoke`, { _csrf: csrf })).status).toBe(404);
  });
});

describe("hostile and malformed input", () => {
  test("a script in the key name is stored as text and rendered escaped", async () => {
    const name = `<script>alert('k')</script><img src=x onerror=alert(1)>`;
    const res = await create(ana, { name, scope: "services:read", company: String(acme.id), expiry: "" });
    expect(res.status).toBe(200);
    const html = await (await ana.get("/settings/api-keys")).text();
    expect(html).not.toContain("<script>alert('k')</script>");
    expect(html).not.toContain("<img src=x");
    expect(await pageText(html)).toContain(name);
  });

  const cases: [string, Record<string, string | string[]>, string][] = [
    ["no name", { name: "", scope: "crm:read", company: "1", expiry: "" }, "Name is required."],
    ["a huge name", { name: "x".repeat(5000), scope: "crm:read", company: "1", expiry: "" }, "Name must be at most 100 characters."],
    ["a control character", { name: "a\u0007b", scope: "crm:read", company: "1", expiry: "" }, "control characters"],
    ["no scope", { name: "k", company: "1", expiry: "" }, "Choose at least one scope."],
    ["an unknown scope", { name: "k", scope: "root:all", company: "1", expiry: "" }, "Unknown scope: root:all."],
    ["SQL in a scope", { name: "k", scope: "crm:read'; DROP TABLE mcp_keys;--", company: "1", expiry: "" }, "Unknown scope"],
    ["no company", { name: "k", scope: "crm:read", expiry: "" }, "Choose at least one company"],
    ["a company id that is not a number", { name: "k", scope: "crm:read", company: "abc", expiry: "" }, "positive whole numbers"],
    ["a huge company id", { name: "k", scope: "crm:read", company: "9".repeat(30), expiry: "" }, "positive whole numbers"],
    ["another tenant's company", { name: "k", scope: "crm:read", company: "ELSEWHERE", expiry: "" }, "only choose companies you belong to"],
    ["an expiry not offered", { name: "k", scope: "crm:read", company: "1", expiry: "-5" }, "Choose an expiry from the list."],
    ["a repeated name", { name: ["a", "b"], scope: "crm:read", company: "1", expiry: "" }, "sent more than once"],
  ];
  for (const [what, fields, message] of cases)
    test(`${what}: 400 with a clear message, nothing created`, async () => {
      const f = { ...fields };
      if (f.company === "1") f.company = String(acme.id);
      if (f.company === "ELSEWHERE") f.company = String(elsewhere.id);
      const before = ((await row(s.deps, "SELECT count(*) AS n FROM mcp_keys")) as any).n;
      const res = await create(ana, f);
      expect(res.status).toBe(400);
      expect(await pageText(await res.text())).toContain(message);
      expect(((await row(s.deps, "SELECT count(*) AS n FROM mcp_keys")) as any).n).toBe(before);
    });

  test("wrong content types and oversized forms are 4xx", async () => {
    const csrf = await ana.csrf();
    const json = await fetch(`${s.config.publicUrl}/settings/api-keys`, {
      method: "POST",
      redirect: "manual",
      headers: { cookie: ana.jar.header(), origin: s.config.publicUrl, "content-type": "text/plain" },
      body: `_csrf=${csrf}&name=x`,
    });
    expect(json.status).toBe(400);
    const huge = await ana.post("/settings/api-keys", { _csrf: csrf, name: "k", scope: Array(20_000).fill("crm:read") });
    expect(huge.status).toBe(413);
  });
});
