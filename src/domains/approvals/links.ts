/**
 * Approval links: minting, looking up by token, lifetime, and the envelope a
 * write tool returns (interface.md 2.7).
 *
 * The token is 32 bytes from the CSPRNG shown as 64 lowercase hex, returned
 * once in the tool result; only its SHA-256 is stored, so a database leak
 * yields no working links (and the URL cannot be shown again later).
 *
 * Link states (the spec leaves the post-decision names open; these are ours):
 *   pending    minted, waiting for a reviewer
 *   approved   a reviewer approved; the draft was published / the staged call applied
 *   rejected   a reviewer rejected; nothing went live
 *   expired    past expiresAt without a decision (persisted lazily, on first read after expiry)
 *   superseded a newer link for the same entity replaced it (the author updated the draft)
 *   withdrawn  the entity it was about was deleted
 *
 * @public Serves every domain whose drafts wait for approval (cms, decks,
 * email, surveys, store, bookings, brain).
 */
import { and, count, desc, eq, lte, ne } from "drizzle-orm";
import { DAY_MS, iso } from "../../core/clock";
import type { ActorContext, Deps } from "../../core/context";
import type { Db, Tx } from "../../core/db";
import type { ApprovalLink } from "../../mcp/define";
import { randomHex, sha256Hex } from "../../core/secrets";
import { auditLog } from "../../core/tables";
import { emit } from "../../core/events";
import { approvalRequested } from "./events";
import { approvalLinks } from "./tables";

export type LinkRow = typeof approvalLinks.$inferSelect;
/** A row is what the contract hands domains' kinds (ApprovalLink); this fails to compile when the table drifts from it. */
export type LinkRowFitsContract = Fits<LinkRow, ApprovalLink>;
type Fits<A extends B, B> = A;
export type LinkType = "entity" | "pending_change";
export const LINK_STATUSES = ["pending", "approved", "rejected", "expired", "superseded", "withdrawn"] as const;
export type LinkStatus = (typeof LINK_STATUSES)[number];

/** The core's transaction type (a write transaction or the database itself), re-exported for registry.ts. */
export type { Tx };

/** Exactly what a minted token looks like; anything else is refused before any lookup. */
export const TOKEN_RE = /^[0-9a-f]{64}$/;

/** The approval envelope of interface.md 2.7, plus our link id and type. */
export interface ApprovalEnvelope {
  id: number;
  linkType: LinkType;
  url: string;
  previewUrl: string;
  token: string;
  status: "pending";
  expiresAt: string;
}

export function approvalUrl(deps: Deps, token: string): string {
  return `${deps.config.publicUrl}/approve/${token}`;
}

export interface MintInput {
  linkType: LinkType;
  entityType: string;
  entityId: number | null;
  siteId: number | null;
  title: string;
  payload?: Record<string, unknown> | null;
}

/**
 * Mints a pending link inside the caller's transaction. An entity link
 * supersedes any earlier pending link for the same entity: a reviewer can
 * only ever approve the latest proposal.
 */
export async function mintLink(tx: Tx, ctx: ActorContext, input: MintInput): Promise<ApprovalEnvelope> {
  const now = ctx.deps.clock.now();
  if (input.linkType === "entity" && input.entityId !== null) {
    const same = and(
      eq(approvalLinks.companyId, ctx.company.id),
      eq(approvalLinks.linkType, "entity"),
      eq(approvalLinks.entityType, input.entityType),
      eq(approvalLinks.entityId, input.entityId),
      eq(approvalLinks.status, "pending"),
    );
    // A link past its lifetime stays "expired" in the history; a live one is replaced.
    await tx
      .update(approvalLinks)
      .set({ status: "expired" })
      .where(and(same, lte(approvalLinks.expiresAt, now)));
    await tx.update(approvalLinks).set({ status: "superseded", decidedAt: now }).where(same);
  }
  const token = randomHex(32);
  const expiresAt = new Date(now.getTime() + ctx.deps.config.approvalTtlDays * DAY_MS);
  const row = (
    await tx
      .insert(approvalLinks)
      .values({
        tokenHash: sha256Hex(token),
        companyId: ctx.company.id,
        siteId: input.siteId,
        linkType: input.linkType,
        entityType: input.entityType,
        entityId: input.entityId,
        payload: input.payload ?? null,
        title: input.title.slice(0, 300),
        status: "pending",
        requestedByUserId: ctx.principal.userId,
        credentialKind: ctx.principal.credential.kind,
        credentialId: ctx.principal.credential.id,
        credentialName: ctx.principal.credential.name,
        expiresAt,
        createdAt: now,
      })
      .returning({ id: approvalLinks.id })
  )[0];
  await tx.insert(auditLog).values({
    companyId: ctx.company.id,
    siteId: input.siteId,
    userId: ctx.principal.userId,
    credentialKind: ctx.principal.credential.kind,
    credentialId: ctx.principal.credential.id,
    action: "approvals.mint",
    entityType: input.entityType,
    entityId: input.entityId,
    detail: { approvalId: row.id, linkType: input.linkType },
    createdAt: now,
  });
  await emit(
    tx,
    ctx,
    approvalRequested,
    { id: row.id, siteId: input.siteId },
    {
      approvalId: row.id,
      linkType: input.linkType,
      entityType: input.entityType,
      entityId: input.entityId,
      title: input.title.slice(0, 300),
      requestedByUserId: ctx.principal.userId,
      expiresAt: iso(expiresAt)!,
    },
  );
  const url = approvalUrl(ctx.deps, token);
  return {
    id: row.id,
    linkType: input.linkType,
    url,
    // The approval page is the preview: one page shows the rendered draft and the decision buttons.
    previewUrl: url,
    token,
    status: "pending",
    expiresAt: iso(expiresAt)!,
  };
}

/** The status a link has now: a pending link past its lifetime is expired even before the sweep writes it. */
export function effectiveStatus(link: Pick<LinkRow, "status" | "expiresAt">, now: Date): LinkStatus {
  if (link.status === "pending" && link.expiresAt.getTime() <= now.getTime()) return "expired";
  return link.status as LinkStatus;
}

/** Persists `expired` on pending links past their lifetime (of one company, or all). */
export async function sweepExpired(db: Tx, now: Date, companyId?: number) {
  const past = and(eq(approvalLinks.status, "pending"), lte(approvalLinks.expiresAt, now));
  const where = companyId === undefined ? past : and(past, eq(approvalLinks.companyId, companyId));
  // Reads call this on every list: look before writing, so a list with nothing to sweep writes nothing.
  if ((await db.select({ id: approvalLinks.id }).from(approvalLinks).where(where).limit(1)).length === 0) return;
  await db.update(approvalLinks).set({ status: "expired" }).where(where);
}

/**
 * The link a token names, or null. Malformed tokens (wrong length, upper
 * case, non-hex) are refused without a query; lookup is by SHA-256, so the
 * database never compares the secret itself.
 */
export async function linkByToken(db: Tx, token: string): Promise<LinkRow | null> {
  if (!TOKEN_RE.test(token)) return null;
  return (
    (
      await db
        .select()
        .from(approvalLinks)
        .where(eq(approvalLinks.tokenHash, sha256Hex(token)))
        .limit(1)
    )[0] ?? null
  );
}

/**
 * Marks the open links about an entity as withdrawn (the entity was
 * deleted). `exceptId`: the link whose approval is deleting it (see
 * staging.ts approvedLinkId), which ends approved, not withdrawn.
 */
export async function withdrawLinks(
  tx: Tx,
  companyId: number,
  entityType: string,
  entityId: number,
  now: Date,
  exceptId: number | null = null,
) {
  await tx
    .update(approvalLinks)
    .set({ status: "withdrawn", decidedAt: now })
    .where(
      and(
        eq(approvalLinks.companyId, companyId),
        eq(approvalLinks.entityType, entityType),
        eq(approvalLinks.entityId, entityId),
        eq(approvalLinks.status, "pending"),
        exceptId === null ? undefined : ne(approvalLinks.id, exceptId),
      ),
    );
}

/** The newest link about an entity, for showing the approval state beside the entity. */
export async function latestLinkFor(
  db: Tx,
  companyId: number,
  entityType: string,
  entityId: number,
): Promise<LinkRow | null> {
  return (
    (
      await db
        .select()
        .from(approvalLinks)
        .where(
          and(
            eq(approvalLinks.companyId, companyId),
            eq(approvalLinks.linkType, "entity"),
            eq(approvalLinks.entityType, entityType),
            eq(approvalLinks.entityId, entityId),
          ),
        )
        .orderBy(desc(approvalLinks.id))
        .limit(1)
    )[0] ?? null
  );
}

/** The link about an entity decided most recently with this outcome (who approved what went live), or null. */
export async function latestDecidedLink(
  db: Tx,
  companyId: number,
  entityType: string,
  entityId: number,
  status: "approved" | "rejected",
): Promise<Pick<LinkRow, "id" | "decidedBy" | "decidedAt"> | null> {
  const links = await db
    .select({ id: approvalLinks.id, decidedBy: approvalLinks.decidedBy, decidedAt: approvalLinks.decidedAt })
    .from(approvalLinks)
    .where(
      and(
        eq(approvalLinks.companyId, companyId),
        eq(approvalLinks.entityType, entityType),
        eq(approvalLinks.entityId, entityId),
        eq(approvalLinks.status, status),
      ),
    );
  links.sort((a, b) => (b.decidedAt?.getTime() ?? 0) - (a.decidedAt?.getTime() ?? 0) || b.id - a.id);
  return links[0] ?? null;
}

/** The compact approval state shown inside entity reads (no token: it is shown only once). */
export function approvalState(link: ApprovalLink | null, now: Date) {
  if (!link) return null;
  return {
    id: link.id,
    status: effectiveStatus(link, now),
    expiresAt: iso(link.expiresAt),
    decidedAt: iso(link.decidedAt),
    comment: link.comment,
  };
}

/**
 * One link of an entity type in a company by id, or null (another
 * company's link, or one of another type, answers like a missing one): for
 * a domain that lists its own approvals (brain's reviews).
 */
export async function linkOfType(db: Tx, companyId: number, entityType: string, id: number): Promise<LinkRow | null> {
  return (
    (
      await db
        .select()
        .from(approvalLinks)
        .where(
          and(
            eq(approvalLinks.id, id),
            eq(approvalLinks.companyId, companyId),
            eq(approvalLinks.entityType, entityType),
          ),
        )
        .limit(1)
    )[0] ?? null
  );
}

/** A link by id as it is now (re-read inside the caller's transaction before deciding it), or null. */
export async function linkById(db: Tx, id: number): Promise<LinkRow | null> {
  return (await db.select().from(approvalLinks).where(eq(approvalLinks.id, id)).limit(1))[0] ?? null;
}

/** A page of a company's links of one entity type, newest first, optionally by status and entity, with the total. */
export async function linksOfType(
  db: Tx,
  companyId: number,
  entityType: string,
  filter: { status?: LinkRow["status"]; entityId?: number; limit: number; offset: number },
): Promise<{ rows: LinkRow[]; total: number }> {
  const where = and(
    eq(approvalLinks.companyId, companyId),
    eq(approvalLinks.entityType, entityType),
    filter.status ? eq(approvalLinks.status, filter.status) : undefined,
    filter.entityId !== undefined ? eq(approvalLinks.entityId, filter.entityId) : undefined,
  );
  const total = (await db.select({ n: count() }).from(approvalLinks).where(where))[0]?.n ?? 0;
  const rows = await db
    .select()
    .from(approvalLinks)
    .where(where)
    .orderBy(desc(approvalLinks.id))
    .limit(filter.limit)
    .offset(filter.offset);
  return { rows, total: Number(total) };
}
