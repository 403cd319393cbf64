/**
 * Reading a connected calendar (calendar-busy.ts turns what is read into
 * busy times): an ICS feed by a plain GET, a CalDAV account through tsdav
 * (discovery, then a calendar-query REPORT per calendar over the range).
 * Every request passes the webhooks' address guard (automations/outbound.ts:
 * no loopback, private, link-local or reserved address unless
 * PLINTH_WEBHOOKS_ALLOW_PRIVATE=1), follows no redirect (a public address
 * must not bounce the request inward), times out, and a feed is read up to
 * MAX_FEED_BYTES. A CalDAV password is sealed under the row's id
 * (src/core/sealed.ts), opened only to make a request, and never put in an
 * error: messages from the server or tsdav are reduced to what they say.
 * tsdav is loaded on first use.
 */
import type { Deps } from "../../core/context";
import { seal, unseal } from "../../core/sealed";
import { refusedTarget } from "../automations/outbound";
import type { bookingCalendars } from "./tables";

const FETCH_TIMEOUT_MS = 8_000;
const TIMEOUT_MS = FETCH_TIMEOUT_MS;
export const MAX_FEED_BYTES = 4 * 1024 * 1024;

export type CalendarRow = typeof bookingCalendars.$inferSelect;

export class FeedError extends Error {}

/** GET through the webhook address guard; the body as text, or a FeedError saying why not. */
export async function guardedGet(deps: Deps, url: string, headers: Record<string, string> = {}): Promise<string> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new FeedError("not a URL");
  }
  const refused = await refusedTarget(deps, u);
  if (refused) throw new FeedError(refused);
  let res: Response;
  try {
    res = await fetch(u, {
      redirect: "manual",
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
      headers: { accept: "text/calendar, */*;q=0.5", "user-agent": "Plinth-Calendars/1", ...headers },
    });
  } catch (e) {
    const msg =
      e instanceof Error
        ? e.name === "TimeoutError"
          ? `timed out after ${FETCH_TIMEOUT_MS / 1000} s`
          : e.message
        : String(e);
    throw new FeedError(msg.slice(0, 300));
  }
  if (res.status >= 300 && res.status < 400) {
    await res.body?.cancel();
    throw new FeedError(`redirect (${res.status}) not followed: give the final address`);
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw new FeedError(`HTTP ${res.status}`);
  }
  const declared = Number(res.headers.get("content-length") ?? 0);
  if (declared > MAX_FEED_BYTES) {
    await res.body?.cancel();
    throw new FeedError(`the feed is larger than ${MAX_FEED_BYTES / 1024 / 1024} MiB`);
  }
  const reader = res.body?.getReader();
  if (!reader) return "";
  const parts: Uint8Array[] = [];
  let n = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    n += value.byteLength;
    if (n > MAX_FEED_BYTES) {
      await reader.cancel();
      throw new FeedError(`the feed is larger than ${MAX_FEED_BYTES / 1024 / 1024} MiB`);
    }
    parts.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(parts));
}

export const sealContext = (id: number) => `booking_calendar:${id}`;
export const sealPassword = (deps: Deps, id: number, password: string) => seal(deps.config, password, sealContext(id));

/** fetch for tsdav and the writes: the address guard before every request, no redirects, a timeout. */
export function guardedFetch(deps: Deps): typeof fetch {
  const f = async (input: string | URL | Request, init?: RequestInit) => {
    const u = new URL(input instanceof Request ? input.url : String(input));
    const refused = await refusedTarget(deps, u);
    if (refused) throw new FeedError(refused);
    const res = await fetch(input, { ...init, redirect: "manual", signal: AbortSignal.timeout(TIMEOUT_MS) });
    if (res.status >= 300 && res.status < 400)
      throw new FeedError(`redirect (${res.status}) not followed: give the final address`);
    return res;
  };
  return f as typeof fetch;
}

type Tsdav = typeof import("tsdav");
let tsdavModule: Promise<Tsdav> | null = null;
const tsdav = () => (tsdavModule ??= import("tsdav"));

/** A message for a failed CalDAV request, without anything the server or tsdav put in it that might echo credentials. */
export function davError(e: unknown): FeedError {
  if (e instanceof FeedError) return e;
  const msg =
    e instanceof Error ? (e.name === "TimeoutError" ? `timed out after ${TIMEOUT_MS / 1000} s` : e.message) : String(e);
  if (/invalid credentials|401/i.test(msg)) return new FeedError("the server refused the username or password (401)");
  return new FeedError(`CalDAV: ${msg.replace(/Basic\s+\S+/gi, "Basic …").slice(0, 200)}`);
}

async function client(deps: Deps, url: string, username: string, password: string) {
  const { createDAVClient } = await tsdav();
  try {
    return await createDAVClient({
      serverUrl: url,
      credentials: { username, password },
      authMethod: "Basic",
      defaultAccountType: "caldav",
      fetch: guardedFetch(deps),
    });
  } catch (e) {
    throw davError(e);
  }
}

export interface FoundCalendar {
  url: string;
  name: string;
}

/** Logs in and lists the account's calendars (those that hold events). */
export async function discoverCalendars(
  deps: Deps,
  url: string,
  username: string,
  password: string,
): Promise<FoundCalendar[]> {
  const c = await client(deps, url, username, password);
  try {
    const cals = await c.fetchCalendars();
    return cals
      .filter((k) => !k.components || k.components.includes("VEVENT"))
      .map((k) => ({ url: k.url, name: typeof k.displayName === "string" ? k.displayName : k.url }));
  } catch (e) {
    throw davError(e);
  }
}

export function passwordOf(deps: Deps, c: CalendarRow): string {
  if (!c.secret) throw new FeedError("no password stored; connect the calendar again");
  return unseal(deps.config, c.secret, sealContext(c.id));
}

/** Every event of the account's calendars over [from, to): one iCalendar text per calendar object. */
export async function readCaldavTexts(deps: Deps, c: CalendarRow, from: number, to: number): Promise<string[]> {
  const dav = await client(deps, c.url, c.username ?? "", passwordOf(deps, c));
  try {
    const out: string[] = [];
    for (const cal of await dav.fetchCalendars()) {
      if (cal.components && !cal.components.includes("VEVENT")) continue;
      const objs = await dav.fetchCalendarObjects({
        calendar: cal,
        timeRange: { start: new Date(from).toISOString(), end: new Date(to).toISOString() },
      });
      for (const o of objs) if (typeof o.data === "string" && o.data) out.push(o.data);
    }
    return out;
  } catch (e) {
    throw davError(e);
  }
}

/** The iCalendar texts of a calendar over [from, to): an ICS feed's body, or a CalDAV account's events. */
export async function readCalendarTexts(deps: Deps, c: CalendarRow, from: number, to: number): Promise<string[]> {
  if (c.kind === "caldav") return await readCaldavTexts(deps, c, from, to);
  return [await guardedGet(deps, c.url)];
}
