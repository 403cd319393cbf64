/** Settings → API keys: create (shown once), list, use, revoke; and every kind of bad form. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addMember, callTool, createCompany, createUser, mcpClient, mintMcpKey, rawMcp } from "../fixtures/accounts";
import { jsonValue, row, startTestServer, type TestServer } from "../harness";
import { areasWithTools, Browser, gatingScopes, pageText, readForms } from "../oauth/helpers";

let s: TestServer;
let ana: Browser;
let acme: { id: number };
let globex: { id: number };
let elsewhere: { id: number };
let zedId: number;
let anaId: number;

beforeAll(async () => {
  s = await startTestServer({ seed: false });
  const a = await createUser(s.deps, { email: "ana@example.test", password: "correct horse battery" });
  const z = await createUser(s.deps, { email: "zed@example.test", password: "zed's long password" });
  zedId = z.id;
  anaId = a.id;
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
  test("offers full access and one choice per area with tools (none ticked), and only the person's companies", async () => {
    const html = await (await ana.get("/settings/api-keys")).text();
    const form = (await readForms(html)).find((f) => f.action === "/settings/api-keys")!;
    // The areas' radios; the tool listing's own group is test/portal/listing-browser.test.ts's.
    const groups = [
      ...new Set(form.fields.filter((f) => f.type === "radio" && f.name !== "listing").map((f) => f.name)),
    ];
    expect(groups).toEqual(areasWithTools().map((d) => `access_${d}`));
    expect(form.fields.find((f) => f.name === "listing" && f.checked)?.value).toBe("auto");
    for (const g of groups) {
      // Areas with no write scope (hosting, billing: interface.md 5.3) offer only none and read.
      const writable = gatingScopes().some(
        (x) => x.startsWith(`${g.slice("access_".length)}:`) && !x.endsWith(":read"),
      );
      expect(form.fields.filter((f) => f.name === g).map((f) => f.value)).toEqual(
        writable ? ["none", "read", "write"] : ["none", "read"],
      );
      expect(form.fields.find((f) => f.name === g && f.checked)?.value).toBe("none");
    }
    const full = form.fields.filter((f) => f.name === "full_access");
    expect(full.map((f) => f.checked)).toEqual([false]);
    expect(await pageText(html)).toContain("Full access to everything this account can do (includes future tools)");
    expect(form.fields.some((f) => f.name === "scope")).toBe(false);
    const companies = form.fields.filter((f) => f.name === "company").map((f) => Number(f.value));
    expect(companies.sort()).toEqual([acme.id, globex.id].sort());
    expect(form.fields.map((f) => f.name)).toContain("require_cms_approval");
    expect(form.fields.find((f) => f.name === "expiry")).toBeDefined();
  });

  test("full access makes a key with *", async () => {
    const res = await create(ana, {
      name: "Everything",
      full_access: "on",
      access_services: "read",
      company: String(acme.id),
      expiry: "",
    });
    expect(res.status).toBe(200);
    const stored = (await row(s.deps, "SELECT scopes FROM mcp_keys WHERE name = 'Everything'")) as any;
    expect(jsonValue(stored.scopes)).toEqual(["*"]);
  });
});

describe("a key's life", () => {
  test("created with its settings, shown exactly once, works on /api/mcp, listed with last use, revoked", async () => {
    const res = await create(ana, {
      name: "Claude on laptop",
      access_services: "read",
      access_branding: "write",
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
    expect(jsonValue(stored.scopes)).toEqual(["branding:read", "branding:write", "services:read"]);
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
    expect(who.data.scopes).toEqual(["branding:read", "branding:write", "services:read"]);
    expect(who.data.clients.map((c: any) => c.id)).toEqual([acme.id, globex.id]);
    await mcp.close();
    // Listed with its created and last-used times (the clock stands still, so both are "now").
    const now = new Date(s.clock.ms()).toISOString().slice(0, 16).replace("T", " ") + " UTC";
    const listed = await pageText(await (await ana.get("/settings/api-keys")).text());
    expect(listed).toContain(`Claude on laptopsvc_mcp_`);
    expect(listed).toContain(`Acme, Globex${now}${now}`);

    const form = (await readForms(await (await ana.get("/settings/api-keys")).text())).find(
      (f) => f.action === `/settings/api-keys/${stored.id}/revoke`,
    )!;
    const revoke = await ana.post(form.action, Object.fromEntries(form.fields.map((f) => [f.name, f.value])));
    expect(revoke.status).toBe(303);
    const after = await pageText(await (await ana.get(revoke.headers.get("location")!)).text());
    expect(after).toContain("revoked");
    const refused = await rawMcp(s.url, key, { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
    expect(refused.status).toBe(401);
  });

  test("someone else's key cannot be revoked (404), and is not listed", async () => {
    const theirs = await mintMcpKey(s.deps, {
      userId: zedId,
      name: "Zed's key",
      scopes: ["*"],
      companyIds: [elsewhere.id],
    });
    const csrf = await ana.csrf();
    const res = await ana.post(`/settings/api-keys/${theirs.id}/revoke`, { _csrf: csrf });
    expect(res.status).toBe(404);
    expect(await (await ana.get("/settings/api-keys")).text()).not.toContain("Zed&#39;s key");
    expect((await rawMcp(s.url, theirs.key, { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} })).status).toBe(
      200,
    );
    for (const id of ["abc", "-1", "1e3", "99999999999999999999"])
      expect((await ana.post(`/settings/api-keys/${id}/revoke`, { _csrf: csrf })).status).toBe(404);
  });

  test("someone else's key's listing cannot be changed (404); a bad listing is a 400 naming it", async () => {
    const theirs = await mintMcpKey(s.deps, {
      userId: zedId,
      name: "Zed's other key",
      scopes: ["*"],
      companyIds: [elsewhere.id],
    });
    const csrf = await ana.csrf();
    const res = await ana.post(`/settings/api-keys/${theirs.id}/listing`, { _csrf: csrf, listing: "discovery" });
    expect(res.status).toBe(404);
    const listed = async (k: string) =>
      ((await (await rawMcp(s.url, k, { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} })).json()) as any)
        .result.tools.length;
    expect(await listed(theirs.key)).toBeGreaterThan(128); // still the full listing it was minted with
    const mine = await mintMcpKey(s.deps, { userId: anaId, scopes: ["*"], companyIds: [acme.id] });
    const bads: Record<string, string>[] = [
      { listing: "everything" },
      { listing: "toolsets" },
      { listing: "toolsets", listing_toolset: "x" },
    ];
    for (const bad of bads) {
      const r = await ana.post(`/settings/api-keys/${mine.id}/listing`, { _csrf: csrf, ...bad });
      expect(r.status).toBe(400);
    }
    expect(await listed(mine.key)).toBeGreaterThan(128);
  });
});

describe("hostile and malformed input", () => {
  test("a script in the key name is stored as text and rendered escaped", async () => {
    const name = `<script>alert('k')</script><img src=x onerror=alert(1)>`;
    const res = await create(ana, { name, access_services: "read", company: String(acme.id), expiry: "" });
    expect(res.status).toBe(200);
    const html = await (await ana.get("/settings/api-keys")).text();
    expect(html).not.toContain("<script>alert('k')</script>");
    expect(html).not.toContain("<img src=x");
    expect(await pageText(html)).toContain(name);
  });

  const cases: [string, Record<string, string | string[]>, string][] = [
    ["no name", { name: "", access_services: "read", company: "1", expiry: "" }, "Name is required."],
    [
      "a huge name",
      { name: "x".repeat(5000), access_services: "read", company: "1", expiry: "" },
      "Name must be at most 100 characters.",
    ],
    [
      "a control character",
      { name: "a\u0007b", access_services: "read", company: "1", expiry: "" },
      "control characters",
    ],
    [
      "no scope",
      { name: "k", access_services: "none", company: "1", expiry: "" },
      "Choose Read or Read and change for at least one area, or full access.",
    ],
    [
      "an unknown area",
      { name: "k", access_root: "read", company: "1", expiry: "" },
      "root is not one of the areas offered.",
    ],
    [
      "an unknown level",
      { name: "k", access_services: "admin", company: "1", expiry: "" },
      "Services: choose one of the levels offered.",
    ],
    [
      "SQL in a level",
      { name: "k", access_services: "read'; DROP TABLE mcp_keys;--", company: "1", expiry: "" },
      "choose one of the levels offered",
    ],
    [
      "a level sent twice",
      { name: "k", access_services: ["read", "write"], company: "1", expiry: "" },
      "Services was sent more than once.",
    ],
    ["no company", { name: "k", access_services: "read", expiry: "" }, "Choose at least one company"],
    [
      "a company id that is not a number",
      { name: "k", access_services: "read", company: "abc", expiry: "" },
      "positive whole numbers",
    ],
    [
      "a huge company id",
      { name: "k", access_services: "read", company: "9".repeat(30), expiry: "" },
      "positive whole numbers",
    ],
    [
      "another tenant's company",
      { name: "k", access_services: "read", company: "ELSEWHERE", expiry: "" },
      "only choose companies you belong to",
    ],
    [
      "an expiry not offered",
      { name: "k", access_services: "read", company: "1", expiry: "-5" },
      "Choose an expiry from the list.",
    ],
    ["a repeated name", { name: ["a", "b"], access_services: "read", company: "1", expiry: "" }, "sent more than once"],
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
    const huge = await ana.post("/settings/api-keys", {
      _csrf: csrf,
      name: "k",
      access_services: Array(20_000).fill("read"),
    });
    expect(huge.status).toBe(413);
  });
});
