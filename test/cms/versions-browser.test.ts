/**
 * The approval page of a restore, in real headless Chromium at a phone's
 * 390 px and at 1280 px: the reviewer reads which version it restores and
 * the difference from the live post (fields live → proposed, blocks with
 * the words that change, custom fields one per line), script in any of it
 * stays text (no dialog runs), nothing overflows sideways, and approving
 * puts the version back on REST.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { anyoneWithLink } from "../fixtures/approvals";
import { mintRestKey } from "../fixtures/rest";
import { startTestServer, type TestServer } from "../harness";
import { makeWorld, type World } from "./world";

const ARTIFACTS = join(import.meta.dir, "../../test-artifacts");
let s: TestServer;
let w: World;
let browser: Browser;
let profile: string;
let restKey: string;

beforeAll(async () => {
  s = await startTestServer({ seed: false });
  w = await makeWorld(s);
  await anyoneWithLink(s.deps, w.A.id);
  restKey = (await mintRestKey(s.deps, w.siteA)).key;
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

const HOSTILE = `<img src=x onerror="alert('xss')"><script>alert('xss')</script>`;

describe("approval page of a restore", () => {
  test("names the version, shows the difference from live, escaped, readable at 390 px; approving restores it", async () => {
    const type = await w.ok(w.owner, "post_types_create", { siteId: w.siteA, name: "Case study" });
    await w.ok(w.owner, "post_type_fields_set", {
      siteId: w.siteA,
      id: type.id,
      fields: [
        { name: "client", type: "text", required: true },
        { name: "results", type: "list", of: { type: "text" } },
      ],
    });
    const p = await w.ok(w.owner, "posts_create", {
      siteId: w.siteA,
      title: "Harbor Lights Hotel",
      postType: "case-study",
      blocks: [{ type: "paragraph", props: { text: "Roasted on Mondays for the hotel." } }],
      fields: { client: "Harbor Lights Hotel", results: [HOSTILE] },
    });
    const d1 = await fetch(w.local(p.approval.url));
    expect(d1.status).toBe(200);
    const approveLink = async (url: string) => {
      const page = await browser.newPage();
      await page.goto(w.local(url));
      await page.click("button.approve");
      await page.locator(".ap-notice.ok").first().waitFor();
      await page.close();
    };
    await approveLink(p.approval.url);
    const u = await w.ok(w.owner, "posts_update", {
      siteId: w.siteA,
      id: p.id,
      title: "Harbor Lights Hotel, a year on",
      blocks: [{ type: "paragraph", props: { text: "Roasted on Tuesdays for the hotel." } }],
      fields: { results: ["Fewer complaints"] },
    });
    await approveLink(u.approval.url);
    const r = await w.ok(w.owner, "post_versions_restore", { siteId: w.siteA, postId: p.id, version: 1 });

    for (const width of [390, 1280]) {
      const ctx = await browser.newContext({ viewport: { width, height: 800 } });
      const page = await ctx.newPage();
      const dialogs: string[] = [];
      page.on("dialog", (d) => {
        dialogs.push(d.message());
        void d.dismiss();
      });
      await page.goto(w.local(r.approval.url));
      const facts = page.locator("dl.ap-facts").first();
      await facts.waitFor();
      expect((await facts.innerText()).replace(/\s+/g, " ")).toContain("Restores Version 1");
      const changes = (await page.locator("table.ap-changes").first().innerText()).replace(/\s+/g, " ");
      expect(changes).toContain("Harbor Lights Hotel, a year on");
      expect(changes).toContain(
        "block 1 (paragraph) changed: “Roasted on Tuesdays for the hotel.” → “Roasted on Mondays for the hotel.”",
      );
      expect(changes).toContain("Custom fields");
      expect(changes).toContain(`results: ["Fewer complaints"]`);
      // The hostile value is shown as the text it is.
      expect(await page.locator("table.ap-changes").first().innerText()).toContain("onerror=");
      expect(await page.locator("table.ap-changes img, table.ap-changes script").count()).toBe(0);
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
      ).toBeLessThanOrEqual(0);
      await page.screenshot({ path: join(ARTIFACTS, `post-restore-${width}.png`), fullPage: true });
      expect(dialogs).toEqual([]);
      await ctx.close();
    }
    await approveLink(r.approval.url);
    const served = (await (
      await fetch(`${s.url}/api/v1/sites/${w.siteA}/posts/${p.slug}`, {
        headers: { Authorization: `Bearer ${restKey}` },
      })
    ).json()) as any;
    expect(served.data.title).toBe("Harbor Lights Hotel");
    expect(served.data.fields).toEqual({ client: "Harbor Lights Hotel", results: [HOSTILE] });
  }, 60_000);
});
