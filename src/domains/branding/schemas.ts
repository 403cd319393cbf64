/**
 * Valibot inputs of the branding tools. `Branding` is the spec's Branding
 * object (interface.md 2.6) exactly: every field optional, unknown fields
 * refused, colours as hex. Values that end up in CSS custom properties are
 * limited to characters that cannot break out of a declaration. The patch
 * form accepts null anywhere to clear a field back to its default.
 */
import * as v from "valibot";
import { HEX_RE } from "./contrast";
import type { Branding as BrandingShape } from "./public-reads";

export const MAX_PRESETS = 20;
export const MAX_TYPOGRAPHY_ELEMENTS = 30;
export const ELEMENT_RE = /^[a-z][a-z0-9-]{0,31}$/;

export const hexColor = v.pipe(
  v.string("Colours are hex strings."),
  v.regex(HEX_RE, "Colours must be hex, #rgb or #rrggbb (e.g. #2563eb)."),
);

/**
 * Colours inside buttonStyle, buttonPresets and darkMode: the spec types them
 * as plain strings, and an outline button really is `transparent`, so these
 * also take transparent, currentColor and rgb()/hsl() notation. Top-level
 * colours are hex, as the spec says.
 */
export const cssColor = v.pipe(
  v.string("Colours are strings."),
  v.regex(
    /^(?:#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})|transparent|currentColor|currentcolor|(?:rgb|rgba|hsl|hsla)\([0-9.,% /deg+-]{1,60}\))$/,
    "Colours must be hex (#rrggbb), transparent, currentColor, or rgb()/hsl() notation.",
  ),
);

/** A CSS value: letters, digits, spaces and # % . , ( ) ' " + - / * _ only (no ; { } < > \ :). */
export const cssValue = v.pipe(
  v.string("CSS values are strings."),
  v.minLength(1, "CSS values must not be empty; use null to clear."),
  v.maxLength(200, "CSS values are at most 200 characters."),
  v.regex(
    /^[A-Za-z0-9 #%.,()'"+\-/*_]*[A-Za-z0-9#%)'"][A-Za-z0-9 #%.,()'"+\-/*_]*$/,
    "Not a safe CSS value: use letters, digits, spaces and # % . , ( ) ' \" + - / * _ only.",
  ),
);

export const assetUrl = v.pipe(
  v.string("URLs are strings."),
  v.maxLength(2048, "URLs are at most 2048 characters."),
  v.regex(/^(?:https?:\/\/[^\s/\\?#]\S*|\/(?![/\\])\S*)$/i, "URLs must be absolute http(s) or a path starting with /."),
);

const token = v.pipe(
  v.string(),
  v.regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$/, "Use a short name of letters, digits, - and _ (e.g. classic)."),
);
const label = (max: number) =>
  v.pipe(
    v.string(),
    v.minLength(1, "Must not be empty; use null to clear."),
    v.maxLength(max, `At most ${max} characters.`),
  );

const colourFields = [
  "primaryColor",
  "secondaryColor",
  "accentColor",
  "backgroundColor",
  "textColor",
  "navBackground",
  "navTextColor",
  "linkColor",
  "linkHoverColor",
] as const;
const cssFields = ["headingFont", "bodyFont", "borderRadius"] as const;
const urlFields = ["logoUrl", "logoSquareUrl", "logoRectUrl", "logoIconUrl", "faviconUrl", "ogImageUrl"] as const;

export const BUTTON_STYLE_COLOURS = [
  "primaryBg",
  "primaryText",
  "primaryHoverBg",
  "secondaryBg",
  "secondaryText",
  "secondaryHoverBg",
] as const;
export const DARK_MODE_KEYS = [
  "primaryColor",
  "backgroundColor",
  "textColor",
  "navBackground",
  "navTextColor",
] as const;
export const TYPOGRAPHY_KEYS = ["font", "size", "weight", "lineHeight", "letterSpacing"] as const;
export const PRESET_COLOURS = ["backgroundColor", "color"] as const;
export const PRESET_CSS = ["borderRadius", "fontWeight", "textTransform", "paddingX", "paddingY"] as const;

/** Builds the object entries of one level; `nullable` for the patch form. */
function entries<K extends string>(keys: readonly K[], schema: v.GenericSchema, nullable: boolean) {
  return Object.fromEntries(
    keys.map((k) => [k, nullable ? v.optional(v.nullable(schema)) : v.optional(schema)]),
  ) as unknown as Record<K, v.OptionalSchema<v.GenericSchema<string | null>, undefined>>;
}

function shapes(nullable: boolean) {
  const opt = (s: v.GenericSchema) => (nullable ? v.optional(v.nullable(s)) : v.optional(s));
  const buttonStyle = v.strictObject({
    ...entries(BUTTON_STYLE_COLOURS, cssColor, nullable),
    borderRadius: opt(cssValue),
    variant: opt(token),
  });
  const darkMode = v.strictObject(entries(DARK_MODE_KEYS, cssColor, nullable));
  const typographyStyle = v.strictObject(entries(TYPOGRAPHY_KEYS, cssValue, nullable));
  const preset = v.strictObject({
    id: v.optional(v.pipe(v.string(), v.uuid("Preset ids are the uuids Plinth assigned; omit id to add a preset."))),
    name: opt(label(60)),
    ...entries(PRESET_COLOURS, cssColor, nullable),
    ...entries(PRESET_CSS, cssValue, nullable),
  });
  const elementKey = v.pipe(
    v.string(),
    v.regex(ELEMENT_RE, "Typography keys are element names such as h1, body or caption (lower case)."),
  );
  return v.strictObject({
    ...entries(colourFields, hexColor, nullable),
    ...entries(cssFields, cssValue, nullable),
    ...entries(urlFields, assetUrl, nullable),
    logoText: opt(label(120)),
    logoAlt: opt(label(300)),
    navTemplate: opt(token),
    navPosition: opt(token),
    buttonStyle: opt(buttonStyle),
    buttonPresets: opt(v.pipe(v.array(preset), v.maxLength(MAX_PRESETS, `At most ${MAX_PRESETS} button presets.`))),
    typography: opt(
      v.pipe(
        v.record(elementKey, nullable ? v.nullable(typographyStyle) : typographyStyle),
        v.maxEntries(MAX_TYPOGRAPHY_ELEMENTS, `At most ${MAX_TYPOGRAPHY_ELEMENTS} typography elements.`),
      ),
    ),
    darkMode: opt(darkMode),
  });
}

/** The spec's Branding object; what a stored profile holds. */
export const Branding = shapes(false);
/** The stored shape is the spec's, as the REST reader types it. */
export type BrandingData = BrandingShape;
/** A partial update: given fields are set, null clears, nested objects merge, presets upsert by id. */
export const BrandingPatch = shapes(true);
export type BrandingPatchData = { [K in keyof BrandingShape]?: unknown };

const siteId = v.pipe(
  v.number("siteId must be a number."),
  v.integer("siteId must be an integer."),
  v.minValue(1),
  v.maxValue(Number.MAX_SAFE_INTEGER),
);

export const siteOnly = v.strictObject({ siteId });
/**
 * Reads that default to the company's primary site, as brand://default does
 * (the company default without an active site); siteId null: the company
 * default itself.
 */
export const siteOptional = v.strictObject({ siteId: v.optional(v.nullable(siteId)) });
/** siteId null (or omitted while the company has no active site): the company default profile. */
export const updateProfileInput = v.strictObject({ siteId: v.optional(v.nullable(siteId)), branding: BrandingPatch });
export const clearFieldsInput = v.strictObject({
  siteId,
  fields: v.pipe(
    v.array(v.pipe(v.string(), v.maxLength(120))),
    v.minLength(1, "Name at least one field to clear."),
    v.maxLength(100, "At most 100 fields at a time."),
  ),
});
export const contrastInput = v.strictObject({ foreground: hexColor, background: hexColor });

const messagingText = (max: number) =>
  v.optional(v.nullable(v.pipe(v.string(), v.maxLength(max, `At most ${max} characters.`))));
const messagingList = (items: number, len: number) =>
  v.optional(
    v.nullable(
      v.pipe(
        v.array(v.pipe(v.string(), v.minLength(1), v.maxLength(len, `Each entry is at most ${len} characters.`))),
        v.maxLength(items, `At most ${items} entries.`),
      ),
    ),
  );
export const messagingUpdateInput = v.strictObject({
  siteId,
  tagline: messagingText(200),
  toneOfVoice: messagingText(2000),
  elevatorPitch: messagingText(2000),
  keyMessages: messagingList(20, 500),
  wordsToAvoid: messagingList(100, 100),
});
