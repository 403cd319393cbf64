/**
 * The CRM pages in headless Chromium (issue 31): contacts and companies with
 * search and saved views, a contact's and a company's page with the
 * timeline, the pipeline board and the forecast chart, against a real server
 * whose data an agent made over MCP. A viewer sees and cannot act (no forms;
 * a post is refused); an owner moves deals and the move shows over MCP
 * (deals_get); a lost stage without a reason is refused with the reason;
 * another company's ids are 404; planted markup stays text; a post without
 * the CSRF token or from another site is refused; axe-core finds nothing
 * serious on any page; at 390 px nothing overflows sideways. Screenshots of
 * every page at 1280 and 390 px go to test-artifacts/ (docs/img/ keeps one
 * each with PLINTH_DOC_SHOTS). Runs on SQLite and, through
 * scripts/with-postgres.ts, on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import {
  ARTIFACTS,
  checkEveryPage,
  expectForgedPostsRefused,
  launchChromium,
  signInAs,
} from "../fixtures/portal-browser";
import { toolOk } from "../fixtures/accounts";
import { type CrmWorld, crmWorld, PASSWORD, XSS_NAME } from "./portal-world";

let w: CrmWorld;
let browser: Browser;

beforeAll(async () => {
  w = await crmWorld();
  browser = await launchChromium();
  mkdirSync(ARTIFACTS, { recursive: true });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await w?.s.stop();
});

const signIn = (email: string, width = 1280) => signInAs(browser, w.s.url, email, PASSWORD, width);

/** A hand-made post from a signed-in page, with its token and origin unless told otherwise. */
async function post(page: Page, path: string, form: Record<string, string>, origin = w.s.url) {
  const csrf = await page.locator('header input[name="_csrf"]').first().inputValue();
  return page.request.post(`${w.s.url}${path}`, {
    form: { _csrf: csrf, ...form },
    headers: { Origin: origin },
    maxRedirects: 0,
  });
}

const stageOf = async (id: number) => (await toolOk(w.olga, "deals_get", { id })).stage as string;
const stageId = async (name: string) =>
  (await toolOk(w.olga, "pipelines_get", { id: w.pipeline })).stages.find((s: { name: string }) => s.name === name)
    .id as number;

describe("crm pages", () => {
  test("every page: strict CSP, no serious axe findings, screenshots, no overflow at 390 px", async () => {
    const pages: [name: string, path: string][] = [
      ["contacts", "/crm/contacts"],
      ["contact", `/crm/contacts/${w.contacts.anna}`],
      ["companies", "/crm/companies"],
      ["company", `/crm/companies/${w.companies.lumen}`],
      ["pipeline", "/crm/pipeline"],
      ["forecast", "/crm/forecast"],
    ];
    await checkEveryPage({
      browser,
      base: w.s.url,
      password: PASSWORD,
      prefix: "crm",
      pages,
      emails: ["olga@acme.test"],
      also: async (page) => expect(await page.locator('nav.main a[aria-current="page"]').innerText()).toBe("CRM"),
    });
  }, 120_000);

  test("contacts: search, a saved view and pages of 20 give what contacts_list gives", async () => {
    const { ctx, page } = await signIn("vic@acme.test");
    await page.goto(`${w.s.url}/crm/contacts`);
    const names = () => page.locator("#contacts tbody td:first-child a").allInnerTexts();
    expect((await names()).length).toBe(5);
    await page.fill("#q", "lumenbakery");
    await Promise.all([page.waitForURL(/q=lumenbakery/), page.click('form[method="get"] button')]);
    const searched = (await toolOk(w.olga, "contacts_list", { q: "lumenbakery" })).items.map(
      (c: { name: string }) => c.name,
    );
    expect(await names()).toEqual(searched);
    expect(searched.sort()).toEqual(["Anna Baker", "Ben Crumb"]);
    await page.goto(`${w.s.url}/crm/contacts`);
    await page.locator("#view").selectOption({ label: "Wholesale people" });
    await Promise.all([page.waitForURL(/view=/), page.click('form[method="get"] button')]);
    const viewed = (await toolOk(w.olga, "contacts_list", { viewId: w.view })).items.map(
      (c: { name: string }) => c.name,
    );
    expect(await names()).toEqual(viewed);
    expect(viewed.length).toBe(2);
    // A view id of another company is not found inside the view lookup.
    expect((await page.goto(`${w.s.url}/crm/contacts?view=999999`))!.status()).toBe(404);
    await page.goto(`${w.s.url}/crm/contacts?q=${encodeURIComponent("nobody-like-this")}`);
    expect(await page.locator("main").innerText()).toContain("No contacts match.");
    // Paging: 20 more contacts make 25, two pages of 20.
    for (let i = 0; i < 20; i++)
      await toolOk(w.olga, "contacts_create", { firstName: `Pager${i}`, lastName: "Person" });
    await page.goto(`${w.s.url}/crm/contacts?q=pager`);
    expect((await names()).length).toBe(20);
    await page.goto(`${w.s.url}/crm/contacts?q=pager&page=2`);
    expect(await names()).toEqual([]);
    await page.goto(`${w.s.url}/crm/contacts?page=2`);
    expect((await names()).length).toBe(5);
    await ctx.close();
  }, 60_000);

  test("a contact's and a company's page: details, deals and the timeline from crm_timeline_get", async () => {
    const { ctx, page } = await signIn("vic@acme.test");
    await page.goto(`${w.s.url}/crm/contacts/${w.contacts.anna}`);
    expect(await page.locator("h1").innerText()).toBe("Anna Baker");
    expect(await page.locator("aside dl.facts").innerText()).toContain("anna@lumenbakery.example");
    const tl = await toolOk(w.olga, "crm_timeline_get", { contactId: w.contacts.anna, limit: 50 });
    const items = await page.locator("#timeline li").allInnerTexts();
    expect(items.length).toBe(tl.items.length);
    expect(items.join("\n")).toContain("Talked through the spring order");
    expect(items.join("\n")).toContain("Wants <b>oat milk</b> pricing.");
    expect(items.join("\n")).toContain("Deal Lumen winter order moved from Negotiation to Won");
    expect(await page.locator("#deals tbody tr").count()).toBe(2);
    expect(await page.locator("#deals").innerText()).toContain("£12,500");
    await page.goto(`${w.s.url}/crm/companies/${w.companies.lumen}`);
    expect(await page.locator("h1").innerText()).toBe("Lumen Bakery");
    expect(await page.locator("#people li").count()).toBe(4);
    expect(await page.locator("#deals tbody tr").count()).toBe(3);
    const ctl = await toolOk(w.olga, "crm_timeline_get", { companyId: w.companies.lumen, limit: 50 });
    expect(await page.locator("#timeline li").count()).toBe(ctl.items.length);
    await page.goto(`${w.s.url}/crm/companies?q=lumen`);
    expect(await page.locator("#companies tbody td:first-child a").allInnerTexts()).toEqual(["Lumen Bakery"]);
    await ctx.close();
  }, 30_000);

  test("the board: a column per stage with its count and totals per currency, as pipelines_get counts", async () => {
    const { ctx, page } = await signIn("vic@acme.test");
    await page.goto(`${w.s.url}/crm/pipeline`);
    const pipe = await toolOk(w.olga, "pipelines_get", { id: w.pipeline });
    expect(await page.locator("section.column h2").allInnerTexts()).toEqual(
      pipe.stages.map((s: { name: string }) => s.name),
    );
    for (const s of pipe.stages) {
      const col = page.locator(`section.column[data-stage="${s.id}"]`);
      expect(await col.locator(".kcard").count()).toBe(s.deals);
      expect(await col.locator(".column-head .badge").innerText()).toBe(String(s.deals));
    }
    const lead = page.locator(`section.column[data-stage="${await stageId("Lead")}"]`);
    expect(await lead.locator(".stage-total").innerText()).toBe("£3,100 · 10%");
    const qualified = page.locator(`section.column[data-stage="${await stageId("Qualified")}"]`);
    expect(await qualified.locator(".stage-total").innerText()).toBe("US$5,000 · 25%");
    // A viewer gets no forms, and a post is refused by the verb's role check.
    expect(await page.locator("main form").count()).toBe(0);
    expect(await page.locator("main").innerText()).toContain("owners and admins move deals");
    const res = await post(page, `/crm/pipeline/${w.pipeline}/move`, {
      deal: String(w.deals.small),
      stage: String(await stageId("Won")),
    });
    expect(res.status()).toBe(403);
    expect(await stageOf(w.deals.small)).toBe("Lead");
    await ctx.close();
  }, 30_000);

  test("an owner moves deals; a lost stage needs a reason; MCP deals_get sees each move", async () => {
    const { ctx, page, seen } = await signIn("olga@acme.test");
    await page.goto(`${w.s.url}/crm/pipeline/${w.pipeline}`);
    const card = page.locator(`li.kcard[data-deal="${w.deals.small}"]`);
    await card.locator("select").selectOption({ label: "Negotiation" });
    await Promise.all([page.waitForURL(/done=moved/), card.locator('button[type="submit"]').click()]);
    expect(await stageOf(w.deals.small)).toBe("Negotiation");
    expect(await page.locator(".notice.ok").innerText()).toBe("Deal moved.");
    const neg = await stageId("Negotiation");
    expect(
      await page.locator(`section.column[data-stage="${neg}"] li.kcard[data-deal="${w.deals.small}"]`).count(),
    ).toBe(1);
    // Lost without a reason: refused with the reason beside the board, nothing changes.
    const again = page.locator(`li.kcard[data-deal="${w.deals.small}"]`);
    await again.locator("select").selectOption({ label: "Lost (lost)" });
    const [bad] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith("/move")),
      again.locator('button[type="submit"]').click(),
    ]);
    expect(bad.status()).toBe(400);
    expect(await page.locator(".notice.error").innerText()).toContain("say why in the reason field");
    expect(await stageOf(w.deals.small)).toBe("Negotiation");
    // With a reason it moves, and the reason is the deal's.
    const third = page.locator(`li.kcard[data-deal="${w.deals.small}"]`);
    await third.locator("select").selectOption({ label: "Lost (lost)" });
    await third.locator('input[name="reason"]').fill("Went with a cheaper roaster");
    await Promise.all([page.waitForURL(/done=moved/), third.locator('button[type="submit"]').click()]);
    const got = await toolOk(w.olga, "deals_get", { id: w.deals.small });
    expect(got).toMatchObject({ stage: "Lost", status: "lost", lostReason: "Went with a cheaper roaster" });
    expect(await page.locator(`li.kcard[data-deal="${w.deals.small}"] .lost-reason`).innerText()).toBe(
      "Lost: Went with a cheaper roaster",
    );
    // A stale form (someone moved the deal since) is a conflict with the verb's reason, not a silent overwrite.
    const stale = await post(page, `/crm/pipeline/${w.pipeline}/move`, {
      deal: String(w.deals.small),
      from: String(await stageId("Lead")),
      stage: String(await stageId("Proposal")),
    });
    expect(stale.status()).toBe(409);
    expect(await stale.text()).toContain("someone moved it");
    expect(await stageOf(w.deals.small)).toBe("Lost");
    // Bad input is a 400 with a reason, never a 500.
    const badForms: Record<string, string>[] = [
      { deal: "x", stage: "1" },
      { deal: String(w.deals.small), stage: "999999" },
      { stage: "1" },
    ];
    for (const form of badForms) {
      const r = await post(page, `/crm/pipeline/${w.pipeline}/move`, form);
      expect({ form, status: r.status() }).toEqual({ form, status: 400 });
    }
    expect(seen.dialogs).toEqual([]);
    await ctx.close();
  }, 60_000);

  test("the forecast draws weighted and won per month for each currency, with the numbers of pipelines_forecast", async () => {
    const { ctx, page } = await signIn("vic@acme.test");
    await page.goto(`${w.s.url}/crm/forecast?pipeline=${w.pipeline}`);
    const from = new URL(page.url()).searchParams.get("from");
    expect(from).toBeNull();
    const now = new Date();
    const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 5, 1)).toISOString().slice(0, 7);
    const f = await toolOk(w.olga, "pipelines_forecast", { id: w.pipeline, from: start, months: 12 });
    expect(f.currencies.map((c: { currency: string }) => c.currency)).toEqual(["GBP", "USD"]);
    for (const cur of f.currencies) {
      const fig = page.locator(`#forecast-${cur.currency}`);
      expect(await fig.locator(".chart-svg").getAttribute("aria-label")).toContain(`in ${cur.currency}`);
      expect(await fig.locator("svg g.mark-rect path").count()).toBeGreaterThan(0);
      const rows = await fig.locator("table tbody tr").allInnerTexts();
      expect(rows.length).toBe(12);
      cur.months.forEach((m: { month: string; weightedCents: number; wonCents: number }, i: number) => {
        const cells = rows[i]!.split("\t");
        expect(cells[0]).toBe(m.month);
        expect(Number(cells[1]!.replace(/,/g, ""))).toBe(m.weightedCents / 100);
        expect(Number(cells[2]!.replace(/,/g, ""))).toBe(m.wonCents / 100);
      });
    }
    // The won deal shows in this month's row.
    const gbp = f.currencies[0];
    expect(gbp.months.find((m: { month: string }) => m.month === now.toISOString().slice(0, 7)).wonCents).toBe(800_000);
    expect((await page.goto(`${w.s.url}/crm/forecast?from=nonsense`))!.status()).toBe(200);
    await ctx.close();
  }, 30_000);

  test("planted markup stays text on the lists, the pages, the board and the timeline", async () => {
    const { ctx, page, seen } = await signIn("olga@acme.test");
    await page.goto(`${w.s.url}/crm/contacts?q=planted`);
    expect(await page.locator("#contacts tbody td:first-child a").allInnerTexts()).toEqual([XSS_NAME]);
    await page.goto(`${w.s.url}/crm/contacts/${w.contacts.hostile}`);
    expect(await page.locator("h1").innerText()).toBe(XSS_NAME);
    expect(await page.locator("#timeline").innerText()).toContain(XSS_NAME);
    await page.goto(`${w.s.url}/crm/companies/${w.companies.hostile}`);
    expect(await page.locator("h1").innerText()).toBe(XSS_NAME);
    await page.goto(`${w.s.url}/crm/pipeline`);
    expect(await page.locator(`li.kcard[data-deal="${w.deals.hostile}"] .kcard-title`).innerText()).toBe(XSS_NAME);
    expect(await page.locator("main img, main script").count()).toBe(0);
    expect(seen.dialogs).toEqual([]);
    expect(seen.errors).toEqual([]);
    await ctx.close();
  }, 30_000);

  test("another company's contact, company, pipeline and deal are 404 both ways", async () => {
    const rita = await signIn("rita@rival.test");
    for (const path of [
      `/crm/contacts/${w.contacts.anna}`,
      `/crm/companies/${w.companies.lumen}`,
      `/crm/pipeline/${w.pipeline}`,
      `/crm/forecast?pipeline=${w.pipeline}`,
      `/crm/contacts?view=${w.view}`,
      "/crm/contacts/abc",
      "/crm/contacts/0",
    ]) {
      const res = await rita.page.goto(`${w.s.url}${path}`);
      expect({ path, status: res!.status() }).toEqual({ path, status: 404 });
      expect(await rita.page.locator("main").innerText()).not.toContain("Lumen");
    }
    await rita.page.goto(`${w.s.url}/crm/pipeline`);
    expect(await rita.page.locator(".kcard .kcard-title").allInnerTexts()).toEqual(["Rival secret deal"]);
    await rita.page.goto(`${w.s.url}/crm/contacts`);
    expect(await rita.page.locator("#contacts tbody td:first-child a").allInnerTexts()).toEqual(["Rival Secret"]);
    const olga = await signIn("olga@acme.test");
    for (const path of [
      `/crm/contacts/${w.rival.contact}`,
      `/crm/companies/${w.rival.company}`,
      `/crm/pipeline/${w.rival.pipeline}`,
    ])
      expect({ path, status: (await olga.page.goto(`${w.s.url}${path}`))!.status() }).toEqual({ path, status: 404 });
    // Rival's deal moved from Acme's board, or through Rival's pipeline id: not found, nothing changes.
    await olga.page.goto(`${w.s.url}/crm/pipeline`);
    const rivalStage = (await toolOk(w.rita, "pipelines_get", { id: w.rival.pipeline })).stages[1].id;
    for (const [pipe, stage] of [
      [w.pipeline, await stageId("Qualified")],
      [w.rival.pipeline, rivalStage],
    ]) {
      const r = await post(olga.page, `/crm/pipeline/${pipe}/move`, {
        deal: String(w.rival.deal),
        stage: String(stage),
      });
      expect({ pipe, status: r.status() }).toEqual({ pipe, status: 404 });
    }
    expect((await toolOk(w.rita, "deals_get", { id: w.rival.deal })).stage).toBe("Lead");
    // Acme's own deal through Acme's other pipeline's path is not on that board: 404, not a move.
    const renewalStage = (await toolOk(w.olga, "pipelines_get", { id: w.renewals })).stages[1].id;
    const other = await post(olga.page, `/crm/pipeline/${w.renewals}/move`, {
      deal: String(w.deals.usd),
      stage: String(renewalStage),
    });
    expect(other.status()).toBe(404);
    expect(await stageOf(w.deals.usd)).toBe("Qualified");
    await rita.ctx.close();
    await olga.ctx.close();
  }, 30_000);

  test("a post without the CSRF token, or from another site, is refused", async () => {
    const { ctx, page } = await signIn("olga@acme.test");
    await page.goto(`${w.s.url}/crm/pipeline`);
    const form = { deal: String(w.deals.usd), stage: String(await stageId("Proposal")) };
    await expectForgedPostsRefused(page, w.s.url, `/crm/pipeline/${w.pipeline}/move`, form);
    expect(await stageOf(w.deals.usd)).toBe("Qualified");
    await ctx.close();
  }, 30_000);
});
