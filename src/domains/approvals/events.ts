/**
 * What the approval workflow tells the rest of Plinth: a link was minted
 * (someone is waiting for a person's decision) and a link was decided.
 * Receivers (the requester's notification, an automation, a webhook) get
 * who asked, what about and what was decided without reading the link.
 *
 * @public Serves notifications (the requester hears of a decision).
 */
import * as v from "valibot";
import { defineEvent } from "../../core/events";

const about = {
  approvalId: v.number(),
  linkType: v.picklist(["entity", "pending_change"]),
  entityType: v.string(),
  entityId: v.nullable(v.number()),
  title: v.nullable(v.string()),
  /** The user whose agent or session asked; null for links minted by the system. */
  requestedByUserId: v.nullable(v.number()),
};

export const approvalRequested = defineEvent({
  type: "approval.requested",
  entity: "approval",
  description: "An approval link was minted: a draft or a held change waits for a person's decision until expiresAt.",
  payload: v.object({ ...about, expiresAt: v.string() }),
});

export const approvalDecided = defineEvent({
  type: "approval.decided",
  entity: "approval",
  description:
    "A person approved (the change is live) or rejected an approval link; decidedBy and the comment are the reviewer's.",
  payload: v.object({
    ...about,
    decision: v.picklist(["approved", "rejected"]),
    decidedBy: v.string(),
    comment: v.nullable(v.string()),
  }),
});

export const approvalEvents = [approvalRequested, approvalDecided];
