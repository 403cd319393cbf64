/**
 * What the tickets domain tells subscribers. Each payload carries what a
 * reply email or a notification needs without a second call: the ticket's
 * number and subject, the requester's email and name, the user ids involved.
 * The entity id of every ticket event is the ticket's number (what
 * tickets_get takes, with the event's companyId as clientId).
 *
 * Internal notes never travel in a payload: ticket.note_added names the
 * note, not its text, so no subscriber that writes to requesters can leak
 * one by forwarding what it was given.
 */
import * as v from "valibot";
import { defineEvent } from "../../core/events";
import { TICKET_PRIORITIES, TICKET_STATUSES } from "./tables";

const status = v.picklist(TICKET_STATUSES);
const priority = v.picklist(TICKET_PRIORITIES);
const userId = v.nullable(v.number());
const isoTime = v.nullable(v.string());

const base = {
  number: v.number(),
  subject: v.string(),
  requesterEmail: v.string(),
  requesterName: v.nullable(v.string()),
};

export const ticketCreated = defineEvent({
  type: "ticket.created",
  entity: "ticket",
  description: "A ticket was opened, with the requester's first message and its SLA due times.",
  payload: v.object({
    ...base,
    status,
    priority,
    assigneeUserId: userId,
    tags: v.array(v.string()),
    body: v.string(),
    firstResponseDueAt: isoTime,
    resolutionDueAt: isoTime,
    /** Set when the requester wrote to a closed ticket: its number. */
    followUpOf: v.nullable(v.number()),
  }),
});

export const ticketReplied = defineEvent({
  type: "ticket.replied",
  entity: "ticket",
  description: "An agent posted a public reply: the text to email to the requester.",
  payload: v.object({
    ...base,
    messageId: v.number(),
    body: v.string(),
    authorUserId: v.number(),
    status,
    assigneeUserId: userId,
  }),
});

export const ticketRequesterReplied = defineEvent({
  type: "ticket.requester_replied",
  entity: "ticket",
  description:
    "The requester wrote again (recorded by an agent or an integration); reopened says whether it reopened a solved or pending ticket.",
  payload: v.object({
    ...base,
    messageId: v.number(),
    body: v.string(),
    status,
    reopened: v.boolean(),
    assigneeUserId: userId,
  }),
});

export const ticketNoteAdded = defineEvent({
  type: "ticket.note_added",
  entity: "ticket",
  description: "An agent added an internal note. The note's text is deliberately not in the payload.",
  payload: v.object({
    number: v.number(),
    subject: v.string(),
    messageId: v.number(),
    authorUserId: v.number(),
    assigneeUserId: userId,
  }),
});

export const ticketAssigned = defineEvent({
  type: "ticket.assigned",
  entity: "ticket",
  description: "A ticket got a new assignee (null: unassigned).",
  payload: v.object({
    ...base,
    priority,
    status,
    assigneeUserId: userId,
    previousAssigneeUserId: userId,
    byUserId: v.number(),
  }),
});

export const ticketStatusChanged = defineEvent({
  type: "ticket.status_changed",
  entity: "ticket",
  description: "A ticket moved between statuses; reason says why (agent, requester_reply, merge, auto_close).",
  payload: v.object({
    ...base,
    from: status,
    to: status,
    reason: v.picklist(["agent", "requester_reply", "merge", "auto_close"]),
    assigneeUserId: userId,
  }),
});

export const ticketUpdated = defineEvent({
  type: "ticket.updated",
  entity: "ticket",
  description: "Subject, priority or tags changed; changes holds the new values, and the SLA due times as recomputed.",
  payload: v.object({
    ...base,
    changes: v.object({
      subject: v.optional(v.string()),
      priority: v.optional(priority),
      tags: v.optional(v.array(v.string())),
    }),
    firstResponseDueAt: isoTime,
    resolutionDueAt: isoTime,
    assigneeUserId: userId,
  }),
});

export const ticketMerged = defineEvent({
  type: "ticket.merged",
  entity: "ticket",
  description: "A ticket was merged into another and closed; its messages moved to the target.",
  payload: v.object({
    ...base,
    targetNumber: v.number(),
    targetSubject: v.string(),
    targetRequesterEmail: v.string(),
    movedMessages: v.number(),
    assigneeUserId: userId,
    targetAssigneeUserId: userId,
  }),
});

export const ticketSlaBreached = defineEvent({
  type: "ticket.sla_breached",
  entity: "ticket",
  description:
    "An SLA target was missed: target is first_response or resolution, dueAt the instant it was due. Sent once per ticket and target.",
  payload: v.object({
    ...base,
    target: v.picklist(["first_response", "resolution"]),
    dueAt: v.string(),
    detectedAt: v.string(),
    priority,
    status,
    assigneeUserId: userId,
  }),
});

export const ticketDeleted = defineEvent({
  type: "ticket.deleted",
  entity: "ticket",
  description: "A ticket and its thread were deleted.",
  payload: v.object({ ...base, status }),
});

export const slaPolicyUpdated = defineEvent({
  type: "sla_policy.updated",
  entity: "company",
  description:
    "A company's SLA policy (time zone, business hours, holidays, targets, auto-close) changed; fields names what changed.",
  payload: v.object({ fields: v.array(v.string()), timeZone: v.string() }),
});

export const ticketEvents = [
  ticketCreated,
  ticketReplied,
  ticketRequesterReplied,
  ticketNoteAdded,
  ticketAssigned,
  ticketStatusChanged,
  ticketUpdated,
  ticketMerged,
  ticketSlaBreached,
  ticketDeleted,
  slaPolicyUpdated,
];
