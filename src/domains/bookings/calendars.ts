/**
 * Members' connected calendars (calendars_connect, _list, _disconnect,
 * _check): an ICS feed a member's calendar app publishes (read only), or a
 * CalDAV account (caldav.ts: read, and bookings written to the calendar the
 * member chose), whose events make the member busy on every page they host
 * (calendar-busy.ts). A CalDAV password is sealed and never shown again.
 *
 * A connection is read once when it is made and refused when that read
 * fails, so a mistyped or private feed address is said at once rather than
 * found later as a host who never has time. Feed addresses often carry a
 * secret of their own (a "private address" in Google Calendar, iCloud's
 * shared link), so lists show the host and the start of the path only.
 * Anyone with bookings:write may connect a calendar for a member, as they
 * may set that member's schedule; the default member is the caller.
 */
import { and, asc, desc, eq } from "drizzle-orm";
import { audit } from "../../core/audit";
import { iso } from "../../core/clock";
import type { ActorContext, Deps } from "../../core/context";
import { conflict, invalid, notFound } from "../../core/errors";
import { authorize } from "../../core/scopes";
import type { IntegrationItem, IntegrationSource } from "../../mcp/define";
import { checkTargetUrl } from "../automations/outbound";
import { forgetCalendar, parseBusy, readCalendar } from "./calendar-busy";
import {
  type CalendarRow,
  discoverCalendars,
  FeedError,
  type FoundCalendar,
  guardedGet,
  sealPassword,
} from "./calendar-fetch";
import { resolveMember } from "./schedules";
import { bookingCalendars } from "./tables";

/** Calendars a member may connect: enough for work, home and a team calendar or two. */
export const MAX_CALENDARS_PER_MEMBER = 10;

/** A feed address shown without most of its path, which may be a secret. */
export function urlHint(url: string): string {
  try {
    const u = new URL(url);
    const path = u.pathname.length > 12 ? `${u.pathname.slice(0, 12)}…` : u.pathname;
    return `${u.protocol}//${u.host}${path}`;
  } catch {
    return "(invalid address)";
  }
}

function calendarOut(c: CalendarRow) {
  const failing = !!c.lastError && (!c.lastOkAt || (c.lastErrorAt?.getTime() ?? 0) >= c.lastOkAt.getTime());
  return {
    id: c.id,
    userId: c.userId,
    kind: c.kind,
    name: c.name,
    url: c.kind === "caldav" ? c.url : urlHint(c.url),
    ...(c.kind === "caldav" ? { username: c.username, writeCalendar: c.writeUrl } : {}),
    status: failing ? "failing" : "ok",
    lastSyncAt: c.lastSyncAt ? iso(c.lastSyncAt) : null,
    lastOkAt: c.lastOkAt ? iso(c.lastOkAt) : null,
    lastError: failing ? c.lastError : null,
    connectedAt: iso(c.createdAt),
  };
}

async function calendarById(deps: Deps, companyId: number, id: number): Promise<CalendarRow> {
  const row = (
    await deps.db
      .select()
      .from(bookingCalendars)
      .where(and(eq(bookingCalendars.id, id), eq(bookingCalendars.companyId, companyId)))
      .limit(1)
  )[0];
  if (!row) throw notFound(`Calendar ${id} not found; calendars_list shows this company's calendars.`);
  return row;
}

export async function connectCalendar(
  ctx: ActorContext,
  input: {
    member?: number | string;
    kind: "ics" | "caldav";
    url: string;
    name?: string;
    username?: string;
    password?: string;
    writeCalendar?: string;
  },
) {
  authorize(ctx, "bookings:write", { write: true });
  const deps = ctx.deps;
  const raw = input.url.trim().replace(/^webcals?:\/\//i, "https://");
  const url = checkTargetUrl(deps, raw, "url");
  const caldav = input.kind === "caldav";
  if (caldav && (!input.username || !input.password))
    throw invalid("A CalDAV account needs username and password (an app password where the service has them).", {
      path: input.username ? "password" : "username",
    });
  if (!caldav && (input.username || input.password || input.writeCalendar))
    throw invalid("An ICS feed is read as it is: username, password and writeCalendar are for kind caldav.", {
      path: input.username ? "username" : input.password ? "password" : "writeCalendar",
    });
  const m = await resolveMember(deps.db, ctx.company, input.member ?? ctx.principal.userId);
  const mine = await deps.db
    .select({ id: bookingCalendars.id, url: bookingCalendars.url })
    .from(bookingCalendars)
    .where(and(eq(bookingCalendars.companyId, ctx.company.id), eq(bookingCalendars.userId, m.userId)));
  if (mine.some((c) => c.url === url))
    throw conflict(`${m.name ?? m.email} already has this calendar connected.`, { path: "url" });
  if (mine.length >= MAX_CALENDARS_PER_MEMBER)
    throw conflict(`${m.name ?? m.email} has ${MAX_CALENDARS_PER_MEMBER} calendars connected; disconnect one first.`);
  const now = deps.clock.now();
  const cant = (e: unknown) => {
    if (e instanceof FeedError)
      return invalid(`Could not read the calendar at ${urlHint(url)}: ${e.message}.`, { path: "url" });
    return e;
  };
  // Read it once before keeping it: a calendar that cannot be read is refused with the reason.
  let writeUrl: string | null = null;
  let calendars: FoundCalendar[] = [];
  try {
    if (caldav) {
      calendars = await discoverCalendars(deps, url, input.username!, input.password!);
      if (calendars.length === 0) throw new FeedError("the account has no calendar for events");
    } else await parseBusy(await guardedGet(deps, url), now.getTime(), now.getTime() + 1);
  } catch (e) {
    throw cant(e);
  }
  if (caldav) {
    const want = input.writeCalendar?.trim();
    const chosen = want
      ? calendars.find((c) => c.url === want || c.name === want || c.url.replace(/\/$/, "").endsWith(`/${want}`))
      : calendars[0];
    if (!chosen)
      throw invalid(
        `writeCalendar "${want!.slice(0, 100)}" is not one of the account's calendars: ${calendars.map((c) => `"${c.name}"`).join(", ")}.`,
        { path: "writeCalendar" },
      );
    writeUrl = chosen.url;
  }
  const row = await deps.db.transaction(async (tx) => {
    const r = (
      await tx
        .insert(bookingCalendars)
        .values({
          companyId: ctx.company.id,
          userId: m.userId,
          kind: input.kind,
          name: (input.name?.trim() || new URL(url).hostname).slice(0, 200),
          url,
          username: caldav ? input.username! : null,
          secret: null,
          writeUrl,
          createdAt: now,
          updatedAt: now,
        })
        .returning()
    )[0]!;
    if (!caldav) return r;
    // The id is part of the sealing context, so the row is written first and the password sealed under its id.
    const secret = sealPassword(deps, r.id, input.password!);
    await tx.update(bookingCalendars).set({ secret }).where(eq(bookingCalendars.id, r.id));
    return { ...r, secret };
  });
  await audit(deps.db, ctx, "calendars.connect", {
    type: "booking_calendar",
    id: row.id,
    detail: { userId: m.userId, kind: row.kind, host: new URL(url).host },
  });
  const entry = await readCalendar(deps, row);
  const fresh = await calendarById(deps, ctx.company.id, row.id);
  return {
    ...calendarOut(fresh),
    busyTimes: entry.fixed.length / 2 + entry.floating.length / 2,
    ...(caldav ? { calendars: calendars.map((c) => c.name) } : {}),
  };
}

export async function listCalendars(ctx: ActorContext, input: { member?: number | string }) {
  authorize(ctx, "bookings:read", { write: false });
  const deps = ctx.deps;
  const m = input.member !== undefined ? await resolveMember(deps.db, ctx.company, input.member) : null;
  const rows = await deps.db
    .select()
    .from(bookingCalendars)
    .where(and(eq(bookingCalendars.companyId, ctx.company.id), m ? eq(bookingCalendars.userId, m.userId) : undefined))
    .orderBy(asc(bookingCalendars.userId), asc(bookingCalendars.id));
  return { items: rows.map(calendarOut) };
}

export async function disconnectCalendar(ctx: ActorContext, input: { id: number }) {
  authorize(ctx, "bookings:write", { write: true });
  const deps = ctx.deps;
  const row = await calendarById(deps, ctx.company.id, input.id);
  await deps.db.delete(bookingCalendars).where(eq(bookingCalendars.id, row.id));
  forgetCalendar(row);
  await audit(deps.db, ctx, "calendars.disconnect", {
    type: "booking_calendar",
    id: row.id,
    detail: { userId: row.userId, kind: row.kind },
  });
  return { id: row.id, disconnected: true };
}

/** Reads a calendar now, whatever the cache holds, and says what came of it. */
export async function checkCalendar(ctx: ActorContext, input: { id: number }) {
  authorize(ctx, "bookings:read", { write: false });
  const deps = ctx.deps;
  const row = await calendarById(deps, ctx.company.id, input.id);
  const entry = await readCalendar(deps, row);
  const fresh = await calendarById(deps, ctx.company.id, row.id);
  return {
    ...calendarOut(fresh),
    ok: entry.ok,
    busyTimes: entry.ok ? entry.fixed.length / 2 + entry.floating.length / 2 : null,
    ...(entry.ok ? {} : { error: entry.error }),
  };
}

/** Connected calendars in integrations_list, failing ones with their error (a host whose calendar fails offers no time). */
export const calendarIntegrations: IntegrationSource = {
  kind: "booking_calendar",
  title: "Calendar (bookings)",
  async list(deps, companyId) {
    const rows = await deps.db
      .select()
      .from(bookingCalendars)
      .where(eq(bookingCalendars.companyId, companyId))
      .orderBy(desc(bookingCalendars.id));
    return rows.map((c): IntegrationItem => {
      const o = calendarOut(c);
      return {
        ref: String(c.id),
        name: `${c.name} (${c.kind})`,
        status: o.status === "failing" ? "failing" : "active",
        connectedAt: c.createdAt,
        revocable: true,
        health: { lastSuccessAt: c.lastOkAt, lastErrorAt: c.lastErrorAt, lastError: c.lastError, expiresAt: null },
        detail: { userId: c.userId, kind: c.kind, url: o.url },
      };
    });
  },
  async revoke(ctx, ref) {
    const id = Number(ref);
    if (!Number.isSafeInteger(id) || id <= 0) throw notFound(`Calendar ${ref} not found.`);
    const row = await calendarById(ctx.deps, ctx.company.id, id);
    await ctx.deps.db.delete(bookingCalendars).where(eq(bookingCalendars.id, row.id));
    forgetCalendar(row);
    return { effect: "disconnected" };
  },
};
