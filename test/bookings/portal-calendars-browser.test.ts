/**
 * A member's own calendars in the portal (issue 33), in headless Chromium
 * against a real server and an ICS feed this test serves on loopback (the
 * private-address guard is allowed, as test/bookings/calendars.test.ts
 * does, and switched on for the one test of its refusal). Connecting a
 * feed from the form shows it in calendars_list over MCP and takes its
 * busy time off the public booking page; a feed that stops answering
 * shows "failing" with the reason after "Check now"; disconnecting needs
 * the confirmation box; a bad or private address is refused with the
 * verb's message (400) and the form keeps what was typed but never a
 * password; planted markup in a name stays text; another member's or
 * company's calendar id is 404; a viewer sees the list and no connect
 * forms, and their post is 403; forged posts are refused; axe-core finds
 * nothing serious; at 390 px nothing overflows. Runs on SQLite and,
 * through scripts/with-postgres.ts, on PostgreSQL.
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
import { ensureDebianPackages, SERVICE_PACKAGES, startRadicale } from "../infra/services";
import { type BookingsWorld, bookingsWorld, PASSWORD, XSS_NAME } from "./portal-world";

// Wednesday 6 March 2030, 10:00–11:00Z: busy in the feed, free on Olga's "Intro call" page before.
const FEED = `BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//Plinth test//EN
BEGIN:VEVENT
UID:busy@test
DTSTAMP:20300101T000000Z
SUMMARY:Dentist
DTSTART:20300306T100000Z
DTEND:20300306T110000Z
END:VEVENT
END:VCALENDAR
`.replace(/\n/g, "\r\n");
const BUSY = encodeURIComponent("2030-03-06T10:00:00.000Z");

let w: BookingsWorld;
let browser: Browser;
let feed: ReturnType<typeof Bun.serve>;
let feedStatus = 200;
let introSlug = "";
let samCalendar = 0;
let rivalCalendar = 0;

const feedUrl = (name: string) => `http://127.0.0.1:${feed.port}/secret0123456789/${name}.ics`;

beforeAll(async () => {
  feed = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch() {
      if (feedStatus !== 200) return new Response("unavailable", { status: feedStatus });
      return new Response(FEED, { headers: { "content-type": "text/calendar" } });
    },
  });
  w = await bookingsWorld({ webhooksAllowPrivate: true });
  browser = await launchChromium();
  mkdirSync(ARTIFACTS, { recursive: true });
  introSlug = (await toolOk(w.olga, "booking_pages_get", { id: w.pages.intro })).slug;
  samCalendar = (await toolOk(w.sam, "calendars_connect", { kind: "ics", url: feedUrl("sam"), name: "Sam's" })).id;
  rivalCalendar = (await toolOk(w.rita, "calendars_connect", { kind: "ics", url: feedUrl("rita"), name: "Rita's" })).id;
}, 120_000);

afterAll(async () => {
  await browser?.close();
  feed?.stop(true);
  await w?.s.stop();
}, 30_000);

const signIn = (email: string, width = 1280) => signInAs(browser, w.s.url, email, PASSWORD, width);
const publicPage = async () => (await fetch(`${w.s.url}/b/${introSlug}?tz=UTC&week=2030-03-04`)).text();
const olgaCalendars = async () =>
  (await toolOk(w.olga, "calendars_list", { member: w.ids.olga })).items as {
    id: number;
    name: string;
    status: string;
    lastError: string | null;
  }[];
const rowOf = (page: Page, id: number) => page.locator(`tr[data-calendar="${id}"]`);

describe("your calendars page", () => {
  test("connect an ICS feed from the form: calendars_list shows it and the public page loses the busy time", async () => {
    expect(await publicPage()).toContain(`start=${BUSY}`);
    const { ctx, page } = await signIn("olga@acme.test");
    await page.goto(`${w.s.url}/bookings`);
    await Promise.all([page.waitForURL(/\/bookings\/calendars$/), page.click("text=Your calendars")]);
    await page.fill("#ics-url", feedUrl("olga"));
    await page.fill("#ics-name", XSS_NAME);
    await Promise.all([page.waitForURL(/done=connected/), page.click("text=Connect feed")]);
    const list = await olgaCalendars();
    expect(list.map((c) => [c.name, c.status])).toEqual([[XSS_NAME, "ok"]]);
    const row = rowOf(page, list[0]!.id);
    // Planted markup is text; the address is the tools' hint, without its secret path.
    expect(await row.innerText()).toContain(XSS_NAME);
    expect(await row.innerText()).toContain(`http://127.0.0.1:${feed.port}/secret01234…`);
    expect(await page.content()).not.toContain("secret0123456789");
    expect(await page.locator("main img").count()).toBe(0);
    expect(await publicPage()).not.toContain(`start=${BUSY}`);
    await ctx.close();
  }, 60_000);

  test("a feed that stops answering shows failing with the reason after Check now", async () => {
    const id = (await olgaCalendars())[0]!.id;
    const { ctx, page } = await signIn("olga@acme.test");
    await page.goto(`${w.s.url}/bookings/calendars`);
    feedStatus = 503;
    try {
      await Promise.all([page.waitForURL(/done=checked/), rowOf(page, id).locator("text=Check now").click()]);
    } finally {
      feedStatus = 200;
    }
    expect(await rowOf(page, id).innerText()).toContain("failing");
    expect(await rowOf(page, id).innerText()).toContain("HTTP 503");
    expect((await olgaCalendars())[0]).toMatchObject({ status: "failing", lastError: "HTTP 503" });
    await Promise.all([page.waitForURL(/done=checked/), rowOf(page, id).locator("text=Check now").click()]);
    expect(await rowOf(page, id).innerText()).not.toContain("failing");
    await ctx.close();
  }, 30_000);

  test("a bad or private address is refused with the verb's message (400), keeping what was typed", async () => {
    const { ctx, page } = await signIn("olga@acme.test");
    await page.goto(`${w.s.url}/bookings/calendars`);
    const csrf = await page.locator('header input[name="_csrf"]').first().inputValue();
    const post = (path: string, form: Record<string, string>) =>
      page.request.post(`${w.s.url}${path}`, {
        form: { _csrf: csrf, ...form },
        headers: { Origin: w.s.url },
        maxRedirects: 0,
      });
    const bad = await post("/bookings/calendars/ics", { url: "ftp://example.test/x.ics" });
    expect(bad.status()).toBe(400);
    expect(await bad.text()).toContain("ftp://example.test/x.ics");
    w.s.deps.config.webhooksAllowPrivate = false;
    try {
      const priv = await post("/bookings/calendars/ics", { url: "http://10.1.2.3/cal.ics", name: "Office" });
      expect(priv.status()).toBe(400);
      const html = await priv.text();
      expect(html).toContain("loopback or private address");
      expect(html).toContain('value="http://10.1.2.3/cal.ics"');
      // A CalDAV refusal keeps the address and username, never the password.
      const dav = await post("/bookings/calendars/caldav", {
        url: "http://10.1.2.3/dav/",
        username: "olga",
        password: "hunter2-very-secret",
      });
      expect(dav.status()).toBe(400);
      const davHtml = await dav.text();
      expect(davHtml).toContain("loopback or private address");
      expect(davHtml).toContain('value="olga"');
      expect(davHtml).not.toContain("hunter2-very-secret");
    } finally {
      w.s.deps.config.webhooksAllowPrivate = true;
    }
    expect((await olgaCalendars()).length).toBe(1);
    await ctx.close();
  }, 30_000);

  test("another member's or company's calendar is 404; a viewer's post is 403; forged posts are refused", async () => {
    const { ctx, page } = await signIn("olga@acme.test");
    await page.goto(`${w.s.url}/bookings/calendars`);
    expect(await page.locator("main").innerText()).not.toContain("Sam's");
    const csrf = await page.locator('header input[name="_csrf"]').first().inputValue();
    for (const id of [samCalendar, rivalCalendar, 999999])
      for (const verb of ["check", "disconnect"]) {
        const r = await page.request.post(`${w.s.url}/bookings/calendars/${id}/${verb}`, {
          form: { _csrf: csrf, confirm: "on" },
          headers: { Origin: w.s.url },
          maxRedirects: 0,
        });
        expect({ id, verb, status: r.status() }).toEqual({ id, verb, status: 404 });
      }
    expect((await toolOk(w.sam, "calendars_list", { member: w.ids.sam })).items.length).toBe(1);
    const mine = (await olgaCalendars())[0]!.id;
    await expectForgedPostsRefused(page, w.s.url, `/bookings/calendars/${mine}/disconnect`, { confirm: "on" });
    await expectForgedPostsRefused(page, w.s.url, "/bookings/calendars/ics", { url: feedUrl("forged") });
    expect((await olgaCalendars()).length).toBe(1);
    await ctx.close();

    const vic = await signIn("vic@acme.test");
    await vic.page.goto(`${w.s.url}/bookings/calendars`);
    expect(await vic.page.locator("#ics-url").count()).toBe(0);
    expect(await vic.page.locator("main").innerText()).toContain("owners and admins connect and disconnect them");
    const vcsrf = await vic.page.locator('header input[name="_csrf"]').first().inputValue();
    const r = await vic.page.request.post(`${w.s.url}/bookings/calendars/ics`, {
      form: { _csrf: vcsrf, url: feedUrl("vic") },
      headers: { Origin: w.s.url },
      maxRedirects: 0,
    });
    expect(r.status()).toBe(403);
    expect((await toolOk(w.olga, "calendars_list", { member: w.ids.vic })).items).toEqual([]);
    await vic.ctx.close();
  }, 30_000);

  test("every page: strict CSP, no serious axe findings, no overflow at 390 px", async () => {
    await checkEveryPage({
      browser,
      base: w.s.url,
      password: PASSWORD,
      prefix: "bookings",
      pages: [["calendars", "/bookings/calendars"]],
      emails: ["olga@acme.test", "vic@acme.test"],
      docShot: () => undefined,
    });
  }, 60_000);

  test("disconnect needs the confirmation box; with it the calendar goes and the busy time comes back", async () => {
    const id = (await olgaCalendars())[0]!.id;
    const { ctx, page } = await signIn("olga@acme.test");
    await page.goto(`${w.s.url}/bookings/calendars`);
    const csrf = await page.locator('header input[name="_csrf"]').first().inputValue();
    const unconfirmed = await page.request.post(`${w.s.url}/bookings/calendars/${id}/disconnect`, {
      form: { _csrf: csrf },
      headers: { Origin: w.s.url },
      maxRedirects: 0,
    });
    expect(unconfirmed.status()).toBe(400);
    expect(await unconfirmed.text()).toContain("Yes, disconnect");
    expect((await olgaCalendars()).length).toBe(1);
    await rowOf(page, id).locator('input[name="confirm"]').check();
    await Promise.all([page.waitForURL(/done=disconnected/), rowOf(page, id).locator("button.danger").click()]);
    expect(await olgaCalendars()).toEqual([]);
    expect(await page.locator("main").innerText()).toContain("No calendar connected");
    expect(await publicPage()).toContain(`start=${BUSY}`);
    await ctx.close();
  }, 30_000);

  test("a CalDAV account from the form (Radicale): a wrong password is refused and not echoed; the right one connects, never shown", async () => {
    const DAV_PASSWORD = "radicale-app-password-0451";
    await ensureDebianPackages([SERVICE_PACKAGES.radicale]);
    const rad = await startRadicale();
    try {
      rad.addUser("olga", DAV_PASSWORD);
      const auth = `Basic ${Buffer.from(`olga:${DAV_PASSWORD}`).toString("base64")}`;
      for (const cal of ["work", "personal"])
        expect(
          (await fetch(`${rad.url}olga/${cal}/`, { method: "MKCALENDAR", headers: { authorization: auth } })).status,
        ).toBe(201);
      const { ctx, page } = await signIn("olga@acme.test");
      await page.goto(`${w.s.url}/bookings/calendars`);
      await page.fill("#caldav-url", rad.url);
      await page.fill("#caldav-username", "olga");
      await page.fill("#caldav-password", "not-the-password");
      const refused = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith("/bookings/calendars/caldav")),
        page.click("text=Connect account"),
      ]);
      expect(refused[0].status()).toBe(400);
      expect(await page.locator("#caldav .notice").innerText()).toContain("refused the username or password");
      expect(await page.inputValue("#caldav-username")).toBe("olga");
      expect(await page.inputValue("#caldav-url")).toBe(rad.url);
      expect(await page.inputValue("#caldav-password")).toBe("");
      expect(await page.content()).not.toContain("not-the-password");
      await page.fill("#caldav-password", DAV_PASSWORD);
      await page.fill("#caldav-write", "personal");
      await Promise.all([page.waitForURL(/done=connected/), page.click("text=Connect account")]);
      const [c] = (await toolOk(w.olga, "calendars_list", { member: w.ids.olga })).items;
      expect(c).toMatchObject({
        kind: "caldav",
        status: "ok",
        username: "olga",
        writeCalendar: `${rad.url}olga/personal/`,
      });
      const row = await rowOf(page, c.id).innerText();
      expect(row).toContain("CalDAV");
      expect(row).toContain(`bookings written to ${rad.url}olga/personal/`);
      expect(await page.content()).not.toContain(DAV_PASSWORD);
      await ctx.close();
    } finally {
      await rad.stop();
    }
  }, 60_000);
});
