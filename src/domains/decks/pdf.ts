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
 * type (this file) beside the HTML one, the 14 standard PDF fonts (so brand
 * fonts fall back to Helvetica, and characters outside Windows-1252 are
 * replaced), and no SVG pictures (a labelled placeholder instead). Media
 * registered by URL is never fetched (that would let anyone make the
 * server call arbitrary addresses); it gets the same placeholder.
 */
import { PDFDocument, StandardFonts, rgb, type PDFFont, type PDFImage, type PDFPage, type RGB } from "pdf-lib";
import type { Deps } from "../../core/context";
import { bodyBytes } from "../../core/blobs";
import { bareQuote, type DeckTheme, type ResolvedImage } from "./layouts";
import { logoMark } from "./logo";
import { money, type RenderSlide } from "./render";

const W = 960;
const H = 540;
const MX = 64;
const TOP = 56;

type C = Record<string, any>;

function color(hex: string, fallback = "#111827"): RGB {
  const h = /^#[0-9a-fA-F]{6}$/.test(hex) ? hex : fallback;
  return rgb(parseInt(h.slice(1, 3), 16) / 255, parseInt(h.slice(3, 5), 16) / 255, parseInt(h.slice(5, 7), 16) / 255);
}

interface Fonts {
  regular: PDFFont;
  bold: PDFFont;
  italic: PDFFont;
}

/** Text the standard fonts can show: common look-alikes mapped, accents kept where the font has them, the rest "?". */
function encodable(font: PDFFont) {
  const set = new Set(font.getCharacterSet());
  const MAP: Record<string, string> = {
    "\u2212": "-",
    "\u2011": "-",
    "\u00a0": " ",
    "\u2009": " ",
    "\u202f": " ",
    "\u2192": "->",
    "\u2190": "<-",
    "\u00d7": "x",
    "\u2713": "v",
  };
  return (s: string) => {
    let out = "";
    for (const ch of s.replace(/\r/g, "")) {
      const cp = ch.codePointAt(0)!;
      if (ch === "\n" || set.has(cp)) out += ch;
      else if (MAP[ch] !== undefined) out += MAP[ch];
      else {
        const base = ch.normalize("NFKD").replace(/[\u0300-\u036f]/g, "");
        out += [...base].every((c) => set.has(c.codePointAt(0)!)) && base ? base : "?";
      }
    }
    return out;
  };
}

/** Lines of at most `width` points; long words are broken. */
function wrap(text: string, font: PDFFont, size: number, width: number): string[] {
  const lines: string[] = [];
  for (const para of text.split("\n")) {
    let line = "";
    for (const word of para.split(/\s+/).filter(Boolean)) {
      const candidate = line ? `${line} ${word}` : word;
      if (font.widthOfTextAtSize(candidate, size) <= width) {
        line = candidate;
        continue;
      }
      if (line) lines.push(line);
      let w = word;
      while (font.widthOfTextAtSize(w, size) > width && w.length > 1) {
        let cut = w.length - 1;
        while (cut > 1 && font.widthOfTextAtSize(w.slice(0, cut), size) > width) cut--;
        lines.push(w.slice(0, cut));
        w = w.slice(cut);
      }
      line = w;
    }
    lines.push(line);
  }
  return lines;
}

class SlidePainter {
  constructor(
    private page: PDFPage,
    private f: Fonts,
    private clean: (s: string) => string,
    readonly ink: RGB,
  ) {}

  /**
   * Draws wrapped text with its top at `y` (from the top of the page) and
   * returns the y below it. Stops at `bottom`, ending the last line with "…".
   */
  text(
    s: unknown,
    o: {
      x: number;
      y: number;
      width: number;
      size: number;
      font?: keyof Fonts;
      color?: RGB;
      bottom?: number;
      align?: "left" | "center";
      gap?: number;
    },
  ): number {
    if (typeof s !== "string" || s.trim() === "") return o.y;
    const font = this.f[o.font ?? "regular"];
    const lh = o.size * 1.28;
    const bottom = o.bottom ?? H - 30;
    let y = o.y;
    const lines = wrap(this.clean(s), font, o.size, o.width);
    for (let i = 0; i < lines.length; i++) {
      if (y + lh > bottom) break;
      let line = lines[i]!;
      if (y + 2 * lh > bottom && i < lines.length - 1) line = `${line.replace(/\s*\S*$/, "")}…`;
      const x = o.align === "center" ? o.x + (o.width - font.widthOfTextAtSize(line, o.size)) / 2 : o.x;
      this.page.drawText(line, { x, y: H - y - o.size, size: o.size, font, color: o.color ?? this.ink });
      y += lh;
    }
    return y + (o.gap ?? 0);
  }

  bullets(
    items: unknown,
    o: { x: number; y: number; width: number; size: number; color?: RGB; bottom?: number },
  ): number {
    let y = o.y;
    if (!Array.isArray(items)) return y;
    for (const it of items) {
      if (typeof it !== "string") continue;
      this.page.drawText("•", {
        x: o.x,
        y: H - y - o.size,
        size: o.size,
        font: this.f.bold,
        color: o.color ?? this.ink,
      });
      y = this.text(it, { ...o, y, x: o.x + o.size * 1.1, width: o.width - o.size * 1.1, gap: o.size * 0.35 });
    }
    return y;
  }

  rect(x: number, y: number, w: number, h: number, o: { fill?: RGB; border?: RGB; borderWidth?: number }) {
    this.page.drawRectangle({
      x,
      y: H - y - h,
      width: w,
      height: h,
      color: o.fill,
      borderColor: o.border,
      borderWidth: o.borderWidth ?? (o.border ? 1 : 0),
    });
  }

  image(img: PDFImage | null, x: number, y: number, w: number, h: number, label: string) {
    if (!img) {
      this.rect(x, y, w, h, { fill: rgb(0.94, 0.95, 0.96), border: rgb(0.8, 0.82, 0.85) });
      this.text(label || "Image", {
        x: x + 10,
        y: y + h / 2 - 8,
        width: w - 20,
        size: 12,
        align: "center",
        color: rgb(0.4, 0.43, 0.48),
        bottom: y + h,
      });
      return;
    }
    const scale = Math.min(w / img.width, h / img.height);
    const iw = img.width * scale;
    const ih = img.height * scale;
    this.page.drawImage(img, { x: x + (w - iw) / 2, y: H - y - (h + ih) / 2, width: iw, height: ih });
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

function gridCols(n: number, max = 3) {
  return n <= max ? n : n === 4 ? 2 : max;
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
  const clean = encodable(fonts.regular);
  const t = o.theme;
  const load = imageLoader(deps, doc);
  // The same mark as the web page (logoMark decides for both).
  const mark = logoMark(t);
  const logo = mark?.kind === "image" ? await load(mark) : null;
  for (const [i, s] of o.slides.entries()) {
    const page = doc.addPage([W, H]);
    const c = s.content as C;
    const inverted = s.layout === "title" || s.layout === "closing";
    const bg = color(inverted ? t.primary : t.background, inverted ? "#2563eb" : "#ffffff");
    const ink = color(inverted ? t.onPrimary : t.text);
    const primary = color(t.primary, "#2563eb");
    const accent = color(t.accent, "#f59e0b");
    const p = new SlidePainter(page, fonts, clean, ink);
    p.rect(0, 0, W, H, { fill: bg });
    const img = (id: unknown) =>
      (typeof id === "number" ? s.images[String(id)] : undefined) as ResolvedImage | undefined;
    const width = W - 2 * MX;
    const heading = (y = TOP) =>
      typeof c.title === "string"
        ? p.text(c.title, { x: MX, y, width, size: 30, font: "bold", gap: 18, bottom: 200 })
        : y;

    switch (s.layout) {
      case "title":
      case "closing": {
        if (logo) p.image(logo, MX, 36, 200, 44, "");
        else if (mark?.kind === "text")
          p.text(mark.text.toUpperCase(), {
            x: MX,
            y: 44,
            width: 400,
            size: 14,
            font: "bold",
            color: color(mark.color),
          });
        let y = p.text(c.title, { x: MX, y: 190, width, size: 44, font: "bold", gap: 12, bottom: 420 });
        y = p.text(c.subtitle, { x: MX, y, width, size: 22, gap: 12, bottom: 450 });
        if (s.layout === "closing" && typeof c.ctaLabel === "string" && typeof c.ctaUrl === "string") {
          p.text(`${c.ctaLabel}: ${c.ctaUrl}`, { x: MX, y: y + 8, width, size: 18, font: "bold", bottom: 480 });
        }
        const foot = s.layout === "title" ? [c.presenter, c.date] : [c.contactName, c.email, c.phone, c.website];
        p.text(foot.filter((x) => typeof x === "string" && x).join("  ·  "), {
          x: MX,
          y: H - 60,
          width,
          size: 14,
          bottom: H - 10,
        });
        break;
      }
      case "title_body": {
        let y = heading();
        y = p.text(c.body, { x: MX, y, width, size: 18, gap: 10 });
        p.bullets(c.bullets, { x: MX, y, width, size: 18 });
        break;
      }
      case "two_columns": {
        const y0 = heading();
        const cw = (width - 48) / 2;
        for (const [k, col] of [c.left, c.right].entries()) {
          const x = MX + k * (cw + 48);
          let y = p.text(col?.heading, { x, y: y0, width: cw, size: 20, font: "bold", color: primary, gap: 8 });
          y = p.text(col?.body, { x, y, width: cw, size: 16, gap: 8 });
          p.bullets(col?.bullets, { x, y, width: cw, size: 16 });
        }
        break;
      }
      case "image": {
        const y0 = heading();
        const caption = typeof c.caption === "string" && c.caption ? 40 : 0;
        const m = img(c.imageId);
        p.image(await load(m), MX, y0, width, H - y0 - 40 - caption, (c.alt as string) ?? m?.alt ?? "Image");
        if (caption) p.text(c.caption, { x: MX, y: H - 40 - caption + 8, width, size: 14, align: "center" });
        break;
      }
      case "image_text": {
        // The web page's grid: two halves 48 pt (5%) apart, the picture fitted in its half.
        const y0 = heading();
        const cw = (width - 48) / 2;
        const right = c.side === "right";
        const m = img(c.imageId);
        p.image(await load(m), right ? MX + cw + 48 : MX, y0, cw, H - y0 - 40, (c.alt as string) ?? m?.alt ?? "Image");
        const x = right ? MX : MX + cw + 48;
        const y = p.text(c.body, { x, y: y0, width: cw, size: 18, gap: 10 });
        p.bullets(c.bullets, { x, y, width: cw, size: 18 });
        break;
      }
      case "quote": {
        const m = img(c.imageId);
        const x = m ? MX + 190 : MX;
        if (m) p.image(await load(m), MX, 150, 160, 160, (c.author as string) ?? "");
        page.drawText("\u201C", { x, y: H - 150, size: 90, font: fonts.bold, color: accent });
        let y = p.text(typeof c.quote === "string" ? bareQuote(c.quote) : null, {
          x,
          y: 150,
          width: W - x - MX,
          size: 26,
          font: "italic",
          gap: 16,
          bottom: 440,
        });
        y = p.text(c.author, { x, y, width: W - x - MX, size: 18, font: "bold", gap: 2 });
        p.text(c.role, { x, y, width: W - x - MX, size: 16 });
        break;
      }
      case "metrics": {
        const items = (Array.isArray(c.metrics) ? c.metrics : []) as C[];
        const y0 = heading(TOP) + 20;
        const cols = gridCols(items.length);
        const cw = (width - (cols - 1) * 32) / cols;
        const rowH = items.length > cols ? 150 : 200;
        items.forEach((m, k) => {
          const x = MX + (k % cols) * (cw + 32);
          let y = y0 + Math.floor(k / cols) * rowH;
          y = p.text(String(m.value ?? ""), { x, y, width: cw, size: 44, font: "bold", color: primary, gap: 4 });
          y = p.text(String(m.label ?? ""), { x, y, width: cw, size: 16, font: "bold", gap: 2 });
          p.text(m.detail, { x, y, width: cw, size: 12 });
        });
        break;
      }
      case "pricing": {
        const plans = (Array.isArray(c.plans) ? c.plans : []) as C[];
        const cur = typeof c.currency === "string" ? c.currency : "USD";
        const y0 = heading();
        const cw = (width - (plans.length - 1) * 24) / Math.max(1, plans.length);
        const boxH = H - y0 - (typeof c.note === "string" && c.note ? 70 : 40);
        plans.forEach((pl, k) => {
          const x = MX + k * (cw + 24);
          p.rect(x, y0, cw, boxH, {
            border: pl.highlighted === true ? primary : rgb(0.82, 0.84, 0.87),
            borderWidth: pl.highlighted === true ? 3 : 1,
          });
          let y = y0 + 16;
          if (pl.highlighted === true)
            y = p.text("RECOMMENDED", { x: x + 16, y, width: cw - 32, size: 10, font: "bold", color: primary, gap: 4 });
          y = p.text(String(pl.name ?? ""), { x: x + 16, y, width: cw - 32, size: 18, font: "bold", gap: 4 });
          const price = typeof pl.price === "number" ? money(pl.price, cur) : (pl.priceLabel ?? "On request");
          y = p.text(`${price}${pl.period ? ` ${pl.period}` : ""}`, {
            x: x + 16,
            y,
            width: cw - 32,
            size: 22,
            font: "bold",
            gap: 6,
          });
          y = p.text(pl.description, { x: x + 16, y, width: cw - 32, size: 12, gap: 6, bottom: y0 + boxH - 10 });
          p.bullets(pl.features, { x: x + 16, y, width: cw - 32, size: 12, bottom: y0 + boxH - 10 });
        });
        p.text(c.note, { x: MX, y: H - 56, width, size: 11 });
        break;
      }
      case "team": {
        const people = (Array.isArray(c.members) ? c.members : []) as C[];
        const y0 = heading();
        const cols = people.length <= 4 ? people.length : 4;
        const cw = (width - (cols - 1) * 24) / Math.max(1, cols);
        const rows = Math.ceil(people.length / Math.max(1, cols));
        const face = rows > 1 ? 56 : 96;
        const rowH = (H - y0 - 30) / rows;
        for (const [k, m] of people.entries()) {
          const x = MX + (k % cols) * (cw + 24);
          let y = y0 + Math.floor(k / cols) * rowH;
          const pic = await load(img(m.imageId));
          if (pic) p.image(pic, x + (cw - face) / 2, y, face, face, "");
          else {
            page.drawEllipse({
              x: x + cw / 2,
              y: H - y - face / 2,
              xScale: face / 2,
              yScale: face / 2,
              color: primary,
            });
            const ini = String(m.name ?? "")
              .split(/\s+/)
              .filter(Boolean)
              .slice(0, 2)
              .map((w: string) => w[0]!.toUpperCase())
              .join("");
            p.text(ini, {
              x,
              y: y + face / 2 - 12,
              width: cw,
              size: 22,
              font: "bold",
              color: color(t.onPrimary, "#ffffff"),
              align: "center",
            });
          }
          y += face + 10;
          y = p.text(String(m.name ?? ""), { x, y, width: cw, size: 14, font: "bold", align: "center", gap: 2 });
          y = p.text(m.role, { x, y, width: cw, size: 12, color: primary, align: "center", gap: 2 });
          p.text(m.bio, { x, y, width: cw, size: 10, align: "center", bottom: y0 + (Math.floor(k / cols) + 1) * rowH });
        }
        break;
      }
    }
    page.drawText(String(i + 1), { x: W - 40, y: 20, size: 10, font: fonts.regular, color: ink, opacity: 0.6 });
  }
  return await doc.save();
}
