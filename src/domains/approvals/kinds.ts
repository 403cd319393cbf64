/**
 * The registry of approvable entity kinds. The approval workflow itself
 * (links, pages, tools, decisions) is generic; what differs per entity type
 * is how to show the proposal, what approving does and what rejecting does.
 *
 * A domain that gates a tool with `approval: "<entityType>"` in defineTool
 * exports one ApprovalKind and adds it to kind-list.ts; nothing else changes.
 * A registry test fails when a gated tool names a type with no kind.
 *
 * Staged calls (require_cms_approval) need no kind: they are previewed from
 * their arguments and applied by re-running the tool. A domain may add a
 * StagedTarget so the reviewer sees "live → proposed" for calls that change
 * an existing record, and so approval refuses to apply a change whose
 * target moved on since it was requested.
 */
import type { ActorContext, Deps } from "../../core/context";
import type { LinkRow, Tx } from "./links";

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
}
