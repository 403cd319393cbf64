/**
 * Branding as the public REST API serves it (interface.md 2.6): only fields
 * that are set, each of the type the spec names. The stored profile is
 * projected onto that shape, so an internal or malformed field never
 * reaches a renderer.
 *
 * @public Serves sites, decks and chat (branding as public pages show it).
 */
import { and, eq } from "drizzle-orm";
import type { Deps } from "../../core/context";
import type { Db } from "../../core/db";
import { jsonContains } from "../../core/sql";
import { brandProfiles } from "./tables";

type Str = string;

export interface ButtonStyle {
  primaryBg?: Str;
  primaryText?: Str;
  primaryHoverBg?: Str;
  secondaryBg?: Str;
  secondaryText?: Str;
  secondaryHoverBg?: Str;
  borderRadius?: Str;
  variant?: Str;
}

export interface ButtonPreset {
  id?: Str;
  name?: Str;
  backgroundColor?: Str;
  color?: Str;
  borderRadius?: Str;
  fontWeight?: Str;
  textTransform?: Str;
  paddingX?: Str;
  paddingY?: Str;
}

export interface TypographyStyle {
  font?: Str;
  size?: Str;
  weight?: Str;
  lineHeight?: Str;
  letterSpacing?: Str;
}

export interface DarkMode {
  primaryColor?: Str;
  backgroundColor?: Str;
  textColor?: Str;
  navBackground?: Str;
  navTextColor?: Str;
}

export interface Branding {
  primaryColor?: Str;
  secondaryColor?: Str;
  accentColor?: Str;
  backgroundColor?: Str;
  textColor?: Str;
  headingFont?: Str;
  bodyFont?: Str;
  logoUrl?: Str;
  logoSquareUrl?: Str;
  logoRectUrl?: Str;
  logoIconUrl?: Str;
  logoText?: Str;
  logoAlt?: Str;
  navTemplate?: Str;
  navPosition?: Str;
  navBackground?: Str;
  navTextColor?: Str;
  borderRadius?: Str;
  linkColor?: Str;
  linkHoverColor?: Str;
  faviconUrl?: Str;
  ogImageUrl?: Str;
  buttonStyle?: ButtonStyle;
  buttonPresets?: ButtonPreset[];
  typography?: Record<string, TypographyStyle>;
  darkMode?: DarkMode;
}

export const BRANDING_STRING_FIELDS = [
  "primaryColor",
  "secondaryColor",
  "accentColor",
  "backgroundColor",
  "textColor",
  "headingFont",
  "bodyFont",
  "logoUrl",
  "logoSquareUrl",
  "logoRectUrl",
  "logoIconUrl",
  "logoText",
  "logoAlt",
  "navTemplate",
  "navPosition",
  "navBackground",
  "navTextColor",
  "borderRadius",
  "linkColor",
  "linkHoverColor",
  "faviconUrl",
  "ogImageUrl",
] as const;
export const BUTTON_STYLE_FIELDS = [
  "primaryBg",
  "primaryText",
  "primaryHoverBg",
  "secondaryBg",
  "secondaryText",
  "secondaryHoverBg",
  "borderRadius",
  "variant",
] as const;
export const BUTTON_PRESET_FIELDS = [
  "id",
  "name",
  "backgroundColor",
  "color",
  "borderRadius",
  "fontWeight",
  "textTransform",
  "paddingX",
  "paddingY",
] as const;
export const TYPOGRAPHY_FIELDS = ["font", "size", "weight", "lineHeight", "letterSpacing"] as const;
export const DARK_MODE_FIELDS = [
  "primaryColor",
  "backgroundColor",
  "textColor",
  "navBackground",
  "navTextColor",
] as const;

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isSet = (v: unknown): v is string => typeof v === "string" && v !== "";

/** Keeps the listed string fields that are set; undefined when none are. */
function pickStrings<K extends string>(src: unknown, fields: readonly K[]): Partial<Record<K, string>> | undefined {
  if (!isObj(src)) return undefined;
  const out: Partial<Record<K, string>> = {};
  let any = false;
  for (const f of fields) {
    const v = src[f];
    if (isSet(v)) {
      out[f] = v;
      any = true;
    }
  }
  return any ? out : undefined;
}

/** Projects a stored profile onto the spec's Branding shape. */
export function toPublicBranding(raw: unknown): Branding {
  const b: Branding = {};
  if (!isObj(raw)) return b;
  const top = pickStrings(raw, BRANDING_STRING_FIELDS);
  if (top) Object.assign(b, top);
  const buttonStyle = pickStrings(raw.buttonStyle, BUTTON_STYLE_FIELDS);
  if (buttonStyle) b.buttonStyle = buttonStyle;
  if (Array.isArray(raw.buttonPresets)) {
    const presets = raw.buttonPresets
      .map((p) => pickStrings(p, BUTTON_PRESET_FIELDS))
      .filter((p): p is ButtonPreset => !!p);
    if (presets.length) b.buttonPresets = presets;
  }
  if (isObj(raw.typography)) {
    const typography: Record<string, TypographyStyle> = {};
    for (const [element, style] of Object.entries(raw.typography)) {
      const s = pickStrings(style, TYPOGRAPHY_FIELDS);
      if (s) typography[element] = s;
    }
    if (Object.keys(typography).length) b.typography = typography;
  }
  const darkMode = pickStrings(raw.darkMode, DARK_MODE_FIELDS);
  if (darkMode) b.darkMode = darkMode;
  return b;
}

/** The site's branding; `{}` when it has no profile. The caller has checked the site is public. */
export async function getPublicBranding(deps: Deps, siteId: number): Promise<Branding> {
  const row = (
    await deps.db
      .select({ data: brandProfiles.data })
      .from(brandProfiles)
      .where(eq(brandProfiles.siteId, siteId))
      .limit(1)
  )[0];
  return toPublicBranding(row?.data);
}

/**
 * The site's stored brand profile as it is kept (only the fields that are
 * set), or undefined when the site has none: for renderers that derive
 * their own styles from it (survey pages).
 */
export async function storedBranding(
  q: Pick<Db, "select">,
  siteId: number,
): Promise<(typeof brandProfiles.$inferSelect)["data"] | undefined> {
  return (
    await q.select({ data: brandProfiles.data }).from(brandProfiles).where(eq(brandProfiles.siteId, siteId)).limit(1)
  )[0]?.data;
}

/** Whether the site's stored brand profile mentions `url` anywhere (cms' "still in use" answer for a media item). */
export async function brandingMentions(q: Pick<Db, "select">, siteId: number, url: string): Promise<boolean> {
  const row = (
    await q
      .select({ siteId: brandProfiles.siteId })
      .from(brandProfiles)
      .where(and(eq(brandProfiles.siteId, siteId), jsonContains(brandProfiles.data, url)))
      .limit(1)
  )[0];
  return row !== undefined;
}
