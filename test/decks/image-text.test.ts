/**
 * The image_text layout (a picture of the media library beside text) and
 * the outline's picture line `![alt](media:42)`, end to end: written over
 * MCP (real SDK client, real server), another company's or a missing
 * picture refused with a clear error, and the same slide on the public page
 * (headless Chromium at 1280 and 390 px: picture and text side by side, no
 * overflow), in the PDF (text and one embedded picture) and in the .pptx.
 * Runs on the configured engine (SQLite, or PostgreSQL under
 * scripts/with-postgres.ts). Screenshots land in test-artifacts/.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { encode as encodePng } from "fast-png";
import JSZip from "jszip";
import { chromium, type Browser } from "playwright-core";
import { extractText, getDocumentProxy, getResolvedPDFJS } from "unpdf";
import { slidesFromOutline } from "../../src/domains/decks/outline";
import { anyoneWithLink } from "../fixtures/approvals";
import { startTestServer, type TestServer } from "../harness";
import { makeWorld, type World } from "../cms/world";

const T = 60_000;
const ARTIFACTS = join(import.meta.dir, "../../test-artifacts");
let s: TestServer;
let w: World;
let browser: Browser;
let pic: number;
let foreign: number;

/** A 320×200 PNG in two colours, so a squashed or cropped picture would show. */
function picture(): Uint8Array {
  const data = new Uint8Array(320 * 200 * 4);
  for (let p = 0; p < 320 * 200; p++)
    data.set(p % 320 < 160 ? [0x0f, 0x76, 0x6e, 255] : [0xf2, 0xa5, 0x41, 255], p * 4);
  return encodePng({ width: 320, height: 200, data, channels: 4 });
}

beforeAll(async () => {
  s = await startTestServer({ seed: false });
  w = await makeWorld(s);
  await anyoneWithLink(s.deps, w.A.id);
  const upload = async (c: typeof w.owner, siteId: number) =>
    (
      await w.ok(c, "media_upload", {
        siteId,
        filename: "phone.png",
        dataBase64: Buffer.from(picture()).toString("base64"),
        alt: "The portal on a phone",
      })
    ).id as number;
  pic = await upload(w.owner, w.siteA);
  foreign = await upload(w.stranger, w.siteB);
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
  mkdirSync(ARTIFACTS, { recursive: true });
}, T);

afterAll(async () => {
  await browser?.close();
  await s?.stop();
});

describe("the outline's picture line", () => {
  test("a picture alone is an image slide; beside text it is image_text", () => {
    expect(
      slidesFromOutline(
        "## Cover\nProposal\n## The portal\n![The portal on a phone](media:7)\n## Ordering\n![](media:8)\nReorder in two taps.\n- Invoices online",
      ),
    ).toEqual([
      { layout: "title", content: { title: "Cover", subtitle: "Proposal" } },
      { layout: "image", content: { title: "The portal", imageId: 7, alt: "The portal on a phone" } },
      {
        layout: "image_text",
        content: { title: "Ordering", imageId: 8, body: "Reorder in two taps.", bullets: ["Invoices online"] },
      },
    ]);
    expect(() => slidesFromOutline("## Two\n![](media:1)\n![](media:2)")).toThrow("a slide takes one picture");
  });
});

describe("image_text over MCP, on the web, in the PDF and the .pptx", () => {
  let deck: { id: number; slug: string };

  test("another company's picture and a missing one are refused, naming the slide", async () => {
    for (const id of [foreign, 999_999]) {
      const r = await w.call(w.owner, "decks_create", {
        siteId: w.siteA,
        title: "Refused",
        outline: `## A\nIntro\n## B\n![](media:${id})\nText beside it.`,
      });
      expect(r.isError).toBe(true);
      expect(r.text).toContain(`slides[1].content.imageId: media ${id} not found`);
    }
  });

  test(
    "the same slide, picture and text side by side, everywhere",
    async () => {
      deck = await w.ok(w.owner, "decks_create", {
        siteId: w.siteA,
        title: "Portal",
        outline: `## The portal\nFor Harbor\n## Ordering from a phone\n![](media:${pic})\nReorder in two taps.\n- Invoices in the account\n- Standing orders`,
      });
      await w.ok(w.owner, "slides_add", {
        deckId: deck.id,
        slides: [
          {
            layout: "image_text",
            content: { title: "On the right", imageId: pic, body: "The picture takes the right half.", side: "right" },
          },
        ],
      });
      const g = await w.ok(w.owner, "decks_get", { id: deck.id, include: ["slides"] });
      expect(g.slides.map((x: any) => x.layout)).toEqual(["title", "image_text", "image_text"]);

      const pub = await w.ok(w.owner, "decks_publish", { id: deck.id });
      await w.ok(w.colleague, "approvals_approve", { id: pub.approval.id });
      const url = w.local(pub.url);
      for (const width of [1280, 390]) {
        // Without JavaScript the public page is every slide stacked, so both can be measured.
        const ctx = await browser.newContext({
          viewport: { width, height: width === 390 ? 844 : 720 },
          javaScriptEnabled: false,
        });
        await ctx.route("http://localhost:0/**", (route) => route.continue({ url: w.local(route.request().url()) }));
        const page = await ctx.newPage();
        await page.goto(url);
        expect(
          await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
        ).toBeLessThanOrEqual(0);
        for (const n of [2, 3]) {
          const picture = page.locator(`[id="${n}"] .dk-imgtext img`);
          await picture.scrollIntoViewIfNeeded();
          await page.waitForFunction((id) => {
            const img = document.getElementById(String(id))?.querySelector("img");
            return !!img && img.complete && img.naturalWidth > 0;
          }, n);
          const geo = await page.evaluate((id) => {
            const slide = document.getElementById(String(id))!;
            const r = (el: Element) => el.getBoundingClientRect();
            const img = slide.querySelector<HTMLImageElement>(".dk-imgtext img")!;
            const body = slide.querySelector(".dk-imgtext .dk-body")!;
            return {
              slide: r(slide).toJSON(),
              img: r(img).toJSON(),
              body: r(body).toJSON(),
              loaded: img.complete && img.naturalWidth === 320,
              overflow: body.scrollHeight - body.clientHeight,
            };
          }, n);
          expect(geo.loaded).toBe(true);
          // Each takes half of the slide's inner width, picture left (slide 2) or right (slide 3), nothing spills.
          expect(geo.overflow).toBeLessThanOrEqual(1);
          expect(geo.img.right).toBeLessThanOrEqual(geo.slide.right);
          expect(geo.body.right).toBeLessThanOrEqual(geo.slide.right + 0.5);
          if (n === 2) expect(geo.img.right).toBeLessThan(geo.body.left);
          else expect(geo.body.right).toBeLessThan(geo.img.left);
          const half = geo.slide.width * 0.415;
          expect(Math.abs(geo.body.width - half)).toBeLessThan(geo.slide.width * 0.03);
        }
        await page
          .locator(".dk-slide")
          .nth(1)
          .screenshot({ path: join(ARTIFACTS, `deck-image-text-${width}.png`) });
        await ctx.close();
      }

      const pdf = await w.ok(w.owner, "decks_export_pdf", { id: deck.id, version: "published" });
      const doc = await getDocumentProxy(new Uint8Array(Buffer.from(pdf.dataBase64, "base64")));
      const { text } = await extractText(doc, { mergePages: false });
      expect(text[1]).toContain("Ordering from a phone");
      expect(text[1]).toContain("Reorder in two taps.");
      expect(text[1]).toContain("Standing orders");
      expect(text[2]).toContain("The picture takes the right half.");
      const { OPS } = await getResolvedPDFJS();
      const images: number[] = [];
      for (let i = 1; i <= 3; i++)
        images.push(
          (await (await doc.getPage(i)).getOperatorList()).fnArray.filter((f: number) => f === OPS.paintImageXObject)
            .length,
        );
      expect(images).toEqual([0, 1, 1]);

      const pptx = await w.ok(w.owner, "decks_export_pptx", { id: deck.id, version: "published" });
      const zip = await JSZip.loadAsync(Buffer.from(pptx.dataBase64, "base64"));
      const slide2 = await zip.file("ppt/slides/slide2.xml")!.async("string");
      expect(slide2).toContain("<p:pic>");
      for (const t of ["Ordering from a phone", "Reorder in two taps.", "Invoices in the account"])
        expect(slide2).toContain(`<a:t>${t}</a:t>`);
      expect(Object.keys(zip.files).some((f) => f.startsWith("ppt/media/") && f.endsWith(".png"))).toBe(true);
    },
    T,
  );
});
