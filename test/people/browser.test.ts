/**
 * The inbox and the invitation page in real headless Chromium
 * (playwright-core): a person signs in, sees the unread count in the
 * header, marks one read and opens another; an invited person follows the
 * emailed link, signs up and lands in the team. No page runs a script.
 * Screenshots go to test-artifacts/.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { notify } from "../../src/domains/notifications/notify";
import { makePeople, PASSWORD, type People } from "./world";

const ARTIFACTS = join(import.meta.dir, "../../test-artifacts");
let w: People;
let browser: Browser;

beforeAll(async () => {
  w = await makePeople();
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
  mkdirSync(ARTIFACTS, { recursive: true });
}, 30_000);
afterAll(async () => {
  await browser?.close();
  await w?.stop();
});

/** A fresh browser session that fails the test if any script runs or the console complains. */
async function session(): Promise<{ ctx: BrowserContext; page: Page; problems: string[] }> {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  const problems: string[] = [];
  page.on("dialog", (d) => problems.push(`dialog: ${d.message()}`));
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  return { ctx, page, problems };
}

const header = async (page: Page) => (await page.locator("nav.main").innerText()).replace(/\s+/g, " ").trim();

describe("the inbox", () => {
  test("unread count in the header, mark read, open a notification", async () => {
    const say = (title: string, link?: string) =>
      w.s.deps.store.transaction(() =>
        notify(w.s.deps, {
          companyId: w.A.id,
          userIds: [w.owner.id],
          type: "card.assigned",
          title,
          link,
          actorUserId: w.admin.id,
        }),
      );
    await say("WEB-7 Update the pricing table");
    w.s.clock.advance(1000);
    await say("<b>WEB-8</b> Check the team page", "/team");
    const { ctx, page, problems } = await session();
    await page.goto(`${w.s.url}/login?next=/inbox`);
    await page.fill("input[name=email]", w.owner.email);
    await page.fill("input[name=password]", PASSWORD);
    await page.click("button[type=submit]");
    await page.waitForURL(`${w.s.url}/inbox`);
    expect(await header(page)).toContain("Inbox 2");
    expect(await page.locator("a[aria-label='Inbox, 2 unread']").count()).toBe(1);
    const items = page.locator("li.note");
    expect(await items.count()).toBe(2);
    // Newest first, shown as text (the markup in the title is not markup).
    expect(await items.nth(0).locator(".note-title").innerText()).toContain("<b>WEB-8</b> Check the team page");
    expect(await items.nth(0).innerText()).toContain("Ada Admin");
    await page.screenshot({ path: join(ARTIFACTS, "people-inbox.png"), fullPage: true });
    // Mark the older one read: the count drops, it moves below.
    await items.nth(1).getByRole("button", { name: "Mark read" }).click();
    await page.waitForLoadState();
    expect(await header(page)).toContain("Inbox 1");
    expect(await page.locator("li.note.new").count()).toBe(1);
    // Open the other: read, and we are on its link.
    await page.locator("li.note.new").getByRole("button", { name: "Open" }).click();
    await page.waitForURL(`${w.s.url}/team`);
    expect(await header(page)).not.toMatch(/Inbox \d/);
    expect(await page.locator("h1").innerText()).toBe("Team of Acme Agency");
    // Archive from the inbox; it shows under Archived.
    await page.goto(`${w.s.url}/inbox`);
    await page.locator("li.note").first().getByRole("button", { name: "Archive" }).click();
    await page.waitForLoadState();
    expect(await page.locator("li.note").count()).toBe(1);
    await page.getByRole("link", { name: "Archived" }).click();
    expect(await page.locator("li.note").count()).toBe(1);
    expect(problems).toEqual([]);
    await ctx.close();
  }, 30_000);
});

describe("accepting an invitation", () => {
  test("the emailed link, a short sign-up, and the person is in the team; the used link says so", async () => {
    await w.ok(w.owner, "team_invitations_create", {
      email: "rio@client.example",
      role: "viewer",
      message: "See you at the kick-off!",
    });
    w.s.clock.advance(1000);
    await w.s.jobs.runDue();
    const [m] = await w.smtp.waitFor(1);
    const link = /https?:\/\/\S+(\/invite\/[0-9a-f]{64})/.exec((await m!.parse()).text!)![1]!;
    const { ctx, page, problems } = await session();
    await page.goto(`${w.s.url}${link}`);
    expect(await page.locator("h1").innerText()).toBe("Join Acme Agency");
    expect(await page.locator("main").innerText()).toContain("See you at the kick-off!");
    await page.fill("input[name=name]", "Rio Client");
    await page.fill("input[name=password]", "a long enough secret");
    await page.fill("input[name=confirm]", "a long enough secret");
    await page.screenshot({ path: join(ARTIFACTS, "people-invite.png"), fullPage: true });
    await page.getByRole("button", { name: "Join Acme Agency" }).click();
    await page.waitForURL(`${w.s.url}/team?done=joined`);
    expect(await page.locator("main").innerText()).toContain("Welcome to the team.");
    expect(await page.locator("table").first().innerText()).toContain("Rio Client");
    // The same link again, in another browser: used.
    const other = await session();
    const res = await other.page.goto(`${w.s.url}${link}`);
    expect(res!.status()).toBe(410);
    expect(await other.page.locator("main").innerText()).toContain("already been used");
    expect([...problems, ...other.problems]).toEqual([]);
    await ctx.close();
    await other.ctx.close();
  }, 30_000);
});
