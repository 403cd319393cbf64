/**
 * CssVars: the flat map of CSS custom properties derived from a Branding
 * object, ready for a renderer to inject as `:root { … }`. Only properties
 * whose branding value is set appear; defaults are the renderer's business.
 *
 * Naming (also in docs/rest.md):
 *   colours      primaryColor → --color-primary, secondaryColor → --color-secondary,
 *                accentColor → --color-accent, backgroundColor → --color-background,
 *                textColor → --color-text, linkColor → --color-link,
 *                linkHoverColor → --color-link-hover,
 *                navBackground → --color-nav-background, navTextColor → --color-nav-text
 *   fonts        headingFont → --font-heading, bodyFont → --font-body
 *   shape        borderRadius → --radius
 *   buttons      buttonStyle.primaryBg → --button-primary-bg, .primaryText → --button-primary-text,
 *                .primaryHoverBg → --button-primary-hover-bg, .secondaryBg → --button-secondary-bg,
 *                .secondaryText → --button-secondary-text, .secondaryHoverBg → --button-secondary-hover-bg,
 *                .borderRadius → --button-radius, .variant → --button-variant
 *   dark mode    darkMode.primaryColor → --dark-color-primary, .backgroundColor → --dark-color-background,
 *                .textColor → --dark-color-text, .navBackground → --dark-color-nav-background,
 *                .navTextColor → --dark-color-nav-text
 *   typography   typography.<element>.<prop> → --typography-<element>-<prop-in-kebab-case>,
 *                e.g. typography.h1.lineHeight → --typography-h1-line-height
 *
 * Not mapped (they are not style values): logo and favicon URLs, logo text,
 * navTemplate, navPosition, ogImageUrl, buttonPresets.
 *
 * A value that could break out of a declaration (`;`, `{`, `}`, `<`, `>`,
 * control characters) is left out, so injecting the map verbatim is safe
 * even if a stored value slipped past the writer's validation.
 *
 * @public Serves sites and chat (the CSS variables of public pages and the
 * widget).
 */
import type { Branding } from "./public-reads";

export type CssVars = Record<string, string>;

const TOP: ReadonlyArray<readonly [keyof Branding, string]> = [
  ["primaryColor", "--color-primary"],
  ["secondaryColor", "--color-secondary"],
  ["accentColor", "--color-accent"],
  ["backgroundColor", "--color-background"],
  ["textColor", "--color-text"],
  ["linkColor", "--color-link"],
  ["linkHoverColor", "--color-link-hover"],
  ["navBackground", "--color-nav-background"],
  ["navTextColor", "--color-nav-text"],
  ["headingFont", "--font-heading"],
  ["bodyFont", "--font-body"],
  ["borderRadius", "--radius"],
];

const BUTTON: ReadonlyArray<readonly [string, string]> = [
  ["primaryBg", "--button-primary-bg"],
  ["primaryText", "--button-primary-text"],
  ["primaryHoverBg", "--button-primary-hover-bg"],
  ["secondaryBg", "--button-secondary-bg"],
  ["secondaryText", "--button-secondary-text"],
  ["secondaryHoverBg", "--button-secondary-hover-bg"],
  ["borderRadius", "--button-radius"],
  ["variant", "--button-variant"],
];

const DARK: ReadonlyArray<readonly [string, string]> = [
  ["primaryColor", "--dark-color-primary"],
  ["backgroundColor", "--dark-color-background"],
  ["textColor", "--dark-color-text"],
  ["navBackground", "--dark-color-nav-background"],
  ["navTextColor", "--dark-color-nav-text"],
];

const TYPOGRAPHY_PROPS = ["font", "size", "weight", "lineHeight", "letterSpacing"] as const;

/** Element names that can be part of a custom property name as they are. */
const ELEMENT_RE = /^[a-z][a-z0-9-]{0,31}$/i;
const UNSAFE_RE = /[;{}<>\\\x00-\x1f\x7f]/;
const MAX_VALUE = 500;

const kebab = (s: string) => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

function usable(v: unknown): v is string {
  return typeof v === "string" && v.trim() !== "" && v.length <= MAX_VALUE && !UNSAFE_RE.test(v);
}

export function cssVarsFor(b: Branding): CssVars {
  const out: CssVars = {};
  const put = (name: string, v: unknown) => {
    if (usable(v)) out[name] = v.trim();
  };
  for (const [field, name] of TOP) put(name, b[field]);
  if (b.buttonStyle) for (const [field, name] of BUTTON) put(name, (b.buttonStyle as Record<string, unknown>)[field]);
  if (b.darkMode) for (const [field, name] of DARK) put(name, (b.darkMode as Record<string, unknown>)[field]);
  if (b.typography) {
    for (const element of Object.keys(b.typography).sort()) {
      if (!ELEMENT_RE.test(element)) continue;
      const t = b.typography[element] as Record<string, unknown>;
      for (const p of TYPOGRAPHY_PROPS) put(`--typography-${element.toLowerCase()}-${kebab(p)}`, t[p]);
    }
  }
  return out;
}
