/**
 * The bookings pages in headless Chromium (issue 31): the agenda day by day
 * in the viewer's time zone with its member and page filters and paging,
 * and a booking with its attendee, answers and place, cancelled or moved
 * to a free time of its page, against a real server whose pages and
 * bookings an agent made over MCP. A viewer sees and cannot act (no forms;
 * a post is refused); an admin cancels and moves, and bookings_get over MCP
 * shows each; a time taken meanwhile is refused with the reason; another
 * company's ids are 404; planted markup stays text; a post without the
 * CSRF token or from another origin is refused; axe-core finds nothing
 * serious; at 390 px nothing overflows sideways. Screenshots go to
 * test-artifacts/ (docs/img/ keeps one each with PLINTH_DOC_SHOTS=1).
 * Runs on SQLite and, through scripts/with-postgres.ts, on PostgreSQL.
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
import {
  type BookingsWorld,
  bookingsWorld,
  OFFICE_HOURS,
  PASSWORD,
  XSS_ANSWER,
  XSS_NAME,
  XSS_WHERE,
} from "./portal-world";

let w: BookingsWorld;
let browser: Browser;

beforeAll(async () => {
  w = await bookingsWorld();
  browser = await launchChromium();
  mkdirSync(ARTIFACTS, { recursive: true });
}, 120_000);

// Closing the server on a busy machine can outlast the default 5 s.
afterAll(async () => {
  await browser?.close();
  await w?.s.stop();
}, 30_000);

const signIn = (email: string, width = 1280) => signInAs(browser, w.s.url, email, PASSWORD, width);

/** The booking ids the agenda shows, in its order. */
const rows = (page: Page) =>
  page
    .locator("table.agenda tbody tr")
    .evaluateAll((els) => els.map((e) => Number((e as HTMLElement).dataset.booking)));

const csrfOf = (page: Page) => page.locator('header input[name="_csrf"]').first().inputValue();
const squash = (t: string) => t.replace(/\s+/g, " ").trim();

describe("bookings pages", () => {
  test("every page: strict CSP, no serious axe findings, screenshots, no overflow at 390 px", async () => {
    const pages: [name: string, path: string][] = [
      ["agenda", "/bookings"],
      ["agenda-filtered", `/bookings?host=${w.ids.sam}`],
      ["booking", `/bookings/${w.b.ada}`],
    ];
    await checkEveryPage({
      browser,
      base: w.s.url,
      password: PASSWORD,
      prefix: "bookings",
      pages,
      emails: ["olga@acme.test", "vic@acme.test"],
      docShot: (name) => (name === "agenda-filtered" ? undefined : `bookings-${name}.png`),
    });
  }, 120_000);

  test("the agenda lists what bookings_list lists, by day in the viewer's time zone, 25 a page", async () => {
    const { ctx, page } = await signIn("olga@acme.test");
    await page.goto(`${w.s.url}/bookings`);
    const listed = (
      await toolOk(w.olga, "bookings_list", {
        status: ["pending", "accepted"],
        from: new Date(w.s.clock.now()).toISOString(),
        limit: 100,
      })
    ).items as { id: number }[];
    expect(listed.length).toBe(5 + OFFICE_HOURS);
    expect(await rows(page)).toEqual(listed.slice(0, 25).map((b) => b.id));
    expect(await page.locator("main").innerText()).toContain("times in Europe/Berlin (your profile)");
    // Olga's profile says Berlin: Tuesday 09:00 there is 08:00 UTC.
    const days = await page.locator("section.agenda-day h2").allInnerTexts();
    expect(days).toEqual([
      "Tuesday 5 March 2030",
      "Wednesday 6 March 2030",
      "Thursday 7 March 2030",
      "Friday 8 March 2030",
    ]);
    expect(squash(await page.locator(`tr[data-booking="${w.b.ada}"] td`).first().innerText())).toBe("09:00–09:30 CET");
    expect(await page.locator(`tr[data-booking="${w.b.ada}"]`).innerText()).toContain("Intro call");
    expect(await page.locator(`tr[data-booking="${w.b.support}"]`).innerText()).toContain("Sam Admin");
    // Page two holds the rest, through the pager's link.
    await Promise.all([page.waitForURL(/page=2/), page.click("text=Older →")]);
    expect(await rows(page)).toEqual(listed.slice(25).map((b) => b.id));
    await ctx.close();
    // Vic has no time zone: the same booking reads in UTC, and the page says why.
    const vic = await signIn("vic@acme.test");
    await vic.page.goto(`${w.s.url}/bookings`);
    expect(squash(await vic.page.locator(`tr[data-booking="${w.b.ada}"] td`).first().innerText())).toBe(
      "08:00–08:30 UTC",
    );
    expect(await vic.page.locator("main").innerText()).toContain("times in UTC (no time zone in your profile)");
    await vic.ctx.close();
  }, 30_000);

  test("the filters: member and booking page give what bookings_list gives; unknown values are 400", async () => {
    const { ctx, page } = await signIn("olga@acme.test");
    const shown = async (query: string) => {
      const res = await page.goto(`${w.s.url}/bookings?${query}`);
      expect({ query, status: res!.status() }).toEqual({ query, status: 200 });
      return await rows(page);
    };
    const mcp = async (args: Record<string, unknown>) =>
      (
        (
          await toolOk(w.olga, "bookings_list", {
            status: ["pending", "accepted"],
            from: new Date(w.s.clock.now()).toISOString(),
            limit: 100,
            ...args,
          })
        ).items as { id: number }[]
      ).map((b) => b.id);
    expect(await shown(`host=${w.ids.sam}`)).toEqual([w.b.support, w.b.move]);
    expect(await shown(`host=${w.ids.sam}`)).toEqual(await mcp({ host: w.ids.sam }));
    expect(await shown(`bookingPage=${w.pages.intro}`)).toEqual(await mcp({ pageId: w.pages.intro }));
    expect(await shown(`bookingPage=${w.pages.intro}`)).toEqual([w.b.ada, w.b.hostile, w.b.cancel]);
    expect(await shown(`host=${w.ids.vic}`)).toEqual([]);
    expect(await page.locator("main").innerText()).toContain("No bookings match these filters.");
    expect(await shown("when=past")).toEqual([]);
    // The form keeps what was chosen, and filtering through it gives the same URL.
    await page.goto(`${w.s.url}/bookings`);
    await page.locator("#f-bookingPage").selectOption(String(w.pages.support));
    await Promise.all([page.waitForURL(/bookingPage=/), page.click('#filters button[type="submit"]')]);
    expect(await rows(page)).toEqual([w.b.support, w.b.move]);
    expect(await page.locator("#f-bookingPage").inputValue()).toBe(String(w.pages.support));
    for (const query of ["host=<b>", "bookingPage=x", "when=tomorrow", "host=99999"]) {
      const res = await page.goto(`${w.s.url}/bookings?${query}`);
      expect({ query, status: res!.status() }).toEqual({ query, status: query === "host=99999" ? 404 : 400 });
    }
    await ctx.close();
  }, 30_000);

  test("a booking shows its attendee, answers and place; a viewer gets no forms and every post is refused", async () => {
    const { ctx, page } = await signIn("vic@acme.test");
    await page.goto(`${w.s.url}/bookings/${w.b.ada}`);
    const main = await page.locator("main").innerText();
    expect(await page.locator("h1").innerText()).toBe("Intro call with Ada Lovelace");
    expect(main).toContain("What would you like to talk about?");
    expect(main).toContain("Pricing for 12 seats");
    expect(main).toContain("ada@customer.test");
    expect(main).toContain("Tuesday 5 March 2030, 08:00–08:30 UTC");
    expect(await page.locator("#status").innerText()).toBe("confirmed");
    expect(await page.locator("main form[method=post], main textarea, main select").count()).toBe(0);
    expect(main).toContain("owners and admins move and cancel it");
    const before = await toolOk(w.olga, "bookings_get", { id: w.b.ada });
    const csrf = await csrfOf(page);
    for (const [action, form] of [
      ["cancel", { reason: "by a viewer" }],
      ["reschedule", { startsAt: "2030-03-05T12:00:00.000Z" }],
      ["reassign", { host: String(w.ids.sam) }],
    ] as const) {
      const r = await page.request.post(`${w.s.url}/bookings/${w.b.ada}/${action}`, {
        form: { _csrf: csrf, ...form },
        headers: { Origin: w.s.url },
        maxRedirects: 0,
      });
      expect({ action, status: r.status() }).toEqual({ action, status: 403 });
    }
    expect(await toolOk(w.olga, "bookings_get", { id: w.b.ada })).toEqual(before);
    await ctx.close();
  }, 30_000);

  test("an admin hands a booking over from the page: a member who is not one of the page's hosts is refused with the verb's reason, nothing changes", async () => {
    const { ctx, page } = await signIn("olga@acme.test");
    await page.goto(`${w.s.url}/bookings/${w.b.ada}`);
    expect(await page.locator("#hand select[name=host] option").allInnerTexts()).toEqual([
      "The next free host (round robin)",
      "Sam Admin (sam@acme.test)",
      "Vic Viewer (vic@acme.test)",
    ]);
    const before = await toolOk(w.olga, "bookings_get", { id: w.b.ada });
    await page.selectOption("#hand-host", String(w.ids.sam));
    const [res] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith("/reassign")),
      page.click('#hand button[type="submit"]'),
    ]);
    expect(res.status()).toBe(400);
    expect(await page.locator("#hand .notice.error").innerText()).toContain("host");
    // Round robin on a page with one host: nobody to hand it to, a 409 with the reason.
    await page.selectOption("#hand-host", "");
    const [rr] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith("/reassign")),
      page.click('#hand button[type="submit"]'),
    ]);
    expect(rr.status()).toBe(409);
    expect((await page.locator("#hand .notice.error").innerText()).length).toBeGreaterThan(10);
    expect(await toolOk(w.olga, "bookings_get", { id: w.b.ada })).toEqual(before);
    // A malformed host is the page's own refusal, not the verb's.
    const bad = await page.request.post(`${w.s.url}/bookings/${w.b.ada}/reassign`, {
      form: { _csrf: await csrfOf(page), host: "1 OR 1=1" },
      headers: { Origin: w.s.url },
      maxRedirects: 0,
    });
    expect(bad.status()).toBe(400);
    expect(await bad.text()).toContain("New host must be a person of the list.");
    await ctx.close();
  }, 60_000);

  test("an admin cancels with a reason; bookings_get over MCP shows it, and the forms are gone", async () => {
    const { ctx, page, seen } = await signIn("sam@acme.test");
    await page.goto(`${w.s.url}/bookings/${w.b.cancel}`);
    await page.fill("#cancel-reason", "Our office is closed that day, sorry <b>really</b>.");
    await Promise.all([page.waitForURL(/done=cancelled/), page.click('#cancel button[type="submit"]')]);
    const got = await toolOk(w.olga, "bookings_get", { id: w.b.cancel });
    expect(got).toMatchObject({
      status: "cancelled",
      cancelledBy: "host",
      reason: "Our office is closed that day, sorry <b>really</b>.",
    });
    expect(await page.locator(".notice.ok").innerText()).toBe("Booking cancelled; the attendee is emailed.");
    expect(await page.locator("#status").innerText()).toBe("cancelled");
    expect(await page.locator("aside").innerText()).toContain("Our office is closed that day, sorry <b>really</b>.");
    expect(await page.locator("#cancel, #move").count()).toBe(0);
    // Cancelling again is refused by the verb (409 with its reason), never a 500.
    const again = await page.request.post(`${w.s.url}/bookings/${w.b.cancel}/cancel`, {
      form: { _csrf: await csrfOf(page), reason: "" },
      headers: { Origin: w.s.url },
      maxRedirects: 0,
    });
    expect(again.status()).toBe(409);
    expect(await again.text()).toContain("This booking is already cancelled.");
    // It left the agenda.
    await page.goto(`${w.s.url}/bookings?bookingPage=${w.pages.intro}`);
    expect(await rows(page)).toEqual([w.b.ada, w.b.hostile]);
    expect(seen.dialogs).toEqual([]);
    await ctx.close();
  }, 30_000);

  test("an admin moves a booking to a listed free time; a time taken meanwhile is a 409 that changes nothing", async () => {
    const { ctx, page } = await signIn("olga@acme.test");
    await page.goto(`${w.s.url}/bookings/${w.b.move}`);
    // The list is booking_availability_get's, for the booking's page and length.
    const offered = await page
      .locator("#move-start option")
      .evaluateAll((els) => els.map((e) => (e as HTMLOptionElement).value));
    const now = w.s.clock.now().getTime();
    const free = await toolOk(w.olga, "booking_availability_get", {
      pageId: w.pages.support,
      from: new Date(now).toISOString(),
      to: new Date(now + 21 * 86_400_000).toISOString(),
      durationMin: 60,
    });
    expect(offered).toEqual(free.slots.slice(0, 300).map((s: { startsAt: string }) => s.startsAt));
    expect(offered).not.toContain("2030-03-07T09:00:00.000Z");
    // Friday 8 March, 11:00 in Berlin: its label is on Olga's clock, under Friday's group.
    const target = "2030-03-08T10:00:00.000Z";
    expect(offered).toContain(target);
    expect(squash(await page.locator(`#move-start option[value="${target}"]`).innerText())).toBe(
      "Fri 8 Mar, 11:00 CET",
    );
    expect(
      await page
        .locator(`#move-start option[value="${target}"]`)
        .evaluate((e) => (e.parentElement as HTMLOptGroupElement).label),
    ).toBe("Friday 8 March 2030");
    await page.locator("#move-start").selectOption(target);
    await Promise.all([page.waitForURL(/done=rescheduled/), page.click('#move button[type="submit"]')]);
    let got = await toolOk(w.olga, "bookings_get", { id: w.b.move });
    expect(got.startsAt).toBe(target);
    expect(got.history.at(-1)).toMatchObject({ startsAt: "2030-03-07T09:00:00.000Z", by: "host" });
    expect(await page.locator(".notice.ok").innerText()).toContain("Booking moved");
    expect(await page.locator("#when").innerText()).toContain("Friday 8 March 2030, 11:00–12:00 CET");

    // Someone books the time Olga picks while her page is open: the verb refuses it under the lock.
    const taken = "2030-03-11T09:00:00.000Z";
    await page.locator("#move-start").selectOption(taken);
    await toolOk(w.olga, "bookings_create", {
      pageId: w.pages.support,
      startsAt: taken,
      name: "Quick Visitor",
      email: "quick@customer.test",
    });
    const [res] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith("/reschedule")),
      page.click('#move button[type="submit"]'),
    ]);
    expect(res.status()).toBe(409);
    expect(await page.locator("#move .notice.error").innerText()).toContain("no longer available");
    got = await toolOk(w.olga, "bookings_get", { id: w.b.move });
    expect(got.startsAt).toBe(target);
    // A time that is not a time at all is a 400 with the reason, never a 500.
    const bad = await page.request.post(`${w.s.url}/bookings/${w.b.move}/reschedule`, {
      form: { _csrf: await csrfOf(page), startsAt: "next tuesday" },
      headers: { Origin: w.s.url },
      maxRedirects: 0,
    });
    expect(bad.status()).toBe(400);
    expect(await bad.text()).toContain("New time must be one of the listed free times.");
    await ctx.close();
  }, 60_000);

  test("planted markup stays text in the agenda, the title, the answers and the place", async () => {
    const { ctx, page, seen } = await signIn("olga@acme.test");
    await page.goto(`${w.s.url}/bookings`);
    expect(await page.locator(`tr[data-booking="${w.b.hostile}"] td a`).innerText()).toBe(XSS_NAME);
    await page.goto(`${w.s.url}/bookings/${w.b.hostile}`);
    expect(await page.locator("h1").innerText()).toBe(`Intro call with ${XSS_NAME}`);
    expect(await page.locator("#answers dd").allInnerTexts()).toEqual([XSS_ANSWER]);
    expect(await page.locator("#location").innerText()).toBe(`In person: ${XSS_WHERE}`);
    expect(await page.locator("main img, main script, main b").count()).toBe(0);
    expect(seen.dialogs).toEqual([]);
    expect(seen.errors).toEqual([]);
    await ctx.close();
  }, 30_000);

  test("another company's booking ids are 404 both ways, and its agenda holds none of ours", async () => {
    const rita = await signIn("rita@rival.test");
    await rita.page.goto(`${w.s.url}/bookings`);
    expect(await rows(rita.page)).toEqual([w.rivalBooking]);
    expect(await rita.page.locator("main").innerText()).not.toContain("Ada Lovelace");
    for (const id of [w.b.ada, w.b.move]) {
      const res = await rita.page.goto(`${w.s.url}/bookings/${id}`);
      expect({ id, status: res!.status() }).toEqual({ id, status: 404 });
    }
    // A filter naming Acme's page or member is not found either.
    for (const q of [`bookingPage=${w.pages.intro}`, `host=${w.ids.olga}`])
      expect((await rita.page.goto(`${w.s.url}/bookings?${q}`))!.status()).toBe(404);
    const csrf = await csrfOf(rita.page);
    const before = await toolOk(w.olga, "bookings_get", { id: w.b.ada });
    const r = await rita.page.request.post(`${w.s.url}/bookings/${w.b.ada}/cancel`, {
      form: { _csrf: csrf, reason: "from Rival" },
      headers: { Origin: w.s.url },
      maxRedirects: 0,
    });
    expect(r.status()).toBe(404);
    expect(await toolOk(w.olga, "bookings_get", { id: w.b.ada })).toEqual(before);
    const olga = await signIn("olga@acme.test");
    for (const path of [`/bookings/${w.rivalBooking}`, "/bookings/abc", "/bookings/0", "/bookings/%231"])
      expect({ path, status: (await olga.page.goto(`${w.s.url}${path}`))!.status() }).toEqual({ path, status: 404 });
    await rita.ctx.close();
    await olga.ctx.close();
  }, 30_000);

  test("a post without the CSRF token, or from another site, is refused", async () => {
    const { ctx, page } = await signIn("olga@acme.test");
    await page.goto(`${w.s.url}/bookings/${w.b.ada}`);
    const before = await toolOk(w.olga, "bookings_get", { id: w.b.ada });
    await expectForgedPostsRefused(page, w.s.url, `/bookings/${w.b.ada}/cancel`, { reason: "forged" });
    expect(await toolOk(w.olga, "bookings_get", { id: w.b.ada })).toEqual(before);
    await ctx.close();
  }, 30_000);
});
