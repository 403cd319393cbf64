/**
 * Hosting checks of site domains, written only by the background job
 * (checks.ts): the latest state of each domain (one row per site domain),
 * the history of every check made, and uptime incidents. Removing a domain
 * removes its monitoring with it (cascade).
 */
import { bool, createdAt, id, index, integer, json, table, text, time, uniqueIndex } from "../../core/columns";
import { companies } from "../../core/tables";
import { siteDomains, sites } from "../sites/tables";

/** A DNS record as the check reports it: what is required or what was found. */
export interface DnsRecord {
  type: "A" | "AAAA" | "CNAME";
  name: string;
  value: string;
}

export const hostingDomainState = table(
  "hosting_domain_state",
  {
    id: id(),
    domainId: integer("domain_id")
      .notNull()
      .references(() => siteDomains.id, { onDelete: "cascade" }),
    siteId: integer("site_id")
      .notNull()
      .references(() => sites.id, { onDelete: "cascade" }),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    hostname: text("hostname").notNull(),
    /** ok | misconfigured | missing | error | unknown */
    dnsStatus: text("dns_status").notNull().default("unknown"),
    dnsRequired: json<DnsRecord[]>("dns_required").notNull(),
    dnsFound: json<DnsRecord[]>("dns_found").notNull(),
    dnsError: text("dns_error"),
    dnsCheckedAt: time("dns_checked_at"),
    /** valid | expiring | expired | invalid | error | unknown */
    tlsStatus: text("tls_status").notNull().default("unknown"),
    tlsIssuer: text("tls_issuer"),
    tlsSubject: text("tls_subject"),
    tlsAltNames: json<string[]>("tls_alt_names"),
    tlsValidFrom: time("tls_valid_from"),
    tlsExpiresAt: time("tls_expires_at"),
    tlsError: text("tls_error"),
    tlsCheckedAt: time("tls_checked_at"),
    /** up | failing (fewer failures in a row than open an incident) | down | unknown */
    uptimeStatus: text("uptime_status").notNull().default("unknown"),
    lastStatusCode: integer("last_status_code"),
    lastResponseMs: integer("last_response_ms"),
    lastError: text("last_error"),
    lastCheckedAt: time("last_checked_at"),
    /** Failed uptime checks in a row; an incident opens at FAILURES_TO_OPEN. */
    consecutiveFailures: integer("consecutive_failures").notNull().default(0),
    /** When the current run of failures began (the incident's start). */
    failingSince: time("failing_since"),
    nextUptimeAt: time("next_uptime_at").notNull(),
    nextCertAt: time("next_cert_at").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("hosting_state_domain").on(t.domainId),
    index("hosting_state_company").on(t.companyId),
    index("hosting_state_next").on(t.nextUptimeAt),
  ],
);

/** Every check made: uptime (http), dns and tls, with its outcome. */
export const hostingChecks = table(
  "hosting_checks",
  {
    id: id(),
    domainId: integer("domain_id")
      .notNull()
      .references(() => siteDomains.id, { onDelete: "cascade" }),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    /** http | dns | tls */
    kind: text("kind").notNull(),
    ok: bool("ok").notNull(),
    /** The check's status word (up/down, ok/misconfigured…, valid/expiring…). */
    status: text("status").notNull(),
    statusCode: integer("status_code"),
    responseMs: integer("response_ms"),
    error: text("error"),
    checkedAt: time("checked_at").notNull(),
  },
  (t) => [
    index("hosting_checks_domain").on(t.domainId, t.kind, t.checkedAt),
    index("hosting_checks_time").on(t.checkedAt),
  ],
);

/** Downtime of a domain's public URL: opened after consecutive failures, resolved on the first success. */
export const hostingIncidents = table(
  "hosting_incidents",
  {
    id: id(),
    domainId: integer("domain_id")
      .notNull()
      .references(() => siteDomains.id, { onDelete: "cascade" }),
    siteId: integer("site_id")
      .notNull()
      .references(() => sites.id, { onDelete: "cascade" }),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    hostname: text("hostname").notNull(),
    /** The first failed check of the run that opened it. */
    startedAt: time("started_at").notNull(),
    /** When it was opened (the failure that reached the threshold). */
    openedAt: time("opened_at").notNull(),
    resolvedAt: time("resolved_at"),
    cause: text("cause").notNull(),
    failedChecks: integer("failed_checks").notNull(),
    /** Set while open: one open incident per domain (unique). */
    openKey: integer("open_key"),
  },
  (t) => [
    uniqueIndex("hosting_incidents_open").on(t.openKey),
    index("hosting_incidents_company").on(t.companyId, t.startedAt),
  ],
);
