/** The notifications toolset: your inbox in the company a call acts for, and what you want to hear about. */
import { demoNotifications } from "./demo";
import * as v from "valibot";
import { pageInput } from "../../core/pagination";
import { authorize } from "../../core/scopes";
import { defineTool, type Domain } from "../../mcp/define";
import { digestJob } from "./digest";
import { notificationCreated } from "./notify";
import { preferenceUpdates, readPreferences, writePreferences } from "./preferences";
import { notificationSubscriber } from "./subscribers";
import {
  archive,
  createNotifications,
  inboxOf,
  listNotifications,
  markAllRead,
  markRead,
  snooze,
  VIEWS,
} from "./verbs";
import { idSchema as id } from "../../core/fields";

const ids = v.pipe(v.array(id), v.minLength(1), v.maxLength(100));
const when = v.pipe(v.string(), v.isoTimestamp("an ISO date-time such as 2026-12-01T09:00:00Z"));
const type = v.pipe(v.string(), v.maxLength(100));

export const notificationsList = defineTool({
  name: "notifications_list",
  toolset: "notifications",
  scope: "notifications:read",
  readOnly: true,
  title: "List my notifications",
  description: "Your notifications, unread first; type may be a prefix (card.*).",
  input: v.object({
    view: v.optional(v.picklist(VIEWS)),
    type: v.optional(type),
    entityType: v.optional(v.pipe(v.string(), v.maxLength(50))),
    entityId: v.optional(id),
    since: v.optional(when),
    ...pageInput,
  }),
  run: async (ctx, input) =>
    await listNotifications(inboxOf(ctx, false), { ...input, since: input.since ? new Date(input.since) : undefined }),
});

const selfService = {
  toolset: "notifications",
  scope: "notifications:write",
  readOnly: false,
  minRole: "viewer",
  idempotent: true,
} as const;

export const notificationsMarkRead = defineTool({
  ...selfService,
  name: "notifications_mark_read",
  title: "Mark notifications read",
  description: "Mark your notifications read by id.",
  input: v.object({ ids }),
  run: async (ctx, input) => await markRead(inboxOf(ctx, true), input.ids, true),
});

export const notificationsMarkUnread = defineTool({
  ...selfService,
  name: "notifications_mark_unread",
  title: "Mark notifications unread",
  description: "Mark your notifications unread by id (back to the inbox).",
  input: v.object({ ids }),
  run: async (ctx, input) => await markRead(inboxOf(ctx, true), input.ids, false),
});

export const notificationsMarkAllRead = defineTool({
  ...selfService,
  name: "notifications_mark_all_read",
  title: "Mark all read",
  description: "Mark all your unread notifications read.",
  input: v.object({ type: v.optional(type), before: v.optional(when) }),
  run: async (ctx, input) =>
    await markAllRead(inboxOf(ctx, true), {
      type: input.type,
      before: input.before ? new Date(input.before) : undefined,
    }),
});

export const notificationsSnooze = defineTool({
  ...selfService,
  name: "notifications_snooze",
  title: "Snooze notifications",
  description: "Hide your notifications until a time (≤ 90 days).",
  input: v.object({ ids, until: when }),
  run: async (ctx, input) => await snooze(inboxOf(ctx, true), input.ids, new Date(input.until)),
});

export const notificationsArchive = defineTool({
  ...selfService,
  name: "notifications_archive",
  title: "Archive notifications",
  description: "Archive (and mark read) your notifications by id.",
  input: v.object({ ids }),
  run: async (ctx, input) => await archive(inboxOf(ctx, true), input.ids),
});

export const notificationsCreate = defineTool({
  name: "notifications_create",
  toolset: "notifications",
  scope: "notifications:write",
  readOnly: false,
  title: "Notify members",
  description: "Notify company members (not yourself), optional portal link.",
  input: v.object({
    userIds: v.optional(v.pipe(v.array(id), v.maxLength(100))),
    emails: v.optional(v.pipe(v.array(v.pipe(v.string(), v.maxLength(254))), v.maxLength(100))),
    type: v.optional(type),
    title: v.pipe(v.string(), v.minLength(1), v.maxLength(300)),
    body: v.optional(v.pipe(v.string(), v.maxLength(5000))),
    link: v.optional(v.pipe(v.string(), v.maxLength(2000))),
  }),
  run: async (ctx, input) => await createNotifications(ctx, input),
});

export const notificationPreferencesGet = defineTool({
  name: "notification_preferences_get",
  toolset: "notifications",
  scope: "notifications:read",
  readOnly: true,
  companyFree: true,
  title: "My notification preferences",
  description: "Your notification preferences per type, in-app and email.",
  input: v.object({}),
  run: async (ctx) => {
    authorize(ctx, "notifications:read", { write: false, minRole: "viewer" });
    return await readPreferences(ctx.deps, ctx.principal.userId);
  },
});

export const notificationPreferencesUpdate = defineTool({
  name: "notification_preferences_update",
  toolset: "notifications",
  scope: "notifications:write",
  readOnly: false,
  idempotent: true,
  companyFree: true,
  minRole: "viewer",
  title: "Set notification preferences",
  description: "Turn your notification types (* = all) on or off, in-app or email.",
  input: v.object({ changes: preferenceUpdates }),
  run: async (ctx, input) => {
    authorize(ctx, "notifications:write", { write: true, minRole: "viewer" });
    await writePreferences(ctx.deps, ctx.principal.userId, input.changes, ctx.principal.credential);
    return { status: "updated", ...(await readPreferences(ctx.deps, ctx.principal.userId)) };
  },
});

export const notificationsDomain: Domain = {
  demo: demoNotifications,
  scopes: [
    {
      area: "notifications",
      title: "Notifications",
      words: { "notifications:read": "read notifications", "notifications:write": "create and manage them" },
    },
  ],
  name: "notifications",
  title: "Notifications",
  description: "Your notifications (list, read, snooze, archive), notifying members, and notification preferences.",
  vocabulary: {
    alert: ["notification"],
    bell: ["notification"],
    remind: ["snooze"],
    later: ["snooze"],
    postpone: ["snooze"],
    "stop emailing": ["preferences"],
    mute: ["preferences"],
    quiet: ["preferences"],
    "let know": ["notify", "create"],
    tell: ["notify", "create"],
    announce: ["notify"],
    ping: ["notify"],
  },
  tools: [
    notificationsList,
    notificationsMarkRead,
    notificationsMarkUnread,
    notificationsMarkAllRead,
    notificationsSnooze,
    notificationsArchive,
    notificationsCreate,
    notificationPreferencesGet,
    notificationPreferencesUpdate,
  ],
  events: [notificationCreated],
  subscribers: [notificationSubscriber],
  jobs: [digestJob],
  notificationTypes: [
    { type: "approval.decided", label: "An approval you asked for was approved or rejected", inApp: true, email: true },
    { type: "invitation.accepted", label: "Someone accepted your invitation to the team", inApp: true, email: false },
    { type: "message", label: "Messages from your team and its agents", inApp: true, email: false },
  ],
};
