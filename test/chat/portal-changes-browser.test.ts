/**
 * Conversation changes reach open portal pages live, in headless Chromium:
 * an agent over MCP assigns, reprioritises, labels and resolves; the owner's
 * open conversation page, a viewer's, and an admin's list page show each
 * change without a reload (header, badges, the forms that apply), as text
 * only; another company's changes to its conversation with the same number
 * never arrive; a page reconnecting after a change it missed catches up.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/client";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { callTool, mcpClient, mintMcpKey } from "../fixtures/accounts";
import { PASSWORD, portalChatWorld, type PortalChatWorld } from "./portal-world";

const XSS = `<img src=x onerror="alert('xss')">`;
let w: PortalChatWorld;
let browser: Browser;
let olgaMcp: Client;
let ritaMcp: Client;
let acmeConv = 0;
let rivalConv = 0;

beforeAll(async () => {
  w = await portalChatWorld();
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
  olgaMcp = await mcpClient(
    w.s.url,
    (await mintMcpKey(w.s.deps, { userId: w.users.olga, scopes: ["chat:*"], companyIds: [w.acme.id] })).key,
  );
  ritaMcp = await mcpClient(
    w.s.url,
    (await mintMcpKey(w.s.deps, { userId: w.users.rita, scopes: ["chat:*"], companyIds: [w.rival.id] })).key,
  );
  acmeConv = (await w.visit("Do you roast on site?", { name: "Dana Diaz" })).conversation;
  rivalConv = (await w.visit("Rival question", { inbox: w.rivalInbox.id, name: "Rex" })).conversation;
  // Each company numbers its own conversations: the same number, two conversations.
  expect(rivalConv).toBe(acmeConv);
}, 30_000);

afterAll(async () => {
  await olgaMcp?.close();
  await ritaMcp?.close();
  await browser?.close();
  await w?.s.stop();
});

async function ok(c: Client, name: string, args: Record<string, unknown>) {
  const r = await callTool(c, name, args);
  if (r.isError) throw new Error(`${name}: ${r.text}`);
  return r.data;
}

async function portalAs(
  who: string,
): Promise<{ ctx: BrowserContext; page: Page; seen: { dialogs: string[]; errors: string[] } }> {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  const seen = { dialogs: [] as string[], errors: [] as string[] };
  page.on("dialog", (d) => {
    seen.dialogs.push(d.message());
    void d.dismiss();
  });
  page.on("pageerror", (e) => seen.errors.push(String(e)));
  await page.goto(`${w.s.url}/login`);
  await page.fill('input[name="email"]', `${who}@acme.test`);
  await page.fill('input[name="password"]', PASSWORD);
  await Promise.all([page.waitForURL(`${w.s.url}/`), page.click('button[type="submit"]')]);
  return { ctx, page, seen };
}

/** Opens `path`, marks the window (a reload would clear the mark), waits for the stream, and records every text the watched elements take. */
async function open(page: Page, path: string, watched: string[]) {
  await page.goto(`${w.s.url}${path}`);
  await page.waitForFunction(() => document.getElementById("live")?.dataset.state === "live");
  await page.evaluate((sel) => {
    (window as any).notReloaded = true;
    const log: string[] = ((window as any).texts = []);
    for (const s of sel) {
      const node = document.querySelector(s);
      if (node)
        new MutationObserver(() => log.push(node.textContent ?? "")).observe(node, {
          childList: true,
          characterData: true,
          subtree: true,
        });
    }
  }, watched);
}

const text = (page: Page, sel: string) => page.locator(sel).innerText();

describe("conversation changes, live", () => {
  test("assign, priority, labels and resolve over MCP show on the owner's and a viewer's conversation page and an admin's list, never the other company's", async () => {
    const owner = await portalAs("olga");
    const viewer = await portalAs("vic");
    const admin = await portalAs("ada");
    const HEAD = ["#status", "#assignee", "#priority", "#labels"];
    await open(owner.page, `/chat/${acmeConv}`, HEAD);
    await open(viewer.page, `/chat/${acmeConv}`, HEAD);
    await open(admin.page, "/chat", [`#c${acmeConv} .assignee`, `#c${acmeConv} .status`, `#c${acmeConv} .prio`]);
    expect(await text(owner.page, "#status")).toBe("Open");
    expect(await text(owner.page, "#assignee")).toBe("nobody");
    expect(await owner.page.locator("#act-resolve").isVisible()).toBe(true);
    expect(await text(viewer.page, "#assignee")).toBe("nobody");

    // The other company works its conversation #same: assigned, urgent, a hostile label, resolved.
    await ok(ritaMcp, "chat_conversations_assign", { id: rivalConv, assigneeId: "me" });
    await ok(ritaMcp, "chat_conversations_update", { id: rivalConv, priority: "urgent", addLabels: ["rival-only"] });
    await ok(ritaMcp, "chat_conversations_set_status", { id: rivalConv, status: "resolved" });

    // An Acme agent over MCP: assign to Ada, then urgent with a label.
    await ok(olgaMcp, "chat_conversations_assign", { id: acmeConv, assigneeId: "ada@acme.test" });
    for (const p of [owner.page, viewer.page])
      await p.locator("#assignee", { hasText: "Ada Admin" }).waitFor({ timeout: 5000 });
    await admin.page.locator(`#c${acmeConv} .assignee`, { hasText: "Ada Admin" }).waitFor({ timeout: 5000 });
    await ok(olgaMcp, "chat_conversations_update", { id: acmeConv, priority: "high", addLabels: ["roastery", "vip"] });
    for (const p of [owner.page, viewer.page]) {
      await p.locator("#priority", { hasText: "priority high" }).waitFor({ timeout: 5000 });
      expect(await text(p, "#labels")).toContain("roastery, vip");
    }
    await admin.page.locator(`#c${acmeConv} .prio`, { hasText: "high" }).waitFor({ timeout: 5000 });
    expect(await admin.page.locator(`#c${acmeConv} .labels .badge`).allInnerTexts()).toEqual(["roastery", "vip"]);

    // Resolved over MCP: the badge, the forms that apply (Reopen instead of Resolve, no snooze), and the list row.
    await ok(olgaMcp, "chat_conversations_set_status", { id: acmeConv, status: "resolved" });
    for (const p of [owner.page, viewer.page])
      await p.locator("#status", { hasText: "Resolved" }).waitFor({ timeout: 5000 });
    expect(await owner.page.locator("#status").getAttribute("class")).toBe("badge ok");
    expect(await owner.page.locator("#act-resolve").isVisible()).toBe(false);
    expect(await owner.page.locator("#act-open button").innerText()).toBe("Reopen");
    expect(await owner.page.locator("#snooze-form").isVisible()).toBe(false);
    expect(await owner.page.inputValue("#assign-to")).toBe(String(w.users.ada));
    expect(await owner.page.inputValue("#update-priority")).toBe("high");
    expect(await owner.page.inputValue("#update-labels")).toBe("roastery, vip");
    await admin.page.locator(`#c${acmeConv} .status`, { hasText: "Resolved" }).waitFor({ timeout: 5000 });

    // Nothing of Rival's conversation with the same number showed at any moment, on any page; no page reloaded.
    await Bun.sleep(500);
    for (const p of [owner.page, viewer.page, admin.page]) {
      const texts: string[] = await p.evaluate(() => (window as any).texts);
      expect(texts.length).toBeGreaterThan(0);
      expect(texts.join("|")).not.toContain("Rita");
      expect(texts.join("|")).not.toContain("urgent");
      expect(texts.join("|")).not.toContain("rival-only");
      expect(await p.evaluate(() => (window as any).notReloaded)).toBe(true);
    }
    // The viewer reads: no forms appeared for them.
    expect(await viewer.page.locator("#act-resolve, #assign-to").count()).toBe(0);
    for (const x of [owner, viewer, admin]) {
      expect(x.seen).toEqual({ dialogs: [], errors: [] });
      await x.ctx.close();
    }
  }, 60_000);

  test("a change from the portal form of another agent shows on an open page; data goes in as text, never HTML", async () => {
    const owner = await portalAs("olga");
    const admin = await portalAs("ada");
    await ok(olgaMcp, "chat_conversations_set_status", { id: acmeConv, status: "open" });
    await open(owner.page, `/chat/${acmeConv}`, ["#assignee"]);
    await admin.page.goto(`${w.s.url}/chat/${acmeConv}`);
    // Ada assigns it to Olga through the portal form.
    await admin.page.selectOption("#assign-to", String(w.users.olga));
    await Promise.all([
      admin.page.waitForURL(/done=assigned/),
      admin.page.click('form[action$="/assign"] button[type="submit"]'),
    ]);
    await owner.page.locator("#assignee", { hasText: "Olga Owner" }).waitFor({ timeout: 5000 });
    // A name with markup, changed in the database and pushed by the next change: it shows as text.
    const { users } = await import("../../src/domains/accounts/tables");
    const { eq } = await import("drizzle-orm");
    await w.s.deps.db
      .update(users)
      .set({ name: `Olga ${XSS}` })
      .where(eq(users.id, w.users.olga));
    await ok(olgaMcp, "chat_conversations_set_status", { id: acmeConv, status: "pending" });
    await owner.page.locator("#status", { hasText: "Pending" }).waitFor({ timeout: 5000 });
    expect(await text(owner.page, "#assignee")).toBe(`Olga ${XSS}`);
    expect(await owner.page.locator("#assignee img").count()).toBe(0);
    expect(owner.seen).toEqual({ dialogs: [], errors: [] });
    await w.s.deps.db.update(users).set({ name: "Olga Owner" }).where(eq(users.id, w.users.olga));
    await owner.ctx.close();
    await admin.ctx.close();
  }, 60_000);

  test("a stream resumed after a missed change (Last-Event-ID) catches up with it", async () => {
    const b = await w.signIn("olga");
    const page = await b.get(`/chat/${acmeConv}`);
    const html = await page.text();
    const after = /data-after="(\d+)"/.exec(html)![1];
    const changes = /data-changes="(\d+)"/.exec(html)![1];
    // The change happens while no stream is open.
    await ok(olgaMcp, "chat_conversations_update", { id: acmeConv, priority: "low" });
    const ctl = new AbortController();
    const res = await fetch(new URL(`/chat/${acmeConv}/stream`, b.base), {
      headers: { cookie: b.jar.header(), "Last-Event-ID": `${after}-${changes}` },
      signal: ctl.signal,
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    let got = "";
    const until = Date.now() + 5000;
    while (!got.includes("event: conversation") && Date.now() < until) {
      const { value, done } = await reader.read();
      if (done) break;
      got += new TextDecoder().decode(value);
    }
    ctl.abort();
    const rec = /id: (\d+)-(\d+)\nevent: conversation\ndata: (.*)\n/.exec(got);
    expect(rec).not.toBeNull();
    expect(Number(rec![1])).toBe(Number(after));
    expect(Number(rec![2])).toBeGreaterThan(Number(changes));
    expect(JSON.parse(rec![3])).toMatchObject({ id: acmeConv, priority: "low", status: "pending" });
  }, 30_000);
});
