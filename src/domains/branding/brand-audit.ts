/**
 * The brand audit: every foreground/background pair a profile implies,
 * checked with WCAG 2.x contrast, plus the brand assets that are missing.
 *
 * Colours resolve as a renderer would: the five spec colours fall back to
 * their defaults; linkColor falls back to primaryColor; nav colours fall back
 * to text/background (the nav pair is checked only when one of them is set,
 * else it would repeat text-on-background); button backgrounds fall back to
 * primaryColor / secondaryColor. A pair whose foreground has no value at all
 * (e.g. buttonStyle.primaryText unset) is reported as skipped, not guessed;
 * so is one in a notation the maths does not evaluate (currentColor,
 * rgb()/hsl()). A transparent background shows what is behind it: the page
 * (or dark-mode) background.
 *
 * Text-like pairs (body text, links, the primary colour as text, nav items,
 * button labels) are held to AA for normal text, 4.5:1: they are
 * normal-size text in the common case. The accent colour is for non-text
 * marks (badges, borders, icons, focus rings), held to WCAG 1.4.11's 3:1
 * against the page. Each failure carries two suggestions, the nearest
 * passing foreground and the nearest passing background (same hue,
 * lightness moved as little as possible), so the fix can go either way.
 */
import {
  contrast,
  contrastRatio,
  HEX_RE,
  nearestFix,
  normalizeHex,
  THRESHOLDS,
  type ContrastFix,
  type ContrastResult,
} from "./contrast";
import { BRANDING_DEFAULTS } from "./defaults";
import type { BrandingData } from "./schemas";

/** Text-like pairs: AA for normal text. */
export const AUDIT_TARGET = THRESHOLDS.aa.normal;
/** Non-text pairs (WCAG 1.4.11, UI components and graphics): 3:1. */
export const NON_TEXT_TARGET = THRESHOLDS.aa.large;

export type PairKind = "text" | "non-text";

export interface PairSpec {
  pair: string;
  /** text: held to 4.5:1; non-text: 3:1. Text unless said. */
  kind?: PairKind;
  foreground: { field: string; value: string | undefined };
  background: { field: string; value: string | undefined };
  /** What shows through a transparent background (the page or dark-mode background). */
  behind?: string;
}

export interface CheckedPair extends ContrastResult {
  pair: string;
  foreground: string;
  foregroundField: string;
  background: string;
  backgroundField: string;
  kind: PairKind;
  /** The ratio this pair must reach: 4.5 (text) or 3 (non-text). */
  target: number;
  passes: boolean;
  /** Only on failures: the nearest foreground reaching the target on this background, and the nearest background under this foreground (null when none can). */
  suggestion?: ContrastFix;
}

/** The pairs a profile implies, with the field each colour came from. */
export function impliedPairs(b: BrandingData): PairSpec[] {
  const d = BRANDING_DEFAULTS;
  const pick = (field: string, value: string | undefined, fallbackField?: string, fallback?: string) =>
    value !== undefined ? { field, value } : { field: fallbackField ?? field, value: fallback };
  const bg = pick("backgroundColor", b.backgroundColor, "default backgroundColor", d.backgroundColor);
  const text = pick("textColor", b.textColor, "default textColor", d.textColor);
  const primary = pick("primaryColor", b.primaryColor, "default primaryColor", d.primaryColor);
  const secondary = pick("secondaryColor", b.secondaryColor, "default secondaryColor", d.secondaryColor);
  const pairs: PairSpec[] = [
    { pair: "text on background", foreground: text, background: bg },
    // Without a linkColor, links are the primary colour: this pair is then also "primary on background".
    {
      pair: "link on background",
      foreground: b.linkColor !== undefined ? { field: "linkColor", value: b.linkColor } : primary,
      background: bg,
    },
  ];
  if (b.linkColor !== undefined) pairs.push({ pair: "primary on background", foreground: primary, background: bg });
  pairs.push({
    pair: "accent on background",
    kind: "non-text",
    foreground: pick("accentColor", b.accentColor, "default accentColor", d.accentColor),
    background: bg,
  });
  if (b.linkHoverColor !== undefined)
    pairs.push({
      pair: "link hover on background",
      foreground: { field: "linkHoverColor", value: b.linkHoverColor },
      background: bg,
    });
  if (b.navBackground !== undefined || b.navTextColor !== undefined)
    pairs.push({
      pair: "nav text on nav background",
      foreground: pick("navTextColor", b.navTextColor, text.field, text.value),
      background: pick("navBackground", b.navBackground, bg.field, bg.value),
      behind: bg.value,
    });
  const bs = b.buttonStyle ?? {};
  const btn = (kind: "primary" | "secondary", fallbackBg: { field: string; value: string | undefined }) => {
    const label = { field: `buttonStyle.${kind}Text`, value: bs[`${kind}Text`] };
    pairs.push({
      pair: `${kind} button text on ${kind} button`,
      foreground: label,
      background: pick(`buttonStyle.${kind}Bg`, bs[`${kind}Bg`], fallbackBg.field, fallbackBg.value),
      behind: bg.value,
    });
    if (bs[`${kind}HoverBg`] !== undefined)
      pairs.push({
        pair: `${kind} button text on hover`,
        foreground: label,
        background: { field: `buttonStyle.${kind}HoverBg`, value: bs[`${kind}HoverBg`] },
        behind: bg.value,
      });
  };
  btn("primary", primary);
  btn("secondary", secondary);
  for (const p of b.buttonPresets ?? [])
    pairs.push({
      pair: `button preset "${p.name}" text on its background`,
      foreground: { field: `buttonPresets.${p.id}.color`, value: p.color },
      background: { field: `buttonPresets.${p.id}.backgroundColor`, value: p.backgroundColor },
      behind: bg.value,
    });
  const dm = b.darkMode;
  if (dm && Object.keys(dm).length) {
    const dbg = { field: "darkMode.backgroundColor", value: dm.backgroundColor };
    const dtext = { field: "darkMode.textColor", value: dm.textColor };
    pairs.push({ pair: "dark mode: text on background", foreground: dtext, background: dbg });
    pairs.push({
      pair: "dark mode: primary on background",
      foreground: { field: "darkMode.primaryColor", value: dm.primaryColor },
      background: dbg,
    });
    if (dm.navBackground !== undefined || dm.navTextColor !== undefined)
      pairs.push({
        pair: "dark mode: nav text on nav background",
        foreground: pick("darkMode.navTextColor", dm.navTextColor, dtext.field, dtext.value),
        background: pick("darkMode.navBackground", dm.navBackground, dbg.field, dbg.value),
        behind: dbg.value,
      });
  }
  return pairs;
}

/**
 * A colour as a hex the maths can use, or why not: transparent shows what is
 * behind it; currentColor and rgb()/hsl() notation are not evaluated.
 */
function resolve(
  c: { field: string; value: string | undefined },
  behind?: string,
): { hex: string } | { reason: string } {
  if (c.value === undefined) return { reason: `${c.field} not set` };
  if (HEX_RE.test(c.value)) return { hex: normalizeHex(c.value) };
  if (c.value === "transparent" && behind !== undefined && HEX_RE.test(behind)) return { hex: normalizeHex(behind) };
  return { reason: `${c.field} is ${c.value}; only hex colours (and transparent backgrounds) can be checked` };
}

export function checkPair(p: PairSpec): CheckedPair {
  const fg = normalizeHex(p.foreground.value!);
  const bg = normalizeHex(p.background.value!);
  const kind = p.kind ?? "text";
  const target = kind === "text" ? AUDIT_TARGET : NON_TEXT_TARGET;
  const passes = contrastRatio(fg, bg) >= target;
  return {
    pair: p.pair,
    foreground: fg,
    foregroundField: p.foreground.field,
    background: bg,
    backgroundField: p.background.field,
    ...contrast(fg, bg),
    kind,
    target,
    passes,
    ...(!passes && { suggestion: nearestFix(fg, bg, target) }),
  };
}

const LOGO_FIELDS = ["logoUrl", "logoSquareUrl", "logoRectUrl", "logoIconUrl"] as const;

export function auditBranding(b: BrandingData) {
  const checked: CheckedPair[] = [];
  const skipped: { pair: string; reason: string }[] = [];
  for (const p of impliedPairs(b)) {
    const fg = resolve(p.foreground);
    const bg = resolve(p.background, p.behind);
    const reasons = [fg, bg].flatMap((r) => ("reason" in r ? [r.reason] : []));
    if (reasons.length) skipped.push({ pair: p.pair, reason: reasons.join("; ") });
    else
      checked.push(
        checkPair({
          ...p,
          foreground: { ...p.foreground, value: (fg as { hex: string }).hex },
          background: {
            field:
              p.background.value === "transparent"
                ? `${p.background.field} (transparent, shows ${p.behind})`
                : p.background.field,
            value: (bg as { hex: string }).hex,
          },
        }),
      );
  }
  const missingAssets: string[] = LOGO_FIELDS.filter((f) => !b[f]);
  if (!b.faviconUrl) missingAssets.push("faviconUrl");
  const warnings: string[] = [];
  if (LOGO_FIELDS.some((f) => b[f]) && !b.logoAlt)
    warnings.push("A logo is set but logoAlt is not: screen readers will announce the logo without a name.");
  if (!LOGO_FIELDS.some((f) => b[f]) && !b.logoText)
    warnings.push("No logo and no logoText: the site header has nothing to show as the brand mark.");
  if (!b.ogImageUrl) warnings.push("No ogImageUrl: links shared on social networks will have no preview image.");
  const failed = checked.filter((c) => !c.passes);
  return {
    target: `WCAG 2.x AA: ${AUDIT_TARGET}:1 for text pairs, ${NON_TEXT_TARGET}:1 for non-text pairs (accent)`,
    summary: {
      checked: checked.length,
      passed: checked.length - failed.length,
      failed: failed.length,
      skipped: skipped.length,
      missingAssets: missingAssets.length,
    },
    pairs: checked,
    skipped,
    missingAssets,
    warnings,
  };
}

/** A field name as a setting: "default backgroundColor" → backgroundColor; the transparent note dropped. */
const setting = (field: string) => field.replace(/^default /, "").replace(/ \(transparent, .*\)$/, "");

/**
 * Contrast failures a change brought: pairs that fail in `after` and were
 * not failing with the same two colours in `before` (a colour of the pair
 * changed, or the pair is new). One line each, for a write result's
 * `warnings`, naming both suggestions.
 */
export function contrastWarnings(before: BrandingData, after: BrandingData): string[] {
  const old = new Map(auditBranding(before).pairs.map((p) => [p.pair, p]));
  return auditBranding(after)
    .pairs.filter((p) => !p.passes)
    .filter((p) => {
      const o = old.get(p.pair);
      return !o || o.passes || o.foreground !== p.foreground || o.background !== p.background;
    })
    .map((p) => {
      const fix = p.suggestion!;
      const options = [
        fix.foreground && `foreground ${setting(p.foregroundField)} ${fix.foreground}`,
        fix.background && `background ${setting(p.backgroundField)} ${fix.background}`,
      ].filter(Boolean);
      return (
        `${p.pair}: ${p.foregroundField} ${p.foreground} on ${p.backgroundField} ${p.background} is ${p.ratio}:1, below WCAG AA ${p.target}:1 for ${p.kind === "text" ? "text" : "non-text marks"}` +
        (options.length ? `; nearest passing ${options.join(", or ")}.` : "; no change of lightness alone reaches it.")
      );
    });
}
