/**
 * Invitations by email: an owner or admin invites an address with a role;
 * Plinth mails a link to the portal's accept page (/invite/<token>); the
 * person accepts there, signing in, or signing up when the address has no
 * account yet. The portal's team page and the team tools call these verbs.
 *
 * - A link lives `expiresInDays` (default 7, 1–30) and is refused from its
 *   expiresAt on, to the millisecond. Resending mints a new link (the old one
 *   stops working) with a fresh lifetime; at most 10 sends, one a minute.
 * - One open invitation per address and company; inviting a member, or an
 *   address already invited, is a conflict that says what to do instead.
 * - Only an owner invites someone as owner.
 * - Accepting is one transaction that claims the pending row, so of two
 *   concurrent accepts one wins and the other is told it was used.
 * - The invitation must be accepted by the account of the invited address:
 *   a link forwarded to someone else does not let them join.
 */
import { and, count, desc, eq, gt, lte, or, sql } from "drizzle-orm";
import { audit } from "../../core/audit";
import { DAY_MS, iso } from "../../core/clock";
import type { ActorContext, Deps, Principal } from "../../core/context";
import { emit } from "../../core/events";
import { conflict, forbidden, invalid, notFound } from "../../core/errors";
import { queueMail } from "../../core/mail";
import { page } from "../../core/pagination";
import { escapeHtml } from "../../core/public-page";
import type { Role } from "../../core/roles";
import { authorize } from "../../core/scopes";
import { randomHex, sha256Hex } from "../../core/secrets";
import { auditLog, companies, memberships, users } from "../../core/tables";
import { normaliseEmail } from "../accounts/verbs";
import { invitationAccepted, invitationCreated, invitationResent, invitationRevoked } from "./events";
import { parseRole } from "./members";
import { invitations } from "./tables";

type Row = typeof invitations.$inferSelect;
export type InvitationState = "pending" | "accepted" | "revoked" | "expired";

export const DEFAULT_TTL_DAYS = 7;
export const MAX_SENDS = 10;
export const RESEND_GAP_MS = 60_000;
export const TOKEN_RE = /^[0-9a-f]{64}$/;

export function stateOf(r: Pick<Row, "status" | "expiresAt">, now: Date): InvitationState {
  if (r.status === "pending" && r.expiresAt.getTime() <= now.getTime()) return "expired";
  return r.status;
}

export function acceptUrl(deps: Deps, token: string): string {
  return `${deps.config.publicUrl}/invite/${token}`;
}

function out(r: Row, now: Date, extra: { invitedBy?: string | null } = {}) {
  return {
    id: r.id,
    email: r.email,
    role: r.role,
    status: stateOf(r, now),
    expiresAt: iso(r.expiresAt)!,
    sendCount: r.sendCount,
    lastSentAt: iso(r.lastSentAt)!,
    ...(extra.invitedBy !== undefined && { invitedBy: extra.invitedBy }),
    acceptedAt: iso(r.acceptedAt),
    createdAt: iso(r.createdAt)!,
  };
}

function checkManager(ctx: ActorContext) {
  if (ctx.company.role !== "owner" && ctx.company.role !== "admin")
    throw forbidden(
      `Only owners and admins of ${ctx.company.name} can invite people; your role is ${ctx.company.role}.`,
    );
}

async function nameOf(deps: Deps, userId: number): Promise<string> {
  const u = (
    await deps.db.select({ name: users.name, email: users.email }).from(users).where(eq(users.id, userId)).limit(1)
  )[0];
  return u?.name ?? u?.email ?? "Someone";
}

/** The invitation email: who invites, to what, as what, until when; the link is the only copy of the token. */
async function mailInvitation(tx: Parameters<typeof queueMail>[0], ctx: ActorContext, r: Row, token: string) {
  const inviter = await nameOf(ctx.deps, ctx.principal.userId);
  const url = acceptUrl(ctx.deps, token);
  const until = `${iso(r.expiresAt)!.slice(0, 16).replace("T", " ")} UTC`;
  const lines = [
    `${inviter} invited you to join ${ctx.company.name} on Plinth as ${r.role === "viewer" ? "a viewer" : `an ${r.role}`}.`,
    ...(r.message ? ["", `"${r.message}"`] : []),
    "",
    `Accept the invitation: ${url}`,
    "",
    `The link works until ${until}. If you did not expect this, ignore this email.`,
  ];
  const html = [
    `<p>${escapeHtml(inviter)} invited you to join <strong>${escapeHtml(ctx.company.name)}</strong> on Plinth as ${r.role === "viewer" ? "a viewer" : `an ${r.role}`}.</p>`,
    ...(r.message ? [`<blockquote>${escapeHtml(r.message)}</blockquote>`] : []),
    `<p><a href="${escapeHtml(url)}">Accept the invitation</a></p>`,
    `<p>The link works until ${escapeHtml(until)}. If you did not expect this, ignore this email.</p>`,
  ];
  return await queueMail(tx, ctx.deps, {
    companyId: ctx.company.id,
    to: r.email,
    subject: `${inviter} invited you to ${ctx.company.name} on Plinth`,
    text: lines.join("\n"),
    html: html.join("\n"),
    tag: "team.invitation",
  });
}

/** What the caller is told about delivery; without SMTP the link itself, so a person can pass it on. */
function delivery(ctx: ActorContext, token: string) {
  return ctx.deps.config.smtpUrl
    ? { mail: "queued" as const }
    : { mail: "not_configured" as const, acceptUrl: acceptUrl(ctx.deps, token) };
}

export async function inviteMember(
  ctx: ActorContext,
  input: { email: string; role: string; expiresInDays?: number; message?: string | null },
) {
  authorize(ctx, "team:write", { write: true });
  checkManager(ctx);
  const email = normaliseEmail(input.email);
  const role = parseRole(input.role);
  if (role === "owner" && ctx.company.role !== "owner") throw forbidden("Only an owner can invite someone as owner.");
  const ttlDays = input.expiresInDays ?? DEFAULT_TTL_DAYS;
  if (!Number.isInteger(ttlDays) || ttlDays < 1 || ttlDays > 30)
    throw invalid("expiresInDays must be a whole number from 1 to 30.");
  const message = input.message?.trim() ? input.message.trim() : null;
  if (message && message.length > 1000) throw invalid("The message is at most 1000 characters.");
  const { deps } = ctx;
  const now = deps.clock.now();
  return await deps.store.transaction(async (tx) => {
    const member = (
      await tx
        .select({ id: users.id })
        .from(memberships)
        .innerJoin(users, eq(users.id, memberships.userId))
        .where(and(eq(memberships.companyId, ctx.company.id), eq(users.email, email)))
        .limit(1)
    )[0];
    if (member)
      throw conflict(
        `${email} is already a member of ${ctx.company.name}; change their role with team_members_update.`,
      );
    const open = (
      await tx
        .select()
        .from(invitations)
        .where(and(eq(invitations.companyId, ctx.company.id), eq(invitations.openKey, email)))
        .limit(1)
    )[0];
    if (open && stateOf(open, now) === "pending")
      throw conflict(
        `${email} already has a pending invitation (id ${open.id}, until ${iso(open.expiresAt)}); resend it with team_invitations_resend or revoke it.`,
        {
          invitationId: open.id,
        },
      );
    // Past its time: kept in the history as expired, out of the way of the new one.
    if (open) await tx.update(invitations).set({ status: "expired", openKey: null }).where(eq(invitations.id, open.id));
    const token = randomHex(32);
    const row = (
      await tx
        .insert(invitations)
        .values({
          companyId: ctx.company.id,
          email,
          role,
          tokenHash: sha256Hex(token),
          status: "pending",
          openKey: email,
          invitedByUserId: ctx.principal.userId,
          message,
          expiresAt: new Date(now.getTime() + ttlDays * DAY_MS),
          ttlDays,
          sendCount: 1,
          lastSentAt: now,
          createdAt: now,
        })
        .returning()
    )[0]!;
    await mailInvitation(tx, ctx, row, token);
    await audit(tx, ctx, "team.invite", { type: "invitation", id: row.id, detail: { email, role } });
    await emit(
      tx,
      ctx,
      invitationCreated,
      { id: row.id },
      { invitationId: row.id, email, role, invitedByUserId: ctx.principal.userId, expiresAt: iso(row.expiresAt)! },
    );
    return { ...out(row, now), ...delivery(ctx, token) };
  });
}

async function invitationOf(ctx: ActorContext, id: number): Promise<Row> {
  const r = (
    await ctx.deps.db
      .select()
      .from(invitations)
      .where(and(eq(invitations.id, id), eq(invitations.companyId, ctx.company.id)))
      .limit(1)
  )[0];
  if (!r) throw notFound(`No invitation ${id} in ${ctx.company.name}. List them with team_invitations_list.`);
  return r;
}

export async function resendInvitation(ctx: ActorContext, id: number) {
  authorize(ctx, "team:write", { write: true });
  checkManager(ctx);
  const { deps } = ctx;
  const now = deps.clock.now();
  return await deps.store.transaction(async (tx) => {
    const r = await invitationOf(ctx, id);
    if (r.status === "accepted" || r.status === "revoked")
      throw conflict(`Invitation ${id} was ${r.status}; invite ${r.email} again instead.`);
    if (r.status === "expired") throw conflict(`Invitation ${id} was replaced by a newer one to ${r.email}.`);
    if (r.role === "owner" && ctx.company.role !== "owner")
      throw forbidden("Only an owner can resend an invitation to become owner.");
    if (r.sendCount >= MAX_SENDS)
      throw conflict(`Invitation ${id} was sent ${r.sendCount} times; revoke it, and invite again if needed.`);
    const wait = r.lastSentAt.getTime() + RESEND_GAP_MS - now.getTime();
    if (wait > 0)
      throw conflict(
        `Invitation ${id} was sent moments ago; wait ${Math.ceil(wait / 1000)} s before sending it again.`,
      );
    const token = randomHex(32);
    const updated = (
      await tx
        .update(invitations)
        .set({
          tokenHash: sha256Hex(token),
          expiresAt: new Date(now.getTime() + r.ttlDays * DAY_MS),
          sendCount: r.sendCount + 1,
          lastSentAt: now,
        })
        .where(and(eq(invitations.id, id), eq(invitations.status, "pending"), eq(invitations.sendCount, r.sendCount)))
        .returning()
    )[0];
    if (!updated) throw conflict(`Invitation ${id} changed meanwhile; list it again.`);
    await mailInvitation(tx, ctx, updated, token);
    await audit(tx, ctx, "team.invite_resend", {
      type: "invitation",
      id,
      detail: { email: r.email, sendCount: updated.sendCount },
    });
    await emit(
      tx,
      ctx,
      invitationResent,
      { id },
      {
        invitationId: id,
        email: r.email,
        role: r.role,
        expiresAt: iso(updated.expiresAt)!,
        sendCount: updated.sendCount,
      },
    );
    return { ...out(updated, now), ...delivery(ctx, token) };
  });
}

export async function revokeInvitation(ctx: ActorContext, id: number) {
  authorize(ctx, "team:write", { write: true });
  checkManager(ctx);
  const { deps } = ctx;
  const now = deps.clock.now();
  return await deps.store.transaction(async (tx) => {
    const r = await invitationOf(ctx, id);
    if (r.status !== "pending") throw conflict(`Invitation ${id} was already ${r.status}.`);
    if (r.role === "owner" && ctx.company.role !== "owner")
      throw forbidden("Only an owner can revoke an invitation to become owner.");
    await tx
      .update(invitations)
      .set({ status: "revoked", openKey: null, revokedAt: now })
      .where(and(eq(invitations.id, id), eq(invitations.status, "pending")));
    await audit(tx, ctx, "team.invite_revoke", { type: "invitation", id, detail: { email: r.email } });
    await emit(tx, ctx, invitationRevoked, { id }, { invitationId: id, email: r.email, role: r.role });
    return { id, email: r.email, status: "revoked" as const };
  });
}

export async function listInvitations(
  ctx: ActorContext,
  f: { status?: InvitationState | "all"; limit: number; offset: number },
) {
  authorize(ctx, "team:read", { write: false });
  const { deps } = ctx;
  const now = deps.clock.now();
  const status = f.status ?? "pending";
  const byStatus =
    status === "all"
      ? undefined
      : status === "pending"
        ? and(eq(invitations.status, "pending"), gt(invitations.expiresAt, now))
        : status === "expired"
          ? or(
              eq(invitations.status, "expired"),
              and(eq(invitations.status, "pending"), lte(invitations.expiresAt, now)),
            )
          : eq(invitations.status, status);
  const where = and(eq(invitations.companyId, ctx.company.id), byStatus);
  const total = (await deps.db.select({ n: count() }).from(invitations).where(where))[0]?.n ?? 0;
  const rows = await deps.db
    .select({ r: invitations, by: sql<string | null>`coalesce(${users.name}, ${users.email})` })
    .from(invitations)
    .leftJoin(users, eq(users.id, invitations.invitedByUserId))
    .where(where)
    .orderBy(desc(invitations.createdAt), desc(invitations.id))
    .limit(f.limit)
    .offset(f.offset);
  return page(
    rows.map((x) => out(x.r, now, { invitedBy: x.by })),
    total,
    f.limit,
    f.offset,
  );
}

// ----------------------------------------------------------- accepting

/** What the accept page shows about a token. */
export interface InvitationView {
  id: number;
  companyId: number;
  company: string;
  email: string;
  role: Role;
  state: InvitationState;
  invitedBy: string | null;
  message: string | null;
  expiresAt: Date;
  acceptedAt: Date | null;
  revokedAt: Date | null;
  /** Whether the invited address has an account, and one with a password (else accepting sets one). */
  account: "none" | "no_password" | "ready";
}

export async function invitationByToken(deps: Deps, token: string): Promise<InvitationView | null> {
  if (!TOKEN_RE.test(token)) return null;
  const r = (
    await deps.db
      .select({ r: invitations, company: companies.name })
      .from(invitations)
      .innerJoin(companies, eq(companies.id, invitations.companyId))
      .where(eq(invitations.tokenHash, sha256Hex(token)))
      .limit(1)
  )[0];
  if (!r) return null;
  const u = (
    await deps.db.select({ hash: users.passwordHash }).from(users).where(eq(users.email, r.r.email)).limit(1)
  )[0];
  return {
    id: r.r.id,
    companyId: r.r.companyId,
    company: r.company,
    email: r.r.email,
    role: r.r.role,
    state: stateOf(r.r, deps.clock.now()),
    invitedBy: r.r.invitedByUserId ? await nameOf(deps, r.r.invitedByUserId) : null,
    message: r.r.message,
    expiresAt: r.r.expiresAt,
    acceptedAt: r.r.acceptedAt,
    revokedAt: r.r.revokedAt,
    account: !u ? "none" : u.hash ? "ready" : "no_password",
  };
}

/** Why an invitation cannot be accepted, in words for its page. */
export function refusal(v: Pick<InvitationView, "state" | "company" | "expiresAt" | "invitedBy">): string {
  switch (v.state) {
    case "accepted":
      return `This invitation to ${v.company} has already been used.`;
    case "revoked":
      return `This invitation to ${v.company} was withdrawn${v.invitedBy ? ` by the team` : ""}. Ask ${v.invitedBy ?? "them"} for a new one if you still need access.`;
    case "expired":
      return `This invitation to ${v.company} expired on ${iso(v.expiresAt)!.slice(0, 16).replace("T", " ")} UTC. Ask ${v.invitedBy ?? "the person who invited you"} to send it again.`;
    default:
      return "";
  }
}

export type AcceptAs = { userId: number } | { signUp: { name: string; passwordHash: string } };

/**
 * Accepts in one transaction: claims the pending row (only one of two
 * racing accepts can), makes the account when signing up, adds the
 * membership, audits and emits invitation.accepted. Throws conflict with
 * the page's wording when the invitation is no longer open.
 */
export async function acceptInvitation(
  deps: Deps,
  token: string,
  as: AcceptAs,
): Promise<{ companyId: number; userId: number; newAccount: boolean; role: Role }> {
  if (!TOKEN_RE.test(token)) throw notFound("This invitation link is not valid.");
  return await deps.store.transaction(async (tx) => {
    const now = deps.clock.now();
    const found = (
      await tx
        .select({ r: invitations, company: companies.name })
        .from(invitations)
        .innerJoin(companies, eq(companies.id, invitations.companyId))
        .where(eq(invitations.tokenHash, sha256Hex(token)))
        .limit(1)
    )[0];
    if (!found) throw notFound("This invitation link is not valid.");
    const r = found.r;
    const state = stateOf(r, now);
    if (state !== "pending")
      throw conflict(
        refusal({
          state,
          company: found.company,
          expiresAt: r.expiresAt,
          invitedBy: r.invitedByUserId ? await nameOf(deps, r.invitedByUserId) : null,
        }),
      );
    let userId: number;
    let name: string | null;
    let newAccount = false;
    const existing = (await tx.select().from(users).where(eq(users.email, r.email)).limit(1))[0];
    if ("userId" in as) {
      if (!existing || existing.id !== as.userId)
        throw forbidden(`This invitation is for ${r.email}. Sign in with that address to accept it.`);
      userId = existing.id;
      name = existing.name;
    } else if (existing?.passwordHash) {
      throw conflict(`${r.email} already has a Plinth account: sign in to accept.`);
    } else if (existing) {
      // An account made for them without a password (by an operator): accepting sets it.
      await tx
        .update(users)
        .set({ passwordHash: as.signUp.passwordHash, name: existing.name ?? as.signUp.name })
        .where(eq(users.id, existing.id));
      userId = existing.id;
      name = existing.name ?? as.signUp.name;
    } else {
      userId = (
        await tx
          .insert(users)
          .values({ email: r.email, name: as.signUp.name, passwordHash: as.signUp.passwordHash, createdAt: now })
          .returning({ id: users.id })
      )[0]!.id;
      name = as.signUp.name;
      newAccount = true;
    }
    // The claim: of two racing accepts, only one finds it still pending and in time.
    const claimed = await tx
      .update(invitations)
      .set({ status: "accepted", openKey: null, acceptedAt: now, acceptedByUserId: userId })
      .where(and(eq(invitations.id, r.id), eq(invitations.status, "pending"), gt(invitations.expiresAt, now)))
      .returning({ id: invitations.id });
    if (claimed.length === 0) throw conflict(`This invitation to ${found.company} has already been used.`);
    const already = (
      await tx
        .select({ role: memberships.role })
        .from(memberships)
        .where(and(eq(memberships.companyId, r.companyId), eq(memberships.userId, userId)))
        .limit(1)
    )[0];
    // Someone added them meanwhile: they keep the role they have.
    if (!already) await tx.insert(memberships).values({ companyId: r.companyId, userId, role: r.role, createdAt: now });
    const role = already?.role ?? r.role;
    await tx.insert(auditLog).values({
      companyId: r.companyId,
      userId,
      credentialKind: "session",
      credentialId: 0,
      action: "team.invite_accept",
      entityType: "invitation",
      entityId: r.id,
      detail: { email: r.email, role, newAccount },
      createdAt: now,
    });
    const principal: Principal = {
      userId,
      credential: { kind: "session", id: 0, name: "portal" },
      scopes: [],
      companies: [],
      requireCmsApproval: false,
    };
    await emit(
      tx,
      { deps, company: { id: r.companyId }, principal },
      invitationAccepted,
      { id: r.id },
      {
        invitationId: r.id,
        email: r.email,
        name,
        role,
        userId,
        invitedByUserId: r.invitedByUserId,
        newAccount,
      },
    );
    return { companyId: r.companyId, userId, newAccount, role };
  });
}
