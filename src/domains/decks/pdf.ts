/**
 * Decks as PDF: one 16:9 page per slide, real text (selectable, searchable,
 * extractable), the deck's colours, and the pictures stored in the media
 * library (PNG and JPEG).
 *
 * Rendered with pdf-lib rather than headless Chromium: it is pure
 * JavaScript with its fonts compiled in, so it works inside the single
 * `plinth` binary on every server, in milliseconds, without a browser
 * installed, a process per export, or a browser's attack surface facing
 * data agents wrote. The price: a second, simpler layout of each slide
 * type beside the HTML one (geometry.ts, which the .pptx shares; this file
 * only draws what it placed), the 14 standard PDF fonts (so brand
 * fonts fall back to Helvetica, and characters outside Windows-1252 are
 * replaced), and no SVG pictures (a labelled placeholder instead). Media
 * registered by URL is never fetched (that would let anyone make the
 * server call arbitrary addresses); it gets the same placeholder.
 */
import {
  appendBezierCurve,
  clip,
  closePath,
  endPath,
  moveTo,
  PDFDocument,
  popGraphicsState,
  pushGraphicsState,
  rgb,
  StandardFonts,
  type PDFFont,
  type PDFImage,
  type PDFPage,
  type RGB,
} from "pdf-lib";
import type { Deps } from "../../core/context";
import { bodyBytes } from "../../core/blobs";
import * as G from "./geometry";
import { bareQuote, type DeckTheme, type ResolvedImage } from "./layouts";
import { logoMark } from "./logo";
import { money, type RenderSlide } from "./render";
import { scrimFor } from "./theme";

const { W, H } = G;

type C = Record<string, any>;

function color(hex: string, fallback = "#111827"): RGB {
  const h = /^#[0-9a-fA-F]{6}$/.test(hex) ? hex : fallback;
  return rgb(parseInt(h.slice(1, 3), 16) / 255, parseInt(h.slice(3, 5), 16) / 255, parseInt(h.slice(5, 7), 16) / 255);
}

type Fonts = Record<G.Face, PDFFont>;

interface Ink {
  size: number;
  face?: G.Face;
  color?: RGB;
  align?: "left" | "center";
}

/** Draws what geometry.ts placed: the PDF never positions anything itself. */
class SlidePainter {
  constructor(
    private page: PDFPage,
    private f: Fonts,
    readonly ink: RGB,
  ) {}

  /** A placed text's lines, top down from its box. */
  text(p: G.Placed | null, o: Ink) {
    if (!p) return;
    const font = this.f[o.face ?? "regular"];
    const lh = o.size * G.LEADING;
    p.lines.forEach((line, k) => {
      const x = o.align === "center" ? p.x + (p.w - font.widthOfTextAtSize(line, o.size)) / 2 : p.x;
      this.page.drawText(line, { x, y: H - p.y - k * lh - o.size, size: o.size, font, color: o.color ?? this.ink });
    });
  }

  /** Text not placed by a layout (a placeholder's label): placed here with the same rules. */
  free(s: unknown, b: G.Box, o: Ink) {
    this.text(G.place({ text: s, size: o.size, face: o.face }, b.x, b.y, b.w, b.y + b.h), o);
  }

  bullets(b: G.PlacedBullets | null, o: Ink) {
    if (!b) return;
    for (const it of b.items) {
      this.page.drawText("•", {
        x: b.x,
        y: H - it.y - o.size,
        size: o.size,
        font: this.f.bold,
        color: o.color ?? this.ink,
      });
      this.text(it, o);
    }
  }

  rect(b: G.Box, o: { fill?: RGB; border?: RGB; borderWidth?: number; opacity?: number }) {
    this.page.drawRectangle({
      x: b.x,
      y: H - b.y - b.h,
      width: b.w,
      height: b.h,
      color: o.fill,
      opacity: o.opacity,
      borderColor: o.border,
      borderWidth: o.borderWidth ?? (o.border ? 1 : 0),
    });
  }

  circle(cx: number, cy: number, r: number, fill: RGB) {
    this.page.drawEllipse({ x: cx, y: H - cy, xScale: r, yScale: r, color: fill });
  }

  /** A photo covering a circle in its (square) box, as the web page's round portraits. */
  round(img: PDFImage, b: G.Box) {
    const r = b.w / 2;
    const cx = b.x + r;
    const cy = H - b.y - r;
    const k = r * 0.5523;
    this.page.pushOperators(
      pushGraphicsState(),
      moveTo(cx + r, cy),
      appendBezierCurve(cx + r, cy + k, cx + k, cy + r, cx, cy + r),
      appendBezierCurve(cx - k, cy + r, cx - r, cy + k, cx - r, cy),
      appendBezierCurve(cx - r, cy - k, cx - k, cy - r, cx, cy - r),
      appendBezierCurve(cx + k, cy - r, cx + r, cy - k, cx + r, cy),
      closePath(),
      clip(),
      endPath(),
    );
    const at = G.cover(img.width, img.height, b);
    this.page.drawImage(img, { x: at.x, y: H - at.y - at.h, width: at.w, height: at.h });
    this.page.pushOperators(popGraphicsState());
  }

  /** A picture fitted whole in its box (or covering it), or a labelled placeholder. */
  image(img: PDFImage | null, b: G.Box, label: string, fit: "contain" | "cover" = "contain") {
    if (!img) {
      this.rect(b, { fill: rgb(0.94, 0.95, 0.96), border: rgb(0.8, 0.82, 0.85) });
      this.free(
        label || "Image",
        { x: b.x + 10, y: b.y + b.h / 2 - 8, w: b.w - 20, h: b.h / 2 },
        {
          size: 12,
          align: "center",
          color: rgb(0.4, 0.43, 0.48),
        },
      );
      return;
    }
    // A covering picture runs past the page's edges, which crop it (full-bleed slides only).
    const at = (fit === "cover" ? G.cover : G.contain)(img.width, img.height, b);
    this.page.drawImage(img, { x: at.x, y: H - at.y - at.h, width: at.w, height: at.h });
  }
}

/** Embeds stored PNG/JPEG media once per document; anything else (SVG, media registered by URL, a missing file) is null. */
function imageLoader(deps: Deps, doc: PDFDocument) {
  const cache = new Map<string, Promise<PDFImage | null>>();
  return (m: { storageKey: string | null; mimeType: string | null } | null | undefined): Promise<PDFImage | null> => {
    if (!m?.storageKey || (m.mimeType !== "image/png" && m.mimeType !== "image/jpeg")) return Promise.resolve(null);
    const key = m.storageKey;
    let p = cache.get(key);
    if (!p) {
      p = (async () => {
        try {
          const body = await deps.blobs.read(key);
          if (!body) return null;
          const bytes = await bodyBytes(body);
          return m.mimeType === "image/png" ? await doc.embedPng(bytes) : await doc.embedJpg(bytes);
        } catch {
          // A damaged file is a placeholder in the PDF, not a failed export.
          return null;
        }
      })();
      cache.set(key, p);
    }
    return p;
  };
}

/** "Priya Shah" → "PS". */
export function initialsOf(name: unknown): string {
  return String(name ?? "")
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((w: string) => w[0]!.toUpperCase())
    .join("");
}

/** A plan's price line: money from integer cents with the period, or its label. */
export function priceLine(pl: C, currency: string): string {
  const price = typeof pl.price === "number" ? money(pl.price, currency) : (pl.priceLabel ?? "On request");
  return `${price}${pl.period ? ` ${pl.period}` : ""}`;
}

export async function deckPdf(
  deps: Deps,
  o: { title: string; slides: RenderSlide[]; theme: DeckTheme },
): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.setTitle(o.title.slice(0, 300));
  doc.setCreator("Plinth");
  doc.setProducer("Plinth (pdf-lib)");
  const fonts: Fonts = {
    regular: await doc.embedFont(StandardFonts.Helvetica),
    bold: await doc.embedFont(StandardFonts.HelveticaBold),
    italic: await doc.embedFont(StandardFonts.HelveticaOblique),
  };
  const t = o.theme;
  const load = imageLoader(deps, doc);
  // The same mark as the web page (logoMark decides for both).
  const mark = logoMark(t);
  const logo = mark?.kind === "image" ? await load(mark) : null;
  const scrim = scrimFor(t);
  for (const [i, s] of o.slides.entries()) {
    const page = doc.addPage([W, H]);
    const c = s.content as C;
    const inverted = s.layout === "title" || s.layout === "closing";
    const bg = color(inverted ? t.primary : t.background, inverted ? "#2563eb" : "#ffffff");
    let ink = color(inverted ? t.onPrimary : t.text);
    const primary = color(t.primary, "#2563eb");
    const accent = color(t.accent, "#f59e0b");
    const p = new SlidePainter(page, fonts, ink);
    p.rect({ x: 0, y: 0, w: W, h: H }, { fill: bg });
    const img = (id: unknown) =>
      (typeof id === "number" ? s.images[String(id)] : undefined) as ResolvedImage | undefined;
    const label = (m: ResolvedImage | undefined) => (c.alt as string) ?? m?.alt ?? "Image";
    const heading = (h: G.Placed | null) => p.text(h, { size: 30, face: "bold" });

    switch (s.layout) {
      case "title":
      case "closing": {
        const g = G.coverSlide(c, s.layout === "closing");
        if (logo) {
          const at = G.containLeft(logo.width, logo.height, g.logo);
          page.drawImage(logo, { x: at.x, y: H - at.y - at.h, width: at.w, height: at.h });
        } else if (mark?.kind === "text")
          p.free(mark.text.toUpperCase(), g.wordmark, { size: 14, face: "bold", color: color(mark.color) });
        p.text(g.title, { size: 44, face: "bold" });
        p.text(g.subtitle, { size: 22 });
        p.text(g.cta, { size: 18, face: "bold" });
        const foot = s.layout === "title" ? [c.presenter, c.date] : [c.contactName, c.email, c.phone, c.website];
        p.free(foot.filter((x) => typeof x === "string" && x).join("  ·  "), g.foot, { size: 14 });
        break;
      }
      case "title_body": {
        const g = G.titleBody(c);
        heading(g.heading);
        p.text(g.body, { size: 18 });
        p.bullets(g.bullets, { size: 18 });
        break;
      }
      case "two_columns": {
        const g = G.twoColumns(c);
        heading(g.heading);
        for (const [k, col] of g.columns.entries()) {
          const pic = ([c.left, c.right][k] as C | undefined)?.image as C | undefined;
          if (col.picture) {
            const m = img(pic?.imageId);
            p.image(await load(m), col.picture, (pic?.alt as string) ?? m?.alt ?? "Image");
          }
          p.text(col.heading, { size: 20, face: "bold", color: primary });
          p.text(col.body, { size: 16 });
          p.bullets(col.bullets, { size: 16 });
        }
        break;
      }
      case "image": {
        const g = G.imageSlide(c);
        heading(g.heading);
        const m = img(c.imageId);
        p.image(await load(m), g.picture, label(m));
        p.text(g.caption, { size: 14, align: "center" });
        break;
      }
      case "image_text": {
        const g = G.imageText(c);
        heading(g.heading);
        const m = img(c.imageId);
        p.image(await load(m), g.picture, label(m));
        p.text(g.body, { size: 18 });
        p.bullets(g.bullets, { size: 18 });
        break;
      }
      case "image_full": {
        const g = G.imageFull(c);
        const m = img(c.imageId);
        p.image(await load(m), g.picture, label(m), "cover");
        if (g.scrim) p.rect(g.scrim, { fill: color(scrim.color), opacity: scrim.opacity });
        if (g.scrim) ink = color(scrim.text);
        p.text(g.title, { size: 34, face: "bold", color: ink });
        p.text(g.caption, { size: 18, color: ink });
        break;
      }
      case "quote": {
        const m = img(c.imageId);
        const g = G.quoteSlide(c, typeof c.quote === "string" ? bareQuote(c.quote) : null, !!m);
        const face = g.portrait ? await load(m) : null;
        if (g.portrait && face) p.round(face, g.portrait);
        else if (g.portrait) p.image(null, g.portrait, (c.author as string) ?? "");
        page.drawText("\u201C", { x: g.mark.x, y: H - 150, size: 90, font: fonts.bold, color: accent });
        p.text(g.quote, { size: 26, face: "italic" });
        p.text(g.author, { size: 18, face: "bold" });
        p.text(g.role, { size: 16 });
        break;
      }
      case "metrics": {
        const g = G.metricsSlide(c);
        heading(g.heading);
        for (const m of g.items) {
          p.text(m.value, { size: 44, face: "bold", color: primary });
          p.text(m.label, { size: 16, face: "bold" });
          p.text(m.detail, { size: 12 });
        }
        break;
      }
      case "timeline": {
        const g = G.timelineSlide(c);
        heading(g.heading);
        page.drawLine({
          start: { x: g.line.x1, y: H - g.line.y },
          end: { x: g.line.x2, y: H - g.line.y },
          thickness: 2,
          color: primary,
          opacity: 0.35,
        });
        const size = g.steps.length > 5 ? 13 : 16;
        for (const st of g.steps) {
          p.circle(st.dot.cx, st.dot.cy, st.dot.r, primary);
          p.text(st.date, { size, face: "bold", color: primary });
          p.text(st.label, { size, face: "bold" });
          p.text(st.detail, { size: size - 3 });
        }
        break;
      }
      case "pricing": {
        const cur = typeof c.currency === "string" ? c.currency : "USD";
        const g = G.pricingSlide(c, (pl) => priceLine(pl, cur));
        heading(g.heading);
        for (const [k, pl] of g.plans.entries()) {
          const hl = (c.plans as C[])[k]!.highlighted === true;
          p.rect(pl.box, { border: hl ? primary : rgb(0.82, 0.84, 0.87), borderWidth: hl ? 3 : 1 });
          p.text(pl.badge, { size: 10, face: "bold", color: primary });
          p.text(pl.name, { size: 18, face: "bold" });
          p.text(pl.price, { size: 22, face: "bold" });
          p.text(pl.description, { size: 12 });
          p.bullets(pl.features, { size: 12 });
        }
        p.text(g.note, { size: 11 });
        break;
      }
      case "team": {
        const g = G.teamSlide(c);
        heading(g.heading);
        for (const [k, m] of g.members.entries()) {
          const person = (c.members as C[])[k]!;
          const pic = await load(img(person.imageId));
          if (pic) p.round(pic, m.photo);
          else {
            p.circle(m.photo.x + m.photo.w / 2, m.photo.y + m.photo.h / 2, m.photo.w / 2, primary);
            p.free(
              initialsOf(person.name),
              { x: m.photo.x, y: m.photo.y + m.photo.h / 2 - 12, w: m.photo.w, h: 30 },
              {
                size: 22,
                face: "bold",
                color: color(t.onPrimary, "#ffffff"),
                align: "center",
              },
            );
          }
          p.text(m.name, { size: 14, face: "bold", align: "center" });
          p.text(m.role, { size: 12, color: primary, align: "center" });
          p.text(m.bio, { size: 10, align: "center" });
        }
        break;
      }
    }
    page.drawText(String(i + 1), { x: W - 40, y: 20, size: 10, font: fonts.regular, color: ink, opacity: 0.6 });
  }
  return await doc.save();
}
