/**
 * The branding toolset: brand profiles (the spec's Branding object per
 * site), brand messaging, WCAG contrast checks and a brand audit, plus the
 * brand://default resource for single-company connections.
 */
import { and, asc, eq } from "drizzle-orm";
import type { ActorContext } from "../../core/context";
import { notFound } from "../../core/errors";
import { authorize } from "../../core/scopes";
import { defineResource, defineTool, type Domain } from "../../mcp/define";
import { sites } from "../sites/tables";
import { auditBranding } from "./brand-audit";
import { contrast, nearestPassing, normalizeHex, THRESHOLDS } from "./contrast";
import { getMessaging, messagingRow, messagingView, updateMessaging } from "./messaging";
import { clearFields, deleteProfile, getProfile, updateProfile } from "./profiles";
import * as s from "./schemas";

const brandingGetProfile = defineTool({
  name: "branding_get_profile",
  toolset: "branding",
  scope: "branding:read",
  readOnly: true,
  title: "Get a brand profile",
  description:
    "Get a site's brand profile: branding (only the fields that are set: colours, fonts, logos, nav styling, button style, button presets with their ids, typography per element, dark mode), " +
    "the spec defaults and the effective colours after defaults, and cssVars exactly as the storefront API serves them. Multi-company connections use this in place of brand://default.",
  input: s.siteOnly,
  run: getProfile,
});

const brandingUpdateProfile = defineTool({
  name: "branding_update_profile",
  toolset: "branding",
  scope: "branding:write",
  readOnly: false,
  idempotent: true,
  title: "Update a brand profile",
  description:
    'Change a site\'s branding by merging a partial Branding object, e.g. {"primaryColor":"#0f766e","typography":{"h1":{"size":"3rem"}}}. ' +
    "Given fields replace, null clears a field back to its default, buttonStyle, darkMode and each typography element merge field by field, " +
    "and buttonPresets are upserted: an entry with id changes that preset, one without id (and with a name) adds a preset with a new stable uuid. " +
    "Colours are hex (#rgb or #rrggbb); URLs absolute http(s) or /paths. Takes effect on the storefront API at once. Returns the fields now set and the presets with their ids; read the whole profile with branding_get_profile.",
  input: s.updateProfileInput,
  run: updateProfile,
});

const brandingClearFields = defineTool({
  name: "branding_clear_fields",
  toolset: "branding",
  scope: "branding:write",
  readOnly: false,
  idempotent: true,
  title: "Clear brand fields",
  description:
    "Reset fields of a site's branding to their defaults by path: a top-level field (primaryColor, typography, buttonPresets …), buttonStyle.<field>, darkMode.<field>, " +
    "typography.<element>, typography.<element>.<field>, buttonPresets.<id> (removes that preset) or buttonPresets.<id>.<field>. Returns the fields still set.",
  input: s.clearFieldsInput,
  run: clearFields,
});

const brandingDeleteProfile = defineTool({
  name: "branding_delete_profile",
  toolset: "branding",
  scope: "branding:write",
  readOnly: false,
  destructive: true,
  title: "Delete a brand profile",
  description: "Delete a site's whole brand profile, so the site falls back to the default branding. Brand messaging is kept.",
  input: s.siteOnly,
  run: deleteProfile,
});

const brandingCheckContrast = defineTool({
  name: "branding_check_contrast",
  toolset: "branding",
  scope: "branding:read",
  readOnly: true,
  title: "Check colour contrast",
  description:
    "WCAG 2.x contrast ratio of a foreground and a background hex colour, with pass/fail for AA and AAA at normal and large text sizes " +
    "(AA: 4.5 normal, 3 large; AAA: 7 normal, 4.5 large). Failing checks come with the nearest passing foreground for each level.",
  input: s.contrastInput,
  run: (ctx, input) => {
    authorize(ctx, "branding:read", { write: false });
    const fg = normalizeHex(input.foreground);
    const bg = normalizeHex(input.background);
    const r = contrast(fg, bg);
    const suggestions: Record<string, string | null> = {};
    if (!r.aa.normal) suggestions.aaNormal = nearestPassing(fg, bg, THRESHOLDS.aa.normal);
    if (!r.aa.large) suggestions.aaLarge = nearestPassing(fg, bg, THRESHOLDS.aa.large);
    if (!r.aaa.normal) suggestions.aaaNormal = nearestPassing(fg, bg, THRESHOLDS.aaa.normal);
    if (!r.aaa.large) suggestions.aaaLarge = nearestPassing(fg, bg, THRESHOLDS.aaa.large);
    return { foreground: fg, background: bg, ...r, thresholds: THRESHOLDS, suggestions };
  },
});

const brandingAudit = defineTool({
  name: "branding_audit",
  toolset: "branding",
  scope: "branding:read",
  readOnly: true,
  title: "Audit a brand profile",
  description:
    "Check every foreground/background pair a site's branding implies (text, links, nav, buttons, button presets, dark mode) against WCAG AA for normal text (4.5:1), " +
    "with the nearest passing colour for each failure; list pairs skipped for lack of a colour, missing logos and favicon, and other warnings (logo without alt text, no social image).",
  input: s.siteOnly,
  run: async (ctx, input) => {
    const profile = await getProfile(ctx, input);
    return { siteId: profile.siteId, ...auditBranding(profile.branding) };
  },
});

const brandMessagingGet = defineTool({
  name: "brand_messaging_get",
  toolset: "branding",
  scope: "branding:read",
  readOnly: true,
  title: "Get brand messaging",
  description: "Get a site's brand messaging: tagline, tone of voice, elevator pitch, key messages and words to avoid. Read it before writing copy for the brand.",
  input: s.siteOnly,
  run: getMessaging,
});

const brandMessagingUpdate = defineTool({
  name: "brand_messaging_update",
  toolset: "branding",
  scope: "branding:write",
  readOnly: false,
  idempotent: true,
  title: "Update brand messaging",
  description:
    "Change a site's brand messaging. Fields you omit stay; null clears one; keyMessages (up to 20) and wordsToAvoid (up to 100) replace the whole list. Returns which fields now hold a value.",
  input: s.messagingUpdateInput,
  run: updateMessaging,
});

/** The company's primary site: its first active site (lowest id). */
async function primarySite(ctx: ActorContext) {
  return (await ctx.deps.db
      .select({ id: sites.id })
      .from(sites)
      .where(and(eq(sites.companyId, ctx.company.id), eq(sites.active, true)))
      .orderBy(asc(sites.id))
      .limit(1))[0];
}

/** brand://default as JSON: the primary site's profile, audit-free, with its messaging. */
export async function readDefaultBrand(ctx: ActorContext): Promise<string> {
  authorize(ctx, "branding:read", { write: false });
  const site = await primarySite(ctx);
  if (!site) throw notFound(`${ctx.company.name} has no active site, so it has no brand profile yet.`);
  const profile = await getProfile(ctx, { siteId: site.id });
  return JSON.stringify({ ...profile, messaging: messagingView(site.id, await messagingRow(ctx, site.id)) });
}

const brandDefault = defineResource({
  uri: "brand://default",
  name: "Default brand profile",
  description:
    "The brand profile of this company's primary site (its first active site) as JSON: branding fields that are set, defaults, effective colours, cssVars and brand messaging. " +
    "Offered only to connections that reach exactly one company; others call branding_get_profile with clientId and siteId.",
  mimeType: "application/json",
  scope: "branding:read",
  singleCompanyOnly: true,
  read: async ({ deps, principal, company }) => {
    if (!company) throw notFound("brand://default needs a connection that reaches exactly one company.");
    return await readDefaultBrand({ deps, principal, company, requestId: "" });
  },
});

export const brandingDomain: Domain = {
  name: "branding",
  title: "Branding",
  description:
    "Brand profiles per site (colours, fonts, logos, nav and button styling, typography, dark mode) served by the storefront API with cssVars, brand messaging, WCAG contrast checks and a brand audit.",
  tools: [brandingGetProfile, brandingUpdateProfile, brandingClearFields, brandingDeleteProfile, brandingCheckContrast, brandingAudit, brandMessagingGet, brandMessagingUpdate],
  resources: [brandDefault],
};
