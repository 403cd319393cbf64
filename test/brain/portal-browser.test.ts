/**
 * The brain pages in headless Chromium (issue 31): search with its results
 * grouped by kind, a record (a meeting with its decisions and the tasks its
 * action items became, a document, a person), and the review queue,
 * against a real server whose knowledge base agents filled over MCP. A
 * viewer sees and cannot decide (no forms; a post is refused); an owner
 * approves and rejects, and brain_reviews_get over MCP shows it; the person
 * who asked for a change gets a notice instead of the forms, and a post of
 * theirs is refused; another company's ids are 404; planted markup stays
 * text; a post without the CSRF token or from another origin is refused;
 * axe-core finds nothing serious; at 390 px nothing overflows sideways.
 * Screenshots go to test-artifacts/ (docs/img/ keeps one each with
 * PLINTH_DOC_SHOTS=1). Runs on SQLite and, through
 * scripts/with-postgres.ts, on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { callTool, toolOk } from "../fixtures/accounts";
import {
  ARTIFACTS,
  checkEveryPage,
  expectForgedPostsRefused,
  launchChromium,
  signInAs,
} from "../fixtures/portal-browser";
import { type BrainWorld, brainWorld, EDITED_BODY, PASSWORD, XSS_BODY, XSS_DECISION, XSS_TITLE } from "./portal-world";

let w: BrainWorld;
let browser: Browser;

beforeAll(async () => {
  w = await brainWorld();
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
/** The review ids the queue shows, in its order. */
const shownReviews = (page: Page) =>
  page.locator("article[data-review]").evaluateAll((els) => els.map((e) => Number((e as HTMLElement).dataset.review)));

describe("brain pages", () => {
  test("every page: strict CSP, no serious axe findings, screenshots, no overflow at 390 px", async () => {
    const pages: [name: string, path: string][] = [
      ["search", "/brain?q=northwind"],
      ["home", "/brain"],
      ["meeting", `/brain/records/${w.ids.meeting}`],
      ["document", `/brain/records/${w.ids.doc}`],
      ["person", `/brain/records/${w.ids.dana}`],
      ["task", `/brain/records/${w.ids.tasks[0]}`],
      ["reviews", "/brain/reviews"],
      ["reviews-all", "/brain/reviews?status=any"],
    ];
    await checkEveryPage({
      browser,
      base: w.s.url,
      password: PASSWORD,
      prefix: "brain",
      pages,
      emails: ["olga@acme.test", "vic@acme.test"],
      // The viewer's look at the three kinds of page (the owner's covers every page).
      visits: (email, name) => email === "olga@acme.test" || ["search", "meeting", "reviews"].includes(name),
      docShot: (name) => (["search", "meeting", "reviews"].includes(name) ? `brain-${name}.png` : undefined),
    });
  }, 180_000);

  test("search shows what brain_search finds, grouped by kind in rank order, the matched words marked", async () => {
    const { ctx, page } = await signIn("vic@acme.test");
    await page.goto(`${w.s.url}/brain`);
    await page.fill("#q", "northwind");
    await Promise.all([page.waitForURL(/q=northwind/), page.click('#search button[type="submit"]')]);
    const found = await toolOk(w.olga, "brain_search", { query: "northwind" });
    const shown = await page
      .locator("section[data-kind] li[data-record]")
      .evaluateAll((els) => els.map((e) => Number((e as HTMLElement).dataset.record)));
    expect(shown.sort((a, b) => a - b)).toEqual(
      found.items.map((i: { id: number }) => i.id).sort((a: number, b: number) => a - b),
    );
    const kinds = await page
      .locator("section[data-kind]")
      .evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.kind));
    const firstOfKind = [...new Set((found.items as { kind: string }[]).map((i) => i.kind))];
    expect(kinds).toEqual(firstOfKind);
    expect(await page.locator("section[data-kind=meeting] h2").innerText()).toContain("Meetings");
    // The «marked» words of brain_search's snippet are <mark>s (the engines mark differently: PostgreSQL keeps case).
    const eli = found.items.find((i: { id: number }) => i.id === w.ids.eli);
    const marked = [...(eli.snippet as string).matchAll(/«([^»]*)»/g)].map((m) => m[1]);
    expect(marked.length).toBeGreaterThan(0);
    expect(await page.locator(`li[data-record="${w.ids.eli}"] mark`).allInnerTexts()).toEqual(marked);
    // The kind filter narrows to one kind, as brain_search's kinds does.
    await page.goto(`${w.s.url}/brain?q=northwind&kind=person`);
    expect(
      await page.locator("section[data-kind]").evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.kind)),
    ).toEqual(["person"]);
    expect(await page.locator("#kind").inputValue()).toBe("person");
    // No match says so; bad input is a 400 naming it, never a 500.
    await page.goto(`${w.s.url}/brain?q=zebrafish`);
    expect(await page.locator("main").innerText()).toContain("Nothing matches");
    for (const query of ["kind=bogus", `q=${"x".repeat(501)}`, "q=a&kind=%3Cb%3E"]) {
      const res = await page.goto(`${w.s.url}/brain?${query}`);
      expect({ query: query.slice(0, 20), status: res!.status() }).toEqual({ query: query.slice(0, 20), status: 400 });
    }
    // Without a search: the records most recently changed, as brain_records_list lists them.
    await page.goto(`${w.s.url}/brain?kind=task`);
    const tasks = await toolOk(w.olga, "brain_records_list", { kind: "task" });
    const rows = await page
      .locator("#records tbody tr")
      .evaluateAll((els) => els.map((e) => Number((e as HTMLElement).dataset.record)));
    expect(rows).toEqual(tasks.items.map((t: { id: number }) => t.id));
    await ctx.close();
  }, 60_000);

  test("a meeting shows its decisions, its action items as task links, and its attendees", async () => {
    const { ctx, page } = await signIn("vic@acme.test");
    await page.goto(`${w.s.url}/brain/records/${w.ids.meeting}`);
    const got = await toolOk(w.olga, "brain_records_get", { id: w.ids.meeting });
    expect(await page.locator("h1").innerText()).toBe(got.title);
    expect(await page.locator("#decisions li").allInnerTexts()).toEqual(got.decisions);
    const taskLinks = await page
      .locator("#tasks li[data-task] p.note-title > a")
      .evaluateAll((els) => els.map((e) => [e.textContent, e.getAttribute("href")]));
    expect(taskLinks).toEqual([
      ["Draft the homepage wireframes", `/brain/records/${w.ids.tasks[0]}`],
      ["Send the product feed", `/brain/records/${w.ids.tasks[1]}`],
    ]);
    expect(await page.locator(`#tasks li[data-task="${w.ids.tasks[0]}"]`).innerText()).toContain(
      "Assigned to Dana Designer · due 2026-03-09",
    );
    expect(await page.locator(`#tasks li[data-task="${w.ids.tasks[0]}"] .badge`).innerText()).toBe("open");
    const related = await page.locator("#related a").evaluateAll((els) => els.map((e) => e.getAttribute("href")));
    expect(related).toContain(`/brain/records/${w.ids.dana}`);
    expect(related).toContain(`/brain/records/${w.ids.eli}`);
    expect(related).toContain(`/brain/records/${w.ids.doc}`);
    // The links lead on: the task names its meeting and assignee; the person lists meeting and task.
    await page.click(`#tasks li[data-task="${w.ids.tasks[0]}"] a`);
    expect(await page.locator("aside").innerText()).toContain("Dana Designer");
    expect(await page.locator("#related").innerText()).toContain("Kickoff with Northwind");
    await page.goto(`${w.s.url}/brain/records/${w.ids.dana}`);
    expect(await page.locator("aside").innerText()).toContain("dana@acme.test");
    expect(await page.locator("#assigned").innerText()).toContain("Draft the homepage wireframes");
    expect(await page.locator("#related").innerText()).toContain("Kickoff with Northwind");
    expect(await page.locator("#backlinks").innerText()).toContain("Relaunch brief");
    // A document: its text as written, and what it links.
    await page.goto(`${w.s.url}/brain/records/${w.ids.doc}`);
    expect(await page.locator("#body .prose").innerText()).toContain("[[Kickoff with Northwind]]");
    await ctx.close();
  }, 60_000);

  test("a viewer reads the queue but gets no forms, and a decision of theirs is refused", async () => {
    const { ctx, page } = await signIn("vic@acme.test");
    await page.goto(`${w.s.url}/brain/reviews`);
    expect((await shownReviews(page)).length).toBeGreaterThanOrEqual(3);
    expect(await page.locator("main form[method=post], main input[name=reason]").count()).toBe(0);
    expect(await page.locator("main").innerText()).toContain("owners and admins approve or reject");
    const csrf = await csrfOf(page);
    for (const [action, form] of [
      ["approve", {}],
      ["reject", { reason: "no" }],
    ] as const) {
      const r = await post(page, `/brain/reviews/${w.ids.reviews.approve}/${action}`, { _csrf: csrf, ...form });
      expect({ action, status: r.status() }).toEqual({ action, status: 403 });
    }
    expect((await toolOk(w.olga, "brain_reviews_get", { id: w.ids.reviews.approve })).status).toBe("pending");
    await ctx.close();
  }, 30_000);

  test("the person who asked sees why they cannot decide; their post is refused; another admin can", async () => {
    const olga = await signIn("olga@acme.test");
    await olga.page.goto(`${w.s.url}/brain/reviews`);
    const own = olga.page.locator(`#review-${w.ids.reviews.own}`);
    expect(await own.locator("form").count()).toBe(0);
    expect(await own.innerText()).toContain("You asked for this change yourself");
    expect(await olga.page.locator(`#review-${w.ids.reviews.approve} form`).count()).toBe(2);
    const r = await post(olga.page, `/brain/reviews/${w.ids.reviews.own}/approve`, {
      _csrf: await csrfOf(olga.page),
    });
    expect(r.status()).toBe(403);
    expect(await r.text()).toContain("You asked for this change yourself");
    expect((await toolOk(w.olga, "brain_reviews_get", { id: w.ids.reviews.own })).status).toBe("pending");
    // Over MCP her agent is refused by the verb itself.
    expect((await callTool(w.olga, "brain_reviews_approve", { id: w.ids.reviews.own })).isError).toBe(true);
    // Sam, another admin, gets the forms for it (and not for the two he asked for).
    const sam = await signIn("sam@acme.test");
    await sam.page.goto(`${w.s.url}/brain/reviews`);
    expect(await sam.page.locator(`#review-${w.ids.reviews.own} form`).count()).toBe(2);
    expect(await sam.page.locator(`#review-${w.ids.reviews.approve} form`).count()).toBe(0);
    await olga.ctx.close();
    await sam.ctx.close();
  }, 30_000);

  test("a held edit shows brain_reviews_get's body diff as text, and the record says a change awaits review", async () => {
    const { ctx, page, seen } = await signIn("vic@acme.test");
    await page.goto(`${w.s.url}/brain/reviews`);
    const got = await toolOk(w.olga, "brain_reviews_get", { id: w.ids.reviews.edit });
    const card = page.locator(`#review-${w.ids.reviews.edit}`);
    expect(await card.locator("pre").innerText()).toBe(got.bodyDiff);
    expect(await card.locator("pre").innerText()).toContain("+<img src=x onerror=alert(6)>");
    // Only the body changes, and it is shown as its diff: no empty field table beside it.
    expect(await card.locator("table").count()).toBe(0);
    expect(await card.locator("a").first().getAttribute("href")).toBe(`/brain/records/${w.ids.doc}`);
    expect(await card.innerText()).toContain("through MCP key");
    expect(await page.locator("main img").count()).toBe(0);
    // The record itself is unchanged until someone decides, and points to the queue.
    await page.goto(`${w.s.url}/brain/records/${w.ids.doc}`);
    expect(await page.locator("#body .prose").innerText()).not.toContain(EDITED_BODY);
    expect(await page.locator(".notice").first().innerText()).toContain("A change to this record awaits review");
    expect(seen.dialogs).toEqual([]);
    await ctx.close();
  }, 30_000);

  test("an owner approves and rejects; brain_reviews_get over MCP shows each, and the record goes", async () => {
    const { ctx, page, seen } = await signIn("olga@acme.test");
    await page.goto(`${w.s.url}/brain/reviews`);
    // Rejecting without a reason is a 400 with the reason beside the form, never a 500.
    const blank = await post(page, `/brain/reviews/${w.ids.reviews.reject}/reject`, {
      _csrf: await csrfOf(page),
      reason: "  ",
    });
    expect(blank.status()).toBe(400);
    expect(await blank.text()).toContain("Reason is required.");
    const rejectForm = page.locator(`#review-${w.ids.reviews.reject} form.reject`);
    await rejectForm.locator("input[name=reason]").fill("We still need the <b>partner</b> list.");
    await Promise.all([page.waitForURL(/done=rejected/), rejectForm.locator("button").click()]);
    const rejected = await toolOk(w.olga, "brain_reviews_get", { id: w.ids.reviews.reject });
    expect(rejected.status).toBe("rejected");
    expect(rejected.comment).toBe("We still need the <b>partner</b> list.");
    expect((await toolOk(w.olga, "brain_records_get", { id: w.ids.held.reject })).title).toBe("Partner list 2025");

    const approveForm = page.locator(`#review-${w.ids.reviews.approve} form.approve`);
    await approveForm.locator("input[name=comment]").fill("Outdated, fine to drop.");
    await Promise.all([page.waitForURL(/done=approved/), approveForm.locator("button").click()]);
    expect(await page.locator(".notice.ok").innerText()).toContain("Approved");
    const approved = await toolOk(w.olga, "brain_reviews_get", { id: w.ids.reviews.approve });
    expect(approved.status).toBe("approved");
    expect((await callTool(w.olga, "brain_records_get", { id: w.ids.held.approve })).isError).toBe(true);
    expect((await page.goto(`${w.s.url}/brain/records/${w.ids.held.approve}`))!.status()).toBe(404);
    // Decided ones leave the pending queue and show under their status, with the reason as text.
    await page.goto(`${w.s.url}/brain/reviews`);
    expect(await shownReviews(page)).toEqual([w.ids.reviews.edit, w.ids.reviews.own]);
    await page.goto(`${w.s.url}/brain/reviews?status=rejected`);
    expect(await page.locator(`#review-${w.ids.reviews.reject} q`).innerText()).toBe(
      "We still need the <b>partner</b> list.",
    );
    // Deciding again is a conflict shown beside the review, changing nothing.
    const again = await post(page, `/brain/reviews/${w.ids.reviews.approve}/approve`, { _csrf: await csrfOf(page) });
    expect(again.status()).toBe(409);
    for (const query of ["status=bogus", "status=%3Cb%3E"])
      expect((await page.goto(`${w.s.url}/brain/reviews?${query}`))!.status()).toBe(400);
    expect(seen.dialogs).toEqual([]);
    await ctx.close();
  }, 60_000);

  test("planted markup stays text in search, the record, its decisions and the review queue", async () => {
    const { ctx, page, seen } = await signIn("olga@acme.test");
    await page.goto(`${w.s.url}/brain?q=planted`);
    expect(await page.locator(`li[data-record="${w.ids.hostile}"] a`).innerText()).toBe(XSS_TITLE);
    await page.goto(`${w.s.url}/brain/records/${w.ids.hostile}`);
    expect(await page.locator("h1").innerText()).toBe(XSS_TITLE);
    expect(await page.locator("#body .prose").innerText()).toBe(XSS_BODY);
    await page.goto(`${w.s.url}/brain/records/${w.ids.meeting}`);
    expect(await page.locator("#decisions li").nth(1).innerText()).toBe(XSS_DECISION);
    expect(await page.locator("main img, main script, main b").count()).toBe(0);
    await page.goto(`${w.s.url}/brain?q=${encodeURIComponent(XSS_TITLE)}`);
    expect(await page.locator("#q").inputValue()).toBe(XSS_TITLE);
    expect(await page.locator("main img, main script").count()).toBe(0);
    expect(seen.dialogs).toEqual([]);
    expect(seen.errors).toEqual([]);
    await ctx.close();
  }, 30_000);

  test("another company's records and reviews are 404 both ways, and its search finds none of ours", async () => {
    const rita = await signIn("rita@rival.test");
    await rita.page.goto(`${w.s.url}/brain?q=northwind`);
    expect(await rita.page.locator("li[data-record]").count()).toBe(0);
    for (const id of [w.ids.meeting, w.ids.doc, w.ids.dana]) {
      const res = await rita.page.goto(`${w.s.url}/brain/records/${id}`);
      expect({ id, status: res!.status() }).toEqual({ id, status: 404 });
    }
    await rita.page.goto(`${w.s.url}/brain/reviews`);
    expect(await shownReviews(rita.page)).toEqual([w.rival.review]);
    const r = await post(rita.page, `/brain/reviews/${w.ids.reviews.own}/approve`, {
      _csrf: await csrfOf(rita.page),
    });
    expect(r.status()).toBe(404);
    expect((await toolOk(w.olga, "brain_reviews_get", { id: w.ids.reviews.own })).status).toBe("pending");
    const olga = await signIn("olga@acme.test");
    expect((await olga.page.goto(`${w.s.url}/brain/records/${w.rival.doc}`))!.status()).toBe(404);
    const back = await post(olga.page, `/brain/reviews/${w.rival.review}/reject`, {
      _csrf: await csrfOf(olga.page),
      reason: "from Acme",
    });
    expect(back.status()).toBe(404);
    expect((await toolOk(w.rita, "brain_reviews_get", { id: w.rival.review })).status).toBe("pending");
    for (const path of ["/brain/records/999999", "/brain/records/abc", "/brain/records/0", "/brain/records/%231"])
      expect({ path, status: (await olga.page.goto(`${w.s.url}${path}`))!.status() }).toEqual({ path, status: 404 });
    await rita.ctx.close();
    await olga.ctx.close();
  }, 30_000);

  test("a decision without the CSRF token, or from another site, is refused", async () => {
    const { ctx, page } = await signIn("sam@acme.test");
    await page.goto(`${w.s.url}/brain/reviews`);
    await expectForgedPostsRefused(page, w.s.url, `/brain/reviews/${w.ids.reviews.own}/approve`);
    expect((await toolOk(w.olga, "brain_reviews_get", { id: w.ids.reviews.own })).status).toBe("pending");
    await ctx.close();
  }, 30_000);
});
