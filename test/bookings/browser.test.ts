/**
 * A booking page end to end, as people and agents meet it, in headless
 * Chromium (playwright-core): an agent drafts the page over MCP (real SDK
 * client), a reviewer opens the approval link and sees the page as visitors
 * will (details, free times, the form), approves it; /b/<slug> then works —
 * with JavaScript in New York (the zone is picked up from the browser) and
 * without JavaScript (the zone chosen from a select); a visitor books, gets
 * the confirmation and the invite, and the agent reads the booking over MCP.
 * Script planted by the agent and by visitors never runs.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { ManualClock } from "../../src/core/clock";
import { startTestServer, type TestServer } from "../harness";
import { anyoneWithLink } from "../fixtures/approvals";
import { makeWorld, type World } from "../cms/world";

const T = 60_000;
const ARTIFACTS = join(import.meta.dir, "../../test-artifacts");
const XSS = `<script>alert("xss")</script><img src=x onerror="alert(2)">`;

let s: TestServer;
let w: World;
let browser: Browser;

beforeAll(async () => {
  // Monday 4 March 2030, 08:00 UTC: Berlin on CET (UTC+1), New York still on EST (UTC−5; DST starts 10 March).
  s = await startTestServer({ seed: false, clock: new ManualClock(Date.UTC(2030, 2, 4, 8, 0, 0)) });
  w = await makeWorld(s);
  // Anyone with the link decides here: these pages are under test, not who decides (test/approvals/who-decides*.test.ts).
  await anyoneWithLink(s.deps, w.A.id);
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
  mkdirSync(ARTIFACTS, { recursive: true });
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await s?.stop();
});

async function open(ctx: BrowserContext, url: string): Promise<{ page: Page; dialogs: string[]; status: number }> {
  const page = await ctx.newPage();
  const dialogs: string[] = [];
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  const res = await page.goto(url);
  return { page, dialogs, status: res!.status() };
}

const squash = (t: string) => t.replace(/\s+/g, " ").trim();

describe("booking page: agent drafts, person approves, visitors book", () => {
  let slug = "";

  test(
    "the agent drafts over MCP; nothing is public until a person approves it on the approval page, which previews it",
    async () => {
      const me = (await w.ok(w.owner, "whoami", {})).userId;
      const week = ["09:00-17:00"];
      await w.ok(w.owner, "booking_schedules_set", {
        member: me,
        timeZone: "Europe/Berlin",
        weeklyHours: { mon: week, tue: week, wed: week, thu: week, fri: week },
      });
      const created = await w.ok(w.owner, "booking_pages_create", {
        title: `Discovery call ${XSS}`,
        slug: "discovery-call",
        description: `Let's talk about your project. ${XSS}`,
        durations: [30, 60],
        minNotice: 60,
        timeZone: "Europe/Berlin",
        questions: [
          { id: "company", label: "Company", type: "short_text", required: true },
          { id: "goal", label: "What do you want to achieve?", type: "long_text" },
        ],
      });
      slug = created.slug;
      expect(created).toMatchObject({ slug: "discovery-call", status: "pending" });
      expect((await fetch(`${s.url}/b/discovery-call`)).status).toBe(404);

      const ctx = await browser.newContext();
      const { page, dialogs, status } = await open(ctx, w.local(created.approval.url));
      expect(status).toBe(200);
      const preview = page.locator("#ap-content");
      expect(squash(await preview.locator(".bk h1").innerText())).toBe(`Discovery call ${XSS}`);
      expect(await preview.innerText()).toContain("Let's talk about your project.");
      // The next week's free times from the proposed settings: Monday 4 March, 10:00 Berlin is the first past 60 minutes' notice.
      const first = preview.locator(".bk-day").first();
      expect(squash(await first.locator("h3").innerText())).toBe("Mon 4 Mar");
      expect(squash(await first.locator("li").first().innerText())).toBe("10:00");
      expect(await preview.locator("label[for=q_company]").innerText()).toContain("Company");
      expect(await preview.locator("input[name=name]").isDisabled()).toBe(true);
      expect(squash(await page.locator("dl.ap-facts").innerText())).toContain("Minimum notice 1 h");
      expect(await page.locator("script").count()).toBe(0);
      await page.screenshot({ path: join(ARTIFACTS, "booking-approval.png"), fullPage: true });
      await page.click("button.approve");
      expect(await page.locator(".ap-notice.ok").innerText()).toContain("Approved");
      expect(dialogs).toEqual([]);
      await ctx.close();
      expect((await w.ok(w.owner, "booking_pages_get", { slug })).status).toBe("live");
    },
    T,
  );

  test(
    "with JavaScript, the browser's zone is picked up; a visitor books a slot, gets the confirmation and the invite",
    async () => {
      const ctx = await browser.newContext({ timezoneId: "America/New_York", locale: "en-US" });
      const { page, dialogs } = await open(ctx, `${s.url}/b/${slug}`);
      await page.waitForURL(/tz=America%2FNew_York/);
      expect(await page.locator("#tz").inputValue()).toBe("America/New_York");
      // An en-US visitor's weeks start on Sunday (3 March, past: no times); Monday comes next.
      expect(squash(await page.locator(".bk-day h3").first().innerText())).toBe("Sun 3 Mar");
      // 10:00 Berlin (CET) = 04:00 New York (EST).
      const slot = page.locator(".bk-day").nth(1).locator("a.bk-slot").first();
      expect(squash(await slot.innerText())).toBe("04:00");
      await page.screenshot({ path: join(ARTIFACTS, "booking-page.png"), fullPage: true });
      await slot.click();
      await page.fill("#name", `Ada ${XSS}`);
      await page.fill("#email", "ada@example.test");
      await page.fill("#q_company", `Engines ${XSS}`);
      await page.click("button[type=submit]");
      await page.waitForURL(/\/booking\/[0-9a-f]{32}/);
      expect(await page.locator(".bk-ok").innerText()).toContain("Thank you!");
      expect(squash(await page.locator("main").innerText())).toContain("You're booked.");
      expect(squash(await page.locator("main").innerText())).toContain("Monday, 4 March 2030, 04:00 (GMT-5)");
      expect(await page.locator("main").innerText()).toContain(`Engines ${XSS}`);
      const href = await page.locator("a[download]").getAttribute("href");
      const ics = await (await fetch(`${s.url}${href}`)).text();
      expect(ics).toContain("METHOD:REQUEST");
      expect(ics).toContain("DTSTART:20300304T090000Z");
      expect(dialogs).toEqual([]);
      await ctx.close();

      // The agent reads the booking over MCP.
      const list = await w.ok(w.owner, "bookings_list", { pageSlug: slug });
      expect(list.total).toBe(1);
      const b = await w.ok(w.owner, "bookings_get", { id: list.items[0].id, include: ["ics"] });
      expect(b).toMatchObject({
        status: "accepted",
        startsAt: "2030-03-04T09:00:00.000Z",
        timeZone: "America/New_York",
        attendee: { name: `Ada ${XSS}`, email: "ada@example.test" },
        source: "public",
      });
      expect(b.answers).toEqual([{ id: "company", label: "Company", value: `Engines ${XSS}` }]);
      expect(b.ics).toContain(`UID:${b.uid}@`);
    },
    T,
  );

  test(
    "without JavaScript: the zone is chosen from a select; a visitor books, and cancels from the confirmation page",
    async () => {
      const ctx = await browser.newContext({ javaScriptEnabled: false, timezoneId: "Asia/Tokyo" });
      const { page } = await open(ctx, `${s.url}/b/${slug}`);
      // No script: the page's own zone until the visitor chooses.
      expect(await page.locator("#tz").inputValue()).toBe("Europe/Berlin");
      await page.selectOption("#tz", "Asia/Tokyo");
      await page.click(".bk-tz button");
      await page.waitForURL(/tz=Asia%2FTokyo/);
      // The 04:00 New York slot is taken; Tokyo (UTC+9) sees Monday 10:30 Berlin = 09:30Z = 18:30 first.
      const first = page.locator("a.bk-slot").first();
      expect(squash(await first.innerText())).toBe("18:30");
      await first.click();
      await page.fill("#name", "Kenji");
      await page.fill("#email", "kenji@example.test");
      await page.fill("#q_company", "Tokyo Works");
      await page.click("button[type=submit]");
      await page.waitForURL(/\/booking\//);
      expect(squash(await page.locator("main").innerText())).toContain("Monday, 4 March 2030, 18:30 (GMT+9)");
      await page.fill("#reason", "Found another time");
      await page.click("form.bk-form button[type=submit]");
      await page.waitForURL(/done=cancelled/);
      expect(squash(await page.locator("main").innerText())).toContain("This booking was cancelled.");
      await ctx.close();
      const cancelled = await w.ok(w.owner, "bookings_list", { status: ["cancelled"] });
      expect(cancelled.items[0]).toMatchObject({ attendee: { name: "Kenji" } });
    },
    T,
  );

  test(
    "a visitor who picked a time someone else just took is told to pick another",
    async () => {
      const ctx = await browser.newContext({ timezoneId: "Europe/Berlin" });
      const a = await open(ctx, `${s.url}/b/${slug}?tz=Europe/Berlin`);
      const b = await open(ctx, `${s.url}/b/${slug}?tz=Europe/Berlin`);
      await a.page.locator("a.bk-slot").first().click();
      await b.page.locator("a.bk-slot").first().click();
      for (const [p, n] of [
        [a.page, "First"],
        [b.page, "Second"],
      ] as const) {
        await p.fill("#name", n);
        await p.fill("#email", `${n.toLowerCase()}@example.test`);
        await p.fill("#q_company", "Co");
      }
      await a.page.click("button[type=submit]");
      await a.page.waitForURL(/\/booking\//);
      await Promise.all([b.page.waitForNavigation(), b.page.click("button[type=submit]")]);
      expect(await b.page.locator(".bk-error").innerText()).toContain("that time was just taken");
      expect(await b.page.locator("a.bk-slot").count()).toBeGreaterThan(0);
      await ctx.close();
    },
    T,
  );
});

/** Laid out without sideways scrolling: nothing is wider than the viewport. */
const overflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

describe("booking page: looks finished at desktop and phone width", () => {
  let slug = "";

  beforeAll(async () => {
    const p = await w.ok(w.owner, "booking_pages_create", {
      title: "Planning session",
      slug: "planning-session",
      description: "Ninety minutes to plan the quarter.",
      durations: [30, 60],
      minNotice: 0,
      maxAdvanceDays: 200,
      timeZone: "Europe/Berlin",
      questions: [{ id: "topic", label: "Topic", type: "short_text" }],
    });
    await w.ok(w.colleague, "approvals_approve", { id: p.approval.id });
    slug = p.slug;
  }, T);

  for (const width of [1280, 390])
    test(
      `at ${width} px: weeks start on Monday with a human date, the month picker reaches July (4 months ahead) in one submit, no sideways scrolling; screenshots of slots, form and confirmation`,
      async () => {
        const ctx = await browser.newContext({
          viewport: { width, height: 900 },
          locale: "en-GB",
          timezoneId: "Europe/Berlin",
        });
        // Thursday 7 March 2030 lies in the week of Monday 4 March.
        const { page, dialogs } = await open(ctx, `${s.url}/b/${slug}?tz=Europe/Berlin&week=2030-03-07`);
        expect(squash(await page.locator("main h2").first().innerText())).toBe("Free times, week of Mon 4 Mar 2030");
        expect(squash(await page.locator(".bk-day h3").first().innerText())).toBe("Mon 4 Mar");
        expect(squash(await page.locator(".bk-day h3").last().innerText())).toBe("Sun 10 Mar");
        expect(await page.locator("link[rel=icon]").first().getAttribute("href")).toBe("/favicon.ico");
        expect(await overflow(page)).toBeLessThanOrEqual(0);
        // The zone select is styled like the other controls (not the browser's bare default).
        const tzStyle = await page
          .locator("#tz")
          .evaluate((e) => [getComputedStyle(e).borderRadius, getComputedStyle(e).paddingLeft]);
        expect(tzStyle).toEqual(["6px", "9.6px"]);
        await page.screenshot({ path: join(ARTIFACTS, `booking-slots-${width}.png`), fullPage: true });

        await page.selectOption("#bk-month", "2030-07");
        await page.click(".bk-month button");
        await page.waitForURL(/month=2030-07/);
        expect(squash(await page.locator("main h2").first().innerText())).toBe("Free times, week of Mon 1 Jul 2030");
        expect(await page.locator("#bk-month").inputValue()).toBe("2030-07");
        expect(await page.locator("#tz").inputValue()).toBe("Europe/Berlin");
        const slot = page.locator("a.bk-slot").first();
        expect(await slot.locator("time").getAttribute("datetime")).toMatch(/^2030-07-01T/);
        // Earlier and later still step a week at a time from there.
        await page.click("text=← Earlier");
        expect(squash(await page.locator("main h2").first().innerText())).toBe("Free times, week of Mon 24 Jun 2030");
        expect(await overflow(page)).toBeLessThanOrEqual(0);

        await page.locator("a.bk-slot").first().click();
        await page.waitForURL(/\/book\?/);
        expect(await overflow(page)).toBeLessThanOrEqual(0);
        await page.screenshot({ path: join(ARTIFACTS, `booking-form-${width}.png`), fullPage: true });
        await page.fill("#name", `Width ${width}`);
        await page.fill("#email", `w${width}@example.test`);
        await page.click("button[type=submit]");
        await page.waitForURL(/\/booking\/[0-9a-f]{32}/);
        expect(await page.locator(".bk-ok").innerText()).toContain("Thank you!");
        expect(await overflow(page)).toBeLessThanOrEqual(0);
        await page.screenshot({ path: join(ARTIFACTS, `booking-confirmation-${width}.png`), fullPage: true });
        expect(dialogs).toEqual([]);
        await ctx.close();
      },
      T,
    );
});
