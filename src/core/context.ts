/**
 * What every verb receives: the process-wide dependencies, and, for calls made
 * on someone's behalf, who is acting (principal) and for which company.
 */
import type { Config } from "../config";
import type { Role } from "./roles";
import type { Clock } from "./clock";
import type Redis from "ioredis";
import type { BlobStore } from "./blobs-common";
import type { Db, Store } from "./db";

/**
 * Everything the domains declared (tools, approval kinds, events, jobs,
 * notification types, integration sources, pages, scopes, demo parts),
 * collected once by the entry (src/catalog.ts) and handed down in Deps to
 * the services that need the whole: the approval workflow, notification
 * preferences, automations' event catalog, integrations. Its members are
 * declared by the plug-in contract, src/mcp/define.ts, which extends this
 * interface, so the core names none of the pieces domains plug in.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled in by the contract (declaration merging)
export interface Catalog {}

export interface Deps {
  store: Store;
  /** store.db: the query builder, bound to the transaction open in this async context if any. */
  db: Db;
  config: Config;
  clock: Clock;
  /** Shared between instances when PLINTH_REDIS_URL is set: rate limits, sign-in throttling, cache invalidation. */
  redis: Redis | null;
  /** Media bytes: the data dir, the database or an S3 bucket (PLINTH_MEDIA_STORE), src/core/blobs.ts. */
  blobs: BlobStore;
  /** What the domains declared, collected once (see Catalog). */
  catalog: Catalog;
}

/** `automation`: an automation run acting for its creator (id = the run), so its events and audit rows say so and loop protection can follow the chain. */
export type CredentialKind = "mcp_key" | "oauth" | "session" | "cli" | "approval_link" | "automation";

export interface Credential {
  kind: CredentialKind;
  id: number;
  name: string;
}

export interface CompanyAccess {
  id: number;
  name: string;
  role: Role;
}

/** A resolved credential: the same shape whether it came from an API key, an OAuth token or a portal session. */
export interface Principal {
  userId: number;
  credential: Credential;
  /** Scopes fixed when the credential was issued. */
  scopes: string[];
  /** Companies the credential selected, intersected with live membership, ordered by id. */
  companies: CompanyAccess[];
  /** Stage every write the public would see as a pending change (approvals/staging.ts `supervision`). */
  requireCmsApproval: boolean;
  /** The credential's stored MCP listing mode ("full", "discovery", "toolsets:cms,store"); null or absent: automatic. */
  listingMode?: string | null;
  /** The MCP listing in use on this request (set by the MCP route; src/mcp/listing.ts): whoami reports it. */
  listing?: ListingInUse;
}

/** Which tools a connection lists on this request, and why (src/mcp/listing.ts). */
export interface ListingInUse {
  mode: "full" | "discovery" | "toolsets";
  /** request: X-MCP-* headers or query; credential: the mode stored on the key or grant; automatic: chosen by size. */
  source: "request" | "credential" | "automatic";
  /** Lists only part of what it can call: tools outside the listing run through the routers. */
  compact: boolean;
  /** The toolsets listed (mode toolsets). */
  toolsets?: string[];
  /** tools/list length on this request. */
  tools: number;
}

export interface ActorContext {
  deps: Deps;
  principal: Principal;
  /** The company this call acts for. */
  company: CompanyAccess;
  requestId: string;
}
