/** The team toolset: members and roles, invitations by email. The portal's team page calls the same verbs. */
import { demoTeam } from "./demo";
import * as v from "valibot";
import { pageInput } from "../../core/pagination";
import { ROLES } from "../../core/roles";
import { defineTool, type Domain } from "../../mcp/define";
import { teamEvents } from "./events";
import { inviteMember, listInvitations, resendInvitation, revokeInvitation } from "./invitations";
import { changeRole, leaveTeam, listMembers, removeMember } from "./members";
import { described, idSchema as id, MEMBER_REF_WORDS } from "../../core/fields";

const role = v.picklist(ROLES);
const email = v.pipe(v.string(), v.maxLength(254));
/** A member by user id or email. */
const who = { userId: v.optional(id), email: v.optional(email) };
/** Who takes over a departing member's open work, or force: leave it unassigned. */
const handOver = {
  reassignTo: v.optional(described(v.union([id, email]), MEMBER_REF_WORDS)),
  force: v.optional(v.boolean()),
};

export const teamMembersList = defineTool({
  name: "team_members_list",
  toolset: "team",
  scope: "team:read",
  readOnly: true,
  title: "List team members",
  description: "Company members with role, title, time zone and local time.",
  input: v.object({ role: v.optional(role), search: v.optional(v.pipe(v.string(), v.maxLength(200))), ...pageInput }),
  run: async (ctx, input) => await listMembers(ctx, input),
});

export const teamMembersUpdate = defineTool({
  name: "team_members_update",
  toolset: "team",
  scope: "team:write",
  readOnly: false,
  idempotent: true,
  title: "Change a member's role",
  description: "Set a member's role; only owners grant owner.",
  input: v.object({ ...who, role }),
  run: async (ctx, input) => await changeRole(ctx, { userId: input.userId, email: input.email }, input.role),
});

export const teamMembersRemove = defineTool({
  name: "team_members_remove",
  toolset: "team",
  scope: "team:write",
  readOnly: false,
  destructive: true,
  title: "Remove a member",
  description: "Remove a member; open work needs reassignTo or force.",
  input: v.object({ ...who, ...handOver }),
  run: async (ctx, { reassignTo, force, ...ref }) => await removeMember(ctx, ref, { reassignTo, force }),
});

export const teamLeave = defineTool({
  name: "team_leave",
  toolset: "team",
  scope: "team:write",
  readOnly: false,
  destructive: true,
  minRole: "viewer",
  title: "Leave the company",
  description: "Leave this company; open work needs reassignTo or force.",
  input: v.object(handOver),
  run: async (ctx, input) => await leaveTeam(ctx, input),
});

export const teamInvitationsList = defineTool({
  name: "team_invitations_list",
  toolset: "team",
  scope: "team:read",
  readOnly: true,
  title: "List invitations",
  description: "The company's invitations, newest first (default: pending).",
  input: v.object({
    status: v.optional(v.picklist(["pending", "accepted", "revoked", "expired", "all"])),
    ...pageInput,
  }),
  run: async (ctx, input) => await listInvitations(ctx, input),
});

export const teamInvitationsCreate = defineTool({
  name: "team_invitations_create",
  toolset: "team",
  scope: "team:write",
  readOnly: false,
  openWorld: true,
  // No idempotencyKey: a repeat is refused by the one-open-invitation rule (naming the invitation), and a
  // kept result could hold the accept link in clear when no SMTP server is configured.
  idempotencyKey: false,
  title: "Invite by email",
  description: "Invite someone by email to join the company with a role.",
  input: v.object({
    email,
    role,
    expiresInDays: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(30))),
    message: v.optional(v.pipe(v.string(), v.maxLength(1000))),
  }),
  run: async (ctx, input) => await inviteMember(ctx, input),
});

export const teamInvitationsResend = defineTool({
  name: "team_invitations_resend",
  toolset: "team",
  scope: "team:write",
  readOnly: false,
  openWorld: true,
  title: "Resend an invitation",
  description: "Email an invitation again; the old link stops working.",
  input: v.object({ id }),
  run: async (ctx, input) => await resendInvitation(ctx, input.id),
});

export const teamInvitationsRevoke = defineTool({
  name: "team_invitations_revoke",
  toolset: "team",
  scope: "team:write",
  readOnly: false,
  destructive: true,
  title: "Revoke an invitation",
  description: "Withdraw a pending invitation.",
  input: v.object({ id }),
  run: async (ctx, input) => await revokeInvitation(ctx, input.id),
});

export const teamDomain: Domain = {
  demo: demoTeam,
  scopes: [
    {
      area: "team",
      title: "Team",
      words: {
        "team:read": "read members and their roles",
        "team:write": "invite and remove members and change roles",
      },
    },
  ],
  name: "team",
  title: "Team",
  description: "Members and roles of a company, and invitations by email.",
  vocabulary: {
    colleague: ["member", "invitation"],
    coworker: ["member", "invitation"],
    employee: ["member"],
    staff: ["member"],
    teammate: ["member"],
    someone: ["member"],
    admin: ["role", "member"],
    permission: ["role"],
    promote: ["role", "member"],
    left: ["remove", "member"],
    offboard: ["remove", "member"],
    again: ["resend"],
    invite: ["invitation", "create"],
  },
  tools: [
    teamMembersList,
    teamMembersUpdate,
    teamMembersRemove,
    teamLeave,
    teamInvitationsList,
    teamInvitationsCreate,
    teamInvitationsResend,
    teamInvitationsRevoke,
  ],
  events: teamEvents,
};
