/**
 * Events of the bookings domain. A booking event carries everything a
 * confirmation or cancellation email needs without a second read: the
 * attendee, the hosts with their emails, the times (UTC instants and the
 * attendee's zone), the place, the page, the invite's method and sequence,
 * and the attendee's page (`manageUrl`, which is that one booking's
 * capability link, as in the email itself). The invite itself is made by
 * `bookingInvite` (ics.ts) from the same facts, or fetched at `icsUrl`.
 */
import * as v from "valibot";
import { defineEvent } from "../../core/events";

const person = v.object({ userId: v.number(), name: v.nullable(v.string()), email: v.string() });

export const bookingFacts = {
  uid: v.string(),
  pageId: v.nullable(v.number()),
  pageSlug: v.string(),
  pageTitle: v.string(),
  status: v.string(),
  startsAt: v.string(),
  endsAt: v.string(),
  durationMin: v.number(),
  timeZone: v.string(),
  attendee: v.object({ name: v.string(), email: v.string() }),
  hosts: v.array(person),
  location: v.object({ kind: v.string(), value: v.nullable(v.string()) }),
  answers: v.array(
    v.object({ id: v.string(), label: v.string(), value: v.union([v.string(), v.number(), v.boolean()]) }),
  ),
  /** METHOD of the invite to send now: REQUEST, or CANCEL. */
  inviteMethod: v.picklist(["REQUEST", "CANCEL"]),
  sequence: v.number(),
  manageUrl: v.string(),
  icsUrl: v.string(),
  source: v.string(),
};
export type BookingFacts = v.InferOutput<v.ObjectSchema<typeof bookingFacts, undefined>>;

export const bookingCreated = defineEvent({
  type: "booking.created",
  entity: "booking",
  description: "A booking was made (on the public page or over MCP); status pending when a host must confirm it.",
  payload: v.object({ ...bookingFacts, requiresConfirmation: v.boolean() }),
});

export const bookingRescheduled = defineEvent({
  type: "booking.rescheduled",
  entity: "booking",
  description: "A booking moved to another time (same uid, sequence + 1); previous times included.",
  payload: v.object({
    ...bookingFacts,
    previousStartsAt: v.string(),
    previousEndsAt: v.string(),
    by: v.picklist(["attendee", "host"]),
  }),
});

export const bookingCancelled = defineEvent({
  type: "booking.cancelled",
  entity: "booking",
  description: "A booking was cancelled by the attendee or a host, with the reason given.",
  payload: v.object({
    ...bookingFacts,
    reason: v.nullable(v.string()),
    cancelledBy: v.picklist(["attendee", "host", "system"]),
  }),
});

export const bookingConfirmed = defineEvent({
  type: "booking.confirmed",
  entity: "booking",
  description: "A host confirmed a booking that needed confirmation.",
  payload: v.object(bookingFacts),
});

export const bookingDeclined = defineEvent({
  type: "booking.declined",
  entity: "booking",
  description: "A host declined a booking that needed confirmation; its slot is free again.",
  payload: v.object({ ...bookingFacts, reason: v.nullable(v.string()) }),
});

export const bookingExpired = defineEvent({
  type: "booking.expired",
  entity: "booking",
  description: "A booking that needed confirmation reached its start unconfirmed and was closed.",
  payload: v.object(bookingFacts),
});

export const bookingUpdated = defineEvent({
  type: "booking.updated",
  entity: "booking",
  description:
    "A host changed a booking's attendee details, answers, notes or host (bookings_update); fields names what changed, previous what it was.",
  payload: v.object({
    ...bookingFacts,
    /** Of name, email, answers, host, notes. */
    fields: v.array(v.string()),
    previous: v.object({
      attendee: v.object({ name: v.string(), email: v.string() }),
      hosts: v.array(person),
    }),
  }),
});

export const bookingNoShowMarked = defineEvent({
  type: "booking.no_show_marked",
  entity: "booking",
  description: "A booking was marked as a no-show (attendee or host), or the mark was cleared (null).",
  payload: v.object({
    uid: v.string(),
    pageSlug: v.string(),
    startsAt: v.string(),
    attendee: v.object({ name: v.string(), email: v.string() }),
    noShow: v.nullable(v.picklist(["attendee", "host"])),
  }),
});

const pageFacts = { slug: v.string(), title: v.string(), status: v.string(), hostUserIds: v.array(v.number()) };

export const bookingPageCreated = defineEvent({
  type: "booking_page.created",
  entity: "booking_page",
  description: "A booking page was drafted; it goes live when a person approves it.",
  payload: v.object({ ...pageFacts, approvalId: v.number() }),
});

export const bookingPageUpdated = defineEvent({
  type: "booking_page.updated",
  entity: "booking_page",
  description: "A booking page changed: fields proposed for approval (pending: true) or applied at once (paused).",
  payload: v.object({
    ...pageFacts,
    fields: v.array(v.string()),
    pending: v.boolean(),
    approvalId: v.nullable(v.number()),
  }),
});

export const bookingPagePublished = defineEvent({
  type: "booking_page.published",
  entity: "booking_page",
  description: "A person approved a booking page or its changes: the public page now takes bookings as approved.",
  payload: v.object({ ...pageFacts, url: v.string(), firstTime: v.boolean() }),
});

export const bookingPageDeleted = defineEvent({
  type: "booking_page.deleted",
  entity: "booking_page",
  description: "A booking page was deleted; its past bookings keep its title and slug.",
  payload: v.object({ slug: v.string(), title: v.string() }),
});

export const bookingScheduleUpdated = defineEvent({
  type: "booking_schedule.updated",
  entity: "booking_schedule",
  description: "A member's booking schedule (zone, weekly hours, date overrides or time off) changed.",
  payload: v.object({
    userId: v.number(),
    timeZone: v.string(),
    change: v.picklist(["hours", "override", "time_off_added", "time_off_removed"]),
  }),
});

export const bookingEvents = [
  bookingCreated,
  bookingRescheduled,
  bookingCancelled,
  bookingConfirmed,
  bookingDeclined,
  bookingExpired,
  bookingUpdated,
  bookingNoShowMarked,
  bookingPageCreated,
  bookingPageUpdated,
  bookingPagePublished,
  bookingPageDeleted,
  bookingScheduleUpdated,
];
