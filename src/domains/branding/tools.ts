/**
 * The branding toolset: brand profiles (the spec's Branding object per
 * site, and a company default that a company without a site has and a new
 * site starts from), brand messaging, WCAG contrast checks and a brand
 * audit, plus the brand://default resource for single-company connections.
 */
import { brandingEvents } from "./events";
import type { ActorContext } from "../../core/context";
import { notFound } from "../../core/errors";
import { authorize } from "../../core/scopes";
import { defineResource, defineTool, type Domain } from "../../mcp/define";
import { primarySiteId } from "../sites/facts";
import { brandingApprovalSupport } from "./approval-support";
import { auditBranding } from "./brand-audit";
import { contrast, nearestFix, normalizeHex, THRESHOLDS, type ContrastFix } from "./contrast";
import { getMessaging, messagingRow, messagingView, updateMessaging } from "./messaging";
import { clearFields, deleteProfile, getCompanyDefault, getProfile, updateProfile } from "./profiles";
import * as s from "./schemas";
import { brandingStagedTargets } from "./staged-targets";

/** The company's primary site: its first active site (lowest id). */
async function primarySite(ctx: ActorContext) {
  const id = await primarySiteId(ctx.deps.db, ctx.company.id);
  return id === null ? undefined : { id };
}

/**
 * The site a read acts on: the one named, else the company's primary site
 * (what brand://default shows); null for the company default profile
 * (named with siteId null, or a company without an active site).
 */
async function siteOrPrimary(ctx: ActorContext, siteId: number | null | undefined): Promise<number | null> {
  if (siteId !== undefined) return siteId;
  return (await primarySite(ctx))?.id ?? null;
}

/** A profile read: a site's, or the company default's. */
async function readProfile(ctx: ActorContext, siteId: number | null | undefined) {
  const id = await siteOrPrimary(ctx, siteId);
  return id === null ? await getCompanyDefault(ctx) : await getProfile(ctx, { siteId: id });
}

const brandingGetProfile = defineTool({
  name: "branding_get_profile",
  toolset: "branding",
  scope: "branding:read",
  readOnly: true,
  title: "Get a brand profile",
  description:
    "A brand profile with effective colours and cssVars; no siteId: primary site, null: the company default.",
  input: s.siteOptional,
  run: async (ctx, input) => await readProfile(ctx, input.siteId),
});

const brandingUpdateProfile = defineTool({
  name: "branding_update_profile",
  toolset: "branding",
  scope: "branding:write",
  readOnly: false,
  supervised: "staged",
  idempotent: true,
  title: "Update a brand profile",
  description:
    "Merge partial branding (null resets a field); live at once, warns on WCAG AA failures. siteId null: the company default.",
  input: s.updateProfileInput,
  run: updateProfile,
});

const brandingClearFields = defineTool({
  name: "branding_clear_fields",
  toolset: "branding",
  scope: "branding:write",
  readOnly: false,
  supervised: "staged",
  idempotent: true,
  title: "Clear brand fields",
  description: "Reset named branding fields to their defaults; live at once.",
  input: s.clearFieldsInput,
  run: clearFields,
});

const brandingDeleteProfile = defineTool({
  name: "branding_delete_profile",
  toolset: "branding",
  scope: "branding:write",
  readOnly: false,
  supervised: "staged",
  destructive: true,
  title: "Delete a brand profile",
  description: "Delete a site's brand profile (back to default); messaging stays.",
  input: s.siteOnly,
  run: deleteProfile,
});

const brandingCheckContrast = defineTool({
  name: "branding_check_contrast",
  toolset: "branding",
  scope: "branding:read",
  readOnly: true,
  // Touches no company data: no clientId.
  companyFree: true,
  title: "Check colour contrast",
  description: "Contrast of two hex colours against WCAG AA/AAA, with fixes.",
  input: s.contrastInput,
  run: (ctx, input) => {
    authorize(ctx, "branding:read", { write: false });
    const fg = normalizeHex(input.foreground);
    const bg = normalizeHex(input.background);
    const r = contrast(fg, bg);
    // Per failed level, both ways to pass: a new foreground on this background, or a new background under this foreground.
    const suggestions: Record<string, ContrastFix> = {};
    if (!r.aa.normal) suggestions.aaNormal = nearestFix(fg, bg, THRESHOLDS.aa.normal);
    if (!r.aa.large) suggestions.aaLarge = nearestFix(fg, bg, THRESHOLDS.aa.large);
    if (!r.aaa.normal) suggestions.aaaNormal = nearestFix(fg, bg, THRESHOLDS.aaa.normal);
    if (!r.aaa.large) suggestions.aaaLarge = nearestFix(fg, bg, THRESHOLDS.aaa.large);
    return { foreground: fg, background: bg, ...r, thresholds: THRESHOLDS, suggestions };
  },
});

const brandingAudit = defineTool({
  name: "branding_audit",
  toolset: "branding",
  scope: "branding:read",
  readOnly: true,
  title: "Audit a brand profile",
  description: "Check a site's brand colours for contrast, and missing assets.",
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
  description: "A site's tagline, tone of voice, key messages, words to avoid.",
  input: s.siteOnly,
  run: getMessaging,
});

const brandMessagingUpdate = defineTool({
  name: "brand_messaging_update",
  toolset: "branding",
  scope: "branding:write",
  readOnly: false,
  supervised: "staged",
  idempotent: true,
  title: "Update brand messaging",
  description: "Change a site's brand messaging (null clears; lists replace).",
  input: s.messagingUpdateInput,
  run: updateMessaging,
});

/**
 * brand://default as JSON: the primary site's profile, audit-free, with its
 * messaging; a company without an active site gets its default profile
 * (messaging is a site's: null).
 */
export async function readDefaultBrand(ctx: ActorContext): Promise<string> {
  authorize(ctx, "branding:read", { write: false });
  const siteId = await siteOrPrimary(ctx, undefined);
  if (siteId === null) return JSON.stringify({ ...(await getCompanyDefault(ctx)), messaging: null });
  const profile = await getProfile(ctx, { siteId });
  return JSON.stringify({ ...profile, messaging: messagingView(siteId, await messagingRow(ctx, siteId)) });
}

const brandDefault = defineResource({
  uri: "brand://default",
  name: "Default brand profile",
  description:
    "The brand profile of this company's primary site (its first active site) as JSON: branding fields that are set, defaults, effective colours, cssVars and brand messaging; without an active site, the company default that new sites start from. " +
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
  scopes: [
    {
      area: "branding",
      title: "Branding",
      words: {
        "branding:read": "read brand profiles and messaging and run contrast checks",
        "branding:write": "create, change and delete them",
      },
    },
  ],
  name: "branding",
  title: "Branding",
  description:
    "Brand profiles per site (colours, fonts, logos, nav and button styling, typography, dark mode) served by the storefront API with cssVars, brand messaging, WCAG contrast checks and a brand audit.",
  vocabulary: {
    color: ["colour"],
    colours: ["colour"],
    font: ["typography"],
    readable: ["contrast"],
    legible: ["contrast"],
    accessibility: ["contrast", "audit"],
    accessible: ["contrast", "audit"],
    tagline: ["messaging"],
    slogan: ["messaging"],
    tone: ["messaging"],
    voice: ["messaging"],
    logo: ["profile"],
    style: ["profile"],
    look: ["profile"],
    theme: ["profile"],
  },
  tools: [
    brandingGetProfile,
    brandingUpdateProfile,
    brandingClearFields,
    brandingDeleteProfile,
    brandingCheckContrast,
    brandingAudit,
    brandMessagingGet,
    brandMessagingUpdate,
  ],
  resources: [brandDefault],
  approvalSupport: brandingApprovalSupport,
  stagedTargets: brandingStagedTargets,
  events: brandingEvents,
};
