/**
 * The automations pages in headless Chromium (issue 31): the automations
 * with their state, trigger and last run; one automation with its
 * definition and runs; one run with each step's input, output and error;
 * the outgoing webhooks with their recent deliveries — against a real
 * server whose automations and webhooks an agent made over MCP and whose
 * runs and deliveries really happened. A viewer sees and cannot act (no
 * forms; a post is refused); an owner turns an automation off and on,
 * retries a failed run and delivers again, and MCP shows each; another
 * company's ids are 404; planted markup stays text; a post without the
 * CSRF token or from another origin is refused; axe-core finds nothing
 * serious; at 390 px nothing overflows sideways. Screenshots go to
 * test-artifacts/ (docs/img/ keeps one each with PLINTH_DOC_SHOTS=1). Runs
 * on SQLite and, through scripts/with-postgres.ts, on PostgreSQL.
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
import { type AutomationsWorld, automationsWorld, PASSWORD, XSS_SUBJECT } from "./portal-world";

let w: AutomationsWorld;
let browser: Browser;

beforeAll(async () => {
  w = await automationsWorld();
  browser = await launchChromium();
  mkdirSync(ARTIFACTS, { recursive: true });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  w?.receiver.stop();
  await w?.s.stop();
}, 30_000);

const signIn = (email: string, width = 1280) => signInAs(browser, w.s.url, email, PASSWORD, width);
const csrfOf = (page: Page) => page.locator('header input[name="_csrf"]').first().inputValue();
const post = (page: Page, path: string, form: Record<string, string>, origin = w.s.url) =>
  page.request.post(`${w.s.url}${path}`, { form, headers: { Origin: origin }, maxRedirects: 0 });
const ids = (page: Page, selector: string, attr: string) =>
  page.locator(selector).evaluateAll((els, a) => els.map((e) => Number(e.getAttribute(a))), attr);

describe("automations pages", () => {
  test("every page: strict CSP, no serious axe findings, screenshots, no overflow at 390 px", async () => {
    const pages: [name: string, path: string][] = [
      ["list", "/automations"],
      ["automation", `/automations/${w.ids.failing}`],
      ["run", `/automations/runs/${w.ids.failedRun}`],
      ["webhooks", "/automations/webhooks"],
    ];
    await checkEveryPage({
      browser,
      base: w.s.url,
      password: PASSWORD,
      prefix: "automations",
      pages,
      emails: ["olga@acme.test", "vic@acme.test"],
    });
  }, 180_000);

  test("the list shows each automation's state, trigger and last run, as automations_list and runs say", async () => {
    const { ctx, page } = await signIn("vic@acme.test");
    await page.goto(`${w.s.url}/automations`);
    const listed = await toolOk(w.olga, "automations_list", {});
    expect(await ids(page, "#automations tbody tr", "data-automation")).toEqual(
      listed.items.map((a: { id: number }) => a.id),
    );
    const row = (id: number) => page.locator(`tr[data-automation="${id}"]`);
    expect(await row(w.ids.notify).locator("td").nth(1).innerText()).toBe("on");
    expect(await row(w.ids.weekly).locator("td").nth(1).innerText()).toBe("off");
    expect(await row(w.ids.weekly).innerText()).toContain("schedule 0 9 * * 1 (Europe/Paris)");
    expect(await row(w.ids.weekly).locator("td.last-run").innerText()).toBe("never");
    expect(await row(w.ids.notify).innerText()).toContain("event ticket.created");
    const lastFailing = (await toolOk(w.olga, "automation_runs_list", { automationId: w.ids.failing })).items[0];
    expect(await row(w.ids.failing).locator("td.last-run .badge").innerText()).toBe(lastFailing.status);
    expect(await row(w.ids.failing).locator("td.last-run a").getAttribute("href")).toBe(
      `/automations/runs/${lastFailing.id}`,
    );
    await ctx.close();
  }, 30_000);

  test("an automation shows its definition and its runs; a run shows each step's input, output and error", async () => {
    const { ctx, page } = await signIn("vic@acme.test");
    await page.goto(`${w.s.url}/automations/${w.ids.failing}`);
    const a = await toolOk(w.olga, "automations_get", { id: w.ids.failing });
    expect(JSON.parse(await page.locator("#trigger").innerText())).toEqual(a.trigger);
    expect(JSON.parse(await page.locator("#conditions").innerText())).toEqual(a.conditions);
    const steps = await page.locator("#actions pre").allInnerTexts();
    expect(steps.map((x) => JSON.parse(x))).toEqual(a.actions.map((x: { with: unknown }) => x.with));
    const runs = await toolOk(w.olga, "automation_runs_list", { automationId: w.ids.failing });
    expect(await ids(page, "#runs tbody tr", "data-run")).toEqual(runs.items.map((r: { id: number }) => r.id));

    await page.click(`tr[data-run="${w.ids.failedRun}"] a`);
    expect(page.url()).toBe(`${w.s.url}/automations/runs/${w.ids.failedRun}`);
    const run = await toolOk(w.olga, "automation_runs_get", { id: w.ids.failedRun });
    const cards = page.locator("li.step");
    expect(await cards.count()).toBe(run.steps.length);
    for (const [i, s] of (
      run.steps as { status: string; input: unknown; output: unknown; error: string | null }[]
    ).entries()) {
      const card = cards.nth(i);
      expect(await card.getAttribute("data-status")).toBe(s.status);
      expect(JSON.parse(await card.locator("pre.step-input").innerText())).toEqual(s.input);
      if (s.output === null) expect(await card.locator("pre.step-output").innerText()).toBe("—");
      else expect(JSON.parse(await card.locator("pre.step-output").innerText())).toEqual(s.output);
      if (s.error) expect(await card.locator("pre.step-error").innerText()).toBe(s.error);
      else expect(await card.locator("pre.step-error").count()).toBe(0);
    }
    expect(await cards.nth(1).locator(".badge").innerText()).toBe("failed");
    expect(JSON.parse(await page.locator("#trigger-data").innerText())).toEqual(run.trigger);
    // Runs page by twenty: a second page exists only when there are more.
    expect(await page.locator("main").innerText()).not.toContain("Page 1 of");
    await ctx.close();
  }, 30_000);

  test("webhooks show each subscription with its recent deliveries, status and attempts", async () => {
    const { ctx, page } = await signIn("vic@acme.test");
    await page.goto(`${w.s.url}/automations/webhooks`);
    expect(await ids(page, "section[data-webhook]", "data-webhook")).toEqual([w.ids.okHook, w.ids.downHook]);
    for (const hook of [w.ids.okHook, w.ids.downHook]) {
      const d = await toolOk(w.olga, "webhook_deliveries_list", { webhookId: hook });
      const section = page.locator(`#webhook-${hook}`);
      expect(await ids(page, `#webhook-${hook} tr[data-delivery]`, "data-delivery")).toEqual(
        d.items.map((x: { id: number }) => x.id),
      );
      for (const x of d.items as { id: number; status: string; attempts: number; lastStatusCode: number }[]) {
        const row = section.locator(`tr[data-delivery="${x.id}"]`);
        expect(await row.locator(".badge").innerText()).toBe(x.status);
        expect(await row.locator("td.num").innerText()).toBe(String(x.attempts));
        expect(await row.innerText()).toContain(`HTTP ${x.lastStatusCode}`);
      }
    }
    expect(await page.locator(`#webhook-${w.ids.downHook} tr[data-delivery] .badge`).first().innerText()).toBe(
      "pending",
    );
    expect(await page.locator(`#webhook-${w.ids.okHook} p.prose`).innerText()).toBe("Sync tickets to the <b>CRM</b>");
    await ctx.close();
  }, 30_000);

  test("a viewer gets no forms, and every post of theirs is refused", async () => {
    const { ctx, page } = await signIn("vic@acme.test");
    for (const path of [
      `/automations/${w.ids.notify}`,
      `/automations/runs/${w.ids.failedRun}`,
      "/automations/webhooks",
    ]) {
      await page.goto(`${w.s.url}${path}`);
      expect({ path, forms: await page.locator("main form[method=post]").count() }).toEqual({ path, forms: 0 });
    }
    const delivery = (await toolOk(w.olga, "webhook_deliveries_list", { webhookId: w.ids.okHook })).items[0].id;
    const csrf = await csrfOf(page);
    for (const [path, form] of [
      [`/automations/${w.ids.notify}/toggle`, { enabled: "off" }],
      [`/automations/runs/${w.ids.failedRun}/retry`, {}],
      [`/automations/webhooks/deliveries/${delivery}/redeliver`, {}],
    ] as const) {
      const r = await post(page, path, { _csrf: csrf, ...form });
      expect({ path, status: r.status() }).toEqual({ path, status: 403 });
    }
    expect((await toolOk(w.olga, "automations_get", { id: w.ids.notify })).enabled).toBe(true);
    expect((await toolOk(w.olga, "automation_runs_get", { id: w.ids.failedRun })).status).toBe("failed");
    expect((await toolOk(w.olga, "webhook_deliveries_get", { id: delivery })).status).toBe("succeeded");
    await ctx.close();
  }, 30_000);

  test("an owner turns an automation off and on, retries a failed run and delivers again; MCP shows each", async () => {
    const { ctx, page, seen } = await signIn("olga@acme.test");
    await page.goto(`${w.s.url}/automations/${w.ids.notify}`);
    await Promise.all([page.waitForURL(/done=off/), page.click("#toggle button")]);
    expect((await toolOk(w.olga, "automations_get", { id: w.ids.notify })).enabled).toBe(false);
    expect(await page.locator("aside .badge").first().innerText()).toBe("off");
    await Promise.all([page.waitForURL(/done=on/), page.click("#toggle button")]);
    expect((await toolOk(w.olga, "automations_get", { id: w.ids.notify })).enabled).toBe(true);
    // A state the form does not know is a 400, never a 500.
    const bad = await post(page, `/automations/${w.ids.notify}/toggle`, {
      _csrf: await csrfOf(page),
      enabled: "maybe",
    });
    expect(bad.status()).toBe(400);
    expect(await bad.text()).toContain("State must be on or off.");

    await page.goto(`${w.s.url}/automations/runs/${w.ids.failedRun}`);
    expect(await page.locator("#retry").count()).toBe(1);
    await Promise.all([page.waitForURL(/done=retried/), page.click("#retry button")]);
    expect((await toolOk(w.olga, "automation_runs_get", { id: w.ids.failedRun })).status).toBe("queued");
    expect(await page.locator("h1 .badge").innerText()).toBe("queued");
    expect(await page.locator("#retry").count()).toBe(0);
    // Retrying what is no longer failed is a conflict shown on the page, changing nothing.
    const again = await post(page, `/automations/runs/${w.ids.failedRun}/retry`, { _csrf: await csrfOf(page) });
    expect(again.status()).toBe(409);
    expect(await again.text()).toContain("only failed runs are retried");
    await w.settle();
    const after = await toolOk(w.olga, "automation_runs_get", { id: w.ids.failedRun });
    expect(after.status).toBe("failed");
    expect(after.attempts).toBe(2);

    await page.goto(`${w.s.url}/automations/webhooks`);
    const delivery = (await toolOk(w.olga, "webhook_deliveries_list", { webhookId: w.ids.okHook })).items[0].id;
    const before = w.receiver.hits.length;
    await Promise.all([page.waitForURL(/done=redelivered/), page.click(`tr[data-delivery="${delivery}"] button`)]);
    expect((await toolOk(w.olga, "webhook_deliveries_get", { id: delivery })).status).toBe("pending");
    await w.settle();
    expect(w.receiver.hits.length).toBeGreaterThan(before);
    expect((await toolOk(w.olga, "webhook_deliveries_get", { id: delivery })).status).toBe("succeeded");
    expect(seen.dialogs).toEqual([]);
    await ctx.close();
  }, 60_000);

  test("planted markup stays text in the steps, the trigger data and the deliveries", async () => {
    const { ctx, page, seen } = await signIn("olga@acme.test");
    await page.goto(`${w.s.url}/automations/runs/${w.ids.okRun}`);
    const input = JSON.parse(await page.locator("li.step pre.step-input").first().innerText());
    expect(input.title).toBe(`New ticket: ${XSS_SUBJECT}`);
    expect(JSON.parse(await page.locator("#trigger-data").innerText()).data.subject).toBe(XSS_SUBJECT);
    expect(await page.locator("main img, main script, main b").count()).toBe(0);
    await page.goto(`${w.s.url}/automations/webhooks`);
    expect(await page.locator("main img, main script, main b").count()).toBe(0);
    expect(seen.dialogs).toEqual([]);
    expect(seen.errors).toEqual([]);
    await ctx.close();
  }, 30_000);

  test("another company's automations, runs and deliveries are 404 both ways", async () => {
    const rita = await signIn("rita@rival.test");
    await rita.page.goto(`${w.s.url}/automations`);
    expect(await ids(rita.page, "#automations tbody tr", "data-automation")).toEqual([w.rival.automation]);
    await rita.page.goto(`${w.s.url}/automations/webhooks`);
    expect(await ids(rita.page, "section[data-webhook]", "data-webhook")).toEqual([w.rival.webhook]);
    for (const path of [
      `/automations/${w.ids.notify}`,
      `/automations/runs/${w.ids.failedRun}`,
      `/automations/runs/${w.ids.okRun}`,
    ]) {
      const res = await rita.page.goto(`${w.s.url}${path}`);
      expect({ path, status: res!.status() }).toEqual({ path, status: 404 });
    }
    const csrf = await csrfOf(rita.page);
    const delivery = (await toolOk(w.olga, "webhook_deliveries_list", { webhookId: w.ids.okHook })).items[0].id;
    for (const path of [
      `/automations/${w.ids.weekly}/toggle`,
      `/automations/runs/${w.ids.failedRun}/retry`,
      `/automations/webhooks/deliveries/${delivery}/redeliver`,
    ]) {
      const r = await post(rita.page, path, { _csrf: csrf, enabled: "on" });
      expect({ path, status: r.status() }).toEqual({ path, status: 404 });
    }
    expect((await toolOk(w.olga, "automations_get", { id: w.ids.weekly })).enabled).toBe(false);
    const olga = await signIn("olga@acme.test");
    for (const path of [
      `/automations/${w.rival.automation}`,
      `/automations/runs/${w.rival.run}`,
      "/automations/99999",
      "/automations/abc",
      "/automations/runs/0",
      "/automations/%231",
    ])
      expect({ path, status: (await olga.page.goto(`${w.s.url}${path}`))!.status() }).toEqual({ path, status: 404 });
    const back = await post(olga.page, `/automations/webhooks/deliveries/${w.rival.delivery}/redeliver`, {
      _csrf: await csrfOf(olga.page),
    });
    expect(back.status()).toBe(404);
    await rita.ctx.close();
    await olga.ctx.close();
  }, 30_000);

  test("a post without the CSRF token, or from another site, is refused", async () => {
    const { ctx, page } = await signIn("olga@acme.test");
    await page.goto(`${w.s.url}/automations/${w.ids.weekly}`);
    await expectForgedPostsRefused(page, w.s.url, `/automations/${w.ids.weekly}/toggle`, { enabled: "on" });
    expect((await toolOk(w.olga, "automations_get", { id: w.ids.weekly })).enabled).toBe(false);
    await ctx.close();
  }, 30_000);
});
