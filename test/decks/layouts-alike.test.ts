/**
 * Every layout, rendered the three ways a deck leaves Plinth (the web page,
 * the PDF, the .pptx), says the same thing: each slide's texts appear in
 * each in the same order, and the same slides carry a picture. Written over
 * MCP (real SDK client, real server); the web page is the published
 * /d/<slug> read by headless Chromium (1280 and 390 px, screenshots in
 * test-artifacts/), the PDF read with pdf.js (unpdf), the .pptx opened as
 * the zip it is. Also: the full-bleed slide's scrim reaches 4.5:1 over the
 * worst pixel as the browser paints it; hostile text in the new fields
 * stays text in all three; another company's pictures are refused. Runs on
 * the configured engine (SQLite, or PostgreSQL under
 * scripts/with-postgres.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { encode as encodePng } from "fast-png";
import JSZip from "jszip";
import { chromium, type Browser } from "playwright-core";
import { extractText, getDocumentProxy, getResolvedPDFJS } from "unpdf";
import { contrastRatio } from "../../src/domains/branding/contrast";
import * as G from "../../src/domains/decks/geometry";
import { slidesFromOutline } from "../../src/domains/decks/outline";
import { scrimFor } from "../../src/domains/decks/theme";
import type { DeckTheme } from "../../src/domains/decks/layouts";
import { anyoneWithLink } from "../fixtures/approvals";
import { startTestServer, type TestServer } from "../harness";
import { makeWorld, type World } from "../cms/world";
import { JPEG_8 } from "./world";

const T = 90_000;
const ARTIFACTS = join(import.meta.dir, "../../test-artifacts");
const HOSTILE = `<script>alert(1)</script>"><img src=x onerror=alert(2)>&amp;`;
let s: TestServer;
let w: World;
let browser: Browser;
let wide: number;
let portrait: number;
let foreign: number;

/** A 480×270 PNG: white on the left, black on the right, so a scrim has both worst cases under it. */
function picture(): Uint8Array {
  const data = new Uint8Array(480 * 270 * 4);
  for (let p = 0; p < 480 * 270; p++) data.set(p % 480 < 240 ? [255, 255, 255, 255] : [0, 0, 0, 255], p * 4);
  return encodePng({ width: 480, height: 270, data, channels: 4 });
}

/** One slide of every layout, with the texts each must show, in reading order, and whether it has a picture. */
function deckSlides(img: { wide: number; portrait: number }) {
  return [
    {
      layout: "title",
      content: {
        title: "A new shop for Harbor Coffee",
        subtitle: "Proposal for Maya",
        presenter: "Northwind",
        date: "May",
      },
      texts: ["A new shop for Harbor Coffee", "Proposal for Maya", "Northwind", "May"],
      pictures: 0,
    },
    {
      layout: "title_body",
      content: {
        title: "What we heard",
        body: "Orders peak on Mondays.",
        bullets: ["Checkout is slow", "Manual work"],
      },
      texts: ["What we heard", "Orders peak on Mondays.", "Checkout is slow", "Manual work"],
      pictures: 0,
    },
    {
      layout: "two_columns",
      content: {
        title: "Today and tomorrow",
        left: { heading: "Today", bullets: ["Three tools"] },
        right: { heading: "With us", body: "One dashboard." },
      },
      texts: ["Today and tomorrow", "Today", "Three tools", "With us", "One dashboard."],
      pictures: 0,
    },
    {
      layout: "two_columns",
      content: {
        title: "Before and after",
        left: { image: { imageId: img.wide }, heading: "Before", bullets: ["Orders by email"] },
        right: { image: { imageId: img.portrait, alt: "Maya" }, heading: "After", body: "Orders online." },
      },
      texts: ["Before and after", "Before", "Orders by email", "After", "Orders online."],
      pictures: 2,
    },
    {
      layout: "two_columns",
      content: {
        title: "One side pictured",
        left: { heading: "The loft", body: "Our studio." },
        right: { image: { imageId: img.wide } },
      },
      texts: ["One side pictured", "The loft", "Our studio."],
      pictures: 1,
    },
    {
      layout: "image",
      content: { title: "The new home page", imageId: img.wide, caption: "Desktop and phone" },
      texts: ["The new home page", "Desktop and phone"],
      pictures: 1,
    },
    {
      layout: "image_text",
      content: { title: "Ordering", imageId: img.wide, body: "Reorder in two taps.", bullets: ["Invoices online"] },
      texts: ["Ordering", "Reorder in two taps.", "Invoices online"],
      pictures: 1,
    },
    {
      layout: "image_full",
      content: { title: "Where we work", imageId: img.wide, caption: "The studio in the old sail loft" },
      texts: ["Where we work", "The studio in the old sail loft"],
      pictures: 1,
    },
    {
      layout: "quote",
      content: { quote: "Our orders doubled.", author: "Maya Chen", role: "Owner", imageId: img.portrait },
      texts: ["Our orders doubled.", "Maya Chen", "Owner"],
      pictures: 1,
    },
    {
      layout: "metrics",
      content: {
        title: "Results",
        metrics: [
          { value: "48%", label: "repeat customers", detail: "after six months" },
          { value: "9 days", label: "faster payment" },
        ],
      },
      texts: ["Results", "48%", "repeat customers", "after six months", "9 days", "faster payment"],
      pictures: 0,
    },
    {
      layout: "timeline",
      content: {
        title: "Eight weeks to launch",
        steps: [
          { date: "Week 1", label: "Workshop", detail: "Your team and ours" },
          { date: "Weeks 2-6", label: "Build" },
          { date: "Week 7", label: "Training" },
          { date: "Week 8", label: "Launch", detail: "Before the spring menu" },
        ],
      },
      texts: [
        "Eight weeks to launch",
        "Week 1",
        "Workshop",
        "Your team and ours",
        "Weeks 2-6",
        "Build",
        "Week 7",
        "Training",
        "Week 8",
        "Launch",
        "Before the spring menu",
      ],
      pictures: 0,
    },
    {
      layout: "pricing",
      content: {
        title: "Options",
        plans: [
          { name: "Launch", price: 1200000, period: "one-off", features: ["Shop", "Training"] },
          { name: "Care", priceLabel: "Let's talk" },
        ],
        note: "Prices exclude VAT.",
      },
      texts: [
        "Options",
        "Launch",
        "$12,000",
        "one-off",
        "Shop",
        "Training",
        "Care",
        "Let's talk",
        "Prices exclude VAT.",
      ],
      pictures: 0,
    },
    {
      layout: "team",
      content: {
        title: "Your team",
        members: [
          { name: "Priya Shah", role: "Lead developer", bio: "Built the shop.", imageId: img.portrait },
          { name: "Leo Martin", role: "Designer" },
        ],
      },
      texts: ["Your team", "Priya Shah", "Lead developer", "Built the shop.", "Leo Martin", "Designer"],
      pictures: 1,
    },
    {
      layout: "closing",
      content: { title: "Thank you", subtitle: "Questions?", email: "priya@northwind.example" },
      texts: ["Thank you", "Questions?", "priya@northwind.example"],
      pictures: 0,
    },
  ];
}

const norm = (x: string) =>
  x
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&apos;/g, "'")
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ")
    .trim();

/** The texts found in `all` one after the other; the first missing (or out of order) one is named. */
function inOrder(all: string, texts: string[]): string {
  let at = 0;
  for (const t of texts) {
    const i = all.indexOf(t, at);
    if (i < 0) return `missing or out of order: ${JSON.stringify(t)} in ${JSON.stringify(all.slice(0, 400))}`;
    at = i + t.length;
  }
  return "ok";
}

/** A slide's text runs in a .pptx, in document order. */
const pptxText = (xml: string) => norm([...xml.matchAll(/<a:t>([^<]*)<\/a:t>/g)].map((m) => m[1]).join(" "));

beforeAll(async () => {
  s = await startTestServer({ seed: false });
  w = await makeWorld(s);
  await anyoneWithLink(s.deps, w.A.id);
  await w.ok(w.owner, "branding_update_profile", {
    siteId: w.siteA,
    branding: { primaryColor: "#1f3a5f", accentColor: "#f2a541", logoText: "Northwind Studio" },
  });
  const upload = async (c: typeof w.owner, siteId: number, filename: string, bytes: Uint8Array) =>
    (
      await w.ok(c, "media_upload", {
        siteId,
        filename,
        dataBase64: Buffer.from(bytes).toString("base64"),
        alt: filename,
      })
    ).id as number;
  wide = await upload(w.owner, w.siteA, "wide.png", picture());
  portrait = await upload(w.owner, w.siteA2, "maya.jpg", JPEG_8);
  foreign = await upload(w.stranger, w.siteB, "rival.png", picture());
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
}, T);

describe("every layout alike on the web, in the PDF and in the .pptx", () => {
  test(
    "the same texts in the same order, and a picture on the same slides",
    async () => {
      const want = deckSlides({ wide, portrait });
      const deck = await w.ok(w.owner, "decks_create", {
        siteId: w.siteA,
        title: "Every layout",
        slides: want.map((x) => ({ layout: x.layout, content: x.content })),
      });
      const pub = await w.ok(w.owner, "decks_publish", { id: deck.id });
      await w.ok(w.colleague, "approvals_approve", { id: pub.approval.id });

      // The web page, as Chromium lays it out (no script: every slide stacked).
      const ctx = await browser.newContext({ viewport: { width: 1280, height: 720 }, javaScriptEnabled: false });
      await ctx.route("http://localhost:0/**", (route) => route.continue({ url: w.local(route.request().url()) }));
      const page = await ctx.newPage();
      await page.goto(w.local(pub.url));
      for (const [i, x] of want.entries())
        await page
          .locator(".dk-slide")
          .nth(i)
          .screenshot({ path: join(ARTIFACTS, `deck-layout-${String(i + 1).padStart(2, "0")}-${x.layout}.png`) });
      const web = await page.evaluate(() =>
        [...document.querySelectorAll(".dk-slide")].map((el) => ({
          text: (el.querySelector(".dk-in") as HTMLElement).innerText,
          pictures: el.querySelectorAll("img:not(.dk-logo)").length,
          // two_columns: each pictured column's picture box and its text's top, over the slide's width.
          columns: [...el.querySelectorAll(".dk-withimg")].map((col) => {
            const r = (x: Element) => x.getBoundingClientRect();
            const box = r(col.querySelector(".dk-colimg")!);
            const text = col.querySelector("h3, p, ul");
            return {
              top: box.top,
              h: box.height / r(el).width,
              colH: box.height / r(col).height,
              text: text ? r(text).top : null,
            };
          }),
        })),
      );
      await ctx.close();

      const pdf = await w.ok(w.owner, "decks_export_pdf", { id: deck.id, version: "published" });
      const doc = await getDocumentProxy(new Uint8Array(Buffer.from(pdf.dataBase64, "base64")));
      const { text: pdfText } = await extractText(doc, { mergePages: false });
      const { OPS } = await getResolvedPDFJS();

      const pptx = await w.ok(w.owner, "decks_export_pptx", { id: deck.id, version: "published" });
      const zip = await JSZip.loadAsync(Buffer.from(pptx.dataBase64, "base64"));
      // For a person to look at (pdftoppm turns the PDF's pages into pictures).
      writeFileSync(join(ARTIFACTS, "deck-every-layout.pdf"), Buffer.from(pdf.dataBase64, "base64"));
      writeFileSync(join(ARTIFACTS, "deck-every-layout.pptx"), Buffer.from(pptx.dataBase64, "base64"));

      expect(web).toHaveLength(want.length);
      expect(pdfText).toHaveLength(want.length);
      const problems: string[] = [];
      for (const [i, slide] of want.entries()) {
        const xml = await zip.file(`ppt/slides/slide${i + 1}.xml`)!.async("string");
        const pdfPictures = (await (await doc.getPage(i + 1)).getOperatorList()).fnArray.filter(
          (f: number) => f === OPS.paintImageXObject,
        ).length;
        const found = {
          web: inOrder(norm(web[i]!.text), slide.texts),
          pdf: inOrder(norm(pdfText[i]!), slide.texts),
          pptx: inOrder(pptxText(xml), slide.texts),
          pictures: [web[i]!.pictures, pdfPictures, xml.split("<p:pic>").length - 1],
        };
        for (const k of ["web", "pdf", "pptx"] as const)
          if (found[k] !== "ok") problems.push(`slide ${i + 1} (${slide.layout}) ${k}: ${found[k]}`);
        if (found.pictures.some((n) => n !== slide.pictures))
          problems.push(
            `slide ${i + 1} (${slide.layout}) pictures web/pdf/pptx ${found.pictures} (want ${slide.pictures})`,
          );
      }
      expect(problems).toEqual([]);

      // A column's picture sits above its text, as tall as geometry.ts makes it (the PDF's and the .pptx's
      // COLUMN_PICTURE of the 960-point width); a column of only a picture gives it the whole column.
      const pictured = want.flatMap((x, i) => (x.layout === "two_columns" && x.pictures ? [web[i]!.columns] : []));
      expect(pictured.map((cols) => cols.length)).toEqual([2, 1]);
      for (const col of pictured[0]!) {
        expect(col.h).toBeCloseTo(G.COLUMN_PICTURE / G.W, 2);
        expect(col.text!).toBeGreaterThanOrEqual(col.top + col.h);
      }
      expect(pictured[1]![0]!).toMatchObject({ text: null, colH: 1 });
      const g = G.twoColumns(want.find((x) => x.layout === "two_columns" && x.pictures === 2)!.content);
      for (const col of g.columns) {
        expect(col.picture!.h).toBe(G.COLUMN_PICTURE);
        expect(col.heading!.y).toBe(col.picture!.y + G.COLUMN_PICTURE + G.COLUMN_PICTURE_GAP);
      }
      const only = G.twoColumns(want.find((x) => x.content.title === "One side pictured")!.content);
      expect(only.columns[0]!.picture).toBeNull();
      expect(only.columns[1]!.picture!.h).toBe(G.H - only.columns[1]!.picture!.y - G.FOOT);
    },
    T,
  );

  test(
    "image_full and timeline at 1280 and 390 px: the picture covers the slide, the scrim reads over its worst pixel, nothing spills",
    async () => {
      const deck = await w.ok(w.owner, "decks_create", {
        siteId: w.siteA,
        title: "Looks",
        slides: [
          {
            layout: "image_full",
            content: {
              title: "Where we work",
              imageId: wide,
              caption: "The studio in the old sail loft, Harbor Street",
            },
          },
          {
            layout: "timeline",
            content: {
              title: "Eight weeks to launch",
              steps: [
                { date: "Week 1", label: "Workshop", detail: "Your team and ours, one day" },
                { date: "Weeks 2–6", label: "Build", detail: "A demo every Friday" },
                { date: "Week 7", label: "Training" },
                { date: "Week 8", label: "Launch", detail: "Before the spring menu" },
              ],
            },
          },
          {
            layout: "timeline",
            content: {
              title: "Eight steps",
              steps: Array.from({ length: 8 }, (_, k) => ({
                date: `2026-0${k + 1}`,
                label: `Step ${k + 1} with a longer label`,
              })),
            },
          },
        ],
      });
      const pub = await w.ok(w.owner, "decks_publish", { id: deck.id });
      await w.ok(w.colleague, "approvals_approve", { id: pub.approval.id });
      for (const width of [1280, 390]) {
        const ctx = await browser.newContext({
          viewport: { width, height: width === 390 ? 844 : 720 },
          javaScriptEnabled: false,
        });
        await ctx.route("http://localhost:0/**", (route) => route.continue({ url: w.local(route.request().url()) }));
        const page = await ctx.newPage();
        await page.goto(w.local(pub.url));
        await page.waitForFunction(() => {
          const img = document.querySelector<HTMLImageElement>(".dk-full img");
          return !!img && img.complete && img.naturalWidth > 0;
        });
        expect(
          await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
        ).toBeLessThanOrEqual(0);
        const geo = await page.evaluate(() => {
          const r = (el: Element) => el.getBoundingClientRect().toJSON();
          const slide = document.getElementById("1")!;
          const scrim = slide.querySelector(".dk-scrim")!;
          const cs = getComputedStyle(scrim);
          const steps = [...document.querySelectorAll('[id="2"] .dk-step, [id="3"] .dk-step')].map((el) => ({
            box: r(el),
            dot: r(el.querySelector(".dk-dot")!),
            // Text wider than its column (the line between the dots runs on to the next step on purpose).
            overflow: Math.max(
              ...[...el.querySelectorAll("p")].map((p) =>
                Math.max(
                  p.scrollWidth - p.clientWidth,
                  p.getBoundingClientRect().right - el.getBoundingClientRect().right,
                ),
              ),
            ),
          }));
          return {
            slide: r(slide),
            img: r(slide.querySelector("img")!),
            fit: getComputedStyle(slide.querySelector("img")!).objectFit,
            scrim: r(scrim),
            scrimBg: cs.backgroundColor,
            scrimInk: cs.color,
            title: r(scrim.querySelector("h2")!),
            steps,
            slides: [2, 3].map((n) => r(document.getElementById(String(n))!)),
          };
        });
        // The picture covers the whole slide; the scrim spans its foot and holds the title.
        for (const k of ["left", "top", "right", "bottom"] as const)
          expect(Math.abs(geo.img[k] - geo.slide[k])).toBeLessThan(1);
        expect(geo.fit).toBe("cover");
        expect(Math.abs(geo.scrim.bottom - geo.slide.bottom)).toBeLessThan(1);
        expect(geo.scrim.width).toBeCloseTo(geo.slide.width, 0);
        expect(geo.title.top).toBeGreaterThanOrEqual(geo.scrim.top);
        // What the browser paints: the scrim's colour over a white and a black pixel against its text colour.
        const rgba = geo.scrimBg.match(/[\d.]+/g)!.map(Number);
        const ink = geo.scrimInk.match(/\d+/g)!.map(Number);
        const hex = (c: number[]) => `#${c.map((x) => Math.round(x).toString(16).padStart(2, "0")).join("")}`;
        const a = rgba[3] ?? 1;
        for (const under of [255, 0]) {
          const over = rgba.slice(0, 3).map((c) => c * a + under * (1 - a));
          expect(contrastRatio(hex(ink.slice(0, 3)), hex(over))).toBeGreaterThanOrEqual(4.5);
        }
        // Timeline: steps left to right in one row, dots on one line, each inside its slide.
        for (const [k, n] of [
          [0, 4],
          [4, 8],
        ] as const) {
          const row = geo.steps.slice(k, n);
          const slide = geo.slides[k === 0 ? 0 : 1]!;
          for (let j = 1; j < row.length; j++) {
            expect(row[j]!.box.left).toBeGreaterThan(row[j - 1]!.box.right - 0.5);
            expect(Math.abs(row[j]!.dot.top - row[0]!.dot.top)).toBeLessThan(1);
          }
          for (const st of row) {
            expect(st.box.right).toBeLessThanOrEqual(slide.right + 0.5);
            expect(st.box.bottom).toBeLessThanOrEqual(slide.bottom + 0.5);
            expect(st.overflow).toBeLessThanOrEqual(0);
          }
        }
        for (const n of [1, 2, 3])
          await page
            .locator(".dk-slide")
            .nth(n - 1)
            .screenshot({
              path: join(ARTIFACTS, `deck-${["image-full", "timeline", "timeline-8"][n - 1]}-${width}.png`),
            });
        await ctx.close();
      }
    },
    T,
  );
});

describe("the scrim's contrast is checked, whatever the brand", () => {
  const theme = (primary: string, onPrimary: string) => ({ primary, onPrimary }) as DeckTheme;
  const mix = (c: string, under: number, a: number) =>
    `#${[1, 3, 5]
      .map((i) =>
        Math.round(parseInt(c.slice(i, i + 2), 16) * a + under * (1 - a))
          .toString(16)
          .padStart(2, "0"),
      )
      .join("")}`;
  test("navy, a light yellow and a mid orange brand: 4.5:1 over white and black pixels", () => {
    for (const [p, on] of [
      ["#1f3a5f", "#ffffff"],
      ["#fde68a", "#111827"],
      ["#f59e0b", "#111827"],
      ["#808080", "#ffffff"],
    ] as const) {
      const sc = scrimFor(theme(p, on));
      for (const under of [255, 0])
        expect(contrastRatio(sc.text, mix(sc.color, under, sc.opacity))).toBeGreaterThanOrEqual(4.5);
    }
    // A dark brand keeps its colour, translucent; a mid grey that cannot carry white gives way to near-black.
    expect(scrimFor(theme("#1f3a5f", "#ffffff"))).toMatchObject({ color: "#1f3a5f", text: "#ffffff" });
    expect(scrimFor(theme("#1f3a5f", "#ffffff")).opacity).toBeLessThan(1);
    expect(scrimFor(theme("#808080", "#ffffff")).color).toBe("#111827");
  });
});

describe("the outline makes metrics, timeline, team and full-bleed slides", () => {
  test("each syntax, and what stays bullets", () => {
    const slides = slidesFromOutline(
      [
        "## Results",
        "- **48%** — repeat customers — after six months",
        "- **9 days**: faster payment",
        "## Plan",
        "- Week 1: Workshop — your team and ours",
        "- Weeks 2–6 — Build",
        "- March 2026: Launch",
        "## Team",
        "- ![Priya](media:12) **Priya Shah**, Lead developer — Built the shop",
        "- **Leo Martin**, Designer",
        "## Where we work",
        '![The loft](media:5 "full")',
        "The studio in the old sail loft.",
        "## Ordering",
        '![](media:6 "right")',
        "Reorder in two taps.",
        "## Lead-ins stay bullets",
        "- **Fast**: pages in a second",
        "- **Cheap** too",
        "## Two dates are not a timeline",
        "- 2026: a",
        "- 2027: b",
      ].join("\n"),
    );
    expect(slides).toEqual([
      {
        layout: "metrics",
        content: {
          title: "Results",
          metrics: [
            { value: "48%", label: "repeat customers", detail: "after six months" },
            { value: "9 days", label: "faster payment" },
          ],
        },
      },
      {
        layout: "timeline",
        content: {
          title: "Plan",
          steps: [
            { date: "Week 1", label: "Workshop", detail: "your team and ours" },
            { date: "Weeks 2–6", label: "Build" },
            { date: "March 2026", label: "Launch" },
          ],
        },
      },
      {
        layout: "team",
        content: {
          title: "Team",
          members: [
            { name: "Priya Shah", role: "Lead developer", bio: "Built the shop", imageId: 12 },
            { name: "Leo Martin", role: "Designer" },
          ],
        },
      },
      {
        layout: "image_full",
        content: { title: "Where we work", imageId: 5, alt: "The loft", caption: "The studio in the old sail loft." },
      },
      { layout: "image_text", content: { title: "Ordering", imageId: 6, body: "Reorder in two taps.", side: "right" } },
      {
        layout: "title_body",
        content: { title: "Lead-ins stay bullets", bullets: ["**Fast**: pages in a second", "**Cheap** too"] },
      },
      { layout: "title_body", content: { title: "Two dates are not a timeline", bullets: ["2026: a", "2027: b"] } },
    ]);
  });

  test("a full-bleed picture with bullets and an unknown picture option are refused, saying what works", () => {
    expect(() => slidesFromOutline('## A\n![](media:1 "full")\n- a bullet')).toThrow("not bullets");
    expect(() => slidesFromOutline('## A\n![](media:1 "wide")')).toThrow(
      '"full" (the picture covers the slide) or "right"',
    );
  });
});

describe("tenancy and hostile text in the new layouts", () => {
  test("bad fields get an error naming the path, never a 500", async () => {
    const step = (k: number) => ({ date: `Week ${k}`, label: "Step" });
    for (const [content, layout, want] of [
      [{ steps: [step(1), step(2)] }, "timeline", "slides[0].content.steps: at least 3 steps"],
      [{ steps: Array.from({ length: 9 }, (_, k) => step(k)) }, "timeline", "slides[0].content.steps: at most 8 steps"],
      [{ steps: [step(1), step(2), { label: "No date" }] }, "timeline", "slides[0].content.steps[2].date: missing"],
      [{ imageId: 1, bullets: ["a"] }, "image_full", 'unknown field "bullets"; layout image_full takes title, imageId'],
      [{ title: "No picture" }, "image_full", "slides[0].content.imageId: missing"],
      [
        { left: { image: { imageId: 1, url: "https://x.example/a.png" } }, right: {} },
        "two_columns",
        'slides[0].content.left.image.url: unknown field "url"; slides[0].content.left.image takes imageId, alt',
      ],
      [{ left: { image: {} }, right: {} }, "two_columns", "slides[0].content.left.image.imageId: missing"],
    ] as const) {
      const r = await w.call(w.owner, "decks_create", { siteId: w.siteA, title: "Bad", slides: [{ layout, content }] });
      expect(r.isError).toBe(true);
      expect(r.text).toContain(want);
    }
  });

  test("another company's picture is refused in image_full, in a team photo and in the outline's", async () => {
    for (const args of [
      { slides: [{ layout: "image_full", content: { title: "X", imageId: foreign } }] },
      { outline: `## Team\n- ![](media:${foreign}) **Priya Shah**, Lead developer` },
      { outline: `## Loft\n![](media:${foreign} "full")` },
    ]) {
      const r = await w.call(w.owner, "decks_create", { siteId: w.siteA, title: "Refused", ...args });
      expect(r.isError).toBe(true);
      expect(r.text).toMatch(
        new RegExp(`slides\\[0\\]\\.content\\.(imageId|members\\[0\\]\\.imageId): media ${foreign} not found`),
      );
    }
  });

  test("another company's picture in either column of two_columns is refused, naming the column", async () => {
    for (const side of ["left", "right"] as const) {
      const r = await w.call(w.owner, "decks_create", {
        siteId: w.siteA,
        title: "Refused",
        slides: [
          { layout: "title_body", content: { title: "First" } },
          {
            layout: "two_columns",
            content: {
              left: { heading: "Ours", image: { imageId: wide } },
              right: { heading: "Theirs" },
              [side]: { heading: "Theirs", image: { imageId: foreign } },
            },
          },
        ],
      });
      expect(r.isError).toBe(true);
      expect(r.text).toContain(`slides[1].content.${side}.image.imageId: media ${foreign} not found`);
    }
    // Added later to a deck of the company's own: the same check.
    const deck = await w.ok(w.owner, "decks_create", {
      siteId: w.siteA,
      title: "Own",
      slides: [{ layout: "title_body", content: { title: "First" } }],
    });
    const r = await w.call(w.owner, "slides_add", {
      deckId: deck.id,
      slides: [{ layout: "two_columns", content: { left: { image: { imageId: foreign } }, right: {} } }],
    });
    expect(r.isError).toBe(true);
    expect(r.text).toContain(`left.image.imageId: media ${foreign} not found`);
  });

  test(
    "hostile alt text and headings in two_columns stay text on the web page, in the PDF and in the .pptx",
    async () => {
      const deck = await w.ok(w.owner, "decks_create", {
        siteId: w.siteA,
        title: "Hostile columns",
        slides: [
          {
            layout: "two_columns",
            content: {
              title: HOSTILE,
              left: { image: { imageId: wide, alt: HOSTILE }, heading: HOSTILE, bullets: [HOSTILE] },
              right: { image: { imageId: portrait, alt: HOSTILE }, body: HOSTILE },
            },
          },
        ],
      });
      const pub = await w.ok(w.owner, "decks_publish", { id: deck.id });
      await w.ok(w.colleague, "approvals_approve", { id: pub.approval.id });
      const ctx = await browser.newContext({ viewport: { width: 1280, height: 720 } });
      await ctx.route("http://localhost:0/**", (route) => route.continue({ url: w.local(route.request().url()) }));
      const page = await ctx.newPage();
      const dialogs: string[] = [];
      page.on("dialog", (d) => {
        dialogs.push(d.message());
        void d.dismiss();
      });
      await page.goto(w.local(pub.url));
      const seen = await page.evaluate(() => ({
        text: document.querySelector(".dk-deck")!.textContent,
        alts: [...document.querySelectorAll(".dk-colimg img")].map((i) => i.getAttribute("alt")),
        srcs: [...document.querySelectorAll(".dk-deck img")].map((i) => i.getAttribute("src")),
        scripts: document.querySelectorAll(".dk-deck script").length,
      }));
      await ctx.close();
      expect(dialogs).toEqual([]);
      expect(seen.scripts).toBe(0);
      expect(seen.alts).toEqual([HOSTILE, HOSTILE]);
      expect(seen.srcs.every((src) => src !== "x")).toBe(true);
      expect(seen.text!.split(HOSTILE).length - 1).toBe(4);

      const pdf = await w.ok(w.owner, "decks_export_pdf", { id: deck.id, version: "published" });
      const { text } = await extractText(
        await getDocumentProxy(new Uint8Array(Buffer.from(pdf.dataBase64, "base64"))),
        { mergePages: true },
      );
      expect(norm(text)).toContain("<script>alert(1)</script>");

      const pptx = await w.ok(w.owner, "decks_export_pptx", { id: deck.id, version: "published" });
      const xml = await (await JSZip.loadAsync(Buffer.from(pptx.dataBase64, "base64")))
        .file("ppt/slides/slide1.xml")!
        .async("string");
      expect(xml).not.toContain("<script>");
      expect(xml).not.toContain("<img ");
      expect(xml.split("<p:pic>").length - 1).toBe(2);
      expect(pptxText(xml)).toContain(HOSTILE);
      // Each picture's alt text is the slide's, as on the web page and in the PDF (XML-escaped in descr).
      const esc = HOSTILE.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
      expect([...xml.matchAll(/<p:cNvPr [^>]*descr="([^"]*)"/g)].map((m) => m[1])).toEqual([esc, esc]);
    },
    T,
  );

  test(
    "text that looks like markup stays text on the web page, in the PDF and in the .pptx",
    async () => {
      const deck = await w.ok(w.owner, "decks_create", {
        siteId: w.siteA,
        title: "Hostile",
        outline: [
          `## ${HOSTILE}`,
          `![${HOSTILE}](media:${wide} "full")`,
          HOSTILE,
          "## Numbers",
          `- **42%** — ${HOSTILE} — ${HOSTILE}`,
          "## Plan",
          `- Week 1: ${HOSTILE} — ${HOSTILE}`,
          "- Week 2: b",
          "- Week 3: c",
          "## Team",
          // A name holds no digits (they make a metric): markup without any.
          `- **Ana <img src=x onerror=alert()>**, ${HOSTILE} — ${HOSTILE}`,
        ].join("\n"),
      });
      const g = await w.ok(w.owner, "decks_get", { id: deck.id, include: ["slides"] });
      expect(g.slides.map((x: any) => x.layout)).toEqual(["image_full", "metrics", "timeline", "team"]);
      const pub = await w.ok(w.owner, "decks_publish", { id: deck.id });
      await w.ok(w.colleague, "approvals_approve", { id: pub.approval.id });

      const ctx = await browser.newContext({ viewport: { width: 1280, height: 720 } });
      await ctx.route("http://localhost:0/**", (route) => route.continue({ url: w.local(route.request().url()) }));
      const page = await ctx.newPage();
      const dialogs: string[] = [];
      page.on("dialog", (d) => {
        dialogs.push(d.message());
        void d.dismiss();
      });
      await page.goto(w.local(pub.url));
      const seen = await page.evaluate(() => ({
        text: document.querySelector(".dk-deck")!.textContent,
        images: [...document.querySelectorAll(".dk-deck img")].map((i) => i.getAttribute("src")),
        scripts: document.querySelectorAll(".dk-deck script").length,
        alt: document.querySelector(".dk-full img")!.getAttribute("alt"),
      }));
      await ctx.close();
      expect(dialogs).toEqual([]);
      expect(seen.scripts).toBe(0);
      expect(seen.images.every((src) => src !== "x")).toBe(true);
      expect(seen.text).toContain(HOSTILE);
      expect(seen.alt).toBe(HOSTILE);

      const pdf = await w.ok(w.owner, "decks_export_pdf", { id: deck.id, version: "published" });
      const { text } = await extractText(
        await getDocumentProxy(new Uint8Array(Buffer.from(pdf.dataBase64, "base64"))),
        { mergePages: true },
      );
      expect(norm(text)).toContain("<script>alert(1)</script>");

      const pptx = await w.ok(w.owner, "decks_export_pptx", { id: deck.id, version: "published" });
      const zip = await JSZip.loadAsync(Buffer.from(pptx.dataBase64, "base64"));
      for (let n = 1; n <= 4; n++) {
        const xml = await zip.file(`ppt/slides/slide${n}.xml`)!.async("string");
        expect(xml).not.toContain("<script>");
        expect(xml).not.toContain("<img ");
        expect(pptxText(xml)).toContain(HOSTILE);
      }
    },
    T,
  );
});
