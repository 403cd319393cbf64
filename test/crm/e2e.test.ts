/**
 * Over the real wire: an agent works the CRM through the MCP endpoint
 * with the official SDK client — listing by scope, idempotent creates,
 * duplicates, a deal through its stages, search, scopes, roles and
 * tenancy as credentials meet them, and the decay job on the real server.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/client";
import { addMember, callTool, createCompany, createUser, mcpClient, mintMcpKey, toolOk } from "../fixtures/accounts";
import { commits, rows, startTestServer, type TestServer } from "../harness";

let s: TestServer;
let owner: Client;
let viewer: Client;
let reader: Client;
let multi: Client;
let co: { id: number; name: string };
let other: { id: number; name: string };

beforeAll(async () => {
  s = await startTestServer({ seed: false, config: { rateLimit: 100_000 }, clock: undefined });
  s.clock.set(Date.parse("2025-03-03T09:00:00Z"));
  const u = await createUser(s.deps, { email: "owner@agency.test", name: "Olivia Owner" });
  const v = await createUser(s.deps, { email: "viewer@agency.test" });
  co = await createCompany(s.deps, { name: "Agency", ownerUserId: u.id });
  other = await createCompany(s.deps, { name: "Other Tenant", ownerUserId: u.id });
  await addMember(s.deps, co.id, v.id, "viewer");
  const key = async (userId: number, scopes: string[], companyIds = [co.id]) =>
    (await mintMcpKey(s.deps, { userId, scopes, companyIds })).key;
  owner = await mcpClient(s.url, await key(u.id, ["crm:*"]));
  viewer = await mcpClient(s.url, await key(v.id, ["crm:*"]), { era: "legacy" });
  reader = await mcpClient(s.url, await key(u.id, ["crm:read"]));
  multi = await mcpClient(s.url, await key(u.id, ["*"], [co.id, other.id]));
});
afterAll(async () => {
  for (const c of [owner, viewer, reader, multi]) await c?.close();
  await s.stop();
});

const tool = toolOk;
const fails = async (c: Client, name: string, args: Record<string, unknown>) => {
  const r = await callTool(c, name, args);
  expect(r.isError).toBe(true);
  return r.text;
};

describe("an agent works the pipeline", () => {
  test("tools are listed by scope: a read-only key sees only the reads", async () => {
    const all = (await owner.listTools()).tools.filter((t) =>
      t.name.match(/^(crm_|contacts_|deals_|pipelines_|scoring_rules_)/),
    );
    expect(all.length).toBe(47);
    const ro = (await reader.listTools()).tools
      .map((t) => t.name)
      .filter((n) => n.match(/^(crm_|contacts_|deals_|pipelines_|scoring_rules_)/))
      .sort();
    expect(ro).toEqual([
      "contacts_get",
      "contacts_list",
      "crm_activities_list",
      "crm_companies_get",
      "crm_companies_list",
      "crm_duplicates_find",
      "crm_fields_list",
      "crm_merges_list",
      "crm_search",
      "crm_timeline_get",
      "crm_views_list",
      "deals_get",
      "deals_list",
      "pipelines_forecast",
      "pipelines_get",
      "pipelines_list",
      "scoring_rules_list",
    ]);
  });

  test("idempotent create, duplicate answer, a deal from lead to won, search", async () => {
    const args = { firstName: "Noor", lastName: "Haddad", emails: ["noor@dunes.example"], idempotencyKey: "form-77" };
    const first = await tool(owner, "contacts_create", args);
    expect(first).toMatchObject({ created: true, name: "Noor Haddad" });
    expect(await tool(owner, "contacts_create", args)).toMatchObject({ id: first.id, replayed: true });
    const dup = await tool(owner, "contacts_create", { firstName: "N.", emails: ["Noor@Dunes.example"] });
    expect(dup).toMatchObject({ id: first.id, created: false });
    const p = await tool(owner, "pipelines_create", { name: "New business" });
    const d = await tool(owner, "deals_create", {
      name: "Brand refresh",
      amountCents: 4_200_000,
      currency: "GBP",
      contactIds: ["noor@dunes.example"],
      expectedClose: "2025-04-15",
    });
    expect(d).toMatchObject({ pipelineId: p.id, stage: "Lead" });
    for (const stage of ["Qualified", "Proposal", "Negotiation"])
      await tool(owner, "deals_move_stage", { id: d.id, stage });
    expect(await tool(owner, "deals_move_stage", { id: d.id, stage: "Won", fromStage: "Negotiation" })).toMatchObject({
      status: "won",
    });
    const got = await tool(owner, "deals_get", { id: d.id });
    expect(got.stageHistory.map((h: any) => h.to)).toEqual(["Lead", "Qualified", "Proposal", "Negotiation", "Won"]);
    const fc = await tool(owner, "pipelines_forecast", { id: p.id, months: 2 });
    expect(fc.currencies[0].months[0]).toEqual({ month: "2025-03", weightedCents: 0, wonCents: 4_200_000 });
    expect((await tool(reader, "crm_search", { q: "HADDAD" })).items).toEqual([
      { type: "contact", id: first.id, name: "Noor Haddad", detail: "noor@dunes.example" },
    ]);
    const ev = await rows(s.deps, "SELECT type FROM events WHERE type LIKE 'deal.%' ORDER BY id");
    expect(ev.map((e) => e.type)).toEqual([
      "deal.created",
      "deal.stage_changed",
      "deal.stage_changed",
      "deal.stage_changed",
      "deal.stage_changed",
    ]);
  });

  test("hostile and malformed arguments are clear errors, never a 500", async () => {
    expect(await fails(owner, "contacts_create", { firstName: "A", emails: "noor@dunes.example" })).toContain("emails");
    expect(await fails(owner, "contacts_list", { custom: { "a'b": "x" } })).toContain("no field key");
    expect(await fails(owner, "deals_create", { name: "x", amountCents: Number.MAX_SAFE_INTEGER })).toContain(
      "amountCents",
    );
    expect(await fails(owner, "contacts_import", { csv: "x".repeat(6 * 1024 * 1024) })).toContain("5 MB");
    expect(await fails(owner, "crm_search", { q: "" })).toContain("q");
    expect((await tool(owner, "crm_search", { q: "'; DROP TABLE crm_contacts; --" })).items).toEqual([]);
  });

  test("a retried import with its idempotency key adds nothing twice (contacts without email included)", async () => {
    const args = { csv: "First name,Last name\nWalk,In\nNo,Email", dryRun: false, idempotencyKey: "upload-9" };
    const first = await tool(owner, "contacts_import", args);
    expect(first).toMatchObject({ created: 2, refused: 0 });
    expect(await tool(owner, "contacts_import", args)).toMatchObject({ created: 2, replayed: true });
    expect((await tool(owner, "contacts_list", { q: "walk in" })).total).toBe(1);
  });

  test("the decay job runs on the real server", async () => {
    const c = await tool(owner, "contacts_create", { firstName: "Job", emails: ["job@x.example"] });
    await tool(owner, "scoring_rules_create", { name: "Calls", activityKind: "call", points: 20, decayDays: 4 });
    await tool(owner, "crm_activities_create", { kind: "call", contactId: c.id });
    expect((await tool(owner, "contacts_get", { id: c.id })).score).toBe(20);
    s.clock.advance(24 * 3600_000 + 1000);
    await s.jobs.runDue();
    expect((await tool(owner, "contacts_get", { id: c.id })).score).toBe(15);
  });
});

describe("roles, scopes and tenancy", () => {
  test("a viewer reads but cannot write, and nothing is committed", async () => {
    expect((await tool(viewer, "contacts_list", {})).total).toBeGreaterThan(0);
    const before = commits(s.deps);
    expect(await fails(viewer, "contacts_create", { firstName: "V" })).toContain("Forbidden");
    expect(commits(s.deps)).toBe(before);
    await expect(reader.callTool({ name: "contacts_create", arguments: { firstName: "R" } })).rejects.toThrow(
      "contacts_create needs the crm:write scope",
    );
  });

  test("another company's CRM is separate and unreachable", async () => {
    const theirs = await tool(multi, "contacts_create", {
      clientId: other.id,
      firstName: "Secret",
      emails: ["noor@dunes.example"],
    });
    expect(theirs.created).toBe(true);
    expect(await fails(owner, "contacts_get", { id: theirs.id })).toContain("not found");
    expect((await tool(owner, "crm_search", { q: "secret" })).items).toEqual([]);
    expect(await fails(multi, "contacts_list", {})).toContain("clientId");
  });
});
