/**
 * The public booking page, /b/<slug>, for visitors without an account.
 *
 *   GET  /b/<slug>                     free times of a week in the visitor's zone
 *        ?tz=Europe/Paris&week=2026-03-23&duration=30[&reschedule=<uid>]
 *        ?month=2027-03                     jumps to the week holding that month's 1st
 *   GET  /b/<slug>/book?start=…        the form for one time (name, email, questions)
 *   POST /b/<slug>/book                books it (or moves a booking: reschedule=<uid>)
 *   GET  /b/<slug>/booking/<uid>       the attendee's page: details, invite, reschedule, cancel
 *   GET  /b/<slug>/booking/<uid>/invite.ics
 *   POST /b/<slug>/booking/<uid>/cancel
 *
 * Weeks run Monday to Sunday (ISO), or Sunday to Saturday when the
 * visitor's first Accept-Language locale starts its weeks on Sunday (en-US,
 * ja, pt-BR…); a `week` date shows the week holding it. A month picker (a
 * GET form) reaches any month of the page's booking horizon in one step.
 *
 * Works without JavaScript: the zone is a select in a GET form. When
 * scripts run, a small nonce'd script fills in the browser's zone on the
 * first visit and submits the select on change. Form posts are checked for
 * origin and a double-submit token, carry a honeypot, and are rate limited
 * per address. Everything a visitor or an agent wrote is escaped.
 *
 * The week listing is served from memory: the bytes are cached per (slug,
 * zone, week, length, week start, minute), dropped as soon as any table they are made
 * from changes (src/core/changes.ts; another instance's writes included),
 * and the per-response nonce is put into the cached bytes at the one place
 * it goes. The minute in the key lets slots leave the list as their notice
 * runs out.
 */
import { eq } from "drizzle-orm";
import { Hono, type Context } from "hono";
import { BoundedMap } from "../../core/bounded-map";
import type { Deps } from "../../core/context";
import { isAppError } from "../../core/errors";
import { rateLimiter } from "../../core/limits";
import { BUDGET, partsBytes, stringBytes } from "../../core/memory-budget";
import {
  clientAddress,
  csrfMatches,
  csrfToken,
  escapeHtml,
  HONEYPOT_FIELD,
  honeypotFilled,
  honeypotHtml,
  newNonce,
  publicPage,
  readForm,
  sameOrigin,
  securityHeaders,
} from "../../core/public-page";
import type { Slot } from "./availability";
import { pageSlots } from "./availability-load";
import { loadCalendars } from "./calendar-busy";
import { book, bookingByUid, cancel, inviteOf, reschedule, type Actor, type BookingRow } from "./bookings";
import type { PageConfig } from "./config";
import type { PageRow } from "./pages";
import {
  CSS,
  detailsHtml,
  durationText,
  formFieldsHtml,
  monthLabel,
  PAGE_CSS,
  slotsHtml,
  weekLabel,
  whenLabel,
} from "./render";
import { membersById, type Member } from "./schedules";
import { bookingPages } from "./tables";
import {
  allTimeZones,
  canonicalZone,
  DAY,
  instantToLocal,
  isTimeZone,
  localToInstant,
  MINUTE,
  plainDate,
} from "./zoned";

const CSRF_COOKIE = "bk_csrf";
const NONCE_MARK = "\u0001NONCE\u0001";
const MAX_FORM = 32 * 1024;
const WATCHED = [
  "booking_pages",
  "booking_calendars",
  "booking_schedules",
  "booking_time_off",
  "booking_hosts",
  "bookings",
  "memberships",
  "users",
];

// Built once; an option's text is its value (no value attribute), which halves the list's bytes.
const ZONE_OPTIONS = allTimeZones()
  .map((z) => `<option>${z}</option>`)
  .join("");

/** The script: the browser's zone on a first visit (no tz in the URL), and the select submitting itself. */
// Only on the listing's own address: a listing shown as the answer to a form post (a taken time) stays put.
const SCRIPT = `(function(){try{var u=new URL(location.href);var z=Intl.DateTimeFormat().resolvedOptions().timeZone;
if(u.pathname.split("/").length===3&&!u.searchParams.has("tz")&&z&&[].some.call(document.getElementById("tz").options,function(o){return o.value===z;})){u.searchParams.set("tz",z);location.replace(u.toString());return;}
var s=document.getElementById("tz");if(s)s.addEventListener("change",function(){s.form.submit();});}catch(e){}})();`;

function send(c: Context, status: number, html: string, o: { script?: boolean; nonce: string; cache?: string }) {
  securityHeaders(c, o.nonce, { script: o.script, cacheControl: o.cache });
  c.header("X-Robots-Tag", "noindex");
  return c.html(html, status as 200);
}

function page(c: Context, status: number, title: string, body: string, o: { script?: boolean } = {}) {
  const nonce = newNonce();
  return send(
    c,
    status,
    publicPage({
      title,
      nonce,
      css: CSS + PAGE_CSS,
      body: `<main class="bk">${body}</main>`,
      script: o.script ? SCRIPT : undefined,
    }),
    { nonce, script: o.script },
  );
}

const notFoundPage = (c: Context) =>
  page(
    c,
    404,
    "Not found",
    "<h1>This booking page is not available</h1><p>The address may be wrong, or the page is not open for bookings.</p>",
  );

async function livePage(deps: Deps, slug: string): Promise<PageRow | null> {
  if (!/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(slug) || slug.length > 120) return null;
  const p = (await deps.db.select().from(bookingPages).where(eq(bookingPages.slug, slug)).limit(1))[0];
  return p && (p.status === "live" || p.status === "paused") ? p : null;
}

/** 1 (Monday, ISO) or 7 (Sunday): the first day of a listed week. */
type WeekStart = 1 | 7;

/**
 * The week start the visitor expects, from their first Accept-Language tag:
 * Sunday where that locale's weeks start on Sunday, else Monday. Other
 * first days (Saturday) fall back to the ISO Monday.
 */
function weekStartOf(c: Context): WeekStart {
  const tag = (c.req.header("accept-language") ?? "").split(",")[0]!.split(";")[0]!.trim();
  if (!tag || tag === "*" || tag.length > 35) return 1;
  try {
    const loc = new Intl.Locale(tag) as Intl.Locale & {
      getWeekInfo?: () => { firstDay: number };
      weekInfo?: { firstDay: number };
    };
    return (loc.getWeekInfo?.() ?? loc.weekInfo)?.firstDay === 7 ? 7 : 1;
  } catch {
    return 1;
  }
}

/** The first day of the week holding `date`. */
function weekOf(date: string, start: WeekStart): string {
  const d = plainDate(date);
  return d.subtract({ days: (d.dayOfWeek - start + 7) % 7 }).toString();
}

interface ListParams {
  tz: string;
  /** The first day of the listed week (a Monday or a Sunday, by weekStart). */
  week: string;
  weekStart: WeekStart;
  duration: number;
  reschedule: string | null;
}

/** The last day a visitor may book, in their zone (null: no limit). */
const lastDayOf = (cfg: PageConfig, now: number, tz: string) =>
  cfg.maxAdvanceDays === null ? null : instantToLocal(now + cfg.maxAdvanceDays * DAY, tz).date;

function paramsOf(c: Context, cfg: PageConfig, now: number): ListParams {
  const tzq = c.req.query("tz") ?? "";
  const tz = isTimeZone(tzq) ? canonicalZone(tzq) : cfg.timeZone;
  const today = instantToLocal(now, tz).date;
  const mq = c.req.query("month") ?? "";
  // A month from the picker stands for its 1st (its week); a month already begun, for today.
  const wq = /^\d{4}-(0[1-9]|1[0-2])$/.test(mq) ? `${mq}-01` : (c.req.query("week") ?? "");
  let week = today;
  if (/^\d{4}-\d{2}-\d{2}$/.test(wq)) {
    try {
      const d = Temporal.PlainDate.from(wq, { overflow: "reject" }).toString();
      const limit = lastDayOf(cfg, now, tz) ?? "9999-12-31";
      week = d < today ? today : d > limit ? limit : d;
    } catch {
      /* today */
    }
  }
  const dq = Number(c.req.query("duration"));
  const duration = cfg.durations.includes(dq) ? dq : cfg.durations[0]!;
  const rq = c.req.query("reschedule") ?? "";
  const weekStart = weekStartOf(c);
  return { tz, week: weekOf(week, weekStart), weekStart, duration, reschedule: /^[0-9a-f]{32}$/.test(rq) ? rq : null };
}

function qs(o: Record<string, string | number | null | undefined>): string {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(o)) if (v !== null && v !== undefined && v !== "") u.set(k, String(v));
  return u.toString();
}

function zoneSelect(tz: string): string {
  // One option list, built once; the current zone is marked per page.
  // tz passed isTimeZone (letters, digits, _ + - /), so it is safe in markup; an alias the list lacks (US/Eastern) is added.
  const own = `<option>${tz}</option>`;
  const list = ZONE_OPTIONS.includes(own)
    ? ZONE_OPTIONS.replace(own, `<option selected>${tz}</option>`)
    : `<option selected>${tz}</option>${ZONE_OPTIONS}`;
  return `<select id="tz" name="tz">${list}</select>`;
}

/**
 * The month picker: every month from this one to the last bookable day's
 * (a year ahead when the page sets no limit), the listed week's marked.
 */
function monthForm(
  base: string,
  q: ListParams,
  today: string,
  lastDay: string | null,
  keep: Record<string, string>,
): string {
  const first = plainDate(today).toPlainYearMonth();
  const last = lastDay === null ? first.add({ months: 11 }) : plainDate(lastDay).toPlainYearMonth();
  if (Temporal.PlainYearMonth.compare(first, last) === 0) return "";
  // The month most of the listed week is in (its Thursday's, or Wednesday's for a Sunday start), not before today's.
  const mid = plainDate(q.week).add({ days: 3 }).toPlainYearMonth();
  const shown = Temporal.PlainYearMonth.compare(mid, first) < 0 ? first : mid;
  const options: string[] = [];
  for (let m = first; Temporal.PlainYearMonth.compare(m, last) <= 0; m = m.add({ months: 1 })) {
    const v = m.toString();
    options.push(`<option value="${v}"${m.equals(shown) ? " selected" : ""}>${escapeHtml(monthLabel(v))}</option>`);
  }
  const hidden = Object.entries(keep)
    .map(([k, v]) => `<input type="hidden" name="${k}" value="${escapeHtml(v)}">`)
    .join("");
  return `<form method="get" action="${escapeHtml(base)}" class="bk-month"><label for="bk-month">Jump to month</label><div class="bk-row"><select id="bk-month" name="month">${options.join("")}</select>${hidden}<button type="submit" class="bk-secondary">Go</button></div></form>`;
}

/** The week listing's body (everything escaped), for a live page. */
async function listingBody(
  deps: Deps,
  p: PageRow,
  hosts: Member[],
  q: ListParams,
  now: number,
  note: string | null,
  rescheduling: BookingRow | null,
): Promise<string> {
  const cfg = p.config;
  const first = plainDate(q.week);
  const from = localToInstant(first, 0, q.tz, "boundary")!;
  const to = localToInstant(first.add({ days: 7 }), 0, q.tz, "boundary")!;
  const { slots } =
    p.status === "live"
      ? await pageSlots(deps.db, p.companyId, p, {
          from,
          to,
          now,
          durationMin: q.duration,
          excludeBookingId: rescheduling?.id,
          calendars: await loadCalendars(deps, p.companyId, cfg.hostUserIds),
        })
      : { slots: [] as Slot[] };
  const days = Array.from({ length: 7 }, (_, i) => first.add({ days: i }).toString());
  const base = `/b/${p.slug}`;
  const keep = { tz: q.tz, duration: q.duration, reschedule: q.reschedule };
  const href = (s: Slot) => `${base}/book?${qs({ start: new Date(s.start).toISOString(), ...keep })}`;
  const prev = first.subtract({ days: 7 }).toString();
  const today = instantToLocal(now, q.tz).date;
  const next = first.add({ days: 7 }).toString();
  const lastDay = lastDayOf(cfg, now, q.tz);
  const nav = `<nav class="bk-nav" aria-label="Weeks">${q.week > today ? `<a class="bk-button bk-secondary" href="${escapeHtml(`${base}?${qs({ ...keep, week: prev })}`)}">← Earlier</a>` : "<span></span>"}${
    lastDay === null || next <= lastDay
      ? `<a class="bk-button bk-secondary" href="${escapeHtml(`${base}?${qs({ ...keep, week: next })}`)}">Later →</a>`
      : "<span></span>"
  }</nav>`;
  const picker = monthForm(base, q, today, lastDay, {
    tz: q.tz,
    ...(q.duration !== cfg.durations[0] ? { duration: String(q.duration) } : {}),
    ...(q.reschedule ? { reschedule: q.reschedule } : {}),
  });
  const durations =
    cfg.durations.length > 1
      ? `<p>Length: ${cfg.durations
          .map((d) =>
            d === q.duration
              ? `<strong>${durationText(d)}</strong>`
              : `<a href="${escapeHtml(`${base}?${qs({ ...keep, duration: d, week: q.week })}`)}">${durationText(d)}</a>`,
          )
          .join(" · ")}</p>`
      : "";
  const tzForm = `<form method="get" action="${escapeHtml(base)}" class="bk-tz"><label for="tz">Your time zone</label><div class="bk-row">${zoneSelect(q.tz)}${
    q.duration !== cfg.durations[0] ? `<input type="hidden" name="duration" value="${q.duration}">` : ""
  }${q.reschedule ? `<input type="hidden" name="reschedule" value="${q.reschedule}">` : ""}<input type="hidden" name="week" value="${escapeHtml(q.week)}"><button type="submit" class="bk-secondary">Show times</button></div></form>`;
  const paused = p.status === "paused" ? `<p class="bk-error">This page is not taking bookings at the moment.</p>` : "";
  const resch = rescheduling
    ? `<p class="bk-ok">Choose a new time for your booking of ${escapeHtml(whenLabel(rescheduling.startsAt.getTime(), q.tz))}.</p>`
    : "";
  return `${detailsHtml(cfg, hosts)}${note ? `<p class="bk-error" role="alert">${escapeHtml(note)}</p>` : ""}${paused}${resch}<div class="bk-controls">${tzForm}${picker}</div>${durations}<h2>Free times, week of <time datetime="${escapeHtml(q.week)}">${escapeHtml(weekLabel(q.week))}</time></h2>${slotsHtml(slots, q.tz, href, days)}${nav}`;
}

export function bookingPublicRoutes(deps: Deps): Hono {
  const app = new Hono();
  const posts = rateLimiter(deps, "bookings-public-post", 30);
  const reads = rateLimiter(deps, "bookings-public-read", 240);
  const watch = deps.store.changes.watch(WATCHED);
  /** Encoded page bytes split where the nonce goes: a hit copies bytes, it encodes no text. */
  const cache = new BoundedMap<string, Uint8Array[]>({
    maxBytes: BUDGET.bookingPages,
    sizeOf: (key, parts) => stringBytes(key) + partsBytes(parts),
  });
  const enc = new TextEncoder();
  const joinNonce = (parts: Uint8Array[], nonce: string) => {
    const n = enc.encode(nonce);
    let len = n.length * (parts.length - 1);
    for (const p of parts) len += p.length;
    const out = new Uint8Array(len);
    let at = 0;
    parts.forEach((p, i) => {
      if (i > 0) {
        out.set(n, at);
        at += n.length;
      }
      out.set(p, at);
      at += p.length;
    });
    return out;
  };

  const limited = async (c: Context, l: typeof posts) => {
    const d = await l.take(`addr:${clientAddress(c)}`);
    if (d.allowed) return null;
    c.header("Retry-After", String(d.retryAfterSec));
    return page(c, 429, "Too many requests", "<h1>Too many requests</h1><p>Please wait a minute and try again.</p>");
  };

  const visitor = (p: PageRow): Actor => ({ deps, companyId: p.companyId, ctx: null });

  async function renderListing(
    c: Context,
    p: PageRow,
    q: ListParams,
    status: number,
    note: string | null,
    rescheduling: BookingRow | null,
  ) {
    const now = deps.clock.now().getTime();
    const hosts = await membersById(deps.db, p.companyId, p.config.hostUserIds);
    const body = await listingBody(deps, p, hosts, q, now, note, rescheduling);
    return page(c, status, p.config.title, body, { script: true });
  }

  app.get("/:slug", async (c) => {
    const slug = c.req.param("slug");
    const now = deps.clock.now().getTime();
    const minute = Math.floor(now / MINUTE);
    // The cache key is made from the raw query (bounded), so a hit reads no row.
    const raw = new URL(c.req.url).search;
    if (watch.changed()) cache.clear();
    const key = raw.length <= 300 && !raw.includes("reschedule") ? `${slug}|${raw}|${weekStartOf(c)}|${minute}` : null;
    const hit = key ? cache.get(key) : undefined;
    if (hit) {
      const nonce = newNonce();
      securityHeaders(c, nonce, { script: true });
      c.header("X-Robots-Tag", "noindex");
      c.header("Content-Type", "text/html; charset=UTF-8");
      return c.body(joinNonce(hit, nonce));
    }
    const blocked = await limited(c, reads);
    if (blocked) return blocked;
    const p = await livePage(deps, slug);
    if (!p) return notFoundPage(c);
    const q = paramsOf(c, p.config, now);
    let rescheduling: BookingRow | null = null;
    if (q.reschedule) {
      const b = await bookingByUid(deps.db, q.reschedule);
      if (b && b.pageId === p.id && (b.status === "pending" || b.status === "accepted")) rescheduling = b;
      else q.reschedule = null;
    }
    const hosts = await membersById(deps.db, p.companyId, p.config.hostUserIds);
    const body = await listingBody(deps, p, hosts, q, now, null, rescheduling);
    const html = publicPage({
      title: p.config.title,
      nonce: NONCE_MARK,
      css: CSS + PAGE_CSS,
      body: `<main class="bk">${body}</main>`,
      script: SCRIPT,
    });
    if (key && !rescheduling) {
      cache.set(
        key,
        html.split(NONCE_MARK).map((part) => enc.encode(part)),
      );
    }
    const nonce = newNonce();
    return send(c, 200, html.split(NONCE_MARK).join(nonce), { nonce, script: true });
  });

  function formPage(
    c: Context,
    p: PageRow,
    q: ListParams,
    start: number,
    values: Record<string, string>,
    error: string | null,
    status: number,
    rescheduling: BookingRow | null,
  ) {
    const csrf = csrfToken(c, deps, CSRF_COOKIE, "/b/");
    const cfg = p.config;
    const hidden = { start: new Date(start).toISOString(), tz: q.tz, duration: q.duration, reschedule: q.reschedule };
    // The same fields the approval page previewed.
    const fields = rescheduling
      ? `<p>Moving your booking of ${escapeHtml(whenLabel(rescheduling.startsAt.getTime(), q.tz))} to the time above.</p>`
      : formFieldsHtml(cfg, values);
    const body = `${detailsHtml(cfg, [])}<h2>${escapeHtml(whenLabel(start, q.tz))}</h2><p>${durationText(q.duration)}</p>${
      error ? `<p class="bk-error" role="alert">${escapeHtml(error)}</p>` : ""
    }<form method="post" action="${escapeHtml(`/b/${p.slug}/book`)}" class="bk-form">${Object.entries(hidden)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => `<input type="hidden" name="${k}" value="${escapeHtml(String(v))}">`)
      .join(
        "",
      )}<input type="hidden" name="csrf" value="${csrf}">${honeypotHtml()}${fields}<button type="submit">${rescheduling ? "Move my booking" : cfg.requiresConfirmation ? "Request this time" : "Book this time"}</button> <a class="bk-button bk-secondary" href="${escapeHtml(
      `/b/${p.slug}?${qs({ tz: q.tz, duration: q.duration, reschedule: q.reschedule })}`,
    )}">Other times</a></form>`;
    return page(c, status, cfg.title, body);
  }

  app.get("/:slug/book", async (c) => {
    const blocked = await limited(c, reads);
    if (blocked) return blocked;
    const p = await livePage(deps, c.req.param("slug"));
    if (!p) return notFoundPage(c);
    const now = deps.clock.now().getTime();
    const q = paramsOf(c, p.config, now);
    const start = Date.parse(c.req.query("start") ?? "");
    let rescheduling: BookingRow | null = null;
    if (q.reschedule) {
      const b = await bookingByUid(deps.db, q.reschedule);
      if (b && b.pageId === p.id) rescheduling = b;
      else q.reschedule = null;
    }
    if (!Number.isFinite(start)) return renderListing(c, p, q, 400, "Pick a time from the list.", rescheduling);
    const { slots } =
      p.status === "live"
        ? await pageSlots(deps.db, p.companyId, p, {
            from: start,
            to: start + 1,
            now,
            durationMin: q.duration,
            excludeBookingId: rescheduling?.id,
            calendars: await loadCalendars(deps, p.companyId, p.config.hostUserIds),
          })
        : { slots: [] };
    if (!slots.some((s) => s.start === start))
      return renderListing(c, p, q, 409, "That time is not available any more. Please pick another one.", rescheduling);
    return formPage(c, p, q, start, {}, null, 200, rescheduling);
  });

  app.post("/:slug/book", async (c) => {
    const p = await livePage(deps, c.req.param("slug"));
    if (!p) return notFoundPage(c);
    if (!sameOrigin(c, deps))
      return page(c, 403, "Refused", "<h1>Refused</h1><p>This form must be sent from this site.</p>");
    const blocked = await limited(c, posts);
    if (blocked) return blocked;
    const form = await readForm(c, MAX_FORM);
    if (form === "too_large")
      return page(c, 413, "Too large", "<h1>Too much text</h1><p>Please shorten your answers.</p>");
    if (form === "bad_type") return page(c, 415, "Refused", "<h1>Refused</h1><p>Send the form from the page.</p>");
    if (!csrfMatches(c, CSRF_COOKIE, form))
      return page(
        c,
        403,
        "Refused",
        `<h1>Your session expired</h1><p><a href="/b/${escapeHtml(p.slug)}">Start again</a>.</p>`,
      );
    const now = deps.clock.now().getTime();
    const tzf = form.get("tz") ?? "";
    const tz = isTimeZone(tzf) ? canonicalZone(tzf) : p.config.timeZone;
    const df = Number(form.get("duration"));
    const duration = p.config.durations.includes(df) ? df : p.config.durations[0]!;
    const rf = form.get("reschedule") ?? "";
    const weekStart = weekStartOf(c);
    const q: ListParams = {
      tz,
      week: weekOf(instantToLocal(now, tz).date, weekStart),
      weekStart,
      duration,
      reschedule: /^[0-9a-f]{32}$/.test(rf) ? rf : null,
    };
    const start = Date.parse(form.get("start") ?? "");
    if (!Number.isFinite(start)) return renderListing(c, p, q, 400, "Pick a time from the list.", null);
    // A bot filled the field people never see: nothing is booked, and it is not told why.
    if (honeypotFilled(form))
      return page(c, 400, "Not booked", "<h1>Not booked</h1><p>Please try again from the booking page.</p>");
    const values: Record<string, string> = {};
    for (const [k, v] of form) if (k !== "csrf" && k !== HONEYPOT_FIELD) values[k] = v;
    try {
      if (q.reschedule) {
        const b = await bookingByUid(deps.db, q.reschedule);
        if (!b || b.pageId !== p.id) return notFoundPage(c);
        const row = await reschedule(visitor(p), { uid: b.uid }, { startsAt: new Date(start), durationMin: duration });
        return c.redirect(`/b/${p.slug}/booking/${row.uid}?${qs({ tz, done: "rescheduled" })}`, 303);
      }
      const answers: Record<string, unknown> = {};
      for (const qn of p.config.questions) answers[qn.id] = form.get(`q_${qn.id}`) ?? undefined;
      // Fields the page does not ask are refused like any forged answer.
      for (const k of form.keys())
        if (k.startsWith("q_") && !p.config.questions.some((qn) => `q_${qn.id}` === k))
          answers[k.slice(2)] = form.get(k);
      const row = await book(visitor(p), p.id, {
        startsAt: new Date(start),
        durationMin: duration,
        timeZone: tz,
        name: form.get("name") ?? "",
        email: form.get("email") ?? "",
        answers,
        source: "public",
      });
      return c.redirect(`/b/${p.slug}/booking/${row.uid}?${qs({ tz, done: "booked" })}`, 303);
    } catch (e) {
      if (!isAppError(e)) throw e;
      if (e.code === "conflict" && e.details?.path === "startsAt")
        return renderListing(
          c,
          { ...p },
          q,
          409,
          "Sorry, that time was just taken or is no longer free. Please pick another one.",
          null,
        );
      if (e.code === "validation" || e.code === "conflict") {
        const fresh = await livePage(deps, p.slug);
        if (!fresh) return notFoundPage(c);
        const rescheduling = q.reschedule ? await bookingByUid(deps.db, q.reschedule) : null;
        return formPage(
          c,
          fresh,
          q,
          start,
          values,
          e.message.replace(/^answers\.\w+ /, ""),
          e.code === "conflict" ? 409 : 400,
          rescheduling,
        );
      }
      if (e.code === "not_found") return notFoundPage(c);
      throw e;
    }
  });

  async function bookingOf(c: Context): Promise<{ b: BookingRow; p: PageRow | null } | null> {
    const b = await bookingByUid(deps.db, c.req.param("uid") ?? "");
    if (!b) return null;
    const p =
      b.pageId === null
        ? null
        : ((await deps.db.select().from(bookingPages).where(eq(bookingPages.id, b.pageId)).limit(1))[0] ?? null);
    return { b, p };
  }

  const STATUS_TEXT: Record<string, string> = {
    accepted: "You're booked.",
    pending: "Requested: the host will confirm it. You'll hear back by email.",
    cancelled: "This booking was cancelled.",
    declined: "The host declined this request.",
    expired: "This request was not confirmed in time.",
  };

  app.get("/:slug/booking/:uid", async (c) => {
    const blocked = await limited(c, reads);
    if (blocked) return blocked;
    const found = await bookingOf(c);
    if (!found) return notFoundPage(c);
    const { b, p } = found;
    if (b.pageSlug !== c.req.param("slug") && p?.slug !== c.req.param("slug"))
      return c.redirect(`/b/${p?.slug ?? b.pageSlug}/booking/${b.uid}`, 301);
    const tzq = c.req.query("tz") ?? "";
    const tz = isTimeZone(tzq) ? tzq : b.timeZone;
    const now = deps.clock.now();
    const hosts = await membersById(deps.db, b.companyId, b.hostUserIds);
    const stands = b.status === "pending" || b.status === "accepted";
    const upcoming = stands && b.startsAt > now;
    const cfg = p?.config;
    const left = b.startsAt.getTime() - now.getTime();
    const canCancel = upcoming && (!cfg || left >= cfg.cancelCutoff * MINUTE);
    const canMove = upcoming && !!p && p.status === "live" && left >= (cfg?.rescheduleCutoff ?? 0) * MINUTE;
    const slug = p?.slug ?? b.pageSlug;
    const done = c.req.query("done");
    const csrf = canCancel ? csrfToken(c, deps, CSRF_COOKIE, "/b/") : "";
    const where =
      b.location.kind === "video"
        ? b.location.value && b.status === "accepted"
          ? `Video call: <a href="${escapeHtml(b.location.value)}" rel="noopener noreferrer">${escapeHtml(b.location.value)}</a>`
          : "Video call"
        : escapeHtml(
            b.location.kind === "phone"
              ? `Phone call${b.location.value ? `: ${b.location.value}` : ""}`
              : `In person: ${b.location.value ?? ""}`,
          );
    const body = [
      done === "booked" || done === "rescheduled" || done === "cancelled"
        ? `<p class="bk-ok" role="status">${done === "cancelled" ? "Cancelled." : done === "rescheduled" ? "Your booking was moved." : "Thank you!"}</p>`
        : "",
      `<h1>${escapeHtml(b.pageTitle)}</h1>`,
      `<p><strong>${escapeHtml(STATUS_TEXT[b.status] ?? b.status)}</strong></p>`,
      `<ul class="bk-meta"><li>${escapeHtml(whenLabel(b.startsAt.getTime(), tz))}, ${durationText(b.durationMin)}</li><li>With ${escapeHtml(hosts.map((h) => h.name ?? h.email).join(", ") || "the host")}</li><li>${where}</li><li>For ${escapeHtml(b.attendeeName)} &lt;${escapeHtml(b.attendeeEmail)}&gt;</li></ul>`,
      b.answers.length
        ? `<dl>${b.answers.map((a) => `<dt>${escapeHtml(a.label)}</dt><dd>${escapeHtml(a.value === true ? "Yes" : String(a.value))}</dd>`).join("")}</dl>`
        : "",
      b.reason && !stands ? `<p>Reason: ${escapeHtml(b.reason)}</p>` : "",
      `<p><a class="bk-button" href="/b/${escapeHtml(slug)}/booking/${b.uid}/invite.ics" download="invite.ics">${stands ? "Add to calendar (.ics)" : "Update your calendar (.ics)"}</a>${
        canMove
          ? ` <a class="bk-button bk-secondary" href="${escapeHtml(`/b/${slug}?${qs({ reschedule: b.uid, tz, duration: b.durationMin })}`)}">Reschedule</a>`
          : ""
      }</p>`,
      upcoming && !canMove && p?.status === "live"
        ? `<p class="bk-none">It is too late to reschedule online; please contact the host.</p>`
        : "",
      canCancel
        ? `<form method="post" action="/b/${escapeHtml(slug)}/booking/${b.uid}/cancel" class="bk-form"><input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="tz" value="${escapeHtml(tz)}">${honeypotHtml()}<label for="reason">Cancel this booking (reason, optional)</label><textarea id="reason" name="reason" rows="2" maxlength="1000"></textarea><button type="submit" class="bk-secondary">Cancel booking</button></form>`
        : upcoming
          ? `<p class="bk-none">It is too late to cancel online; please contact the host.</p>`
          : "",
    ].join("");
    return page(c, 200, b.pageTitle, body);
  });

  app.get("/:slug/booking/:uid/invite.ics", async (c) => {
    const blocked = await limited(c, reads);
    if (blocked) return blocked;
    const found = await bookingOf(c);
    if (!found) return notFoundPage(c);
    const ics = await inviteOf(deps, found.b);
    const method = /METHOD:(\w+)/.exec(ics)?.[1] ?? "REQUEST";
    c.header("Content-Type", `text/calendar; charset=utf-8; method=${method}`);
    c.header("Content-Disposition", 'attachment; filename="invite.ics"');
    c.header("Cache-Control", "no-store");
    c.header("X-Content-Type-Options", "nosniff");
    return c.body(ics);
  });

  app.post("/:slug/booking/:uid/cancel", async (c) => {
    const found = await bookingOf(c);
    if (!found) return notFoundPage(c);
    if (!sameOrigin(c, deps))
      return page(c, 403, "Refused", "<h1>Refused</h1><p>This form must be sent from this site.</p>");
    const blocked = await limited(c, posts);
    if (blocked) return blocked;
    const form = await readForm(c, MAX_FORM);
    if (typeof form === "string") return page(c, 400, "Refused", "<h1>Refused</h1><p>Send the form from the page.</p>");
    if (!csrfMatches(c, CSRF_COOKIE, form) || honeypotFilled(form))
      return page(c, 403, "Refused", "<h1>Your session expired</h1><p>Open your booking's page again.</p>");
    const { b } = found;
    const tzf = form.get("tz") ?? "";
    const back = `/b/${found.p?.slug ?? b.pageSlug}/booking/${b.uid}`;
    try {
      await cancel({ deps, companyId: b.companyId, ctx: null }, { uid: b.uid }, { reason: form.get("reason") });
    } catch (e) {
      if (!isAppError(e)) throw e;
      return page(
        c,
        e.code === "validation" ? 400 : 409,
        "Not cancelled",
        `<h1>Not cancelled</h1><p class="bk-error">${escapeHtml(e.message)}</p><p><a href="${escapeHtml(back)}">Back to your booking</a></p>`,
      );
    }
    return c.redirect(`${back}?${qs({ tz: isTimeZone(tzf) ? tzf : null, done: "cancelled" })}`, 303);
  });

  app.notFound((c) => notFoundPage(c));
  return app;
}
