/**
 * Staged-change targets for site settings (see approvals/kinds.ts StagedTarget).
 *
 * @public Serves cms (its toolset publishes the site tools and their staged
 * targets).
 */
import { and, eq } from "drizzle-orm";
import type { ActorContext } from "../../core/context";
import type { StagedTarget } from "../approvals/kinds";
import { sha256Hex } from "../../core/secrets";
import { siteForActor } from "./access";
import { siteDomains, siteEnvVars } from "./tables";

async function site(ctx: ActorContext, input: Record<string, unknown>) {
  if (typeof input.siteId !== "number") return null;
  try {
    return await siteForActor(ctx, input.siteId);
  } catch {
    return null;
  }
}

export const siteStagedTargets: StagedTarget[] = [
  {
    entityType: "site_domain",
    tools: ["site_domains_add", "site_domains_update", "site_domains_remove"],
    async current(ctx, input) {
      const s = await site(ctx, input);
      if (!s || typeof input.id !== "number") return null;
      const d = (
        await ctx.deps.db
          .select()
          .from(siteDomains)
          .where(and(eq(siteDomains.id, input.id), eq(siteDomains.siteId, s.id)))
          .limit(1)
      )[0];
      return d ? { hostname: d.hostname, primary: d.isPrimary } : null;
    },
  },
  {
    entityType: "site_env_var",
    tools: ["site_env_vars_set", "site_env_vars_delete"],
    async current(ctx, input) {
      const s = await site(ctx, input);
      if (!s || typeof input.key !== "string") return null;
      const e = (
        await ctx.deps.db
          .select()
          .from(siteEnvVars)
          .where(and(eq(siteEnvVars.siteId, s.id), eq(siteEnvVars.key, input.key)))
          .limit(1)
      )[0];
      // A secret's value is compared through a fingerprint, never stored in the link.
      return e ? { key: e.key, value: e.secret ? `sha256:${sha256Hex(e.value)}` : e.value, secret: e.secret } : null;
    },
    // Values of secrets (or of keys named like secrets) never appear on the public approval page.
    redact: (input, before) =>
      input.secret === true ||
      before?.secret === true ||
      /SECRET|TOKEN|PASSWORD|PASSWD|PRIVATE|CREDENTIAL|API_?KEY/.test(String(input.key))
        ? ["value"]
        : [],
  },
];
