/**
 * What the chat domain tells subscribers. Conversation events name the
 * conversation by its number (entity id; tools_get takes it with the event's
 * companyId as clientId) and carry the visitor's name and email, the inbox
 * and the assignee, so a receiver can act without a second call.
 *
 * Internal notes never travel with their text: chat.note_added names the
 * note, so no subscriber that writes to visitors can leak one.
 */
import * as v from "valibot";
import { defineEvent } from "../../core/events";
import { CHAT_PRIORITIES, CHAT_STATUSES } from "./tables";

const status = v.picklist(CHAT_STATUSES);
const userId = v.nullable(v.number());
const str = v.nullable(v.string());

const conv = {
  number: v.number(),
  inboxId: v.number(),
  inboxName: v.string(),
  visitorId: v.number(),
  visitorName: str,
  visitorEmail: str,
  assigneeUserId: userId,
};

export const chatConversationCreated = defineEvent({
  type: "chat.conversation_created",
  entity: "chat_conversation",
  description: "A visitor opened a conversation through the widget, with their first message.",
  payload: v.object({ ...conv, messageId: v.number(), body: v.string(), pageUrl: str }),
});

export const chatMessageCreated = defineEvent({
  type: "chat.message_created",
  entity: "chat_conversation",
  description:
    "A message visible to the visitor: from the visitor (author visitor) or an agent's reply (author agent, authorUserId).",
  payload: v.object({
    ...conv,
    messageId: v.number(),
    author: v.picklist(["visitor", "agent"]),
    authorUserId: userId,
    body: v.string(),
    status,
  }),
});

export const chatNoteAdded = defineEvent({
  type: "chat.note_added",
  entity: "chat_conversation",
  description: "An agent added an internal note. Its text is deliberately not in the payload.",
  payload: v.object({ ...conv, messageId: v.number(), authorUserId: v.number() }),
});

export const chatConversationAssigned = defineEvent({
  type: "chat.conversation_assigned",
  entity: "chat_conversation",
  description: "A conversation got a new assignee (null: unassigned).",
  payload: v.object({ ...conv, previousAssigneeUserId: userId, byUserId: v.number() }),
});

export const chatConversationStatusChanged = defineEvent({
  type: "chat.conversation_status_changed",
  entity: "chat_conversation",
  description:
    "Status moved; reason agent, visitor_message (a visitor wrote to a pending/snoozed/resolved one) or snooze_ended.",
  payload: v.object({
    ...conv,
    from: status,
    to: status,
    snoozedUntil: str,
    reason: v.picklist(["agent", "visitor_message", "snooze_ended"]),
  }),
});

export const chatConversationUpdated = defineEvent({
  type: "chat.conversation_updated",
  entity: "chat_conversation",
  description: "Priority or labels changed; changes holds the new values.",
  payload: v.object({
    ...conv,
    changes: v.object({ priority: v.optional(v.picklist(CHAT_PRIORITIES)), labels: v.optional(v.array(v.string())) }),
  }),
});

export const chatTranscriptSent = defineEvent({
  type: "chat.transcript_sent",
  entity: "chat_conversation",
  description: "A conversation's transcript (visitor and agent messages, never notes) was queued for email to `to`.",
  payload: v.object({ ...conv, to: v.string(), messages: v.number(), requestedBy: v.picklist(["agent", "visitor"]) }),
});

export const chatVisitorIdentified = defineEvent({
  type: "chat.visitor_identified",
  entity: "chat_visitor",
  description: "A visitor gave their name or email in the widget.",
  payload: v.object({ inboxId: v.number(), name: str, email: str }),
});

const inbox = { name: v.string(), siteId: v.number(), enabled: v.boolean() };

export const chatInboxCreated = defineEvent({
  type: "chat.inbox_created",
  entity: "chat_inbox",
  description: "A chat inbox (a widget for a site) was created.",
  payload: v.object(inbox),
});
export const chatInboxUpdated = defineEvent({
  type: "chat.inbox_updated",
  entity: "chat_inbox",
  description: "An inbox's settings changed; fields names which.",
  payload: v.object({ ...inbox, fields: v.array(v.string()) }),
});
export const chatInboxDeleted = defineEvent({
  type: "chat.inbox_deleted",
  entity: "chat_inbox",
  description: "An inbox and its conversations were deleted.",
  payload: v.object({ ...inbox, conversations: v.number() }),
});

const canned = { shortCode: v.string() };
export const chatCannedCreated = defineEvent({
  type: "chat.canned_response_created",
  entity: "chat_canned_response",
  description: "A canned response was added.",
  payload: v.object(canned),
});
export const chatCannedUpdated = defineEvent({
  type: "chat.canned_response_updated",
  entity: "chat_canned_response",
  description: "A canned response's short code or content changed.",
  payload: v.object({ ...canned, fields: v.array(v.string()) }),
});
export const chatCannedDeleted = defineEvent({
  type: "chat.canned_response_deleted",
  entity: "chat_canned_response",
  description: "A canned response was deleted.",
  payload: v.object(canned),
});

export const chatEvents = [
  chatConversationCreated,
  chatMessageCreated,
  chatNoteAdded,
  chatConversationAssigned,
  chatConversationStatusChanged,
  chatConversationUpdated,
  chatTranscriptSent,
  chatVisitorIdentified,
  chatInboxCreated,
  chatInboxUpdated,
  chatInboxDeleted,
  chatCannedCreated,
  chatCannedUpdated,
  chatCannedDeleted,
];
