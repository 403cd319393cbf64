/**
 * The always-available surface every credential has, whatever its scopes:
 * the whoami tool and the blocks://schema resource (interface.md 4.2, 5.3
 * "(unscoped)"). They live together here because they share that rule.
 */
import * as v from "valibot";
import { covers } from "../../core/scopes";
import { blockSchemaMarkdown } from "../blocks/markdown";
import { sitesByCompany } from "../sites/verbs";
import { defineResource, defineTool, type Domain } from "../../mcp/define";
import { accountsApprovalSupport } from "./approval-support";

/** Scopes of tools that take a siteId: a credential with any of them sees each company's sites in whoami. */
const SITE_SCOPES = ["sites:read", "media:read", "store:read", "branding:read"];

/**
 * whoami (interface.md 2.7). `client` and `defaultClientId` name the first
 * reachable company (lowest id), the one a single-company connection acts
 * for. A connection that reaches no company still gets an answer, with
 * `client: null`, `defaultClientId: null` and `clients: []`, so a model
 * can tell the user to re-authorize.
 *
 * Beyond the spec's fields, each client lists its sites (id, name, primary
 * domain) when the credential may use site-scoped tools, so a model picks
 * the right clientId for a siteId without a sites_list per company.
 */
export const whoami = defineTool({
  name: "whoami",
  toolset: "accounts",
  scope: null,
  readOnly: true,
  companyFree: true,
  title: "Who am I",
  description:
    "Who this connection acts as: user, companies (clients) with role and sites, scopes, listing mode. Call it first.",
  input: v.object({}),
  run: async (ctx) => {
    const p = ctx.principal;
    const first = p.companies[0];
    const withSites = SITE_SCOPES.some((s) => covers(p.scopes, s));
    const bySite = withSites
      ? await sitesByCompany(
          ctx.deps,
          p.companies.map((c) => c.id),
        )
      : null;
    return {
      userId: p.userId,
      client: first ? { id: first.id, company: first.name } : null,
      defaultClientId: first ? first.id : null,
      clients: p.companies.map((c) => ({
        id: c.id,
        company: c.name,
        role: c.role,
        ...(bySite ? { sites: bySite.get(c.id) ?? [] } : {}),
      })),
      scopes: p.scopes,
      // The MCP listing in use (src/mcp/listing.ts); compact modes run unlisted tools through tools_call_*.
      ...(p.listing
        ? {
            listing: {
              mode: p.listing.mode,
              source: p.listing.source,
              listedTools: p.listing.tools,
              ...(p.listing.toolsets ? { toolsets: p.listing.toolsets } : {}),
              ...(p.listing.compact
                ? {
                    unlisted:
                      "find with tools_search, run with tools_call_read / tools_call_write / tools_call_destructive",
                  }
                : {}),
            },
          }
        : {}),
    };
  },
});

export const blocksSchemaResource = defineResource({
  uri: "blocks://schema",
  name: "Block type reference",
  description:
    "The full block-type reference as Markdown: every block type, its inputs and constraints, and a complete " +
    "post body. Read it before posts_create or posts_update.",
  mimeType: "text/markdown",
  scope: null,
  read: () => blockSchemaMarkdown(),
});

export const accountsDomain: Domain = {
  name: "accounts",
  title: "Accounts",
  description: "Who the connection acts as: user, reachable companies and granted scopes; the block reference.",
  tools: [whoami],
  resources: [blocksSchemaResource],
  approvalSupport: accountsApprovalSupport,
};
