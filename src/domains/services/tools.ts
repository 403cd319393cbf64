/** The services toolset: the agency's service catalogue and service requests. */
import * as v from "valibot";
import { notFound } from "../../core/errors";
import { pageInput } from "../../core/pagination";
import { defineResource, defineTool, type Domain } from "../../mcp/define";
import { createServiceRequest, getService, listServiceRequests, listServices } from "./verbs";
import { idSchema as id } from "../../core/fields";

export const serviceCatalogList = defineTool({
  name: "service_catalog_list",
  toolset: "services",
  scope: "services:read",
  readOnly: true,
  title: "List services",
  description: "The services the agency offers this company, in cents.",
  input: v.object({
    includeInactive: v.optional(v.boolean(), false),
  }),
  run: async (ctx, input) => await listServices(ctx, input),
});

export const serviceCatalogGet = defineTool({
  name: "service_catalog_get",
  toolset: "services",
  scope: "services:read",
  readOnly: true,
  title: "Get a service",
  description: "A service of the company's catalogue, with price (cents).",
  input: v.object({ serviceId: id }),
  run: async (ctx, input) => await getService(ctx, input.serviceId),
});

export const serviceRequestsList = defineTool({
  name: "service_requests_list",
  toolset: "services",
  scope: "services:read",
  readOnly: true,
  title: "List service requests",
  description: "This company's service requests, newest first.",
  input: v.object({
    status: v.optional(v.picklist(["open", "in_progress", "done", "cancelled"])),
    ...pageInput,
  }),
  run: async (ctx, input) => await listServiceRequests(ctx, input),
});

export const serviceRequestsCreate = defineTool({
  name: "service_requests_create",
  toolset: "services",
  scope: "services:write",
  readOnly: false,
  title: "Request a service",
  description: "Request one of the agency's active services.",
  input: v.object({
    serviceId: id,
    details: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(5000))),
  }),
  run: async (ctx, input) => await createServiceRequest(ctx, input),
});

export const catalogResource = defineResource({
  uri: "catalog://services",
  name: "Service catalogue",
  description:
    "The services the agency offers this company, as JSON. Offered only to connections that reach exactly one company; " +
    "others call service_catalog_list with clientId.",
  mimeType: "application/json",
  scope: "services:read",
  singleCompanyOnly: true,
  read: async ({ deps, principal, company }) => {
    if (!company) throw notFound("catalog://services needs a connection that reaches exactly one company.");
    return JSON.stringify(await listServices({ deps, principal, company, requestId: "" }));
  },
});

export const servicesDomain: Domain = {
  scopes: [
    {
      area: "services",
      title: "Services",
      words: {
        "services:read": "read the service catalogue and your requests",
        "services:write": "submit service requests",
      },
    },
  ],
  name: "services",
  title: "Services",
  description: "The agency's service catalogue and the requests a company submits against it.",
  vocabulary: {
    offer: ["catalog", "service"],
    offering: ["catalog"],
    package: ["catalog", "service"],
    order: ["request"],
    hire: ["request"],
    asked: ["request"],
    agency: ["service"],
  },
  tools: [serviceCatalogList, serviceCatalogGet, serviceRequestsList, serviceRequestsCreate],
  resources: [catalogResource],
};
