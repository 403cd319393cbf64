/**
 * The hosting toolset (read only, hosting:read): the health of every site
 * domain — DNS, TLS certificate, uptime — and incidents, as the background
 * job (checks.ts) recorded them. Agents read; only the job writes.
 */
import { hostingSettings } from "./settings";
import { demoHosting } from "./demo";
import * as v from "valibot";
import { pageInput } from "../../core/pagination";
import { defineTool, type Domain } from "../../mcp/define";
import { hostingEvents, hostingJob } from "./checks";
import { HOSTING_PATH, hostingPages } from "./pages";
import { getHostingDomain, getUptime, listChecks, listHostingDomains, listIncidents, OVERALL } from "./verbs";
import { idSchema } from "../../core/fields";

const T = "hosting";
const hostname = v.pipe(v.string(), v.minLength(1), v.maxLength(253));
const ref = { id: v.optional(idSchema), hostname: v.optional(hostname) };
const stamp = v.pipe(v.string(), v.maxLength(40));

export const hostingDomain: Domain = {
  settings: [hostingSettings],
  demo: demoHosting,
  scopes: [{ area: "hosting", title: "Hosting", words: { "hosting:read": "read hosting and domain status" } }],
  name: T,
  title: "Hosting",
  description: "DNS, TLS certificates and uptime of every site domain, checked in the background; incidents.",
  vocabulary: {
    down: ["uptime", "incident"],
    outage: ["incident"],
    offline: ["uptime", "incident"],
    online: ["uptime"],
    ssl: ["tls", "certificate"],
    https: ["tls", "certificate"],
    cert: ["certificate"],
    expire: ["certificate"],
    nameserver: ["dns"],
    slow: ["uptime", "checks"],
  },
  tools: [
    defineTool({
      name: "hosting_domains_list",
      toolset: T,
      scope: "hosting:read",
      readOnly: true,
      title: "List domain health",
      description: "Every site domain with status, uptime, dns, tls, cert expiry.",
      input: v.object({ siteId: v.optional(idSchema), status: v.optional(v.picklist(OVERALL)), ...pageInput }),
      run: listHostingDomains,
    }),
    defineTool({
      name: "hosting_domains_get",
      toolset: T,
      scope: "hosting:read",
      readOnly: true,
      title: "Get domain health",
      description: "A domain's DNS records required vs found, certificate, incident.",
      input: v.object(ref),
      run: getHostingDomain,
    }),
    defineTool({
      name: "hosting_checks_list",
      toolset: T,
      scope: "hosting:read",
      readOnly: true,
      title: "List check history",
      description: "A domain's http, dns and tls checks, newest first.",
      input: v.object({
        ...ref,
        kind: v.optional(v.picklist(["http", "dns", "tls"])),
        ok: v.optional(v.boolean()),
        since: v.optional(stamp),
        until: v.optional(stamp),
        ...pageInput,
      }),
      run: listChecks,
    }),
    defineTool({
      name: "hosting_incidents_list",
      toolset: T,
      scope: "hosting:read",
      readOnly: true,
      title: "List uptime incidents",
      description: "Downtime incidents, newest first, with duration and cause.",
      input: v.object({
        status: v.optional(v.picklist(["open", "resolved"])),
        siteId: v.optional(idSchema),
        domainId: v.optional(idSchema),
        hostname: v.optional(hostname),
        ...pageInput,
      }),
      run: listIncidents,
    }),
    defineTool({
      name: "hosting_uptime_get",
      toolset: T,
      scope: "hosting:read",
      readOnly: true,
      title: "Get uptime",
      description: "Uptime % per domain (default 30 days), with response times.",
      input: v.object({
        ...ref,
        siteId: v.optional(idSchema),
        days: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(90)), 30),
      }),
      run: getUptime,
    }),
  ],
  events: hostingEvents,
  jobs: [hostingJob],
  portal: { routes: hostingPages, nav: [{ href: HOSTING_PATH, label: "Hosting" }] },
  notificationTypes: [
    { type: "hosting.incident_opened", label: "A site domain went down", inApp: true, email: true },
    { type: "hosting.incident_resolved", label: "A site domain is back up", inApp: true, email: true },
    {
      type: "hosting.certificate_problem",
      label: "A site's TLS certificate is expiring, expired or invalid",
      inApp: true,
      email: true,
    },
  ],
};
