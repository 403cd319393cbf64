/**
 * The email pages in headless Chromium (issue 31): the overview of
 * campaigns and lists, a list's subscribers, and a campaign with its
 * results over time, against a real server where an agent made everything
 * over MCP and a campaign went out over SMTP and was read, clicked and
 * unsubscribed from over HTTP. A viewer sees and cannot act (no forms; a
 * post is refused); an admin pauses, resumes and cancels a schedule and
 * email_campaigns_get over MCP shows each; another company's ids are 404;
 * planted markup stays text; a post without the CSRF token or from another
 * origin is refused; axe-core finds nothing serious; at 390 px nothing
 * overflows sideways. Screenshots go to test-artifacts/ (docs/img/ keeps
 * one each with PLINTH_DOC_SHOTS=1). Runs on SQLite and, through
 * scripts/with-postgres.ts, on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { toolOk } from "../fixtures/accounts";
import {
  ARTIFACTS,
  checkEveryPage,
  expectForgedPostsRefused,
  launchChromium,
  signInAs,
} from "../fixtures/portal-browser";
import { BOUNCER, type EmailPagesWorld, emailPagesWorld, PASSWORD, XSS_CAMPAIGN, XSS_NAME } from "./portal-world";

let w: EmailPagesWorld;
let browser: Browser;

beforeAll(async () => {
  w = await emailPagesWorld();
  browser = await launchChromium();
  mkdirSync(ARTIFACTS, { recursive: true });
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await w?.stop();
}, 30_000);

const signIn = (email: string, width = 1280) => signInAs(browser, w.s.url, email, PASSWORD, width);
const csrfOf = (page: Page) => page.locator('header input[name="_csrf"]').first().inputValue();
const ids = (page: Page, table: string, attr: string) =>
  page
    .locator(`#${table} tbody tr`)
    .evaluateAll((els, a) => els.map((e) => Number((e as HTMLElement).getAttribute(`data-${a}`))), attr);
/** A chart's table as rows of cells (the category, then one figure per series). */
const figures = (page: Page, id: string) =>
  page
    .locator(`#${id} .chart-table tbody tr`)
    .evaluateAll((trs) => trs.map((tr) => [...tr.children].map((td) => (td as HTMLElement).innerText)));
const heads = (page: Page, id: string) => page.locator(`#${id} .chart-table thead th`).allTextContents();

describe("email pages", () => {
  test("every page: strict CSP, no serious axe findings, screenshots, no overflow at 390 px", async () => {
    const pages: [name: string, path: string][] = [
      ["overview", "/email"],
      ["list", `/email/lists/${w.ids.list}`],
      ["campaign", `/email/campaigns/${w.ids.sent}`],
      ["campaign-scheduled", `/email/campaigns/${w.ids.scheduled}`],
      ["campaign-pending", `/email/campaigns/${w.ids.pending}`],
    ];
    await checkEveryPage({
      browser,
      base: w.s.url,
      password: PASSWORD,
      prefix: "email",
      pages,
      emails: ["olga@acme.test", "vic@acme.test"],
      docShot: (name) => (["overview", "list", "campaign"].includes(name) ? `email-${name}.png` : undefined),
    });
  }, 180_000);

  test("the overview lists what email_campaigns_list and email_lists_list list, with states and the approval link", async () => {
    const { ctx, page } = await signIn("vic@acme.test");
    await page.goto(`${w.s.url}/email`);
    const campaigns = (await toolOk(w.olga, "email_campaigns_list", { limit: 100 })).items;
    expect(await ids(page, "campaigns", "campaign")).toEqual(campaigns.map((k: { id: number }) => k.id));
    const lists = (await toolOk(w.olga, "email_lists_list", { limit: 100 })).items;
    expect(await ids(page, "lists", "list")).toEqual(lists.map((l: { id: number }) => l.id));
    const state = (id: number) => page.locator(`tr[data-campaign="${id}"] td:nth-child(2) .badge`);
    expect(await state(w.ids.sent).innerText()).toBe("sent");
    expect(await state(w.ids.sent).getAttribute("class")).toBe("badge ok");
    expect(await state(w.ids.scheduled).innerText()).toBe("scheduled");
    expect(await state(w.ids.pending).innerText()).toBe("awaiting approval");
    expect(await state(w.ids.pending).getAttribute("class")).toBe("badge warn");
    // Only the campaign waiting for a person links to its approval page, and that page is the approval.
    expect(await page.locator("a.approval").count()).toBe(1);
    const link = page.locator(`tr[data-campaign="${w.ids.pending}"] a.approval`);
    expect(await link.getAttribute("href")).toBe(`/approvals/${w.ids.pendingApproval}`);
    await Promise.all([page.waitForURL(/\/approvals\/\d+$/), link.click()]);
    expect(await page.locator("main").innerText()).toContain("Launch <b>now</b>");
    // Subscriber counts per list are the verb's.
    await page.goto(`${w.s.url}/email`);
    const news = lists.find((l: { id: number }) => l.id === w.ids.list);
    const cells = await page.locator(`tr[data-list="${w.ids.list}"] td.num`).allInnerTexts();
    expect(cells).toEqual([
      String(news.counts.subscribed),
      String(news.counts.unconfirmed),
      String(news.counts.unsubscribed),
      String(news.counts.bounced + news.counts.complained),
    ]);
    expect(news.counts).toMatchObject({ subscribed: 7, unsubscribed: 1, bounced: 1 });
    await ctx.close();
  }, 30_000);

  test("a list: its subscribers with their status, search, status filter and paging match email_subscribers_list", async () => {
    const { ctx, page } = await signIn("vic@acme.test");
    const shown = async (query: string) => {
      const res = await page.goto(`${w.s.url}/email/lists/${w.ids.list}${query}`);
      expect({ query, status: res!.status() }).toEqual({ query, status: 200 });
      return ids(page, "subscribers", "subscriber");
    };
    const mcp = async (args: Record<string, unknown>) =>
      (await toolOk(w.olga, "email_subscribers_list", { listId: w.ids.list, limit: 100, ...args })).items.map(
        (x: { id: number }) => x.id,
      );
    expect(await shown("")).toEqual(await mcp({}));
    expect((await shown("")).length).toBe(9);
    expect(await page.locator("[data-status=subscribed] .stat-n").innerText()).toBe("7");
    expect(await shown("?status=bounced")).toEqual(await mcp({ status: "bounced" }));
    expect(await page.locator("#subscribers tbody").innerText()).toContain(BOUNCER);
    expect(await page.locator("#subscribers tbody .badge").first().getAttribute("class")).toBe("badge danger");
    expect(await shown("?status=unsubscribed")).toEqual(await mcp({ status: "unsubscribed" }));
    expect(await shown("?q=CHEN")).toEqual(await mcp({ search: "chen" }));
    expect((await shown("?q=chen")).length).toBe(1);
    expect(await shown("?q=nobody-here")).toEqual([]);
    expect(await page.locator("main").innerText()).toContain("No subscribers of this list match.");
    // The form keeps what was chosen, and searching through it gives the same URL.
    await page.goto(`${w.s.url}/email/lists/${w.ids.list}`);
    await page.fill("#f-q", "example.com");
    await page.locator("#f-status").selectOption("subscribed");
    await Promise.all([page.waitForURL(/status=subscribed/), page.click('#filters button[type="submit"]')]);
    expect(await ids(page, "subscribers", "subscriber")).toEqual(
      await mcp({ search: "example.com", status: "subscribed" }),
    );
    expect(await page.locator("#f-status").inputValue()).toBe("subscribed");
    // Bad filters are a 400 with the reason, never a 500.
    for (const query of ["?status=gone", `?q=${"x".repeat(201)}`]) {
      const res = await page.goto(`${w.s.url}/email/lists/${w.ids.list}${query}`);
      expect({ query, status: res!.status() }).toEqual({ query, status: 400 });
    }
    await ctx.close();
  }, 30_000);

  test("a list pages 25 subscribers at a time in email_subscribers_list's order", async () => {
    for (let i = 0; i < 30; i++)
      await toolOk(w.olga, "email_subscribers_add", { email: `reader${i}@paging.test`, listIds: [w.ids.hostileList] });
    const all = (await toolOk(w.olga, "email_subscribers_list", { listId: w.ids.hostileList, limit: 100 })).items.map(
      (x: { id: number }) => x.id,
    );
    expect(all.length).toBe(31);
    const { ctx, page } = await signIn("olga@acme.test");
    await page.goto(`${w.s.url}/email/lists/${w.ids.hostileList}`);
    expect(await ids(page, "subscribers", "subscriber")).toEqual(all.slice(0, 25));
    expect(await page.locator("main").innerText()).toContain("Page 1 of 2");
    await Promise.all([page.waitForURL(/page=2/), page.click("text=Older →")]);
    expect(await ids(page, "subscribers", "subscriber")).toEqual(all.slice(25));
    await ctx.close();
  }, 30_000);

  test("a sent campaign: totals are email_campaigns_stats's, results over time end on them, opens marked estimated", async () => {
    const { ctx, page } = await signIn("vic@acme.test");
    await page.goto(`${w.s.url}/email/campaigns/${w.ids.sent}`);
    const stats = await toolOk(w.olga, "email_campaigns_stats", { id: w.ids.sent });
    expect(stats).toMatchObject({ recipients: 9, delivered: 8, bounced: 1, opened: 6, clicked: 3, unsubscribed: 1 });
    expect(stats.estimated).toContain("opened");
    const stat = (k: string) => page.locator(`[data-figure=${k}] .stat-n`).innerText();
    for (const k of ["recipients", "delivered", "opened", "clicked", "bounced", "unsubscribed"])
      expect({ k, n: await stat(k) }).toEqual({ k, n: String(stats[k]) });
    expect(await page.locator("[data-figure=opened]").innerText()).toContain("(estimated)");
    expect(await page.locator("#counting").innerText()).toContain("Opens are estimated");
    // The charts are Vega's SVG, named by their captions, with the figures beside them.
    expect(await page.locator("#delivery svg, #engagement svg").count()).toBe(2);
    expect(await heads(page, "delivery")).toEqual(["Hour (UTC)", "Sent", "Delivered", "Bounced"]);
    expect(await heads(page, "engagement")).toEqual(["Hour (UTC)", "Opened (est.)", "Clicked", "Unsubscribed"]);
    const delivery = await figures(page, "delivery");
    const engagement = await figures(page, "engagement");
    // Hourly from the hour sending began until the last click (hour 4): the opens, clicks and unsubscribe came in over time.
    const hour = (h: number) => new Date(w.sentAt - (w.sentAt % 3_600_000) + h * 3_600_000).toISOString();
    expect(delivery.map((r) => r[0])).toEqual(
      [1, 2, 3, 4].map((h) => `${hour(h).slice(5, 10)} ${hour(h).slice(11, 16)}`),
    );
    expect(delivery.map((r) => r.slice(1))).toEqual([
      ["9", "8", "1"],
      ["9", "8", "1"],
      ["9", "8", "1"],
      ["9", "8", "1"],
    ]);
    expect(engagement.map((r) => r.slice(1))).toEqual([
      ["3", "2", "0"],
      ["5", "2", "1"],
      ["5", "2", "1"],
      ["6", "3", "1"],
    ]);
    // The last step's figures are the stats'.
    expect(engagement.at(-1)!.slice(1)).toEqual([stats.opened, stats.clicked, stats.unsubscribed].map(String));
    expect(await page.locator("#audience-lists a").allInnerTexts()).toEqual(["Acme Newsletter"]);
    // A sent campaign has nothing left to do; a viewer is told who may act.
    expect(await page.locator("main form[method=post]").count()).toBe(0);
    await ctx.close();
  }, 30_000);

  test("a campaign not sent yet says so, and one awaiting approval links to its approval page", async () => {
    const { ctx, page } = await signIn("olga@acme.test");
    await page.goto(`${w.s.url}/email/campaigns/${w.ids.pending}`);
    expect(await page.locator("#no-results").count()).toBe(1);
    // No totals of zero for a campaign nobody was sent yet; the audience it would reach is in the details.
    expect(await page.locator("#totals").count()).toBe(0);
    expect(await page.locator("#details").innerText()).toContain("Audience now");
    expect(await page.locator(".chart").count()).toBe(0);
    expect(await page.locator("main a.approval").getAttribute("href")).toBe(`/approvals/${w.ids.pendingApproval}`);
    // No sending actions for a campaign waiting for approval: there is no verb for it to take here.
    expect(await page.locator("main form[method=post]").count()).toBe(0);
    await ctx.close();
  }, 30_000);

  test("a viewer reads campaigns but gets no forms, and every post is refused", async () => {
    const { ctx, page } = await signIn("vic@acme.test");
    await page.goto(`${w.s.url}/email/campaigns/${w.ids.scheduled}`);
    expect(await page.locator("main form[method=post], main button").count()).toBe(0);
    expect(await page.locator("main").innerText()).toContain("owners and admins pause and cancel it");
    const before = await toolOk(w.olga, "email_campaigns_get", { id: w.ids.scheduled });
    const csrf = await csrfOf(page);
    for (const action of ["pause", "resume", "cancel"]) {
      const r = await page.request.post(`${w.s.url}/email/campaigns/${w.ids.scheduled}/${action}`, {
        form: { _csrf: csrf },
        headers: { Origin: w.s.url },
        maxRedirects: 0,
      });
      expect({ action, status: r.status() }).toEqual({ action, status: 403 });
    }
    expect(await toolOk(w.olga, "email_campaigns_get", { id: w.ids.scheduled })).toEqual(before);
    await ctx.close();
  }, 30_000);

  test("an admin pauses, resumes and cancels a schedule; email_campaigns_get over MCP shows each", async () => {
    const { ctx, page, seen } = await signIn("sam@acme.test");
    const id = w.ids.scheduled;
    await page.goto(`${w.s.url}/email/campaigns/${id}`);
    const get = () => toolOk(w.olga, "email_campaigns_get", { id });
    expect((await get()).status).toBe("scheduled");
    await Promise.all([page.waitForURL(/done=paused/), page.click('form[action$="/pause"] button')]);
    expect((await get()).status).toBe("paused");
    expect(await page.locator(".notice.ok").innerText()).toContain("Campaign paused");
    expect(await page.locator(".lead .badge").innerText()).toBe("paused");
    await Promise.all([page.waitForURL(/done=resumed/), page.click('form[action$="/resume"] button')]);
    expect((await get()).status).toBe("scheduled");
    await Promise.all([page.waitForURL(/done=cancelled/), page.click('form[action$="/cancel"] button')]);
    const got = await get();
    expect(got.status).toBe("cancelled");
    expect(await page.locator(".lead .badge").innerText()).toBe("cancelled");
    expect(await page.locator("main form[method=post]").count()).toBe(0);
    // A second cancel (a stale page) is the verb's conflict with its reason, never a 500.
    const csrf = await csrfOf(page);
    const again = await page.request.post(`${w.s.url}/email/campaigns/${id}/cancel`, {
      form: { _csrf: csrf },
      headers: { Origin: w.s.url },
      maxRedirects: 0,
    });
    expect(again.status()).toBe(409);
    expect(await again.text()).toContain("only a scheduled, sending or paused campaign can be cancelled");
    expect((await get()).status).toBe("cancelled");
    expect(seen.dialogs).toEqual([]);
    await ctx.close();
  }, 60_000);

  test("planted markup stays text in the overview, a list and a campaign", async () => {
    const { ctx, page, seen } = await signIn("olga@acme.test");
    await page.goto(`${w.s.url}/email`);
    expect(await page.locator(`tr[data-campaign="${w.ids.pending}"] td a`).first().innerText()).toBe(XSS_CAMPAIGN);
    expect(await page.locator(`tr[data-list="${w.ids.hostileList}"] td a`).innerText()).toBe(XSS_NAME);
    await page.goto(`${w.s.url}/email/lists/${w.ids.list}`);
    expect(await page.locator("#subscribers tbody").innerText()).toContain(XSS_NAME);
    await page.goto(`${w.s.url}/email/campaigns/${w.ids.pending}`);
    expect(await page.locator("h1").innerText()).toBe(XSS_CAMPAIGN);
    expect(await page.locator("#audience-lists").innerText()).toBe(`Acme Newsletter, ${XSS_NAME}`);
    expect(await page.locator("main img, main script, main b").count()).toBe(0);
    expect(seen.dialogs).toEqual([]);
    expect(seen.errors).toEqual([]);
    await ctx.close();
  }, 30_000);

  test("another company's list and campaign ids are 404 both ways, and its overview holds none of ours", async () => {
    const rita = await signIn("rita@rival.test");
    await rita.page.goto(`${w.s.url}/email`);
    expect(await ids(rita.page, "campaigns", "campaign")).toEqual([w.ids.rivalCampaign]);
    expect(await ids(rita.page, "lists", "list")).toEqual([w.ids.rivalList]);
    for (const path of [
      `/email/lists/${w.ids.list}`,
      `/email/campaigns/${w.ids.sent}`,
      `/email/campaigns/${w.ids.scheduled}`,
    ]) {
      const res = await rita.page.goto(`${w.s.url}${path}`);
      expect({ path, status: res!.status() }).toEqual({ path, status: 404 });
      expect(await rita.page.locator("main").innerText()).not.toContain("Spring");
    }
    const csrf = await csrfOf(rita.page);
    const r = await rita.page.request.post(`${w.s.url}/email/campaigns/${w.ids.sent}/pause`, {
      form: { _csrf: csrf },
      headers: { Origin: w.s.url },
      maxRedirects: 0,
    });
    expect(r.status()).toBe(404);
    const olga = await signIn("olga@acme.test");
    for (const path of [
      `/email/lists/${w.ids.rivalList}`,
      `/email/campaigns/${w.ids.rivalCampaign}`,
      "/email/lists/abc",
      "/email/campaigns/0",
      "/email/campaigns/99999",
    ])
      expect({ path, status: (await olga.page.goto(`${w.s.url}${path}`))!.status() }).toEqual({ path, status: 404 });
    await rita.ctx.close();
    await olga.ctx.close();
  }, 30_000);

  test("a post without the CSRF token, or from another site, is refused", async () => {
    const { ctx, page } = await signIn("olga@acme.test");
    const id = w.ids.scheduled2;
    await page.goto(`${w.s.url}/email/campaigns/${id}`);
    await expectForgedPostsRefused(page, w.s.url, `/email/campaigns/${id}/pause`);
    expect((await toolOk(w.olga, "email_campaigns_get", { id })).status).toBe("scheduled");
    // The same post with the token from this site does what it says: the refusals above were the guard's.
    const real = await page.request.post(`${w.s.url}/email/campaigns/${id}/pause`, {
      form: { _csrf: await csrfOf(page) },
      headers: { Origin: w.s.url },
      maxRedirects: 0,
    });
    expect(real.status()).toBe(303);
    expect((await toolOk(w.olga, "email_campaigns_get", { id })).status).toBe("paused");
    await ctx.close();
  }, 30_000);
});
