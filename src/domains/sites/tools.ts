/**
 * MCP tools for sites, their domains and environment variables (toolset cms; scopes sites:read / sites:write).
 *
 * @public Serves cms (its toolset publishes the site tools).
 */
import * as v from "valibot";
import { pageInput } from "../../core/pagination";
import { defineTool } from "../../mcp/define";
import { contentTables } from "../cms/media-facts";
import { siteDomains, sites } from "./tables";
import {
  addDomain,
  getSite,
  listDomains,
  listEnvVars,
  listSites,
  MAX_ENV_VALUE,
  removeDomain,
  setEnvVar,
  deleteEnvVar,
  updateDomain,
  ENV_KEY_RE,
} from "./verbs";
import { idSchema } from "../../core/fields";

const siteId = idSchema;
const envKey = v.pipe(
  v.string(),
  v.regex(ENV_KEY_RE, "must be UPPER_SNAKE_CASE: A–Z, 0–9 and _, starting with a letter or _ (at most 128 characters)"),
);

export const siteTools = [
  defineTool({
    name: "sites_list",
    toolset: "cms",
    scope: "sites:read",
    readOnly: true,
    title: "List sites",
    description: "The company's sites: the siteId other CMS tools take.",
    input: v.object({ ...pageInput }),
    cachedBy: [sites],
    run: async (ctx, input) => await listSites(ctx, input),
  }),
  defineTool({
    name: "sites_get",
    toolset: "cms",
    scope: "sites:read",
    readOnly: true,
    title: "Get a site",
    description: "A site with its domains and counts of posts and media.",
    input: v.object({ siteId }),
    cachedBy: [sites, siteDomains, ...contentTables],
    run: async (ctx, input) => await getSite(ctx, input),
  }),
  defineTool({
    name: "site_domains_list",
    toolset: "cms",
    scope: "sites:read",
    readOnly: true,
    title: "List site domains",
    description: "A site's custom domains and which is primary.",
    input: v.object({ siteId }),
    cachedBy: [sites, siteDomains],
    run: async (ctx, input) => await listDomains(ctx, input),
  }),
  defineTool({
    name: "site_domains_add",
    toolset: "cms",
    scope: "sites:write",
    readOnly: false,
    title: "Add a site domain",
    description: "Add a custom domain to a site; the first becomes primary.",
    input: v.object({
      siteId,
      hostname: v.pipe(v.string(), v.minLength(1), v.maxLength(253)),
      primary: v.optional(v.boolean()),
    }),
    run: async (ctx, input) => await addDomain(ctx, input),
  }),
  defineTool({
    name: "site_domains_update",
    toolset: "cms",
    scope: "sites:write",
    readOnly: false,
    title: "Set the primary domain",
    description: "Make a domain the site's primary (true), or leave none (false).",
    input: v.object({ siteId, id: idSchema, primary: v.boolean() }),
    run: async (ctx, input) => await updateDomain(ctx, input),
  }),
  defineTool({
    name: "site_domains_remove",
    toolset: "cms",
    scope: "sites:write",
    readOnly: false,
    destructive: true,
    title: "Remove a site domain",
    description: "Remove a domain from a site; the oldest left becomes primary.",
    input: v.object({ siteId, id: idSchema }),
    run: async (ctx, input) => await removeDomain(ctx, input),
  }),
  defineTool({
    name: "site_env_vars_list",
    toolset: "cms",
    scope: "sites:read",
    readOnly: true,
    title: "List environment variables",
    description: "A site's environment variables; secret values show as null.",
    input: v.object({ siteId }),
    run: async (ctx, input) => await listEnvVars(ctx, input),
  }),
  defineTool({
    name: "site_env_vars_set",
    toolset: "cms",
    scope: "sites:write",
    readOnly: false,
    title: "Set an environment variable",
    description: "Create or replace a site environment variable (secret: hidden).",
    input: v.object({
      siteId,
      key: envKey,
      value: v.pipe(v.string(), v.maxLength(MAX_ENV_VALUE)),
      secret: v.optional(v.boolean()),
    }),
    run: async (ctx, input) => await setEnvVar(ctx, input),
  }),
  defineTool({
    name: "site_env_vars_delete",
    toolset: "cms",
    scope: "sites:write",
    readOnly: false,
    destructive: true,
    title: "Delete an environment variable",
    description: "Delete a site environment variable by key.",
    input: v.object({ siteId, key: envKey }),
    run: async (ctx, input) => await deleteEnvVar(ctx, input),
  }),
];
