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
 * two; a slide of only a quote is a quote slide; the rest are title_body,
 * unless its bullets say more (a heading and only such bullets):
 *
 *   - **48%** — repeat customers — after six months   ← metrics (1–6): a bold number, a label, a detail
 *   - Week 1: Workshop — your team and ours            ← timeline (3–8): a date, a colon or dash, a label
 *   - **Priya Shah**, Lead developer — Built the shop  ← team (1–8): a bold name, a role, a bio
 *   - ![Priya](media:12) **Priya Shah**, Lead developer   (a member's photo)
 *
 * A line `![alt](media:42)` puts a picture of the company's media library on
 * its slide: alone (under its heading) it is an image slide; beside a
 * paragraph or bullets, an image_text slide (picture left; `"right"` after
 * the id puts it right); `![alt](media:42 "full")` covers the slide
 * (image_full), its paragraph the caption. Pricing and two columns are
 * given as structured slides, or added afterwards with slides_add.
 */
import { invalid } from "../../core/errors";
import type { SlideInput } from "./access";
import { bareQuote } from "./layouts";

const HEADING = /^#{1,3}\s+(.+?)\s*#*\s*$/;
const BULLET = /^\s*(?:[-*•]|\d+[.)])\s+(.+)$/;
const QUOTE = /^>\s?(.*)$/;
/** A picture from the deck's company's media library: `![alt](media:42)`, `![alt](media:42 "full")`. */
const IMAGE = /^\s*!\[([^\]]*)\]\(media:(\d{1,15})(?:\s+"([^"]*)")?\)\s*$/;
/** `**48%** — repeat customers — after six months`: a bold value with a digit, a label, a detail. */
const METRIC = /^\*\*([^*]*\d[^*]*)\*\*\s*(?:[—–:-]+\s*)?(\S.*)$/;
const MONTH =
  "(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\\.?";
/** A date or a step of a plan at the start of a bullet, then a colon or a dash: `2026-03:`, `March 2026 —`, `Q3:`, `Week 1–2:`. */
const DATED = new RegExp(
  `^((?:\\d{4}-\\d{2}(?:-\\d{2})?|(?:q[1-4]|h[12])(?:\\s+\\d{4})?|(?:weeks?|days?|months?|sprints?)\\s+\\d{1,3}(?:\\s*[–-]\\s*\\d{1,3})?|${MONTH}(?:\\s+\\d{1,2})?(?:,?\\s+\\d{4})?|\\d{1,2}\\s+${MONTH}(?:\\s+\\d{4})?|\\d{4}))(?:\\s*:|\\s+(?:—|–|-{1,2}))\\s+(\\S.*)$`,
  "i",
);
/** `**Priya Shah**, Lead developer — bio`, optionally after a photo `![alt](media:12)`. */
const MEMBER =
  /^(?:!\[([^\]]*)\]\(media:(\d{1,15})\)\s*)?\*\*([^*\d]{1,100})\*\*(?:\s*,\s*(.+?))?(?:\s+(?:—|–|--)\s+(.+))?$/;
/** " — " between a label and its detail (or a role and a bio). */
const DASH = /\s+(?:—|–|--)\s+/;
const RULE = /^\s*(?:-{3,}|\*{3,}|_{3,})\s*$/;

function clip(s: string, n: number) {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

/** "label — detail" → [label, detail]: the first dash splits. */
function split(s: string): [string, string | null] {
  const m = DASH.exec(s);
  return m ? [s.slice(0, m.index).trim(), s.slice(m.index + m[0].length).trim() || null] : [s.trim(), null];
}

/**
 * Bullets that are all metrics (1–6), all dated steps (3–8) or all team
 * members (1–8, each with a role or a photo) make that slide; anything
 * else stays bullets.
 */
function richSlide(bullets: string[]): Pick<SlideInput, "layout" | "content"> | null {
  if (!bullets.length) return null;
  const metrics = bullets.map((b) => METRIC.exec(b));
  if (bullets.length <= 6 && metrics.every((m) => m && m[1]!.trim().length <= 24))
    return {
      layout: "metrics",
      content: {
        metrics: metrics.map((m) => {
          const [label, detail] = split(m![2]!);
          return { value: m![1]!.trim(), label: clip(label, 80), ...(detail ? { detail: clip(detail, 160) } : {}) };
        }),
      },
    };
  const dated = bullets.map((b) => DATED.exec(b));
  if (bullets.length >= 3 && bullets.length <= 8 && dated.every((m) => m && m[1]!.length <= 40))
    return {
      layout: "timeline",
      content: {
        steps: dated.map((m) => {
          const [label, detail] = split(m![2]!);
          return { date: m![1]!, label: clip(label, 80), ...(detail ? { detail: clip(detail, 160) } : {}) };
        }),
      },
    };
  const members = bullets.map((b) => MEMBER.exec(b));
  if (bullets.length <= 8 && members.every((m) => m && (m[2] !== undefined || m[4] !== undefined)))
    return {
      layout: "team",
      content: {
        members: members.map((m) => ({
          name: clip(m![3]!.trim(), 100),
          ...(m![4] ? { role: clip(m![4].trim(), 100) } : {}),
          ...(m![5] ? { bio: clip(m![5].trim(), 300) } : {}),
          ...(m![2] !== undefined ? { imageId: Number(m![2]) } : {}),
        })),
      },
    };
  return null;
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
    let place: "full" | "right" | null = null;
    for (const l of lines) {
      const pic = IMAGE.exec(l);
      if (pic) {
        if (image)
          throw invalid(`outline: a slide takes one picture (![alt](media:id)); "${clip(l.trim(), 60)}" is a second.`);
        image = { imageId: Number(pic[2]), ...(pic[1]!.trim() ? { alt: clip(pic[1]!.trim(), 300) } : {}) };
        if (pic[3] !== undefined) {
          const opt = pic[3].trim().toLowerCase();
          if (opt !== "full" && opt !== "right")
            throw invalid(
              `outline: "${clip(l.trim(), 60)}": after the media id comes "full" (the picture covers the slide) or "right" (beside text, on the right), not ${JSON.stringify(clip(pic[3], 20))}.`,
            );
          place = opt;
        }
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
      if (place === "full") {
        // A full-bleed picture: its heading and paragraph go on the scrim.
        if (bullets.length)
          throw invalid(
            `outline: a full-bleed picture (media:${image.imageId} "full") takes a heading and a caption paragraph, not bullets.`,
          );
        slides.push({
          layout: "image_full",
          content: { ...head, ...image, ...(body ? { caption: clip(body, 300) } : {}) },
        });
        continue;
      }
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
                ...(place === "right" ? { side: "right" } : {}),
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
    // A heading and only bullets of one kind: metrics, a timeline or a team.
    const rich = !text.length && !quote.length ? richSlide(bullets) : null;
    if (rich) {
      slides.push({
        layout: rich.layout,
        content: { ...(title === null ? {} : { title: clip(title, 160) }), ...rich.content },
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
