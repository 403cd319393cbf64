/**
 * The hosting pages in headless Chromium (issue 31): every domain with its
 * DNS, certificate and uptime state in words and colour, the open
 * incidents, and a domain with its uptime chart over 30 days and the same
 * figures in a table, against a real server whose monitoring history is
 * known. What the pages show is what hosting_domains_list,
 * hosting_incidents_list, hosting_checks_list and hosting_uptime_get say
 * over MCP; checks the job records show on the next load; hosting has no
 * verb that changes anything, so nobody gets a form; another company's
 * domains are 404; planted markup (a remote server writes certificate
 * issuers and errors) stays text; axe-core finds nothing serious; at 390
 * px nothing overflows sideways. Screenshots go to test-artifacts/
 * (docs/img/ keeps one each with PLINTH_DOC_SHOTS=1). Runs on SQLite and,
 * through scripts/with-postgres.ts, on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { eq } from "drizzle-orm";
import type { Browser, Page } from "playwright-core";
import { recordHttp } from "../../src/domains/hosting/checks";
import { hostingDomainState } from "../../src/domains/hosting/tables";
import { toolOk } from "../fixtures/accounts";
import {
  ARTIFACTS,
  checkEveryPage,
  expectForgedPostsRefused,
  launchChromium,
  signInAs,
} from "../fixtures/portal-browser";
import { type HostingWorld, hostingWorld, NOW, PASSWORD, XSS_CAUSE, XSS_ISSUER, XSS_SITE } from "./portal-world";

let w: HostingWorld;
let browser: Browser;

beforeAll(async () => {
  w = await hostingWorld();
  browser = await launchChromium();
  mkdirSync(ARTIFACTS, { recursive: true });
}, 120_000);

// Closing the server on a busy machine can outlast the default 5 s.
afterAll(async () => {
  await browser?.close();
  await w?.s.stop();
}, 30_000);

const signIn = (email: string, width = 1280) => signInAs(browser, w.s.url, email, PASSWORD, width);
const ids = (page: Page, sel: string, key: string) =>
  page.locator(sel).evaluateAll((els, k) => els.map((e) => Number((e as HTMLElement).dataset[k])), key);
const badge = async (page: Page, sel: string) => {
  const b = page.locator(`${sel} .badge`).first();
  return [await b.innerText(), await b.getAttribute("class")];
};

describe("hosting pages", () => {
  test("every page: strict CSP, no serious axe findings, screenshots, no overflow at 390 px", async () => {
    const pages: [name: string, path: string][] = [
      ["overview", "/hosting"],
      ["overview-down", "/hosting?status=down"],
      ["domain", `/hosting/domains/${w.d.www}`],
      ["domain-down", `/hosting/domains/${w.d.shop}`],
    ];
    await checkEveryPage({
      browser,
      base: w.s.url,
      password: PASSWORD,
      prefix: "hosting",
      pages,
      emails: ["olga@acme.test", "vic@acme.test"],
      docShot: (name) => (name === "overview" || name === "domain" ? `hosting-${name}.png` : undefined),
      // Hosting has no verb that changes anything: no forms in the page, for an owner or a viewer.
      also: async (page, { name }) =>
        expect({ name, forms: await page.locator("main form").count() }).toEqual({ name, forms: 0 }),
    });
  }, 150_000);

  test("the overview lists what hosting_domains_list lists, each state in words and colour, and the open incidents", async () => {
    const { ctx, page } = await signIn("vic@acme.test");
    await page.goto(`${w.s.url}/hosting`);
    const listed = await toolOk(w.olga, "hosting_domains_list", { limit: 100 });
    expect(await ids(page, "#domains tbody tr", "domain")).toEqual(listed.items.map((d: { id: number }) => d.id));
    const row = (id: number, cell: string) => badge(page, `tr[data-domain="${id}"] td.${cell}`);
    expect(await row(w.d.www, "overall")).toEqual(["healthy", "badge ok"]);
    expect(await row(w.d.www, "dns")).toEqual(["DNS ok", "badge ok"]);
    expect(await row(w.d.www, "tls")).toEqual(["certificate valid", "badge ok"]);
    expect(await row(w.d.shop, "overall")).toEqual(["down", "badge danger"]);
    expect(await row(w.d.shop, "uptime")).toEqual(["down", "badge danger"]);
    expect(await row(w.d.old, "overall")).toEqual(["degraded", "badge warn"]);
    expect(await row(w.d.old, "dns")).toEqual(["DNS points elsewhere", "badge warn"]);
    expect(await row(w.d.old, "tls")).toEqual(["certificate expires in 9 d", "badge warn"]);
    // The counts are the list's.
    for (const [status, n] of Object.entries(listed.counts as Record<string, number>))
      expect({ status, n: await page.locator(`#counts [data-status="${status}"] .stat-n`).innerText() }).toEqual({
        status,
        n: String(n),
      });
    const open = await toolOk(w.olga, "hosting_incidents_list", { status: "open", limit: 100 });
    expect(await ids(page, "#open-incidents tbody tr", "incident")).toEqual(
      open.items.map((i: { id: number }) => i.id),
    );
    expect(open.items.map((i: { id: number }) => i.id)).toEqual([w.incidents.shopDown]);
    expect(await page.locator("#open-incidents").innerText()).toContain("3 h so far");
    // The status filter is the list's.
    await page.goto(`${w.s.url}/hosting?status=degraded`);
    const degraded = await toolOk(w.olga, "hosting_domains_list", { status: "degraded", limit: 100 });
    expect(await ids(page, "#domains tbody tr", "domain")).toEqual(degraded.items.map((d: { id: number }) => d.id));
    expect((await page.goto(`${w.s.url}/hosting?status=on-fire`))!.status()).toBe(400);
    await ctx.close();
  }, 30_000);

  test("a domain: the uptime chart's table holds per-day counts of hosting_checks_list, the totals hosting_uptime_get's", async () => {
    const { ctx, page } = await signIn("olga@acme.test");
    await page.goto(`${w.s.url}/hosting/domains/${w.d.www}`);
    expect(await page.locator("#uptime-chart svg").count()).toBe(1);
    expect(await page.locator("#uptime-chart [role=img]").getAttribute("aria-label")).toContain(
      "Uptime of www.acme.test",
    );
    const table = await page
      .locator("#uptime-chart tbody tr")
      .evaluateAll((rs) => rs.map((r) => [r.querySelector("th")!.textContent, r.querySelector("td")!.textContent]));
    expect(table.length).toBe(30);
    expect(table[0]![0]).toBe("01-02");
    expect(table.at(-1)![0]).toBe("01-31");
    // Three days ago, four of the day's 24 hourly checks failed; today has had 12 checks by noon.
    const day = (date: string) => table.find(([d]) => d === date)![1];
    expect(day("01-28")).toBe("83.33");
    expect(day("01-27")).toBe("100");
    expect(day("01-31")).toBe("100");
    const count = async (date: string, ok?: boolean) =>
      (
        await toolOk(w.olga, "hosting_checks_list", {
          id: w.d.www,
          kind: "http",
          ...(ok === undefined ? {} : { ok }),
          since: `2030-${date}T00:00:00.000Z`,
          until: `2030-${date}T23:59:59.999Z`,
          limit: 1,
        })
      ).total as number;
    expect([await count("01-28"), await count("01-28", false), await count("01-31")]).toEqual([24, 4, 12]);
    const u = (await toolOk(w.olga, "hosting_uptime_get", { id: w.d.www, days: 30 })).items[0];
    const stats = await page.locator("#uptime-stats").innerText();
    expect(stats).toContain(`${u.uptimePercent} %`);
    expect(stats).toContain(`${u.checks}`);
    expect(stats).toContain(`${u.failedChecks} failed`);
    expect(u.failedChecks).toBe(4);
    const incidents = await toolOk(w.olga, "hosting_incidents_list", { domainId: w.d.www, limit: 20 });
    expect(await ids(page, "#incidents-table tbody tr", "incident")).toEqual(
      incidents.items.map((i: { id: number }) => i.id),
    );
    expect(await page.locator("#incidents-table").innerText()).toContain("4 h");
    const checks = await toolOk(w.olga, "hosting_checks_list", {
      id: w.d.www,
      since: new Date(NOW - 86_400_000).toISOString(),
      limit: 20,
    });
    expect(checks.total).toBe(25); // 24 hourly uptime checks and one DNS check in the last day
    expect(await ids(page, "#checks-table tbody tr", "check")).toEqual(checks.items.map((c: { id: number }) => c.id));
    // DNS and certificate as hosting_domains_get has them.
    await page.goto(`${w.s.url}/hosting/domains/${w.d.old}`);
    expect(await page.locator("#dns").innerText()).toContain("A 198.51.100.23");
    expect(await page.locator("#dns").innerText()).toContain("CNAME sites.plinth.test");
    expect(await page.locator("#certificate").innerText()).toContain("(9 d)");
    await page.goto(`${w.s.url}/hosting/domains/${w.d.shop}`);
    expect(await page.locator("#open-incident").innerText()).toContain("connect ECONNREFUSED");
    await ctx.close();
  }, 60_000);

  test("planted markup from a site name, a certificate issuer, check errors and an incident cause stays text", async () => {
    const { ctx, page, seen } = await signIn("olga@acme.test");
    await page.goto(`${w.s.url}/hosting`);
    expect(await page.locator(`tr[data-domain="${w.d.labs}"] td`).first().innerText()).toContain(XSS_SITE);
    await page.goto(`${w.s.url}/hosting/domains/${w.d.labs}`);
    expect(await page.locator("p.lead").innerText()).toContain(XSS_SITE);
    expect(await page.locator("#certificate").innerText()).toContain(XSS_ISSUER);
    expect(await page.locator("#incidents-table").innerText()).toContain(XSS_CAUSE);
    expect(await page.locator("main img, main script").count()).toBe(0);
    expect(seen.dialogs).toEqual([]);
    expect(seen.errors).toEqual([]);
    await ctx.close();
  }, 30_000);

  test("another company's domains are 404 both ways, and its overview holds none of ours", async () => {
    const rita = await signIn("rita@rival.test");
    await rita.page.goto(`${w.s.url}/hosting`);
    expect(await ids(rita.page, "#domains tbody tr", "domain")).toEqual([w.rivalDomain]);
    expect(await rita.page.locator("#open-incidents").innerText()).toContain("Rival secret outage");
    expect(await rita.page.locator("main").innerText()).not.toContain("acme.test");
    for (const id of [w.d.www, w.d.shop])
      expect({ id, status: (await rita.page.goto(`${w.s.url}/hosting/domains/${id}`))!.status() }).toEqual({
        id,
        status: 404,
      });
    const olga = await signIn("olga@acme.test");
    await olga.page.goto(`${w.s.url}/hosting`);
    expect(await olga.page.locator("main").innerText()).not.toContain("Rival secret outage");
    for (const path of [`/hosting/domains/${w.rivalDomain}`, "/hosting/domains/abc", "/hosting/domains/0"])
      expect({ path, status: (await olga.page.goto(`${w.s.url}${path}`))!.status() }).toEqual({ path, status: 404 });
    await rita.ctx.close();
    await olga.ctx.close();
  }, 30_000);

  test("a post to the hosting pages is refused: without the token or from another site 403, and there is nothing to post to", async () => {
    const { ctx, page } = await signIn("olga@acme.test");
    await page.goto(`${w.s.url}/hosting/domains/${w.d.www}`);
    await expectForgedPostsRefused(page, w.s.url, `/hosting/domains/${w.d.www}`);
    const csrf = await page.locator('header input[name="_csrf"]').first().inputValue();
    const real = await page.request.post(`${w.s.url}/hosting/domains/${w.d.www}`, {
      form: { _csrf: csrf },
      headers: { Origin: w.s.url },
      maxRedirects: 0,
    });
    expect(real.status()).toBe(404);
    await ctx.close();
  }, 30_000);

  test("checks the job records show on the next load: three failures open an incident there and over MCP", async () => {
    const { ctx, page } = await signIn("vic@acme.test");
    const state = async () =>
      (await w.s.deps.db.select().from(hostingDomainState).where(eq(hostingDomainState.domainId, w.d.old)))[0]!;
    for (let i = 1; i <= 3; i++)
      await recordHttp(
        w.s.deps,
        await state(),
        { ok: false, statusCode: 503, responseMs: 40, error: "HTTP 503" },
        new Date(NOW + i * 60_000),
      );
    w.s.clock.set(new Date(NOW + 4 * 60_000));
    await page.goto(`${w.s.url}/hosting`);
    expect(await badge(page, `tr[data-domain="${w.d.old}"] td.overall`)).toEqual(["down", "badge danger"]);
    const open = (await toolOk(w.olga, "hosting_incidents_list", { status: "open", limit: 100 })).items as {
      id: number;
      domainId: number;
    }[];
    expect(open.map((i) => i.domainId).sort()).toEqual([w.d.shop, w.d.old].sort());
    expect(await ids(page, "#open-incidents tbody tr", "incident")).toEqual(open.map((i) => i.id));
    // The first success resolves it.
    await recordHttp(
      w.s.deps,
      await state(),
      { ok: true, statusCode: 200, responseMs: 80, error: null },
      new Date(NOW + 5 * 60_000),
    );
    await page.goto(`${w.s.url}/hosting/domains/${w.d.old}`);
    expect(await page.locator("#open-incident").count()).toBe(0);
    expect(await page.locator("#incidents-table tbody tr .badge").first().innerText()).toBe("resolved");
    w.s.clock.set(new Date(NOW));
    await ctx.close();
  }, 30_000);
});
