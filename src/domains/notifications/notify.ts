/**
 * notify(): how a domain tells people something happened. Called inside the
 * verb's (or the event subscriber's) transaction, so the notification exists
 * exactly when the change does.
 *
 * @example
 * await notify(ctx.deps, {
 *   companyId: ctx.company.id, userIds: [assigneeId], type: "card.assigned",
 *   title: `WEB-42 Fix the checkout button`, link: "/projects/WEB/cards/42",
 *   entity: { type: "card", id: card.id }, actorUserId: ctx.principal.userId,
 * });
 *
 * Recipients are skipped, not refused: the actor (nobody is told what they
 * did themself), users who are not members of the company (a stale id, a
 * removed member), and users whose preferences turn the type off both in
 * the inbox and by email. A type wanted by email only is stored out of the
 * inbox (archived) so the email digest can still carry it.
 *
 * @public Serves every domain that tells people something happened.
 */
import { and, eq, inArray } from "drizzle-orm";
import * as v from "valibot";
import type { Deps } from "../../core/context";
import { invalid } from "../../core/errors";
import { defineEvent, emit } from "../../core/events";
import { memberships } from "../../core/tables";
import { preferencesFor } from "./preferences";
import { notifications } from "./tables";
import { TYPE_RE } from "./types";

export interface NotifyInput {
  companyId: number;
  userIds: number[];
  /** `<entity>.<what>`, e.g. "card.assigned" (see types.ts for the known ones). */
  type: string;
  title: string;
  body?: string | null;
  /** A portal path such as `/approvals/7`. */
  link?: string | null;
  entity?: { type: string; id: number } | null;
  actorUserId?: number | null;
}

export type SkipReason = "actor" | "not_member" | "muted";

export const notificationCreated = defineEvent({
  type: "notification.created",
  entity: "notification",
  description:
    "People were notified (one event per notify call): who, of what type, with the title and portal link they see.",
  payload: v.object({
    notificationIds: v.array(v.number()),
    userIds: v.array(v.number()),
    type: v.string(),
    title: v.string(),
    link: v.nullable(v.string()),
    entityType: v.nullable(v.string()),
    entityId: v.nullable(v.number()),
  }),
});

export const LIMITS = { title: 300, body: 5000, link: 2000, recipients: 1000 } as const;

/** A path on the portal: `/…`, not `//host`, no backslashes or control characters (they turn into other sites in browsers). */
export function isPortalPath(link: string): boolean {
  return (
    link.startsWith("/") &&
    !link.startsWith("//") &&
    !/[\u0000-\u001f\u007f\\]/.test(link) &&
    link.length <= LIMITS.link
  );
}

function clean(n: NotifyInput) {
  if (!TYPE_RE.test(n.type))
    throw invalid(
      `Not a notification type: "${n.type.slice(0, 80)}" (lower-case words with dots, e.g. card.assigned).`,
    );
  const title = n.title.replace(/\s+/g, " ").trim();
  if (!title) throw invalid("A notification needs a title.");
  if (title.length > LIMITS.title) throw invalid(`A notification title is at most ${LIMITS.title} characters.`);
  const body = n.body?.trim() ? n.body.trim() : null;
  if (body && body.length > LIMITS.body) throw invalid(`A notification body is at most ${LIMITS.body} characters.`);
  const link = n.link?.trim() ? n.link.trim() : null;
  if (link && !isPortalPath(link)) throw invalid("A notification link must be a portal path such as /approvals/7.");
  if ([title, body ?? "", link ?? ""].some((s) => s.includes("\u0000")))
    throw invalid("A notification must not contain the NUL character.");
  const ids = [...new Set(n.userIds)];
  if (ids.some((id) => !Number.isSafeInteger(id) || id < 1)) throw invalid("userIds must be positive whole numbers.");
  if (ids.length > LIMITS.recipients) throw invalid(`At most ${LIMITS.recipients} recipients per notification.`);
  return { title, body, link, ids };
}

/** notify() with the details a tool reports back: the rows made and who was skipped why. */
export async function notifyDetailed(
  deps: Deps,
  n: NotifyInput,
): Promise<{ ids: number[]; userIds: number[]; skipped: { userId: number; reason: SkipReason }[] }> {
  const c = clean(n);
  const run = async () => {
    const skipped: { userId: number; reason: SkipReason }[] = [];
    let candidates = c.ids;
    if (n.actorUserId != null && candidates.includes(n.actorUserId)) {
      skipped.push({ userId: n.actorUserId, reason: "actor" });
      candidates = candidates.filter((u) => u !== n.actorUserId);
    }
    const members = candidates.length
      ? new Set(
          (
            await deps.db
              .select({ u: memberships.userId })
              .from(memberships)
              .where(and(eq(memberships.companyId, n.companyId), inArray(memberships.userId, candidates)))
          ).map((r) => r.u),
        )
      : new Set<number>();
    for (const u of candidates) if (!members.has(u)) skipped.push({ userId: u, reason: "not_member" });
    candidates = candidates.filter((u) => members.has(u));
    const prefs = await preferencesFor(deps, candidates, n.type);
    const now = deps.clock.now();
    const values = [];
    for (const u of candidates) {
      const p = prefs.get(u)!;
      if (!p.inApp && !p.email) {
        skipped.push({ userId: u, reason: "muted" });
        continue;
      }
      values.push({
        companyId: n.companyId,
        userId: u,
        type: n.type,
        title: c.title,
        body: c.body,
        link: c.link,
        entityType: n.entity?.type ?? null,
        entityId: n.entity?.id ?? null,
        actorUserId: n.actorUserId ?? null,
        readAt: null,
        snoozedUntil: null,
        // Wanted by email only: kept out of the inbox, still carried by the digest.
        archivedAt: p.inApp ? null : now,
        sortAt: now,
        emailState: p.email ? ("pending" as const) : null,
        createdAt: now,
      });
    }
    if (values.length === 0) return { ids: [], userIds: [], skipped };
    const rows = await deps.db
      .insert(notifications)
      .values(values)
      .returning({ id: notifications.id, userId: notifications.userId });
    await emit(
      deps.db,
      { deps, company: { id: n.companyId } },
      notificationCreated,
      { id: rows[0]!.id },
      {
        notificationIds: rows.map((r) => r.id),
        userIds: rows.map((r) => r.userId),
        type: n.type,
        title: c.title,
        link: c.link,
        entityType: n.entity?.type ?? null,
        entityId: n.entity?.id ?? null,
      },
    );
    return { ids: rows.map((r) => r.id), userIds: rows.map((r) => r.userId), skipped };
  };
  // In the caller's transaction when there is one (the usual case); else one of its own, so rows and event commit together.
  return deps.store.inTransaction() ? await run() : await deps.store.transaction(run);
}

/**
 * Creates notifications for `userIds` in the current transaction; returns
 * how many rows it made (see the file comment for who is skipped).
 */
export async function notify(deps: Deps, n: NotifyInput): Promise<number> {
  return (await notifyDetailed(deps, n)).ids.length;
}
