/**
 * The CMS pages in headless Chromium (issue 31): each site's posts and
 * pages with their status, when a scheduled one goes live, what awaits
 * approval with the link to its approval, and the live URL of what is
 * published, filtered by status and type — against a real server whose
 * posts an agent drafted over MCP. A viewer sees and cannot act (no forms;
 * a post is refused); an owner cancels a schedule and posts_get over MCP
 * shows the draft; another company's sites and posts are 404; planted
 * markup stays text; a post without the CSRF token or from another origin
 * is refused; axe-core finds nothing serious; at 390 px nothing overflows
 * sideways. Screenshots go to test-artifacts/ (docs/img/ keeps one with
 * PLINTH_DOC_SHOTS=1). Runs on SQLite and, through
 * scripts/with-postgres.ts, on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { when } from "../../src/ui/format";
import { toolOk } from "../fixtures/accounts";
import {
  ARTIFACTS,
  checkEveryPage,
  expectForgedPostsRefused,
  launchChromium,
  signInAs,
} from "../fixtures/portal-browser";
import { type CmsWorld, cmsWorld, PASSWORD, XSS_TITLE } from "./portal-world";

let w: CmsWorld;
let browser: Browser;

beforeAll(async () => {
  w = await cmsWorld();
  browser = await launchChromium();
  mkdirSync(ARTIFACTS, { recursive: true });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await w?.s.stop();
}, 30_000);

const signIn = (email: string, width = 1280) => signInAs(browser, w.s.url, email, PASSWORD, width);
const csrfOf = (page: Page) => page.locator('header input[name="_csrf"]').first().inputValue();
const post = (page: Page, path: string, form: Record<string, string>, origin = w.s.url) =>
  page.request.post(`${w.s.url}${path}`, { form, headers: { Origin: origin }, maxRedirects: 0 });
/** The post ids the list shows, in its order. */
const rows = (page: Page) =>
  page.locator("#posts tbody tr").evaluateAll((els) => els.map((e) => Number((e as HTMLElement).dataset.post)));
const row = (page: Page, id: number) => page.locator(`tr[data-post="${id}"]`);

describe("cms pages", () => {
  test("every page: strict CSP, no serious axe findings, screenshots, no overflow at 390 px", async () => {
    const pages: [name: string, path: string][] = [
      ["site", "/cms"],
      ["awaiting", `/cms/sites/${w.sites.harbor}?status=pending`],
      ["docs", `/cms/sites/${w.sites.docs}`],
    ];
    await checkEveryPage({
      browser,
      base: w.s.url,
      password: PASSWORD,
      prefix: "cms",
      pages,
      emails: ["olga@acme.test", "vic@acme.test"],
      docShot: (name) => (name === "site" ? "cms-posts.png" : undefined),
    });
  }, 180_000);

  test("a site's posts and pages as posts_list lists them, with status, go-live time, approval and live links", async () => {
    const { ctx, page } = await signIn("vic@acme.test");
    await page.goto(`${w.s.url}/cms`);
    // The first site is shown; the tabs lead to the others.
    expect(await page.locator("nav.tabs a[aria-current=page]").innerText()).toBe("Harbor Coffee");
    const listed = await toolOk(w.olga, "posts_list", { siteId: w.sites.harbor });
    expect(await rows(page)).toEqual(listed.items.map((p: { id: number }) => p.id));
    for (const p of listed.items as { id: number; status: string }[])
      expect(await row(page, p.id).getAttribute("data-status")).toBe(p.status);
    // Live URLs: the primary domain, /{slug} for a page and /{type}/{slug} otherwise; only for what is live.
    expect(await row(page, w.posts.published).locator("a.live").getAttribute("href")).toBe(
      "https://www.harbor.test/blog/spring-menu",
    );
    expect(await row(page, w.posts.page).locator("a.live").getAttribute("href")).toBe(
      "https://www.harbor.test/about-us",
    );
    for (const id of [w.posts.scheduled, w.posts.pending, w.posts.rejected])
      expect({ id, live: await row(page, id).locator("a.live").count() }).toEqual({ id, live: 0 });
    // Scheduled: when it goes live.
    expect(await row(page, w.posts.scheduled).innerText()).toContain(`goes live ${when(new Date(w.goesLive))}`);
    expect(await row(page, w.posts.scheduled).locator("td:nth-child(2) .badge").innerText()).toBe("scheduled");
    // Awaiting approval: said in words, with the link to that approval in the portal.
    for (const id of [w.posts.pending, w.posts.hostile]) {
      const got = await toolOk(w.olga, "posts_get", { siteId: w.sites.harbor, id });
      expect(await row(page, id).locator("td:nth-child(2) .badge").innerText()).toBe("awaits approval");
      expect(await row(page, id).locator("a.approval").getAttribute("href")).toBe(`/approvals/${got.approval.id}`);
    }
    expect(await row(page, w.posts.published).locator("a.approval").count()).toBe(0);
    expect(await page.locator("#awaiting .stat-n").innerText()).toBe("2");
    // The approval link opens the request in the Approvals inbox.
    await Promise.all([page.waitForURL(/\/approvals\/\d+$/), row(page, w.posts.pending).locator("a.approval").click()]);
    expect(await page.locator("main").innerText()).toContain("Holiday opening hours");
    // A site without a domain shows its published posts without a live link, saying why.
    await page.goto(`${w.s.url}/cms/sites/${w.sites.docs}`);
    expect(await rows(page)).toEqual([w.posts.docsDraft]);
    expect(await row(page, w.posts.docsDraft).locator("a.live").count()).toBe(0);
    expect(await row(page, w.posts.docsDraft).innerText()).toContain("no domain yet");
    await ctx.close();
  }, 60_000);

  test("the status and type filters give what posts_list gives; unknown values are a 400", async () => {
    const { ctx, page } = await signIn("vic@acme.test");
    const shown = async (query: string) => {
      const res = await page.goto(`${w.s.url}/cms/sites/${w.sites.harbor}?${query}`);
      expect({ query, status: res!.status() }).toEqual({ query, status: 200 });
      return await rows(page);
    };
    const mcp = async (args: Record<string, unknown>) =>
      ((await toolOk(w.olga, "posts_list", { siteId: w.sites.harbor, ...args })).items as { id: number }[]).map(
        (p) => p.id,
      );
    for (const status of ["pending", "published", "scheduled", "rejected", "draft"])
      expect({ status, ids: await shown(`status=${status}`) }).toEqual({ status, ids: await mcp({ status }) });
    expect(await shown("type=page")).toEqual(await mcp({ postType: "page" }));
    expect(await shown("status=pending&type=page")).toEqual([w.posts.pending]);
    expect(await shown("status=draft")).toEqual([]);
    expect(await page.locator("main").innerText()).toContain("Nothing matches these filters.");
    // The form keeps what was chosen and filters to the same URL.
    await page.goto(`${w.s.url}/cms`);
    await page.locator("#f-status").selectOption("published");
    await Promise.all([page.waitForURL(/status=published/), page.click('#filters button[type="submit"]')]);
    expect(await rows(page)).toEqual(await mcp({ status: "published" }));
    for (const query of ["status=bogus", "status=%3Cb%3E", "type=Not%20a%20slug"]) {
      const res = await page.goto(`${w.s.url}/cms/sites/${w.sites.harbor}?${query}`);
      expect({ query, status: res!.status() }).toEqual({ query, status: 400 });
    }
    await ctx.close();
  }, 60_000);

  test("a viewer gets no forms, and cancelling a schedule is refused", async () => {
    const { ctx, page } = await signIn("vic@acme.test");
    await page.goto(`${w.s.url}/cms`);
    expect(await page.locator("main form[method=post]").count()).toBe(0);
    const r = await post(page, `/cms/sites/${w.sites.harbor}/posts/${w.posts.scheduled}/unschedule`, {
      _csrf: await csrfOf(page),
    });
    expect(r.status()).toBe(403);
    expect((await toolOk(w.olga, "posts_get", { siteId: w.sites.harbor, id: w.posts.scheduled })).status).toBe(
      "scheduled",
    );
    await ctx.close();
  }, 30_000);

  test("planted markup stays text in the list", async () => {
    const { ctx, page, seen } = await signIn("olga@acme.test");
    await page.goto(`${w.s.url}/cms`);
    expect(await row(page, w.posts.hostile).locator("td").first().innerText()).toContain(XSS_TITLE);
    expect(await page.locator("main img, main script").count()).toBe(0);
    expect(seen.dialogs).toEqual([]);
    expect(seen.errors).toEqual([]);
    await ctx.close();
  }, 30_000);

  test("another company's sites and posts are 404 both ways, and its list holds none of ours", async () => {
    const rita = await signIn("rita@rival.test");
    await rita.page.goto(`${w.s.url}/cms`);
    expect(await rows(rita.page)).toEqual([w.posts.rival]);
    expect(await rita.page.locator("nav.tabs").count()).toBe(0);
    for (const path of [`/cms/sites/${w.sites.harbor}`, `/cms/sites/${w.sites.docs}?status=published`]) {
      const res = await rita.page.goto(`${w.s.url}${path}`);
      expect({ path, status: res!.status() }).toEqual({ path, status: 404 });
    }
    const r = await post(rita.page, `/cms/sites/${w.sites.harbor}/posts/${w.posts.scheduled}/unschedule`, {
      _csrf: await csrfOf(rita.page),
    });
    expect(r.status()).toBe(404);
    // Her own site's path with our post id: the post is looked up inside her site, so not found either.
    const mixed = await post(rita.page, `/cms/sites/${w.sites.rival}/posts/${w.posts.scheduled}/unschedule`, {
      _csrf: await csrfOf(rita.page),
    });
    expect(mixed.status()).toBe(404);
    expect((await toolOk(w.olga, "posts_get", { siteId: w.sites.harbor, id: w.posts.scheduled })).status).toBe(
      "scheduled",
    );
    const olga = await signIn("olga@acme.test");
    for (const path of [`/cms/sites/${w.sites.rival}`, "/cms/sites/999", "/cms/sites/abc", "/cms/sites/0"])
      expect({ path, status: (await olga.page.goto(`${w.s.url}${path}`))!.status() }).toEqual({ path, status: 404 });
    await rita.ctx.close();
    await olga.ctx.close();
  }, 30_000);

  test("a post without the CSRF token, or from another site, is refused", async () => {
    const { ctx, page } = await signIn("olga@acme.test");
    await page.goto(`${w.s.url}/cms`);
    const path = `/cms/sites/${w.sites.harbor}/posts/${w.posts.scheduled}/unschedule`;
    await expectForgedPostsRefused(page, w.s.url, path);
    expect((await toolOk(w.olga, "posts_get", { siteId: w.sites.harbor, id: w.posts.scheduled })).status).toBe(
      "scheduled",
    );
    await ctx.close();
  }, 30_000);

  test("an owner cancels a schedule; posts_get over MCP shows the draft, and again is a 400 saying why", async () => {
    const { ctx, page, seen } = await signIn("olga@acme.test");
    await page.goto(`${w.s.url}/cms`);
    const form = row(page, w.posts.scheduled).locator("form");
    expect(await form.count()).toBe(1);
    await Promise.all([page.waitForURL(/done=unscheduled/), form.locator("button").click()]);
    expect(await page.locator(".notice.ok").innerText()).toContain("Schedule cancelled");
    const got = await toolOk(w.olga, "posts_get", { siteId: w.sites.harbor, id: w.posts.scheduled });
    expect(got.status).toBe("draft");
    expect(await row(page, w.posts.scheduled).getAttribute("data-status")).toBe("draft");
    expect(await row(page, w.posts.scheduled).locator("form").count()).toBe(0);
    const again = await post(page, `/cms/sites/${w.sites.harbor}/posts/${w.posts.scheduled}/unschedule`, {
      _csrf: await csrfOf(page),
    });
    expect(again.status()).toBe(400);
    expect(await again.text()).toContain("nothing scheduled");
    expect(seen.dialogs).toEqual([]);
    await ctx.close();
  }, 30_000);
});
