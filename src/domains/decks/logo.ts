/**
 * The brand mark on a deck's title and closing slides, decided once for
 * every renderer (web page, PDF, PowerPoint), so a slide shows the same
 * mark wherever it is opened, and a mark that reads on its background.
 *
 * A brand's logo is often drawn for a light page: a navy wordmark on a
 * transparent background vanishes on a navy title slide. So the logo
 * variants of the brand profile (logoUrl, logoRectUrl, logoSquareUrl,
 * logoIconUrl) are measured: the average colour of a PNG's visible pixels is
 * its ink, and a variant is used only when that ink reaches 3:1 (WCAG's
 * contrast for graphics, computed by branding's contrast code) against the
 * slide's background. A JPEG, or a PNG without transparency, brings its own
 * background and always reads. SVG cannot go into the PDF (pdf-lib draws
 * PNG and JPEG only) and media registered by URL is never fetched, so
 * neither is used as a slide logo: when no variant qualifies, the brand's
 * name is set as a text wordmark in the colour that reads best.
 */
import { decode as decodePng } from "fast-png";
import type { Deps } from "../../core/context";
import { bodyBytes } from "../../core/blobs";
import { safeUrl } from "../blocks/urls";
import { contrastRatio, HEX_RE } from "../branding/contrast";
import type { DeckTheme } from "./layouts";

/** WCAG 1.4.11: graphics need 3:1 against what is next to them. */
export const LOGO_MIN_CONTRAST = 3;

export type LogoMark =
  | { kind: "image"; url: string; alt: string; mimeType: "image/png" | "image/jpeg"; storageKey: string }
  | { kind: "text"; text: string; color: string };

type Logo = NonNullable<DeckTheme["logo"]>;

/** Where logos sit: the title and closing slides, in the brand colour. */
export function logoBackground(t: DeckTheme): string {
  return HEX_RE.test(t.primary) ? t.primary : "#2563eb";
}

/** A logo the renderers can all draw and that reads on `background` (ink unknown: measured before this check existed, trusted). */
export function logoReads(l: Logo, background: string): boolean {
  if (!l.storageKey || (l.mimeType !== "image/png" && l.mimeType !== "image/jpeg") || !safeUrl(l.url)) return false;
  if (l.ink === undefined || l.ink === null) return true;
  return HEX_RE.test(l.ink) && contrastRatio(l.ink, background) >= LOGO_MIN_CONTRAST;
}

/** The one decision: the theme's logo when it reads on its slide, else the name in the most legible of the theme's ink, white and near-black. */
export function logoMark(t: DeckTheme): LogoMark | null {
  const bg = logoBackground(t);
  const l = t.logo;
  if (l && logoReads(l, bg))
    return {
      kind: "image",
      url: safeUrl(l.url)!,
      alt: l.alt,
      mimeType: l.mimeType as "image/png" | "image/jpeg",
      storageKey: l.storageKey!,
    };
  const text = (t.name || l?.alt || "").trim();
  if (!text) return null;
  const inks = [t.onPrimary, "#ffffff", "#111827"].filter((c) => HEX_RE.test(c));
  const color =
    inks.find((c) => contrastRatio(c, bg) >= 4.5) ??
    inks.sort((a, b) => contrastRatio(b, bg) - contrastRatio(a, bg))[0]!;
  return { kind: "text", text: text.slice(0, 100), color };
}

const hex2 = (n: number) =>
  Math.round(Math.max(0, Math.min(255, n)))
    .toString(16)
    .padStart(2, "0");

/**
 * A PNG's ink: the average colour of its visible pixels when at least a
 * tenth of it is transparent (a mark drawn on nothing), null when it is
 * opaque (it brings its own background), undefined when it cannot be read.
 * At most about 65,000 pixels are sampled.
 */
export function pngInk(bytes: Uint8Array): string | null | undefined {
  try {
    const d = decodePng(bytes);
    const px = d.width * d.height;
    if (!px) return undefined;
    const shift = d.depth === 16 ? 8 : 0;
    let rgba: (p: number) => [number, number, number, number];
    if (d.palette) {
      if (d.depth !== 8) return undefined;
      const pal = d.palette;
      const alpha = d.transparency;
      rgba = (p) => {
        const k = d.data[p]!;
        const c = pal[k] ?? [0, 0, 0];
        return [c[0]!, c[1]!, c[2]!, c.length > 3 ? c[3]! : alpha && k < alpha.length ? alpha[k]! : 255];
      };
    } else {
      if (d.depth < 8) return undefined;
      const ch = d.channels;
      const v = (i: number) => (d.data[i]! >> shift) & 0xff;
      rgba = (p) => {
        const i = p * ch;
        return ch <= 2
          ? [v(i), v(i), v(i), ch === 2 ? v(i + 1) : 255]
          : [v(i), v(i + 1), v(i + 2), ch === 4 ? v(i + 3) : 255];
      };
    }
    const step = Math.max(1, Math.floor(px / 65_536));
    let seen = 0;
    let clear = 0;
    let r = 0;
    let g = 0;
    let b = 0;
    let w = 0;
    for (let p = 0; p < px; p += step) {
      const [pr, pg, pb, pa] = rgba(p);
      seen++;
      if (pa < 128) {
        clear++;
        continue;
      }
      r += pr * pa;
      g += pg * pa;
      b += pb * pa;
      w += pa;
    }
    if (clear < seen / 10) return null;
    if (!w) return undefined;
    return `#${hex2(r / w)}${hex2(g / w)}${hex2(b / w)}`;
  } catch {
    return undefined;
  }
}

/** The ink of a stored logo file: JPEG is opaque; PNG is measured; anything else has none the renderers can use. */
export async function logoInk(
  deps: Deps,
  m: { mimeType: string; storageKey: string | null },
): Promise<string | null | undefined> {
  if (!m.storageKey) return undefined;
  if (m.mimeType === "image/jpeg") return null;
  if (m.mimeType !== "image/png") return undefined;
  const body = await deps.blobs.read(m.storageKey).catch(() => null);
  if (!body) return undefined;
  return pngInk(await bodyBytes(body));
}
