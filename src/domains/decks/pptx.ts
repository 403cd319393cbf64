/**
 * Decks as PowerPoint (.pptx), which clients ask for to edit a deck in their
 * own tools: one 16:9 slide per slide, every text a real, editable text box
 * in the theme's fonts and colours (never a picture of text), the stored
 * PNG and JPEG pictures embedded, speaker notes as the slide's notes.
 *
 * Written with pptxgenjs (pure JavaScript, MIT, JSZip underneath; no native
 * parts, so it bundles into the single binary). Every box comes from
 * geometry.ts, which places the PDF's too (a 960×540 grid, scaled here to
 * PowerPoint's 10×5.625-inch page), so a slide sits in the same places in
 * the PDF and the .pptx; the
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
import * as G from "./geometry";
import { bareQuote, type DeckTheme, type ResolvedImage } from "./layouts";
import { logoMark } from "./logo";
import { initialsOf, priceLine } from "./pdf";
import type { RenderSlide } from "./render";
import { scrimFor } from "./theme";

/** The grid's points (geometry.ts: a 960×540 page) in inches, and its type sizes in PowerPoint points. */
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
  const scrim = scrimFor(t);

  for (const [i, s] of o.slides.entries()) {
    const slide = pptx.addSlide();
    const c = s.content as C;
    const inverted = s.layout === "title" || s.layout === "closing";
    slide.background = { color: inverted ? primary : hex(t.background, "#ffffff") };
    let ink = inverted ? hex(t.onPrimary, "#ffffff") : hex(t.text, "#111827");
    if (typeof s.notes === "string" && s.notes) slide.addNotes(s.notes);

    interface Style {
      size: number;
      bold?: boolean;
      italic?: boolean;
      color?: string;
      align?: "left" | "center";
      font?: string;
      link?: string;
    }
    /** A text box where geometry.ts placed the text (the whole text, editable; PowerPoint shrinks it if its font runs wider). */
    const text = (value: unknown, b: G.Box | null, o2: Style) => {
      if (!b || typeof value !== "string" || value.trim() === "") return;
      slide.addText(value, {
        x: IN(b.x),
        y: IN(b.y),
        w: IN(b.w),
        h: IN(Math.max(b.h, o2.size * G.LEADING)),
        fontFace: o2.font ?? bodyFace,
        fontSize: FS(o2.size),
        lineSpacing: FS(o2.size * G.LEADING),
        bold: o2.bold ?? false,
        italic: o2.italic ?? false,
        color: o2.color ?? ink,
        align: o2.align ?? "left",
        valign: "top",
        margin: 0,
        fit: "shrink",
        ...(o2.link ? { hyperlink: { url: o2.link } } : {}),
      });
    };
    const bullets = (items: unknown, b: G.PlacedBullets | null, size: number) => {
      if (!b || !Array.isArray(items)) return;
      const lines = items.filter((it): it is string => typeof it === "string" && it.trim() !== "");
      if (!lines.length) return;
      slide.addText(
        lines.map((it) => ({ text: it, options: { bullet: { indent: FS(b.indent) }, breakLine: true } })),
        {
          x: IN(b.x),
          y: IN(b.y),
          w: IN(b.w),
          h: IN(b.h),
          fontFace: bodyFace,
          fontSize: FS(size),
          lineSpacing: FS(size * G.LEADING),
          color: ink,
          valign: "top",
          margin: 0,
          paraSpaceAfter: FS(size * 0.35),
          fit: "shrink",
        },
      );
    };
    const picture = async (
      m: ResolvedImage | undefined,
      b: G.Box,
      label: string,
      fit: "contain" | "cover" | "round" = "contain",
    ) => {
      const pic = await load(m);
      if (!pic) {
        slide.addShape("rect", {
          x: IN(b.x),
          y: IN(b.y),
          w: IN(b.w),
          h: IN(b.h),
          fill: { color: "EFF1F4" },
          line: { color: "CCD1D9", width: 0.75 },
        });
        text(
          label || "Image",
          { x: b.x + 10, y: b.y + b.h / 2 - 8, w: b.w - 20, h: 24 },
          {
            size: 12,
            color: "666E7A",
            align: "center",
          },
        );
        return;
      }
      // The slide's own alt text first, as on the web page and in the PDF; then the media item's.
      const altText = (label || m?.alt || "Image").slice(0, 300);
      if (fit !== "contain") {
        // The picture's own proportions, cropped to the box (a:srcRect): nothing hangs off the slide.
        const at = G.cover(pic.width, pic.height, b);
        slide.addImage({
          data: pic.data,
          x: IN(b.x),
          y: IN(b.y),
          w: IN(at.w),
          h: IN(at.h),
          sizing: { type: "cover", w: IN(b.w), h: IN(b.h) },
          // A portrait is round, as on the web page and in the PDF.
          rounding: fit === "round",
          altText,
        });
        return;
      }
      const at = G.contain(pic.width, pic.height, b);
      slide.addImage({ data: pic.data, x: IN(at.x), y: IN(at.y), w: IN(at.w), h: IN(at.h), altText });
    };
    const img = (id: unknown) =>
      (typeof id === "number" ? s.images[String(id)] : undefined) as ResolvedImage | undefined;
    const label = (m: ResolvedImage | undefined) => (c.alt as string) ?? m?.alt ?? "Image";
    const heading = (h: G.Placed | null) => text(c.title, h, { size: 30, bold: true, font: head });

    switch (s.layout) {
      case "title":
      case "closing": {
        const g = G.coverSlide(c, s.layout === "closing");
        if (logo && mark?.kind === "image") {
          const at = G.containLeft(logo.width, logo.height, g.logo);
          slide.addImage({ data: logo.data, x: IN(at.x), y: IN(at.y), w: IN(at.w), h: IN(at.h), altText: mark.alt });
        } else if (mark?.kind === "text")
          text(mark.text.toUpperCase(), g.wordmark, { size: 14, bold: true, color: hex(mark.color, "#ffffff") });
        text(c.title, g.title, { size: 44, bold: true, font: head });
        text(c.subtitle, g.subtitle, { size: 22 });
        // The call to action is a link here (the PDF spells the address out).
        if (g.cta) text(c.ctaLabel, g.cta, { size: 18, bold: true, link: c.ctaUrl });
        const foot = s.layout === "title" ? [c.presenter, c.date] : [c.contactName, c.email, c.phone, c.website];
        text(foot.filter((x) => typeof x === "string" && x).join("  ·  "), g.foot, { size: 14 });
        break;
      }
      case "title_body": {
        const g = G.titleBody(c);
        heading(g.heading);
        text(c.body, g.body, { size: 18 });
        bullets(c.bullets, g.bullets, 18);
        break;
      }
      case "two_columns": {
        const two = G.twoColumns(c);
        heading(two.heading);
        for (const [k, g] of two.columns.entries()) {
          const col = [c.left, c.right][k];
          const pic = col?.image as C | undefined;
          if (g.picture) {
            const m = img(pic?.imageId);
            await picture(m, g.picture, (pic?.alt as string) ?? m?.alt ?? "Image");
          }
          text(col?.heading, g.heading, { size: 20, bold: true, color: primary, font: head });
          text(col?.body, g.body, { size: 16 });
          bullets(col?.bullets, g.bullets, 16);
        }
        break;
      }
      case "image": {
        const g = G.imageSlide(c);
        heading(g.heading);
        const m = img(c.imageId);
        await picture(m, g.picture, label(m));
        text(c.caption, g.caption, { size: 14, align: "center" });
        break;
      }
      case "image_text": {
        const g = G.imageText(c);
        heading(g.heading);
        const m = img(c.imageId);
        await picture(m, g.picture, label(m));
        text(c.body, g.body, { size: 18 });
        bullets(c.bullets, g.bullets, 18);
        break;
      }
      case "image_full": {
        const g = G.imageFull(c);
        const m = img(c.imageId);
        await picture(m, g.picture, label(m), "cover");
        if (g.scrim)
          slide.addShape("rect", {
            x: IN(g.scrim.x),
            y: IN(g.scrim.y),
            w: IN(g.scrim.w),
            h: IN(g.scrim.h),
            fill: { color: hex(scrim.color, "#111827"), transparency: Math.round((1 - scrim.opacity) * 100) },
            line: { type: "none" },
          });
        if (g.scrim) ink = hex(scrim.text, "#ffffff");
        text(c.title, g.title, { size: 34, bold: true, font: head });
        text(c.caption, g.caption, { size: 18 });
        break;
      }
      case "quote": {
        const m = img(c.imageId);
        const quote = typeof c.quote === "string" ? bareQuote(c.quote) : null;
        const g = G.quoteSlide(c, quote, !!m);
        if (g.portrait) await picture(m, g.portrait, (c.author as string) ?? "", "round");
        text("\u201C", { x: g.mark.x, y: g.mark.y, w: 80, h: 80 }, { size: 90, bold: true, color: accent });
        text(quote, g.quote, { size: 26, italic: true, font: head });
        text(c.author, g.author, { size: 18, bold: true });
        text(c.role, g.role, { size: 16 });
        break;
      }
      case "metrics": {
        const g = G.metricsSlide(c);
        heading(g.heading);
        for (const [k, m] of g.items.entries()) {
          const item = (c.metrics as C[])[k]!;
          text(String(item.value ?? ""), m.value, { size: 44, bold: true, color: primary, font: head });
          text(String(item.label ?? ""), m.label, { size: 16, bold: true });
          text(item.detail, m.detail, { size: 12 });
        }
        break;
      }
      case "timeline": {
        const g = G.timelineSlide(c);
        heading(g.heading);
        slide.addShape("line", {
          x: IN(g.line.x1),
          y: IN(g.line.y),
          w: IN(g.line.x2 - g.line.x1),
          h: 0,
          line: { color: primary, width: 1.5, transparency: 65 },
        });
        const size = g.steps.length > 5 ? 13 : 16;
        for (const [k, st] of g.steps.entries()) {
          const step = (c.steps as C[])[k]!;
          slide.addShape("ellipse", {
            x: IN(st.dot.cx - st.dot.r),
            y: IN(st.dot.cy - st.dot.r),
            w: IN(2 * st.dot.r),
            h: IN(2 * st.dot.r),
            fill: { color: primary },
            line: { type: "none" },
          });
          text(step.date, st.date, { size, bold: true, color: primary });
          text(step.label, st.label, { size, bold: true });
          text(step.detail, st.detail, { size: size - 3 });
        }
        break;
      }
      case "pricing": {
        const cur = typeof c.currency === "string" ? c.currency : "USD";
        const g = G.pricingSlide(c, (pl) => priceLine(pl, cur));
        heading(g.heading);
        for (const [k, pl] of g.plans.entries()) {
          const plan = (c.plans as C[])[k]!;
          const hl = plan.highlighted === true;
          slide.addShape("rect", {
            x: IN(pl.box.x),
            y: IN(pl.box.y),
            w: IN(pl.box.w),
            h: IN(pl.box.h),
            line: { color: hl ? primary : "D1D6DE", width: hl ? 2.25 : 0.75 },
          });
          text("RECOMMENDED", pl.badge, { size: 10, bold: true, color: primary });
          text(String(plan.name ?? ""), pl.name, { size: 18, bold: true, font: head });
          text(priceLine(plan, cur), pl.price, { size: 22, bold: true });
          text(plan.description, pl.description, { size: 12 });
          bullets(plan.features, pl.features, 12);
        }
        text(c.note, g.note, { size: 11 });
        break;
      }
      case "team": {
        const g = G.teamSlide(c);
        heading(g.heading);
        for (const [k, m] of g.members.entries()) {
          const person = (c.members as C[])[k]!;
          const pic = await load(img(person.imageId));
          if (pic) await picture(img(person.imageId), m.photo, "", "round");
          else
            slide.addText(initialsOf(person.name), {
              shape: "ellipse",
              x: IN(m.photo.x),
              y: IN(m.photo.y),
              w: IN(m.photo.w),
              h: IN(m.photo.h),
              fill: { color: primary },
              color: hex(t.onPrimary, "#ffffff"),
              fontFace: head,
              fontSize: FS(22),
              bold: true,
              align: "center",
              valign: "middle",
            });
          text(String(person.name ?? ""), m.name, { size: 14, bold: true, align: "center" });
          text(person.role, m.role, { size: 12, color: primary, align: "center" });
          text(person.bio, m.bio, { size: 10, align: "center" });
        }
        break;
      }
    }
    const n = G.pageNumber;
    slide.addText(String(i + 1), {
      x: IN(n.x),
      y: IN(n.y),
      w: IN(n.w),
      h: IN(n.h),
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
