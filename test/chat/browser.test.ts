/**
 * The widget on a real page in headless Chromium (playwright-core): a site
 * on another origin embeds /chat/widget.js; a visitor opens the chat and
 * writes; an agent waiting over MCP (official SDK client) is woken by the
 * message and replies; the reply appears in the widget at once, styled from
 * the site's branding; the internal note never does; planted script never
 * runs; the page makes no request to any third host; a reload keeps the
 * thread; a site that is not allowed cannot show the widget. The launcher is
 * an SVG icon with an accessible name (no emoji, which renders as an empty
 * box without an emoji font), and the frame's text is sans-serif whatever
 * the brand's font; screenshots closed and open at 1280 and 390 px. When an agent
 * resolves the conversation the widget says so (and what writing again
 * does, by the server's 24-hour rule) until the visitor writes or an agent
 * reopens it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { chromium, type Browser, type Page } from "playwright-core";
import { sites } from "../../src/domains/sites/tables";
import { callTool, createCompany, createUser, mcpClient, mintMcpKey } from "../fixtures/accounts";
import { startTestServer, type TestServer } from "../harness";

const ARTIFACTS = join(import.meta.dir, "../../test-artifacts");
const XSS = `<img src=x onerror="alert('xss')"><script>alert(1)</script>`;

let s: TestServer;
let browser: Browser;
let agent: Client;
let host: ReturnType<typeof Bun.serve>;
let stranger: ReturnType<typeof Bun.serve>;
let key = "";
let companyId = 0;

function sitePage(title: string) {
  return (req: Request) =>
    new URL(req.url).pathname === "/"
      ? new Response(
          `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1><p>Our menu.</p><script src="${s.url}/chat/widget.js" data-inbox="${key}" async></script></body></html>`,
          {
            headers: { "Content-Type": "text/html" },
          },
        )
      : new Response("not found", { status: 404 });
}

beforeAll(async () => {
  s = await startTestServer({ seed: false, config: { rateLimit: 100_000 } });
  const u = await createUser(s.deps, { email: "agent@agency.test", name: "Alex Agent" });
  const co = await createCompany(s.deps, { name: "Agency", ownerUserId: u.id });
  companyId = co.id;
  const site = (await s.deps.db.insert(sites).values({ companyId: co.id, name: "Brew & Co" }).returning())[0]!;
  agent = await mcpClient(
    s.url,
    (await mintMcpKey(s.deps, { userId: u.id, scopes: ["chat:*", "branding:*"], companyIds: [co.id] })).key,
  );
  host = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: sitePage("Brew & Co") });
  stranger = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: sitePage("Scraper") });
  const b = await callTool(agent, "branding_update_profile", {
    siteId: site.id,
    branding: { primaryColor: "#7a3e00", bodyFont: "Georgia, serif" },
  });
  expect(b.isError).toBe(false);
  const inbox = await callTool(agent, "chat_inboxes_create", {
    siteId: site.id,
    name: "Brew chat",
    greeting: "Hi! Ask the barista.",
    allowedOrigins: [`http://127.0.0.1:${host.port}`],
  });
  key = inbox.data.widgetKey;
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
  mkdirSync(ARTIFACTS, { recursive: true });
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await agent?.close();
  host?.stop(true);
  stranger?.stop(true);
  await s?.stop();
});

async function tool(name: string, args: Record<string, unknown>) {
  const r = await callTool(agent, name, args);
  if (r.isError) throw new Error(`${name}: ${r.text}`);
  return r.data;
}

describe("the widget on a customer's site", () => {
  test("visitor and agent exchange messages both ways in real time", async () => {
    const ctx = await browser.newContext();
    const page: Page = await ctx.newPage();
    const dialogs: string[] = [];
    const requests: string[] = [];
    const errors: string[] = [];
    page.on("dialog", (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    page.on("pageerror", (e) => errors.push(String(e)));
    ctx.on("request", (r) => requests.push(r.url()));
    await page.goto(`http://127.0.0.1:${host.port}/`);
    const frame = page.frameLocator('iframe[title="Chat"]');
    await frame.locator("#launch").click();
    const box = await page.locator('iframe[title="Chat"]').boundingBox();
    expect(box!.width).toBeGreaterThan(300);
    expect(await frame.locator("#intro").innerText()).toBe("Hi! Ask the barista.");
    expect(await frame.locator("h1").innerText()).toBe("Brew & Co");
    // Branding: the header wears the site's primary colour and font.
    const style = await frame
      .locator("header")
      .evaluate((el) => [getComputedStyle(el).backgroundColor, getComputedStyle(el).fontFamily]);
    expect(style[0]).toBe("rgb(122, 62, 0)");
    expect(style[1]).toContain("Georgia");

    const { cursor } = await tool("chat_messages_wait", {});
    const waiting = tool("chat_messages_wait", { after: cursor, timeoutSeconds: 8 });
    await frame.locator("#body").fill(`Do you have oat milk? ${XSS}`);
    const typedAt = performance.now();
    await frame.locator("#body").press("Enter");
    const woke = await waiting;
    expect(performance.now() - typedAt).toBeLessThan(3000);
    expect(woke.messages).toHaveLength(1);
    expect(woke.messages[0]).toMatchObject({ kind: "visitor", body: `Do you have oat milk? ${XSS}` });
    const conv = woke.messages[0].conversationId;
    expect((await tool("chat_conversations_get", { id: conv })).pageUrl).toBe(`http://127.0.0.1:${host.port}/`);

    await tool("chat_conversations_add_note", { id: conv, body: "Regular customer, NOTE-PRIVATE" });
    const sentAt = performance.now();
    await tool("chat_conversations_reply", { id: conv, body: "Yes! Oat and almond." });
    await frame.locator(".them", { hasText: "Yes! Oat and almond." }).waitFor({ timeout: 3000 });
    expect(performance.now() - sentAt).toBeLessThan(2000);
    expect(await frame.locator(".them b").first().innerText()).toBe("Alex");
    // The planted markup is text on the page, and nothing ran.
    expect(await frame.locator(".me p").first().innerText()).toBe(`Do you have oat milk? ${XSS}`);
    expect(await frame.locator(".me img, .me script").count()).toBe(0);
    await Bun.sleep(300);
    expect(await frame.locator("#msgs").innerText()).not.toContain("NOTE-PRIVATE");
    expect(dialogs).toEqual([]);
    expect(errors).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, "chat-widget.png") });

    // A second reply, and the visitor's next message, keep flowing on the same stream.
    await tool("chat_conversations_reply", { id: conv, body: "Anything else?" });
    await frame.locator(".them", { hasText: "Anything else?" }).waitFor({ timeout: 3000 });
    const { cursor: c2 } = await tool("chat_messages_wait", {});
    const waiting2 = tool("chat_messages_wait", { after: c2, timeoutSeconds: 8 });
    await frame.locator("#body").fill("A flat white please");
    await frame.locator("button[type=submit]").first().click();
    expect((await waiting2).messages.map((m: any) => m.body)).toEqual(["A flat white please"]);

    // A reload keeps the thread (the token is kept by the widget) in order.
    await page.reload();
    await frame.locator("#launch").click();
    await frame.locator(".them", { hasText: "Anything else?" }).waitFor({ timeout: 3000 });
    const texts = await frame.locator("#msgs li p").allInnerTexts();
    expect(texts).toEqual([
      `Do you have oat milk? ${XSS}`,
      "Yes! Oat and almond.",
      "Anything else?",
      "A flat white please",
    ]);
    // Every request went to the site itself or to Plinth: no third host.
    const origins = new Set(requests.map((u) => new URL(u).origin));
    expect([...origins].sort()).toEqual([`http://127.0.0.1:${host.port}`, new URL(s.url).origin].sort());
    await ctx.close();
  }, 60_000);

  test("the widget says when an agent resolves the conversation, until the visitor writes again or an agent reopens it", async () => {
    const ctx = await browser.newContext();
    const page: Page = await ctx.newPage();
    const dialogs: string[] = [];
    const errors: string[] = [];
    page.on("dialog", (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(`http://127.0.0.1:${host.port}/`);
    const frame = page.frameLocator('iframe[title="Chat"]');
    const line = frame.locator("#state");
    const REOPEN = "This conversation was marked resolved. Write again to reopen it.";
    const NEW = "This conversation was marked resolved. Write again to start a new one.";
    await frame.locator("#launch").click();
    const { cursor } = await tool("chat_messages_wait", {});
    const waiting = tool("chat_messages_wait", { after: cursor, timeoutSeconds: 8 });
    await frame.locator("#body").fill(`Open on Sunday? ${XSS}`);
    await frame.locator("#body").press("Enter");
    const conv = (await waiting).messages[0].conversationId;
    expect(await line.isHidden()).toBe(true);

    // Resolved with a reply (markup in it, as text): the reply, then the line, without a reload.
    await tool("chat_conversations_reply", { id: conv, body: `Yes, 9 to 5. ${XSS}`, status: "resolved" });
    await frame.locator(".them", { hasText: "Yes, 9 to 5." }).waitFor({ timeout: 3000 });
    await line.waitFor({ state: "visible", timeout: 3000 });
    expect(await line.innerText()).toBe(REOPEN);
    expect(await line.evaluate((el) => el.childElementCount)).toBe(0);
    // The composer still works: writing again reopens it, and the line goes.
    expect(await frame.locator("#body").isEnabled()).toBe(true);
    await frame.locator("#body").fill("And on Monday?");
    await frame.locator("#body").press("Enter");
    await line.waitFor({ state: "hidden", timeout: 3000 });
    expect((await tool("chat_conversations_get", { id: conv })).status).toBe("open");

    // An agent resolves, then reopens: the line comes and goes with it.
    await tool("chat_conversations_set_status", { id: conv, status: "resolved" });
    await line.waitFor({ state: "visible", timeout: 3000 });
    await tool("chat_conversations_set_status", { id: conv, status: "open" });
    await line.waitFor({ state: "hidden", timeout: 3000 });

    // Resolved, and the visitor comes back almost a day later: the reloaded frame says "reopen" from the thread it loads,
    // then turns to "start a new one" when the 24 hours are up, by the seconds the server gave it.
    await tool("chat_conversations_set_status", { id: conv, status: "resolved" });
    await line.waitFor({ state: "visible", timeout: 3000 });
    s.clock.advance(24 * 3600_000 - 6000); // 6 s left: room for the reload on a slow machine
    await page.reload();
    await frame.locator("#launch").click();
    await frame.locator(".them", { hasText: "Yes, 9 to 5." }).waitFor({ timeout: 3000 });
    expect(await line.isVisible()).toBe(true);
    expect(await line.innerText()).toBe(REOPEN);
    await frame.locator("#state", { hasText: NEW }).waitFor({ timeout: 10_000 });
    s.clock.advance(7000); // the server's clock is the test's: now it agrees the day is over
    const { cursor: c2 } = await tool("chat_messages_wait", {});
    const waiting2 = tool("chat_messages_wait", { after: c2, timeoutSeconds: 8 });
    await frame.locator("#body").fill("Back again");
    await frame.locator("#body").press("Enter");
    const next = (await waiting2).messages[0].conversationId;
    expect(next).toBeGreaterThan(conv);
    await line.waitFor({ state: "hidden", timeout: 3000 });
    // A change to the old conversation no longer moves the widget; the new one's does.
    await tool("chat_conversations_set_status", { id: conv, status: "open" });
    await tool("chat_conversations_set_status", { id: conv, status: "resolved" });
    await Bun.sleep(500);
    expect(await line.isHidden()).toBe(true);
    await tool("chat_conversations_set_status", { id: next, status: "resolved" });
    await line.waitFor({ state: "visible", timeout: 3000 });
    expect(await line.innerText()).toBe(REOPEN);
    await page.screenshot({ path: join(ARTIFACTS, "chat-widget-resolved.png") });

    // The planted markup stayed text everywhere, and nothing ran.
    expect(await frame.locator("#msgs img, #msgs script, #state *").count()).toBe(0);
    expect(dialogs).toEqual([]);
    expect(errors).toEqual([]);
    await ctx.close();
  }, 60_000);

  test("a site that is not an allowed origin cannot show the widget", async () => {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await page.goto(`http://127.0.0.1:${stranger.port}/`);
    await page.locator('iframe[title="Chat"]').waitFor({ state: "attached" });
    await Bun.sleep(800);
    expect(await page.frameLocator('iframe[title="Chat"]').locator("#launch").count()).toBe(0);
    await ctx.close();
  }, 30_000);

  test("the launcher is an SVG icon named 'Open chat', no emoji; a brand font that is not installed falls back to sans-serif, not serif; closed and open at 1280 and 390 px", async () => {
    const site = (await s.deps.db.insert(sites).values({ companyId, name: "Plain Bakery" }).returning())[0]!;
    await tool("branding_update_profile", {
      siteId: site.id,
      branding: { primaryColor: "#0b6e4f", bodyFont: "Inter" },
    });
    let inboxKey = "";
    const shop = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: () =>
        new Response(
          `<!doctype html><html><head><meta name="viewport" content="width=device-width,initial-scale=1"><title>Plain Bakery</title></head><body style="font-family:sans-serif"><h1>Plain Bakery</h1><p>Bread every morning.</p><script src="${s.url}/chat/widget.js" data-inbox="${inboxKey}" async></script></body></html>`,
          { headers: { "Content-Type": "text/html" } },
        ),
    });
    inboxKey = (
      await tool("chat_inboxes_create", {
        siteId: site.id,
        name: "Bakery chat",
        greeting: "Hello! Ask about today's bread.",
        allowedOrigins: [`http://127.0.0.1:${shop.port}`],
      })
    ).widgetKey;
    try {
      for (const width of [1280, 390]) {
        const ctx = await browser.newContext({ viewport: { width, height: 760 } });
        const page = await ctx.newPage();
        await page.goto(`http://127.0.0.1:${shop.port}/`);
        const frame = page.frameLocator('iframe[title="Chat"]');
        const launch = frame.getByRole("button", { name: "Open chat" });
        await launch.waitFor();
        expect(await launch.locator("svg").count()).toBe(1);
        expect(await launch.locator("svg").isVisible()).toBe(true);
        expect(await launch.innerText()).not.toMatch(/\p{Extended_Pictographic}/u);
        expect(await launch.evaluate((b) => b.textContent?.trim())).toBe("");
        const family = await frame.locator("body").evaluate((b) => getComputedStyle(b).fontFamily);
        expect(family).toStartWith("Inter");
        expect(family).toContain("system-ui");
        expect(family).toEndWith("sans-serif");
        await page.screenshot({ path: join(ARTIFACTS, `chat-widget-closed-${width}.png`) });
        await launch.click();
        const close = frame.getByRole("button", { name: "Close chat" });
        await close.waitFor();
        expect(await close.evaluate((b) => b.textContent?.trim())).toBe("");
        // The panel and its controls are sans-serif too (textarea and buttons inherit).
        for (const sel of ["h1", "#body", "button[type=submit]"])
          expect(
            await frame
              .locator(sel)
              .first()
              .evaluate((e) => getComputedStyle(e).fontFamily),
          ).toBe(family);
        const box = (await page.locator('iframe[title="Chat"]').boundingBox())!;
        expect(box.x).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width).toBeLessThanOrEqual(width);
        expect(
          await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
        ).toBeLessThanOrEqual(0);
        await frame.locator("#body").fill("Is the rye out of the oven yet?");
        await page.screenshot({ path: join(ARTIFACTS, `chat-widget-open-${width}.png`) });
        await close.click();
        await launch.waitFor();
        await ctx.close();
      }
    } finally {
      shop.stop(true);
    }
  }, 60_000);
});
