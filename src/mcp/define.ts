/**
 * How a tool or resource is declared. Every tool of every domain is one
 * `defineTool({...})` value in its domain's tools file; tools/list, the JSON
 * Schemas, docs/tools.md and the registry tests all read those values.
 *
 * @example
 * export const postsGet = defineTool({
 *   name: "posts_get", toolset: "cms", scope: "sites:read", readOnly: true,
 *   description: "Get one post by id or slug…",
 *   input: v.object({ siteId: v.number(), id: v.number() }),
 *   run: (ctx, input) => getPost(ctx, input),
 * });
 */
import type { Table } from "drizzle-orm";
import type * as v from "valibot";
import type { Hono } from "hono";
import type { ActorContext, Deps } from "../core/context";
import type { EventDef, Subscriber } from "../core/events";
import type { JobDef } from "../core/jobs";
import type { Role } from "../core/roles";
import type { ApprovalKind, ApprovalSupport, StagedTarget } from "../domains/approvals/kinds";
import type { IntegrationSource } from "../domains/integrations/sources";
import type { NotificationType } from "../domains/notifications/types";

/** Entity types the approval workflow knows (interface.md section 3). */
export type ApprovalEntityType =
  | "post"
  | "pitch_deck"
  | "email_campaign"
  | "block_template"
  | "survey"
  | "booking_page";

export interface ToolDef<I extends v.GenericSchema = v.GenericSchema, _O = unknown> {
  /** snake_case `<noun>_<verb>`, at most 128 characters, unique. */
  name: string;
  /** The domain (toolset) the tool belongs to, e.g. "cms", "store". */
  toolset: string;
  /** Required scope; null only for the unscoped whoami. */
  scope: string | null;
  /** Reads nothing but reads: must match a `:read` scope. */
  readOnly: boolean;
  /** Deletes or irreversibly changes data. Never true for read-only tools. */
  destructive?: boolean;
  /** Write tools only: calling again with the same input changes nothing more (MCP idempotentHint). */
  idempotent?: boolean;
  /** Reaches outside Plinth (sends email, calls a third party); MCP openWorldHint. Default false. */
  openWorld?: boolean;
  /** Accepts idempotencyKey (default: every `*_create` tool); see src/mcp/idempotency.ts. */
  idempotencyKey?: boolean;
  /** Write tools that draft an entity and return an approval envelope. */
  approval?: ApprovalEntityType;
  /**
   * Role needed beyond the default (viewer for reads, admin for writes).
   * `"viewer"` on a write tool: a self-service write every member may make,
   * because it changes only the caller's own records (their notifications,
   * their profile).
   */
  minRole?: Role;
  /** Acts on no company's data and never takes clientId: whoami, the discovery tools, pure computations (branding_check_contrast). */
  companyFree?: boolean;
  /**
   * Read tools only: every table the answer is built from. Declaring them
   * says the answer depends on nothing else that moves (no clock, no other
   * table, nothing outside the database), so it is kept per caller, company
   * and arguments until a write to one of them commits, on any instance
   * (src/mcp/result-cache.ts). test/mcp/result-cache.test.ts runs every
   * such tool and fails if it reads an undeclared table or the clock.
   */
  cachedBy?: readonly Table[];
  /** Short human title for clients that show one. */
  title?: string;
  /** Written for a model: what it does, when to use it, what it returns. */
  description: string;
  input: I;
  run(ctx: ActorContext, input: v.InferOutput<I>): unknown | Promise<unknown>;
}

export function defineTool<I extends v.GenericSchema>(def: ToolDef<I>): ToolDef<I> {
  return def;
}

export interface ResourceDef {
  uri: string;
  name: string;
  description: string;
  mimeType: string;
  scope: string | null;
  /** Offered only to connections that reach exactly one company (brand://default, catalog://services). */
  singleCompanyOnly?: boolean;
  read(ctx: {
    deps: ActorContext["deps"];
    principal: ActorContext["principal"];
    company?: ActorContext["company"];
  }): string | Promise<string>;
}

export function defineResource(def: ResourceDef): ResourceDef {
  return def;
}

/**
 * One domain folder's contribution: its tools and resources for the
 * registry, and what it adds to the approval workflow. Everything a domain
 * brings is declared here, in its own folder; src/domains/index.ts lists
 * the domains, and the registry and the approvals domain collect from that
 * list (nothing central names a domain's internals).
 */
export interface Domain {
  name: string;
  title: string;
  description: string;
  tools: ToolDef<any>[];
  resources?: ResourceDef[];
  /**
   * The entity types this domain's tools submit for approval
   * (`approval: "post"` on a tool): how each proposal is previewed, what
   * approving makes live and what rejecting leaves behind. The registry
   * refuses a gated tool whose type no domain declares, and a type declared twice.
   */
  approvalKinds?: ApprovalKind[];
  /**
   * For calls to this domain's own tools that are held for approval (a
   * require_cms_approval credential's writes; taking live content down):
   * the record each call would change, so the reviewer sees "live →
   * proposed" and approval refuses a change whose target moved on.
   */
  stagedTargets?: StagedTarget[];
  /** What this domain tells approval pages about data it owns: a site's name, the preview's styles, a revoked credential. */
  approvalSupport?: ApprovalSupport;
  /** The events its verbs emit (src/core/events.ts); the catalog docs/events.md is made from these lists. */
  events?: EventDef<any>[];
  /** What it does when events happen (src/core/dispatcher.ts): notifications, automations, webhook deliveries. */
  subscribers?: Subscriber[];
  /** Periodic background work (src/core/jobs.ts). */
  jobs?: JobDef[];
  /**
   * Pages the public uses without signing in (a survey at /s/<slug>, a
   * booking page at /b/<slug>), mounted by the app under `prefix`. Build
   * them with src/core/public-page.ts: escaped output, a nonce CSP, and the
   * same-origin check on every form post.
   */
  publicPages?: PublicPages[];
  /**
   * Told how every MCP tool call ended (src/mcp/call.ts), after its answer
   * is settled: AI history records them. Called synchronously on the hot
   * path, so an observer only queues what it needs and returns; whatever
   * it throws is swallowed (an observer never fails a call).
   */
  toolCallObservers?: ToolCallObserver[];
  /**
   * Connections this domain owns (webhook subscriptions…), listed with
   * their health by integrations_list and revoked by integrations_revoke
   * (src/domains/integrations/sources.ts).
   */
  integrations?: IntegrationSource[];
  /**
   * The kinds of notification this domain sends with notify() (the type it
   * passes, what a person reads next to the switch, and the defaults), so
   * the preferences page and profile tools can list them.
   */
  notificationTypes?: NotificationType[];
  /**
   * Pages this domain adds to the signed-in portal (src/portal/routes.tsx
   * mounts them; formGuard's same-origin and CSRF checks already cover their
   * posts) and its entries in the portal's navigation.
   */
  portal?: PortalPages;
}

/** A domain's part of the portal: routes on the portal app, and navigation entries. */
export interface PortalPages {
  /** Registers routes on a `Hono<PageEnv>` (src/ui/signed-in.ts) that the portal mounts behind sign-in; paths must not collide with the core's. */
  routes(app: Hono<any>, deps: Deps): void;
  /** Shown in the navigation to members whose role in the active company is at least `minRole` (default viewer). */
  nav?: { href: string; label: string; minRole?: Role }[];
}

/** One finished tools/call, as toolCallObservers see it. */
export interface ToolCallRecord {
  deps: Deps;
  principal: ActorContext["principal"];
  /** The company the call acted for; null when none was settled (a refused clientId). */
  companyId: number | null;
  tool: string;
  /** The tool's toolset; null for an unknown or hidden name. */
  toolset: string | null;
  /** The arguments as the client sent them (observers must redact before keeping anything). */
  args: unknown;
  /** params._meta of the request, when the client sent one. */
  meta: Record<string, unknown> | null;
  /** The client's session header (Mcp-Session-Id), when sent. */
  sessionId: string | null;
  outcome: "ok" | "tool_error" | "protocol_error";
  /** The result's text (JSON for ok results, the message for errors); null for protocol errors. */
  resultText: string | null;
  /** When the call started, by deps.clock. */
  startedAt: Date;
  durationMs: number;
  requestId: string;
}

export type ToolCallObserver = (call: ToolCallRecord) => void;

export interface PublicPages {
  /** `/s`, `/b`…: one path segment, not one the app already uses. */
  prefix: string;
  routes(deps: Deps): Hono<any>;
}
