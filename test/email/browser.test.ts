/**
 * Campaigns in headless Chromium (playwright-core): the approval page shows
 * the rendered email at desktop and phone width with its audience size;
 * approving there lets the agent send it; rejecting keeps it unsendable;
 * the recipient unsubscribes on the public page. Script planted in every
 * value an agent or a subscriber wrote never runs. Screenshots land in
 * test-artifacts/.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { closeMailTransport } from "../../src/core/mail";
import { deliver } from "../jobs";
import { startTestServer, type TestServer } from "../harness";
import { startSmtp, type TestSmtp } from "../infra/smtp";
import { anyoneWithLink } from "../fixtures/approvals";
import { makeWorld, type World } from "../cms/world";

const T = 120_000;
const ARTIFACTS = join(import.meta.dir, "../../test-artifacts");
const XSS = `<script>alert("x")</script><img src=x onerror=alert("img")>`;

let s: TestServer;
let w: World;
let smtp: TestSmtp;
let browser: Browser;
let ctx: BrowserContext;

beforeAll(async () => {
  smtp = await startSmtp();
  closeMailTransport();
  s = await startTestServer({ seed: false, config: { smtpUrl: smtp.url(), mailFrom: "Acme <news@acme.test>" } });
  w = await makeWorld(s);
  // Anyone with the link decides here: these pages are under test, not who decides (test/approvals/who-decides*.test.ts).
  await anyoneWithLink(s.deps, w.A.id);
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
  ctx = await browser.newContext();
  mkdirSync(ARTIFACTS, { recursive: true });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await s?.stop();
  closeMailTransport();
  await smtp?.stop();
});

async function openPage(url: string): Promise<{ page: Page; dialogs: string[]; status: number }> {
  const page = await ctx.newPage();
  const dialogs: string[] = [];
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  const res = await page.goto(url);
  return { page, dialogs, status: res!.status() };
}

async function draft(name: string) {
  const list = await w.ok(w.owner, "email_lists_create", { name: `Readers ${name}`, optIn: "single" });
  for (const [i, n] of ["Nina", `Evil ${XSS}`, "Omar"].entries())
    await w.ok(w.owner, "email_subscribers_add", { email: `${name}${i}@example.com`, name: n, listIds: [list.id] });
  const tpl = await w.ok(w.owner, "email_templates_create", {
    name: `Newsletter ${name}`,
    html: `<table role="presentation" width="100%"><tr><td style="padding:24px;background:#0f766e;color:#fff"><h1>Autumn roast ${XSS}</h1></td></tr><tr><td style="padding:24px"><p>Hello {{ name }},</p><p>Our new single origin is in. <a href="https://acme.test/shop">Shop now</a></p></td></tr></table>`,
  });
  const c = await w.ok(w.owner, "email_campaigns_create", {
    name: `Autumn ${name}`,
    subject: "Autumn roast is here",
    preheader: "Three new beans",
    listIds: [list.id],
    templateId: tpl.id,
  });
  return { list, c };
}

describe("approval in the browser", () => {
  test(
    "the page previews the email at desktop and phone width with the audience; approving lets it be sent",
    async () => {
      const { c } = await draft("ok");
      const { page, dialogs, status } = await openPage(w.local(c.approval.url));
      expect(status).toBe(200);
      const preview = page.locator("#ap-content");
      await preview.waitFor();
      const desktop = page.locator(".em-desktop");
      const narrow = page.locator(".em-narrow");
      expect(await desktop.locator(".em-body").innerText()).toContain("Our new single origin is in.");
      expect(await narrow.locator(".em-body").innerText()).toContain("Hello Nina,");
      expect(await desktop.innerText()).toContain("Subject: Autumn roast is here");
      const widths = [(await desktop.boundingBox())!.width, (await narrow.boundingBox())!.width];
      expect(widths[0]).toBeGreaterThan(600);
      expect(widths[1]).toBeLessThanOrEqual(360);
      // Planted script shows as text (escaped by the sanitiser) and runs nowhere.
      expect(await page.locator("#ap-content script").count()).toBe(0);
      expect(await page.locator("dl.ap-facts").innerText()).toContain("3 subscriber(s)");
      await page.screenshot({ path: join(ARTIFACTS, "email-campaign-approval.png"), fullPage: true });
      expect(await w.err(w.owner, "email_campaigns_send", { id: c.id })).toContain("not approved");
      await page.click("button.approve");
      expect(await page.locator(".ap-notice.ok").innerText()).toContain("Approved");
      expect(dialogs).toEqual([]);
      await page.close();
      const sent = await w.ok(w.owner, "email_campaigns_send", { id: c.id });
      expect(sent.status).toBe("sending");
    },
    T,
  );

  test(
    "rejecting on the page keeps the campaign unsendable",
    async () => {
      const { c } = await draft("no");
      const { page } = await openPage(w.local(c.approval.url));
      const comment = page.locator("textarea").first();
      if (await comment.count()) await comment.fill("Too salesy");
      await page.click("button.reject");
      expect(await page.locator(".ap-notice").first().innerText()).toMatch(/Rejected/i);
      await page.close();
      const got = await w.ok(w.owner, "email_campaigns_get", { id: c.id });
      expect(got).toMatchObject({ status: "draft", approved: false });
      expect(await w.err(w.owner, "email_campaigns_send", { id: c.id })).toContain("not approved");
      expect(
        await w.err(w.owner, "email_campaigns_schedule", {
          id: c.id,
          at: new Date(s.clock.ms() + 86_400_000).toISOString(),
        }),
      ).toContain("not approved");
    },
    T,
  );
});

describe("unsubscribe in the browser", () => {
  test(
    "the link from the message opens the page; pressing the button unsubscribes; nothing runs",
    async () => {
      const { c, list } = await draft("un");
      await w.ok(w.owner, "email_lists_create", { name: "Other list", optIn: "single" });
      const approval = await openPage(w.local(c.approval.url));
      await approval.page.click("button.approve");
      // Closing while the decision's post is still navigating hangs page.close() in
      // Playwright under Bun now and then: wait for the answer page first.
      expect(await approval.page.locator(".ap-notice.ok").innerText()).toContain("Approved");
      await approval.page.close();
      await w.ok(w.owner, "email_campaigns_send", { id: c.id });
      const before = smtp.messages.length;
      for (let i = 0; i < 5; i++) {
        await deliver(s.deps);
        s.clock.advance(1000);
      }
      const evil = smtp.messages.slice(before).find((m) => m.envelope.to[0] === "un1@example.com")!;
      const token = /\/e\/u\/([0-9a-f]{48})/.exec(evil.raw.replace(/=\r\n/g, ""))![1]!;
      const { page, dialogs } = await openPage(`${s.url}/e/u/${token}`);
      expect(await page.locator("h1").innerText()).toBe("Unsubscribe");
      expect(await page.locator("main").innerText()).toContain("un1@example.com");
      await page.screenshot({ path: join(ARTIFACTS, "email-unsubscribe.png"), fullPage: true });
      await page.click("button[type=submit]");
      expect(await page.locator("h1").innerText()).toBe("You are unsubscribed");
      expect(dialogs).toEqual([]);
      await page.close();
      const sub = await w.ok(w.owner, "email_subscribers_get", { email: "un1@example.com" });
      expect(sub.lists.find((l: any) => l.listId === list.id).status).toBe("unsubscribed");
    },
    T,
  );

  test(
    "unsubscribe and double opt-in pages at 1280 and 390 px: one card, no sideways scrolling, the icon linked and served",
    async () => {
      const { c } = await draft("lk");
      const approval = await openPage(w.local(c.approval.url));
      await approval.page.click("button.approve");
      expect(await approval.page.locator(".ap-notice.ok").innerText()).toContain("Approved");
      await approval.page.close();
      await w.ok(w.owner, "email_campaigns_send", { id: c.id });
      const double = await w.ok(w.owner, "email_lists_create", { name: "Double opt-in", optIn: "double" });
      await w.ok(w.owner, "email_subscribers_add", { email: "wide@example.com", listIds: [double.id] });
      await w.ok(w.owner, "email_subscribers_add", { email: "narrow@example.com", listIds: [double.id] });
      const before = smtp.messages.length;
      for (let i = 0; i < 5; i++) {
        await deliver(s.deps);
        s.clock.advance(1000);
      }
      const sent = smtp.messages.slice(before);
      const link = (to: string, re: RegExp) =>
        re.exec(sent.find((m) => m.envelope.to[0] === to)!.raw.replace(/=\r\n/g, ""))![0];
      const cases = [
        {
          width: 1280,
          unsub: link("lk0@example.com", /\/e\/u\/[0-9a-f]{48}/),
          confirm: link("wide@example.com", /\/e\/confirm\/[0-9a-f]{48}/),
        },
        {
          width: 390,
          unsub: link("lk2@example.com", /\/e\/u\/[0-9a-f]{48}/),
          confirm: link("narrow@example.com", /\/e\/confirm\/[0-9a-f]{48}/),
        },
      ];
      for (const { width, unsub, confirm } of cases) {
        const vctx = await browser.newContext({ viewport: { width, height: 720 } });
        const page = await vctx.newPage();
        const looksFinished = async (name: string) => {
          expect(
            await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
          ).toBeLessThanOrEqual(0);
          const card = (await page.locator("main").boundingBox())!;
          // A card with room around it at either width.
          expect(card.x).toBeGreaterThanOrEqual(12);
          expect(card.x + card.width).toBeLessThanOrEqual(width - 12);
          expect(await page.locator("link[rel=icon]").first().getAttribute("href")).toBe("/favicon.ico");
          await page.screenshot({ path: join(ARTIFACTS, `email-${name}-${width}.png`), fullPage: true });
        };
        await page.goto(`${s.url}${unsub}`);
        expect(await page.locator("h1").innerText()).toBe("Unsubscribe");
        await looksFinished("unsubscribe");
        await page.click("button[type=submit]");
        expect(await page.locator("h1").innerText()).toBe("You are unsubscribed");
        await looksFinished("unsubscribed");
        await page.goto(`${s.url}${confirm}`);
        expect(await page.locator("button[type=submit]").innerText()).toBe("Yes, subscribe me");
        await looksFinished("confirm");
        await page.click("button[type=submit]");
        expect(await page.locator("h1").innerText()).toBe("Subscription confirmed");
        await looksFinished("confirmed");
        expect((await vctx.request.get(`${s.url}/favicon.ico`)).headers()["content-type"]).toBe("image/x-icon");
        await vctx.close();
      }
    },
    T,
  );
});
