/**
 * A deck from a plain-text outline (decks_create's `outline`), for agents
 * that think in Markdown, like Gamma's "one card per section":
 *
 *   ## A new shop for Harbor Coffee      ← a heading starts a slide
 *   Proposal by Northwind, May 2026
 *   ---                                   ← so does a line of dashes
 *   ## What we heard
 *   - Checkout is slow on phones         ← bullets
 *   > Our orders doubled. — Maya Chen, Owner   ← a quote slide
 *
 * A quote may be typed with its quotation marks (> "…" — Ana) or without:
 * the slide shows one pair either way.
 *
 * The first slide is a title slide when it is only a heading and a line or
 * two; a slide of only a quote is a quote slide; the rest are title_body.
 * A line `![alt](media:42)` puts a picture of the company's media library on
 * its slide: alone (under its heading) it is an image slide; beside a
 * paragraph or bullets, an image_text slide (picture left).
 * Anything richer (metrics, pricing, team) is given as structured
 * slides instead, or added afterwards with slides_add.
 */
import { invalid } from "../../core/errors";
import type { SlideInput } from "./access";
import { bareQuote } from "./layouts";

const HEADING = /^#{1,3}\s+(.+?)\s*#*\s*$/;
const BULLET = /^\s*(?:[-*•]|\d+[.)])\s+(.+)$/;
const QUOTE = /^>\s?(.*)$/;
/** A picture from the deck's company's media library: `![alt](media:42)`. */
const IMAGE = /^\s*!\[([^\]]*)\]\(media:(\d{1,15})\)\s*$/;
const RULE = /^\s*(?:-{3,}|\*{3,}|_{3,})\s*$/;

function clip(s: string, n: number) {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

export function slidesFromOutline(outline: string): SlideInput[] {
  const chunks: string[][] = [[]];
  for (const raw of outline.split(/\r?\n/)) {
    const line = raw.replace(/\s+$/, "");
    if (RULE.test(line)) {
      chunks.push([]);
      continue;
    }
    if (HEADING.test(line) && chunks[chunks.length - 1]!.some((l) => l.trim() !== "")) chunks.push([]);
    chunks[chunks.length - 1]!.push(line);
  }
  const slides: SlideInput[] = [];
  for (const lines of chunks) {
    if (!lines.some((l) => l.trim())) continue;
    let title: string | null = null;
    const bullets: string[] = [];
    const quote: string[] = [];
    const paras: string[][] = [[]];
    let image: { imageId: number; alt?: string } | null = null;
    for (const l of lines) {
      const pic = IMAGE.exec(l);
      if (pic) {
        if (image)
          throw invalid(`outline: a slide takes one picture (![alt](media:id)); "${clip(l.trim(), 60)}" is a second.`);
        image = { imageId: Number(pic[2]), ...(pic[1]!.trim() ? { alt: clip(pic[1]!.trim(), 300) } : {}) };
        continue;
      }
      const h = HEADING.exec(l);
      const b = BULLET.exec(l);
      const q = QUOTE.exec(l);
      if (h && title === null) title = h[1]!;
      else if (b) bullets.push(b[1]!.trim());
      else if (q) quote.push(q[1]!);
      else if (l.trim() === "") paras.push([]);
      else paras[paras.length - 1]!.push(l.trim());
    }
    const text = paras.filter((p) => p.length).map((p) => p.join("\n"));
    if (image) {
      // A picture alone (under its heading) fills the slide; with text it takes half.
      const head = title === null ? {} : { title: clip(title, 160) };
      const body = [...text, ...(quote.length ? [quote.join("\n")] : [])].join("\n\n");
      if (bullets.length > 8)
        throw invalid(`outline: a slide takes at most 8 bullets (this one has ${bullets.length}).`);
      slides.push(
        body || bullets.length
          ? {
              layout: "image_text",
              content: {
                ...head,
                ...image,
                ...(body ? { body: clip(body, 800) } : {}),
                ...(bullets.length ? { bullets: bullets.map((x) => clip(x, 200)) } : {}),
              },
            }
          : { layout: "image", content: { ...head, ...image } },
      );
      continue;
    }
    if (quote.length && !bullets.length && !text.length) {
      // "> The quote. — Author, Role"
      const all = quote.join("\n").trim();
      const m = /^([\s\S]+?)\s+(?:—|--|–)\s*([^,\n]+)(?:,\s*(.+))?$/.exec(all);
      slides.push({
        layout: "quote",
        content: m
          ? {
              quote: clip(bareQuote(m[1]!), 600),
              author: clip(m[2]!.trim(), 120),
              ...(m[3] ? { role: clip(m[3].trim(), 120) } : {}),
            }
          : { quote: clip(bareQuote(all), 600) },
      });
      continue;
    }
    if (title === null)
      title = text.length ? text.shift()!.split("\n")[0]! : (bullets.shift() ?? quote.shift() ?? "Untitled");
    const body = [...text, ...(quote.length ? [quote.join("\n")] : [])].join("\n\n");
    if (slides.length === 0 && !bullets.length && text.length <= 1 && body.length <= 300) {
      slides.push({ layout: "title", content: { title: clip(title, 160), ...(body ? { subtitle: body } : {}) } });
      continue;
    }
    if (bullets.length > 8)
      throw invalid(
        `outline: the slide "${clip(title, 60)}" has ${bullets.length} bullets; a slide takes at most 8 (split it with a new heading).`,
      );
    slides.push({
      layout: "title_body",
      content: {
        title: clip(title, 160),
        ...(body ? { body: clip(body, 1500) } : {}),
        ...(bullets.length ? { bullets: bullets.map((x) => clip(x, 200)) } : {}),
      },
    });
  }
  if (slides.length === 0)
    throw invalid("outline has no slides: start each slide with a ## heading or separate them with ---.");
  return slides;
}
