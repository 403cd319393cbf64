/**
 * Brand profiles: one Branding object per site, stored with only the fields
 * that are set (brand_profiles.data). REST getBranding / getSiteConfig serve
 * it through public-reads.ts and derive cssVars with css-vars.ts; the
 * profile tools return the same cssVars, so what an agent sees is what a
 * renderer gets.
 *
 * Updates merge (RFC 7396 style): a given field replaces, null clears it back
 * to its default, buttonStyle / darkMode / each typography element merge
 * field by field, and buttonPresets are upserted by id: a preset with an id
 * patches that preset, one without gets a fresh uuid that never changes.
 * Colours are stored normalised (#rrggbb, lower case).
 *
 * The company's default profile (company-default.ts) is read and written
 * here too, by the same verbs with siteId null, under the same rules: it is
 * a Branding object like a site's, only without a site.
 *
 * @public Serves decks (the brand defaults of a theme).
 */
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import type * as v from "valibot";
import { emit } from "../../core/events";
import { brandDefaultUpdated, brandingUpdated } from "./events";
import { audit } from "../../core/audit";
import { iso } from "../../core/clock";
import { bumpContentVersion } from "../sites/content-version";
import type { ActorContext } from "../../core/context";
import { invalid, notFound } from "../../core/errors";
import { authorize } from "../../core/scopes";
import { urlProblem } from "../blocks/urls";
import { siteForActor } from "../sites/access";
import { primarySiteId } from "../sites/facts";
import { companyDefaultRow } from "./company-default";
import { contrastWarnings } from "./brand-audit";
import { HEX_RE, normalizeHex } from "./contrast";
import { cssVarsFor } from "./css-vars";
import { toPublicBranding } from "./public-reads";
import {
  Branding,
  BUTTON_STYLE_COLOURS,
  DARK_MODE_KEYS,
  MAX_PRESETS,
  PRESET_COLOURS,
  PRESET_CSS,
  TYPOGRAPHY_KEYS,
  type BrandingData,
  type BrandingPatchData,
  type clearFieldsInput,
  type siteOnly,
  type updateProfileInput,
} from "./schemas";
import { brandDefaults, brandProfiles } from "./tables";
import * as val from "valibot";

import { BRANDING_DEFAULTS } from "./defaults";

export { BRANDING_DEFAULTS };

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => typeof x === "object" && x !== null && !Array.isArray(x);

const TOP_COLOURS = new Set([
  "primaryColor",
  "secondaryColor",
  "accentColor",
  "backgroundColor",
  "textColor",
  "navBackground",
  "navTextColor",
  "linkColor",
  "linkHoverColor",
]);
const URLS = new Set(["logoUrl", "logoSquareUrl", "logoRectUrl", "logoIconUrl", "faviconUrl", "ogImageUrl"]);
const NESTED_COLOURS: Record<string, ReadonlySet<string>> = {
  buttonStyle: new Set(BUTTON_STYLE_COLOURS),
  darkMode: new Set(DARK_MODE_KEYS),
};

function normalizeValue(key: string, value: string, colour: boolean): string {
  if (colour && HEX_RE.test(value)) return normalizeHex(value);
  if (URLS.has(key)) {
    const problem = urlProblem(value);
    if (problem) throw invalid(`${key} ${problem}.`);
    return value;
  }
  return value.trim();
}

/** Merges a flat patch (null deletes) into a flat object; returns undefined when nothing is left. */
function mergeFlat(current: unknown, patch: Obj, colours: ReadonlySet<string>, path: string): Obj | undefined {
  const out: Obj = isObj(current) ? { ...current } : {};
  for (const [k, x] of Object.entries(patch)) {
    if (x === undefined) continue;
    if (x === null) delete out[k];
    else out[k] = normalizeValue(`${path}.${k}`, x as string, colours.has(k));
  }
  return Object.keys(out).length ? out : undefined;
}

export function applyPatch(
  current: BrandingData,
  patch: BrandingPatchData,
  newId: () => string = randomUUID,
): BrandingData {
  const out: Obj = { ...current };
  for (const [key, x] of Object.entries(patch)) {
    if (x === undefined) continue;
    if (x === null) {
      delete out[key];
      continue;
    }
    let next: unknown;
    if (key === "buttonStyle" || key === "darkMode") next = mergeFlat(out[key], x as Obj, NESTED_COLOURS[key]!, key);
    else if (key === "typography") {
      const t: Obj = isObj(out.typography) ? { ...out.typography } : {};
      for (const [el, style] of Object.entries(x as Obj)) {
        if (style === null) delete t[el];
        else {
          const merged = mergeFlat(t[el], style as Obj, new Set(), `typography.${el}`);
          if (merged) t[el] = merged;
          else delete t[el];
        }
      }
      next = Object.keys(t).length ? t : undefined;
    } else if (key === "buttonPresets") {
      const presets = Array.isArray(out.buttonPresets) ? (out.buttonPresets as Obj[]).map((p) => ({ ...p })) : [];
      for (const p of x as (Obj & { id?: string })[]) {
        const { id, ...fields } = p;
        if (id !== undefined) {
          const i = presets.findIndex((q) => q.id === id);
          if (i < 0) throw invalid(`No button preset has id ${id}; omit id to add a new preset.`);
          presets[i] = { id, ...mergeFlat(presets[i], fields, new Set(PRESET_COLOURS), `buttonPresets.${id}`) };
          if (!presets[i]!.name) throw invalid(`Button preset ${id} needs a name.`);
        } else {
          if (typeof fields.name !== "string") throw invalid("A new button preset needs a name.");
          presets.push({ id: newId(), ...mergeFlat({}, fields, new Set(PRESET_COLOURS), "buttonPresets.new") });
        }
      }
      if (presets.length > MAX_PRESETS) throw invalid(`At most ${MAX_PRESETS} button presets.`);
      next = presets.length ? presets : undefined;
    } else next = normalizeValue(key, x as string, TOP_COLOURS.has(key));
    if (next === undefined) delete out[key];
    else out[key] = next;
  }
  // The merged profile must still be a valid Branding object (belt and braces: the patch schema already held).
  const checked = val.safeParse(Branding, out);
  if (!checked.success) {
    // Only reachable through a stored value from before a rule existed; name it so it can be fixed or cleared.
    const issue = checked.issues[0]!;
    throw invalid(
      `The stored profile has an invalid field ${val.getDotPath(issue) ?? ""} (${issue.message}); set it again or clear it with branding_clear_fields.`,
    );
  }
  return checked.output as BrandingData;
}

/** Paths branding_clear_fields understands, for the error message. */
const CLEAR_GRAMMAR =
  "a top-level field (e.g. primaryColor, typography), buttonStyle.<field>, darkMode.<field>, typography.<element>, typography.<element>.<field>, buttonPresets.<id> or buttonPresets.<id>.<field>";

/** Turns "typography.h1.size"-style paths into a patch of nulls. */
export function clearPatch(current: BrandingData, fields: string[]): BrandingPatchData {
  const patch: Obj = {};
  const topKeys = Object.keys(Branding.entries);
  for (const path of fields) {
    const [head, a, b, ...rest] = path.split(".");
    const bad = () => invalid(`Cannot clear "${path}": give ${CLEAR_GRAMMAR}.`);
    if (!head || !topKeys.includes(head) || rest.length) throw bad();
    if (a === undefined) {
      patch[head] = null;
    } else if (head === "buttonStyle" || head === "darkMode") {
      const allowed = head === "darkMode" ? DARK_MODE_KEYS : [...BUTTON_STYLE_COLOURS, "borderRadius", "variant"];
      if (b !== undefined || !(allowed as readonly string[]).includes(a)) throw bad();
      if (patch[head] !== null) patch[head] = { ...(patch[head] as Obj), [a]: null };
    } else if (head === "typography") {
      if (b !== undefined && !(TYPOGRAPHY_KEYS as readonly string[]).includes(b)) throw bad();
      if (patch.typography === null) continue;
      const t = (patch.typography as Obj) ?? {};
      if (t[a] === null) continue; // the whole element is already being cleared
      t[a] = b === undefined ? null : { ...((t[a] as Obj) ?? {}), [b]: null };
      patch.typography = t;
    } else if (head === "buttonPresets") {
      if (patch.buttonPresets === null) continue;
      const presets = (current.buttonPresets ?? []) as Obj[];
      if (!presets.some((p) => p.id === a)) throw invalid(`No button preset has id ${a}.`);
      if (b !== undefined && !([...PRESET_COLOURS, ...PRESET_CSS] as readonly string[]).includes(b)) throw bad();
      // Removing one preset is expressed on the list itself; field clears go through the upsert.
      if (b === undefined) patch.__removePresets = [...((patch.__removePresets as string[]) ?? []), a];
      else patch.buttonPresets = [...((patch.buttonPresets as Obj[]) ?? []), { id: a, [b]: null }];
    } else throw bad();
  }
  return patch as BrandingPatchData;
}

async function profileRow(ctx: ActorContext, siteId: number) {
  return (await ctx.deps.db.select().from(brandProfiles).where(eq(brandProfiles.siteId, siteId)).limit(1))[0] ?? null;
}

/** What a stored profile holds, parsed; a row from before a schema change degrades to its valid fields. */
function stored(data: unknown): BrandingData {
  const r = val.safeParse(Branding, data);
  return r.success ? (r.output as BrandingData) : toPublicBranding(data);
}

export function profileView(
  siteId: number | null,
  siteName: string | null,
  data: BrandingData,
  updatedAt: Date | null,
) {
  return {
    siteId,
    siteName,
    branding: data,
    /** Colours a renderer falls back to when a field is not set. */
    defaults: BRANDING_DEFAULTS,
    effective: { ...BRANDING_DEFAULTS, ...data },
    cssVars: cssVarsFor(toPublicBranding(data)),
    updatedAt: iso(updatedAt),
  };
}

export async function brandingRead(ctx: ActorContext, siteId: number) {
  authorize(ctx, "branding:read", { write: false });
  return await siteForActor(ctx, siteId);
}

async function brandingWrite(ctx: ActorContext, siteId: number) {
  authorize(ctx, "branding:write", { write: true });
  return await siteForActor(ctx, siteId);
}

export async function getProfile(ctx: ActorContext, input: v.InferOutput<typeof siteOnly>) {
  const site = await brandingRead(ctx, input.siteId);
  const row = await profileRow(ctx, site.id);
  return profileView(site.id, site.name, stored(row?.data ?? {}), row?.updatedAt ?? null);
}

/** The company's default profile, in a site profile's shape with siteId null (new sites start from it). */
export async function getCompanyDefault(ctx: ActorContext) {
  authorize(ctx, "branding:read", { write: false });
  const row = await companyDefaultRow(ctx.deps.db, ctx.company.id);
  return { ...profileView(null, null, stored(row?.data ?? {}), row?.updatedAt ?? null), companyDefault: true };
}

/** Writes the company default: an empty profile removes the row (new sites then start on the built-in defaults). */
async function saveDefault(ctx: ActorContext, next: BrandingData, fields: string[], warnings: string[]) {
  const now = ctx.deps.clock.now();
  const companyId = ctx.company.id;
  await ctx.deps.db.transaction(async (tx) => {
    if (Object.keys(next).length === 0) await tx.delete(brandDefaults).where(eq(brandDefaults.companyId, companyId));
    else
      await tx
        .insert(brandDefaults)
        .values({ companyId, data: next as Obj, createdAt: now, updatedAt: now })
        .onConflictDoUpdate({ target: brandDefaults.companyId, set: { data: next as Obj, updatedAt: now } });
    await audit(tx, ctx, "branding.update", { type: "brand_default", id: companyId, detail: { fields } });
    await emit(tx, ctx, brandDefaultUpdated, { id: companyId }, { fields });
  });
  return {
    siteId: null,
    companyDefault: true,
    status: Object.keys(next).length ? "saved" : "defaults",
    fields: Object.keys(next),
    buttonPresets: (next.buttonPresets ?? []).map((p) => ({ id: p.id, name: p.name })),
    updatedAt: iso(now),
    ...(warnings.length ? { warnings } : {}),
  };
}

/**
 * branding_update_profile without a site: siteId null always means the
 * company default; an omitted siteId means it only while the company has
 * no active site (what brand://default then shows). With a site, omitting
 * siteId is refused rather than guessed: a write to a live site's brand
 * should be named.
 */
async function updateCompanyDefault(ctx: ActorContext, siteId: null | undefined, patch: BrandingPatchData) {
  authorize(ctx, "branding:write", { write: true });
  if (siteId === undefined) {
    const primary = await primarySiteId(ctx.deps.db, ctx.company.id);
    if (primary !== null)
      throw invalid(
        `${ctx.company.name} has sites: give siteId (site ${primary} is its primary site), or siteId null for the company default that new sites start from.`,
        { path: "siteId" },
      );
  }
  const fields = Object.keys(patch).filter((k) => (patch as Obj)[k] !== undefined);
  if (fields.length === 0) throw invalid("branding is empty: give at least one field to set (or null to clear).");
  const current = stored((await companyDefaultRow(ctx.deps.db, ctx.company.id))?.data ?? {});
  const next = applyPatch(current, patch);
  return await saveDefault(ctx, next, fields, contrastWarnings(current, next));
}

async function save(
  ctx: ActorContext,
  site: { id: number; name: string },
  action: string,
  next: BrandingData,
  detail: Obj,
  warnings: string[] = [],
) {
  const now = ctx.deps.clock.now();
  await ctx.deps.db.transaction(async (tx) => {
    if (Object.keys(next).length === 0) await tx.delete(brandProfiles).where(eq(brandProfiles.siteId, site.id));
    else
      await tx
        .insert(brandProfiles)
        .values({ siteId: site.id, data: next as Obj, createdAt: now, updatedAt: now })
        .onConflictDoUpdate({ target: brandProfiles.siteId, set: { data: next as Obj, updatedAt: now } });
    await audit(tx, ctx, action, { type: "brand_profile", id: site.id, siteId: site.id, detail });
    await emit(
      tx,
      ctx,
      brandingUpdated,
      { id: site.id, siteId: site.id },
      {
        siteId: site.id,
        action: action.slice("branding.".length) as "update" | "clear_fields" | "delete",
        fields: Array.isArray(detail.fields) ? (detail.fields as string[]) : [],
        cacheTags: [`site:${site.id}`],
      },
    );
    await bumpContentVersion(tx, site.id);
  });
  // Compact echo (interface.md 2.7): what changed, plus the preset ids an agent needs for its next patch.
  return {
    siteId: site.id,
    status: Object.keys(next).length ? "saved" : "defaults",
    fields: Object.keys(next),
    buttonPresets: (next.buttonPresets ?? []).map((p) => ({ id: p.id, name: p.name })),
    updatedAt: iso(now),
    // Saved all the same: contrast is advice, not a rule (branding_audit checks the whole profile).
    ...(warnings.length ? { warnings } : {}),
  };
}

export async function updateProfile(ctx: ActorContext, input: v.InferOutput<typeof updateProfileInput>) {
  if (input.siteId === null || input.siteId === undefined)
    return await updateCompanyDefault(ctx, input.siteId, input.branding);
  const site = await brandingWrite(ctx, input.siteId);
  const fields = Object.keys(input.branding).filter((k) => (input.branding as Obj)[k] !== undefined);
  if (fields.length === 0) throw invalid("branding is empty: give at least one field to set (or null to clear).");
  const current = stored((await profileRow(ctx, site.id))?.data ?? {});
  const next = applyPatch(current, input.branding);
  return await save(ctx, site, "branding.update", next, { fields }, contrastWarnings(current, next));
}

export async function clearFields(ctx: ActorContext, input: v.InferOutput<typeof clearFieldsInput>) {
  const site = await brandingWrite(ctx, input.siteId);
  const current = stored((await profileRow(ctx, site.id))?.data ?? {});
  const { __removePresets, ...patch } = clearPatch(current, input.fields) as Obj;
  let next = applyPatch(current, patch as BrandingPatchData);
  if (Array.isArray(__removePresets) && next.buttonPresets) {
    const kept = next.buttonPresets.filter((p) => !(__removePresets as string[]).includes(p.id!));
    next = { ...next };
    if (kept.length) next.buttonPresets = kept;
    else delete next.buttonPresets;
  }
  return await save(
    ctx,
    site,
    "branding.clear_fields",
    next,
    { fields: input.fields },
    contrastWarnings(current, next),
  );
}

export async function deleteProfile(ctx: ActorContext, input: v.InferOutput<typeof siteOnly>) {
  const site = await brandingWrite(ctx, input.siteId);
  if (!(await profileRow(ctx, site.id)))
    throw notFound(`Site ${site.id} has no brand profile; it already uses the defaults.`);
  return await save(ctx, site, "branding.delete", {}, {});
}
