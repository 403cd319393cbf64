/** Sites (belong to a company), their domains, environment variables and REST keys. */
import {
  bool,
  createdAt,
  id,
  index,
  integer,
  json,
  table,
  text,
  time,
  uniqueIndex,
  updatedAt,
} from "../../core/columns";
import { companies } from "../../core/tables";

export const sites = table(
  "sites",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    domain: text("domain"),
    subdomain: text("subdomain").unique(),
    description: text("description"),
    customLayout: json<unknown>("custom_layout"),
    active: bool("active").notNull().default(true),
    /** Bumped by every write that changes what the REST API serves; drives ETags. */
    contentVersion: integer("content_version").notNull().default(1),
    /**
     * The next instant a scheduled post goes live or offline (cms/schedule.ts):
     * REST keys its cached bodies by it, so no body from before the instant is
     * served after it, even before the cms.go_live job bumps the version.
     */
    nextScheduledAt: time("next_scheduled_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("sites_company").on(t.companyId)],
);

export const siteDomains = table("site_domains", {
  id: id(),
  siteId: integer("site_id")
    .notNull()
    .references(() => sites.id, { onDelete: "cascade" }),
  hostname: text("hostname").notNull().unique(),
  isPrimary: bool("is_primary").notNull().default(false),
  verified: bool("verified").notNull().default(false),
  createdAt: createdAt(),
});

export const siteEnvVars = table(
  "site_env_vars",
  {
    id: id(),
    siteId: integer("site_id")
      .notNull()
      .references(() => sites.id, { onDelete: "cascade" }),
    key: text("key").notNull(),
    value: text("value").notNull(),
    secret: bool("secret").notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("env_site_key").on(t.siteId, t.key)],
);

/** REST read keys (svc_live_ + 64 hex), tied to one site. Only the SHA-256 is kept. */
export const restKeys = table(
  "rest_keys",
  {
    id: id(),
    siteId: integer("site_id")
      .notNull()
      .references(() => sites.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    hint: text("hint").notNull(),
    secretHash: text("secret_hash").notNull(),
    expiresAt: time("expires_at"),
    revokedAt: time("revoked_at"),
    lastUsedAt: time("last_used_at"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("rest_keys_secret").on(t.secretHash), index("rest_keys_site").on(t.siteId)],
);
