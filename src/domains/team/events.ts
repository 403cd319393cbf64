/**
 * What the team domain tells the rest of Plinth (notifications, automations, webhooks).
 *
 * @public Serves notifications (an accepted invitation is announced).
 */
import * as v from "valibot";
import { defineEvent } from "../../core/events";

const role = v.picklist(["owner", "admin", "viewer"]);

export const invitationCreated = defineEvent({
  type: "invitation.created",
  entity: "invitation",
  description: "Someone was invited by email to join the team with a role; the link works until expiresAt.",
  payload: v.object({
    invitationId: v.number(),
    email: v.string(),
    role,
    invitedByUserId: v.nullable(v.number()),
    expiresAt: v.string(),
  }),
});

export const invitationResent = defineEvent({
  type: "invitation.resent",
  entity: "invitation",
  description: "An invitation was sent again with a fresh link (the old link stopped working) and a new expiresAt.",
  payload: v.object({
    invitationId: v.number(),
    email: v.string(),
    role,
    expiresAt: v.string(),
    sendCount: v.number(),
  }),
});

export const invitationRevoked = defineEvent({
  type: "invitation.revoked",
  entity: "invitation",
  description: "A pending invitation was withdrawn; its link now says so.",
  payload: v.object({ invitationId: v.number(), email: v.string(), role }),
});

export const invitationAccepted = defineEvent({
  type: "invitation.accepted",
  entity: "invitation",
  description:
    "An invitation was accepted: userId is now a member with role (newAccount when they signed up to accept it).",
  payload: v.object({
    invitationId: v.number(),
    email: v.string(),
    name: v.nullable(v.string()),
    role,
    userId: v.number(),
    invitedByUserId: v.nullable(v.number()),
    newAccount: v.boolean(),
  }),
});

export const memberRoleChanged = defineEvent({
  type: "member.role_changed",
  entity: "user",
  description:
    "A member's role changed (previousRole → role); their credentials carry the new role from their next request.",
  payload: v.object({ userId: v.number(), email: v.string(), role, previousRole: role }),
});

export const memberRemoved = defineEvent({
  type: "member.removed",
  entity: "user",
  description:
    "A member left or was removed; their keys and apps stop reaching the company on their next request. handedOverToUserId: who took over their open work.",
  payload: v.object({
    userId: v.number(),
    email: v.string(),
    role,
    left: v.boolean(),
    handedOverToUserId: v.nullable(v.number()),
  }),
});

export const teamEvents = [
  invitationCreated,
  invitationResent,
  invitationRevoked,
  invitationAccepted,
  memberRoleChanged,
  memberRemoved,
];
