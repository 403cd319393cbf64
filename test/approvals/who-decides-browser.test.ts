/**
 * Who decides, in real headless Chromium (playwright-core), under the
 * default `person` policy: a listed reviewer asks for a code on the page,
 * reads it from the mail outbox (no SMTP in tests), enters it and approves;
 * a member signs in from the page's "Sign in to decide" and is brought back
 * to decide. No script runs on any of these pages. Screenshots at 1280 and
 * 390 px wide are kept in test-artifacts/ and checked for horizontal
 * overflow (the approval page is the product's visual standard).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { desc, eq } from "drizzle-orm";
import { chromium, type Browser, type Page } from "playwright-core";
import { mailOutbox } from "../../src/core/tables";
import { CODE_MAIL_TAG } from "../../src/domains/approvals/reviewers";
import { addMember, createUser } from "../fixtures/accounts";
import { setApprovalPolicy } from "../fixtures/approvals";
import { startTestServer, type TestServer } from "../harness";
import { makeWorld, SAMPLE_BLOCKS, type World } from "../cms/world";

const T = 45_000;
const ARTIFACTS = join(import.meta.dir, "../../test-artifacts");
const RITA = "rita@client.test";
const PASSWORD = "correct horse battery staple";

let s: TestServer;
let w: World;
let browser: Browser;
let profile: string;

beforeAll(async () => {
  s = await startTestServer({ seed: false });
  w = await makeWorld(s);
  const maya = await createUser(s.deps, { email: "maya@browser.test", name: "Maya Ortiz", password: PASSWORD });
  await addMember(s.deps, w.A.id, maya.id, "admin");
  await setApprovalPolicy(s.deps, w.A.id, "person", [RITA]);
  profile = mkdtempSync(join(tmpdir(), "plinth-chromium-"));
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
  mkdirSync(ARTIFACTS, { recursive: true });
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await s?.stop();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

async function fresh(width: number): Promise<{ page: Page; dialogs: string[]; close(): Promise<void> }> {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  const page = await context.newPage();
  const dialogs: string[] = [];
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  return { page, dialogs, close: () => context.close() };
}

/** Screenshot, and no element wider than the viewport (nothing scrolls sideways). */
async function shoot(page: Page, name: string) {
  const file = join(ARTIFACTS, name);
  await page.screenshot({ path: file, fullPage: true });
  expect(statSync(file).size).toBeGreaterThan(5_000);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
}

async function newestCode(): Promise<string> {
  const m = (
    await s.deps.db.select().from(mailOutbox).where(eq(mailOutbox.tag, CODE_MAIL_TAG)).orderBy(desc(mailOutbox.id))
  )[0];
  return /Your code: ([0-9]{8})/.exec(m?.text ?? "")![1]!;
}

const draft = async (title: string) =>
  await w.ok(w.owner, "posts_create", { siteId: w.siteA, title, blocks: SAMPLE_BLOCKS.slice(0, 3) });

describe("person policy in Chromium", () => {
  for (const width of [1280, 390])
    test(
      `${width} px: a listed reviewer asks for a code, enters it and approves; the page shows who decided`,
      async () => {
        const created = await draft(`Reviewer at ${width}`);
        const { page, dialogs, close } = await fresh(width);
        const res = await page.goto(w.local(created.approval.url));
        expect(res!.status()).toBe(200);
        expect(await page.locator('button[name="decision"]').count()).toBe(0);
        expect(await page.locator("a.ap-button").innerText()).toBe("Sign in to decide");
        await shoot(page, `approval-ways-${width}.png`);
        await page.fill("#ap-email", RITA);
        await page.click("button.send");
        expect(await page.locator(".ap-notice").first().innerText()).toContain(`If ${RITA} is a reviewer`);
        await shoot(page, `approval-code-${width}.png`);
        await page.fill("#ap-code", "00000000" === (await newestCode()) ? "00000001" : "00000000");
        await page.click("button.approve");
        expect(await page.locator(".ap-notice.bad").innerText()).toContain("That code is not right");
        await page.fill("#ap-code", await newestCode());
        await page.fill("#ap-comment", "Approved for the client");
        await page.click("button.approve");
        expect(await page.locator(".ap-notice.ok").innerText()).toContain("Approved. The change is live.");
        expect(page.url()).toEndWith("?done=approved");
        expect(await page.evaluate(() => document.scripts.length)).toBe(0);
        expect(dialogs).toEqual([]);
        await close();
        expect(await w.ok(w.owner, "approvals_get", { id: created.approval.id })).toMatchObject({
          status: "approved",
          decidedBy: `${RITA} (verified reviewer)`,
          comment: "Approved for the client",
        });
      },
      T,
    );

  test(
    "a member signs in from the page, comes back to it, and rejects as themself",
    async () => {
      const created = await draft("Member from the page");
      const { page, close } = await fresh(1280);
      await page.goto(w.local(created.approval.url));
      await page.click("a.ap-button");
      expect(new URL(page.url()).pathname).toBe("/login");
      await page.fill('input[name="email"]', "maya@browser.test");
      await page.fill('input[name="password"]', PASSWORD);
      await page.click('form button[type="submit"]');
      await page.waitForURL((u) => u.pathname.startsWith("/approve/"));
      expect(await page.locator(".ap-who").innerText()).toContain("Signed in as Maya Ortiz");
      await shoot(page, "approval-member-1280.png");
      await page.fill("#ap-comment", "Not this week");
      await page.click("button.reject");
      expect(await page.locator(".ap-notice.bad").innerText()).toContain("Rejected.");
      await close();
      expect(await w.ok(w.owner, "approvals_get", { id: created.approval.id })).toMatchObject({
        status: "rejected",
        decidedBy: "Maya Ortiz (member)",
      });
      expect((await w.ok(w.owner, "posts_get", { siteId: w.siteA, id: created.id })).published).toBe(false);
    },
    T,
  );
});
