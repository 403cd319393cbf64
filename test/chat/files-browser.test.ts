/**
 * Files from the widget in headless Chromium (playwright-core): a visitor
 * on a customer's site picks files with the send form's file input; the
 * file shows in their thread as a download link whose hostile name is
 * text; the agent sees it over MCP (official SDK client); HTML posing as
 * an image is refused with the server's message on the page; the company's
 * per-file limit (ticket_attachment_limits_set, the one budget of tickets
 * and chat) takes a file of exactly the limit and refuses one byte more.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/client";
import { chromium, type Browser, type FrameLocator, type Page } from "playwright-core";
import { sites } from "../../src/domains/sites/tables";
import { callTool, createCompany, createUser, mcpClient, mintMcpKey } from "../fixtures/accounts";
import { startTestServer, type TestServer } from "../harness";

const HOSTILE = `<img src=x onerror="alert('xss')">.png`;
const PNG = Buffer.concat([Buffer.from("\x89PNG\r\n\x1a\n", "latin1"), Buffer.from("fake image body 0123456789")]);
const HTML = Buffer.from("<!doctype html><html><script>alert(document.cookie)</script></html>");

let s: TestServer;
let browser: Browser;
let agent: Client;
let host: ReturnType<typeof Bun.serve>;
let key = "";

beforeAll(async () => {
  s = await startTestServer({ seed: false, config: { rateLimit: 100_000 } });
  const u = await createUser(s.deps, { email: "agent@agency.test", name: "Alex Agent" });
  const co = await createCompany(s.deps, { name: "Agency", ownerUserId: u.id });
  const site = (await s.deps.db.insert(sites).values({ companyId: co.id, name: "Brew & Co" }).returning())[0]!;
  agent = await mcpClient(
    s.url,
    (await mintMcpKey(s.deps, { userId: u.id, scopes: ["chat:*", "tickets:*"], companyIds: [co.id] })).key,
  );
  host = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: (req) =>
      new URL(req.url).pathname === "/"
        ? new Response(
            `<!doctype html><html><body><h1>Brew</h1><script src="${s.url}/chat/widget.js" data-inbox="${key}" async></script></body></html>`,
            { headers: { "Content-Type": "text/html" } },
          )
        : new Response("not found", { status: 404 }),
  });
  const inbox = await callTool(agent, "chat_inboxes_create", {
    siteId: site.id,
    name: "Brew chat",
    allowedOrigins: [`http://127.0.0.1:${host.port}`],
  });
  key = inbox.data.widgetKey;
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await agent?.close();
  host?.stop(true);
  await s?.stop();
});

async function tool(name: string, args: Record<string, unknown>) {
  const r = await callTool(agent, name, args);
  if (r.isError) throw new Error(`${name}: ${r.text}`);
  return r.data;
}

async function send(frame: FrameLocator, file: { name: string; mimeType: string; buffer: Buffer }, text = "") {
  await frame.locator("#body").fill(text);
  await frame.locator("#file").setInputFiles(file);
  await frame.locator("#send button[type=submit]").click();
}

describe("files from the widget", () => {
  test("a picked file shows as a download link, its hostile name as text; refusals show on the page", async () => {
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
    await frame.locator("#launch").click();

    // The first thing the visitor sends is a file: it makes the visitor and the conversation.
    await send(frame, { name: HOSTILE, mimeType: "image/png", buffer: PNG }, "My broken grinder");
    const link = frame.locator(".me a.file").first();
    await link.waitFor({ timeout: 5000 });
    expect(await link.innerText()).toBe(`${HOSTILE} (${PNG.length} B)`);
    expect(await frame.locator(".me img, .me script").count()).toBe(0);
    expect(await link.getAttribute("download")).toBe("");
    const href = (await link.getAttribute("href"))!;
    expect(href).toContain("/chat-files/");
    const res = await fetch(`${s.url}${new URL(href).pathname}`);
    expect(res.headers.get("content-disposition")).toStartWith("attachment;");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(Buffer.from(await res.arrayBuffer()).equals(PNG)).toBe(true);
    const conv = (await tool("chat_conversations_list", {})).items[0].id;
    const files = (await tool("chat_attachments_list", { conversationId: conv })).items;
    expect(files.map((f: any) => [f.filename, f.mimeType, f.source])).toEqual([[HOSTILE, "image/png", "visitor"]]);

    // HTML claimed as an image: the server's reason on the page, nothing added to the thread.
    await send(frame, { name: "menu.png", mimeType: "image/png", buffer: HTML });
    await frame.locator("#err", { hasText: "refused" }).waitFor({ timeout: 5000 });
    expect(await frame.locator("#err").innerText()).toContain("menu.png");
    expect(await frame.locator("#msgs li").count()).toBe(1);

    // The company's per-file limit, at the exact byte.
    await tool("ticket_attachment_limits_set", { maxFileBytes: 2048 });
    await send(frame, { name: "exact.txt", mimeType: "text/plain", buffer: Buffer.alloc(2048, "a") });
    await frame.locator(".me a.file", { hasText: "exact.txt" }).waitFor({ timeout: 5000 });
    expect(await frame.locator("#err").innerText()).toBe("");
    await send(frame, { name: "over.txt", mimeType: "text/plain", buffer: Buffer.alloc(2049, "a") });
    await frame.locator("#err", { hasText: "2048" }).waitFor({ timeout: 5000 });
    expect(await frame.locator(".me a.file", { hasText: "over.txt" }).count()).toBe(0);
    expect((await tool("chat_attachments_list", { conversationId: conv })).items).toHaveLength(2);

    // A reload shows the files again, from the thread.
    await page.reload();
    await frame.locator("#launch").click();
    await frame.locator(".me a.file", { hasText: "exact.txt" }).waitFor({ timeout: 5000 });
    expect(await frame.locator(".me a.file").allInnerTexts()).toEqual([
      `${HOSTILE} (${PNG.length} B)`,
      "exact.txt (2 KB)",
    ]);
    expect(dialogs).toEqual([]);
    expect(errors).toEqual([]);
    await ctx.close();
  }, 30_000);
});
