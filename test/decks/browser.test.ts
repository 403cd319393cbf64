/**
 * Decks end to end, as agents and people meet them: an agent drafts a deck
 * over MCP (real SDK client, real server), a reviewer opens the approval
 * link in headless Chromium and sees every slide, approves; the public
 * page is navigated slide by slide with the keyboard (and read without
 * JavaScript), its PDF downloaded, and the agent reads the result over
 * MCP. Hostile slide content is refused or stored as text and never runs
 * on any page. Screenshots land in test-artifacts/.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { extractText, getDocumentProxy, getResolvedPDFJS } from "unpdf";
import { startTestServer, type TestServer } from "../harness";
import { anyoneWithLink } from "../fixtures/approvals";
import { makeWorld, type World } from "../cms/world";
import { everyLayout, JPEG_8, PNG_8 } from "./world";

const T = 60_000;
const ARTIFACTS = join(import.meta.dir, "../../test-artifacts");

let s: TestServer;
let w: World;
let browser: Browser;
let context: BrowserContext;
let noJs: BrowserContext;
let profile: string;
let png: number;
let jpg: number;
let foreign: number;

beforeAll(async () => {
  s = await startTestServer({ seed: false });
  w = await makeWorld(s);
  // Anyone with the link decides here: these pages are under test, not who decides (test/approvals/who-decides*.test.ts).
  await anyoneWithLink(s.deps, w.A.id);
  await w.ok(w.owner, "branding_update_profile", {
    siteId: w.siteA,
    branding: { primaryColor: "#1f3a5f", accentColor: "#f2a541", headingFont: "Georgia", logoText: "Northwind Studio" },
  });
  png = (
    await w.ok(w.owner, "media_upload", {
      siteId: w.siteA,
      filename: "shop.png",
      dataBase64: Buffer.from(PNG_8).toString("base64"),
      alt: "The new shop",
    })
  ).id;
  jpg = (
    await w.ok(w.owner, "media_upload", {
      siteId: w.siteA2,
      filename: "maya.jpg",
      dataBase64: Buffer.from(JPEG_8).toString("base64"),
      alt: "Maya",
    })
  ).id;
  foreign = (
    await w.ok(w.stranger, "media_upload", {
      siteId: w.siteB,
      filename: "theirs.png",
      dataBase64: Buffer.from(PNG_8).toString("base64"),
    })
  ).id;
  profile = mkdtempSync(join(tmpdir(), "plinth-chromium-"));
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
  context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
  noJs = await browser.newContext({ viewport: { width: 1000, height: 700 }, javaScriptEnabled: false });
  // Media URLs carry the configured public URL (localhost:0 in tests): send them to the real port.
  for (const c of [context, noJs])
    await c.route("http://localhost:0/**", (route) => route.continue({ url: w.local(route.request().url()) }));
  mkdirSync(ARTIFACTS, { recursive: true });
}, T);

afterAll(async () => {
  await browser?.close();
  await s?.stop();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

/** A page that records dialogs, console errors and CSP violations, so anything that runs or is blocked is seen. */
async function open(
  ctx: BrowserContext,
  url: string,
): Promise<{ page: Page; dialogs: string[]; errors: string[]; status: number; headers: Record<string, string> }> {
  const page = await ctx.newPage();
  const dialogs: string[] = [];
  const errors: string[] = [];
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(String(e)));
  const res = await page.goto(url);
  return { page, dialogs, errors, status: res!.status(), headers: res!.headers() };
}

const visibleSlides = (page: Page) =>
  page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>(".dk-slide")]
      .filter((el) => el.offsetParent !== null)
      .map((el) => el.id),
  );
const hash = (page: Page) => page.evaluate(() => location.hash);

function slidesFor() {
  return everyLayout({ png, jpg });
}

describe("an agent's deck, approved and presented", () => {
  let deck: { id: number; slug: string };
  let publicUrl: string;

  test(
    "drafted over MCP and shown slide by slide on the approval page",
    async () => {
      const created = await w.ok(w.owner, "decks_create", {
        title: "A new shop for Harbor Coffee",
        slides: slidesFor(),
      });
      deck = { id: created.id, slug: created.slug };
      expect(created.slides).toHaveLength(9);
      const draftPage = await fetch(`${s.url}/d/${deck.slug}`);
      expect(draftPage.status).toBe(404); // nothing public before approval
      await draftPage.text();

      const pub = await w.ok(w.owner, "decks_publish", { id: deck.id });
      expect(pub).toMatchObject({ status: "pending", version: 1 });
      publicUrl = w.local(pub.url);
      const { page, dialogs, errors, status } = await open(context, w.local(pub.approval.url));
      expect(status).toBe(200);
      expect(await page.locator("h1.ap-page").innerText()).toBe("A new shop for Harbor Coffee");
      const slides = page.locator("#ap-content .dk-slide");
      expect(await slides.count()).toBe(9);
      const texts = await slides.allInnerTexts();
      expect(texts[0]).toContain("A new shop for Harbor Coffee");
      expect(texts[1]).toContain("Checkout is slow on phones");
      expect(texts[2]).toContain("One dashboard.");
      expect(texts[3]).toContain("Desktop and phone");
      expect(texts[4]).toContain("Our orders doubled in a quarter.");
      expect(texts[5]).toContain("48%");
      expect(texts[6]).toContain("$12,000");
      expect(texts[6]).toContain("$450.50");
      expect(texts[6]).toContain("Let's talk");
      expect(texts[7]).toContain("Leo Martin");
      expect(texts[8]).toContain("Book a call");
      // Pictures load from the media library; speaker notes are there for the reviewer.
      const imgs = page.locator("#ap-content img");
      expect(await imgs.count()).toBe(3);
      for (let i = 0; i < 3; i++) {
        await imgs.nth(i).scrollIntoViewIfNeeded(); // lazy-loaded
        await imgs.nth(i).evaluate((el: HTMLImageElement) => el.decode());
        expect(await imgs.nth(i).evaluate((el: HTMLImageElement) => el.naturalWidth)).toBe(8);
      }
      expect(await page.locator(".dk-notes").first().innerText()).toContain("Open with the Monday-morning story.");
      // Themed by the brand profile.
      expect(await page.locator(".dk-l-title").evaluate((el) => getComputedStyle(el).backgroundColor)).toBe(
        "rgb(31, 58, 95)",
      );
      expect(await page.evaluate(() => document.scripts.length)).toBe(0);
      await page.screenshot({ path: join(ARTIFACTS, "deck-approval.png"), fullPage: true });
      await page.click("button.approve");
      expect(await page.locator(".ap-notice.ok").innerText()).toContain("Approved");
      expect(dialogs).toEqual([]);
      expect(errors).toEqual([]);
      await page.close();
    },
    T,
  );

  test(
    "the public page is navigated with the keyboard, the slide number in the hash",
    async () => {
      const { page, errors, status, headers } = await open(context, publicUrl);
      expect(status).toBe(200);
      const csp = headers["content-security-policy"]!;
      const nonce = /script-src 'nonce-([0-9a-f]+)'/.exec(csp)?.[1];
      expect(nonce).toMatch(/^[0-9a-f]{32}$/);
      expect(await page.evaluate(() => document.scripts[0]!.nonce)).toBe(nonce!);
      expect(headers["x-robots-tag"]).toBe("noindex, nofollow");
      expect(await page.evaluate(() => document.documentElement.classList.contains("dk-js"))).toBe(true);
      expect(await visibleSlides(page)).toEqual(["1"]);
      expect(await hash(page)).toBe("#1");
      await page.keyboard.press("ArrowRight");
      expect(await visibleSlides(page)).toEqual(["2"]);
      expect(await hash(page)).toBe("#2");
      expect(await page.locator("#dk-count").innerText()).toBe("2 / 9");
      await page.keyboard.press("PageDown");
      await page.keyboard.press("Space");
      expect(await hash(page)).toBe("#4");
      await page.keyboard.press("ArrowLeft");
      expect(await visibleSlides(page)).toEqual(["3"]);
      await page.keyboard.press("End");
      expect(await visibleSlides(page)).toEqual(["9"]);
      expect(await hash(page)).toBe("#9");
      await page.keyboard.press("ArrowRight"); // stays on the last slide
      expect(await hash(page)).toBe("#9");
      await page.screenshot({ path: join(ARTIFACTS, "deck-public-last.png") });
      await page.keyboard.press("Home");
      expect(await visibleSlides(page)).toEqual(["1"]);
      await page.click("#dk-next");
      expect(await hash(page)).toBe("#2");
      // A shared link to slide 5 opens on slide 5; editing the hash by hand follows it.
      await page.goto(`${publicUrl}#5`);
      expect(await visibleSlides(page)).toEqual(["5"]);
      await page.evaluate(() => (location.hash = "#7"));
      await page.waitForFunction(() => document.getElementById("dk-count")!.textContent === "7 / 9");
      expect(await visibleSlides(page)).toEqual(["7"]);
      // replaceState: stepping through slides adds no history entries, so Back leaves the deck.
      const entries = await page.evaluate(() => history.length);
      for (const key of ["ArrowRight", "ArrowRight", "ArrowLeft", "End"]) await page.keyboard.press(key);
      expect(await hash(page)).toBe("#9");
      expect(await page.evaluate(() => history.length)).toBe(entries);
      expect(errors).toEqual([]);
      await page.close();
    },
    T,
  );

  test(
    "without JavaScript it is a scrollable page of every slide",
    async () => {
      const { page } = await open(noJs, publicUrl);
      expect(await visibleSlides(page)).toEqual(["1", "2", "3", "4", "5", "6", "7", "8", "9"]);
      expect(await page.evaluate(() => document.documentElement.scrollHeight > window.innerHeight * 4)).toBe(true);
      expect(await page.locator(".dk-nav").isVisible()).toBe(false);
      expect(await page.locator(".dk-footer a").getAttribute("href")).toBe(`/d/${deck.slug}.pdf`);
      await page.goto(`${publicUrl}#6`);
      const top = await page
        .locator(".dk-slide")
        .nth(5)
        .evaluate((el) => Math.round(el.getBoundingClientRect().top));
      expect(Math.abs(top)).toBeLessThan(5);
      await page.screenshot({ path: join(ARTIFACTS, "deck-public-nojs.png") });
      await page.close();
    },
    T,
  );

  test(
    "at 1280 and 390 px, with and without JavaScript: no sideways scrolling, the slide fits the width, the icon is linked",
    async () => {
      for (const width of [1280, 390])
        for (const javaScriptEnabled of [true, false]) {
          const ctx = await browser.newContext({
            viewport: { width, height: width === 390 ? 844 : 720 },
            javaScriptEnabled,
          });
          const { page } = await open(ctx, publicUrl);
          expect(
            await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
          ).toBeLessThanOrEqual(0);
          const slide = (await page.locator(".dk-slide").first().boundingBox())!;
          expect(slide.x).toBeGreaterThanOrEqual(0);
          expect(slide.x + slide.width).toBeLessThanOrEqual(width);
          expect(await page.locator("link[rel=icon]").first().getAttribute("href")).toBe("/favicon.ico");
          await page.screenshot({
            path: join(ARTIFACTS, `deck-public-${javaScriptEnabled ? "js" : "nojs"}-${width}.png`),
          });
          await ctx.close();
        }
    },
    T,
  );

  test(
    "the PDF has one page per slide with its text; repeated downloads revalidate",
    async () => {
      const r = await fetch(`${publicUrl}.pdf`);
      expect(r.status).toBe(200);
      expect(r.headers.get("content-type")).toBe("application/pdf");
      const bytes = new Uint8Array(await r.arrayBuffer());
      const pdf = await getDocumentProxy(bytes);
      const { totalPages, text } = await extractText(pdf, { mergePages: false });
      expect(totalPages).toBe(9);
      expect(text[0]).toContain("A new shop for Harbor Coffee");
      expect(text[1]).toContain("Checkout is slow on phones");
      expect(text[5]).toContain("48%");
      expect(text[6]).toContain("$12,000 one-off");
      expect(text[8]).toContain("Book a call: https://northwind.example/contact");
      // The pictures are embedded from the media store: the image slide's PNG, the quote's JPEG portrait, the team photo.
      const { OPS } = await getResolvedPDFJS();
      const images: number[] = [];
      for (let i = 1; i <= 9; i++)
        images.push(
          (await (await pdf.getPage(i)).getOperatorList()).fnArray.filter((f: number) => f === OPS.paintImageXObject)
            .length,
        );
      expect(images).toEqual([0, 0, 0, 1, 1, 0, 0, 1, 0]);
      const again = await fetch(`${publicUrl}.pdf`, { headers: { "If-None-Match": r.headers.get("etag")! } });
      expect(again.status).toBe(304);
    },
    T,
  );

  test(
    "the agent reads the published deck over MCP",
    async () => {
      const g = await w.ok(w.owner, "decks_get", { id: deck.id, version: "published", include: ["slides"] });
      expect(g).toMatchObject({
        status: "published",
        version: 1,
        slideCount: 9,
        url: `${s.config.publicUrl}/d/${deck.slug}`,
        approval: { status: "approved" },
      });
      expect(g.slides.map((x: any) => x.layout)).toEqual([
        "title",
        "title_body",
        "two_columns",
        "image",
        "quote",
        "metrics",
        "pricing",
        "team",
        "closing",
      ]);
      expect(g.slides[6].content.plans[0].price).toBe(1200000);
      const a = await w.ok(w.owner, "approvals_get", {
        id: (await w.ok(w.owner, "approvals_list", { entityType: "pitch_deck" })).items[0].id,
      });
      expect(a).toMatchObject({ status: "approved", decidedBy: "link holder", entityType: "pitch_deck" });
      const pdf = await w.ok(w.owner, "decks_export_pdf", { id: deck.id, version: "published" });
      expect(pdf).toMatchObject({ pages: 9, mimeType: "application/pdf", filename: `${deck.slug}-v1.pdf` });
      expect(
        (
          await extractText(await getDocumentProxy(new Uint8Array(Buffer.from(pdf.dataBase64, "base64"))), {
            mergePages: true,
          })
        ).text,
      ).toContain("Thank you");
    },
    T,
  );

  test(
    "an update waits: the public page keeps the approved version until the next approval",
    async () => {
      await w.ok(w.owner, "slides_move", {
        deckId: deck.id,
        id: (await w.ok(w.owner, "decks_get", { id: deck.id })).slides[8].id,
        position: 2,
      });
      const before = await (await fetch(publicUrl)).text();
      expect(before.indexOf("Thank you")).toBeGreaterThan(before.indexOf("What we heard"));
      const pub = await w.ok(w.owner, "decks_publish", { id: deck.id });
      await w.ok(w.colleague, "approvals_approve", { id: pub.approval.id });
      const after = await (await fetch(publicUrl)).text();
      expect(after.indexOf("Thank you")).toBeLessThan(after.indexOf("What we heard"));
    },
    T,
  );
});

describe("hostile slide content", () => {
  const XSS = `<script>alert("x")</script><img src=x onerror=alert("img")><svg onload=alert("svg")>`;

  test(
    "refused over MCP with a message the agent can act on, nothing stored",
    async () => {
      const cases: [unknown, string][] = [
        [
          { layout: "closing", content: { title: "Bye", ctaLabel: "Go", ctaUrl: "javascript:alert(document.cookie)" } },
          'slides[0].content.ctaUrl: scheme "javascript:" is not allowed',
        ],
        [
          { layout: "closing", content: { title: "Bye", website: "JaVaScRiPt:alert(1)" } },
          'scheme "javascript:" is not allowed',
        ],
        [
          { layout: "image", content: { imageId: foreign } },
          `slides[0].content.imageId: media ${foreign} not found in`,
        ],
        [
          { layout: "title", content: { title: "x".repeat(1_000_000) } },
          "slides[0].content.title: at most 160 characters",
        ],
        [{ layout: "metrics", content: { metrics: "lots" } }, "slides[0].content.metrics: must be an array"],
        [{ layout: "pricing", content: { plans: [{ name: "A", price: 1e300 }] } }, "slides[0].content.plans[0].price"],
        [
          { layout: "title", content: { title: "x", style: "background:url(javascript:alert(1))" } },
          'unknown field "style"',
        ],
      ];
      const before = (await w.ok(w.owner, "decks_list", {})).total;
      for (const [slide, msg] of cases) {
        const text = await w.err(w.owner, "decks_create", { title: "Hostile", slides: [slide] });
        expect(text).toContain(msg);
      }
      expect(await w.err(w.owner, "decks_create", { title: "Hostile", slides: [{ layout: 42 }] })).toContain("layout");
      expect(await w.err(w.owner, "decks_create", { title: "Hostile", slides: "not-an-array" })).toContain(
        'slides: Invalid type: Expected Array but received "not-an-array"',
      );
      expect((await w.ok(w.owner, "decks_list", {})).total).toBe(before);
    },
    T,
  );

  test(
    "script in every text field is stored as text and never runs on the approval or public page",
    async () => {
      const slides = [
        {
          layout: "title",
          content: {
            title: XSS.slice(0, 160),
            subtitle: XSS,
            presenter: `"><b>bold</b>`,
            date: "</style><script>alert(1)</script>",
          },
          notes: XSS,
        },
        {
          layout: "title_body",
          content: {
            title: "Body",
            body: `${XSS}\n\n</section></main><script>alert(2)</script>`,
            bullets: [XSS.slice(0, 200)],
          },
        },
        {
          layout: "quote",
          content: {
            quote: XSS,
            author: `<a href="javascript:alert(3)">me</a>`,
            role: "--></p><script>alert(4)</script>",
          },
        },
        {
          layout: "pricing",
          content: {
            currency: "EUR",
            plans: [{ name: "<i>p</i>", priceLabel: `<img src=x onerror=alert(5)>`, features: [XSS.slice(0, 120)] }],
            note: XSS.slice(0, 300),
          },
        },
        { layout: "team", content: { members: [{ name: `<svg/onload=alert(6)>`, bio: XSS.slice(0, 300) }] } },
        {
          layout: "closing",
          content: {
            title: "Thanks",
            ctaLabel: `<script>alert(7)</script>`,
            ctaUrl: "https://example.com/?q=<script>",
            email: "a@b.example",
          },
        },
      ];
      const d = await w.ok(w.owner, "decks_create", { title: `Deck ${XSS}`.slice(0, 200), slides });
      const stored = await w.ok(w.owner, "slides_get", { deckId: d.id, id: d.slides[0].id });
      expect(stored.content.subtitle).toBe(XSS);
      const pub = await w.ok(w.owner, "decks_publish", { id: d.id });
      const approval = await open(context, w.local(pub.approval.url));
      expect(await approval.page.locator("#ap-content .dk-slide").count()).toBe(6);
      expect(await approval.page.locator("#ap-content").innerText()).toContain(`<script>alert("x")</script>`);
      await approval.page.waitForTimeout(300);
      expect(approval.dialogs).toEqual([]);
      expect(await approval.page.evaluate(() => document.scripts.length)).toBe(0);
      expect(
        await approval.page
          .locator("#ap-content [onerror], #ap-content [onload], #ap-content svg, #ap-content b, #ap-content i")
          .count(),
      ).toBe(0);
      await approval.page.click("button.approve");
      await approval.page.locator(".ap-notice.ok").waitFor();
      await approval.page.close();

      const live = await open(context, `${s.url}/d/${d.slug}`);
      expect(await live.page.evaluate(() => document.scripts.length)).toBe(1); // only the nonce-carrying navigation
      for (let i = 0; i < 6; i++) await live.page.keyboard.press("ArrowRight");
      await live.page.waitForTimeout(300);
      expect(live.dialogs).toEqual([]);
      expect(
        await live.page.locator("main [onerror], main [onload], main svg, main b, main i, main script").count(),
      ).toBe(0);
      expect(await live.page.locator("a.dk-cta").getAttribute("href")).toBe("https://example.com/?q=<script>");
      expect(await live.page.evaluate(() => document.title)).toBe(`Deck ${XSS}`.slice(0, 200));
      await live.page.close();
    },
    T,
  );
});

describe("what the public cannot see", () => {
  test(
    "drafts, pending, archived, unknown and malformed slugs all get the same 404",
    async () => {
      const draft = await w.ok(w.owner, "decks_create", { title: "Secret draft", slides: slidesFor().slice(0, 1) });
      const pending = await w.ok(w.owner, "decks_create", { title: "Secret pending", slides: slidesFor().slice(0, 1) });
      await w.ok(w.owner, "decks_publish", { id: pending.id });
      const bodies = new Set<string>();
      for (const path of [
        `/d/${draft.slug}`,
        `/d/${pending.slug}`,
        `/d/${pending.slug}.pdf`,
        "/d/no-such-deck",
        "/d/..%2F..%2Fetc",
        "/d/UPPER",
      ]) {
        const r = await fetch(`${s.url}${path}`);
        expect(r.status).toBe(404);
        // The same page apart from its per-response nonce.
        bodies.add((await r.text()).replace(/nonce="[0-9a-f]+"/g, ""));
      }
      expect(bodies.size).toBe(1);
    },
    T,
  );
});
