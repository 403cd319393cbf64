/**
 * A booking as an iCalendar invite (RFC 5545, with RFC 5546's METHOD), made
 * by ical-generator. One function, `bookingInvite`, for the attendee's
 * download, the MCP read and the confirmation email that will attach it.
 *
 * - UID is `<booking uid>@<public host>`: stable for the booking's whole
 *   life, so a reschedule or cancellation updates the event already in the
 *   attendee's calendar instead of adding a second one.
 * - SEQUENCE is the booking's sequence (0 when made, +1 at each reschedule
 *   and at cancellation): clients apply an update only when it is higher.
 * - METHOD:REQUEST while the booking stands (STATUS:TENTATIVE while a host
 *   has yet to confirm), METHOD:CANCEL with STATUS:CANCELLED once it is
 *   cancelled, declined or expired.
 * - Times are written in UTC (`…Z`): exact in every client without a
 *   VTIMEZONE block; each client shows them in its own zone. The
 *   attendee's zone is named in X-WR-TIMEZONE as a display hint.
 */
import ical, { ICalAttendeeRole, ICalAttendeeStatus, ICalCalendarMethod, ICalEventStatus } from "ical-generator";

export interface InviteInput {
  uid: string;
  status: string;
  sequence: number;
  startsAt: Date;
  endsAt: Date;
  createdAt: Date;
  updatedAt: Date;
  title: string;
  description: string | null;
  location: { kind: string; value: string | null };
  timeZone: string;
  attendee: { name: string; email: string };
  hosts: { name: string | null; email: string }[];
  /** The attendee's page for this booking (reschedule, cancel). */
  manageUrl: string;
  publicUrl: string;
}

const STANDS = new Set(["pending", "accepted"]);

/** `METHOD` of the invite for a booking in `status`. */
export function inviteMethod(status: string): "REQUEST" | "CANCEL" {
  return STANDS.has(status) ? "REQUEST" : "CANCEL";
}

export function bookingInvite(b: InviteInput): string {
  const host = new URL(b.publicUrl).hostname || "plinth.invalid";
  const method = inviteMethod(b.status);
  const cal = ical({
    prodId: { company: "Plinth", product: "Bookings", language: "EN" },
    method: method === "REQUEST" ? ICalCalendarMethod.REQUEST : ICalCalendarMethod.CANCEL,
    name: b.title,
    x: [["X-WR-TIMEZONE", b.timeZone]],
  });
  const organizer = b.hosts[0] ?? { name: null, email: `bookings@${host}` };
  const where =
    b.location.kind === "phone"
      ? `Phone${b.location.value ? `: ${b.location.value}` : ""}`
      : b.location.kind === "video"
        ? (b.location.value ?? "Video call (link to follow)")
        : (b.location.value ?? "In person");
  const lines = [b.description ?? "", `Reschedule or cancel: ${b.manageUrl}`].filter(Boolean);
  cal.createEvent({
    id: `${b.uid}@${host}`,
    sequence: b.sequence,
    stamp: b.updatedAt,
    created: b.createdAt,
    lastModified: b.updatedAt,
    start: b.startsAt,
    end: b.endsAt,
    summary: b.title,
    description: lines.join("\n\n"),
    location: where,
    url: b.location.kind === "video" && b.location.value ? b.location.value : b.manageUrl,
    status:
      method === "CANCEL"
        ? ICalEventStatus.CANCELLED
        : b.status === "pending"
          ? ICalEventStatus.TENTATIVE
          : ICalEventStatus.CONFIRMED,
    organizer: { name: organizer.name ?? organizer.email, email: organizer.email },
    attendees: [
      {
        name: b.attendee.name,
        email: b.attendee.email,
        role: ICalAttendeeRole.REQ,
        rsvp: method === "REQUEST",
        status: method === "CANCEL" ? ICalAttendeeStatus.DECLINED : ICalAttendeeStatus.ACCEPTED,
      },
      ...b.hosts.slice(1).map((h) => ({
        name: h.name ?? h.email,
        email: h.email,
        role: ICalAttendeeRole.REQ,
        status: ICalAttendeeStatus.ACCEPTED,
      })),
    ],
  });
  return cal.toString();
}

/** The property that marks an event Plinth wrote into a host's calendar (calendar-busy.ts does not count it as busy). */
export const WRITTEN_MARK = "X-PLINTH-BOOKING";

/**
 * A booking as the event in a host's own CalDAV calendar: the same UID as
 * the attendee's invite, but a plain calendar object (RFC 4791: no METHOD)
 * with no ORGANIZER or ATTENDEE, so a server that schedules implicitly
 * (iCloud, Google) sends nobody an invitation of its own; Plinth's mail is
 * the attendee's invite. `WRITTEN_MARK` names the company (`<public url>#<id>`):
 * when the calendar is read back, the company's own bookings are not counted
 * twice (they block through booking_hosts already, and a booking being moved
 * must not block its own new time).
 */
export function hostEvent(b: InviteInput & { companyId: number }): string {
  const host = new URL(b.publicUrl).hostname || "plinth.invalid";
  const cal = ical({ prodId: { company: "Plinth", product: "Bookings", language: "EN" } });
  const where =
    b.location.kind === "phone"
      ? `Phone${b.location.value ? `: ${b.location.value}` : ""}`
      : b.location.kind === "video"
        ? (b.location.value ?? "Video call (link to follow)")
        : (b.location.value ?? "In person");
  cal.createEvent({
    id: `${b.uid}@${host}`,
    sequence: b.sequence,
    stamp: b.updatedAt,
    created: b.createdAt,
    lastModified: b.updatedAt,
    start: b.startsAt,
    end: b.endsAt,
    summary: `${b.title}: ${b.attendee.name}`,
    description: [`${b.attendee.name} <${b.attendee.email}>`, b.description ?? "", `Booking: ${b.manageUrl}`]
      .filter(Boolean)
      .join("\n\n"),
    location: where,
    url: b.location.kind === "video" && b.location.value ? b.location.value : b.manageUrl,
    status: b.status === "pending" ? ICalEventStatus.TENTATIVE : ICalEventStatus.CONFIRMED,
    x: [[WRITTEN_MARK, `${b.publicUrl}#${b.companyId}`]],
  });
  return cal.toString();
}
