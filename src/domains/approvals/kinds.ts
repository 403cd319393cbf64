/**
 * What a domain contributes to the approval workflow, and the shapes the
 * workflow asks of it. The workflow itself (links, pages, tools,
 * decisions) is generic and names no other domain; each domain declares,
 * on its `Domain` value (src/mcp/define.ts), what differs:
 *
 *  - `approvalKinds`: for each entity type its tools draft
 *    (`approval: "<entityType>"` in defineTool), how to show the proposal,
 *    what approving makes live and what rejecting leaves behind. The
 *    registry fails at load when a gated tool names a type no domain declares;
 *  - `stagedTargets`: for changes to its records that are held for approval
 *    (a require_cms_approval credential's calls, taking live content down),
 *    the record as it is now, so the reviewer sees "live → proposed" and
 *    approval refuses a change whose target moved on; optionally how the
 *    call reads on the page (rendered blocks, what disappears);
 *  - `approvalSupport`: answers about data it owns that every approval page
 *    needs (a site's name, the preview's styles, a revoked credential).
 *
 * registry.ts collects all three from the domain list (src/domains/index.ts).
 *
 * @public Serves every domain that declares approval kinds, staged targets or
 * approval support.
 */
import type { ActorContext, Deps } from "../../core/context";
import type { LinkRow } from "./links";
import type { Tx } from "../../core/db";

/** Who decided, when, and why; passed to a kind's approve/reject. */
export interface Decision {
  now: Date;
  decidedBy: string;
  comment: string | null;
  /** The deciding portal user when known; null for the public link page. */
  userId: number | null;
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

export interface ApprovalKind {
  entityType: string;
  /** Human name of the type: "Post", "Block template". */
  label: string;
  /** What the link proposes, rendered fresh from the current rows; null when the entity no longer exists. */
  preview(deps: Deps, link: LinkRow): Promise<ApprovalPreview | null>;
  /**
   * Make the proposal live inside the decision transaction; returns a small
   * result stored on the link. Throws AppError (conflict) when the proposal
   * no longer fits the current state; the transaction then rolls back.
   */
  approve(tx: Tx, deps: Deps, link: LinkRow, decision: Decision): Promise<Record<string, unknown>>;
  /** Leave the live version as it is and mark the proposal rejected. */
  reject(tx: Tx, deps: Deps, link: LinkRow, decision: Decision): Promise<void>;
}

/** A held call, as a StagedTarget's `present` sees it. */
export interface HeldCall {
  tool: string;
  input: Record<string, unknown>;
  /** The target record when the call was held (from `current`); null for calls that create something. */
  before: Record<string, unknown> | null;
  link: LinkRow;
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
 * answer has one owner (two domains giving the same one is an error at
 * first use), except `previewCss`, which every provider adds to.
 */
export interface ApprovalSupport {
  /** The company's site with this id (name for the facts; tenancy of approvals_list's siteId), or null. */
  site?(db: Tx, companyId: number, siteId: number): Promise<{ id: number; name: string } | null>;
  /**
   * Stylesheet text for the preview fragment of a site's link: styles of
   * the rendered content, the site's branding. Every value taken from data
   * must be checked against a strict pattern before it reaches the CSS.
   */
  previewCss?(db: Tx, siteId: number | null): Promise<string>;
  /** True when the credential that asked for a change may no longer act (a revoked API key): its queued changes must not go live. */
  credentialRevoked?(db: Tx, kind: string, id: number): Promise<boolean>;
}
