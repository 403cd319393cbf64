/**
 * The company default brand profile over the real wire (issue 29 item 8):
 * a company without a site has one, read through brand://default and
 * branding_get_profile (with clientId on a multi-company connection) and
 * set through branding_update_profile; a new site (`plinth sites create`,
 * createSite) starts from a copy of it, served by REST /branding. Bad input
 * is a clear error; a viewer, a read-only key and a key without the
 * branding scope cannot set it; another company's default is its own.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/client";
import { and, eq } from "drizzle-orm";
import { auditLog, events } from "../../src/core/tables";
import { brandDefaults } from "../../src/domains/branding/tables";
import { createSite } from "../../src/domains/sites/verbs";
import { addMember, callTool, createCompany, createUser, mcpClient, mintMcpKey, toolOk } from "../fixtures/accounts";
import { startTestServer, storeEnv, type TestServer } from "../harness";
import { MAIN, ROOT } from "../ops/child";

let s: TestServer;
let owner: Client;
let multi: Client;
let newco: { id: number; name: string };
let rival: { id: number; name: string };
let ownerId: number;
const clients: Client[] = [];

async function client(userId: number, scopes: string[], companyIds: number[]) {
  const c = await mcpClient(s.url, (await mintMcpKey(s.deps, { userId, scopes, companyIds })).key);
  clients.push(c);
  return c;
}
async function brandDefault(c: Client) {
  const doc = await c.readResource({ uri: "brand://default" });
  return JSON.parse((doc.contents[0] as { text: string }).text);
}

beforeAll(async () => {
  s = await startTestServer({ seed: false, config: { mcpRateLimit: 100_000 } });
  const u = await createUser(s.deps, { email: "founder@newco.test", name: "Nia Founder" });
  ownerId = u.id;
  newco = await createCompany(s.deps, { name: "Newco", ownerUserId: u.id });
  rival = await createCompany(s.deps, { name: "Rival", ownerUserId: u.id });
  owner = await client(u.id, ["branding:*"], [newco.id]);
  multi = await client(u.id, ["*"], [newco.id, rival.id]);
}, 30_000);
afterAll(async () => {
  for (const c of clients) await c.close();
  await s.stop();
});

describe("a company without a site", () => {
  test("has a default profile, empty at first, in brand://default and branding_get_profile", async () => {
    const doc = await brandDefault(owner);
    expect(doc).toMatchObject({
      siteId: null,
      siteName: null,
      companyDefault: true,
      branding: {},
      cssVars: {},
      updatedAt: null,
      messaging: null,
    });
    expect(doc.effective.primaryColor).toBe("#2563eb");
    const { messaging: _, ...profile } = doc;
    expect(await toolOk(owner, "branding_get_profile", {})).toEqual(profile);
    expect(await toolOk(owner, "branding_get_profile", { siteId: null })).toEqual(profile);
  });

  test("an agent sets it without a site, and reads it back everywhere", async () => {
    const r = await toolOk(owner, "branding_update_profile", {
      branding: {
        primaryColor: "#0F766E",
        headingFont: "Fraunces",
        buttonPresets: [{ name: "Pill", borderRadius: "9999px" }],
      },
    });
    expect(r).toMatchObject({ siteId: null, companyDefault: true, status: "saved" });
    expect(r.fields.sort()).toEqual(["buttonPresets", "headingFont", "primaryColor"]);
    const doc = await brandDefault(owner);
    expect(doc.branding).toMatchObject({ primaryColor: "#0f766e", headingFont: "Fraunces" });
    expect(doc.branding.buttonPresets).toEqual([{ id: r.buttonPresets[0].id, name: "Pill", borderRadius: "9999px" }]);
    expect(doc.cssVars["--color-primary"]).toBe("#0f766e");
    expect(doc.updatedAt).not.toBeNull();
    // A multi-company connection names the company with clientId; the other company's default is its own.
    expect((await toolOk(multi, "branding_get_profile", { clientId: newco.id })).branding.primaryColor).toBe("#0f766e");
    expect((await toolOk(multi, "branding_get_profile", { clientId: rival.id })).branding).toEqual({});
    await toolOk(multi, "branding_update_profile", {
      clientId: rival.id,
      siteId: null,
      branding: { accentColor: "#111111" },
    });
    expect((await brandDefault(owner)).branding.accentColor).toBeUndefined();
    // It merges like a site's profile: null resets a field.
    await toolOk(owner, "branding_update_profile", { siteId: null, branding: { headingFont: null } });
    expect((await brandDefault(owner)).branding.headingFont).toBeUndefined();
    // Audited as the same branding.update a site's change is, and announced.
    const audits = await s.deps.db
      .select({ action: auditLog.action, entityType: auditLog.entityType })
      .from(auditLog)
      .where(and(eq(auditLog.companyId, newco.id), eq(auditLog.entityId, newco.id)));
    expect(audits).toContainEqual({ action: "branding.update", entityType: "brand_default" });
    const sent = await s.deps.db.select({ type: events.type }).from(events).where(eq(events.companyId, newco.id));
    expect(sent.map((e) => e.type)).toContain("brand_default.updated");
  });

  test("bad input says what is wrong and stores nothing", async () => {
    const before = await s.deps.db.select().from(brandDefaults).where(eq(brandDefaults.companyId, newco.id));
    const empty = await callTool(owner, "branding_update_profile", { branding: {} });
    expect([empty.isError, empty.text]).toEqual([true, expect.stringContaining("branding is empty")]);
    const colour = await callTool(owner, "branding_update_profile", {
      siteId: null,
      branding: { primaryColor: "teal" },
    });
    expect([colour.isError, colour.text]).toEqual([true, expect.stringContaining("primaryColor")]);
    const site = await callTool(owner, "branding_get_profile", { siteId: 0 });
    expect([site.isError, site.text]).toEqual([true, expect.stringContaining("siteId")]);
    expect(await s.deps.db.select().from(brandDefaults).where(eq(brandDefaults.companyId, newco.id))).toEqual(before);
  });
});

describe("a new site starts from the company default", () => {
  test("plinth sites create copies it; REST serves it; later changes to either stay apart", async () => {
    const p = Bun.spawnSync(
      [process.execPath, MAIN, "sites", "create", "--company", String(newco.id), "--name", "Newco Shop"],
      { cwd: ROOT, env: storeEnv(s.config), stdout: "pipe", stderr: "pipe", timeout: 60_000 },
    );
    expect({ code: p.exitCode, err: p.stderr.toString() }).toEqual({ code: 0, err: "" });
    const out = p.stdout.toString();
    expect(out).toContain('"Newco Shop" of company');
    expect(out).toContain("branded from the company default (primaryColor, buttonPresets)");
    const siteId = Number(/created site (\d+)/.exec(out)![1]);

    const def = await brandDefault(owner); // now the primary site's profile
    expect(def).toMatchObject({ siteId, siteName: "Newco Shop" });
    expect(def.branding).toMatchObject({ primaryColor: "#0f766e" });
    const rest = (await (await fetch(`${s.url}/api/v1/sites/${siteId}/branding`)).json()) as any;
    expect(rest.data.primaryColor).toBe("#0f766e");
    expect(rest.data.buttonPresets[0].name).toBe("Pill");
    expect(rest.cssVars["--color-primary"]).toBe("#0f766e");

    // With a site, a write must name its target: siteId, or null for the default.
    const unnamed = await callTool(owner, "branding_update_profile", { branding: { primaryColor: "#000000" } });
    expect([unnamed.isError, unnamed.text]).toEqual([
      true,
      expect.stringContaining(`Newco has sites: give siteId (site ${siteId} is its primary site), or siteId null`),
    ]);
    await toolOk(owner, "branding_update_profile", { siteId: null, branding: { primaryColor: "#7c3aed" } });
    expect((await toolOk(owner, "branding_get_profile", { siteId })).branding.primaryColor).toBe("#0f766e");
    await toolOk(owner, "branding_update_profile", { siteId, branding: { primaryColor: "#be123c" } });
    expect((await toolOk(owner, "branding_get_profile", { siteId: null })).branding.primaryColor).toBe("#7c3aed");

    // The next site starts from the default as it is now; a company without a default starts on the built-in one.
    const next = await createSite(s.deps, { companyId: newco.id, name: "Newco Blog" });
    expect(next.brandFields.sort()).toEqual(["buttonPresets", "primaryColor"]);
    expect((await toolOk(owner, "branding_get_profile", { siteId: next.id })).branding.primaryColor).toBe("#7c3aed");
    const bare = await createCompany(s.deps, { name: "Bare", ownerUserId: ownerId });
    expect((await createSite(s.deps, { companyId: bare.id, name: "Bare Site" })).brandFields).toEqual([]);
  }, 60_000);

  test("createSite refuses a bad name or an unknown company", async () => {
    await expect(createSite(s.deps, { companyId: newco.id, name: "  " })).rejects.toThrow("1 to 200 characters");
    await expect(createSite(s.deps, { companyId: 999_999, name: "X" })).rejects.toThrow("Company 999999 not found");
  });
});

describe("who may read and set it", () => {
  test("a viewer and a read-only key read it but cannot set it; a key without branding scopes sees neither", async () => {
    const viewerUser = await createUser(s.deps, { email: "viewer@newco.test" });
    await addMember(s.deps, newco.id, viewerUser.id, "viewer");
    const viewer = await client(viewerUser.id, ["branding:*"], [newco.id]);
    const reader = await client(ownerId, ["branding:read"], [newco.id]);
    const before = await s.deps.db.select().from(brandDefaults).where(eq(brandDefaults.companyId, newco.id));
    for (const c of [viewer, reader])
      expect((await toolOk(c, "branding_get_profile", { siteId: null })).branding.primaryColor).toBe("#7c3aed");
    const v = await callTool(viewer, "branding_update_profile", {
      siteId: null,
      branding: { primaryColor: "#000000" },
    });
    expect([v.isError, v.text]).toEqual([true, expect.stringContaining("viewer")]);
    expect((await reader.listTools()).tools.map((t) => t.name)).not.toContain("branding_update_profile");
    const sites = await client(ownerId, ["sites:*"], [newco.id]);
    const names = (await sites.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain("branding_get_profile");
    expect(names).not.toContain("branding_update_profile");
    expect((await sites.listResources()).resources.map((r) => r.uri)).not.toContain("brand://default");
    expect(await s.deps.db.select().from(brandDefaults).where(eq(brandDefaults.companyId, newco.id))).toEqual(before);
  });

  test("another company's key cannot reach this company's default", async () => {
    const them = await createUser(s.deps, { email: "them@other.test" });
    const other = await createCompany(s.deps, { name: "Other", ownerUserId: them.id });
    const c = await client(them.id, ["*"], [other.id]);
    expect((await brandDefault(c)).branding).toEqual({});
    const r = await callTool(c, "branding_update_profile", {
      clientId: newco.id,
      siteId: null,
      branding: { primaryColor: "#000000" },
    });
    expect(r.isError).toBe(true);
    expect((await toolOk(owner, "branding_get_profile", { siteId: null })).branding.primaryColor).toBe("#7c3aed");
  });
});
