/**
 * Where everything on a slide goes in the PDF and the PowerPoint file, for
 * both: one module, so a slide sits in the same places in the two files
 * (the PDF used to flow its text while the .pptx guessed fixed boxes, and
 * the two drifted apart whenever one was changed).
 *
 * The grid is a 960×540-point page (pdf.ts draws on it as is; pptx.ts
 * scales it to PowerPoint's 10×5.625 inches). Text is measured with the
 * metrics of the PDF's standard fonts (Helvetica), wrapped the way the PDF
 * draws it, so a box is as tall as its lines: the PDF draws the lines in
 * the box, PowerPoint gets a text box of that size (and shrinks the text if
 * the viewer's font runs wider). The web page lays out the same slide with
 * CSS grid (render.ts) in the same proportions: halves 5% apart, the same
 * columns per count, the scrim at the foot.
 */
import { StandardFontEmbedder, StandardFonts } from "pdf-lib";

export const W = 960;
export const H = 540;
/** Side margin, heading top, the gap between two halves (5% of the width), the bottom margin. */
export const MX = 64;
export const TOP = 56;
export const GUTTER = 48;
export const FOOT = 40;
export const WIDTH = W - 2 * MX;
/** Line height as a multiple of the type size, everywhere. */
export const LEADING = 1.28;

export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

export type Face = "regular" | "bold" | "italic";

/** What measures text: the PDF's embedded fonts and the standard font metrics alike. */
export interface Measurer {
  widthOfTextAtSize(text: string, size: number): number;
}

type FontName = Parameters<typeof StandardFontEmbedder.for>[0];
const metrics: Record<Face, StandardFontEmbedder> = {
  regular: StandardFontEmbedder.for(StandardFonts.Helvetica as unknown as FontName),
  bold: StandardFontEmbedder.for(StandardFonts.HelveticaBold as unknown as FontName),
  italic: StandardFontEmbedder.for(StandardFonts.HelveticaOblique as unknown as FontName),
};

const CHARSET = new Set(metrics.regular.encoding.supportedCodePoints);
const LOOKALIKE: Record<string, string> = {
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

/** Text the standard fonts can show: common look-alikes mapped, accents kept where the font has them, the rest "?". */
export function encodable(s: string): string {
  let out = "";
  for (const ch of s.replace(/\r/g, "")) {
    const cp = ch.codePointAt(0)!;
    if (ch === "\n" || CHARSET.has(cp)) out += ch;
    else if (LOOKALIKE[ch] !== undefined) out += LOOKALIKE[ch];
    else {
      const base = ch.normalize("NFKD").replace(/[\u0300-\u036f]/g, "");
      out += [...base].every((c) => CHARSET.has(c.codePointAt(0)!)) && base ? base : "?";
    }
  }
  return out;
}

/** Lines of at most `width` points; long words are broken. */
export function wrap(text: string, font: Measurer, size: number, width: number): string[] {
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

/** A text's lines as the PDF sets them, at most as many as fit above `bottom` from `y`. */
export function linesOf(s: string, face: Face, size: number, width: number): string[] {
  return wrap(encodable(s), metrics[face], size, width);
}

const isText = (x: unknown): x is string => typeof x === "string" && x.trim() !== "";

/** One text placed: its box (as tall as the lines that fit) and those lines. */
export interface Placed extends Box {
  lines: string[];
  /** More text than fits: the last line ends with "…" in the PDF. */
  cut: boolean;
}

export interface TextPiece {
  text: unknown;
  size: number;
  face?: Face;
  /** Space after, in points. */
  gap?: number;
}

/**
 * A text at (x, y), wrapped to `width`, its lines stopping at `bottom`; null
 * when there is no text. `next` is where the following text starts.
 */
export function place(p: TextPiece, x: number, y: number, width: number, bottom: number): Placed | null {
  if (!isText(p.text)) return null;
  const lh = p.size * LEADING;
  const all = linesOf(p.text, p.face ?? "regular", p.size, width);
  const fit = Math.max(0, Math.min(all.length, Math.floor((bottom - y) / lh + 1e-9)));
  const lines = all.slice(0, fit);
  const cut = fit < all.length;
  if (cut && lines.length) lines[lines.length - 1] = `${lines[lines.length - 1]!.replace(/\s*\S*$/, "")}…`;
  return { x, y, w: width, h: lines.length * lh, lines, cut };
}

/** Where the next text starts after a placed one (or at y when there was none). */
export function after(p: Placed | null, y: number, gap = 0): number {
  return p ? p.y + p.h + gap : y;
}

export interface PlacedBullets extends Box {
  items: Placed[];
  /** The indent of the text after the bullet sign. */
  indent: number;
}

/** Bullets (strings) one under the other, each wrapped after its sign; null when there are none. */
export function placeBullets(
  items: unknown,
  x: number,
  y: number,
  width: number,
  bottom: number,
  size: number,
): PlacedBullets | null {
  if (!Array.isArray(items)) return null;
  const indent = size * 1.1;
  const out: Placed[] = [];
  let at = y;
  for (const it of items) {
    const p = place({ text: it, size }, x + indent, at, width - indent, bottom);
    if (!p || !p.lines.length) continue;
    out.push(p);
    at = after(p, at, size * 0.35);
  }
  return out.length ? { x, y, w: width, h: at - y, items: out, indent } : null;
}

/** Text pieces stacked from (x, y): each one's placement (null when empty), in order. */
export function stack(pieces: TextPiece[], x: number, y: number, width: number, bottom: number): (Placed | null)[] {
  let at = y;
  return pieces.map((p) => {
    const r = place(p, x, at, width, bottom);
    at = after(r, at, p.gap ?? 0);
    return r;
  });
}

/** A slide's heading (30 pt bold, up to three lines) and where the content below it starts. */
export function heading(title: unknown): { title: Placed | null; next: number } {
  const t = place({ text: title, size: 30, face: "bold" }, MX, TOP, WIDTH, 200);
  return { title: t, next: after(t, TOP, 18) };
}

/** Two halves of the content width 5% apart, from y to the foot. */
export function halves(y: number): [Box, Box] {
  const w = (WIDTH - GUTTER) / 2;
  return [
    { x: MX, y, w, h: H - y - FOOT },
    { x: MX + w + GUTTER, y, w, h: H - y - FOOT },
  ];
}

/** A picture of `iw`×`ih` fitted whole into a box (letterboxed, centred). */
export function contain(iw: number, ih: number, b: Box): Box {
  const k = Math.min(b.w / iw, b.h / ih);
  return { x: b.x + (b.w - iw * k) / 2, y: b.y + (b.h - ih * k) / 2, w: iw * k, h: ih * k };
}

/** A logo fitted into its box, against the box's left edge (as on the web page). */
export function containLeft(iw: number, ih: number, b: Box): Box {
  return { ...contain(iw, ih, b), x: b.x };
}

/** A picture of `iw`×`ih` scaled to cover a box (centred; what falls outside is cropped). */
export function cover(iw: number, ih: number, b: Box): Box {
  const k = Math.max(b.w / iw, b.h / ih);
  return { x: b.x + (b.w - iw * k) / 2, y: b.y + (b.h - ih * k) / 2, w: iw * k, h: ih * k };
}

/** How far to move a block spanning top..bottom down so it sits in the middle of areaTop..areaBottom (never up). */
export function centring(top: number, bottom: number, areaTop: number, areaBottom: number): number {
  return Math.max(0, (areaBottom - areaTop - (bottom - top)) / 2 + areaTop - top);
}

/** A box (or a placed text) moved down by dy. */
export function down<T extends Box | null>(b: T, dy: number): T {
  return b && dy ? { ...b, y: b.y + dy } : b;
}

const bottomOf = (boxes: (Box | null)[]) => Math.max(...boxes.map((b) => (b ? b.y + b.h : 0)));

/** Columns for n items in a grid: as the web page's .dk-n<count> classes (1–3 in a row, 4 as 2×2, 5–6 in threes). */
export function gridCols(n: number, max = 3): number {
  return n <= max ? n : n === 4 ? 2 : max;
}

/** n cells from y down, `cols` to a row, `gap` apart; rows `rowH` tall. */
export function cells(n: number, cols: number, y: number, gap: number, rowH: number): Box[] {
  const c = Math.max(1, cols);
  const w = (WIDTH - (c - 1) * gap) / c;
  return Array.from({ length: n }, (_, k) => ({
    x: MX + (k % c) * (w + gap),
    y: y + Math.floor(k / c) * rowH,
    w,
    h: rowH,
  }));
}

/** The title and closing slides: logo or wordmark at the top, title, subtitle (and the closing's call to action), a foot line. */
export function coverSlide(c: Record<string, unknown>, closing: boolean) {
  const title = place({ text: c.title, size: 44, face: "bold" }, MX, 190, WIDTH, 420);
  const subtitle = place({ text: c.subtitle, size: 22 }, MX, after(title, 190, 12), WIDTH, 450);
  const cta =
    closing && isText(c.ctaLabel) && isText(c.ctaUrl)
      ? place(
          { text: `${c.ctaLabel}: ${c.ctaUrl}`, size: 18, face: "bold" },
          MX,
          after(subtitle, after(title, 190, 12), 12) + 8,
          WIDTH,
          480,
        )
      : null;
  return {
    logo: { x: MX, y: 36, w: 200, h: 44 },
    wordmark: { x: MX, y: 44, w: 400, h: 24 },
    title,
    subtitle,
    cta,
    foot: { x: MX, y: H - 60, w: WIDTH, h: 24 },
  };
}

/** title_body: the heading, the paragraph, the bullets under it. */
export function titleBody(c: Record<string, unknown>) {
  const h = heading(c.title);
  const body = place({ text: c.body, size: 18 }, MX, h.next, WIDTH, H - 30);
  const bullets = placeBullets(c.bullets, MX, after(body, h.next, 10), WIDTH, H - 30, 18);
  return { heading: h.title, body, bullets };
}

/** A text column (two_columns' halves, image_text's text half): heading, paragraph, bullets. */
export function column(
  c: { heading?: unknown; body?: unknown; bullets?: unknown } | undefined,
  b: Box,
  sizes: { heading: number; body: number; gap: number },
) {
  const head = place({ text: c?.heading, size: sizes.heading, face: "bold" }, b.x, b.y, b.w, H - 30);
  const y1 = after(head, b.y, 8);
  const body = place({ text: c?.body, size: sizes.body }, b.x, y1, b.w, H - 30);
  const bullets = placeBullets(c?.bullets, b.x, after(body, y1, sizes.gap), b.w, H - 30, sizes.body);
  return { heading: head, body, bullets };
}

/** Height of a two_columns picture above its column's text (the web page's .dk-colimg: 18.3% of the width). */
export const COLUMN_PICTURE = 176;
/** The space between a column's picture and its text (the web page's 1.5cqw). */
export const COLUMN_PICTURE_GAP = 14;

/**
 * two_columns: the heading, then each half's picture (when it has one) at
 * its top, fitted whole, and its heading, paragraph and bullets under it; a
 * half with a picture and no text gives the picture the whole half.
 */
export function twoColumns(c: Record<string, unknown>) {
  const h = heading(c.title);
  const columns = halves(h.next).map((b, k) => {
    const col = [c.left, c.right][k] as { heading?: unknown; body?: unknown; bullets?: unknown; image?: unknown };
    const hasText =
      isText(col?.heading) || isText(col?.body) || (Array.isArray(col?.bullets) && col.bullets.some(isText));
    const picture = col?.image ? { x: b.x, y: b.y, w: b.w, h: hasText ? COLUMN_PICTURE : b.h } : null;
    const top = picture ? picture.y + picture.h + COLUMN_PICTURE_GAP : b.y;
    return { picture, ...column(col, { ...b, y: top, h: b.y + b.h - top }, { heading: 20, body: 16, gap: 8 }) };
  });
  return { heading: h.title, columns };
}

/** image: the picture under the heading, the caption under it. */
export function imageSlide(c: Record<string, unknown>) {
  const h = heading(c.title);
  const cap = isText(c.caption) ? 40 : 0;
  return {
    heading: h.title,
    picture: { x: MX, y: h.next, w: WIDTH, h: H - h.next - FOOT - cap },
    caption: cap ? place({ text: c.caption, size: 14 }, MX, H - FOOT - cap + 8, WIDTH, H - 10) : null,
  };
}

/** image_text: the picture in one half, the text in the other (left by default). */
export function imageText(c: Record<string, unknown>) {
  const h = heading(c.title);
  const [left, right] = halves(h.next);
  const picture = c.side === "right" ? right : left;
  const text = column(c as never, c.side === "right" ? left : right, { heading: 18, body: 18, gap: 10 });
  return { heading: h.title, picture, body: text.body, bullets: text.bullets };
}

/**
 * image_full: the picture covers the page; the title and caption sit on a
 * scrim across the foot of the slide, as tall as they need, so their
 * contrast holds whatever the picture is (theme.ts's scrimFor).
 */
export function imageFull(c: Record<string, unknown>) {
  const pad = 28;
  const width = WIDTH - 40;
  const title = place({ text: c.title, size: 34, face: "bold" }, MX, 0, width, 170);
  const caption = place({ text: c.caption, size: 18 }, MX, after(title, 0, 8), width, 260);
  const last = caption ?? title;
  const bandH = last ? last.y + last.h + 2 * pad : 0;
  const top = H - bandH;
  const shift = (p: Placed | null) => (p ? { ...p, y: p.y + top + pad } : null);
  return {
    picture: { x: 0, y: 0, w: W, h: H },
    scrim: last ? { x: 0, y: top, w: W, h: bandH } : null,
    title: shift(title),
    caption: shift(caption),
  };
}

/** quote: the portrait (when there is one) left, the mark, the quote, who said it. */
export function quoteSlide(c: Record<string, unknown>, quote: string | null, portrait: boolean) {
  const x = portrait ? MX + 190 : MX;
  const [q, author, role] = stack(
    [
      { text: quote, size: 26, face: "italic", gap: 16 },
      { text: c.author, size: 18, face: "bold", gap: 2 },
      { text: c.role, size: 16 },
    ],
    x,
    150,
    W - x - MX,
    440,
  );
  return { portrait: portrait ? { x: MX, y: 150, w: 160, h: 160 } : null, mark: { x, y: 90 }, quote: q, author, role };
}

/** metrics: 1–6 numbers in the web page's grid, centred under the heading; value, label and detail stacked in each cell. */
export function metricsSlide(c: Record<string, unknown>) {
  const items = (Array.isArray(c.metrics) ? c.metrics : []) as Record<string, unknown>[];
  const h = heading(c.title);
  const cols = gridCols(items.length);
  const grid = cells(items.length, cols, h.next + 20, 32, items.length > cols ? 150 : 200);
  const placed = items.map((m, k) => {
    const b = grid[k]!;
    const [value, label, detail] = stack(
      [
        { text: String(m.value ?? ""), size: 44, face: "bold", gap: 4 },
        { text: String(m.label ?? ""), size: 16, face: "bold", gap: 2 },
        { text: m.detail, size: 12 },
      ],
      b.x,
      b.y,
      b.w,
      H - 30,
    );
    return { value, label, detail };
  });
  const dy = centring(h.next + 20, bottomOf(placed.flatMap((m) => [m.value, m.label, m.detail])), h.next, H - FOOT);
  return {
    heading: h.title,
    items: placed.map((m) => ({ value: down(m.value, dy), label: down(m.label, dy), detail: down(m.detail, dy) })),
  };
}

/** pricing: one bordered box per plan; badge, name, price, description and features stacked inside. */
export function pricingSlide(c: Record<string, unknown>, priceText: (plan: Record<string, unknown>) => string) {
  const plans = (Array.isArray(c.plans) ? c.plans : []) as Record<string, unknown>[];
  const h = heading(c.title);
  const boxH = H - h.next - (isText(c.note) ? 70 : 40);
  const boxes = cells(plans.length, plans.length, h.next, 24, boxH);
  return {
    heading: h.title,
    plans: plans.map((pl, k) => {
      const b = boxes[k]!;
      const x = b.x + 16;
      const w = b.w - 32;
      const bottom = b.y + boxH - 10;
      const [badge, name, price, description] = stack(
        [
          { text: pl.highlighted === true ? "RECOMMENDED" : null, size: 10, face: "bold", gap: 4 },
          { text: String(pl.name ?? ""), size: 18, face: "bold", gap: 4 },
          { text: priceText(pl), size: 22, face: "bold", gap: 6 },
          { text: pl.description, size: 12, gap: 6 },
        ],
        x,
        b.y + 16,
        w,
        bottom,
      );
      const y = after(description, after(price, after(name, after(badge, b.y + 16, 4), 4), 6), 6);
      return { box: b, badge, name, price, description, features: placeBullets(pl.features, x, y, w, bottom, 12) };
    }),
    note: place({ text: c.note, size: 11 }, MX, H - 56, WIDTH, H - 30),
  };
}

/** team: up to 4 to a row; the photo (or initials) then name, role and bio, centred. */
export function teamSlide(c: Record<string, unknown>) {
  const people = (Array.isArray(c.members) ? c.members : []) as Record<string, unknown>[];
  const h = heading(c.title);
  const cols = Math.min(4, people.length);
  const rows = Math.ceil(people.length / Math.max(1, cols));
  const face = rows > 1 ? 56 : 96;
  const rowH = (H - h.next - 30) / Math.max(1, rows);
  const grid = cells(people.length, cols, h.next, 24, rowH);
  const placed = people.map((m, k) => {
    const b = grid[k]!;
    const [name, role, bio] = stack(
      [
        { text: String(m.name ?? ""), size: 14, face: "bold", gap: 2 },
        { text: m.role, size: 12, gap: 2 },
        { text: m.bio, size: 10 },
      ],
      b.x,
      b.y + face + 10,
      b.w,
      b.y + rowH,
    );
    return { photo: { x: b.x + (b.w - face) / 2, y: b.y, w: face, h: face }, name, role, bio };
  });
  // One row sits in the middle of the space, as the web page's grid does.
  const dy =
    rows === 1
      ? centring(h.next, bottomOf(placed.flatMap((m) => [m.photo, m.name, m.role, m.bio])), h.next, H - FOOT)
      : 0;
  return {
    heading: h.title,
    face,
    members: placed.map((m) => ({
      photo: down(m.photo, dy),
      name: down(m.name, dy),
      role: down(m.role, dy),
      bio: down(m.bio, dy),
    })),
  };
}

/**
 * timeline: a line across the slide with a dot per step, left to right in
 * the order given; each step's date above the line (its last line just
 * above it), its label and detail under it, in equal columns (as the web
 * page's grid); the whole block centred in the space under the heading.
 */
export function timelineSlide(c: Record<string, unknown>) {
  const steps = (Array.isArray(c.steps) ? c.steps : []) as Record<string, unknown>[];
  const h = heading(c.title);
  const gap = 20;
  const n = Math.max(1, steps.length);
  const w = (WIDTH - (n - 1) * gap) / n;
  const size = n > 5 ? 13 : 16;
  const top = h.next + 10;
  const dates = steps.map((s, k) =>
    place({ text: s.date, size, face: "bold" }, MX + k * (w + gap), top, w, top + 3 * size * LEADING),
  );
  const lineY = top + Math.max(size * LEADING, ...dates.map((d) => d?.h ?? 0)) + 12;
  const below = steps.map((s, k) =>
    stack(
      [
        { text: s.label, size, face: "bold", gap: 4 },
        { text: s.detail, size: size - 3 },
      ],
      MX + k * (w + gap),
      lineY + 20,
      w,
      H - FOOT,
    ),
  );
  const bottom = Math.max(lineY + 20, ...below.flat().map((p) => (p ? p.y + p.h : 0)));
  const dy = centring(top, bottom, h.next, H - FOOT);
  const line = lineY + dy;
  return {
    heading: h.title,
    line: { x1: MX, x2: W - MX, y: line },
    steps: steps.map((_, k) => {
      const d = dates[k] ?? null;
      return {
        dot: { cx: MX + k * (w + gap) + 7, cy: line, r: 7 },
        // Dates end just above the line, whatever their number of lines.
        date: d ? { ...d, y: line - 12 - d.h } : null,
        label: down(below[k]![0]!, dy),
        detail: down(below[k]![1]!, dy),
      };
    }),
  };
}

/** The slide number, bottom right. */
export const pageNumber = { x: W - 60, y: H - 34, w: 40, h: 16 };
