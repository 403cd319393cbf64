/**
 * Booking pages (event types), members' schedules and time off, bookings
 * and the hosts each booking occupies.
 *
 * A page's public settings live in one JSON `config` (what the public page
 * uses) and, while a change to an approved page waits for a person, in
 * `draft`; `slug` and `title` mirror the live config for lookups and lists.
 *
 * `booking_hosts` is what makes double booking impossible: one row per
 * (booking, host) with the host's busy time, and while the booking holds
 * its slot `active_start` = its start, unique per (company, host). Two
 * visitors racing for the same start of the same host cannot both commit,
 * on either engine; overlapping but different starts are kept apart by the
 * booking transaction locking the hosts' schedule rows first (bookings.ts).
 */
import {
  bool,
  createdAt,
  id,
  index,
  integer,
  json,
  table,
  text,
  time,
  uniqueIndex,
  updatedAt,
} from "../../core/columns";
import { companies, users } from "../../core/tables";
import type { PageConfig, StoredAnswer, StoredLocation } from "./config";

export const bookingPages = table(
  "booking_pages",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    /** Public address /b/<slug>; unique across the service, since the URL names no company. */
    slug: text("slug").notNull(),
    title: text("title").notNull(),
    /** pending (never approved) | live | paused | rejected (never approved, last proposal rejected) */
    status: text("status").notNull(),
    config: json<PageConfig>("config").notNull(),
    /** A proposed change to an approved page, waiting for approval; null when none. */
    draft: json<PageConfig>("draft"),
    /** Bumped by every change the public page shows (its cache key). */
    version: integer("version").notNull().default(1),
    publishedAt: time("published_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("booking_pages_slug").on(t.slug), index("booking_pages_company").on(t.companyId, t.id)],
);

export const bookingSchedules = table(
  "booking_schedules",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    timeZone: text("time_zone").notNull(),
    /** "1".."7" (ISO weekday, Monday = 1) → ["09:00-12:00", "13:00-17:00"]. */
    weekly: json<Record<string, string[]>>("weekly").notNull(),
    /** YYYY-MM-DD → that day's hours; [] = away all day. */
    overrides: json<Record<string, string[]>>("overrides").notNull(),
    /** Bumped by every change, and by every booking of this member: the booking transaction's lock. */
    version: integer("version").notNull().default(1),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("booking_schedules_member").on(t.companyId, t.userId)],
);

export const bookingTimeOff = table(
  "booking_time_off",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** Whole local days in the member's zone, inclusive. */
    startDate: text("start_date").notNull(),
    endDate: text("end_date").notNull(),
    reason: text("reason"),
    createdAt: createdAt(),
  },
  (t) => [index("booking_time_off_member").on(t.companyId, t.userId, t.endDate)],
);

export const bookings = table(
  "bookings",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    /** Null once the page is deleted; the booking keeps its title and slug. */
    pageId: integer("page_id").references(() => bookingPages.id, { onDelete: "set null" }),
    pageSlug: text("page_slug").notNull(),
    pageTitle: text("page_title").notNull(),
    /** Random, unguessable: the attendee's link (/b/<slug>/booking/<uid>) and the invite's UID. */
    uid: text("uid").notNull(),
    /** pending (waits for a host to confirm) | accepted | cancelled | declined | expired (never confirmed before its start) */
    status: text("status").notNull(),
    startsAt: time("starts_at").notNull(),
    endsAt: time("ends_at").notNull(),
    durationMin: integer("duration_min").notNull(),
    /** The attendee's zone, for their invite and pages. */
    timeZone: text("time_zone").notNull(),
    attendeeName: text("attendee_name").notNull(),
    /** Lower-cased. */
    attendeeEmail: text("attendee_email").notNull(),
    answers: json<StoredAnswer[]>("answers").notNull(),
    location: json<StoredLocation>("location").notNull(),
    hostUserIds: json<number[]>("host_user_ids").notNull(),
    /** iCalendar SEQUENCE: 0 when made, +1 at each reschedule and at cancellation. */
    sequence: integer("sequence").notNull().default(0),
    reason: text("reason"),
    /** attendee | host | system */
    cancelledBy: text("cancelled_by"),
    cancelledAt: time("cancelled_at"),
    confirmedAt: time("confirmed_at"),
    /** attendee | host: who did not show up, marked after the start. */
    noShow: text("no_show"),
    /** public (the booking page) | mcp */
    source: text("source").notNull(),
    /** The team's own notes on the booking (bookings_update): never shown or sent to the attendee. */
    notes: text("notes"),
    /** Earlier times of a rescheduled booking: [{ startsAt, endsAt, at, by }]. */
    history: json<{ startsAt: string; endsAt: string; at: string; by: string }[]>("history").notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("bookings_uid").on(t.uid),
    index("bookings_company_start").on(t.companyId, t.startsAt),
    index("bookings_page_start").on(t.pageId, t.startsAt),
    index("bookings_company_email").on(t.companyId, t.attendeeEmail),
    index("bookings_status_start").on(t.status, t.startsAt),
  ],
);

export const bookingHosts = table(
  "booking_hosts",
  {
    id: id(),
    bookingId: integer("booking_id")
      .notNull()
      .references(() => bookings.id, { onDelete: "cascade" }),
    companyId: integer("company_id").notNull(),
    userId: integer("user_id").notNull(),
    pageId: integer("page_id"),
    startsAt: time("starts_at").notNull(),
    endsAt: time("ends_at").notNull(),
    /** The meeting with the page's buffers around it. */
    busyFrom: time("busy_from").notNull(),
    busyUntil: time("busy_until").notNull(),
    /** = starts_at while the booking holds its slot (pending, accepted); null once it does not. */
    activeStart: time("active_start"),
    active: bool("active").notNull(),
  },
  (t) => [
    uniqueIndex("booking_hosts_slot").on(t.companyId, t.userId, t.activeStart),
    index("booking_hosts_busy").on(t.companyId, t.userId, t.busyFrom),
    index("booking_hosts_booking").on(t.bookingId),
  ],
);

/**
 * Reminders written down, one row per (booking, offset, start): what makes a
 * reminder go out exactly once. The start is part of the key, so a moved
 * booking is reminded again for its new time. `state` is `sent`, or
 * `skipped` for an earlier reminder passed over when a later one was
 * already due (a server that was down sends the nearest, not a burst).
 */
export const bookingReminders = table(
  "booking_reminders",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    bookingId: integer("booking_id")
      .notNull()
      .references(() => bookings.id, { onDelete: "cascade" }),
    /** Minutes before the start. */
    offsetMin: integer("offset_min").notNull(),
    startsAt: time("starts_at").notNull(),
    state: text("state").notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("booking_reminders_once").on(t.bookingId, t.offsetMin, t.startsAt)],
);

/**
 * Calendars a member connected so their pages know when they are busy: an
 * ICS feed (read only) or a CalDAV account (read, and bookings written to
 * `write_url`). `secret` is the CalDAV password sealed under the instance's
 * key (src/core/sealed.ts, context "booking_calendar:<id>"): never shown
 * again. The last_* columns are the calendar's health, written by every
 * fetch (calendar-busy.ts) and shown by calendars_list and integrations.
 */
export const bookingCalendars = table(
  "booking_calendars",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** ics | caldav */
    kind: text("kind").notNull(),
    name: text("name").notNull(),
    /** The feed, or the CalDAV server's address. */
    url: text("url").notNull(),
    username: text("username"),
    secret: text("secret"),
    /** CalDAV: the calendar collection bookings are written to; null: none (read only). */
    writeUrl: text("write_url"),
    lastSyncAt: time("last_sync_at"),
    lastOkAt: time("last_ok_at"),
    lastError: text("last_error"),
    lastErrorAt: time("last_error_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("booking_calendars_url").on(t.companyId, t.userId, t.url)],
);

/**
 * Bookings to write into hosts' CalDAV calendars, one row per (booking,
 * calendar): what the calendar should show is worked out from the booking
 * when the row is worked (caldav.ts), so a row says only "bring this
 * calendar up to date with this booking". The booking events' subscriber
 * marks it pending (exactly once, in the dispatcher's transaction) and bumps
 * `version`; the job (one instance at a time, by its lease) PUTs or DELETEs
 * the event and marks it done only if no newer change came meanwhile, with
 * retries on a backoff until `failed`.
 */
export const bookingCalendarWrites = table(
  "booking_calendar_writes",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    bookingId: integer("booking_id")
      .notNull()
      .references(() => bookings.id, { onDelete: "cascade" }),
    calendarId: integer("calendar_id")
      .notNull()
      .references(() => bookingCalendars.id, { onDelete: "cascade" }),
    /** pending | done | failed */
    state: text("state").notNull(),
    version: integer("version").notNull().default(1),
    attempts: integer("attempts").notNull().default(0),
    nextAt: time("next_at").notNull(),
    /** put | delete: what was last done (done rows). */
    lastAction: text("last_action"),
    lastError: text("last_error"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("booking_calendar_writes_once").on(t.bookingId, t.calendarId),
    index("booking_calendar_writes_due").on(t.state, t.nextAt),
  ],
);
