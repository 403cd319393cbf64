/**
 * A deck's theme, from the brand profile of its site (the branding
 * domain's public read and contrast maths, imported, not restated): colours,
 * fonts, corner radius and logo. Only values matching strict patterns get
 * through, since they end up in a style attribute; text colours are moved
 * to the nearest shade that reads (WCAG AA) when the brand's pair does not.
 *
 * A version freezes the theme it was approved with: a later brand change
 * reaches the audience when the deck is published again, not silently.
 */
import type { Deps } from "../../core/context";
import { safeUrl } from "../blocks/urls";
import { BRANDING_DEFAULTS } from "../branding/profiles";
import { contrastRatio, HEX_RE, nearestPassing, normalizeHex } from "../branding/contrast";
import { getPublicBranding } from "../branding/public-reads";
import { mediaAtUrl } from "../cms/media-facts";
import { siteName } from "../sites/facts";
import type { DeckTheme } from "./layouts";
import { logoInk, logoReads } from "./logo";

/** Font family lists: names, commas, quotes, spaces and hyphens only. */
const FONT_RE = /^[A-Za-z0-9 ,'"-]{1,100}$/;
const RADIUS_RE = /^\d{1,3}(?:\.\d{1,3})?(?:px|rem|em|%)$/;

const hex = (x: unknown, fallback: string) => (typeof x === "string" && HEX_RE.test(x) ? normalizeHex(x) : fallback);
const font = (x: unknown) => (typeof x === "string" && FONT_RE.test(x) ? x : null);

/** The theme from the site's brand profile now (defaults where the brand sets nothing). */
export async function themeForSite(deps: Deps, siteId: number): Promise<DeckTheme> {
  const b = await getPublicBranding(deps, siteId);
  const site = await siteName(deps.db, siteId);
  const background = hex(b.backgroundColor, BRANDING_DEFAULTS.backgroundColor);
  const primary = hex(b.primaryColor, BRANDING_DEFAULTS.primaryColor);
  let text = hex(b.textColor, BRANDING_DEFAULTS.textColor);
  if (contrastRatio(text, background) < 4.5)
    text = nearestPassing(text, background, 4.5) ?? BRANDING_DEFAULTS.textColor;
  const onPrimary = contrastRatio("#ffffff", primary) >= contrastRatio(text, primary) ? "#ffffff" : text;
  // The first logo variant that reads on the title slide (logo.ts), else the main one (shown as a text wordmark).
  const urls = [...new Set([b.logoUrl, b.logoRectUrl, b.logoSquareUrl, b.logoIconUrl].map((u) => safeUrl(u ?? null)))];
  let logo: DeckTheme["logo"] = null;
  for (const url of urls) {
    if (!url) continue;
    // A logo from the site's own media library can go into the PDF too (PNG and JPEG).
    const m = await mediaAtUrl(deps.db, siteId, url);
    const ink = m ? await logoInk(deps, m) : undefined;
    const candidate = {
      url,
      alt: b.logoAlt ?? b.logoText ?? site ?? "Logo",
      mimeType: m?.mimeType ?? null,
      storageKey: m?.storageKey ?? null,
      ink: ink === undefined ? "" : ink,
    };
    logo ??= candidate;
    if (logoReads(candidate, primary)) {
      logo = candidate;
      break;
    }
  }
  return {
    primary,
    secondary: hex(b.secondaryColor, BRANDING_DEFAULTS.secondaryColor),
    accent: hex(b.accentColor, BRANDING_DEFAULTS.accentColor),
    background,
    text,
    onPrimary,
    headingFont: font(b.headingFont),
    bodyFont: font(b.bodyFont),
    radius: typeof b.borderRadius === "string" && RADIUS_RE.test(b.borderRadius) ? b.borderRadius : "12px",
    name: (b.logoText ?? site ?? "").slice(0, 100),
    logo,
  };
}

/**
 * The theme as CSS custom properties for a style attribute. Every value is
 * re-checked here (a stored version is data like any other), so the
 * attribute can only ever hold colours, font names and a length.
 */
export function themeStyle(t: DeckTheme): string {
  const c = (x: string, d: string) => (HEX_RE.test(x) ? x : d);
  const f = (x: string | null) => (x && FONT_RE.test(x) ? `${x},` : "");
  return [
    `--dk-primary:${c(t.primary, "#2563eb")}`,
    `--dk-secondary:${c(t.secondary, "#1e40af")}`,
    `--dk-accent:${c(t.accent, "#f59e0b")}`,
    `--dk-bg:${c(t.background, "#ffffff")}`,
    `--dk-text:${c(t.text, "#111827")}`,
    `--dk-on-primary:${c(t.onPrimary, "#ffffff")}`,
    `--dk-head:${f(t.headingFont)}system-ui,sans-serif`,
    `--dk-body:${f(t.bodyFont)}system-ui,sans-serif`,
    `--dk-radius:${RADIUS_RE.test(t.radius) ? t.radius : "12px"}`,
  ].join(";");
}

/** The band under a full-bleed picture's title and caption (image_full): its colour, opacity and the text on it. */
export interface Scrim {
  color: string;
  /** 0–1. */
  opacity: number;
  text: string;
  /** The text's contrast against the scrim over the worst pixel under it (white or black). */
  ratio: number;
}

const mix = (a: string, b: string, k: number) => {
  const ch = (h: string, i: number) => parseInt(normalizeHex(h).slice(1 + 2 * i, 3 + 2 * i), 16);
  return `#${[0, 1, 2]
    .map((i) =>
      Math.round(ch(a, i) * k + ch(b, i) * (1 - k))
        .toString(16)
        .padStart(2, "0"),
    )
    .join("")}`;
};

/** The contrast of `text` on `color` at `opacity` over the worst of a white and a black pixel. */
export function scrimContrast(color: string, opacity: number, text: string): number {
  return Math.min(
    contrastRatio(text, mix(color, "#ffffff", opacity)),
    contrastRatio(text, mix(color, "#000000", opacity)),
  );
}

/**
 * A picture can be anything under the text, so the scrim is checked against
 * its worst case: the text must reach 4.5:1 (WCAG AA) on the scrim over a
 * white pixel and over a black one. The brand colour with its
 * text-on-primary is tried first, from 60% opaque up; a brand colour that
 * cannot carry its text (a mid tone) gives way to near-black with white.
 */
export function scrimFor(t: DeckTheme): Scrim {
  const candidates: [string, string][] = [];
  if (HEX_RE.test(t.primary) && HEX_RE.test(t.onPrimary)) candidates.push([t.primary, t.onPrimary]);
  candidates.push(["#111827", "#ffffff"]);
  for (const [color, text] of candidates)
    for (let o = 60; o <= 100; o += 5) {
      const ratio = scrimContrast(color, o / 100, text);
      if (ratio >= 4.5) return { color: normalizeHex(color), opacity: o / 100, text: normalizeHex(text), ratio };
    }
  return { color: "#000000", opacity: 1, text: "#ffffff", ratio: 21 };
}
