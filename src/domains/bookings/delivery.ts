/**
 * What a booking's events do outside the bookings tables: the attendee gets
 * an email with the invite (.ics, METHOD REQUEST or CANCEL, the booking's
 * stable UID and its SEQUENCE) and the links of their booking's page
 * (reschedule, cancel); the hosts get a notification, and on a change of
 * host (bookings_update) the hosts it left are told too. A subscriber over the
 * booking events, so the email and the notice are written in one
 * transaction with the subscriber's cursor (once per event), and the mail
 * outbox sends the email (src/core/mail.ts).
 *
 * The email is made from the event's own facts, not from the booking as it
 * is when the event is handled: a booking moved and then cancelled before
 * delivery still sends the move (sequence n) and then the cancellation
 * (n + 1), which calendar clients apply in that order.
 *
 * Reminders (`sendReminders`, a job) work from the database: see there.
 */
import { and, asc, eq, gt, inArray, lte } from "drizzle-orm";
import type { Deps } from "../../core/context";
import type { Db } from "../../core/db";
import type { EventRecord, Subscriber } from "../../core/events";
import { anyRow, type JobDef } from "../../core/jobs";
import { queueMail, type OutgoingMail } from "../../core/mail";
import { companies } from "../../core/tables";
import { notify } from "../notifications/notify";
import { factsOf } from "./bookings";
import { remindersOf, type PageConfig } from "./config";
import {
  bookingCancelled,
  bookingConfirmed,
  bookingCreated,
  bookingDeclined,
  bookingExpired,
  bookingRescheduled,
  bookingUpdated,
  type BookingFacts,
} from "./events";
import { bookingInvite } from "./ics";
import { durationText, whenLabel } from "./render";
import { schedulesOf } from "./schedules";
import { bookingPages, bookingReminders, bookings } from "./tables";
import { MINUTE } from "./zoned";

type Kind = "created" | "confirmed" | "rescheduled" | "updated" | "cancelled" | "declined" | "expired" | "reminder";

const KIND_OF: Record<string, Kind> = {
  [bookingCreated.type]: "created",
  [bookingConfirmed.type]: "confirmed",
  [bookingRescheduled.type]: "rescheduled",
  [bookingUpdated.type]: "updated",
  [bookingCancelled.type]: "cancelled",
  [bookingDeclined.type]: "declined",
  [bookingExpired.type]: "expired",
};

type Facts = BookingFacts & {
  reason?: string | null;
  cancelledBy?: string;
  previousStartsAt?: string;
  by?: string;
  /** booking.updated: what changed and what it was. */
  fields?: string[];
  previous?: {
    attendee: { name: string; email: string };
    hosts: { userId: number; name: string | null; email: string }[];
  };
};

/** What booking.updated changed, in words (notes are the team's own: never named to the attendee). */
const changedWords = (f: Facts) =>
  (f.fields ?? [])
    .filter((x) => x !== "notes")
    .map((x) => ({ name: "name", email: "email", answers: "answers", host: "host" })[x] ?? x)
    .join(", ");

function whereText(loc: BookingFacts["location"], status: string): string {
  if (loc.kind === "video")
    return loc.value && status === "accepted"
      ? `Video call: ${loc.value}`
      : "Video call (the link follows once the booking is confirmed)";
  if (loc.kind === "phone") return `Phone call${loc.value ? `: ${loc.value}` : ""}`;
  return `In person: ${loc.value ?? ""}`;
}

async function companyName(db: Db, id: number): Promise<string> {
  return (
    (await db.select({ name: companies.name }).from(companies).where(eq(companies.id, id)).limit(1))[0]?.name ??
    "Plinth"
  );
}

/** The subject line and first paragraph of each kind of email. */
function wording(kind: Kind, f: Facts, when: string, offsetMin?: number): { subject: string; lead: string } {
  const t = f.pageTitle;
  switch (kind) {
    case "created":
      return f.status === "pending"
        ? {
            subject: `Requested: ${t} on ${when}`,
            lead: "Thank you for your request. The host will confirm it; you will hear from us again.",
          }
        : {
            subject: `Confirmed: ${t} on ${when}`,
            lead: "You're booked. The invite is attached: open it to add the meeting to your calendar.",
          };
    case "confirmed":
      return {
        subject: `Confirmed: ${t} on ${when}`,
        lead: "The host confirmed your booking. The attached invite updates your calendar.",
      };
    case "rescheduled":
      return {
        subject: `Rescheduled: ${t}, now on ${when}`,
        lead: `Your booking was moved${f.by === "host" ? " by the host" : ""}. The attached invite updates the meeting already in your calendar.`,
      };
    case "updated":
      return {
        subject: `Updated: ${t} on ${when}`,
        lead: `${f.fields?.includes("host") ? `Your booking is now with ${f.hosts.map((h) => h.name ?? h.email).join(", ")}.` : `The details of your booking were updated (${changedWords(f)}).`} The attached invite updates the meeting already in your calendar.`,
      };
    case "cancelled":
      return {
        subject: `Cancelled: ${t} on ${when}`,
        lead: `${f.cancelledBy === "host" ? "The host cancelled this booking." : "Your booking is cancelled."}${f.reason ? ` Reason: ${f.reason}` : ""} The attached invite removes it from your calendar.`,
      };
    case "declined":
      return {
        subject: `Declined: ${t} on ${when}`,
        lead: `The host could not take this time.${f.reason ? ` Reason: ${f.reason}` : ""} Please pick another one.`,
      };
    case "expired":
      return {
        subject: `Not confirmed: ${t} on ${when}`,
        lead: "The host did not confirm this request before its start, so it is closed. Please pick another time.",
      };
    case "reminder":
      return {
        subject: `Reminder: ${t} in ${durationText(offsetMin ?? 0)}, ${when}`,
        lead: `Your meeting starts in ${durationText(offsetMin ?? 0)}.`,
      };
  }
}

/** The attendee's email for `kind`, with the invite attached unless it is a reminder. */
async function attendeeMail(
  deps: Deps,
  companyId: number,
  kind: Kind,
  f: Facts,
  at: Date,
  offsetMin?: number,
): Promise<OutgoingMail> {
  const db = deps.db;
  const row = (
    await db
      .select({ createdAt: bookings.createdAt, pageId: bookings.pageId })
      .from(bookings)
      .where(eq(bookings.uid, f.uid))
      .limit(1)
  )[0];
  const cfg: PageConfig | null =
    row?.pageId != null
      ? ((
          await db
            .select({ config: bookingPages.config })
            .from(bookingPages)
            .where(eq(bookingPages.id, row.pageId))
            .limit(1)
        )[0]?.config ?? null)
      : null;
  const start = Date.parse(f.startsAt);
  const when = whenLabel(start, f.timeZone);
  const { subject, lead } = wording(kind, f, when, offsetMin);
  const stands = f.status === "pending" || f.status === "accepted";
  const company = await companyName(db, companyId);
  const hosts = f.hosts.map((h) => h.name ?? h.email).join(", ") || company;
  const pageUrl = `${deps.config.publicUrl}/b/${f.pageSlug}`;
  const text = [
    `Hello ${f.attendee.name},`,
    lead,
    [
      `${f.pageTitle}`,
      `When: ${when}, ${durationText(f.durationMin)}`,
      kind === "rescheduled" && f.previousStartsAt
        ? `Was: ${whenLabel(Date.parse(f.previousStartsAt), f.timeZone)}`
        : null,
      `With: ${hosts}`,
      `Where: ${whereText(f.location, f.status)}`,
    ]
      .filter(Boolean)
      .join("\n"),
    stands ? `Reschedule or cancel: ${f.manageUrl}` : `Book another time: ${pageUrl}`,
    `— ${company}`,
  ].join("\n\n");
  const host = new URL(deps.config.publicUrl).hostname || "plinth.invalid";
  const thread = `<booking-${f.uid}@${host}>`;
  const invite =
    kind === "reminder"
      ? null
      : bookingInvite({
          uid: f.uid,
          status: f.status,
          sequence: f.sequence,
          startsAt: new Date(start),
          endsAt: new Date(Date.parse(f.endsAt)),
          createdAt: row?.createdAt ?? at,
          updatedAt: at,
          title: f.pageTitle,
          description: cfg?.description ?? null,
          location: f.location,
          timeZone: f.timeZone,
          attendee: f.attendee,
          hosts: f.hosts,
          manageUrl: f.manageUrl,
          publicUrl: deps.config.publicUrl,
        });
  return {
    companyId,
    to: f.attendee.email,
    subject,
    text,
    // Replies reach a person, not the service's address.
    replyTo: f.hosts[0]?.email ?? null,
    headers: { "In-Reply-To": thread, References: thread },
    attachments: invite
      ? [
          {
            filename: "invite.ics",
            contentType: `text/calendar; charset=utf-8; method=${f.inviteMethod}`,
            content: invite,
          },
        ]
      : [],
    tag: `booking.${kind}`,
  };
}

/** Each host is told in their own zone (their booking schedule's); the one who acted is not told. */
async function notifyHosts(
  deps: Deps,
  e: EventRecord,
  kind: "created" | "rescheduled" | "updated" | "cancelled",
  f: Facts,
) {
  const ids = f.hosts.map((h) => h.userId);
  if (kind === "updated") await notifyFormerHosts(deps, e, f);
  if (!ids.length) return;
  const zones = new Map((await schedulesOf(deps.db, e.companyId, ids)).map((s) => [s.userId, s.timeZone]));
  const who = `${f.attendee.name} <${f.attendee.email}>`;
  for (const userId of ids) {
    const tz = zones.get(userId) ?? f.timeZone;
    const when = whenLabel(Date.parse(f.startsAt), tz);
    const title =
      kind === "created"
        ? `${f.status === "pending" ? "Booking request" : "New booking"}: ${f.pageTitle} with ${f.attendee.name}`
        : kind === "rescheduled"
          ? `Rescheduled: ${f.pageTitle} with ${f.attendee.name}`
          : kind === "updated"
            ? `${f.fields?.includes("host") ? "Handed to you" : "Updated"}: ${f.pageTitle} with ${f.attendee.name}`
            : `Cancelled: ${f.pageTitle} with ${f.attendee.name}`;
    const body =
      kind === "created"
        ? `${when}, ${durationText(f.durationMin)}. ${who}.${f.status === "pending" ? " Confirm or decline it (bookings_confirm, bookings_decline)." : ""}`
        : kind === "rescheduled"
          ? `Now ${when} (was ${whenLabel(Date.parse(f.previousStartsAt!), tz)}). ${who}.`
          : kind === "updated"
            ? `${when}, ${durationText(f.durationMin)}. ${who}. Changed: ${(f.fields ?? []).join(", ")}.`
            : `Was ${when}. ${f.cancelledBy === "host" ? "Cancelled by a host" : `Cancelled by ${f.attendee.name}`}${f.reason ? `: ${f.reason}` : "."}`;
    await notify(deps, {
      companyId: e.companyId,
      userIds: [userId],
      type: `booking.${kind}`,
      title,
      body,
      entity: { type: "booking", id: e.entity.id },
      actorUserId: e.actor?.userId ?? null,
    });
  }
}

/** The hosts a booking was taken from (bookings_update host), each told in their own zone who has it now. */
async function notifyFormerHosts(deps: Deps, e: EventRecord, f: Facts) {
  const now = new Set(f.hosts.map((h) => h.userId));
  const gone = (f.previous?.hosts ?? []).filter((h) => !now.has(h.userId));
  if (!gone.length) return;
  const zones = new Map(
    (
      await schedulesOf(
        deps.db,
        e.companyId,
        gone.map((h) => h.userId),
      )
    ).map((s) => [s.userId, s.timeZone]),
  );
  const to = f.hosts.map((h) => h.name ?? h.email).join(", ");
  for (const h of gone)
    await notify(deps, {
      companyId: e.companyId,
      userIds: [h.userId],
      type: "booking.updated",
      title: `Handed over: ${f.pageTitle} with ${f.attendee.name}`,
      body: `${whenLabel(Date.parse(f.startsAt), zones.get(h.userId) ?? f.timeZone)} is now with ${to}; it is off your calendar.`,
      entity: { type: "booking", id: e.entity.id },
      actorUserId: e.actor?.userId ?? null,
    });
}

export const bookingDelivery: Subscriber = {
  name: "bookings.delivery",
  types: Object.keys(KIND_OF),
  async handle(deps, e) {
    const kind = KIND_OF[e.type]!;
    const f = e.data as Facts;
    // Notes are the team's own: a change of notes alone reaches no one.
    if (kind === "updated" && !changedWords(f)) return;
    await queueMail(deps.db, deps, await attendeeMail(deps, e.companyId, kind, f, e.createdAt));
    if (kind === "created" || kind === "rescheduled" || kind === "updated" || kind === "cancelled")
      await notifyHosts(deps, e, kind, f);
  },
};

// ---------------------------------------------------------------- reminders

/** The longest reminder a page may ask for (config.ts bounds it): how far ahead the job looks. */
const MAX_OFFSET_MIN = 20_160;
const BATCH = 200;

/** Accepted bookings that start after `now` and within the longest offset: the bookings sendReminders looks at. */
const inReminderWindow = (now: Date) =>
  and(
    eq(bookings.status, "accepted"),
    gt(bookings.startsAt, now),
    lte(bookings.startsAt, new Date(now.getTime() + MAX_OFFSET_MIN * MINUTE)),
  );

/**
 * The reminder job. "What is due by now?": accepted bookings that start
 * after now and within the longest offset, whose page asks for a reminder
 * at an offset whose instant (start − offset) has come, with no row in
 * `booking_reminders` for (booking, offset, start). Of the offsets due for
 * one booking only the nearest to the start is sent; earlier ones are
 * written down as skipped, so a server that was down sends one reminder,
 * not a burst. An offset whose instant came before the booking was made
 * (or moved) is not a reminder at all: the confirmation just said it.
 * Cancelled, declined, expired and pending bookings get none, nor do
 * bookings that have started. The row and the email commit together, and
 * the unique key on the row means a second run (or instance) sends nothing.
 */
export async function sendReminders(deps: Deps): Promise<number> {
  const now = deps.clock.now();
  const t = now.getTime();
  const due = await deps.db
    .select()
    .from(bookings)
    .where(inReminderWindow(now))
    .orderBy(asc(bookings.startsAt), asc(bookings.id));
  if (!due.length) return 0;
  const pageIds = [...new Set(due.map((b) => b.pageId).filter((p): p is number => p !== null))];
  const configs = new Map(
    pageIds.length
      ? (
          await deps.db
            .select({ id: bookingPages.id, config: bookingPages.config })
            .from(bookingPages)
            .where(inArray(bookingPages.id, pageIds))
        ).map((r) => [r.id, r.config])
      : [],
  );
  const done = new Set(
    (
      await deps.db
        .select({ b: bookingReminders.bookingId, o: bookingReminders.offsetMin, s: bookingReminders.startsAt })
        .from(bookingReminders)
        .where(
          inArray(
            bookingReminders.bookingId,
            due.map((b) => b.id),
          ),
        )
    ).map((r) => `${r.b}:${r.o}:${r.s.getTime()}`),
  );
  let sent = 0;
  for (const b of due) {
    if (sent >= BATCH) break;
    const start = b.startsAt.getTime();
    // Made or last moved at: a reminder instant before this is not owed.
    const since = Math.max(b.createdAt.getTime(), ...b.history.map((h) => Date.parse(h.at)));
    const offsets = remindersOf(configs.get(b.pageId ?? -1) ?? {}).filter((o) => {
      const at = start - o * MINUTE;
      // Owed when its instant has come (at, not a millisecond before) and came after the booking was made or moved.
      return at <= t && at > since && !done.has(`${b.id}:${o}:${start}`);
    });
    if (!offsets.length) continue;
    const nearest = Math.min(...offsets);
    const wrote = await deps.db.transaction(async (tx) => {
      // Re-read under the transaction: cancelled or moved since the list was read means nothing to send.
      const cur = (await tx.select().from(bookings).where(eq(bookings.id, b.id)).limit(1))[0];
      if (!cur || cur.status !== "accepted" || cur.startsAt.getTime() !== start) return false;
      const rows = await tx
        .insert(bookingReminders)
        .values(
          offsets.map((o) => ({
            companyId: b.companyId,
            bookingId: b.id,
            offsetMin: o,
            startsAt: b.startsAt,
            state: o === nearest ? "sent" : "skipped",
            createdAt: now,
          })),
        )
        .onConflictDoNothing()
        .returning({ offsetMin: bookingReminders.offsetMin });
      if (!rows.some((r) => r.offsetMin === nearest)) return false;
      const f = await factsOf({ ...deps, db: tx }, cur);
      await queueMail(tx, deps, await attendeeMail({ ...deps, db: tx }, b.companyId, "reminder", f, now, nearest));
      return true;
    });
    if (wrote) sent++;
  }
  return sent;
}

export const reminderJob: JobDef = {
  name: "bookings.reminders",
  description:
    "Emails attendees their reminders (the page's offsets before the start), once per booking and offset; catches up after downtime.",
  everyMs: 60_000,
  // Wider than the work: a booking in the window whose reminders are sent (or whose page asks for none) keeps it
  // true — which offsets are owed lives in the page's config, read in process, not in a cheap query.
  pending: (deps) =>
    anyRow(deps.db.select({ id: bookings.id }).from(bookings).where(inReminderWindow(deps.clock.now())).limit(1)),
  run: async (deps) => {
    await sendReminders(deps);
  },
};
