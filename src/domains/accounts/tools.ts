/**
 * The always-available surface every credential has, whatever its scopes:
 * the whoami tool and the blocks://schema resource (interface.md 4.2, 5.3
 * "(unscoped)"). They live together here because they share that rule.
 */
import * as v from "valibot";
import { blockSchemaMarkdown } from "../blocks/markdown";
import { defineResource, defineTool, type Domain } from "../../mcp/define";

/**
 * whoami (interface.md 2.7). `client` and `defaultClientId` name the first
 * reachable company (lowest id), the one a single-company connection acts
 * for. A connection that reaches no company still gets an answer, with
 * `client: null`, `defaultClientId: null` and `clients: []`, so a model
 * can tell the user to re-authorize.
 */
export const whoami = defineTool({
  name: "whoami",
  toolset: "accounts",
  scope: null,
  readOnly: true,
  companyFree: true,
  title: "Who am I",
  description:
    "Who this connection acts as: your user id, the companies (clients) you can act for with your role in each, " +
    "the default company, and the scopes granted. Call it first. When clients has more than one entry, pass " +
    "clientId (one of those ids) on every other tool call.",
  input: v.object({}),
  run: (ctx) => {
    const p = ctx.principal;
    const first = p.companies[0];
    return {
      userId: p.userId,
      client: first ? { id: first.id, company: first.name } : null,
      defaultClientId: first ? first.id : null,
      clients: p.companies.map((c) => ({ id: c.id, company: c.name, role: c.role })),
      scopes: p.scopes,
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
};
