/**
 * Decks as PowerPoint (.pptx), which clients ask for to edit a deck in their
 * own tools: one 16:9 slide per slide, every text a real, editable text box
 * in the theme's fonts and colours (never a picture of text), the stored
 * PNG and JPEG pictures embedded, speaker notes as the slide's notes.
 *
 * Written with pptxgenjs (pure JavaScript, MIT, JSZip underneath; no native
 * parts, so it bundles into the single binary). The layout follows the PDF's
 * (pdf.ts) on the same 960×540 grid, scaled to PowerPoint's 10×5.625-inch
 * page, so a slide sits in the same places in the PDF and the .pptx; the
 * brand mark is logoMark's choice, as on the web page and in the PDF. Brand
 * fonts are named as they are (PowerPoint substitutes when a viewer lacks
 * them); SVG pictures and media registered by URL (never fetched) get the
 * same labelled placeholder as in the PDF.
 */
import { imageSize } from "image-size";
import PptxGenJS from "pptxgenjs";
import type { Deps } from "../../core/context";
import { bodyBytes } from "../../core/blobs";
import { HEX_RE } from "../branding/contrast";
import { bareQuote, type DeckTheme, type ResolvedImage } from "./layouts";
import { logoMark } from "./logo";
import { money, type RenderSlide } from "./render";

/** The PDF's grid (points on a 960×540 page) in inches, and its type sizes in PowerPoint points. */
const W = 960;
const H = 540;
const MX = 64;
const TOP = 56;
const IN = (pt: number) => Math.round((pt / 96) * 1000) / 1000;
const FS = (pt: number) => Math.round(pt * 0.75 * 10) / 10;

type C = Record<string, any>;

const hex = (c: string, fallback: string) => (HEX_RE.test(c) && c.length === 7 ? c : fallback).slice(1).toUpperCase();

/** The first family of a CSS font list ("'Space Grotesk', Arial" → Space Grotesk); PowerPoint takes one name. */
export function firstFamily(list: string | null, fallback = "Helvetica"): string {
  const first = list
    ?.split(",")[0]
    ?.trim()
    .replace(/^['"]|['"]$/g, "");
  return first || fallback;
}

interface Pic {
  data: string;
  width: number;
  height: number;
}

/** Stored PNG/JPEG media as data for pptxgenjs, once per file; anything else (SVG, by URL, missing, damaged) is null. */
function imageLoader(deps: Deps) {
  const cache = new Map<string, Promise<Pic | null>>();
  return (m: { storageKey: string | null; mimeType: string | null } | null | undefined): Promise<Pic | null> => {
    if (!m?.storageKey || (m.mimeType !== "image/png" && m.mimeType !== "image/jpeg")) return Promise.resolve(null);
    const key = m.storageKey;
    let p = cache.get(key);
    if (!p) {
      p = (async () => {
        try {
          const body = await deps.blobs.read(key);
          if (!body) return null;
          const bytes = await bodyBytes(body);
          const size = imageSize(bytes);
          if (!size.width || !size.height) return null;
          return {
            data: `${m.mimeType};base64,${Buffer.from(bytes).toString("base64")}`,
            width: size.width,
            height: size.height,
          };
        } catch {
          // A damaged file is a placeholder in the .pptx, as in the PDF, not a failed export.
          return null;
        }
      })();
      cache.set(key, p);
    }
    return p;
  };
}

export async function deckPptx(
  deps: Deps,
  o: { title: string; slides: RenderSlide[]; theme: DeckTheme },
): Promise<Uint8Array> {
  const pptx = new PptxGenJS();
  pptx.layout = "LAYOUT_16x9";
  pptx.title = o.title.slice(0, 300);
  pptx.company = o.theme.name.slice(0, 100);
  pptx.author = "Plinth";
  const t = o.theme;
  const head = firstFamily(t.headingFont);
  const bodyFace = firstFamily(t.bodyFont);
  const load = imageLoader(deps);
  const mark = logoMark(t);
  const logo = mark?.kind === "image" ? await load(mark) : null;
  const primary = hex(t.primary, "#2563eb");
  const accent = hex(t.accent, "#f59e0b");

  for (const [i, s] of o.slides.entries()) {
    const slide = pptx.addSlide();
    const c = s.content as C;
    const inverted = s.layout === "title" || s.layout === "closing";
    slide.background = { color: inverted ? primary : hex(t.background, "#ffffff") };
    const ink = inverted ? hex(t.onPrimary, "#ffffff") : hex(t.text, "#111827");
    if (typeof s.notes === "string" && s.notes) slide.addNotes(s.notes);

    /** A text box on the PDF's grid: x, y, width, height in PDF points. */
    const text = (
      value: unknown,
      x: number,
      y: number,
      w: number,
      h: number,
      o2: { size: number; bold?: boolean; italic?: boolean; color?: string; align?: "left" | "center"; font?: string },
    ) => {
      if (typeof value !== "string" || value.trim() === "") return;
      slide.addText(value, {
        x: IN(x),
        y: IN(y),
        w: IN(w),
        h: IN(h),
        fontFace: o2.font ?? bodyFace,
        fontSize: FS(o2.size),
        bold: o2.bold ?? false,
        italic: o2.italic ?? false,
        color: o2.color ?? ink,
        align: o2.align ?? "left",
        valign: "top",
        margin: 0,
        fit: "shrink",
      });
    };
    const bullets = (items: unknown, x: number, y: number, w: number, h: number, size: number) => {
      if (!Array.isArray(items)) return;
      const lines = items.filter((it): it is string => typeof it === "string" && it !== "");
      if (!lines.length) return;
      slide.addText(
        lines.map((it) => ({ text: it, options: { bullet: true, breakLine: true } })),
        {
          x: IN(x),
          y: IN(y),
          w: IN(w),
          h: IN(h),
          fontFace: bodyFace,
          fontSize: FS(size),
          color: ink,
          valign: "top",
          margin: 0,
          paraSpaceAfter: FS(size * 0.35),
          fit: "shrink",
        },
      );
    };
    const picture = async (m: ResolvedImage | undefined, x: number, y: number, w: number, h: number, label: string) => {
      const pic = await load(m);
      if (!pic) {
        slide.addShape("rect", {
          x: IN(x),
          y: IN(y),
          w: IN(w),
          h: IN(h),
          fill: { color: "EFF1F4" },
          line: { color: "CCD1D9", width: 0.75 },
        });
        text(label || "Image", x + 10, y + h / 2 - 10, w - 20, 24, { size: 12, color: "666E7A", align: "center" });
        return;
      }
      const k = Math.min(w / pic.width, h / pic.height);
      const iw = pic.width * k;
      const ih = pic.height * k;
      slide.addImage({
        data: pic.data,
        x: IN(x + (w - iw) / 2),
        y: IN(y + (h - ih) / 2),
        w: IN(iw),
        h: IN(ih),
        altText: (m?.alt ?? label).slice(0, 300),
      });
    };
    const img = (id: unknown) =>
      (typeof id === "number" ? s.images[String(id)] : undefined) as ResolvedImage | undefined;
    const width = W - 2 * MX;
    const heading = () => {
      if (typeof c.title !== "string") return TOP;
      text(c.title, MX, TOP, width, 48, { size: 30, bold: true, font: head });
      return TOP + 66;
    };

    switch (s.layout) {
      case "title":
      case "closing": {
        if (logo && mark?.kind === "image") {
          const k = Math.min(200 / logo.width, 44 / logo.height);
          slide.addImage({
            data: logo.data,
            x: IN(MX),
            y: IN(36),
            w: IN(logo.width * k),
            h: IN(logo.height * k),
            altText: mark.alt,
          });
        } else if (mark?.kind === "text")
          text(mark.text.toUpperCase(), MX, 44, 400, 24, { size: 14, bold: true, color: hex(mark.color, "#ffffff") });
        text(c.title, MX, 190, width, 120, { size: 44, bold: true, font: head });
        text(c.subtitle, MX, 320, width, 90, { size: 22 });
        if (s.layout === "closing" && typeof c.ctaLabel === "string" && typeof c.ctaUrl === "string")
          slide.addText(c.ctaLabel, {
            x: IN(MX),
            y: IN(415),
            w: IN(width),
            h: IN(30),
            fontFace: bodyFace,
            fontSize: FS(18),
            bold: true,
            color: ink,
            margin: 0,
            hyperlink: { url: c.ctaUrl },
          });
        const foot = s.layout === "title" ? [c.presenter, c.date] : [c.contactName, c.email, c.phone, c.website];
        text(foot.filter((x) => typeof x === "string" && x).join("  ·  "), MX, H - 60, width, 24, { size: 14 });
        break;
      }
      case "title_body": {
        const y = heading();
        const hasBody = typeof c.body === "string" && c.body !== "";
        text(c.body, MX, y, width, hasBody && Array.isArray(c.bullets) ? 110 : H - y - 40, { size: 18 });
        bullets(c.bullets, MX, hasBody ? y + 120 : y, width, H - (hasBody ? y + 120 : y) - 40, 18);
        break;
      }
      case "two_columns": {
        const y0 = heading();
        const cw = (width - 48) / 2;
        for (const [k, col] of [c.left, c.right].entries()) {
          const x = MX + k * (cw + 48);
          let y = y0;
          if (col?.heading) {
            text(col.heading, x, y, cw, 30, { size: 20, bold: true, color: primary, font: head });
            y += 36;
          }
          if (col?.body) {
            text(col.body, x, y, cw, 100, { size: 16 });
            y += 108;
          }
          bullets(col?.bullets, x, y, cw, H - y - 40, 16);
        }
        break;
      }
      case "image": {
        const y0 = heading();
        const caption = typeof c.caption === "string" && c.caption ? 40 : 0;
        const m = img(c.imageId);
        await picture(m, MX, y0, width, H - y0 - 40 - caption, (c.alt as string) ?? m?.alt ?? "Image");
        if (caption) text(c.caption, MX, H - 40 - caption + 8, width, 26, { size: 14, align: "center" });
        break;
      }
      case "image_text": {
        const y0 = heading();
        const cw = (width - 48) / 2;
        const right = c.side === "right";
        const m = img(c.imageId);
        await picture(m, right ? MX + cw + 48 : MX, y0, cw, H - y0 - 40, (c.alt as string) ?? m?.alt ?? "Image");
        const x = right ? MX : MX + cw + 48;
        const hasBody = typeof c.body === "string" && c.body !== "";
        text(c.body, x, y0, cw, hasBody && Array.isArray(c.bullets) ? 130 : H - y0 - 40, { size: 18 });
        bullets(c.bullets, x, hasBody ? y0 + 140 : y0, cw, H - (hasBody ? y0 + 140 : y0) - 40, 18);
        break;
      }
      case "quote": {
        const m = img(c.imageId);
        const x = m ? MX + 190 : MX;
        if (m) await picture(m, MX, 150, 160, 160, (c.author as string) ?? "");
        text("\u201C", x, 90, 80, 80, { size: 90, bold: true, color: accent });
        text(typeof c.quote === "string" ? bareQuote(c.quote) : null, x, 150, W - x - MX, 200, {
          size: 26,
          italic: true,
          font: head,
        });
        text(c.author, x, 360, W - x - MX, 28, { size: 18, bold: true });
        text(c.role, x, 390, W - x - MX, 26, { size: 16 });
        break;
      }
      case "metrics": {
        const items = (Array.isArray(c.metrics) ? c.metrics : []) as C[];
        const y0 = heading() + 20;
        const cols = items.length <= 3 ? items.length : items.length === 4 ? 2 : 3;
        const cw = (width - (cols - 1) * 32) / Math.max(1, cols);
        const rowH = items.length > cols ? 150 : 200;
        items.forEach((m, k) => {
          const x = MX + (k % cols) * (cw + 32);
          const y = y0 + Math.floor(k / cols) * rowH;
          text(String(m.value ?? ""), x, y, cw, 60, { size: 44, bold: true, color: primary, font: head });
          text(String(m.label ?? ""), x, y + 62, cw, 26, { size: 16, bold: true });
          text(m.detail, x, y + 90, cw, 40, { size: 12 });
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
          const hl = pl.highlighted === true;
          slide.addShape("rect", {
            x: IN(x),
            y: IN(y0),
            w: IN(cw),
            h: IN(boxH),
            line: { color: hl ? primary : "D1D6DE", width: hl ? 2.25 : 0.75 },
          });
          let y = y0 + 16;
          if (hl) {
            text("RECOMMENDED", x + 16, y, cw - 32, 16, { size: 10, bold: true, color: primary });
            y += 18;
          }
          text(String(pl.name ?? ""), x + 16, y, cw - 32, 26, { size: 18, bold: true, font: head });
          y += 28;
          const price = typeof pl.price === "number" ? money(pl.price, cur) : (pl.priceLabel ?? "On request");
          text(`${price}${pl.period ? ` ${pl.period}` : ""}`, x + 16, y, cw - 32, 60, { size: 22, bold: true });
          y += 64;
          text(pl.description, x + 16, y, cw - 32, 50, { size: 12 });
          if (pl.description) y += 54;
          bullets(pl.features, x + 16, y, cw - 32, y0 + boxH - y - 10, 12);
        });
        text(c.note, MX, H - 56, width, 24, { size: 11 });
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
          if (pic) await picture(img(m.imageId), x + (cw - face) / 2, y, face, face, "");
          else {
            const ini = String(m.name ?? "")
              .split(/\s+/)
              .filter(Boolean)
              .slice(0, 2)
              .map((w: string) => w[0]!.toUpperCase())
              .join("");
            slide.addText(ini, {
              shape: "ellipse",
              x: IN(x + (cw - face) / 2),
              y: IN(y),
              w: IN(face),
              h: IN(face),
              fill: { color: primary },
              color: hex(t.onPrimary, "#ffffff"),
              fontFace: head,
              fontSize: FS(22),
              bold: true,
              align: "center",
              valign: "middle",
            });
          }
          y += face + 10;
          text(String(m.name ?? ""), x, y, cw, 22, { size: 14, bold: true, align: "center" });
          text(m.role, x, y + 22, cw, 20, { size: 12, color: primary, align: "center" });
          text(m.bio, x, y + 44, cw, Math.max(20, rowH - face - 60), { size: 10, align: "center" });
        }
        break;
      }
    }
    slide.addText(String(i + 1), {
      x: IN(W - 60),
      y: IN(H - 34),
      w: IN(40),
      h: IN(16),
      fontFace: bodyFace,
      fontSize: FS(10),
      color: ink,
      align: "right",
      margin: 0,
    });
  }
  const out = await pptx.write({ outputType: "uint8array" });
  return out as Uint8Array;
}
