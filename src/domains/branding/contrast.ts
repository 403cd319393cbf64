/**
 * WCAG 2.x contrast, pure. Relative luminance per WCAG 2.2 (sRGB, with the
 * 0.04045 threshold of the sRGB standard; WCAG's older 0.03928 gives the same
 * result for every 8-bit channel value). Pass/fail is decided on the exact
 * ratio (WCAG forbids rounding up: 4.499:1 fails AA); the ratio reported is
 * rounded to two decimals for reading.
 *
 * @example
 * contrast("#777777", "#ffffff") // { ratio: 4.48, aa: { normal: false, large: true }, aaa: { normal: false, large: false } }
 *
 * @public Serves decks (a theme's readable text colour).
 */

export const HEX_RE = /^#([0-9a-fA-F]{3}){1,2}$/; // #rgb or #rrggbb (short: tools/list publishes it per colour)

export const THRESHOLDS = { aa: { normal: 4.5, large: 3 }, aaa: { normal: 7, large: 4.5 } } as const;

type Rgb = [number, number, number];

/** "#ABC" / "#aabbcc" → "#aabbcc". Throws on anything else; callers validate first. */
export function normalizeHex(hex: string): string {
  if (!HEX_RE.test(hex)) throw new Error(`not a hex colour: ${hex}`);
  const h = hex.slice(1).toLowerCase();
  return "#" + (h.length === 3 ? h.replace(/./g, (c) => c + c) : h);
}

function toRgb(hex: string): Rgb {
  const h = normalizeHex(hex);
  return [parseInt(h.slice(1, 3), 16), parseInt(h.slice(3, 5), 16), parseInt(h.slice(5, 7), 16)];
}

function toHex([r, g, b]: Rgb): string {
  return "#" + [r, g, b].map((c) => c.toString(16).padStart(2, "0")).join("");
}

export function relativeLuminance(hex: string): number {
  const [r, g, b] = toRgb(hex).map((c) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  }) as Rgb;
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** The exact (unrounded) ratio, from 1 to 21; symmetric in its arguments. */
export function contrastRatio(a: string, b: string): number {
  const la = relativeLuminance(a);
  const lb = relativeLuminance(b);
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}

export interface ContrastResult {
  ratio: number;
  aa: { normal: boolean; large: boolean };
  aaa: { normal: boolean; large: boolean };
}

export function contrast(foreground: string, background: string): ContrastResult {
  const r = contrastRatio(foreground, background);
  return {
    ratio: Math.round(r * 100) / 100,
    aa: { normal: r >= THRESHOLDS.aa.normal, large: r >= THRESHOLDS.aa.large },
    aaa: { normal: r >= THRESHOLDS.aaa.normal, large: r >= THRESHOLDS.aaa.large },
  };
}

// HSL round trip, so a suggestion keeps the colour's hue and saturation and
// changes only its lightness.
function rgbToHsl([r, g, b]: Rgb): [number, number, number] {
  const [R, G, B] = [r / 255, g / 255, b / 255];
  const max = Math.max(R, G, B);
  const min = Math.min(R, G, B);
  const l = (max + min) / 2;
  if (max === min) return [0, 0, l];
  const d = max - min;
  const s = l > 0.5 ? d / (2 - max - min) : d / (max + min);
  let h: number;
  if (max === R) h = (G - B) / d + (G < B ? 6 : 0);
  else if (max === G) h = (B - R) / d + 2;
  else h = (R - G) / d + 4;
  return [h / 6, s, l];
}

function hslToRgb(h: number, s: number, l: number): Rgb {
  if (s === 0) {
    const c = Math.round(l * 255);
    return [c, c, c];
  }
  const q = l < 0.5 ? l * (1 + s) : l + s - l * s;
  const p = 2 * l - q;
  const channel = (t: number) => {
    if (t < 0) t += 1;
    if (t > 1) t -= 1;
    if (t < 1 / 6) return p + (q - p) * 6 * t;
    if (t < 1 / 2) return q;
    if (t < 2 / 3) return p + (q - p) * (2 / 3 - t) * 6;
    return p;
  };
  return [channel(h + 1 / 3), channel(h), channel(h - 1 / 3)].map((c) => Math.round(c * 255)) as Rgb;
}

/**
 * The colour nearest to `foreground` (same hue and saturation, lightness
 * moved as little as possible, darker or lighter) whose contrast with
 * `background` reaches `target`; `foreground` itself when it already does;
 * null when no lightness reaches it (only possible for targets above what
 * black or white give on that background).
 */
export function nearestPassing(foreground: string, background: string, target: number): string | null {
  const fg = normalizeHex(foreground);
  if (contrastRatio(fg, background) >= target) return fg;
  const [h, s, l] = rgbToHsl(toRgb(fg));
  // At equal distance prefer moving away from the background's luminance.
  const dirs = relativeLuminance(background) >= relativeLuminance(fg) ? [-1, 1] : [1, -1];
  const STEPS = 1000;
  for (let i = 1; i <= STEPS; i++) {
    const delta = i / STEPS;
    for (const dir of dirs) {
      const nl = l + dir * delta;
      if (nl < 0 || nl > 1) continue;
      const candidate = toHex(hslToRgb(h, s, nl));
      if (contrastRatio(candidate, background) >= target) return candidate;
    }
  }
  return null;
}

/** Two ways to reach a contrast target: change the foreground, or change the background. */
export interface ContrastFix {
  /** Nearest foreground reaching the target on the given background (null when none can). */
  foreground: string | null;
  /** Nearest background reaching the target under the given foreground (null when none can). */
  background: string | null;
}

/**
 * Both suggestions for a failing pair. The ratio is symmetric, so the
 * nearest background is nearestPassing with the roles swapped: the
 * background's lightness moves, the foreground stays.
 *
 * @example
 * nearestFix("#777777", "#ffffff", 4.5) // { foreground: "#767676", background: "#060606" }
 */
export function nearestFix(foreground: string, background: string, target: number): ContrastFix {
  return {
    foreground: nearestPassing(foreground, background, target),
    background: nearestPassing(background, foreground, target),
  };
}
