/**
 * The renderers as pure functions: money from cents, HTML that escapes
 * everything and re-checks links and theme values (a stored version is
 * data like any other), the outline parser's edge cases, and the PDF's
 * text for characters the standard fonts lack.
 */
import { describe, expect, test } from "bun:test";
import { extractText, getDocumentProxy } from "unpdf";
import type { Deps } from "../../src/core/context";
import type { DeckTheme } from "../../src/domains/decks/layouts";
import { slidesFromOutline } from "../../src/domains/decks/outline";
import { deckPdf } from "../../src/domains/decks/pdf";
import { money, renderDeck } from "../../src/domains/decks/render";
import { themeStyle } from "../../src/domains/decks/theme";

const THEME: DeckTheme = {
  primary: "#0f766e",
  secondary: "#1e40af",
  accent: "#f59e0b",
  background: "#ffffff",
  text: "#111827",
  onPrimary: "#ffffff",
  headingFont: "Space Grotesk",
  bodyFont: null,
  radius: "10px",
  name: "Acme",
  logo: null,
};

describe("money", () => {
  test("integer cents, whole amounts without decimals", () => {
    expect(money(1200000, "USD")).toBe("$12,000");
    expect(money(45050, "USD")).toBe("$450.50");
    expect(money(99, "EUR")).toBe("€0.99");
    expect(money(0, "GBP")).toBe("£0");
    expect(money(123456789, "JPY")).toBe("¥1,234,568");
  });
});

describe("HTML", () => {
  test("hostile values in a stored version never become markup, links or styles", () => {
    const html = renderDeck(
      [
        {
          layout: "closing",
          content: {
            title: `<script>alert(1)</script>`,
            ctaLabel: "Go",
            ctaUrl: "javascript:alert(1)",
            website: "data:text/html,<script>",
            email: `x"onmouseover="alert(1)`,
          },
          notes: null,
          images: {},
        },
        {
          layout: "image",
          content: { imageId: 5 },
          notes: null,
          images: {
            "5": {
              url: "javascript:alert(1)",
              alt: `"><svg onload=alert(1)>`,
              width: 1,
              height: 1,
              mimeType: "image/png",
              storageKey: null,
            },
          },
        },
        {
          layout: "pricing",
          content: { currency: `USD"><b>`, plans: [{ name: "<i>x</i>", price: 100 }] },
          notes: null,
          images: {},
        },
        { layout: "team", content: { members: [{ name: "<img src=x onerror=alert(1)>" }] }, notes: null, images: {} },
      ] as any,
      {
        ...THEME,
        primary: `red;}</style><script>alert(1)</script>`,
        headingFont: "x;background:url(javascript:alert(1))",
        radius: "1px;behavior:url(x)",
        logo: { url: "javascript:alert(1)", alt: "x", mimeType: null, storageKey: null },
      },
      { anchors: true },
    );
    expect(html).not.toMatch(/<script|<svg|<b>|<i>|javascript:|data:text/);
    // Handlers only ever appear inside escaped text, never in a tag.
    expect(html.replace(/&lt;.*?&gt;/g, "")).not.toMatch(/onerror|onload/);
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).not.toContain("dk-cta"); // no usable link, no button
    expect(html).toContain('href="mailto:x&quot;onmouseover=&quot;alert(1)"');
    expect(html).toContain("dk-missing"); // the picture with a bad URL is a placeholder
    expect(html).toContain("$1"); // an unknown currency falls back to USD
    // The theme attribute keeps only checked values: the defaults stand in for the rest.
    const style = /style="([^"]*)"/.exec(html)![1]!;
    expect(style).toBe(
      "--dk-primary:#2563eb;--dk-secondary:#1e40af;--dk-accent:#f59e0b;--dk-bg:#ffffff;--dk-text:#111827;--dk-on-primary:#ffffff;--dk-head:system-ui,sans-serif;--dk-body:system-ui,sans-serif;--dk-radius:12px",
    );
  });

  test("a brand's font names with quotes survive as escaped attribute text", () => {
    expect(themeStyle({ ...THEME, headingFont: `"Fraunces", Georgia` })).toContain(
      `--dk-head:"Fraunces", Georgia,system-ui,sans-serif`,
    );
    expect(renderDeck([], { ...THEME, headingFont: `"Fraunces", Georgia` })).toContain(
      "--dk-head:&quot;Fraunces&quot;, Georgia,system-ui",
    );
  });

  test("slides are numbered, labelled for screen readers, anchored only on the public page", () => {
    const slides = [
      { layout: "title", content: { title: "One" }, notes: "n", images: {} },
      { layout: "quote", content: { quote: "Two" }, notes: null, images: {} },
    ] as any;
    const pub = renderDeck(slides, THEME, { anchors: true });
    expect(pub).toContain('id="1" role="group" aria-roledescription="slide" aria-label="Slide 1 of 2: One"');
    expect(pub).toContain('id="2"');
    expect(pub).not.toContain("Speaker notes");
    const review = renderDeck(slides, THEME, { notes: true });
    expect(review).not.toContain('id="1"');
    expect(review).toContain("Slide 2 · Quote");
    expect(review.match(/Speaker notes/g)).toHaveLength(1);
  });

  test("multi-line text becomes paragraphs and line breaks", () => {
    const html = renderDeck(
      [{ layout: "title_body", content: { title: "T", body: "a\nb\n\n\nc" }, notes: null, images: {} }] as any,
      THEME,
    );
    expect(html).toContain('<p class="dk-text">a<br>b</p><p class="dk-text">c</p>');
  });
});

describe("outline", () => {
  test("numbered lists are bullets; a slide without a heading takes its first line as title", () => {
    expect(slidesFromOutline("Opening line\n1. one\n2) two")).toEqual([
      { layout: "title_body", content: { title: "Opening line", bullets: ["one", "two"] } },
    ]);
  });
  test("a quote without an author keeps all of it; an empty outline is refused", () => {
    expect(slidesFromOutline("> Just words")).toEqual([{ layout: "quote", content: { quote: "Just words" } }]);
    expect(() => slidesFromOutline("---\n\n---")).toThrow("outline has no slides");
  });
});

describe("PDF text", () => {
  test("characters the standard fonts lack are replaced, accents and typographic quotes kept", async () => {
    const bytes = await deckPdf({ blobs: { read: async () => null } } as unknown as Deps, {
      title: "T",
      theme: THEME,
      slides: [
        {
          layout: "title_body",
          content: { title: "Café “déjà vu” – 5 €", body: "Tokyo 東京 → next ✓" },
          notes: null,
          images: {},
        },
      ],
    });
    const { text } = await extractText(await getDocumentProxy(bytes), { mergePages: true });
    expect(text).toContain("Café “déjà vu” – 5 €");
    expect(text).toContain("Tokyo ?? -> next v");
  });
});
