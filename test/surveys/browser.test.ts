/**
 * Surveys end to end in headless Chromium (playwright-core), as agents,
 * reviewers and visitors meet them: an agent drafts a survey over MCP (real
 * SDK client), the reviewer sees every question on the approval page and
 * approves, visitors answer at /s/<slug> with JavaScript and without it
 * (skip logic across pages decided by the server either way), and the agent
 * reads the responses and the summary over MCP. Script planted in every
 * text an agent or a visitor writes never runs on any of those pages.
 * Screenshots land in test-artifacts/.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { startTestServer, type TestServer } from "../harness";
import { anyoneWithLink } from "../fixtures/approvals";
import { makeWorld, type World } from "../cms/world";
import { FEEDBACK } from "./fixtures";

const T = 60_000;
const ARTIFACTS = join(import.meta.dir, "../../test-artifacts");
const XSS = `<script>alert("x")</script><img src=x onerror=alert("img")>`;

let s: TestServer;
let w: World;
let browser: Browser;
let withJs: BrowserContext;
let noJs: BrowserContext;

beforeAll(async () => {
  s = await startTestServer({ seed: false });
  w = await makeWorld(s);
  // Anyone with the link decides here: these pages are under test, not who decides (test/approvals/who-decides*.test.ts).
  await anyoneWithLink(s.deps, w.A.id);
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
  withJs = await browser.newContext();
  noJs = await browser.newContext({ javaScriptEnabled: false });
  mkdirSync(ARTIFACTS, { recursive: true });
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await s?.stop();
});

/** A page that records dialogs, so a script that runs cannot go unnoticed. */
async function openPage(ctx: BrowserContext, url: string): Promise<{ page: Page; dialogs: string[]; status: number }> {
  const page = await ctx.newPage();
  const dialogs: string[] = [];
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  const res = await page.goto(url);
  return { page, dialogs, status: res!.status() };
}

const text = async (page: Page, sel: string) =>
  (await page.locator(sel).first().innerText()).replace(/\s+/g, " ").trim();
const pick = (page: Page, id: string) => page.locator(`label[for="${id}"]`).click();

const HOSTILE = {
  ...FEEDBACK,
  title: `Harbor feedback ${XSS}`,
  description: `Intro ${XSS}`,
  pages: FEEDBACK.pages.map((p, i) =>
    i === 1 ? { ...p, questions: [{ ...p.questions[0]!, description: `Be honest ${XSS}` }] } : p,
  ),
};

describe("a survey from draft to responses", () => {
  let created: any;

  test(
    "the agent drafts it over MCP; the approval page previews every question faithfully, runs nothing, and approval opens it",
    async () => {
      created = await w.ok(w.owner, "surveys_create", { ...HOSTILE, siteId: w.siteA });
      expect(created.status).toBe("pending");
      expect((await fetch(`${s.url}/s/${created.slug}`)).status).toBe(404);

      const { page, dialogs, status } = await openPage(withJs, w.local(created.approval.url));
      expect(status).toBe(200);
      const preview = page.locator("#ap-content");
      await preview.waitFor();
      const shown = await preview.innerText();
      // Every question, with its options, rules and endings, exactly as written (script as text).
      for (const p of HOSTILE.pages) for (const q of p.questions) expect(shown).toContain(q.title);
      for (const label of [
        "Daily",
        "Weekly",
        "Rarely",
        "Other",
        "Espresso",
        "Filter",
        "Tea",
        "Not at all likely",
        "Extremely likely",
      ])
        expect(shown).toContain(label);
      expect(shown).toContain(`Be honest ${XSS}`);
      expect(shown).toContain("If “How likely are you to recommend us?” is at least 9, go to page “Last bits”.");
      expect(shown).toContain("If hidden field “source” is “vip”, end with “Thank you, regular!”.");
      expect(shown).toContain("Your next flat white is on us.");
      expect(shown).toContain("id nps · nps · required");
      expect(shown).toContain("id drinks · multiple choice · optional · choose 1–2");
      expect(shown).toContain("Hidden fields read from the address: source");
      expect(shown).toContain("Deutsch (de): 0 of");
      expect(await preview.locator(".sv-page-preview").count()).toBe(3);
      expect(await preview.locator('input[type="radio"]').count()).toBe(11 + 4 + 5);
      expect(
        await preview.locator("input:not([disabled]), textarea:not([disabled]), select:not([disabled])").count(),
      ).toBe(0);
      expect(await text(page, "dl.ap-facts")).toContain(`/s/${created.slug}`);
      expect(await page.locator("#ap-content script, #ap-content img").count()).toBe(0);
      await page.screenshot({ path: join(ARTIFACTS, "survey-approval.png"), fullPage: true });
      await page.click("button.approve");
      expect(await text(page, ".ap-notice.ok")).toContain("Approved");
      expect(dialogs).toEqual([]);
      await page.close();
      expect((await w.ok(w.owner, "surveys_get", { id: created.id })).status).toBe("open");
    },
    T,
  );

  test(
    "with JavaScript: errors focus the summary, skip logic leads through page 2, a double click stores one response",
    async () => {
      const { page, dialogs } = await openPage(withJs, `${s.url}/s/${created.slug}?source=web`);
      expect(await text(page, "h1")).toBe(`Harbor feedback ${XSS}`);
      expect(await page.locator("script").count()).toBe(1); // only the page's own nonce script
      await page.click("button.sv-btn-primary");
      await page.locator("#sv-errors").waitFor();
      expect(await page.evaluate(() => document.activeElement?.id)).toBe("sv-errors");
      expect(await text(page, "#sv-errors")).toContain(
        "How likely are you to recommend us?: Choose one of the options.",
      );
      expect(await page.locator('[id="q:nps"]').getAttribute("aria-describedby")).toBe("q:nps:error");
      await page.locator('#sv-errors a[href="#q:nps"]').click();
      await pick(page, "q:nps:v:4");
      await pick(page, "q:visits:c:weekly");
      await page.click("button.sv-btn-primary");
      expect(await text(page, "h2.sv-page-title")).toBe("Tell us more");
      expect(await text(page, ".sv-hint")).toBe(`Be honest ${XSS}`);
      await page.fill('[id="q:why"]', `Quieter music please ${XSS}`);
      await page.click("button.sv-btn-primary");
      expect(await text(page, "h2.sv-page-title")).toBe("Last bits");
      await pick(page, "q:drinks:c:espresso");
      await pick(page, "q:pastry:v:5");
      await page.screenshot({ path: join(ARTIFACTS, "survey-page.png"), fullPage: true });
      await page.locator("button.sv-btn-primary").dblclick();
      await page.locator(".sv-done").waitFor();
      expect(await text(page, "h1")).toBe("Thank you!");
      expect(dialogs).toEqual([]);
      await page.close();
    },
    T,
  );

  test(
    "without JavaScript: the server jumps a promoter past page 2, Back keeps answers, the form still submits",
    async () => {
      const { page } = await openPage(noJs, `${s.url}/s/${created.slug}`);
      await pick(page, "q:nps:v:10");
      await pick(page, "q:visits:c:other");
      await page.fill('[id="q:visits:other"]', "Monthly");
      await page.click("button.sv-btn-primary");
      expect(await text(page, "h2.sv-page-title")).toBe("Last bits");
      await page.click('button[value="back"]');
      expect(await text(page, "h2.sv-page-title")).toBe("About you");
      expect(await page.locator('[id="q:nps:v:10"]').isChecked()).toBe(true);
      expect(await page.locator('[id="q:visits:other"]').inputValue()).toBe("Monthly");
      await page.click("button.sv-btn-primary");
      await page.fill('[id="q:email"]', "not an email");
      await page.click("button.sv-btn-primary");
      expect(await text(page, '[id="q:email:error"]')).toContain("Enter an email address like name@example.com.");
      expect(await page.locator('[id="q:email"]').getAttribute("aria-invalid")).toBe("true");
      expect(await page.locator('[id="q:email"]').getAttribute("aria-describedby")).toBe("q:email:error");
      await page.fill('[id="q:email"]', "mo@example.com");
      await page.click("button.sv-btn-primary");
      expect(await text(page, "h1")).toBe("Thank you!");
      await page.screenshot({ path: join(ARTIFACTS, "survey-done-nojs.png"), fullPage: true });
      await page.close();
    },
    T,
  );

  test(
    "the agent reads the responses, the summary and a CSV over MCP",
    async () => {
      const list = await w.ok(w.owner, "survey_responses_list", { surveyId: created.id, filter: { finished: true } });
      expect(list.total).toBe(2);
      const [nojs, js] = list.items;
      expect(js).toMatchObject({
        hidden: { source: "web" },
        answers: { nps: 4, visits: "weekly", why: `Quieter music please ${XSS}`, drinks: ["espresso"], pastry: 5 },
      });
      expect(nojs).toMatchObject({
        answers: { nps: 10, visits: "other", email: "mo@example.com" },
        otherTexts: { visits: "Monthly" },
      });
      const sum = await w.ok(w.owner, "survey_responses_summarize", { surveySlug: created.slug });
      const nps = sum.questions.find((q: any) => q.id === "nps");
      // 4 and 10: one detractor, one promoter → 0; average 7.
      expect(nps).toMatchObject({
        answered: 2,
        average: 7,
        nps: { score: 0, promoters: 1, detractors: 1, passives: 0 },
      });
      expect(sum.questions.find((q: any) => q.id === "why")).toMatchObject({ seen: 1, answered: 1 });
      const csv = await w.ok(w.owner, "survey_responses_export", { surveyId: created.id });
      expect(csv.csv).toContain("Quieter music please <script>");
      const got = await w.ok(w.owner, "survey_responses_get", { id: js.id });
      expect(got.answersText.map((a: any) => a.text)).toContain("Espresso");
    },
    T,
  );
});

test(
  "every question type renders accessibly and submits without JavaScript",
  async () => {
    const choices = [
      { id: "a", label: "Alpha" },
      { id: "b", label: "Beta" },
      { id: "c", label: "Gamma" },
    ];
    const r = await w.ok(w.owner, "surveys_create", {
      title: "All the types",
      pages: [
        {
          questions: [
            { id: "st", type: "short_text", title: "Short text", required: true },
            { id: "lt", type: "long_text", title: "Long text" },
            { id: "sc", type: "single_choice", title: "Single", choices },
            { id: "mc", type: "multiple_choice", title: "Multiple", choices },
            { id: "ra", type: "rating", title: "Rating", scale: 7 },
            { id: "np", type: "nps", title: "NPS" },
            { id: "sl", type: "scale", title: "Scale", min: 1, max: 5, minLabel: "Disagree", maxLabel: "Agree" },
            { id: "dt", type: "date", title: "Date" },
            { id: "em", type: "email", title: "Email" },
            { id: "nu", type: "number", title: "Number", min: 0, max: 10 },
            {
              id: "mx",
              type: "matrix",
              title: "Matrix",
              rows: [
                { id: "r1", label: "Speed" },
                { id: "r2", label: "Taste" },
              ],
              columns: [
                { id: "lo", label: "Low" },
                { id: "hi", label: "High" },
              ],
            },
            { id: "rk", type: "ranking", title: "Ranking", choices },
          ],
        },
      ],
    });
    const approval = await openPage(withJs, w.local(r.approval.url));
    await approval.page.click("button.approve");
    // Closing while the decision's post is still navigating hangs page.close() in
    // Playwright under Bun now and then: wait for the answer page first.
    expect(await text(approval.page, ".ap-notice.ok")).toContain("Approved");
    await approval.page.close();
    const { page } = await openPage(noJs, `${s.url}/s/${r.slug}`);
    // Every input has an accessible name: a label, a legend-wrapped group, or labelled-by headers.
    const unnamed = await page.$$eval("input:not([type=hidden]), textarea, select", (els) =>
      els
        .filter((e) => !e.closest("[aria-hidden=true]"))
        .filter((e) => !(e as HTMLInputElement).labels?.length && !e.getAttribute("aria-labelledby"))
        .map((e) => e.outerHTML),
    );
    expect(unnamed).toEqual([]);
    expect(await page.locator("fieldset > legend").count()).toBe(7);
    await page.fill('[id="q:st"]', "Hello");
    await page.fill('[id="q:lt"]', "Line one\nLine two");
    await pick(page, "q:sc:c:b");
    await pick(page, "q:mc:c:a");
    await pick(page, "q:mc:c:c");
    await pick(page, "q:ra:v:6");
    await pick(page, "q:np:v:0");
    await pick(page, "q:sl:v:4");
    await page.fill('[id="q:dt"]', "2026-05-04");
    await page.fill('[id="q:em"]', "kim@example.com");
    await page.fill('[id="q:nu"]', "7,5");
    await page.locator('input[name="q.mx.r1"][value="hi"]').check();
    await page.locator('input[name="q.mx.r2"][value="lo"]').check();
    await page.selectOption('[id="q:rk:r:a"]', "3");
    await page.selectOption('[id="q:rk:r:b"]', "1");
    await page.selectOption('[id="q:rk:r:c"]', "2");
    await page.screenshot({ path: join(ARTIFACTS, "survey-all-types.png"), fullPage: true });
    await page.click("button.sv-btn-primary");
    expect(await text(page, "h1")).toBe("Thank you!");
    await page.close();
    const [resp] = (await w.ok(w.owner, "survey_responses_list", { surveyId: r.id })).items;
    expect(resp.answers).toEqual({
      st: "Hello",
      lt: "Line one\nLine two",
      sc: "b",
      mc: ["a", "c"],
      ra: 6,
      np: 0,
      sl: 4,
      dt: "2026-05-04",
      em: "kim@example.com",
      nu: 7.5,
      mx: { r1: "hi", r2: "lo" },
      rk: ["b", "c", "a"],
    });
    expect(statSync(join(ARTIFACTS, "survey-all-types.png")).size).toBeGreaterThan(5_000);
  },
  2 * T,
);

test(
  "the NPS scale: 0–10 on one row at 1280 px, two even rows at 390 px, end labels, a keyboard-operable radio group with a legend; no sideways scrolling",
  async () => {
    const r = await w.ok(w.owner, "surveys_create", {
      title: "How did we do?",
      description: "Two questions, one minute.",
      pages: [
        {
          questions: [
            { id: "np", type: "nps", title: "How likely are you to recommend us to a friend?", required: true },
            { id: "why", type: "long_text", title: "What is the main reason for your score?" },
          ],
        },
      ],
    });
    const approval = await openPage(withJs, w.local(r.approval.url));
    await approval.page.click("button.approve");
    expect(await text(approval.page, ".ap-notice.ok")).toContain("Approved");
    await approval.page.close();
    for (const width of [1280, 390]) {
      const ctx = await browser.newContext({ viewport: { width, height: 800 } });
      const { page, dialogs } = await openPage(ctx, `${s.url}/s/${r.slug}`);
      // Each cell's top on the page (a label's offsetTop is measured within its relatively positioned cell: always 0).
      const tops = await page.$$eval(".sv-nps .sv-point label", (ls) =>
        ls.map((l) => Math.round(l.getBoundingClientRect().top + window.scrollY)),
      );
      expect(tops).toHaveLength(11);
      const rows = [...new Set(tops)];
      if (width === 1280) expect(rows).toHaveLength(1);
      else {
        expect(rows).toHaveLength(2);
        expect(tops.filter((t) => t === rows[0])).toHaveLength(6);
      }
      // Every cell is the same width, wide enough to tap.
      const widths = await page.$$eval(".sv-nps .sv-point label", (ls) =>
        ls.map((l) => Math.round(l.getBoundingClientRect().width)),
      );
      expect(Math.max(...widths) - Math.min(...widths)).toBeLessThanOrEqual(1);
      expect(Math.min(...widths)).toBeGreaterThanOrEqual(40);
      expect(await text(page, ".sv-ends")).toBe("Not at all likely Extremely likely");
      expect(await text(page, "fieldset:has(.sv-nps) > legend")).toContain("How likely are you to recommend us");
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
      ).toBeLessThanOrEqual(0);
      expect(await page.locator("link[rel=icon]").first().getAttribute("href")).toBe("/favicon.ico");
      expect((await ctx.request.get(`${s.url}/favicon.ico`)).status()).toBe(200);
      // The keyboard: the group is one tab stop, arrows move the choice.
      await page.locator('[id="q:np:v:7"]').focus();
      await page.keyboard.press("ArrowRight");
      expect(await page.locator('[id="q:np:v:8"]').isChecked()).toBe(true);
      await page.screenshot({ path: join(ARTIFACTS, `survey-nps-${width}.png`), fullPage: true });
      expect(dialogs).toEqual([]);
      await ctx.close();
    }
  },
  T,
);
