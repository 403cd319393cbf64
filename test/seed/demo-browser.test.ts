/**
 * The demo's pictures and videos as a person evaluating Plinth meets them:
 * decoded and played by real headless Chromium (playwright-core) from the
 * running server, and shown in an approval preview an agent asks for with
 * the printed MCP key. A screenshot of that preview is kept in
 * test-artifacts/demo-approval-preview.png.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import * as t from "../tables";
import { fitWithin } from "../../src/domains/cms/media-image";
import { demoSiteIds } from "../../db/seed/demo";
import { startTestServer, type TestServer } from "../harness";

const ARTIFACTS = join(import.meta.dir, "../../test-artifacts");

let s: TestServer;
let context: BrowserContext;
let profile: string;
let page: Page;
let siteId: number;

beforeAll(async () => {
  s = await startTestServer();
  siteId = (await demoSiteIds(s.deps)).store!;
  profile = mkdtempSync(join(tmpdir(), "plinth-chromium-"));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--autoplay-policy=no-user-gesture-required",
    ],
  });
  page = await context.newPage();
  await page.setContent("<!doctype html><title>demo media</title>");
}, 30_000);

afterAll(async () => {
  await context?.close();
  await s?.stop();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

const companyOf = async (id: number) =>
  (await s.deps.db.select().from(t.sites).where(eq(t.sites.id, id)).limit(1))[0]!.companyId;
const rows = async () => await s.deps.db.select().from(t.media).where(eq(t.media.siteId, siteId));

describe("demo media in Chromium", () => {
  test("every picture and thumbnail decodes at the size its row gives", async () => {
    const want: [url: string, w: number, h: number][] = [];
    for (const m of (await rows()).filter((r) => r.mimeType.startsWith("image/"))) {
      want.push([`${s.url}${m.url}`, m.width!, m.height!]);
      if (m.thumbnailUrl !== m.url) {
        const fit = fitWithin(m.width!, m.height!);
        want.push([`${s.url}${m.thumbnailUrl}`, fit.width, fit.height]);
      }
    }
    expect(want.length).toBeGreaterThan(40);
    const got = await page.evaluate(
      async (list) =>
        Promise.all(
          list.map(async ([url]) => {
            const img = new Image();
            img.src = url;
            try {
              await img.decode();
              return [url, img.naturalWidth, img.naturalHeight] as [string, number, number];
            } catch {
              return [url, 0, 0] as [string, number, number];
            }
          }),
        ),
      want,
    );
    expect(got).toEqual(want);
  });

  test("every video plays: its size, 4 seconds, a first frame that matches its poster frame, then movement", async () => {
    const videos = (await rows()).filter((r) => r.mimeType === "video/mp4");
    expect(videos.length).toBe(3);
    for (const v of videos) {
      // Pixels stay in the page (moving frames through the driver is slow); only the numbers come back.
      const r = await page.evaluate(
        async ([src, posterSrc]) => {
          const pixels = (el: CanvasImageSource, w: number, h: number) => {
            const c = document.createElement("canvas");
            c.width = w;
            c.height = h;
            const g = c.getContext("2d")!;
            g.drawImage(el, 0, 0);
            return g.getImageData(0, 0, w, h).data;
          };
          const diff = (a: Uint8ClampedArray, b: Uint8ClampedArray) => {
            let sum = 0;
            for (let i = 0; i < a.length; i += 4)
              sum += Math.abs(a[i]! - b[i]!) + Math.abs(a[i + 1]! - b[i + 1]!) + Math.abs(a[i + 2]! - b[i + 2]!);
            return sum / ((a.length / 4) * 3);
          };
          const video = document.createElement("video");
          video.crossOrigin = "anonymous"; // the media route allows any origin, so frames can be read back
          video.muted = true;
          video.src = src;
          await new Promise((ok, fail) => {
            video.onloadeddata = ok;
            video.onerror = () => fail(new Error(`cannot play ${src}: ${video.error?.message}`));
          });
          const frame = async (at: number) => {
            video.currentTime = at;
            await new Promise((ok) => (video.onseeked = ok));
            // "seeked" can fire before a detached video has the new frame to draw (a CI run read the first
            // frame twice): wait for the frame to be presented, or 300 ms where that callback never comes.
            await new Promise<void>((ok) => {
              const done = () => ok();
              (
                video as HTMLVideoElement & { requestVideoFrameCallback?: (cb: () => void) => void }
              ).requestVideoFrameCallback?.(done);
              setTimeout(done, 300);
            });
            return pixels(video, video.videoWidth, video.videoHeight);
          };
          const first = await frame(0);
          const last = await frame(video.duration - 0.05);
          const poster = new Image();
          poster.crossOrigin = "anonymous";
          poster.src = posterSrc;
          await poster.decode();
          return {
            width: video.videoWidth,
            height: video.videoHeight,
            duration: video.duration,
            poster: [poster.naturalWidth, poster.naturalHeight],
            posterDiff: diff(first, pixels(poster, poster.naturalWidth, poster.naturalHeight)),
            motion: diff(first, last),
          };
        },
        [`${s.url}${v.url}`, `${s.url}${v.thumbnailUrl}`],
      );
      expect([r.width, r.height]).toEqual([v.width!, v.height!]);
      expect(r.duration).toBeCloseTo(4, 1);
      // The poster frame (the row's thumbnail) is the same picture, through JPEG instead of H.264.
      expect(r.poster).toEqual([v.width!, v.height!]);
      expect(r.posterDiff).toBeLessThan(4);
      expect(r.motion).toBeGreaterThan(4);
    }
  }, 20_000);

  test("an agent's proposal built from demo content shows every picture in the approval preview", async () => {
    const team = (await s.deps.db.select().from(t.posts).where(eq(t.posts.slug, "team"))).find(
      (p) => p.siteId === siteId,
    )!;
    const guide = (await s.deps.db.select().from(t.posts).where(eq(t.posts.slug, "better-pour-over-at-home"))).find(
      (p) => p.siteId === siteId,
    )!;
    const blocks = [...(team.content!.blocks as unknown[]), ...(guide.content!.blocks as unknown[])];
    const res = await fetch(`${s.url}/api/mcp`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${s.demo!.mcpKey}`,
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: {
          name: "posts_create",
          arguments: {
            clientId: await companyOf(siteId),
            siteId,
            title: "Visit the roastery",
            blocks,
            coverImage: guide.coverImage,
          },
        },
      }),
    });
    const body: any = await res.json();
    expect(body.result.isError ? body.result.content[0].text : "ok").toBe("ok");
    const created = JSON.parse(body.result.content[0].text);
    const preview = await context.newPage();
    expect((await preview.goto(created.approval.url))!.status()).toBe(200);
    await preview.waitForLoadState("load");
    const images = await preview.$$eval("img", (list) =>
      list.map((img) => ({ src: img.getAttribute("src"), ok: img.complete && img.naturalWidth > 0 })),
    );
    expect(images.length).toBeGreaterThanOrEqual(5); // the cover, three team portraits, the V60
    expect(images.filter((i) => !i.ok)).toEqual([]);
    expect(images.every((i) => i.src!.startsWith("/media/"))).toBe(true);
    const video = await preview.$eval("video", (v: HTMLVideoElement) =>
      v.readyState >= 1 ? v.videoWidth : new Promise<number>((ok) => (v.onloadedmetadata = () => ok(v.videoWidth))),
    );
    expect(video).toBe(320);
    mkdirSync(ARTIFACTS, { recursive: true });
    const shot = join(ARTIFACTS, "demo-approval-preview.png");
    await preview.screenshot({ path: shot, fullPage: true });
    expect(statSync(shot).size).toBeGreaterThan(20_000);
    await preview.close();
  }, 20_000);
});
