/**
 * Chat between the widget and the portal, in headless Chromium: a visitor
 * on a customer's site writes; an agent signed in to the portal sees it
 * arrive on the open list and conversation pages without reloading; the
 * agent's reply from the portal form reaches the widget live; an internal
 * note stays in the portal; what the visitor planted runs nowhere.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { PASSWORD, portalChatWorld, type PortalChatWorld } from "./portal-world";

const ARTIFACTS = join(import.meta.dir, "../../test-artifacts");
const XSS = `<img src=x onerror="alert('xss')"><script>alert(1)</script>`;

let w: PortalChatWorld;
let browser: Browser;
let host: ReturnType<typeof Bun.serve>;
let hostPort = 0;

beforeAll(async () => {
  host = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: (req) =>
      new URL(req.url).pathname === "/"
        ? new Response(
            `<!doctype html><html><head><title>Acme Coffee</title></head><body><h1>Acme Coffee</h1><script src="${w.s.url}/chat/widget.js" data-inbox="${w.inbox.widgetKey}" async></script></body></html>`,
            { headers: { "Content-Type": "text/html" } },
          )
        : new Response("not found", { status: 404 }),
  });
  hostPort = host.port!;
  w = await portalChatWorld({ allowedOrigins: [`http://127.0.0.1:${hostPort}`] });
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
  mkdirSync(ARTIFACTS, { recursive: true });
}, 30_000);

afterAll(async () => {
  await browser?.close();
  host?.stop(true);
  await w?.s.stop();
});

function watch(page: Page) {
  const seen = { dialogs: [] as string[], errors: [] as string[] };
  page.on("dialog", (d) => {
    seen.dialogs.push(d.message());
    void d.dismiss();
  });
  page.on("pageerror", (e) => seen.errors.push(String(e)));
  return seen;
}

async function portalAs(email: string): Promise<{ ctx: BrowserContext; page: Page }> {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await page.goto(`${w.s.url}/login`);
  await page.fill('input[name="email"]', email);
  await page.fill('input[name="password"]', PASSWORD);
  await Promise.all([page.waitForURL(`${w.s.url}/`), page.click('button[type="submit"]')]);
  return { ctx, page };
}

describe("widget ↔ portal", () => {
  test("visitor messages appear live in the portal, portal replies reach the widget live, notes and planted script stay put", async () => {
    // The agent has the conversation list open before anyone writes.
    const agent = await portalAs("olga@acme.test");
    const portal = agent.page;
    const portalSeen = watch(portal);
    await portal.goto(`${w.s.url}/chat`);
    await portal.evaluate(() => ((window as any).notReloaded = true));
    await portal.waitForFunction(() => document.getElementById("live")?.dataset.state === "live");

    const visitorCtx = await browser.newContext();
    const site = await visitorCtx.newPage();
    const siteSeen = watch(site);
    await site.goto(`http://127.0.0.1:${hostPort}/`);
    const widget = site.frameLocator('iframe[title="Chat"]');
    await widget.locator("#launch").click();
    await widget.locator("#body").fill(`Is the espresso bar open? ${XSS}`);
    await widget.locator("#body").press("Enter");

    // The list page hears of it without a reload, as text.
    const live = portal.locator("#live p").first();
    await live.waitFor({ timeout: 5000 });
    expect(await live.innerText()).toContain(`Is the espresso bar open? ${XSS}`);
    expect(await portal.evaluate(() => (window as any).notReloaded)).toBe(true);
    const number = Number(
      await live
        .locator("a")
        .innerText()
        .then((t) => t.replace("#", "")),
    );
    expect(number).toBeGreaterThan(0);

    // The agent opens the conversation; the visitor writes again; it arrives without a reload.
    await live.locator("a").click();
    await portal.waitForURL(`${w.s.url}/chat/${number}`);
    await portal.evaluate(() => ((window as any).notReloaded = true));
    await portal.waitForFunction(() => document.getElementById("live")?.dataset.state === "live");
    await widget.locator("#body").fill("Also, do you have decaf?");
    const typedAt = performance.now();
    await widget.locator("#body").press("Enter");
    await portal.locator("#thread li.msg.visitor", { hasText: "Also, do you have decaf?" }).waitFor({ timeout: 5000 });
    expect(performance.now() - typedAt).toBeLessThan(4000);
    expect(await portal.evaluate(() => (window as any).notReloaded)).toBe(true);
    expect(await portal.locator("#thread li.msg.visitor p.body").allInnerTexts()).toEqual([
      `Is the espresso bar open? ${XSS}`,
      "Also, do you have decaf?",
    ]);
    expect(await portal.locator("#thread img, #thread script").count()).toBe(0);

    // An internal note from the portal: marked as such there, never in the widget.
    await portal.fill("#note-body", "NOTE-PRIVATE: regular since 2019");
    await Promise.all([portal.waitForURL(/done=noted/), portal.click('form[action$="/note"] button[type="submit"]')]);
    expect(await portal.locator("#thread li.msg.note").innerText()).toContain(
      "Internal note, never shown to the visitor",
    );

    // A reply typed in the portal (from a canned response's text) reaches the widget live.
    await portal.fill("#reply-body", "Yes, decaf all day. Anything else?");
    const sentAt = performance.now();
    await Promise.all([
      portal.waitForURL(/done=replied/),
      portal.click('form[action$="/reply"] button[type="submit"]'),
    ]);
    await widget.locator(".them", { hasText: "Yes, decaf all day. Anything else?" }).waitFor({ timeout: 5000 });
    expect(performance.now() - sentAt).toBeLessThan(4000);
    await Bun.sleep(300);
    expect(await widget.locator("#msgs").innerText()).not.toContain("NOTE-PRIVATE");
    // The portal page shows the reply after its post, and keeps following.
    expect(await portal.locator("#thread li.msg.agent p.body").allInnerTexts()).toEqual([
      "Yes, decaf all day. Anything else?",
    ]);
    await widget.locator("#body").fill("No, thanks!");
    await widget.locator("#body").press("Enter");
    await portal.locator("#thread li.msg.visitor", { hasText: "No, thanks!" }).waitFor({ timeout: 5000 });

    expect(portalSeen).toEqual({ dialogs: [], errors: [] });
    expect(siteSeen).toEqual({ dialogs: [], errors: [] });
    await portal.screenshot({ path: join(ARTIFACTS, "chat-portal.png"), fullPage: true });
    await visitorCtx.close();
    await agent.ctx.close();
  }, 60_000);

  test("a canned response fills the reply box; a resolved conversation reopens live when the visitor writes", async () => {
    const { createCanned } = await import("../../src/domains/chat/canned");
    const { setStatus } = await import("../../src/domains/chat/conversations");
    await createCanned(w.as("olga"), { shortCode: "hours", content: "Hi {{name}}, we open at 7." });
    const first = await w.visit("When do you open?", { name: "Dana Diaz" });
    await setStatus(w.as("olga"), { id: first.conversation, status: "resolved" });
    const agent = await portalAs("ada@acme.test");
    const portal = agent.page;
    await portal.goto(`${w.s.url}/chat/${first.conversation}`);
    await portal.waitForFunction(() => document.getElementById("live")?.dataset.state === "live");
    expect(await portal.locator("#status").innerText()).toBe("Resolved");
    await portal.selectOption("#reply-canned", "hours");
    expect(await portal.inputValue("#reply-body")).toBe("Hi Dana, we open at 7.");
    await w.visit("And on Sundays?", { token: first.token });
    await portal.locator("#thread li.msg.visitor", { hasText: "And on Sundays?" }).waitFor({ timeout: 5000 });
    expect(await portal.locator("#status").innerText()).toBe("Open");
    await agent.ctx.close();
  }, 60_000);
});
