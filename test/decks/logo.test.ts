/**
 * The brand mark on title slides reads on its background, and the web page
 * and the PDF show the same one (logoMark decides for both): a navy logo on
 * a navy slide gives way to a light variant, or to the name in a contrasting
 * colour. And a quote typed with its quotation marks shows one pair.
 * The deck-level cases run on the configured engine (SQLite, or PostgreSQL
 * under scripts/with-postgres.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { encode as encodePng } from "fast-png";
import { extractText, getDocumentProxy, getResolvedPDFJS } from "unpdf";
import type { Deps } from "../../src/core/context";
import { brandProfiles } from "../../src/domains/branding/tables";
import { media } from "../../src/domains/cms/tables";
import { bareQuote, type DeckTheme } from "../../src/domains/decks/layouts";
import { logoMark, pngInk } from "../../src/domains/decks/logo";
import { slidesFromOutline } from "../../src/domains/decks/outline";
import { deckPdf } from "../../src/domains/decks/pdf";
import { renderDeck } from "../../src/domains/decks/render";
import { makeDeckWorld, type DeckWorld } from "./world";

/** A 20×10 PNG: the left half transparent, the right half `rgb` (a mark drawn on nothing), or all opaque. */
function logoPng(rgb: [number, number, number], transparent = true): Uint8Array {
  const data = new Uint8Array(20 * 10 * 4);
  for (let p = 0; p < 200; p++) {
    data.set([...rgb, transparent && p % 20 < 10 ? 0 : 255], p * 4);
  }
  return encodePng({ width: 20, height: 10, data, channels: 4 });
}
const NAVY_LOGO = logoPng([0x1f, 0x3a, 0x5f]);
const CREAM_LOGO = logoPng([0xfb, 0xf8, 0xf3]);

const THEME: DeckTheme = {
  primary: "#1f3a5f",
  secondary: "#1e40af",
  accent: "#f2a541",
  background: "#fbf8f3",
  text: "#1c1917",
  onPrimary: "#ffffff",
  headingFont: null,
  bodyFont: null,
  radius: "12px",
  name: "Harbor Coffee",
  logo: null,
};

async function pdfPage1(theme: DeckTheme, file: Uint8Array | null) {
  const deps = { blobs: { read: async () => file } } as unknown as Deps;
  const bytes = await deckPdf(deps, {
    title: "T",
    theme,
    slides: [{ layout: "title", content: { title: "Hello" }, notes: null, images: {} }],
  });
  const pdf = await getDocumentProxy(bytes);
  const { text } = await extractText(pdf, { mergePages: false });
  const { OPS } = await getResolvedPDFJS();
  const ops = await (await pdf.getPage(1)).getOperatorList();
  const images = ops.fnArray.filter((f: number) => f === OPS.paintImageXObject).length;
  // The fill colour set just before the wordmark is drawn (pdf.js reports it as a hex string).
  const fills = ops.fnArray
    .map((f: number, i: number) => (f === OPS.setFillRGBColor ? String(ops.argsArray[i][0]) : null))
    .filter(Boolean);
  return { text: text[0]!, images, fills };
}

describe("a logo's ink", () => {
  test("the average colour of its visible pixels; an opaque image has none; garbage is unknown", () => {
    expect(pngInk(NAVY_LOGO)).toBe("#1f3a5f");
    expect(pngInk(CREAM_LOGO)).toBe("#fbf8f3");
    expect(pngInk(logoPng([0x1f, 0x3a, 0x5f], false))).toBeNull();
    expect(pngInk(new Uint8Array([1, 2, 3]))).toBeUndefined();
  });
});

describe("one mark for the web page and the PDF", () => {
  const withLogo = (ink: string | null): DeckTheme => ({
    ...THEME,
    logo: { url: "/media/1/logo.png", alt: "Harbor Coffee", mimeType: "image/png", storageKey: "1/logo.png", ink },
  });

  test("a navy logo on the navy title slide: the name in white on both", async () => {
    const t = withLogo("#1f3a5f");
    expect(logoMark(t)).toEqual({ kind: "text", text: "Harbor Coffee", color: "#ffffff" });
    const html = renderDeck([{ layout: "title", content: { title: "Hello" }, notes: null, images: {} }], t);
    expect(html).toContain('<span class="dk-brand" style="color:#ffffff">Harbor Coffee</span>');
    expect(html).not.toContain("dk-logo");
    const pdf = await pdfPage1(t, NAVY_LOGO);
    expect(pdf.text).toContain("HARBOR COFFEE");
    expect(pdf.images).toBe(0);
    expect(pdf.fills).toContain("#ffffff");
  });

  test("a light logo reads: the image on both", async () => {
    const t = withLogo("#fbf8f3");
    expect(logoMark(t)).toMatchObject({ kind: "image", url: "/media/1/logo.png" });
    const html = renderDeck([{ layout: "title", content: { title: "Hello" }, notes: null, images: {} }], t);
    expect(html).toContain('<img class="dk-logo" src="/media/1/logo.png" alt="Harbor Coffee">');
    expect(html).not.toContain("dk-brand");
    const pdf = await pdfPage1(t, CREAM_LOGO);
    expect(pdf.text).not.toContain("HARBOR COFFEE");
    expect(pdf.images).toBe(1);
  });

  test("an SVG logo (the PDF cannot draw it) is the name on both; on a light brand colour the name is dark", async () => {
    const svg: DeckTheme = {
      ...THEME,
      primary: "#f2a541",
      onPrimary: "#1c1917",
      logo: { url: "/media/1/logo.svg", alt: "Harbor", mimeType: "image/svg+xml", storageKey: "1/logo.svg", ink: "" },
    };
    expect(logoMark(svg)).toEqual({ kind: "text", text: "Harbor Coffee", color: "#1c1917" });
    const html = renderDeck([{ layout: "title", content: { title: "Hello" }, notes: null, images: {} }], svg);
    expect(html).toContain('style="color:#1c1917">Harbor Coffee</span>');
    const pdf = await pdfPage1(svg, null);
    expect(pdf.text).toContain("HARBOR COFFEE");
    expect(pdf.images).toBe(0);
    expect(pdf.fills).toContain("#1c1917");
  });
});

describe("quotes", () => {
  test("one pair of quotation marks however the outline types them", () => {
    for (const typed of [`"Orders doubled."`, `“Orders doubled.”`, `«Orders doubled.»`, `Orders doubled.`])
      expect(slidesFromOutline(`> ${typed} — Maya Chen, Owner`)).toEqual([
        { layout: "quote", content: { quote: "Orders doubled.", author: "Maya Chen", role: "Owner" } },
      ]);
    expect(bareQuote(`“Orders doubled”.`)).toBe("Orders doubled.");
    // Quotes inside, or two quoted words, are the author's.
    expect(bareQuote(`"Yes" and "no"`)).toBe(`"Yes" and "no"`);
    expect(bareQuote(`She said "go"`)).toBe(`She said "go"`);
  });

  test("a structured quote with its own marks renders one pair on the web and in the PDF", async () => {
    const slide = { layout: "quote" as const, content: { quote: `"Orders doubled."` }, notes: null, images: {} };
    const html = renderDeck([slide], THEME);
    expect(html).toContain('<p class="dk-q">Orders doubled.</p>');
    const bytes = await deckPdf({ blobs: { read: async () => null } } as unknown as Deps, {
      title: "T",
      theme: THEME,
      slides: [slide],
    });
    const { text } = await extractText(await getDocumentProxy(bytes), { mergePages: true });
    expect(text).toContain("Orders doubled.");
    expect(text).not.toContain('"');
  });
});

describe("the theme picks a logo variant that reads", () => {
  let w: DeckWorld;
  beforeAll(async () => {
    w = await makeDeckWorld();
    const now = w.clock.now();
    const put = async (name: string, bytes: Uint8Array) => {
      const key = `${w.siteId}/${name}`;
      await w.deps.blobs.put(key, bytes, "image/png");
      await w.deps.db.insert(media).values({
        siteId: w.siteId,
        filename: name,
        mimeType: "image/png",
        url: `/media/${key}`,
        storageKey: key,
        alt: name,
        width: 20,
        height: 10,
        createdAt: now,
      });
      return `/media/${key}`;
    };
    const navy = await put("logo-navy.png", NAVY_LOGO);
    const cream = await put("logo-cream.png", CREAM_LOGO);
    await w.deps.db
      .update(brandProfiles)
      .set({
        data: {
          primaryColor: "#1f3a5f",
          logoText: "Harbor Coffee",
          logoAlt: "Harbor Coffee Roasters",
          logoUrl: navy,
          logoSquareUrl: cream,
        },
      })
      .where(eq(brandProfiles.siteId, w.siteId));
  });
  afterAll(() => w?.close?.());

  const exportPage1 = async (id: number) => {
    const pdf = await w.t("decks_export_pdf", { id });
    const doc = await getDocumentProxy(new Uint8Array(Buffer.from(pdf.dataBase64, "base64")));
    const { OPS } = await getResolvedPDFJS();
    const ops = await (await doc.getPage(1)).getOperatorList();
    const { text } = await extractText(doc, { mergePages: false });
    return { images: ops.fnArray.filter((f: number) => f === OPS.paintImageXObject).length, text: text[0]! };
  };

  test("the light square variant, not the navy main logo, on the web page and in the PDF", async () => {
    const d = await w.t("decks_create", { title: "Pitch", outline: "## Hello\nA proposal" });
    const g = await w.t("decks_get", { id: d.id, include: ["html"] });
    expect(g.html).toContain(
      `<img class="dk-logo" src="/media/${w.siteId}/logo-cream.png" alt="Harbor Coffee Roasters">`,
    );
    expect(g.html).not.toContain("logo-navy");
    expect(await exportPage1(d.id)).toMatchObject({ images: 1 });
  });

  test("only the navy logo: the name in white on both", async () => {
    await w.deps.db
      .update(brandProfiles)
      .set({
        data: { primaryColor: "#1f3a5f", logoText: "Harbor Coffee", logoUrl: `/media/${w.siteId}/logo-navy.png` },
      })
      .where(eq(brandProfiles.siteId, w.siteId));
    const d = await w.t("decks_create", { title: "Pitch 2", outline: "## Hello\nA proposal" });
    const g = await w.t("decks_get", { id: d.id, include: ["html"] });
    expect(g.html).toContain('<span class="dk-brand" style="color:#ffffff">Harbor Coffee</span>');
    expect(g.html).not.toContain("dk-logo");
    const p = await exportPage1(d.id);
    expect(p.images).toBe(0);
    expect(p.text).toContain("HARBOR COFFEE");
  });
});
