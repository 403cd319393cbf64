/** The integrations toolset: what the company has connected, its health, and revoking it. */
import * as v from "valibot";
import { pageInput } from "../../core/pagination";
import { defineTool, type Domain } from "../../mcp/define";
import { BUILT_IN_SOURCES } from "./sources";
import { checkObjectStorage } from "./sources";
import { getIntegration, integrationRevoked, listIntegrations, revokeIntegration } from "./verbs";
import { idSchema as id } from "../../core/fields";

export const integrationsList = defineTool({
  name: "integrations_list",
  toolset: "integrations",
  scope: "integrations:read",
  readOnly: true,
  title: "List integrations",
  description: "What the company connected (OAuth clients, SMTP…) with health.",
  input: v.object({
    kind: v.optional(v.pipe(v.string(), v.maxLength(40))),
    status: v.optional(v.picklist(["active", "failing", "expired", "disabled", "configured", "not_configured"])),
    ...pageInput,
  }),
  run: async (ctx, input) => await listIntegrations(ctx, input),
});

export const integrationsGet = defineTool({
  name: "integrations_get",
  toolset: "integrations",
  scope: "integrations:read",
  readOnly: true,
  title: "Get an integration",
  description: "An integration with its health and details (revoked: when, by whom).",
  input: v.object({ id }),
  run: async (ctx, input) => await getIntegration(ctx, input.id),
});

export const integrationsRevoke = defineTool({
  name: "integrations_revoke",
  toolset: "integrations",
  scope: "integrations:write",
  readOnly: false,
  destructive: true,
  title: "Revoke an integration",
  description: "Disconnect an integration; OAuth client tokens stop at once.",
  input: v.object({ id }),
  run: async (ctx, input) => await revokeIntegration(ctx, input.id),
});

export const integrationsDomain: Domain = {
  integrations: BUILT_IN_SOURCES,
  scopes: [
    {
      area: "integrations",
      title: "Integrations",
      words: { "integrations:read": "read connected integrations", "integrations:write": "disconnect them" },
    },
  ],
  name: "integrations",
  title: "Integrations",
  description: "Connected AI clients, SMTP, storage, embeddings and webhooks: health and revoke.",
  vocabulary: {
    app: ["integration"],
    connection: ["integration"],
    connected: ["integration"],
    disconnect: ["revoke"],
    unlink: ["revoke"],
    "mail server": ["smtp"],
    working: ["health"],
    broken: ["health"],
    claude: ["integration"],
  },
  tools: [integrationsList, integrationsGet, integrationsRevoke],
  events: [integrationRevoked],
  jobs: [
    {
      name: "integrations.storage_check",
      description:
        "Writes, reads back and removes a small object in media storage; the result is object storage's health.",
      everyMs: 15 * 60_000,
      run: checkObjectStorage,
    },
  ],
};
