/**
 * Over the real wire, on a freshly seeded server: the agency's owner bills
 * Northwind in the portal (settings, a subscription, a draft with a line,
 * issue, mark paid, the PDF), a viewer sees but cannot act, and an agent
 * with the official MCP SDK client reads the result — and the demo's
 * billing and hosting history — but has no tool that writes billing.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/client";
import { eq } from "drizzle-orm";
import { DEMO_EMAIL, VIEWER_EMAIL } from "../../db/seed/demo";
import { companies, users } from "../../src/core/tables";
import { callTool, mcpClient, mintMcpKey, toolOk } from "../fixtures/accounts";
import { startTestServer, type TestServer } from "../harness";
import { Browser, pageText, readForms } from "../oauth/helpers";

let s: TestServer;
let owner: Browser;
let viewer: Browser;
let agent: Client;
let harborAgent: Client;
let northwind: number;
let harbor: number;

const companyId = async (name: string) =>
  (await s.deps.db.select().from(companies).where(eq(companies.name, name)).limit(1))[0]!.id;
const tool = (name: string, args: Record<string, unknown> = {}, c = agent) => toolOk(c, name, args);

async function submit(b: Browser, pick: (f: { action: string }) => boolean, values: Record<string, string> = {}) {
  const form = (await readForms(await (await b.get("/billing")).text())).find(pick);
  if (!form) throw new Error("no matching form on /billing");
  const fields: Record<string, string | string[]> = {};
  for (const f of form.fields)
    if (f.type !== "submit" && (f.type !== "checkbox" || f.checked)) fields[f.name] = f.value;
  return b.post(form.action, { ...fields, ...values });
}

beforeAll(async () => {
  s = await startTestServer({ seed: true, config: { mcpRateLimit: 100_000 } });
  northwind = await companyId("Northwind Studio");
  harbor = await companyId("Harbor Coffee Roasters");
  owner = new Browser(s.config.publicUrl);
  viewer = new Browser(s.config.publicUrl);
  expect((await owner.signIn(DEMO_EMAIL, s.demo!.password)).status).toBe(303);
  expect((await viewer.signIn(VIEWER_EMAIL, s.demo!.password)).status).toBe(303);
  for (const b of [owner, viewer])
    expect((await b.post("/company", { _csrf: await b.csrf("/"), company_id: String(northwind) })).status).toBe(303);
  const demo = (await s.deps.db.select().from(users).where(eq(users.email, DEMO_EMAIL)))[0]!;
  // An agent key with every scope: billing stays read-only for it anyway.
  agent = await mcpClient(
    s.url,
    (await mintMcpKey(s.deps, { userId: demo.id, scopes: ["*"], companyIds: [northwind] })).key,
  );
  harborAgent = await mcpClient(
    s.url,
    (await mintMcpKey(s.deps, { userId: demo.id, scopes: ["billing:read", "hosting:read"], companyIds: [harbor] })).key,
  );
});
afterAll(async () => {
  await agent?.close();
  await harborAgent?.close();
  await s.stop();
});

describe("the demo", () => {
  test("each company has a subscription invoiced each period; Harbor owes one overdue period with a service request on it", async () => {
    const statuses = async (c: Client) => {
      const subs = await tool("subscriptions_list", {}, c);
      expect(subs.total).toBe(1);
      return (await tool("invoices_list", { subscriptionId: subs.items[0].id }, c)).items.map((i: any) => i.status);
    };
    expect(await statuses(agent)).toEqual(["open", "paid", "paid"]);
    expect(await statuses(harborAgent)).toEqual(["open", "overdue", "paid"]);
    const overdue = (await tool("invoices_list", { status: "overdue" }, harborAgent)).items;
    expect(overdue).toHaveLength(1);
    const inv = await tool("invoices_get", { id: overdue[0].id }, harborAgent);
    expect(inv.lines.map((l: any) => l.kind)).toEqual(["subscription", "service"]);
    expect(inv.lines[0]).toMatchObject({ amountCents: 120_000, quantity: 1 });
    const subtotal = 120_000 + inv.lines[1].amountCents;
    // 5.5 % sales tax, half up.
    expect(inv).toMatchObject({
      subtotalCents: subtotal,
      taxCents: Math.floor((subtotal * 550 + 5_000) / 10_000),
      taxRate: 5.5,
    });
    // The one-off: $850.00 + 24 × $12.50 = $1 150.00; 5.5 % = $63.25; total $1 213.25, open.
    const oneOff = (await tool("invoices_list", { status: "open" }, harborAgent)).items.find(
      (i: any) => !i.subscriptionId,
    );
    expect(oneOff).toMatchObject({ subtotalCents: 115_000, taxCents: 6_325, totalCents: 121_325 });
    expect((await tool("invoices_list", { status: "draft" }, harborAgent)).total).toBe(1);
    // Numbers follow issue dates.
    const all = (await tool("invoices_list", { limit: 100 }, harborAgent)).items.filter((i: any) => i.number);
    const byDate = [...all].sort((a: any, b: any) => a.issuedAt.localeCompare(b.issuedAt)).map((i: any) => i.number);
    expect(byDate).toEqual([...byDate].sort());
    // Northwind: 2 × $450 a month, no tax.
    expect((await tool("billing_summary")).monthlyRecurringCents).toBe(90_000);
  });

  test("Harbor's domains have a week of uptime history and a resolved incident", async () => {
    const l = await tool("hosting_domains_list", {}, harborAgent);
    expect(l.items.map((d: any) => d.hostname)).toEqual(["harborcoffee.example", "www.harborcoffee.example"]);
    const inc = await tool("hosting_incidents_list", {}, harborAgent);
    expect(inc.items).toHaveLength(1);
    expect(inc.items[0]).toMatchObject({ hostname: "www.harborcoffee.example", status: "resolved", cause: "HTTP 502" });
    const up = (await tool("hosting_uptime_get", { hostname: "www.harborcoffee.example", days: 7 }, harborAgent))
      .items[0];
    expect(up.checks).toBeGreaterThan(1000);
    expect(up.uptimePercent).toBeGreaterThan(99);
    expect(up.uptimePercent).toBeLessThan(100);
    expect((await tool("hosting_domains_get", { hostname: "www.harborcoffee.example" }, harborAgent)).dns).toBe(
      "misconfigured",
    );
    expect((await tool("hosting_domains_get", { hostname: "northwind.example" })).certificate.daysLeft).toBe(9);
  });
});

describe("billing in the portal", () => {
  test("the owner sets terms, starts a subscription, drafts, issues and is paid; the agent reads it all", async () => {
    expect(
      (
        await submit(owner, (f) => f.action === "/billing/settings", {
          hourly_rate: "150",
          tax_rate: "7.5",
          tax_name: "GST",
          terms: "10",
        })
      ).status,
    ).toBe(303);
    expect(
      (
        await submit(owner, (f) => f.action === "/billing/subscriptions", {
          plan: "SEO <b>boost</b>",
          price: "99.90",
          interval: "year",
        })
      ).status,
    ).toBe(303);
    const drafted = await submit(owner, (f) => f.action === "/billing/invoices", {
      description: "<script>alert(1)</script> workshop",
      quantity: "3",
      unit_price: "1,250.05",
      include_usage: "",
    });
    expect(drafted.status).toBe(303);
    let page = await (await owner.get("/billing?done=created")).text();
    expect(page).not.toContain("<script>alert(1)");
    expect(page).toContain("SEO &lt;b&gt;boost&lt;/b&gt;");
    const draft = (await tool("invoices_list", { status: "draft" })).items[0];
    // 3 × $1 250.05 = $3 750.15; GST 7.5 % = 281.26125 → $281.26; total $4 031.41.
    expect(draft).toMatchObject({
      subtotalCents: 375_015,
      taxCents: 28_126,
      totalCents: 403_141,
      taxName: "GST",
      taxRate: 7.5,
    });
    expect((await submit(owner, (f) => f.action === `/billing/invoices/${draft.id}/issue`)).status).toBe(303);
    const issued = await tool("invoices_get", { id: draft.id });
    expect(issued.number).toMatch(/^INV-\d{6}$/);
    expect(Date.parse(issued.dueAt) - Date.parse(issued.issuedAt)).toBe(10 * 86_400_000);
    expect(issued.lines[0].description).toBe("<script>alert(1)</script> workshop");
    expect(
      (await submit(owner, (f) => f.action === `/billing/invoices/${draft.id}/paid`, { reference: "Stripe ch_123" }))
        .status,
    ).toBe(303);
    expect(await tool("invoices_get", { number: issued.number })).toMatchObject({
      status: "paid",
      paymentReference: "Stripe ch_123",
    });
    page = await pageText(await (await owner.get("/billing")).text());
    expect(page).toContain(issued.number);

    const pdf = await owner.get(`/billing/invoices/${draft.id}/pdf`);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get("content-type")).toBe("application/pdf");
    expect(
      Buffer.from(await pdf.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe("%PDF-");
    expect((await tool("invoices_pdf", { id: draft.id })).url).toBe(
      `${s.config.publicUrl}/billing/invoices/${draft.id}/pdf`,
    );
  });

  test("bad amounts re-show the page with the reason and write nothing", async () => {
    const before = (await tool("invoices_list")).total;
    const r = await submit(owner, (f) => f.action === "/billing/invoices", { description: "x", unit_price: "12.345" });
    expect(r.status).toBe(400);
    expect(await pageText(await r.text())).toContain("Unit price must be an amount like 1250 or 1250.50.");
    expect((await submit(owner, (f) => f.action === "/billing/settings", { tax_rate: "-3" })).status).toBe(400);
    expect((await tool("invoices_list")).total).toBe(before);
  });

  test("a viewer sees billing but has no forms, and a crafted post is refused", async () => {
    const html = await (await viewer.get("/billing")).text();
    expect(await pageText(html)).toContain("Billing of Northwind Studio");
    expect((await readForms(html)).some((f) => f.action.startsWith("/billing/"))).toBe(false);
    const draft = (await tool("invoices_list", { status: "draft" }, harborAgent)).items[0];
    const own = (await tool("invoices_list", {})).items[0];
    const r = await viewer.post(`/billing/invoices/${own.id}/void`, { _csrf: await viewer.csrf("/") });
    expect(r.status).toBe(403);
    // Another company's invoice is not found, in the PDF route too.
    expect((await owner.get(`/billing/invoices/${draft.id}/pdf`)).status).toBe(404);
    expect((await owner.post(`/billing/invoices/${draft.id}/issue`, { _csrf: await owner.csrf("/") })).status).toBe(
      404,
    );
    // Without the session's CSRF token nothing happens.
    expect((await owner.post(`/billing/invoices/${own.id}/void`, {})).status).toBe(403);
  });

  test("over MCP the billing and hosting toolsets only read, whatever the key's scopes", async () => {
    const tools = (await agent.listTools()).tools.filter((t) =>
      ["subscriptions_", "invoices_", "billing_", "hosting_"].some((p) => t.name.startsWith(p)),
    );
    expect(tools.map((t) => t.name).sort()).toEqual([
      "billing_summary",
      "hosting_checks_list",
      "hosting_domains_get",
      "hosting_domains_list",
      "hosting_incidents_list",
      "hosting_uptime_get",
      "invoices_get",
      "invoices_list",
      "invoices_pdf",
      "subscriptions_get",
      "subscriptions_list",
    ]);
    expect(tools.every((t) => t.annotations?.readOnlyHint === true)).toBe(true);
    const r = await callTool(harborAgent, "invoices_get", { id: (await tool("invoices_list")).items[0].id });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/not found/);
  });
});
