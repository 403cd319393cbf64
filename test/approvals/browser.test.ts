/**
 * The approval workflow end to end, as people and agents meet it: an agent
 * drafts over MCP (real SDK client), a reviewer opens the link in real
 * headless Chromium (playwright-core), sees the rendered preview, decides,
 * and the REST API serves exactly what was approved (and nothing else):
 * entity links, and a require_cms_approval key's staged changes (content,
 * branding, a product going on sale).
 * A screenshot of the approval page is kept in test-artifacts/.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type Locator, type Page } from "playwright-core";
import { mintRestKey } from "../fixtures/rest";
import { startTestServer, type TestServer } from "../harness";
import { anyoneWithLink } from "../fixtures/approvals";
import { makeWorld, SAMPLE_BLOCKS, type World } from "../cms/world";

const T = 30_000;
const ARTIFACTS = join(import.meta.dir, "../../test-artifacts");

let s: TestServer;
let w: World;
let context: BrowserContext;
let profile: string;
let restKey: string;

beforeAll(async () => {
  s = await startTestServer({ seed: false });
  w = await makeWorld(s);
  // Anyone with the link decides here: these pages are under test, not who decides (test/approvals/who-decides*.test.ts).
  await anyoneWithLink(s.deps, w.A.id);
  restKey = (await mintRestKey(s.deps, w.siteA)).key;
  profile = mkdtempSync(join(tmpdir(), "plinth-chromium-"));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
  mkdirSync(ARTIFACTS, { recursive: true });
}, 30_000);

afterAll(async () => {
  await context?.close();
  await s?.stop();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

async function rest(path: string) {
  const r = await fetch(`${s.url}/api/v1/sites/${w.siteA}${path}`, { headers: { Authorization: `Bearer ${restKey}` } });
  return { status: r.status, body: (await r.json()) as any };
}

/** Visible text of the first element matching `sel` (waits for it). */
async function text(page: Page | Locator, sel: string): Promise<string> {
  const l = page.locator(sel).first();
  await l.waitFor();
  return (await l.innerText()).replace(/\s+/g, " ").trim();
}

/** A fresh page that records dialogs and console errors, so a script that runs cannot go unnoticed. */
async function openPage(url: string): Promise<{ page: Page; dialogs: string[]; status: number }> {
  const page = await context.newPage();
  const dialogs: string[] = [];
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  const res = await page.goto(url);
  return { page, dialogs, status: res!.status() };
}

describe("entity links (posts_create)", () => {
  test(
    "agent drafts a multi-block post; reviewer sees it rendered, approves; REST serves it",
    async () => {
      const cat = await w.ok(w.owner, "categories_create", { siteId: w.siteA, name: "Brewing", color: "#AA5500" });
      const created = await w.ok(w.owner, "posts_create", {
        siteId: w.siteA,
        title: "Our espresso guide",
        blocks: SAMPLE_BLOCKS,
        excerpt: "How we pull shots.",
        categoryIds: [cat.id],
      });
      expect(created).toMatchObject({ slug: "our-espresso-guide", status: "pending" });
      expect(created.approval.token).toMatch(/^[0-9a-f]{64}$/);
      expect(created.approval.url).toBe(`${s.config.publicUrl}/approve/${created.approval.token}`);
      expect(created.blocks).toBeUndefined(); // heavy fields only on request

      // Before approval nothing is served.
      expect((await rest("/posts")).body.data).toEqual([]);
      expect((await rest("/posts/our-espresso-guide")).status).toBe(404);

      const { page, status } = await openPage(created.approval.url);
      expect(status).toBe(200);
      expect(await text(page, "h1.ap-page")).toBe("Our espresso guide");
      const preview = page.locator("#ap-content");
      expect(await text(preview, "h2.pb-heading")).toBe("Single-origin espresso");
      const previewText = await preview.innerText();
      expect(previewText).toContain("Bright, sweet and roasted in small batches.");
      expect(await preview.locator("li").count()).toBe(3);
      expect(await preview.locator(".pb-columns .pb-column").count()).toBe(2);
      expect(previewText).toContain("Best decaf ever.");
      expect(await preview.locator("a.pb-button").first().getAttribute("href")).toBe("/shop");
      const meta = await text(page, ".ap-meta");
      expect(meta).toContain("Olivia Owner");
      expect(meta).toContain("Agent key");
      expect(await page.locator(".ap-meta").nth(1).innerText()).toContain("expires");
      expect(await text(page, "dl.ap-facts")).toContain("Brewing");
      const shot = join(ARTIFACTS, "approval-page.png");
      await page.screenshot({ path: shot, fullPage: true });
      expect(statSync(shot).size).toBeGreaterThan(5_000);

      await page.fill("#ap-comment", "Looks great");
      await page.click("button.approve");
      expect(await text(page, ".ap-notice.ok")).toContain("Approved. The change is live.");
      await page.close();

      const list = await rest("/posts");
      expect(list.body.data.map((p: any) => p.slug)).toEqual(["our-espresso-guide"]);
      const detail = await rest("/posts/our-espresso-guide");
      expect(detail.status).toBe(200);
      expect(detail.body.data.published).toBe(true);
      expect(JSON.parse(detail.body.data.content).blocks[0]).toEqual(SAMPLE_BLOCKS[0]);
      expect(detail.body.data.categories.map((c: any) => c.slug)).toEqual(["brewing"]);

      // The agent reads the outcome through the approvals tools and the post itself.
      const a = await w.ok(w.owner, "approvals_get", { id: created.approval.id });
      expect(a).toMatchObject({
        status: "approved",
        comment: "Looks great",
        decidedBy: "link holder",
      });
      const post = await w.ok(w.owner, "posts_get", { siteId: w.siteA, id: created.id });
      expect(post).toMatchObject({ status: "published", published: true, approval: { status: "approved" } });
    },
    T,
  );

  test(
    "a second approval (another tab) and approval after rejection say what already happened",
    async () => {
      const created = await w.ok(w.owner, "posts_create", {
        siteId: w.siteA,
        title: "Twice",
        blocks: SAMPLE_BLOCKS.slice(0, 2),
      });
      const one = await openPage(created.approval.url);
      const two = await openPage(created.approval.url);
      await one.page.click("button.reject");
      expect(await text(one.page, ".ap-notice.bad")).toContain("Rejected. Nothing was published");
      // The stale tab still shows the buttons; its click is refused with what happened.
      await two.page.click("button.approve");
      expect(await text(two.page, ".ap-notice")).toContain("already rejected");
      expect(await two.page.locator("button.approve").count()).toBe(0);
      await one.page.close();
      await two.page.close();
      expect((await rest("/posts/twice")).status).toBe(404);
      expect((await w.ok(w.owner, "posts_get", { siteId: w.siteA, id: created.id })).status).toBe("rejected");
    },
    T,
  );

  test(
    "reject: nothing is published, and the author can propose again with posts_update",
    async () => {
      const created = await w.ok(w.owner, "posts_create", {
        siteId: w.siteA,
        title: "Not yet",
        blocks: SAMPLE_BLOCKS.slice(0, 1),
      });
      const { page } = await openPage(created.approval.url);
      await page.fill("#ap-comment", "Wrong tone");
      await page.click("button.reject");
      expect(await text(page, ".ap-notice.bad")).toContain("Wrong tone");
      await page.close();
      expect((await rest("/posts/not-yet")).status).toBe(404);
      const a = await w.ok(w.owner, "approvals_get", { id: created.approval.id });
      expect(a).toMatchObject({ status: "rejected", comment: "Wrong tone" });
      const again = await w.ok(w.owner, "posts_update", {
        siteId: w.siteA,
        id: created.id,
        title: "Not yet, but soon",
      });
      expect(again.status).toBe("pending");
      expect(again.approval.token).not.toBe(created.approval.token);
    },
    T,
  );

  test(
    "script in post content does not run on the approval page",
    async () => {
      const created = await w.ok(w.owner, "posts_create", {
        siteId: w.siteA,
        title: `<img src=x onerror="alert('title')">Evil`,
        excerpt: `<script>alert("excerpt")</script>`,
        customJs: `alert("customJs")`,
        blocks: [
          { type: "paragraph", props: { text: `<script>alert("para")</script><img src=x onerror=alert("img")>` } },
          { type: "heading", props: { text: `"><svg onload=alert("h")>`, level: 2 } },
          { type: "code", props: { code: "</pre><script>alert('code')</script>" } },
        ],
      });
      const { page, dialogs } = await openPage(created.approval.url);
      expect(await text(page, "#ap-content")).toContain(`<script>alert("para")</script>`);
      expect(await text(page, "h1.ap-page")).toContain(`<img src=x onerror="alert('title')">Evil`);
      // Let any injected handler fire, then check nothing did.
      await page.waitForTimeout(300);
      expect(dialogs).toEqual([]);
      expect(
        await page.locator("#ap-content script, #ap-content [onerror], #ap-content [onload], #ap-content svg").count(),
      ).toBe(0);
      expect(await page.evaluate(() => document.scripts.length)).toBe(0);
      await page.close();
    },
    T,
  );

  test(
    "a published post's update keeps the live version until approved, then swaps it in",
    async () => {
      const created = await w.ok(w.owner, "posts_create", {
        siteId: w.siteA,
        title: "Live one",
        blocks: [{ type: "paragraph", props: { text: "Version one" } }],
      });
      const first = await openPage(created.approval.url);
      await first.page.click("button.approve");
      await first.page.locator(".ap-notice.ok").first().waitFor();
      await first.page.close();
      const upd = await w.ok(w.owner, "posts_update", {
        siteId: w.siteA,
        id: created.id,
        title: "Live one, revised",
        blocks: [{ type: "paragraph", props: { text: "Version two" } }],
      });
      expect(upd).toMatchObject({ status: "published", pendingRevision: { fields: ["title", "content"] } });
      const live = await rest("/posts/live-one");
      expect(live.body.data.title).toBe("Live one");
      expect(live.body.data.content).toContain("Version one");

      const { page } = await openPage(upd.approval.url);
      expect(await text(page, "table.ap-changes")).toContain("Live one, revised");
      expect(await text(page, "table.ap-changes")).toContain("Live now");
      expect(await text(page, "#ap-content")).toContain("Version two");
      await page.click("details.ap-live summary");
      expect(await text(page, "details.ap-live")).toContain("Version one");
      await page.click("button.approve");
      await page.locator(".ap-notice.ok").first().waitFor();
      await page.close();
      const after = await rest("/posts/live-one");
      expect(after.body.data.title).toBe("Live one, revised");
      expect(after.body.data.content).toContain("Version two");
    },
    T,
  );
});

describe("pending changes (require_cms_approval)", () => {
  test(
    "a staged change is applied only when approved in the browser",
    async () => {
      const staged = await w.ok(w.gated, "categories_create", {
        siteId: w.siteA,
        name: "Staged Roasts",
        color: "#123456",
      });
      expect(staged.status).toBe("staged");
      expect(staged.approval.linkType).toBe("pending_change");
      expect((await rest("/categories")).body.data.map((c: any) => c.name)).not.toContain("Staged Roasts");

      const { page } = await openPage(staged.approval.url);
      expect(await text(page, ".ap-meta")).toContain("Careful agent");
      expect(await text(page, "table.ap-changes")).toContain("Staged Roasts");
      expect(await text(page, "table.ap-changes")).toContain("#123456");
      await page.click("button.approve");
      await page.locator(".ap-notice.ok").first().waitFor();
      await page.close();
      const cats = (await rest("/categories")).body.data;
      expect(cats.find((c: any) => c.name === "Staged Roasts")).toMatchObject({
        slug: "staged-roasts",
        color: "#123456",
      });
    },
    T,
  );

  test(
    "a staged posts_create shows its blocks and, once approved, is published in one step",
    async () => {
      const staged = await w.ok(w.gated, "posts_create", {
        siteId: w.siteA,
        title: "Staged story",
        blocks: SAMPLE_BLOCKS,
      });
      expect(staged.approval.linkType).toBe("pending_change");
      expect(await w.ok(w.owner, "posts_list", { siteId: w.siteA, search: "Staged story" })).toMatchObject({
        total: 0,
      });
      const { page } = await openPage(staged.approval.url);
      expect(await text(page, "#ap-content")).toContain("Single-origin espresso");
      await page.click("button.approve");
      await page.locator(".ap-notice.ok").first().waitFor();
      await page.close();
      const served = await rest("/posts/staged-story");
      expect(served.status).toBe(200);
      expect(served.body.data.title).toBe("Staged story");
    },
    T,
  );

  test(
    "a staged branding change reads field by field, live → proposed; approved in the browser, REST serves the colour",
    async () => {
      await w.ok(w.owner, "branding_update_profile", { siteId: w.siteA, branding: { primaryColor: "#222222" } });
      const staged = await w.ok(w.gated, "branding_update_profile", {
        siteId: w.siteA,
        branding: { primaryColor: "#0f766e" },
      });
      expect(staged.approval.linkType).toBe("pending_change");
      expect((await rest("/branding")).body.data.primaryColor).toBe("#222222");
      const { page } = await openPage(staged.approval.url);
      const row = await text(page, "table.ap-changes tr:has(th:text-is('primaryColor'))");
      expect(row).toBe("primaryColor #222222 #0f766e");
      expect(await text(page, "table.ap-changes")).toContain("Live now");
      await page.click("button.approve");
      await page.locator(".ap-notice.ok").first().waitFor();
      await page.close();
      expect((await rest("/branding")).body.data.primaryColor).toBe("#0f766e");
    },
    T,
  );

  test(
    "a staged product activation says what appears; approved in the browser, the storefront lists it",
    async () => {
      await w.ok(w.owner, "store_settings_update", { siteId: w.siteA, enabled: true });
      const p = await w.ok(w.owner, "products_create", { siteId: w.siteA, name: "Staged Beans", price: 1400 });
      const staged = await w.ok(w.gated, "products_set_status", { siteId: w.siteA, id: p.id, status: "active" });
      expect(staged.approval.linkType).toBe("pending_change");
      expect((await rest("/products")).body.data.map((x: any) => x.slug)).not.toContain("staged-beans");
      const { page } = await openPage(staged.approval.url);
      expect(await text(page, ".ap-summary")).toContain("Putting the product “Staged Beans” on sale");
      expect(await text(page, "table.ap-changes")).toContain("draft");
      await page.click("button.approve");
      await page.locator(".ap-notice.ok").first().waitFor();
      await page.close();
      expect((await rest("/products")).body.data.map((x: any) => x.slug)).toContain("staged-beans");
    },
    T,
  );

  test(
    "a rejected staged change is never applied",
    async () => {
      const staged = await w.ok(w.gated, "tags_create", { siteId: w.siteA, name: "Never" });
      const { page } = await openPage(staged.approval.url);
      await page.click("button.reject");
      await page.locator(".ap-notice.bad").first().waitFor();
      await page.close();
      expect((await rest("/tags")).body.data.map((t: any) => t.name)).not.toContain("Never");
    },
    T,
  );
});
