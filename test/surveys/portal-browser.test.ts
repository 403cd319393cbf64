/**
 * The surveys pages in headless Chromium (issue 31): the list of surveys
 * and one survey with its summary per question (choices and ratings as
 * bar charts with their figures, NPS as its score and split, text answers
 * listed), its responses a page at a time and the CSV export, against a
 * real server where an agent made the surveys over MCP and visitors
 * answered through the public form's verb. A viewer sees and exports but
 * cannot act (no forms; a post is refused); an admin closes and reopens a
 * survey and surveys_get over MCP shows each; another company's ids are
 * 404; planted markup stays text and formulas are neutralised in the
 * export; a post without the CSRF token or from another origin is refused;
 * axe-core finds nothing serious; at 390 px nothing overflows sideways.
 * Screenshots go to test-artifacts/ (docs/img/ keeps one each with
 * PLINTH_DOC_SHOTS=1). Runs on SQLite and, through
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
import { FORMULA, NPS, PASSWORD, type SurveysWorld, surveysWorld, XSS_ANSWER, XSS_TITLE } from "./portal-world";

let w: SurveysWorld;
let browser: Browser;

beforeAll(async () => {
  w = await surveysWorld();
  browser = await launchChromium();
  mkdirSync(ARTIFACTS, { recursive: true });
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await w?.stop();
}, 30_000);

const signIn = (email: string, width = 1280) => signInAs(browser, w.s.url, email, PASSWORD, width);
const csrfOf = (page: Page) => page.locator('header input[name="_csrf"]').first().inputValue();
const rows = (page: Page, table: string, attr: string) =>
  page
    .locator(`#${table} tbody tr`)
    .evaluateAll((els, a) => els.map((e) => Number((e as HTMLElement).getAttribute(`data-${a}`))), attr);
/** A chart's table as rows of cells (the category, then one figure per series). */
const figures = (page: Page, scope: string) =>
  page
    .locator(`${scope} .chart-table tbody tr`)
    .evaluateAll((trs) => trs.map((tr) => [...tr.children].map((td) => (td as HTMLElement).innerText)));

describe("surveys pages", () => {
  test("every page: strict CSP, no serious axe findings, screenshots, no overflow at 390 px", async () => {
    const pages: [name: string, path: string][] = [
      ["surveys", "/surveys"],
      ["survey", `/surveys/${w.ids.survey}`],
      ["survey-pending", `/surveys/${w.ids.pending}`],
    ];
    await checkEveryPage({
      browser,
      base: w.s.url,
      password: PASSWORD,
      prefix: "surveys",
      pages,
      emails: ["olga@acme.test", "vic@acme.test"],
      docShot: (name) => (name === "survey-pending" ? undefined : `surveys-${name}.png`),
    });
  }, 180_000);

  test("the list is surveys_list's, with state, response counts and the approval link of one waiting", async () => {
    const { ctx, page } = await signIn("vic@acme.test");
    await page.goto(`${w.s.url}/surveys`);
    const listed = (await toolOk(w.olga, "surveys_list", { limit: 100 })).items;
    expect(await rows(page, "surveys", "survey")).toEqual(listed.map((x: { id: number }) => x.id));
    const row = (id: number) => page.locator(`tr[data-survey="${id}"]`);
    expect(await row(w.ids.survey).locator(".badge").innerText()).toBe("open");
    // The count is surveys_list's responseCount: finished responses (the four left unfinished are not in it).
    const mine = listed.find((x: { id: number }) => x.id === w.ids.survey);
    expect(await row(w.ids.survey).locator("td.num").innerText()).toBe(String(mine.responseCount));
    expect(mine.responseCount).toBe(20);
    expect(await row(w.ids.pending).locator(".badge").innerText()).toBe("awaiting approval");
    expect(await page.locator("a.approval").count()).toBe(1);
    expect(await row(w.ids.pending).locator("a.approval").getAttribute("href")).toBe(
      `/approvals/${w.ids.pendingApproval}`,
    );
    await ctx.close();
  }, 30_000);

  test("the summary per question is survey_responses_summarize's: NPS split and score, choices and ratings as charts", async () => {
    const { ctx, page } = await signIn("vic@acme.test");
    await page.goto(`${w.s.url}/surveys/${w.ids.survey}`);
    const sum = await toolOk(w.olga, "survey_responses_summarize", { surveyId: w.ids.survey });
    const q = (id: string) => sum.questions.find((x: { id: string }) => x.id === id);
    expect(q("nps").nps).toEqual({
      score: NPS.score,
      promoters: NPS.promoters,
      passives: NPS.passives,
      detractors: NPS.detractors,
    });
    expect(await page.locator("[data-figure=responses] .stat-n").innerText()).toBe(String(sum.responses));
    expect(await page.locator("[data-figure=finished] .stat-n").innerText()).toBe(String(sum.finished));
    // NPS: the score and the split in words and figures, and the split as a chart with its table.
    const nps = page.locator("#q-nps");
    expect(await nps.locator("[data-figure=score] .stat-n").innerText()).toBe(String(NPS.score));
    expect(await nps.locator("[data-figure=promoters] .stat-n").innerText()).toBe(String(NPS.promoters));
    expect(await nps.locator("[data-figure=passives] .stat-n").innerText()).toBe(String(NPS.passives));
    expect(await nps.locator("[data-figure=detractors] .stat-n").innerText()).toBe(String(NPS.detractors));
    expect(await nps.locator("svg").count()).toBe(1);
    expect(await figures(page, "#q-nps")).toEqual([
      ["Detractors (0–6)", String(NPS.detractors)],
      ["Passives (7–8)", String(NPS.passives)],
      ["Promoters (9–10)", String(NPS.promoters)],
    ]);
    // Choices: one bar per choice (and "Other"), the counts the verb counts.
    expect(await figures(page, "#q-visits")).toEqual(
      q("visits").choices.map((x: { label: string; count: number }) => [x.label, String(x.count)]),
    );
    expect(await figures(page, "#q-drinks")).toEqual(
      q("drinks").choices.map((x: { label: string; count: number }) => [x.label, String(x.count)]),
    );
    expect(await figures(page, "#q-pastry")).toEqual(
      q("pastry").distribution.map((d: { value: number; count: number }) => [String(d.value), String(d.count)]),
    );
    // "Other" texts and text answers are listed, newest first, as the verb samples them.
    expect(await page.locator("#q-visits .answers .prose").allInnerTexts()).toEqual(
      q("visits").otherTexts.map((t: { text: string }) => t.text),
    );
    expect(await page.locator("#q-why .answers .prose").allInnerTexts()).toEqual(
      q("why").latest.map((t: { text: string }) => t.text),
    );
    expect(await page.locator("#q-why").innerText()).toContain(`${q("why").answered} answers of ${q("why").seen}`);
    await ctx.close();
  }, 30_000);

  test("responses page 20 at a time in survey_responses_list's order", async () => {
    const { ctx, page } = await signIn("vic@acme.test");
    await page.goto(`${w.s.url}/surveys/${w.ids.survey}`);
    const all = (await toolOk(w.olga, "survey_responses_list", { surveyId: w.ids.survey, limit: 100 })).items;
    expect(await rows(page, "responses", "response")).toEqual(all.slice(0, 20).map((r: { id: number }) => r.id));
    const first = page.locator(`tr[data-response="${all[0].id}"]`);
    expect(await first.locator(".badge").innerText()).toBe(all[0].finished ? "finished" : "unfinished");
    expect(await first.innerText()).toContain("How likely are you to recommend us?: 9");
    await Promise.all([page.waitForURL(/page=2/), page.click("text=Older →")]);
    expect(await rows(page, "responses", "response")).toEqual(all.slice(20).map((r: { id: number }) => r.id));
    await ctx.close();
  }, 30_000);

  test("the export is survey_responses_export's CSV, formulas neutralised, for a viewer too", async () => {
    const { ctx, page } = await signIn("vic@acme.test");
    await page.goto(`${w.s.url}/surveys/${w.ids.survey}`);
    const link = page.locator("#survey-actions a[href$='/export.csv']");
    const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
    expect(download.suggestedFilename()).toMatch(/^customer-feedback.*-responses\.csv$/);
    const res = await page.request.get(`${w.s.url}/surveys/${w.ids.survey}/export.csv`);
    expect(res.status()).toBe(200);
    expect(res.headers()["content-type"]).toBe("text/csv; charset=utf-8");
    const csv = await res.text();
    const mcp = await toolOk(w.olga, "survey_responses_export", { surveyId: w.ids.survey, limit: 5000 });
    expect(csv).toBe(mcp.csv);
    expect(csv.split("\r\n").length).toBe(25);
    // The formula a visitor typed starts with a quote, so a spreadsheet shows it as text.
    expect(csv).toContain(`"'${FORMULA.replace(/"/g, '""')}"`);
    expect(csv).not.toMatch(/(^|,)=HYPERLINK/m);
    await ctx.close();
  }, 30_000);

  test("a viewer reads a survey but gets no forms, and every post is refused", async () => {
    const { ctx, page } = await signIn("vic@acme.test");
    await page.goto(`${w.s.url}/surveys/${w.ids.survey}`);
    expect(await page.locator("main form[method=post], main button").count()).toBe(0);
    expect(await page.locator("main").innerText()).toContain("owners and admins close and reopen it");
    const csrf = await csrfOf(page);
    for (const action of ["close", "reopen"]) {
      const r = await page.request.post(`${w.s.url}/surveys/${w.ids.survey}/${action}`, {
        form: { _csrf: csrf },
        headers: { Origin: w.s.url },
        maxRedirects: 0,
      });
      expect({ action, status: r.status() }).toEqual({ action, status: 403 });
    }
    expect((await toolOk(w.olga, "surveys_get", { id: w.ids.survey })).status).toBe("open");
    await ctx.close();
  }, 30_000);

  test("an admin closes and reopens a survey; surveys_get over MCP shows each", async () => {
    const { ctx, page, seen } = await signIn("sam@acme.test");
    const id = w.ids.survey;
    await page.goto(`${w.s.url}/surveys/${id}`);
    await Promise.all([page.waitForURL(/done=closed/), page.click('form[action$="/close"] button')]);
    expect((await toolOk(w.olga, "surveys_get", { id })).status).toBe("closed");
    expect(await page.locator(".lead .badge").innerText()).toBe("closed");
    expect(await page.locator(".notice.ok").innerText()).toContain("Survey closed");
    await Promise.all([page.waitForURL(/done=reopened/), page.click('form[action$="/reopen"] button')]);
    expect((await toolOk(w.olga, "surveys_get", { id })).status).toBe("open");
    // Reopening an open survey (a stale page) is the verb's conflict with its reason, never a 500.
    const csrf = await csrfOf(page);
    const again = await page.request.post(`${w.s.url}/surveys/${id}/reopen`, {
      form: { _csrf: csrf },
      headers: { Origin: w.s.url },
      maxRedirects: 0,
    });
    expect(again.status()).toBe(409);
    expect(await again.text()).toContain("only a closed survey can be reopened");
    expect(seen.dialogs).toEqual([]);
    await ctx.close();
  }, 60_000);

  test("planted markup stays text in the list, a title, answers and 'Other' texts", async () => {
    const { ctx, page, seen } = await signIn("olga@acme.test");
    await page.goto(`${w.s.url}/surveys`);
    expect(await page.locator(`tr[data-survey="${w.ids.pending}"] td a`).first().innerText()).toBe(XSS_TITLE);
    await page.goto(`${w.s.url}/surveys/${w.ids.pending}`);
    expect(await page.locator("h1").innerText()).toBe(XSS_TITLE);
    await page.goto(`${w.s.url}/surveys/${w.ids.survey}`);
    expect(await page.locator("#q-why .answers .prose").allInnerTexts()).toContain(XSS_ANSWER);
    expect(await page.locator("#q-visits .answers .prose").allInnerTexts()).toContain("<b>When it rains</b>");
    expect(await page.locator("main").innerText()).toContain(XSS_ANSWER);
    expect(await page.locator("main img, main script, main b").count()).toBe(0);
    expect(seen.dialogs).toEqual([]);
    expect(seen.errors).toEqual([]);
    await ctx.close();
  }, 30_000);

  test("another company's survey ids are 404 both ways, export included, and its list holds none of ours", async () => {
    const rita = await signIn("rita@rival.test");
    await rita.page.goto(`${w.s.url}/surveys`);
    expect(await rows(rita.page, "surveys", "survey")).toEqual([w.ids.rival]);
    for (const path of [`/surveys/${w.ids.survey}`, `/surveys/${w.ids.survey}/export.csv`]) {
      const res = await rita.page.request.get(`${w.s.url}${path}`);
      expect({ path, status: res.status() }).toEqual({ path, status: 404 });
      expect(await res.text()).not.toContain("oat milk");
    }
    const csrf = await csrfOf(rita.page);
    const r = await rita.page.request.post(`${w.s.url}/surveys/${w.ids.survey}/close`, {
      form: { _csrf: csrf },
      headers: { Origin: w.s.url },
      maxRedirects: 0,
    });
    expect(r.status()).toBe(404);
    expect((await toolOk(w.olga, "surveys_get", { id: w.ids.survey })).status).toBe("open");
    const olga = await signIn("olga@acme.test");
    for (const path of [`/surveys/${w.ids.rival}`, "/surveys/abc", "/surveys/0", "/surveys/99999/export.csv"])
      expect({ path, status: (await olga.page.request.get(`${w.s.url}${path}`)).status() }).toEqual({
        path,
        status: 404,
      });
    await rita.ctx.close();
    await olga.ctx.close();
  }, 30_000);

  test("a post without the CSRF token, or from another site, is refused", async () => {
    const { ctx, page } = await signIn("olga@acme.test");
    const id = w.ids.survey;
    await page.goto(`${w.s.url}/surveys/${id}`);
    await expectForgedPostsRefused(page, w.s.url, `/surveys/${id}/close`);
    expect((await toolOk(w.olga, "surveys_get", { id })).status).toBe("open");
    await ctx.close();
  }, 30_000);
});
