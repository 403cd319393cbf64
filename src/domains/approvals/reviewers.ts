/**
 * Who may decide on a company's approval pages (issue 30). The page shows
 * its preview to anyone with the link, but holding the link proves nothing:
 * the agent that asked for the change holds it too. So each company chooses:
 *
 *   person (the default; no settings row means this): a signed-in member
 *          whose role may approve (owner, admin) and who is not the user
 *          that asked, or a reviewer the company listed by address who
 *          proves it with a one-time code mailed to that address;
 *   link   anyone holding the link decides, the agent that asked included:
 *          an explicit choice, and owners and admins hear of each such
 *          decision.
 *
 * Codes: 8 digits from the CSPRNG, stored as a salted SHA-256 bound to one
 * link and one address, valid 10 minutes, single use, at most 5 wrong tries
 * each and 3 sent per link and address per hour; compared in constant time.
 * Sending a new code retires the earlier ones, so only the newest works.
 *
 * Every decision records how the decider proved who they are
 * (`decidedVia`: member, reviewer, link) and who (user id or address); the
 * `decidedBy` line people read is derived from that, never typed in.
 */
import type { ApprovalLink } from "../../mcp/define";
import { randomInt } from "node:crypto";
import { and, count, desc, eq, gt, isNull, lt, sql } from "drizzle-orm";
import { iso } from "../../core/clock";
import type { ActorContext, Deps } from "../../core/context";
import { invalid } from "../../core/errors";
import { queueMail } from "../../core/mail";
import { authorize } from "../../core/scopes";
import { safeEqual, randomHex, sha256Hex } from "../../core/secrets";
import { auditLog, companies, memberships, users } from "../../core/tables";
import type { LinkRow, Tx } from "./links";
import { approvalCodes, approvalSettings } from "./tables";

export const APPROVAL_POLICIES = ["person", "link"] as const;
export type ApprovalPolicy = (typeof APPROVAL_POLICIES)[number];

export const CODE_DIGITS = 8;
export const CODE_TTL_MS = 10 * 60_000;
export const CODE_MAX_TRIES = 5;
export const CODE_SENDS_PER_HOUR = 3;
export const MAX_REVIEWERS = 50;
/** The mail tag of a code, for the delivery log (and for reading it where unsent mail is kept). */
export const CODE_MAIL_TAG = "approvals.code";

/** The shape queueMail accepts, checked here first so a bad address is the visitor's error, not the outbox's. */
const ADDRESS_RE = /^[^\s@<>(),;:"[\]\\]+@[^\s@<>(),;:"[\]\\]+\.[^\s@<>(),;:"[\]\\]+$/;
export const CODE_RE = new RegExp(`^[0-9]{${CODE_DIGITS}}$`);

/** How a decider proved who they are, and who they are. */
export type Decider =
  | { via: "member"; userId: number; name: string }
  | { via: "reviewer"; email: string }
  | { via: "link" };

/** The display line stored as `decidedBy`: derived, never typed by the decider. */
export function decidedByText(d: Decider): string {
  if (d.via === "member") return `${d.name} (member)`;
  if (d.via === "reviewer") return `${d.email} (verified reviewer)`;
  return "link holder";
}

export interface ApprovalSettings {
  policy: ApprovalPolicy;
  reviewers: string[];
  updatedAt: string | null;
}

export async function settingsOf(db: Tx, companyId: number): Promise<ApprovalSettings> {
  const row = (await db.select().from(approvalSettings).where(eq(approvalSettings.companyId, companyId)).limit(1))[0];
  if (!row) return { policy: "person", reviewers: [], updatedAt: null };
  return {
    policy: row.policy === "link" ? "link" : "person",
    reviewers: Array.isArray(row.reviewers) ? row.reviewers : [],
    updatedAt: iso(row.updatedAt),
  };
}

/** A typed address, normalised (trimmed, lower case), or null when it is not one. */
export function normaliseAddress(raw: string): string | null {
  const a = raw.trim().toLowerCase();
  if (a.length === 0 || a.length > 254 || /[\u0000-\u001f\u007f]/.test(a) || !ADDRESS_RE.test(a)) return null;
  return a;
}

/** Checks and normalises a reviewer list: addresses, no duplicates, at most MAX_REVIEWERS. */
export function normaliseReviewers(list: readonly string[]): string[] {
  const out: string[] = [];
  for (const raw of list) {
    if (!raw.trim()) continue;
    const a = normaliseAddress(raw);
    if (!a)
      throw invalid(
        `Not an email address: "${raw.replace(/[\u0000-\u001f\u007f]/g, "").slice(0, 80)}". List one address per line.`,
      );
    if (!out.includes(a)) out.push(a);
  }
  if (out.length > MAX_REVIEWERS) throw invalid(`At most ${MAX_REVIEWERS} reviewer addresses per company.`);
  return out;
}

/**
 * The company's setting, for its owners and admins only (approvals_settings_get,
 * the portal's form): the reviewer list is people's addresses.
 */
export async function getApprovalSettings(ctx: ActorContext): Promise<ApprovalSettings> {
  authorize(ctx, "approvals:read", { write: false, minRole: "admin" });
  return await settingsOf(ctx.deps.db, ctx.company.id);
}

/** Changes who may decide; only what is given changes. Audited. */
export async function updateApprovalSettings(
  ctx: ActorContext,
  input: { policy?: ApprovalPolicy; reviewers?: readonly string[] },
): Promise<ApprovalSettings> {
  authorize(ctx, "approvals:manage", { write: true });
  if (input.policy !== undefined && !APPROVAL_POLICIES.includes(input.policy))
    throw invalid(`policy is person or link, not "${String(input.policy).slice(0, 40)}".`);
  const reviewers = input.reviewers === undefined ? undefined : normaliseReviewers(input.reviewers);
  const { db, clock } = ctx.deps;
  const now = clock.now();
  await db.transaction(async (tx) => {
    const before = await settingsOf(tx as unknown as Tx, ctx.company.id);
    const next = { policy: input.policy ?? before.policy, reviewers: reviewers ?? before.reviewers };
    await tx
      .insert(approvalSettings)
      .values({ companyId: ctx.company.id, ...next, updatedByUserId: ctx.principal.userId, updatedAt: now })
      .onConflictDoUpdate({
        target: approvalSettings.companyId,
        set: { ...next, updatedByUserId: ctx.principal.userId, updatedAt: now },
      });
    await tx.insert(auditLog).values({
      companyId: ctx.company.id,
      siteId: null,
      userId: ctx.principal.userId,
      credentialKind: ctx.principal.credential.kind,
      credentialId: ctx.principal.credential.id,
      action: "approvals.settings",
      entityType: "company",
      entityId: ctx.company.id,
      detail: { policy: next.policy, reviewers: next.reviewers.length },
      createdAt: now,
    });
  });
  return await settingsOf(db, ctx.company.id);
}

export type MemberCheck =
  | { ok: true; decider: Extract<Decider, { via: "member" }>; role: string }
  | { ok: false; reason: "requester" | "role" | "not_member" };

/**
 * Whether a signed-in user may decide a link as a member: they belong to
 * the link's company with a role that may approve (owner, admin) and are
 * not the user who asked for it (under `person`; `link` lets anyone).
 */
export async function memberMayDecide(db: Tx, link: ApprovalLink, userId: number): Promise<MemberCheck> {
  const m = (
    await db
      .select({ role: memberships.role, name: users.name, email: users.email })
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.userId))
      .where(and(eq(memberships.companyId, link.companyId), eq(memberships.userId, userId)))
      .limit(1)
  )[0];
  if (!m) return { ok: false, reason: "not_member" };
  if (m.role !== "owner" && m.role !== "admin") return { ok: false, reason: "role" };
  if (link.requestedByUserId === userId && (await settingsOf(db, link.companyId)).policy === "person")
    return { ok: false, reason: "requester" };
  return { ok: true, decider: { via: "member", userId, name: m.name ?? m.email }, role: m.role };
}

const codeHash = (salt: string, linkId: number, email: string, code: string) =>
  sha256Hex(`${salt}:${linkId}:${email}:${code}`);

/**
 * Whether `email` may prove itself on `link`: the company uses `person`,
 * lists the address, and it is not the address of the user who asked (a
 * requester listing themself would approve their own request).
 */
async function reviewerListed(db: Tx, link: ApprovalLink, email: string): Promise<boolean> {
  const settings = await settingsOf(db, link.companyId);
  if (settings.policy !== "person" || !settings.reviewers.includes(email)) return false;
  if (link.requestedByUserId === null) return true;
  const asker = (
    await db.select({ email: users.email }).from(users).where(eq(users.id, link.requestedByUserId)).limit(1)
  )[0];
  return asker?.email.toLowerCase() !== email;
}

export type CodeRequest = { sent: true } | { sent: false; why: "not_listed" | "limited" };

/**
 * Mails a fresh code for deciding `link` to `email` when the link's company
 * lists that address and fewer than CODE_SENDS_PER_HOUR were sent for the
 * pair in the last hour. The caller answers the same whatever this returns,
 * so whether an address is listed never shows. `email` must be normalised.
 */
export async function requestCode(deps: Deps, link: ApprovalLink, email: string): Promise<CodeRequest> {
  if (!(await reviewerListed(deps.db, link, email))) return { sent: false, why: "not_listed" };
  const now = deps.clock.now();
  return await deps.db.transaction(async (tx) => {
    const pair = and(eq(approvalCodes.linkId, link.id), eq(approvalCodes.email, email));
    const recent =
      (
        await tx
          .select({ n: count() })
          .from(approvalCodes)
          .where(and(pair, gt(approvalCodes.createdAt, new Date(now.getTime() - 3600_000))))
          .limit(1)
      )[0]?.n ?? 0;
    if (recent >= CODE_SENDS_PER_HOUR) return { sent: false, why: "limited" } as const;
    // Only the newest code works: earlier ones for the pair are retired.
    await tx
      .update(approvalCodes)
      .set({ expiresAt: now })
      .where(and(pair, isNull(approvalCodes.usedAt), gt(approvalCodes.expiresAt, now)));
    const code = String(randomInt(0, 10 ** CODE_DIGITS)).padStart(CODE_DIGITS, "0");
    const salt = randomHex(16);
    await tx.insert(approvalCodes).values({
      linkId: link.id,
      email,
      salt,
      codeHash: codeHash(salt, link.id, email, code),
      attempts: 0,
      expiresAt: new Date(now.getTime() + CODE_TTL_MS),
      createdAt: now,
    });
    const company =
      (await tx.select({ name: companies.name }).from(companies).where(eq(companies.id, link.companyId)).limit(1))[0]
        ?.name ?? "a company";
    const what = (link.title ?? "an approval request").replace(/\s+/g, " ").slice(0, 120);
    // The approval URL is not in the mail: the outbox would then hold a working token, which the database never does.
    await queueMail(tx, deps, {
      companyId: link.companyId,
      to: email,
      subject: `Your code to decide “${what}”`,
      text:
        `Your code: ${code}\n\n` +
        `Enter it on the approval page for “${what}” (${company}) where you asked for it. ` +
        `It works once, for 10 minutes.\n\n` +
        `You get this because ${company} lists ${email} as a reviewer of its approval requests. ` +
        `If you did not ask for a code, ignore this mail.`,
      tag: CODE_MAIL_TAG,
    });
    return { sent: true } as const;
  });
}

export type CodeCheck =
  | { ok: true; decider: Extract<Decider, { via: "reviewer" }> }
  | { ok: false; reason: "wrong"; triesLeft: number }
  | { ok: false; reason: "spent" };

/**
 * Redeems a code for deciding `link` as `email` (both already shaped):
 * the newest live code of the pair must match; a match is spent at once
 * (single use, even when two requests race), a miss costs one of
 * CODE_MAX_TRIES. An address the company no longer lists, an expired, used,
 * retired or exhausted code, and a code of another link or address are all
 * `spent`: there is no live code for this pair.
 */
export async function redeemCode(deps: Deps, link: ApprovalLink, email: string, code: string): Promise<CodeCheck> {
  if (!(await reviewerListed(deps.db, link, email))) return { ok: false, reason: "spent" };
  const now = deps.clock.now();
  const live = (
    await deps.db
      .select()
      .from(approvalCodes)
      .where(
        and(
          eq(approvalCodes.linkId, link.id),
          eq(approvalCodes.email, email),
          isNull(approvalCodes.usedAt),
          gt(approvalCodes.expiresAt, now),
          lt(approvalCodes.attempts, CODE_MAX_TRIES),
        ),
      )
      .orderBy(desc(approvalCodes.id))
      .limit(1)
  )[0];
  if (!live) return { ok: false, reason: "spent" };
  if (!safeEqual(codeHash(live.salt, link.id, email, code), live.codeHash)) {
    const bumped = await deps.db
      .update(approvalCodes)
      .set({ attempts: sql`${approvalCodes.attempts} + 1` })
      .where(and(eq(approvalCodes.id, live.id), lt(approvalCodes.attempts, CODE_MAX_TRIES)))
      .returning({ attempts: approvalCodes.attempts });
    const used = bumped[0]?.attempts ?? CODE_MAX_TRIES;
    return { ok: false, reason: "wrong", triesLeft: Math.max(0, CODE_MAX_TRIES - used) };
  }
  const spent = await deps.db
    .update(approvalCodes)
    .set({ usedAt: now })
    .where(and(eq(approvalCodes.id, live.id), isNull(approvalCodes.usedAt), lt(approvalCodes.attempts, CODE_MAX_TRIES)))
    .returning({ id: approvalCodes.id });
  if (spent.length === 0) return { ok: false, reason: "spent" };
  return { ok: true, decider: { via: "reviewer", email } };
}
