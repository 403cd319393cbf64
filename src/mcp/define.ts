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
import type * as v from "valibot";
import type { ActorContext } from "../core/context";
import type { Role } from "../domains/accounts/tables";

/** Entity types the approval workflow knows (interface.md section 3). */
export type ApprovalEntityType =
  | "post"
  | "pitch_deck"
  | "email_campaign"
  | "block_template"
  | "survey"
  | "booking_page";

export interface ToolDef<I extends v.GenericSchema = v.GenericSchema, O = unknown> {
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
  /** Write tools that draft an entity and return an approval envelope. */
  approval?: ApprovalEntityType;
  /** Role needed beyond the default (viewer for reads, admin for writes). */
  minRole?: Role;
  /** whoami alone acts without a company and never takes clientId. */
  companyFree?: boolean;
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
  read(ctx: { deps: ActorContext["deps"]; principal: ActorContext["principal"]; company?: ActorContext["company"] }): string | Promise<string>;
}

export function defineResource(def: ResourceDef): ResourceDef {
  return def;
}

/** One domain folder's contribution to the registry. */
export interface Domain {
  name: string;
  title: string;
  description: string;
  tools: ToolDef<any>[];
  resources?: ResourceDef[];
}
