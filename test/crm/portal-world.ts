/**
 * A real server for the CRM pages: Acme (owner Olga, viewer Vic) with two
 * companies (one with a planted name), contacts, a saved view, activities,
 * deals in pounds and dollars across the default pipeline's stages (one of
 * them won this month), and Rival (owner Rita) with a contact, a company, a
 * pipeline and a deal of its own. Everything is made over MCP with a real SDK
 * client, as an agent would; people sign in to the portal with passwords.
 */
import type { Client } from "@modelcontextprotocol/client";
import { addMember, createCompany, createUser, mcpClient, mintMcpKey, toolOk } from "../fixtures/accounts";
import { startTestServer, type TestServer } from "../harness";

export const PASSWORD = "a long passphrase for tests";
export const XSS_NAME = `<script>alert(1)</script> "><img src=x onerror=alert(2)>`;

export interface CrmWorld {
  s: TestServer;
  olga: Client;
  rita: Client;
  pipeline: number;
  /** A second Acme pipeline: a deal of the first is not on its board. */
  renewals: number;
  deals: { big: number; small: number; hostile: number; usd: number };
  contacts: { anna: number; hostile: number };
  companies: { lumen: number; hostile: number };
  view: number;
  rival: { pipeline: number; deal: number; contact: number; company: number };
}

export async function crmWorld(): Promise<CrmWorld> {
  const s = await startTestServer({ seed: false, config: { rateLimit: 100_000 } });
  const mk = (email: string, name: string) => createUser(s.deps, { email, name, password: PASSWORD });
  const olga = await mk("olga@acme.test", "Olga Owner");
  const vic = await mk("vic@acme.test", "Vic Viewer");
  const rita = await mk("rita@rival.test", "Rita Rival");
  const acme = await createCompany(s.deps, { name: "Acme", ownerUserId: olga.id });
  const rival = await createCompany(s.deps, { name: "Rival", ownerUserId: rita.id });
  await addMember(s.deps, acme.id, vic.id, "viewer");
  const key = async (userId: number, companyId: number) =>
    (await mintMcpKey(s.deps, { userId, scopes: ["*"], companyIds: [companyId] })).key;
  const o = await mcpClient(s.url, await key(olga.id, acme.id));
  const r = await mcpClient(s.url, await key(rita.id, rival.id));
  const call = (name: string, args: Record<string, unknown>, c = o) => toolOk(c, name, args);
  const month = (n: number) => {
    const d = new Date();
    return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + n, 15)).toISOString().slice(0, 10);
  };

  const pipeline = (await call("pipelines_create", { name: "New business" })).id as number;
  const renewals = (await call("pipelines_create", { name: "Renewals" })).id as number;
  const lumen = (
    await call("crm_companies_create", {
      name: "Lumen Bakery",
      domain: "lumenbakery.example",
      industry: "Food",
      size: "11-50",
    })
  ).id as number;
  const hostileCo = (await call("crm_companies_create", { name: XSS_NAME, domain: "planted.example" })).id as number;
  const anna = (
    await call("contacts_create", {
      firstName: "Anna",
      lastName: "Baker",
      emails: ["anna@lumenbakery.example"],
      jobTitle: "Owner",
      companyId: lumen,
      tags: ["wholesale"],
      lifecycleStage: "customer",
    })
  ).id as number;
  for (const [first, last, email, tags] of [
    ["Ben", "Crumb", "ben@lumenbakery.example", ["wholesale"]],
    ["Cara", "Dough", "cara@example.org", []],
    ["Dev", "Espresso", "dev@example.net", ["event"]],
  ] as [string, string, string, string[]][])
    await call("contacts_create", { firstName: first, lastName: last, emails: [email], tags, companyId: lumen });
  const hostile = (
    await call("contacts_create", { firstName: XSS_NAME, emails: ["planted@planted.example"], companyId: hostileCo })
  ).id as number;
  const view = (
    await call("crm_views_create", { object: "contact", name: "Wholesale people", filters: { tag: "wholesale" } })
  ).id as number;
  await call("crm_activities_create", {
    kind: "call",
    subject: "Talked through the spring order",
    body: "Wants <b>oat milk</b> pricing.",
    contactId: anna,
  });
  await call("crm_activities_create", { kind: "note", subject: XSS_NAME, body: XSS_NAME, contactId: hostile });

  const deal = async (name: string, amountCents: number, currency: string, stage: string, extra = {}) =>
    (await call("deals_create", { name, amountCents, currency, pipelineId: pipeline, stage, ...extra })).id as number;
  const big = await deal("Lumen spring order", 1_250_000, "GBP", "Proposal", {
    companyId: lumen,
    contactIds: [anna],
    expectedClose: month(1),
  });
  const small = await deal("Lumen café add-on", 300_000, "GBP", "Lead", { companyId: lumen, expectedClose: month(2) });
  const usd = await deal("Dev's event stand", 500_000, "USD", "Qualified", { expectedClose: month(1) });
  const hostileDeal = await deal(XSS_NAME, 10_000, "GBP", "Lead", { companyId: hostileCo });
  const won = await deal("Lumen winter order", 800_000, "GBP", "Negotiation", { companyId: lumen, contactIds: [anna] });
  await call("deals_move_stage", { id: won, stage: "Won" });

  const rp = (await call("pipelines_create", { name: "Rival pipe" }, r)).id as number;
  const rco = (await call("crm_companies_create", { name: "Rival secret co" }, r)).id as number;
  const rc = (await call("contacts_create", { firstName: "Rival", lastName: "Secret", companyId: rco }, r))
    .id as number;
  const rd = (await call("deals_create", { name: "Rival secret deal", amountCents: 100, pipelineId: rp }, r))
    .id as number;
  return {
    s,
    olga: o,
    rita: r,
    pipeline,
    renewals,
    deals: { big, small, hostile: hostileDeal, usd },
    contacts: { anna, hostile },
    companies: { lumen, hostile: hostileCo },
    view,
    rival: { pipeline: rp, deal: rd, contact: rc, company: rco },
  };
}
