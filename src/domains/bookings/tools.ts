/**
 * The bookings toolset: booking pages (approved by a person before they go
 * public at /b/<slug>), members' schedules and time off, free times, and
 * bookings. Thin declarations over the verbs of this folder, which check
 * scope, role and tenancy themselves.
 */
import { demoBookings } from "./demo";
import * as v from "valibot";
import { pageInput } from "../../core/pagination";
import { defineTool, type Domain } from "../../mcp/define";
import { bookingPageApprovalKind, bookingsApprovalSupport } from "./approval-kinds";
import {
  cancelBooking,
  confirmBooking,
  createBooking,
  declineBooking,
  expireJob,
  getBooking,
  listBookings,
  markNoShow,
  reassignBooking,
  rescheduleBooking,
  updateBooking,
} from "./bookings";
import {
  BOOKING_STATUSES,
  dayHoursInput,
  memberRef,
  PAGE_STATUSES,
  NULLABLE_FIELDS,
  pageFields,
  slugInput,
  timeZoneInput,
  weeklyInput,
} from "./config";
import { calendarWriteJob, calendarWriteSubscriber } from "./caldav";
import { calendarIntegrations, checkCalendar, connectCalendar, disconnectCalendar, listCalendars } from "./calendars";
import { bookingDelivery, reminderJob } from "./delivery";
import { bookingEvents } from "./events";
import { freeSlots } from "./free-slots";
import { createPage, deletePage, getPage, listPages, updatePage } from "./pages";
import { BOOKINGS_PATH, bookingPortalPages } from "./portal";
import { bookingPublicRoutes } from "./public-pages";
import { addTimeOff, deleteTimeOff, getSchedule, listSchedules, setOverride, setSchedule } from "./schedules";
import { described, idSchema as id } from "../../core/fields";
import { bookingStagedTargets } from "./staged-targets";

const uid = v.pipe(
  v.string(),
  v.check((s) => /^[0-9a-f]{32}$/.test(s), "must be the booking's 32-hex uid"),
);
const isoTime = v.pipe(
  v.string(),
  v.maxLength(40),
  v.isoTimestamp("must be an ISO date-time like 2026-03-23T09:00:00Z"),
);
const date = v.pipe(
  v.string(),
  v.check((s) => /^\d{4}-\d{2}-\d{2}$/.test(s), "must be a date like 2026-03-29"),
  v.examples(["2030-01-07"]),
);
const reason = v.pipe(v.string(), v.maxLength(1000));
const pageRef = { pageId: v.optional(id), pageSlug: v.optional(slugInput) };
const bookingRef = { id: v.optional(id), uid: v.optional(uid) };
const opt = <T extends Record<string, v.GenericSchema>>(o: T) =>
  Object.fromEntries(Object.entries(o).map(([k, s]) => [k, v.optional(s)])) as {
    [K in keyof T]: v.OptionalSchema<T[K], undefined>;
  };
const { title, ...rest } = pageFields;
const clearable = Object.fromEntries(
  Object.entries(rest).map(([k, s]) => [
    k,
    v.optional((NULLABLE_FIELDS as readonly string[]).includes(k) ? v.nullable(s) : s),
  ]),
) as {
  [K in keyof typeof rest]: v.OptionalSchema<
    (typeof rest)[K] | v.NullableSchema<(typeof rest)[K], undefined>,
    undefined
  >;
};

const TS = { toolset: "bookings" } as const;

export const bookingPagesList = defineTool({
  ...TS,
  name: "booking_pages_list",
  scope: "bookings:read",
  readOnly: true,
  title: "List booking pages",
  description: "Booking pages with status, lengths, hosts and upcoming bookings.",
  input: v.object({
    status: v.optional(v.picklist(PAGE_STATUSES)),
    host: v.optional(memberRef),
    search: v.optional(v.pipe(v.string(), v.maxLength(200))),
    ...pageInput,
  }),
  run: listPages,
});

export const bookingPagesGet = defineTool({
  ...TS,
  name: "booking_pages_get",
  scope: "bookings:read",
  readOnly: true,
  title: "Get a booking page",
  description: "A booking page by id or slug with hosts, url, pending changes.",
  input: v.object({ id: v.optional(id), slug: v.optional(slugInput) }),
  run: getPage,
});

export const bookingPagesCreate = defineTool({
  ...TS,
  name: "booking_pages_create",
  scope: "bookings:write",
  readOnly: false,
  approval: "booking_page",
  title: "Create a booking page",
  description: "Draft a booking page, open once approved; times in minutes.",
  input: v.object({ title, ...opt(rest) }),
  run: createPage,
});

export const bookingPagesUpdate = defineTool({
  ...TS,
  name: "booking_pages_update",
  scope: "bookings:write",
  readOnly: false,
  supervised: "staged",
  approval: "booking_page",
  title: "Update a booking page",
  description: "Change a booking page (null clears); live: needs approval.",
  input: v.object({ id, title: v.optional(title), ...clearable, paused: v.optional(v.boolean()) }),
  run: updatePage,
});

export const bookingPagesDelete = defineTool({
  ...TS,
  name: "booking_pages_delete",
  scope: "bookings:write",
  readOnly: false,
  supervised: "staged",
  destructive: true,
  title: "Delete a booking page",
  description: "Delete a booking page with no upcoming bookings.",
  input: v.object({ id }),
  run: deletePage,
});

export const bookingAvailabilityGet = defineTool({
  ...TS,
  name: "booking_availability_get",
  scope: "bookings:read",
  readOnly: true,
  title: "Free times of a booking page",
  description: "Free start times of a booking page (default next 7 days).",
  input: v.object({
    ...pageRef,
    from: v.optional(isoTime),
    to: v.optional(isoTime),
    timeZone: v.optional(timeZoneInput),
    durationMin: v.optional(id),
    proposed: v.optional(v.boolean()),
  }),
  run: freeSlots,
});

export const bookingSchedulesList = defineTool({
  ...TS,
  name: "booking_schedules_list",
  scope: "bookings:read",
  readOnly: true,
  title: "List schedules",
  description: "Members with their booking time zone and weekly hours.",
  input: v.object({ ...pageInput }),
  run: listSchedules,
});

export const bookingSchedulesGet = defineTool({
  ...TS,
  name: "booking_schedules_get",
  scope: "bookings:read",
  readOnly: true,
  title: "Get a schedule",
  description: "A member's time zone, weekly hours, overrides and time off.",
  input: v.object({ member: memberRef }),
  run: getSchedule,
});

export const bookingSchedulesSet = defineTool({
  ...TS,
  name: "booking_schedules_set",
  scope: "bookings:write",
  readOnly: false,
  supervised: "staged",
  idempotent: true,
  title: "Set a schedule",
  description: 'Set a member\'s time zone and weekly hours ({mon: ["09:00-17:00"]}).',
  input: v.object({ member: memberRef, timeZone: v.optional(timeZoneInput), weeklyHours: v.optional(weeklyInput) }),
  run: setSchedule,
});

export const bookingOverridesSet = defineTool({
  ...TS,
  name: "booking_overrides_set",
  scope: "bookings:write",
  readOnly: false,
  supervised: "staged",
  idempotent: true,
  title: "Set a date's hours",
  description: "One date's hours instead of the weekly ones ([] away, null removes).",
  input: v.object({ member: memberRef, date, hours: v.nullable(dayHoursInput) }),
  run: setOverride,
});

export const bookingTimeOffCreate = defineTool({
  ...TS,
  name: "booking_time_off_create",
  scope: "bookings:write",
  readOnly: false,
  supervised: "staged",
  title: "Add time off",
  description: "Out of office for whole local days, startDate..endDate inclusive.",
  input: v.object({
    member: memberRef,
    startDate: date,
    endDate: date,
    reason: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(200)))),
  }),
  run: addTimeOff,
});

export const bookingTimeOffDelete = defineTool({
  ...TS,
  name: "booking_time_off_delete",
  scope: "bookings:write",
  readOnly: false,
  supervised: "staged",
  destructive: true,
  title: "Remove time off",
  description: "Remove time off (ids from booking_schedules_get).",
  input: v.object({ id }),
  run: deleteTimeOff,
});

export const bookingsList = defineTool({
  ...TS,
  name: "bookings_list",
  scope: "bookings:read",
  readOnly: true,
  title: "List bookings",
  description: "Bookings by start time; filter by page, status, host, dates.",
  input: v.object({
    ...pageRef,
    status: v.optional(v.array(v.picklist(BOOKING_STATUSES))),
    host: v.optional(memberRef),
    attendeeEmail: v.optional(v.pipe(v.string(), v.maxLength(254))),
    from: v.optional(isoTime),
    to: v.optional(isoTime),
    order: v.optional(v.picklist(["asc", "desc"])),
    ...pageInput,
  }),
  run: listBookings,
});

export const bookingsGet = defineTool({
  ...TS,
  name: "bookings_get",
  scope: "bookings:read",
  readOnly: true,
  title: "Get a booking",
  description: "A booking by id or uid with attendee, answers, history.",
  input: v.object({ ...bookingRef, include: v.optional(v.array(v.picklist(["ics"]))) }),
  run: getBooking,
});

/** An answer to a booking page question, by the question's type. */
const answerValue = described(
  v.union([v.string(), v.number(), v.boolean()]),
  "by the question's type: number a number, checkbox true, select one of its options, else text",
);

export const bookingsCreate = defineTool({
  ...TS,
  name: "bookings_create",
  scope: "bookings:write",
  readOnly: false,
  title: "Book a time",
  description: "Book a free startsAt (booking_availability_get) on a live page.",
  input: v.object({
    ...pageRef,
    startsAt: isoTime,
    durationMin: v.optional(id),
    timeZone: v.optional(timeZoneInput),
    name: v.pipe(v.string(), v.maxLength(200)),
    email: v.pipe(v.string(), v.maxLength(254)),
    answers: v.optional(v.record(v.string(), answerValue)),
  }),
  run: createBooking,
});

export const bookingsReschedule = defineTool({
  ...TS,
  name: "bookings_reschedule",
  scope: "bookings:write",
  readOnly: false,
  title: "Reschedule a booking",
  description: "Move a booking to another free time; cutoff applies.",
  input: v.object({
    ...bookingRef,
    startsAt: isoTime,
    durationMin: v.optional(id),
    ignoreCutoff: v.optional(v.boolean()),
  }),
  run: rescheduleBooking,
});

export const bookingsCancel = defineTool({
  ...TS,
  name: "bookings_cancel",
  scope: "bookings:write",
  readOnly: false,
  destructive: true,
  title: "Cancel a booking",
  description: "Cancel a booking, with a reason for the attendee; cutoff applies.",
  input: v.object({ ...bookingRef, reason: v.optional(reason), ignoreCutoff: v.optional(v.boolean()) }),
  run: cancelBooking,
});

export const bookingsConfirm = defineTool({
  ...TS,
  name: "bookings_confirm",
  scope: "bookings:write",
  readOnly: false,
  title: "Confirm a booking",
  description: "Confirm a pending booking (page requires confirmation).",
  input: v.object(bookingRef),
  run: confirmBooking,
});

export const bookingsDecline = defineTool({
  ...TS,
  name: "bookings_decline",
  scope: "bookings:write",
  readOnly: false,
  destructive: true,
  title: "Decline a booking",
  description: "Decline a pending booking, with a reason; its time is free again.",
  input: v.object({ ...bookingRef, reason: v.optional(reason) }),
  run: declineBooking,
});

export const bookingsUpdate = defineTool({
  ...TS,
  name: "bookings_update",
  scope: "bookings:write",
  readOnly: false,
  idempotent: true,
  title: "Update a booking",
  description: "Change a booking's attendee, answers, notes or host (emailed).",
  input: v.object({
    ...bookingRef,
    name: v.optional(v.pipe(v.string(), v.maxLength(200))),
    email: v.optional(v.pipe(v.string(), v.maxLength(254))),
    phone: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(40)))),
    answers: v.optional(v.record(v.pipe(v.string(), v.maxLength(50)), v.nullable(answerValue))),
    notes: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(5000)))),
    host: v.optional(memberRef),
  }),
  run: updateBooking,
});

export const bookingsReassign = defineTool({
  ...TS,
  name: "bookings_reassign",
  scope: "bookings:write",
  readOnly: false,
  title: "Reassign a booking",
  description: "Hand a booking to a page host; none: next free one by round robin.",
  input: v.object({ ...bookingRef, host: v.optional(memberRef) }),
  run: reassignBooking,
});

export const bookingsMarkNoShow = defineTool({
  ...TS,
  name: "bookings_mark_no_show",
  scope: "bookings:write",
  readOnly: false,
  idempotent: true,
  title: "Mark a no-show",
  description: "After the start: who did not show, attendee or host; null clears.",
  input: v.object({ ...bookingRef, noShow: v.nullable(v.picklist(["attendee", "host"])) }),
  run: markNoShow,
});

export const calendarsConnect = defineTool({
  ...TS,
  name: "calendars_connect",
  scope: "bookings:write",
  readOnly: false,
  openWorld: true,
  title: "Connect a calendar",
  description: "A member's ICS feed or CalDAV account: busy times, bookings.",
  input: v.object({
    member: v.optional(memberRef),
    kind: v.picklist(["ics", "caldav"]),
    url: v.pipe(v.string(), v.maxLength(2000)),
    name: v.optional(v.pipe(v.string(), v.maxLength(200))),
    username: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(200))),
    password: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(500))),
    writeCalendar: v.optional(v.pipe(v.string(), v.maxLength(2000))),
  }),
  run: connectCalendar,
});

export const calendarsList = defineTool({
  ...TS,
  name: "calendars_list",
  scope: "bookings:read",
  readOnly: true,
  title: "List connected calendars",
  description: "Members' connected calendars with last sync and error.",
  input: v.object({ member: v.optional(memberRef) }),
  run: listCalendars,
});

export const calendarsDisconnect = defineTool({
  ...TS,
  name: "calendars_disconnect",
  scope: "bookings:write",
  readOnly: false,
  destructive: true,
  title: "Disconnect a calendar",
  description: "Stop reading a connected calendar (by id).",
  input: v.object({ id }),
  run: disconnectCalendar,
});

export const calendarsCheck = defineTool({
  ...TS,
  name: "calendars_check",
  scope: "bookings:read",
  readOnly: true,
  openWorld: true,
  title: "Check a calendar",
  description: "Read a connected calendar now; says its busy times or error.",
  input: v.object({ id }),
  run: checkCalendar,
});

export const bookingsDomain: Domain = {
  demo: demoBookings,
  scopes: [
    {
      area: "bookings",
      title: "Bookings",
      words: {
        "bookings:read": "read booking pages, bookings and availability",
        "bookings:write": "change booking pages and change or cancel bookings",
      },
    },
  ],
  name: "bookings",
  title: "Bookings",
  description:
    "Booking pages (approved before they go public at /b/<slug>), members' schedules, free times and bookings.",
  vocabulary: {
    free: ["availability"],
    available: ["availability"],
    slot: ["availability"],
    appointment: ["booking"],
    meeting: ["booking"],
    call: ["booking"],
    demo: ["booking", "page"],
    move: ["reschedule"],
    postpone: ["reschedule"],
    reassign: ["update", "host"],
    "hand over": ["update", "host"],
    typo: ["update"],
    holiday: ["time", "off"],
    vacation: ["time", "off"],
    away: ["time", "off"],
    sick: ["time", "off"],
    "didn't show": ["no", "show"],
    "no-show": ["no", "show"],
    missed: ["no", "show"],
    "working hours": ["schedule"],
    hours: ["schedule"],
    upcoming: ["bookings", "list"],
    calendar: ["bookings", "schedule"],
    exception: ["overrides"],
    "one day": ["overrides", "date"],
  },
  tools: [
    bookingPagesList,
    bookingPagesGet,
    bookingPagesCreate,
    bookingPagesUpdate,
    bookingPagesDelete,
    bookingAvailabilityGet,
    bookingSchedulesList,
    bookingSchedulesGet,
    bookingSchedulesSet,
    bookingOverridesSet,
    bookingTimeOffCreate,
    bookingTimeOffDelete,
    bookingsList,
    bookingsGet,
    bookingsCreate,
    bookingsReschedule,
    bookingsCancel,
    bookingsConfirm,
    bookingsDecline,
    bookingsUpdate,
    bookingsReassign,
    bookingsMarkNoShow,
    calendarsConnect,
    calendarsList,
    calendarsDisconnect,
    calendarsCheck,
  ],
  integrations: [calendarIntegrations],
  approvalKinds: [bookingPageApprovalKind],
  stagedTargets: bookingStagedTargets,
  approvalSupport: bookingsApprovalSupport,
  events: bookingEvents,
  subscribers: [bookingDelivery, calendarWriteSubscriber],
  jobs: [reminderJob, expireJob, calendarWriteJob],
  publicPages: [{ prefix: "/b", routes: bookingPublicRoutes }],
  portal: { routes: bookingPortalPages, nav: [{ href: BOOKINGS_PATH, label: "Bookings" }] },
  notificationTypes: [
    { type: "booking.created", label: "Someone booked time with you", inApp: true, email: true },
    { type: "booking.rescheduled", label: "A booking with you was moved", inApp: true, email: true },
    { type: "booking.cancelled", label: "A booking with you was cancelled", inApp: true, email: true },
    { type: "booking.updated", label: "A booking with you was changed or handed over", inApp: true, email: true },
  ],
};
