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
import type { DomainSettings } from "../config";
import type { ActorContext, Deps } from "../core/context";
import type { Clock } from "../core/clock";
import type { Db } from "../core/db";
import type { EventDef, Subscriber } from "../core/events";
import type { JobDef } from "../core/jobs";
import type { Role } from "../core/roles";

/**
 * An entity type the approval workflow knows (interface.md section 3):
 * "post", "pitch_deck", "email_campaign"… Each is declared by the domain
 * that owns it (`approvalKinds`); buildCatalog refuses a gated tool whose
 * type no domain declares, and a type declared twice.
 */
export type ApprovalEntityType = string;

export interface ToolDef<I extends v.GenericSchema = v.GenericSchema, _O = unknown> {
  /** snake_case `<noun>_<verb>`, at most 128 characters, unique. */
  name: string;
  /** The domain (toolset) the tool belongs to, e.g. "cms", "store". */
  toolset: string;
  /** Required scope; null only for the unscoped whoami. */
  scope: string | null;
  /**
   * Scopes the verb checks besides `scope` (brain_contacts_list reads the
   * CRM: crm:read; a campaign send needs email:write with email:send). The
   * tool is listed and callable only when the credential covers all of them.
   */
  alsoNeeds?: readonly string[];
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
   * Write tools that change what the public sees (REST, a public page, a
   * recipient's inbox): how a person stays in the loop. "staged": a
   * require_cms_approval credential's call is held as a pending change until
   * a person approves it; "gated": the verb asks a person's approval whoever
   * calls it, so it is not staged as well. Omitted: sites:write and
   * media:write writes are staged, other tools with `approval` are gated
   * (src/domains/approvals/staging.ts `supervision`, listed in docs/approvals.md).
   */
  supervised?: "staged" | "gated";
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

// ---------------------------------------------------------------------------
// Guides: the docs/*.md files that tool descriptions point to, served as
// docs://<name> (text/markdown) instead of file paths an agent cannot open.
// The owning domain imports the Markdown as text (`with { type: "text" }`),
// so the compiled binary carries it and the resource is always the file in
// the repository. Links between served guides are rewritten to their URIs.

/** Names of the guides served as docs://<name>; a link `(name.md)` in a guide becomes `(docs://name)`. */
const SERVED = new Set<string>();

export function guideUri(name: string): string {
  return `docs://${name}`;
}

/** Rewrites links to other served guides (`[x](events.md#y)`) to their resource URIs. */
export function linkGuides(markdown: string): string {
  return markdown.replace(/\]\(([a-z][a-z0-9-]*)\.md(#[^)]*)?\)/g, (whole, name: string, anchor?: string) =>
    SERVED.has(name) ? `](${guideUri(name)}${anchor ?? ""})` : whole,
  );
}

export function guideResource(o: {
  name: string;
  title: string;
  description: string;
  scope: string | null;
  markdown: string;
}): ResourceDef {
  SERVED.add(o.name);
  return defineResource({
    uri: guideUri(o.name),
    name: o.title,
    description: o.description,
    mimeType: "text/markdown",
    scope: o.scope,
    read: () => linkGuides(o.markdown),
  });
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
  /**
   * The scope areas this domain owns (interface.md 5.3: `crm:read`,
   * `crm:write`…), with the plain words the consent screen and the API-key
   * page show. A tool may only use a scope some domain declares.
   */
  scopes?: ScopeArea[];
  /**
   * This domain's part of the bundled demo: run in order after the core
   * demo (people, companies, sites, posts, products, brands) exists, inside
   * the seed's one transaction.
   */
  demo?: DemoPart;
  /**
   * Settings this domain reads (flag, environment variable, help, and how
   * the value is read into its Config field): `plinth help serve`, the
   * command line's parser and the README's settings table include them.
   */
  settings?: DomainSettings[];
  /**
   * Words people say for what this domain's tools call otherwise, for
   * tools_search (src/mcp/tool-search.ts): each key (a word or a phrase, any
   * word form) maps to words the tools use ("newsletter": ["campaign"],
   * "hours worked": ["time", "log"]). A query containing a key also searches
   * its words, among this domain's tools only and at a lower weight than
   * the words asked; the keys also lead to the domain when no tool matches.
   */
  vocabulary?: Record<string, string[]>;
}

/** One area of scopes (`crm`), as a person reads it. */
export interface ScopeArea {
  /** The prefix before the colon: `crm`. */
  area: string;
  /** Its name on the consent screen: "CRM". */
  title: string;
  /** Each scope of the area and what it lets a connection do, in plain words ("read contacts, companies…"). */
  words: Record<string, string>;
  /**
   * Scopes that holding a scope also grants, beyond the grammar's own rules
   * (`*`, `<area>:*`, `:write` grants `:read`): `approvals:manage` includes
   * `approvals:read`; `sites:read` includes `media:read`.
   */
  includes?: Record<string, string[]>;
}

/** A domain's part of the portal: routes on the portal app, and navigation entries. */
export interface PortalPages {
  /** Registers routes on a `Hono<PageEnv>` (src/ui/signed-in.ts) that the portal mounts behind sign-in; paths must not collide with the core's. */
  routes(app: Hono<any>, deps: Deps): void;
  /** Shown in the navigation to members whose role in the active company is at least `minRole` (default viewer). */
  nav?: { href: string; label: string; minRole?: Role }[];
  /** Paths whose posts may be multipart/form-data with files (read by the portal's formGuard); others stay urlencoded. */
  uploads?: RegExp[];
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

// --- What domains plug into the approval workflow (src/domains/approvals) ---

/**
 * An approval link as the workflow hands it to a domain's kind: the row of
 * approval_links (src/domains/approvals/tables.ts, which checks that its
 * rows fit this shape) without the token's hash.
 */
export interface ApprovalLink {
  id: number;
  companyId: number;
  siteId: number | null;
  linkType: "entity" | "pending_change";
  entityType: string;
  entityId: number | null;
  /** What was asked for: for pending_change the staged tool call; for entity a summary. */
  payload: Record<string, unknown> | null;
  title: string | null;
  status: string;
  requestedByUserId: number | null;
  credentialKind: string | null;
  credentialId: number | null;
  credentialName: string | null;
  expiresAt: Date;
  decidedAt: Date | null;
  /** Who decided, for display ("Maya Ortiz (member)"), derived from the three fields below. */
  decidedBy: string | null;
  /** How the decider proved who they are: a member, a listed reviewer with a code, or anyone with the link. */
  decidedVia: "member" | "reviewer" | "link" | null;
  decidedByUserId: number | null;
  /** The verified reviewer's address, for decidedVia = reviewer. */
  decidedByEmail: string | null;
  comment: string | null;
  result: Record<string, unknown> | null;
  createdAt: Date;
}

/** A write transaction or the database itself; the workflow passes whichever it holds. */
export type ApprovalTx = Db;

/** Who decided, when, and why; passed to a kind's approve/reject. */
export interface Decision {
  now: Date;
  decidedBy: string;
  comment: string | null;
  /** The deciding user when known (a member, over MCP, in the portal or signed in on the page); null otherwise. */
  userId: number | null;
  /**
   * How the decider proved who they are (src/domains/approvals/reviewers.ts):
   * member, a listed reviewer with a one-time code, or anyone with the link.
   * Omitted: member when userId is set, else link.
   */
  via?: "member" | "reviewer" | "link";
  /** The verified reviewer's address, for via = reviewer. */
  email?: string | null;
}

/** One line of "what changes": plain text, the page escapes it. */
export interface ChangeRow {
  field: string;
  before: string | null;
  after: string | null;
}

export interface ApprovalPreview {
  /** Heading for the reviewer (e.g. the post title). */
  title: string;
  /** One line saying what kind of request this is. */
  summary: string;
  /** Facts shown beside the preview (plain text). */
  facts: { label: string; value: string }[];
  /** For updates of something live: each changed field, live → proposed. */
  changes: ChangeRow[];
  /** Safe HTML of the proposed content: escaped or sanitised by the producer (renderBlocksHtml). */
  html: string;
  /** Safe HTML of the live version, for updates of something already live. */
  liveHtml?: string;
}

/**
 * How one entity type is approved: `approvalKinds` on the domain that owns
 * the type (src/domains/approvals/kinds.ts says more).
 */
export interface ApprovalKind {
  entityType: string;
  /** Human name of the type: "Post", "Block template". */
  label: string;
  /** What the link proposes, rendered fresh from the current rows; null when the entity no longer exists. */
  preview(deps: Deps, link: ApprovalLink): Promise<ApprovalPreview | null>;
  /**
   * Make the proposal live inside the decision transaction; returns a small
   * result stored on the link. Throws AppError (conflict) when the proposal
   * no longer fits the current state; the transaction then rolls back.
   */
  approve(tx: ApprovalTx, deps: Deps, link: ApprovalLink, decision: Decision): Promise<Record<string, unknown>>;
  /** Leave the live version as it is and mark the proposal rejected. */
  reject(tx: ApprovalTx, deps: Deps, link: ApprovalLink, decision: Decision): Promise<void>;
}

/** A held call, as a StagedTarget's `present` sees it. */
export interface HeldCall {
  tool: string;
  input: Record<string, unknown>;
  /** The target record when the call was held (from `current`); null for calls that create something. */
  before: Record<string, unknown> | null;
  link: ApprovalLink;
}

/** How a held call reads on the approval page, beyond the generic table of its arguments. */
export interface CallPresentation {
  /**
   * What the call proposes, as the subject of the summary line
   * ("Take the published blog post “Roasting” off the site"); the workflow
   * adds the state (held, approved on … by …, rejected …).
   */
  proposal?: string;
  /** Past participle for an approved link: "taken offline" (default "applied"). */
  applied?: string;
  facts?: { label: string; value: string }[];
  /** Rows replacing the generic rows of the arguments named in `handled`. */
  rows?: ChangeRow[];
  /** Arguments this presentation shows itself (not listed again generically). */
  handled?: string[];
  /** Safe HTML, escaped or sanitised by the producer: rendered blocks, an uploaded image. */
  html?: string;
}

export interface StagedTarget {
  /** Entity type recorded on the pending_change link (e.g. "post", "media"), for filtering. */
  entityType: string;
  /** Tool names whose staged calls change an existing record this target can read. */
  tools: readonly string[];
  /**
   * The live record the call would change, as display fields keyed like the
   * tool's arguments; null when there is none (e.g. it was deleted).
   */
  current(ctx: ActorContext, input: Record<string, unknown>): Promise<Record<string, unknown> | null>;
  /** Argument names whose values must not be shown on the approval page (e.g. a secret's value). */
  redact?(input: Record<string, unknown>, before: Record<string, unknown> | null): string[];
  /** How the call reads on the page (rendered blocks, what disappears and where it was linked from). */
  present?(deps: Deps, call: HeldCall): Promise<CallPresentation>;
}

/**
 * Answers about data other domains own that approval pages need. Each
 * answer has one owner (two domains giving the same one is an error when
 * the catalog is built), except `previewCss`, which every provider adds to.
 */
export interface ApprovalSupport {
  /** The company's site with this id (name for the facts; tenancy of approvals_list's siteId), or null. */
  site?(db: ApprovalTx, companyId: number, siteId: number): Promise<{ id: number; name: string } | null>;
  /**
   * Stylesheet text for the preview fragment of a site's link: styles of
   * the rendered content, the site's branding. Every value taken from data
   * must be checked against a strict pattern before it reaches the CSS.
   */
  previewCss?(db: ApprovalTx, siteId: number | null): Promise<string>;
  /** True when the credential that asked for a change may no longer act (a revoked API key): its queued changes must not go live. */
  credentialRevoked?(db: ApprovalTx, kind: string, id: number): Promise<boolean>;
}

// --- What domains plug into integrations and notifications ---

export type IntegrationStatus = "active" | "failing" | "expired" | "disabled" | "configured" | "not_configured";

export interface IntegrationHealth {
  lastSuccessAt: Date | null;
  lastErrorAt: Date | null;
  lastError: string | null;
  /** When its credential stops working (an OAuth connection's refresh token), if it does. */
  expiresAt: Date | null;
}

export interface IntegrationItem {
  /** The owner's key for it, stable for its life (an OAuth token family, a subscription id, `server`). */
  ref: string;
  name: string;
  status: IntegrationStatus;
  connectedAt: Date | null;
  health: IntegrationHealth;
  /** Can integrations_revoke end it? (Server configuration cannot be changed over MCP.) */
  revocable: boolean;
  /** Safe facts to show (never secrets): scopes, host, bucket… */
  detail?: Record<string, unknown>;
}

/** A kind of connection, listed by integrations_list (src/domains/integrations/sources.ts has examples). */
export interface IntegrationSource {
  /** snake_case, unique across domains. */
  kind: string;
  title: string;
  /** Everything of this kind connected to the company now. */
  list(deps: Deps, companyId: number): Promise<IntegrationItem[]>;
  /**
   * Ends it for the acting company, inside the caller's transaction; returns
   * what became of it. Absent when nothing of this kind can be revoked.
   */
  revoke?(ctx: ActorContext, ref: string): Promise<{ effect: string }>;
  /** Why it cannot be revoked, said to the caller (for sources without revoke). */
  notRevocable?: string;
}

/** A kind of notification people can set preferences for (src/domains/notifications/types.ts). */
export interface NotificationType {
  type: string;
  /** What a person reads next to the switch. */
  label: string;
  inApp: boolean;
  email: boolean;
}

// --- The demo ---

/** What the core demo made, for a domain's demo part to hang its rows from. */
export interface DemoWorld {
  deps: Deps;
  tx: Db;
  clock: Clock;
  /** A date `daysAgo` days (and `hoursAgo` hours) before the clock's now: the demo always looks recent. */
  at(daysAgo: number, hoursAgo?: number): Date;
  companies: { harbor: number; northwind: number };
  /**
   * People: demo (owner of Northwind, admin of Harbor), viewer (Sam Rivera, viewer of both),
   * maya (owner of Harbor), priya and leo (admins of Northwind; no password).
   */
  users: { demo: number; viewer: number; maya: number; priya: number; leo: number };
  sites: { harbor: number; northwind: number; retired: number; events: number };
  /**
   * Runs a tool of the catalog as a person of a company (the demo seed
   * acting for them, with every scope) on `clock`, its arguments parsed as a
   * call's are: for parts that tell their story through their own verbs.
   */
  runTool(
    tool: string,
    args: Record<string, unknown>,
    as: { userId: number; company: { id: number; name: string }; role?: Role; clock: Clock },
  ): Promise<any>;
  /**
   * Queues bytes for the media store under `key` (a file a part's rows name,
   * e.g. a ticket's attachment); written with the demo's media files after
   * every part, so a refused or failed seed leaves no file behind.
   */
  storeFile(key: string, bytes: Uint8Array, ext: string): void;
}

export type DemoPart = (world: DemoWorld) => Promise<void>;

// --- The catalog ---

/**
 * What buildCatalog (src/mcp/catalog.ts) collects from the domain list,
 * checked once: every domain's contributions by kind. Deps.catalog carries
 * it to the services that need the whole; adapters read it to mount pages,
 * run jobs and build the MCP registry.
 */
export interface DomainCatalog {
  domains: readonly Domain[];
  /** Every tool of every domain, by name. */
  tools: ReadonlyMap<string, ToolDef>;
  approvalKinds: ReadonlyMap<string, ApprovalKind>;
  /** Staged targets by the tool whose held calls they read. */
  stagedTargets: ReadonlyMap<string, StagedTarget>;
  /** The domains' answers to what approval pages ask (site names, preview styles, revoked credentials). */
  approvalSupport: Required<ApprovalSupport>;
  /** Every event type some domain lists. */
  events: ReadonlyMap<string, EventDef<any>>;
  notificationTypes: ReadonlyMap<string, NotificationType>;
  integrations: ReadonlyMap<string, IntegrationSource>;
  subscribers: readonly Subscriber[];
  jobs: readonly JobDef[];
  publicPages: readonly PublicPages[];
  portal: readonly PortalPages[];
  toolCallObservers: readonly ToolCallObserver[];
  /** Scope areas in the domains' order, and every scope a credential may be issued with. */
  scopeAreas: readonly ScopeArea[];
  scopes: readonly string[];
  demoParts: readonly DemoPart[];
  settings: readonly DomainSettings[];
}

declare module "../core/context" {
  interface Catalog extends DomainCatalog {}
}
