/**
 * A list's public signup form on a real server: turned on over MCP, filled
 * in on the hosted page in headless Chromium (no script; 1280 and 390 px)
 * and posted as the same form embedded on another site (another origin,
 * no cookie). Every signup is double opt-in: one confirmation mail to the
 * loopback SMTP server, whose link confirms; the answer is the same for
 * every address state and no address gets a second mail within the hour;
 * honeypot, bad addresses, unknown and switched-off keys, hostile list
 * names, another company's list and a viewer are refused or answered
 * without a change.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { closeMailTransport } from "../../src/core/mail";
import { publicBase } from "../../src/domains/email/access";
import { makeWorld, type World } from "../cms/world";
import { startTestServer, type TestServer } from "../harness";
import { startSmtp, type TestSmtp } from "../infra/smtp";
import { deliver } from "../jobs";

const ARTIFACTS = join(import.meta.dir, "../../test-artifacts");
const XSS = `<script>alert("x")</script><img src=x onerror=alert(1)>`;

let s: TestServer;
let w: World;
let smtp: TestSmtp;
let browser: Browser;

beforeAll(async () => {
  smtp = await startSmtp();
  closeMailTransport();
  s = await startTestServer({ seed: false, config: { smtpUrl: smtp.url(), mailFrom: "Acme <news@acme.test>" } });
  w = await makeWorld(s);
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
  mkdirSync(ARTIFACTS, { recursive: true });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await s?.stop();
  closeMailTransport();
  await smtp?.stop();
});

const flush = async () => {
  for (let i = 0; i < 5; i++) {
    await deliver(s.deps);
    s.clock.advance(1000);
  }
};
const mailsTo = (email: string) => smtp.messages.filter((m) => m.envelope.to[0] === email);
const status = async (listId: number, email: string) => {
  const r = await w.call(w.owner, "email_subscribers_get", { email });
  if (r.isError) return "none";
  return r.data.lists.find((l: { listId: number }) => l.listId === listId)?.status ?? "none";
};
/** The same form a client embeds on their own site: posted from another origin, without any cookie. */
const embedPost = (url: string, body: Record<string, string>) =>
  fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: "https://client-site.example" },
    body: new URLSearchParams(body).toString(),
  });

async function list(extra: Record<string, unknown> = {}) {
  return w.ok(w.owner, "email_lists_create", { name: `Signup ${Math.random()}`, publicSignup: true, ...extra });
}

describe("public signup form", () => {
  test("off by default; publicSignup gives a signupUrl, off then on gives a new one and the old stops", async () => {
    const plain = await w.ok(w.owner, "email_lists_create", { name: `Plain ${Math.random()}` });
    expect(plain.signupUrl).toBeNull();
    const on = await w.ok(w.owner, "email_lists_update", { id: plain.id, publicSignup: true });
    expect(on.changed).toEqual(["publicSignup"]);
    expect(on.signupUrl).toMatch(new RegExp(`^${publicBase(s.deps)}/s/[0-9a-f]{48}$`));
    expect((await fetch(on.signupUrl)).status).toBe(200);
    const off = await w.ok(w.owner, "email_lists_update", { id: plain.id, publicSignup: false });
    expect(off.signupUrl).toBeNull();
    expect((await fetch(on.signupUrl)).status).toBe(404);
    expect((await embedPost(on.signupUrl, { email: "late@example.com" })).status).toBe(404);
    expect(await status(plain.id, "late@example.com")).toBe("none");
    const again = await w.ok(w.owner, "email_lists_update", { id: plain.id, publicSignup: true });
    expect(again.signupUrl).not.toBe(on.signupUrl);
    expect((await w.ok(w.owner, "email_lists_get", { id: plain.id })).signupUrl).toBe(again.signupUrl);
  });

  test("an embedded post is double opt-in even on a single opt-in list: one mail, whose link confirms", async () => {
    const l = await list({ optIn: "single" });
    const email = `emb${Math.random().toString(36).slice(2, 8)}@example.com`;
    const r = await embedPost(l.signupUrl, { email: `  ${email.toUpperCase()} `, name: "Ema" });
    expect(r.status).toBe(200);
    expect(await r.text()).toContain("Check your inbox");
    expect(await status(l.id, email)).toBe("unconfirmed");
    await flush();
    const mails = mailsTo(email);
    expect(mails).toHaveLength(1);
    const text = (await mails[0]!.parse()).text ?? "";
    const confirm = /https?:\/\/\S+\/e\/confirm\/[0-9a-f]{48}/.exec(text)![0];
    const pageRes = await fetch(confirm);
    const csrf = /name="csrf" value="([^"]+)"/.exec(await pageRes.text())![1]!;
    const done = await fetch(confirm, {
      method: "POST",
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        Cookie: pageRes.headers.get("set-cookie")!.split(";")[0]!,
        Origin: new URL(publicBase(s.deps)).origin,
      },
      body: `csrf=${encodeURIComponent(csrf)}`,
    });
    expect(done.status).toBe(200);
    expect(await status(l.id, email)).toBe("subscribed");
    const sub = await w.ok(w.owner, "email_subscribers_get", { email });
    expect(sub.name).toBe("Ema");
  });

  test("the same answer for every address state, and at most one confirmation an hour", async () => {
    const l = await list();
    const answer = async (email: string) => {
      const r = await embedPost(l.signupUrl, { email });
      expect(r.status).toBe(200);
      return (await r.text()).replace(/nonce-[^"']+|nonce="[^"]+"/g, "");
    };
    const fresh = "fresh-state@example.com";
    const first = await answer(fresh);
    // Posted again at once: nothing more is mailed; after an hour, one more confirmation.
    expect(await answer(fresh)).toBe(first);
    await flush();
    expect(mailsTo(fresh)).toHaveLength(1);
    s.clock.advance(3600_000);
    await answer(fresh);
    await flush();
    expect(mailsTo(fresh)).toHaveLength(2);

    // Already subscribed (added by the agency): same answer, no mail, still subscribed.
    const member = "member-state@example.com";
    await w.ok(w.owner, "email_subscribers_add", { email: member, listIds: [l.id], preconfirmed: true });
    expect(await answer(member)).toBe(first);
    // Unsubscribed: may come back, through a confirmation.
    const left = "left-state@example.com";
    await w.ok(w.owner, "email_subscribers_add", { email: left, listIds: [l.id], preconfirmed: true });
    await w.ok(w.owner, "email_subscribers_unsubscribe", { email: left, listIds: [l.id] });
    expect(await answer(left)).toBe(first);
    // Blocklisted: no mail ever.
    const blocked = "blocked-state@example.com";
    await w.ok(w.owner, "email_subscribers_add", { email: blocked, listIds: [] });
    await w.ok(w.owner, "email_subscribers_update", { email: blocked, blocklisted: true });
    expect(await answer(blocked)).toBe(first);
    await flush();
    expect(mailsTo(member)).toHaveLength(0);
    expect(await status(l.id, member)).toBe("subscribed");
    expect(mailsTo(left)).toHaveLength(1);
    expect(await status(l.id, left)).toBe("unconfirmed");
    expect(mailsTo(blocked)).toHaveLength(0);
    // A known subscriber's name is not overwritten by what a stranger typed.
    await embedPost(l.signupUrl, { email: member, name: "Someone Else" });
    expect((await w.ok(w.owner, "email_subscribers_get", { email: member })).name).toBeNull();
  });

  test("refused without a change: bad address, honeypot, unknown key, wrong content type, oversized body", async () => {
    const l = await list();
    const bad = await embedPost(l.signupUrl, { email: "not an address" });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("valid email address");
    const bot = await embedPost(l.signupUrl, { email: "bot@example.com", website: "http://spam.example" });
    expect(bot.status).toBe(200);
    expect(await status(l.id, "bot@example.com")).toBe("none");
    expect((await embedPost(`${publicBase(s.deps)}/s/${"0".repeat(48)}`, { email: "x@example.com" })).status).toBe(404);
    expect((await fetch(`${publicBase(s.deps)}/s/../u/${"0".repeat(48)}`)).status).toBe(404);
    const json = await fetch(l.signupUrl, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: "{}",
    });
    expect(json.status).toBe(415);
    const huge = await embedPost(l.signupUrl, { email: "h@example.com", name: "x".repeat(20_000) });
    expect(huge.status).toBe(413);
    await flush();
    expect(mailsTo("bot@example.com")).toHaveLength(0);
    expect(mailsTo("h@example.com")).toHaveLength(0);
  });

  test("another company's list and a viewer cannot switch the form on", async () => {
    const l = await w.ok(w.owner, "email_lists_create", { name: `Private ${Math.random()}` });
    expect(await w.err(w.stranger, "email_lists_update", { id: l.id, publicSignup: true })).toContain("not found");
    expect(await w.err(w.viewer, "email_lists_update", { id: l.id, publicSignup: true })).toMatch(
      /role|viewer|admin|member/i,
    );
    expect((await w.ok(w.owner, "email_lists_get", { id: l.id })).signupUrl).toBeNull();
  });

  test("in Chromium: the hosted page escapes the list's name and description and signs up without script", async () => {
    const l = await list({ description: `Roasts ${XSS}` });
    await w.ok(w.owner, "email_lists_update", { id: l.id, name: `Beans ${XSS}` });
    for (const width of [1280, 390]) {
      const ctx = await browser.newContext({ viewport: { width, height: 800 }, javaScriptEnabled: false });
      const page = await ctx.newPage();
      const dialogs: string[] = [];
      page.on("dialog", (d) => {
        dialogs.push(d.message());
        void d.dismiss();
      });
      const res = await page.goto(l.signupUrl);
      expect(res!.status()).toBe(200);
      expect(await page.locator("h1").textContent()).toBe(`Subscribe to Beans ${XSS}`);
      expect(await page.locator("img").count()).toBe(0);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await page.screenshot({ path: join(ARTIFACTS, `email-signup-${width}.png`), fullPage: true });
      const email = `chromium${width}@example.com`;
      await page.getByLabel("Email address").fill(email);
      await page.getByRole("button", { name: "Subscribe" }).click();
      await page.waitForLoadState();
      expect(await page.locator("h1").textContent()).toBe("Check your inbox");
      expect(await status(l.id, email)).toBe("unconfirmed");
      expect(dialogs).toEqual([]);
      await ctx.close();
    }
  }, 60_000);
});
