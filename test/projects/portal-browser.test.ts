/**
 * The projects pages in headless Chromium (issue 31): the project list, the
 * board, a card, a sprint with its charts and the timesheet, against a real
 * server whose data an agent made over MCP. A viewer sees and cannot act
 * (no forms; a post is refused); an owner creates and moves cards, comments,
 * ticks the checklist and logs time, and the change shows over MCP
 * (cards_get); another company's ids are 404; planted markup stays text;
 * a post without the CSRF token is refused; axe-core finds nothing serious
 * on any page; at 390 px nothing overflows sideways. Screenshots of every
 * page at 1280 and 390 px go to test-artifacts/ (docs/img/ keeps one each).
 * Runs on SQLite and, through scripts/with-postgres.ts, on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import type { Browser } from "playwright-core";
import {
  ARTIFACTS,
  checkEveryPage,
  expectForgedPostsRefused,
  launchChromium,
  signInAs,
} from "../fixtures/portal-browser";
import { toolOk } from "../fixtures/accounts";
import { PASSWORD, type ProjectsWorld, projectsWorld, XSS_TITLE } from "./portal-world";

let w: ProjectsWorld;
let browser: Browser;

beforeAll(async () => {
  w = await projectsWorld();
  browser = await launchChromium();
  mkdirSync(ARTIFACTS, { recursive: true });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await w?.s.stop();
});

const signIn = (email: string, width = 1280) => signInAs(browser, w.s.url, email, PASSWORD, width);

async function sprintOf(key: string) {
  return (await toolOk(w.olga, "sprints_list", { projectId: key })).items as { id: number; name: string }[];
}

describe("projects pages", () => {
  test("every page: strict CSP, no serious axe findings, charts with their tables, screenshots, no overflow at 390 px", async () => {
    const pages: [name: string, path: string][] = [
      ["projects", "/projects"],
      ["board", "/projects/WEB"],
      ["card", "/projects/WEB/cards/7"],
      ["sprint", `/projects/WEB/sprints/${w.sprints.running}`],
      ["timesheet", "/projects-time"],
    ];
    await checkEveryPage({
      browser,
      base: w.s.url,
      password: PASSWORD,
      prefix: "projects",
      pages,
      emails: ["olga@acme.test"],
    });
  }, 120_000);

  test("the sprint page draws burndown and velocity as SVG, with the numbers beside them", async () => {
    const { ctx, page } = await signIn("olga@acme.test");
    await page.goto(`${w.s.url}/projects/WEB/sprints/${w.sprints.running}`);
    const burn = await toolOk(w.olga, "sprints_burndown", { id: w.sprints.running });
    expect(burn.points.length).toBeGreaterThan(2);
    // The chart is the library's SVG (Vega marks), named for assistive technology.
    expect(await page.locator("#burndown svg g.mark-line").count()).toBe(2);
    expect(await page.locator("#burndown .chart-svg").getAttribute("aria-label")).toContain("Burndown of Sprint 3");
    // Its table holds the verb's figures, a row per day.
    const rows = await page.locator("#burndown table tbody tr").allInnerTexts();
    expect(rows.length).toBe(burn.points.length);
    expect(rows[0]).toContain(burn.points[0].date);
    expect(rows[0]).toContain(String(burn.points[0].remainingPoints));
    const vel = await toolOk(w.olga, "sprints_velocity", { projectId: "WEB", count: 6 });
    expect(vel.sprints.length).toBe(2);
    expect(await page.locator("#velocity svg g.mark-rect path").count()).toBe(4);
    const vrows = await page.locator("#velocity table tbody tr").allInnerTexts();
    expect(vrows.map((r) => r.split("\t")[0])).toEqual(["Sprint 1: groundwork", "Sprint 2: pages"]);
    expect(vrows[1]).toContain(String(vel.sprints[0].completedPoints));
    // Bars carry their values as text, so colour is not the only signal.
    expect(await page.locator("#velocity svg g.mark-text text").count()).toBeGreaterThanOrEqual(4);
    await ctx.close();
  }, 30_000);

  test("a viewer sees the board and cards but gets no forms, and a post is refused", async () => {
    const { ctx, page } = await signIn("vic@acme.test");
    await page.goto(`${w.s.url}/projects/WEB`);
    expect(await page.locator(".kcard").count()).toBe(12);
    // The board's own read gives the cards in the order cards_list gives them, with the same labels and people.
    const listed = (await toolOk(w.olga, "cards_list", { projectId: "WEB", limit: 100 })).items;
    expect(await page.locator(".kcard").evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.card))).toEqual(
      listed.map((c: { key: string }) => c.key),
    );
    const seven = page.locator('li.kcard[data-card="WEB-7"] .kcard-meta');
    expect(await seven.locator(".label").allInnerTexts()).toEqual(["design", "frontend"]);
    expect(await seven.locator(".assignee").innerText()).toBe("Sam Designer");
    expect(await page.locator("main form").count()).toBe(0);
    expect(await page.locator("main").innerText()).toContain("owners and admins move and create cards");
    await page.goto(`${w.s.url}/projects/WEB/cards/2`);
    expect(await page.locator(".checklist li").count()).toBe(3);
    expect(await page.locator("main form, main textarea").count()).toBe(0);
    // A hand-made post with a valid token and origin: the verb's own role check refuses it.
    const csrf = await page.locator('header input[name="_csrf"]').first().inputValue();
    const cardId = (await toolOk(w.olga, "cards_get", { id: "WEB-1" })).id;
    const res = await page.request.post(`${w.s.url}/projects/WEB/move`, {
      form: { _csrf: csrf, card: String(cardId), column: "1" },
      headers: { Origin: w.s.url },
      maxRedirects: 0,
    });
    expect(res.status()).toBe(403);
    expect((await toolOk(w.olga, "cards_get", { id: "WEB-1" })).column.name).toBe("Done");
    for (const path of ["/projects/WEB/cards", "/projects/WEB/cards/2/comments"]) {
      const r = await page.request.post(`${w.s.url}${path}`, {
        form: { _csrf: csrf, title: "by a viewer", body: "by a viewer" },
        headers: { Origin: w.s.url },
        maxRedirects: 0,
      });
      expect({ path, status: r.status() }).toEqual({ path, status: 403 });
    }
    await ctx.close();
  }, 30_000);

  test("an owner creates and moves cards, comments, ticks and logs time; MCP sees each change", async () => {
    const { ctx, page, seen } = await signIn("olga@acme.test");
    await page.goto(`${w.s.url}/projects/WEB`);
    // The WIP limit is shown, and moving a third card into a full column is refused with the reason.
    const doing = page.locator("section.column", { has: page.locator("h2", { hasText: "In progress" }) });
    expect(await doing.locator(".column-head .badge").innerText()).toBe("2 / 2 · at limit");
    const card3 = page.locator('li.kcard[data-card="WEB-11"]');
    await card3.locator("select").selectOption({ label: "In progress" });
    await card3.locator('button[type="submit"]').click();
    expect(await page.locator(".notice.error").innerText()).toMatch(/WIP limit/i);
    expect((await toolOk(w.olga, "cards_get", { id: "WEB-11" })).column.name).not.toBe("In progress");

    // Create a card through the form.
    await page.goto(`${w.s.url}/projects/WEB`);
    await page.locator("details.card summary").click();
    await page.fill("#new-title", "Launch checklist from the portal");
    await page.locator("#new-column").selectOption({ label: "To do" });
    await page.fill("#new-estimate", "3");
    await Promise.all([page.waitForURL(/done=created/), page.click('form[action$="/cards"] button[type="submit"]')]);
    const made = (await toolOk(w.olga, "cards_list", { projectId: "WEB", search: "Launch checklist from the portal" }))
      .items[0];
    expect(made).toMatchObject({ column: "To do", estimate: 3 });
    expect(await page.locator(`li.kcard[data-card="${made.key}"]`).count()).toBe(1);

    // Move it with its column select.
    const mine = page.locator(`li.kcard[data-card="${made.key}"]`);
    await mine.locator("select").selectOption({ label: "In review" });
    await Promise.all([page.waitForURL(/done=moved/), mine.locator('button[type="submit"]').click()]);
    expect((await toolOk(w.olga, "cards_get", { id: made.key })).column.name).toBe("In review");
    expect(
      await page.locator(`section.column:has(h2:text-is("In review")) li.kcard[data-card="${made.key}"]`).count(),
    ).toBe(1);

    // On a card: comment, tick a checklist item, log time.
    await page.goto(`${w.s.url}/projects/WEB/cards/2`);
    await page.fill("#comment-body", "Signed off <b>today</b>");
    await Promise.all([page.waitForURL(/done=commented/), page.click('form[action$="/comments"] button')]);
    expect(await page.locator("#comments .note .prose").last().innerText()).toBe("Signed off <b>today</b>");
    await Promise.all([page.waitForURL(/done=ticked/), page.locator(".checklist form button").first().click()]);
    const got = await toolOk(w.olga, "cards_get", { id: "WEB-2", include: ["comments"] });
    expect(got.checklist.items[0].done).toBe(true);
    expect(got.comments.at(-1).body).toBe("Signed off <b>today</b>");
    await page.fill("#time-minutes", "1h 30m");
    await page.fill("#time-note", "Sign-off meeting");
    await Promise.all([page.waitForURL(/done=logged/), page.click('form[action$="/time"] button')]);
    const logs = await toolOk(w.olga, "time_logs_list", { cardId: "WEB-2" });
    expect(logs.items[0]).toMatchObject({ minutes: 90, note: "Sign-off meeting", billable: true });
    // A bad duration is a 400 with the reason beside the form, never a 500.
    await page.fill("#time-minutes", "forever");
    const [bad] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith("/time")),
      page.click('form[action$="/time"] button'),
    ]);
    expect(bad.status()).toBe(400);
    expect(await page.locator("#time .notice.error").innerText()).toContain("between 1 minute and 24 hours");
    // Move from the card page comes back to the card.
    await page.locator("aside form.move select").selectOption({ label: "Done" });
    await Promise.all([page.waitForURL(/cards\/2\?done=moved/), page.click("aside form.move button")]);
    expect((await toolOk(w.olga, "cards_get", { id: "WEB-2" })).column.name).toBe("Done");
    expect(seen.dialogs).toEqual([]);
    await ctx.close();
  }, 60_000);

  test("planted markup stays text on the board, the card and the timesheet", async () => {
    const { ctx, page, seen } = await signIn("olga@acme.test");
    await page.goto(`${w.s.url}/projects/WEB`);
    const hostile = page.locator(`li.kcard[data-card="${w.hostileKey}"]`);
    expect(await hostile.locator(".kcard-title").innerText()).toBe(XSS_TITLE);
    const n = w.hostileKey.split("-")[1];
    await page.goto(`${w.s.url}/projects/WEB/cards/${n}`);
    expect(await page.locator("h1").innerText()).toContain(XSS_TITLE);
    expect(await page.locator("main .prose").first().innerText()).toContain("<script>alert(4)</script>");
    expect(await page.locator("#comments .prose").innerText()).toBe("<script>alert(5)</script> **not markup**");
    expect(await page.locator("main img, main script").count()).toBe(0);
    await page.goto(`${w.s.url}/projects/WEB/cards/2`);
    expect(await page.locator(".checklist .item-text").allInnerTexts()).toContain("Case study <b>bold</b>");
    expect(await page.locator(".checklist b").count()).toBe(0);
    expect(seen.dialogs).toEqual([]);
    expect(seen.errors).toEqual([]);
    await ctx.close();
  }, 30_000);

  test("another company's project, card and sprint are 404 both ways", async () => {
    const rita = await signIn("rita@rival.test");
    for (const path of [
      "/projects/WEB",
      "/projects/WEB/cards/1",
      `/projects/WEB/sprints/${w.sprints.running}`,
      `/projects/RIV/sprints/${w.sprints.running}`,
      "/projects-time?project=WEB",
    ]) {
      const res = await rita.page.goto(`${w.s.url}${path}`);
      expect({ path, status: res!.status() }).toEqual({ path, status: 404 });
      expect(await rita.page.locator("main").innerText()).not.toContain("Website relaunch");
    }
    expect((await rita.page.goto(`${w.s.url}/projects/RIV`))!.status()).toBe(200);
    // Rita's own board does not list Acme's cards; her timesheet holds none of Acme's time.
    expect(await rita.page.locator(".kcard").allInnerTexts()).toEqual([expect.stringContaining("Rival card")]);
    await rita.page.goto(`${w.s.url}/projects-time`);
    expect(await rita.page.locator("main").innerText()).toContain("No time logged this week.");
    // Acme's owner cannot reach Rival's project or its sprint through her own project's path.
    const olga = await signIn("olga@acme.test");
    for (const path of [
      "/projects/RIV",
      "/projects/RIV/cards/1",
      `/projects/WEB/sprints/${w.sprints.rival}`,
      `/projects/INT/sprints/${w.sprints.running}`,
      "/projects/WEB/cards/999",
    ])
      expect({ path, status: (await olga.page.goto(`${w.s.url}${path}`))!.status() }).toEqual({ path, status: 404 });
    // And a move of Rival's card id from Acme's board is not found, changing nothing.
    const rivalCard = (await toolOk(w.rita, "cards_get", { id: "RIV-1" })).id;
    const csrf = await olga.page.locator('header input[name="_csrf"]').first().inputValue();
    const res = await olga.page.request.post(`${w.s.url}/projects/WEB/move`, {
      form: { _csrf: csrf, card: String(rivalCard), column: "1" },
      headers: { Origin: w.s.url },
      maxRedirects: 0,
    });
    expect(res.status()).toBe(404);
    expect((await toolOk(w.rita, "cards_get", { id: "RIV-1" })).column.name).toBe("Backlog");
    await rita.ctx.close();
    await olga.ctx.close();
  }, 30_000);

  test("a post without the CSRF token, or from another site, is refused", async () => {
    const { ctx, page } = await signIn("olga@acme.test");
    await page.goto(`${w.s.url}/projects/WEB`);
    const before = (await toolOk(w.olga, "cards_list", { projectId: "WEB", limit: 100 })).total;
    await expectForgedPostsRefused(page, w.s.url, "/projects/WEB/cards", { title: "forged" });
    expect((await toolOk(w.olga, "cards_list", { projectId: "WEB", limit: 100 })).total).toBe(before);
    await ctx.close();
  }, 30_000);

  test("the timesheet shows each person's week and walks between weeks", async () => {
    const { ctx, page } = await signIn("olga@acme.test");
    await page.goto(`${w.s.url}/projects-time`);
    const week = new URL(page.url()).searchParams.get("week");
    expect(week).toBeNull();
    const rows = await page.locator("#timesheet tbody tr").allInnerTexts();
    expect(rows.at(-1)).toMatch(/^All/);
    await page.click('a[rel="prev"]');
    const prev = new URL(page.url()).searchParams.get("week")!;
    expect(new Date(`${prev}T00:00:00Z`).getUTCDay()).toBe(1);
    const from = prev;
    const to = new Date(Date.parse(`${prev}T00:00:00Z`) + 6 * 86_400_000).toISOString().slice(0, 10);
    const sheet = await toolOk(w.olga, "timesheet_get", { from, to });
    const text = await page.locator("#timesheet").innerText();
    for (const p of sheet.people) expect(text).toContain(p.name);
    if (!sheet.people.length) expect(text).toContain("No time logged this week.");
    expect((await page.goto(`${w.s.url}/projects-time?week=not-a-date`))!.status()).toBe(200);
    await ctx.close();
  }, 30_000);
});
