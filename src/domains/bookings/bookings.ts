/**
 * Bookings: made on the public page or over MCP by the same `book`,
 * rescheduled, cancelled, confirmed or declined, marked no-show, expired;
 * their attendee details, answers, notes and host changed by a member
 * (`updateBooking`).
 *
 * Booking a slot, on both engines, without check-then-insert races:
 *  1. the transaction first bumps the hosts' schedule rows (an UPDATE: a row
 *     lock on PostgreSQL, held to commit, which the serializable transaction
 *     of a second visitor waits on and then retries after; SQLite's single
 *     writer already runs one booking at a time);
 *  2. under that lock it computes the page's slots with the same function the
 *     listing uses, and takes the requested start only if it is among them;
 *  3. it inserts one booking_hosts row per host with `active_start`, unique
 *     per (company, host): even a path that skipped step 1 could not commit a
 *     second booking of the same host at the same start.
 * The loser is told the time is no longer available and to pick another.
 */
import { and, asc, count, desc, eq, gte, inArray, lt, lte, max, type SQL } from "drizzle-orm";
import { audit } from "../../core/audit";
import { iso } from "../../core/clock";
import type { ActorContext, Deps } from "../../core/context";
import type { Db } from "../../core/db";
import { conflict, invalid, isAppError, notFound } from "../../core/errors";
import { emit, type EventDef } from "../../core/events";
import { anyRow, type JobDef } from "../../core/jobs";
import { page as pageOf } from "../../core/pagination";
import { authorize } from "../../core/scopes";
import { randomHex } from "../../core/secrets";
import { auditLog } from "../../core/tables";
import { pageSlots } from "./availability-load";
import { loadCalendars } from "./calendar-busy";
import {
  type BOOKING_STATUSES,
  type PageConfig,
  type Question,
  type StoredAnswer,
  type StoredLocation,
  videoLinkFor,
} from "./config";
import {
  bookingCancelled,
  bookingConfirmed,
  bookingCreated,
  bookingDeclined,
  bookingExpired,
  bookingNoShowMarked,
  bookingRescheduled,
  bookingUpdated,
  type BookingFacts,
} from "./events";
import { bookingInvite, type InviteInput, inviteMethod } from "./ics";
import { pageById, pageByRef, type PageRow } from "./pages";
import { membersById, resolveMember, touchSchedules, type Member } from "./schedules";
import { bookingHosts, bookingPages, bookings } from "./tables";
import { canonicalZone, DAY, isTimeZone, MINUTE } from "./zoned";

export type BookingRow = typeof bookings.$inferSelect;
const HOLDS_SLOT = ["pending", "accepted"];

/** Who acts: a signed-in member's context, or a visitor of the public page (company only). */
export interface Actor {
  deps: Deps;
  companyId: number;
  ctx: ActorContext | null;
}
const actorOf = (ctx: ActorContext): Actor => ({ deps: ctx.deps, companyId: ctx.company.id, ctx });

export const manageUrl = (deps: Pick<Deps, "config">, b: Pick<BookingRow, "pageSlug" | "uid">) =>
  `${deps.config.publicUrl}/b/${b.pageSlug}/booking/${b.uid}`;
export const icsUrl = (deps: Pick<Deps, "config">, b: Pick<BookingRow, "pageSlug" | "uid">) =>
  `${manageUrl(deps, b)}/invite.ics`;

async function writeAudit(
  tx: Db,
  a: Actor,
  action: string,
  id: number,
  detail: Record<string, unknown>,
  kind: "public_page" | "system" = "public_page",
) {
  if (a.ctx) return audit(tx, a.ctx, action, { type: "booking", id, detail });
  // A visitor of the public page (or the system's job): no user, no credential; the company's log still shows it.
  await tx.insert(auditLog).values({
    companyId: a.companyId,
    userId: null,
    credentialKind: kind,
    credentialId: null,
    action,
    entityType: "booking",
    entityId: id,
    detail,
    createdAt: a.deps.clock.now(),
  });
}

async function emitFor<T>(tx: Db, a: Actor, def: EventDef<T>, id: number, data: T) {
  await emit(tx, a.ctx ?? { deps: a.deps, company: { id: a.companyId } }, def, { id }, data);
}

export async function factsOf(deps: Deps, b: BookingRow, hosts?: Member[]): Promise<BookingFacts> {
  const hs = hosts ?? (await membersById(deps.db, b.companyId, b.hostUserIds));
  return {
    uid: b.uid,
    pageId: b.pageId,
    pageSlug: b.pageSlug,
    pageTitle: b.pageTitle,
    status: b.status,
    startsAt: iso(b.startsAt)!,
    endsAt: iso(b.endsAt)!,
    durationMin: b.durationMin,
    timeZone: b.timeZone,
    attendee: { name: b.attendeeName, email: b.attendeeEmail },
    hosts: hs.map((h) => ({ userId: h.userId, name: h.name, email: h.email })),
    location: b.location,
    answers: b.answers,
    inviteMethod: inviteMethod(b.status),
    sequence: b.sequence,
    manageUrl: manageUrl(deps, b),
    icsUrl: icsUrl(deps, b),
    source: b.source,
  };
}

/** The booking's invite (.ics text): the download, bookings_get include ics, and the confirmation email's attachment. */
export async function inviteOf(deps: Deps, b: BookingRow): Promise<string> {
  return bookingInvite(await inviteInputOf(deps, b));
}

/** What an invite or a host's calendar event of the booking says (ics.ts). */
export async function inviteInputOf(deps: Deps, b: BookingRow): Promise<InviteInput> {
  const hosts = await membersById(deps.db, b.companyId, b.hostUserIds);
  const page =
    b.pageId === null
      ? null
      : (
          await deps.db
            .select({ config: bookingPages.config })
            .from(bookingPages)
            .where(eq(bookingPages.id, b.pageId))
            .limit(1)
        )[0];
  const description = page?.config.description ?? null;
  return {
    uid: b.uid,
    status: b.status,
    sequence: b.sequence,
    startsAt: b.startsAt,
    endsAt: b.endsAt,
    createdAt: b.createdAt,
    updatedAt: b.updatedAt,
    title: b.pageTitle,
    description,
    location: b.location,
    timeZone: b.timeZone,
    attendee: { name: b.attendeeName, email: b.attendeeEmail },
    hosts,
    manageUrl: manageUrl(deps, b),
    publicUrl: deps.config.publicUrl,
  };
}

export async function bookingOut(deps: Deps, b: BookingRow, o: { ics?: boolean } = {}) {
  const hosts = await membersById(deps.db, b.companyId, b.hostUserIds);
  return {
    id: b.id,
    uid: b.uid,
    status: b.status,
    pageId: b.pageId,
    pageSlug: b.pageSlug,
    pageTitle: b.pageTitle,
    startsAt: iso(b.startsAt),
    endsAt: iso(b.endsAt),
    durationMin: b.durationMin,
    timeZone: b.timeZone,
    attendee: { name: b.attendeeName, email: b.attendeeEmail },
    hosts: hosts.map((h) => ({ userId: h.userId, name: h.name, email: h.email })),
    location: b.location,
    answers: b.answers,
    noShow: b.noShow,
    reason: b.reason,
    notes: b.notes,
    cancelledBy: b.cancelledBy,
    sequence: b.sequence,
    history: b.history,
    source: b.source,
    manageUrl: manageUrl(deps, b),
    icsUrl: icsUrl(deps, b),
    confirmedAt: iso(b.confirmedAt),
    cancelledAt: iso(b.cancelledAt),
    createdAt: iso(b.createdAt),
    updatedAt: iso(b.updatedAt),
    ...(o.ics ? { ics: await inviteOf(deps, b) } : {}),
  };
}

const short = (b: BookingRow) => ({
  id: b.id,
  uid: b.uid,
  status: b.status,
  startsAt: iso(b.startsAt),
  endsAt: iso(b.endsAt),
  hostUserIds: b.hostUserIds,
});

// ---------------------------------------------------------------- answers

const EMAIL_RE =
  /^[^\s@<>()[\]\\,;:"]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
const PHONE_RE = /^\+?[0-9 ()\-.]{5,30}$/;
const ONE_LINE = /^[^\u0000-\u001f\u007f]*$/;
const MULTI = /^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]*$/;

export function checkEmail(raw: string, path = "email"): string {
  const e = raw.trim();
  if (e.length > 254 || !EMAIL_RE.test(e))
    throw invalid(`${path} must be an email address like ada@example.com.`, { path });
  return e.toLowerCase();
}
export function checkName(raw: string, path = "name"): string {
  const n = raw.trim();
  if (!n || n.length > 200 || !ONE_LINE.test(n))
    throw invalid(`${path} must be 1 to 200 characters on one line.`, { path });
  return n;
}

/**
 * The attendee's answers, checked against the page's questions: unknown ids
 * are refused (a forged field), required ones must be there, each value has
 * its type's form. Values are stored as given (trimmed) and escaped
 * wherever they are shown.
 */
export function checkAnswers(questions: Question[], raw: Record<string, unknown>): StoredAnswer[] {
  const known = new Map(questions.map((q) => [q.id, q]));
  for (const k of Object.keys(raw))
    if (!known.has(k))
      throw invalid(
        `answers.${k.slice(0, 50)} is not a question of this page${questions.length ? ` (questions: ${questions.map((q) => q.id).join(", ")})` : ""}.`,
        { path: `answers.${k.slice(0, 50)}` },
      );
  const out: StoredAnswer[] = [];
  for (const q of questions) {
    const path = `answers.${q.id}`;
    let v = raw[q.id];
    if (typeof v === "string") v = v.trim();
    const empty = v === undefined || v === null || v === "" || (q.type === "checkbox" && v === false);
    if (empty) {
      if (q.required) throw invalid(`${path} is required: "${q.label}".`, { path });
      continue;
    }
    switch (q.type) {
      case "short_text":
      case "long_text": {
        const max = q.type === "short_text" ? 500 : 5000;
        if (typeof v !== "string" || v.length > max || !(q.type === "short_text" ? ONE_LINE : MULTI).test(v))
          throw invalid(
            `${path} must be text of at most ${max} characters${q.type === "short_text" ? " on one line" : ""}.`,
            { path },
          );
        break;
      }
      case "email":
        if (typeof v !== "string") throw invalid(`${path} must be an email address.`, { path });
        v = checkEmail(v, path);
        break;
      case "phone":
        if (typeof v !== "string" || !PHONE_RE.test(v))
          throw invalid(`${path} must be a phone number like +49 30 1234567.`, { path });
        break;
      case "number": {
        const n =
          typeof v === "number"
            ? v
            : typeof v === "string" && /^-?\d{1,15}(?:\.\d{1,6})?$/.test(v)
              ? Number(v)
              : Number.NaN;
        if (!Number.isFinite(n) || Math.abs(n) > 1e15) throw invalid(`${path} must be a number.`, { path });
        v = n;
        break;
      }
      case "select":
        if (typeof v !== "string" || !q.options!.includes(v))
          throw invalid(`${path} must be one of: ${q.options!.join(", ")}.`, { path });
        break;
      case "checkbox":
        if (v === "on" || v === "true") v = true;
        if (v !== true) throw invalid(`${path} must be true or false.`, { path });
        break;
    }
    out.push({ id: q.id, label: q.label, value: v as string | number | boolean });
  }
  return out;
}

function locationOf(cfg: PageConfig, answers: StoredAnswer[], uid: string): StoredLocation {
  // A video page with a link template: this booking's own room, stored on the booking (invite, emails, its page).
  if (cfg.location.kind === "video" && cfg.videoLink)
    return { kind: "video", value: videoLinkFor(cfg.videoLink, cfg.slug, uid) };
  if (cfg.location.kind === "phone" && !cfg.location.value) {
    const phone = answers.find((a) => cfg.questions.find((q) => q.id === a.id)?.type === "phone");
    return { kind: "phone", value: phone ? String(phone.value) : null };
  }
  return { kind: cfg.location.kind, value: cfg.location.value };
}

// ---------------------------------------------------------------- booking

/** Locks the hosts' schedules for this transaction (see the file comment). */
async function lockHosts(tx: Db, companyId: number, userIds: number[], now: Date) {
  await touchSchedules(
    tx,
    companyId,
    [...new Set(userIds)].sort((a, b) => a - b),
    now,
  );
}

/** Of round-robin hosts free for a slot: who was booked on this page least recently (never first), then the lowest id. */
async function pickRoundRobin(tx: Db, pageId: number, candidates: number[]): Promise<number> {
  if (candidates.length === 1) return candidates[0]!;
  const last = await tx
    .select({ userId: bookingHosts.userId, lastId: max(bookingHosts.id) })
    .from(bookingHosts)
    .where(and(eq(bookingHosts.pageId, pageId), inArray(bookingHosts.userId, candidates)))
    .groupBy(bookingHosts.userId);
  const by = new Map(last.map((r) => [r.userId, Number(r.lastId ?? 0)]));
  return [...candidates].sort((a, b) => (by.get(a) ?? 0) - (by.get(b) ?? 0) || a - b)[0]!;
}

/** Why a start time is not bookable, said so a person or a model can act on it. */
function unavailable(cfg: PageConfig, start: number, now: number): Error {
  if (start <= now)
    return invalid("That time is in the past; pick a time from the page's free slots.", { path: "startsAt" });
  if (start < now + cfg.minNotice * MINUTE)
    return invalid(`This page needs ${cfg.minNotice} minutes' notice; pick a later time.`, { path: "startsAt" });
  if (cfg.maxAdvanceDays !== null && start >= now + cfg.maxAdvanceDays * DAY)
    return invalid(`This page takes bookings up to ${cfg.maxAdvanceDays} days ahead; pick an earlier time.`, {
      path: "startsAt",
    });
  return conflict("That time is no longer available; please pick another one.", { path: "startsAt" });
}

export interface BookInput {
  startsAt: Date;
  durationMin?: number;
  timeZone?: string;
  name: string;
  email: string;
  answers?: Record<string, unknown>;
  source: "public" | "mcp";
}

/** Books a slot of a live page (see the file comment for why two racing calls cannot both win). */
export async function book(a: Actor, pageId: number, input: BookInput): Promise<BookingRow> {
  const deps = a.deps;
  const name = checkName(input.name);
  const email = checkEmail(input.email);
  if (!Number.isFinite(input.startsAt.getTime()))
    throw invalid("startsAt must be an ISO date-time.", { path: "startsAt" });
  // The hosts' calendars are read first: no network call inside the transaction.
  const calendars = await loadCalendars(
    deps,
    a.companyId,
    (await pageById(deps.db, a.companyId, pageId)).config.hostUserIds,
  );
  return await deps.db.transaction(async (tx) => {
    const now = deps.clock.now();
    const p = await pageById(tx, a.companyId, pageId);
    if (p.status !== "live")
      throw conflict(
        p.status === "paused"
          ? "This booking page is paused and takes no bookings now."
          : "This booking page is not live yet: it takes bookings once a person approves it.",
      );
    const cfg = p.config;
    const durationMin = input.durationMin ?? cfg.durations[0]!;
    if (!cfg.durations.includes(durationMin))
      throw invalid(`durationMin must be one of ${cfg.durations.join(", ")}.`, { path: "durationMin" });
    const timeZone = input.timeZone && isTimeZone(input.timeZone) ? canonicalZone(input.timeZone) : cfg.timeZone;
    const answers = checkAnswers(cfg.questions, input.answers ?? {});
    const start = input.startsAt.getTime();
    if (start % MINUTE !== 0)
      throw conflict("That time is not one of this page's start times; please pick another one.", { path: "startsAt" });
    await lockHosts(tx, a.companyId, cfg.hostUserIds, now);
    const { slots, hosts } = await pageSlots(tx, a.companyId, p, {
      from: start,
      to: start + 1,
      now: now.getTime(),
      durationMin,
      calendars,
    });
    const slot = slots.find((s) => s.start === start);
    if (!slot) throw unavailable(cfg, start, now.getTime());
    const hostIds =
      cfg.hostMode === "round_robin" ? [await pickRoundRobin(tx, p.id, slot.hostUserIds)] : slot.hostUserIds;
    const uid = randomHex(16);
    const row = (
      await tx
        .insert(bookings)
        .values({
          companyId: a.companyId,
          pageId: p.id,
          pageSlug: p.slug,
          pageTitle: p.title,
          uid,
          status: cfg.requiresConfirmation ? "pending" : "accepted",
          startsAt: new Date(slot.start),
          endsAt: new Date(slot.end),
          durationMin,
          timeZone,
          attendeeName: name,
          attendeeEmail: email,
          answers,
          location: locationOf(cfg, answers, uid),
          hostUserIds: hostIds,
          sequence: 0,
          source: input.source,
          history: [],
          confirmedAt: cfg.requiresConfirmation ? null : now,
          createdAt: now,
          updatedAt: now,
        })
        .returning()
    )[0]!;
    await insertHosts(tx, row, p.id, cfg);
    await writeAudit(tx, a, "bookings.create", row.id, {
      pageId: p.id,
      startsAt: iso(row.startsAt),
      hostUserIds: hostIds,
      source: input.source,
    });
    const members = hosts.filter((h) => hostIds.includes(h.userId));
    await emitFor(tx, a, bookingCreated, row.id, {
      ...(await factsOf(deps, row, members)),
      requiresConfirmation: cfg.requiresConfirmation,
    });
    return row;
  });
}

async function insertHosts(
  tx: Db,
  b: BookingRow,
  pageId: number | null,
  cfg: Pick<PageConfig, "bufferBefore" | "bufferAfter">,
) {
  await tx.insert(bookingHosts).values(
    b.hostUserIds.map((userId) => ({
      bookingId: b.id,
      companyId: b.companyId,
      userId,
      pageId,
      startsAt: b.startsAt,
      endsAt: b.endsAt,
      busyFrom: new Date(b.startsAt.getTime() - cfg.bufferBefore * MINUTE),
      busyUntil: new Date(b.endsAt.getTime() + cfg.bufferAfter * MINUTE),
      activeStart: b.startsAt,
      active: true,
    })),
  );
}

async function releaseSlot(tx: Db, bookingId: number) {
  await tx.update(bookingHosts).set({ active: false, activeStart: null }).where(eq(bookingHosts.bookingId, bookingId));
}

export async function bookingByRef(db: Db, companyId: number, ref: { id?: number; uid?: string }): Promise<BookingRow> {
  if ((ref.id === undefined) === (ref.uid === undefined)) throw invalid("Give exactly one of id or uid.");
  const where = ref.id !== undefined ? eq(bookings.id, ref.id) : eq(bookings.uid, ref.uid!);
  const b = (
    await db
      .select()
      .from(bookings)
      .where(and(where, eq(bookings.companyId, companyId)))
      .limit(1)
  )[0];
  if (!b) throw notFound(`Booking ${ref.id ?? ref.uid} not found.`);
  return b;
}

/** The booking of a public link (uid only; the uid is the capability). */
export async function bookingByUid(db: Db, uid: string): Promise<BookingRow | null> {
  if (!/^[0-9a-f]{32}$/.test(uid)) return null;
  return (await db.select().from(bookings).where(eq(bookings.uid, uid)).limit(1))[0] ?? null;
}

function checkCutoff(
  b: BookingRow,
  minutes: number,
  now: Date,
  what: "cancel" | "reschedule",
  a: Actor,
  ignore: boolean | undefined,
) {
  if (minutes <= 0) return;
  if (b.startsAt.getTime() - now.getTime() >= minutes * MINUTE) return;
  if (a.ctx && ignore) return;
  const h = minutes % 60 === 0 ? `${minutes / 60} hour(s)` : `${minutes} minutes`;
  throw conflict(
    `Bookings of this page can be ${what === "cancel" ? "cancelled" : "rescheduled"} up to ${h} before they start.` +
      (a.ctx ? " A member can still do it with ignoreCutoff: true." : " Please contact the host."),
  );
}

async function liveConfig(tx: Db, b: BookingRow): Promise<PageRow | null> {
  return b.pageId === null
    ? null
    : ((await tx.select().from(bookingPages).where(eq(bookingPages.id, b.pageId)).limit(1))[0] ?? null);
}

/** The calendars of a booking's hosts and its page's, read before a transaction that may move it or hand it over. */
async function calendarsOfBooking(deps: Deps, companyId: number, ref: { id?: number; uid?: string }) {
  const b = await bookingByRef(deps.db, companyId, ref);
  const p = await liveConfig(deps.db, b);
  return await loadCalendars(deps, companyId, [...new Set([...b.hostUserIds, ...(p?.config.hostUserIds ?? [])])]);
}

export async function reschedule(
  a: Actor,
  ref: { id?: number; uid?: string },
  input: { startsAt: Date; durationMin?: number; ignoreCutoff?: boolean },
): Promise<BookingRow> {
  const deps = a.deps;
  if (!Number.isFinite(input.startsAt.getTime()))
    throw invalid("startsAt must be an ISO date-time.", { path: "startsAt" });
  const calendars = await calendarsOfBooking(deps, a.companyId, ref);
  return await deps.db.transaction(async (tx) => {
    const now = deps.clock.now();
    const b = await bookingByRef(tx, a.companyId, ref);
    if (!HOLDS_SLOT.includes(b.status))
      throw conflict(`This booking is ${b.status}; only pending or accepted bookings can be rescheduled.`);
    if (b.startsAt <= now) throw conflict("This booking has already started; it cannot be moved.");
    const p = await liveConfig(tx, b);
    if (!p) throw conflict("The booking page of this booking was deleted, so there are no times to move it to.");
    if (!a.ctx && p.status !== "live")
      throw conflict("This booking page takes no changes now; please contact the host.");
    const cfg = p.config;
    checkCutoff(b, cfg.rescheduleCutoff, now, "reschedule", a, input.ignoreCutoff);
    const durationMin = input.durationMin ?? b.durationMin;
    if (!cfg.durations.includes(durationMin))
      throw invalid(`durationMin must be one of ${cfg.durations.join(", ")}.`, { path: "durationMin" });
    const start = input.startsAt.getTime();
    if (start === b.startsAt.getTime() && durationMin === b.durationMin)
      throw invalid("That is the booking's current time; give a new startsAt.", { path: "startsAt" });
    await lockHosts(tx, a.companyId, [...cfg.hostUserIds, ...b.hostUserIds], now);
    const { slots, hosts } = await pageSlots(tx, a.companyId, p, {
      from: start,
      to: start + 1,
      now: now.getTime(),
      durationMin,
      excludeBookingId: b.id,
      calendars,
    });
    const slot = slots.find((s) => s.start === start);
    if (!slot) throw unavailable(cfg, start, now.getTime());
    let hostIds = slot.hostUserIds;
    if (cfg.hostMode === "round_robin") {
      // The same host keeps the meeting when free; otherwise the round robin picks again.
      const keep = b.hostUserIds.find((h) => slot.hostUserIds.includes(h));
      hostIds = [keep ?? (await pickRoundRobin(tx, p.id, slot.hostUserIds))];
    }
    const history = [
      ...b.history,
      { startsAt: iso(b.startsAt)!, endsAt: iso(b.endsAt)!, at: iso(now)!, by: a.ctx ? "host" : "attendee" },
    ].slice(-20);
    await tx.delete(bookingHosts).where(eq(bookingHosts.bookingId, b.id));
    const row = (
      await tx
        .update(bookings)
        .set({
          startsAt: new Date(slot.start),
          endsAt: new Date(slot.end),
          durationMin,
          hostUserIds: hostIds,
          sequence: b.sequence + 1,
          history,
          updatedAt: now,
        })
        .where(eq(bookings.id, b.id))
        .returning()
    )[0]!;
    await insertHosts(tx, row, p.id, cfg);
    await writeAudit(tx, a, "bookings.reschedule", b.id, {
      from: iso(b.startsAt),
      to: iso(row.startsAt),
      hostUserIds: hostIds,
    });
    const members = hosts.filter((h) => hostIds.includes(h.userId));
    await emitFor(tx, a, bookingRescheduled, b.id, {
      ...(await factsOf(deps, row, members)),
      previousStartsAt: iso(b.startsAt)!,
      previousEndsAt: iso(b.endsAt)!,
      by: a.ctx ? "host" : "attendee",
    });
    return row;
  });
}

export async function cancel(
  a: Actor,
  ref: { id?: number; uid?: string },
  input: { reason?: string | null; ignoreCutoff?: boolean },
): Promise<BookingRow> {
  const deps = a.deps;
  const reason = input.reason?.trim() || null;
  if (reason && (reason.length > 1000 || !MULTI.test(reason)))
    throw invalid("reason must be at most 1000 characters.", { path: "reason" });
  return await deps.db.transaction(async (tx) => {
    const now = deps.clock.now();
    const b = await bookingByRef(tx, a.companyId, ref);
    if (!HOLDS_SLOT.includes(b.status)) throw conflict(`This booking is already ${b.status}.`);
    if (b.endsAt <= now)
      throw conflict("This booking is over; mark a no-show (bookings_mark_no_show) instead of cancelling it.");
    const p = await liveConfig(tx, b);
    checkCutoff(b, p?.config.cancelCutoff ?? 0, now, "cancel", a, input.ignoreCutoff);
    const by = a.ctx ? "host" : "attendee";
    const row = (
      await tx
        .update(bookings)
        .set({
          status: "cancelled",
          reason,
          cancelledBy: by,
          cancelledAt: now,
          sequence: b.sequence + 1,
          updatedAt: now,
        })
        .where(eq(bookings.id, b.id))
        .returning()
    )[0]!;
    await releaseSlot(tx, b.id);
    await touchSchedules(tx, a.companyId, b.hostUserIds, now);
    await writeAudit(tx, a, "bookings.cancel", b.id, { reason, by });
    await emitFor(tx, a, bookingCancelled, b.id, { ...(await factsOf(deps, row)), reason, cancelledBy: by });
    return row;
  });
}

// ---------------------------------------------------------------- MCP verbs

export async function createBooking(
  ctx: ActorContext,
  input: {
    pageId?: number;
    pageSlug?: string;
    startsAt: string;
    durationMin?: number;
    timeZone?: string;
    name: string;
    email: string;
    answers?: Record<string, unknown>;
  },
) {
  authorize(ctx, "bookings:write", { write: true });
  const p = await pageByRef(ctx.deps.db, ctx.company.id, { id: input.pageId, slug: input.pageSlug }, "pageId");
  const row = await book(actorOf(ctx), p.id, { ...input, startsAt: new Date(input.startsAt), source: "mcp" });
  return { ...short(row), manageUrl: manageUrl(ctx.deps, row) };
}

export async function listBookings(
  ctx: ActorContext,
  input: {
    pageId?: number;
    pageSlug?: string;
    status?: (typeof BOOKING_STATUSES)[number][];
    host?: number | string;
    attendeeEmail?: string;
    from?: string;
    to?: string;
    order?: "asc" | "desc";
    limit: number;
    offset: number;
  },
) {
  authorize(ctx, "bookings:read", { write: false });
  const db = ctx.deps.db;
  const conds: (SQL | undefined)[] = [eq(bookings.companyId, ctx.company.id)];
  if (input.pageId !== undefined || input.pageSlug !== undefined)
    conds.push(
      eq(
        bookings.pageId,
        (await pageByRef(db, ctx.company.id, { id: input.pageId, slug: input.pageSlug }, "pageId")).id,
      ),
    );
  if (input.status?.length) conds.push(inArray(bookings.status, input.status));
  if (input.attendeeEmail) conds.push(eq(bookings.attendeeEmail, input.attendeeEmail.trim().toLowerCase()));
  if (input.from) conds.push(gte(bookings.startsAt, dateArg(input.from, "from")));
  if (input.to) conds.push(lt(bookings.startsAt, dateArg(input.to, "to")));
  if (input.host !== undefined) {
    const m = await resolveMember(db, ctx.company, input.host);
    const ids = (
      await db
        .select({ id: bookingHosts.bookingId })
        .from(bookingHosts)
        .where(and(eq(bookingHosts.companyId, ctx.company.id), eq(bookingHosts.userId, m.userId)))
    ).map((r) => r.id);
    conds.push(inArray(bookings.id, ids.length ? ids : [-1]));
  }
  const where = and(...conds);
  const total = (await db.select({ n: count() }).from(bookings).where(where))[0]?.n ?? 0;
  const rows = await db
    .select()
    .from(bookings)
    .where(where)
    .orderBy(input.order === "desc" ? desc(bookings.startsAt) : asc(bookings.startsAt), asc(bookings.id))
    .limit(input.limit)
    .offset(input.offset);
  const members = await membersById(db, ctx.company.id, [...new Set(rows.flatMap((r) => r.hostUserIds))]);
  const names = new Map(members.map((m) => [m.userId, m.name ?? m.email]));
  return pageOf(
    rows.map((b) => ({
      id: b.id,
      uid: b.uid,
      status: b.status,
      pageSlug: b.pageSlug,
      startsAt: iso(b.startsAt),
      endsAt: iso(b.endsAt),
      attendee: { name: b.attendeeName, email: b.attendeeEmail },
      hosts: b.hostUserIds.map((id) => names.get(id) ?? `user ${id}`),
      noShow: b.noShow,
    })),
    total,
    input.limit,
    input.offset,
  );
}

function dateArg(s: string, path: string): Date {
  const d = new Date(s);
  if (!Number.isFinite(d.getTime()))
    throw invalid(`${path} must be an ISO date-time like 2026-03-01T00:00:00Z.`, { path });
  return d;
}

export async function getBooking(ctx: ActorContext, input: { id?: number; uid?: string; include?: "ics"[] }) {
  authorize(ctx, "bookings:read", { write: false });
  const b = await bookingByRef(ctx.deps.db, ctx.company.id, input);
  return await bookingOut(ctx.deps, b, { ics: input.include?.includes("ics") });
}

export async function rescheduleBooking(
  ctx: ActorContext,
  input: { id?: number; uid?: string; startsAt: string; durationMin?: number; ignoreCutoff?: boolean },
) {
  authorize(ctx, "bookings:write", { write: true });
  const row = await reschedule(actorOf(ctx), input, {
    startsAt: new Date(input.startsAt),
    durationMin: input.durationMin,
    ignoreCutoff: input.ignoreCutoff,
  });
  return { ...short(row), sequence: row.sequence };
}

export async function cancelBooking(
  ctx: ActorContext,
  input: { id?: number; uid?: string; reason?: string; ignoreCutoff?: boolean },
) {
  authorize(ctx, "bookings:write", { write: true });
  const row = await cancel(actorOf(ctx), input, input);
  return { ...short(row), reason: row.reason };
}

async function decide(ctx: ActorContext, ref: { id?: number; uid?: string }, accept: boolean, reason: string | null) {
  authorize(ctx, "bookings:write", { write: true });
  const a = actorOf(ctx);
  if (reason && (reason.length > 1000 || !MULTI.test(reason)))
    throw invalid("reason must be at most 1000 characters.", { path: "reason" });
  return await ctx.deps.db.transaction(async (tx) => {
    const now = ctx.deps.clock.now();
    const b = await bookingByRef(tx, ctx.company.id, ref);
    if (b.status !== "pending")
      throw conflict(
        `This booking is ${b.status}; only a pending booking (one that needs confirmation) can be ${accept ? "confirmed" : "declined"}.`,
      );
    if (b.startsAt <= now)
      throw conflict("This booking's start has passed; it can no longer be confirmed or declined.");
    const row = (
      await tx
        .update(bookings)
        .set(
          accept
            ? { status: "accepted", confirmedAt: now, updatedAt: now }
            : {
                status: "declined",
                reason,
                cancelledAt: now,
                cancelledBy: "host",
                sequence: b.sequence + 1,
                updatedAt: now,
              },
        )
        .where(eq(bookings.id, b.id))
        .returning()
    )[0]!;
    if (!accept) {
      await releaseSlot(tx, b.id);
      await touchSchedules(tx, ctx.company.id, b.hostUserIds, now);
    }
    await writeAudit(tx, a, accept ? "bookings.confirm" : "bookings.decline", b.id, accept ? {} : { reason });
    if (accept) await emitFor(tx, a, bookingConfirmed, b.id, await factsOf(ctx.deps, row));
    else await emitFor(tx, a, bookingDeclined, b.id, { ...(await factsOf(ctx.deps, row)), reason });
    return short(row);
  });
}

// Function declarations, not consts: tools.ts may be evaluated inside an import cycle before this module's body runs.
export function confirmBooking(ctx: ActorContext, input: { id?: number; uid?: string }) {
  return decide(ctx, input, true, null);
}
export function declineBooking(ctx: ActorContext, input: { id?: number; uid?: string; reason?: string }) {
  return decide(ctx, input, false, input.reason?.trim() || null);
}

type AnswerValue = string | number | boolean;

/**
 * A member corrects a booking: the attendee's name, email, phone and
 * answers (checked against the page's questions as when booking), the
 * team's own notes, or its host. Notes can change at any time; the
 * attendee's details while the booking stands (pending or accepted) and has
 * not ended; the host while it stands and has not started.
 *
 * A new host must be one of the page's hosts and be offered this very start
 * by the page's own slot rules (pageSlots, as if the page were theirs
 * alone): working hours, time off, other bookings with their buffers, daily
 * and weekly limits. Notice and booking window do not apply: the attendee
 * is not booking a new time. Their schedules are locked first, as when
 * booking, and the booking_hosts row's unique key holds against a race.
 *
 * Any change the attendee can see raises SEQUENCE, so the emailed invite
 * replaces the one in their calendar; notes alone change nothing they see.
 */
export async function updateBooking(
  ctx: ActorContext,
  input: {
    id?: number;
    uid?: string;
    name?: string;
    email?: string;
    phone?: string | null;
    answers?: Record<string, AnswerValue | null>;
    notes?: string | null;
    host?: number | string;
  },
) {
  authorize(ctx, "bookings:write", { write: true });
  const a = actorOf(ctx);
  const deps = ctx.deps;
  const attendee = input.name !== undefined || input.email !== undefined;
  const details = attendee || input.phone !== undefined || input.answers !== undefined;
  if (!details && input.notes === undefined && input.host === undefined)
    throw invalid("Give at least one of name, email, phone, answers, notes or host to change.");
  const name = input.name !== undefined ? checkName(input.name) : undefined;
  const email = input.email !== undefined ? checkEmail(input.email) : undefined;
  const notes = input.notes === undefined ? undefined : input.notes?.trim() || null;
  if (notes && (notes.length > 5000 || !MULTI.test(notes)))
    throw invalid("notes must be at most 5000 characters.", { path: "notes" });
  const calendars = input.host !== undefined ? await calendarsOfBooking(deps, ctx.company.id, input) : undefined;
  return await deps.db.transaction(async (tx) => {
    const now = deps.clock.now();
    const b = await bookingByRef(tx, ctx.company.id, input);
    if ((details || input.host !== undefined) && !HOLDS_SLOT.includes(b.status))
      throw conflict(
        `This booking is ${b.status}; only a pending or accepted booking's attendee details and host can be changed (its notes can).`,
      );
    if (details && b.endsAt <= now)
      throw conflict("This booking is over; its attendee details can no longer be changed (its notes can).");
    if (input.host !== undefined && b.startsAt <= now)
      throw conflict("This booking has already started; its host can no longer be changed.");
    const p = await liveConfig(tx, b);
    const gone = "The booking page of this booking was deleted";

    let answers = b.answers;
    let location = b.location;
    if (input.answers !== undefined || input.phone !== undefined) {
      if (!p) throw conflict(`${gone}, so its questions are gone: answers and phone cannot be changed.`);
      const qs = p.config.questions;
      const phoneQ = qs.find((q) => q.type === "phone");
      // The stored answers to questions the page still asks, then the changes (null clears one).
      const raw: Record<string, unknown> = Object.fromEntries(
        b.answers.filter((x) => qs.some((q) => q.id === x.id)).map((x) => [x.id, x.value]),
      );
      Object.assign(raw, input.answers ?? {});
      if (input.phone !== undefined) {
        if (!phoneQ)
          throw invalid(
            `Page "${p.title}" asks no phone number${qs.length ? ` (its questions: ${qs.map((q) => q.id).join(", ")})` : ""}; change answers instead.`,
            { path: "phone" },
          );
        if (input.answers && phoneQ.id in input.answers)
          throw invalid(`Give the phone number once: as phone or as answers.${phoneQ.id}.`, { path: "phone" });
        raw[phoneQ.id] = input.phone;
      }
      answers = checkAnswers(qs, raw);
      // A phone call placed on the attendee's number follows the number (as locationOf chose it when booking).
      const phoneOf = (list: StoredAnswer[]) => (phoneQ ? list.find((x) => x.id === phoneQ.id)?.value : undefined);
      if (b.location.kind === "phone" && p.config.location.kind === "phone" && !p.config.location.value) {
        const next = phoneOf(answers);
        if (next !== phoneOf(b.answers)) location = { kind: "phone", value: next === undefined ? null : String(next) };
      }
    }

    let hostIds = b.hostUserIds;
    if (input.host !== undefined) {
      const m = await resolveMember(tx, ctx.company, input.host);
      if (!p) throw conflict(`${gone}, so it has no hosts to hand this booking to.`);
      const cfg = p.config;
      if (!cfg.hostUserIds.includes(m.userId)) {
        const allowed = await membersById(tx, ctx.company.id, cfg.hostUserIds);
        throw invalid(
          `${m.name ?? m.email} is not a host of page "${p.title}" (its hosts: ${allowed.map((h) => h.email).join(", ")}); add them to the page's hosts first (booking_pages_update).`,
          { path: "host" },
        );
      }
      if (b.hostUserIds.length > 1)
        throw conflict(
          `This booking is with all of page "${p.title}"'s hosts together; one of them cannot be handed over. Change the page's hosts for new bookings, or cancel and book again.`,
          { path: "host" },
        );
      if (b.hostUserIds[0] !== m.userId) {
        await lockHosts(tx, ctx.company.id, [...b.hostUserIds, m.userId], now);
        const start = b.startsAt.getTime();
        const { slots } = await pageSlots(
          tx,
          ctx.company.id,
          {
            id: p.id,
            config: { ...cfg, hostUserIds: [m.userId], hostMode: "single", minNotice: 0, maxAdvanceDays: null },
          },
          {
            from: start,
            to: start + 1,
            now: now.getTime(),
            durationMin: b.durationMin,
            excludeBookingId: b.id,
            calendars,
          },
        );
        if (!slots.some((x) => x.start === start))
          throw conflict(
            `${m.name ?? m.email} is not free at ${iso(b.startsAt)} (working hours, time off, another booking or a daily limit); pick another host, or reschedule first.`,
            { path: "host" },
          );
        hostIds = [m.userId];
      }
    }

    const fields: string[] = [];
    if (name !== undefined && name !== b.attendeeName) fields.push("name");
    if (email !== undefined && email !== b.attendeeEmail) fields.push("email");
    if (JSON.stringify(answers) !== JSON.stringify(b.answers)) fields.push("answers");
    if (hostIds !== b.hostUserIds) fields.push("host");
    if (notes !== undefined && notes !== b.notes) fields.push("notes");
    if (!fields.length) return { ...short(b), sequence: b.sequence, changed: [] as string[] };
    const seen = fields.some((f) => f !== "notes");
    const row = (
      await tx
        .update(bookings)
        .set({
          attendeeName: name ?? b.attendeeName,
          attendeeEmail: email ?? b.attendeeEmail,
          answers,
          location,
          hostUserIds: hostIds,
          notes: notes === undefined ? b.notes : notes,
          sequence: seen ? b.sequence + 1 : b.sequence,
          updatedAt: now,
        })
        .where(eq(bookings.id, b.id))
        .returning()
    )[0]!;
    if (hostIds !== b.hostUserIds) {
      await tx.delete(bookingHosts).where(eq(bookingHosts.bookingId, b.id));
      await insertHosts(tx, row, p!.id, p!.config);
    }
    await writeAudit(tx, a, "bookings.update", b.id, {
      fields,
      ...(hostIds !== b.hostUserIds ? { hostUserIds: [b.hostUserIds, hostIds] } : {}),
    });
    const before = await membersById(tx, ctx.company.id, b.hostUserIds);
    await emitFor(tx, a, bookingUpdated, b.id, {
      ...(await factsOf({ ...deps, db: tx }, row)),
      fields,
      previous: {
        attendee: { name: b.attendeeName, email: b.attendeeEmail },
        hosts: before.map((h) => ({ userId: h.userId, name: h.name, email: h.email })),
      },
    });
    return { ...short(row), sequence: row.sequence, changed: fields };
  });
}

/**
 * bookings_reassign: hands a one-host booking to another host of its page.
 * With `host`, that member (a host of the page, free then: bookings_update's
 * rules); without, the round robin picks among the page's other hosts who
 * are free at the booking's time (working hours, bookings, calendars), the
 * least recently booked on the page first. The choice is made before the
 * handover's transaction, which checks again under the hosts' lock: when
 * another booking took the chosen host meanwhile, the choice is made again
 * (twice at most), so two racing calls never give one host two meetings.
 * The attendee is emailed the new host with the updated invite
 * (booking.updated), and hosts' CalDAV calendars follow (caldav.ts).
 */
export async function reassignBooking(ctx: ActorContext, input: { id?: number; uid?: string; host?: number | string }) {
  authorize(ctx, "bookings:write", { write: true });
  if (input.host !== undefined) return await updateBooking(ctx, { id: input.id, uid: input.uid, host: input.host });
  const deps = ctx.deps;
  for (let attempt = 1; ; attempt++) {
    const now = deps.clock.now();
    const b = await bookingByRef(deps.db, ctx.company.id, input);
    if (!HOLDS_SLOT.includes(b.status))
      throw conflict(`This booking is ${b.status}; only a pending or accepted booking can be handed over.`);
    if (b.startsAt <= now) throw conflict("This booking has already started; its host can no longer be changed.");
    const p = await liveConfig(deps.db, b);
    if (!p) throw conflict("The booking page of this booking was deleted, so it has no hosts to hand this booking to.");
    if (b.hostUserIds.length > 1)
      throw conflict(
        `This booking is with all of page "${p.title}"'s hosts together; one of them cannot be handed over.`,
        { path: "host" },
      );
    const others = p.config.hostUserIds.filter((h) => !b.hostUserIds.includes(h));
    if (others.length === 0)
      throw conflict(
        `Page "${p.title}" has no other host to hand this booking to; add hosts to the page (booking_pages_update) or name one with host.`,
        { path: "host" },
      );
    const start = b.startsAt.getTime();
    const { slots } = await pageSlots(
      deps.db,
      ctx.company.id,
      {
        id: p.id,
        config: { ...p.config, hostUserIds: others, hostMode: "round_robin", minNotice: 0, maxAdvanceDays: null },
      },
      {
        from: start,
        to: start + 1,
        now: now.getTime(),
        durationMin: b.durationMin,
        excludeBookingId: b.id,
        calendars: await loadCalendars(deps, ctx.company.id, others),
      },
    );
    const slot = slots.find((x) => x.start === start);
    if (!slot)
      throw conflict(
        `None of page "${p.title}"'s other hosts is free at ${iso(b.startsAt)} (working hours, time off, calendars, other bookings); reschedule first, or name a host.`,
        { path: "host" },
      );
    const next = await pickRoundRobin(deps.db, p.id, slot.hostUserIds);
    try {
      return await updateBooking(ctx, { id: b.id, host: next });
    } catch (e) {
      // Taken by a booking that committed after the choice: choose again.
      if (attempt >= 3 || !isAppError(e) || e.code !== "conflict") throw e;
    }
  }
}

export async function markNoShow(
  ctx: ActorContext,
  input: { id?: number; uid?: string; noShow: "attendee" | "host" | null },
) {
  authorize(ctx, "bookings:write", { write: true });
  const a = actorOf(ctx);
  return await ctx.deps.db.transaction(async (tx) => {
    const now = ctx.deps.clock.now();
    const b = await bookingByRef(tx, ctx.company.id, input);
    if (b.status !== "accepted")
      throw conflict(`This booking is ${b.status}; only an accepted booking can have a no-show.`);
    if (b.startsAt > now)
      throw conflict(`This booking starts at ${iso(b.startsAt)}; a no-show can be marked once it has started.`);
    const row = (
      await tx.update(bookings).set({ noShow: input.noShow, updatedAt: now }).where(eq(bookings.id, b.id)).returning()
    )[0]!;
    await writeAudit(tx, a, "bookings.no_show", b.id, { noShow: input.noShow });
    await emitFor(tx, a, bookingNoShowMarked, b.id, {
      uid: b.uid,
      pageSlug: b.pageSlug,
      startsAt: iso(b.startsAt)!,
      attendee: { name: b.attendeeName, email: b.attendeeEmail },
      noShow: input.noShow,
    });
    return { id: row.id, uid: row.uid, status: row.status, noShow: row.noShow };
  });
}

/** Bookings still waiting for a host's confirmation that have started by `now`: what expireUnconfirmed closes. */
const unconfirmedStarted = (now: Date) => and(eq(bookings.status, "pending"), lte(bookings.startsAt, now));

/**
 * The job: bookings that needed confirmation and reached their start
 * unconfirmed are closed as expired. Works from the database ("pending and
 * started by now"), so a server that was down catches up, and a second run
 * finds nothing.
 */
export async function expireUnconfirmed(deps: Deps): Promise<number> {
  const now = deps.clock.now();
  const due = await deps.db
    .select()
    .from(bookings)
    .where(unconfirmedStarted(now))
    .orderBy(asc(bookings.startsAt))
    .limit(500);
  for (const b of due) {
    await deps.db.transaction(async (tx) => {
      const row = (
        await tx
          .update(bookings)
          .set({ status: "expired", cancelledBy: "system", cancelledAt: now, sequence: b.sequence + 1, updatedAt: now })
          .where(and(eq(bookings.id, b.id), eq(bookings.status, "pending")))
          .returning()
      )[0];
      if (!row) return;
      await releaseSlot(tx, b.id);
      await writeAudit(tx, { deps, companyId: b.companyId, ctx: null }, "bookings.expire", b.id, {}, "system");
      await emit(tx, { deps, company: { id: b.companyId } }, bookingExpired, { id: b.id }, await factsOf(deps, row));
    });
  }
  return due.length;
}

export const expireJob: JobDef = {
  name: "bookings.expire_unconfirmed",
  description: "Closes bookings that needed a host's confirmation and reached their start without it.",
  everyMs: 60_000,
  pending: (deps) =>
    anyRow(deps.db.select({ id: bookings.id }).from(bookings).where(unconfirmedStarted(deps.clock.now())).limit(1)),
  run: async (deps) => {
    await expireUnconfirmed(deps);
  },
};
