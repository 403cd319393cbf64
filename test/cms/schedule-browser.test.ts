/**
 * The approval page of a scheduled post, in real headless Chromium: the
 * reviewer reads when it goes live ("Goes live Mon 30 Nov 2026, 09:00 UTC")
 * before deciding, and approving it does not put it on the site early.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext } from "playwright-core";
import { anyoneWithLink } from "../fixtures/approvals";
import { mintRestKey } from "../fixtures/rest";
import { startTestServer, type TestServer } from "../harness";
import { makeWorld, SAMPLE_BLOCKS, type World } from "./world";

let s: TestServer;
let w: World;
let context: BrowserContext;
let profile: string;
let restKey: string;

beforeAll(async () => {
  s = await startTestServer({ seed: false });
  s.clock.set(Date.parse("2026-11-29T06:00:00Z"));
  w = await makeWorld(s);
  await anyoneWithLink(s.deps, w.A.id);
  restKey = (await mintRestKey(s.deps, w.siteA)).key;
  profile = mkdtempSync(join(tmpdir(), "plinth-chromium-"));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
}, 30_000);

afterAll(async () => {
  await context?.close();
  await s?.stop();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

describe("approval page of a scheduled post", () => {
  test("says when it goes live; approving schedules it, REST serves it from that instant", async () => {
    const p = await w.ok(w.owner, "posts_create", { siteId: w.siteA, title: "Winter menu", blocks: SAMPLE_BLOCKS });
    await w.ok(w.owner, "posts_schedule", { siteId: w.siteA, id: p.id, at: "2026-11-30T09:00:00Z" });
    const page = await context.newPage();
    await page.goto(w.local(p.approval.url));
    const facts = page.locator("dl.ap-facts").first();
    await facts.waitFor();
    expect((await facts.innerText()).replace(/\s+/g, " ")).toContain("Goes live Mon 30 Nov 2026, 09:00 UTC");
    await page.click("button.approve");
    await page.locator(".ap-notice.ok").first().waitFor();
    await page.close();

    const get = async () =>
      (
        await fetch(`${s.url}/api/v1/sites/${w.siteA}/posts/winter-menu`, {
          headers: { Authorization: `Bearer ${restKey}` },
        })
      ).status;
    expect(await get()).toBe(404);
    s.clock.set(Date.parse("2026-11-30T09:00:00Z"));
    expect(await get()).toBe(200);
  }, 30_000);
});
