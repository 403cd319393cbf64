/**
 * Notifications the domains' events call for, made inside the dispatcher's
 * transaction (so each is made exactly once):
 *
 * - approval.decided → the person who asked for the approval (not when they
 *   decided it themself);
 * - invitation.accepted → the person who sent the invitation.
 */
import { eq } from "drizzle-orm";
import type { Deps } from "../../core/context";
import type { EventDef, EventRecord, Subscriber } from "../../core/events";
import { companies } from "../../core/tables";
import type { approvalDecided } from "../approvals/events";
import type { invitationAccepted } from "../team/events";
import { notify } from "./notify";

type Payload<E> = E extends EventDef<infer T> ? T : never;

async function companyName(deps: Deps, id: number): Promise<string> {
  return (
    (await deps.db.select({ name: companies.name }).from(companies).where(eq(companies.id, id)).limit(1))[0]?.name ??
    "your company"
  );
}

async function onApprovalDecided(deps: Deps, e: EventRecord<Payload<typeof approvalDecided>>) {
  const d = e.data;
  if (d.requestedByUserId === null) return;
  const what = d.title ?? `${d.entityType.replace(/_/g, " ")}${d.entityId ? ` ${d.entityId}` : ""}`;
  await notify(deps, {
    companyId: e.companyId,
    userIds: [d.requestedByUserId],
    type: "approval.decided",
    title: `${d.decision === "approved" ? "Approved" : "Rejected"}: ${what}`,
    body: `${d.decidedBy} ${d.decision} it${d.decision === "approved" ? "; the change is live" : "; nothing was changed"}.${d.comment ? `\n“${d.comment}”` : ""}`,
    link: `/approvals/${d.approvalId}`,
    entity: { type: "approval", id: d.approvalId },
    actorUserId: e.actor?.userId ?? null,
  });
}

async function onInvitationAccepted(deps: Deps, e: EventRecord<Payload<typeof invitationAccepted>>) {
  const d = e.data;
  if (d.invitedByUserId === null) return;
  await notify(deps, {
    companyId: e.companyId,
    userIds: [d.invitedByUserId],
    type: "invitation.accepted",
    title: `${d.name ?? d.email} joined ${await companyName(deps, e.companyId)} as ${d.role}`,
    body: `${d.email} accepted your invitation${d.newAccount ? " and made a Plinth account" : ""}.`,
    link: "/team",
    entity: { type: "invitation", id: d.invitationId },
    actorUserId: d.userId,
  });
}

export const notificationSubscriber: Subscriber = {
  name: "notifications.inbox",
  types: ["approval.decided", "invitation.accepted"],
  async handle(deps, e) {
    if (e.type === "approval.decided") await onApprovalDecided(deps, e as EventRecord<any>);
    else if (e.type === "invitation.accepted") await onInvitationAccepted(deps, e as EventRecord<any>);
  },
};
