/**
 * Bookings in the portal (issue 31): the agenda of upcoming bookings, day
 * by day in the viewer's own time zone, filtered by member and booking
 * page, and one booking with its attendee, answers and place, cancelled
 * with a reason or moved to another free time of its page.
 *
 * Every page reads and every form acts through the same verbs as the MCP
 * tools (listBookings, listPages, getBooking, freeSlots, cancelBooking,
 * rescheduleBooking), called as the signed-in person (actorOf): their
 * role, the company's tenancy, the page's cutoffs and the slot rules are
 * checked exactly where they are for an agent. Moving a booking offers
 * only the times booking_availability_get offers, and the verb takes the
 * chosen one only if it is still free under the hosts' schedule lock, so
 * a time taken meanwhile is a 409 with the reason, never a double booking;
 * the DST rules are the slot computation's own (zoned.ts).
 *
 * Times are shown in the viewer's time zone: their profile's, else their
 * booking schedule's, else UTC, and the page says which. Owners and admins
 * get the forms; viewers read, and a post of theirs is refused by the
 * verb's role check (403) before the form is read. A booking id of another
 * company is "not found" inside the lookup (404). Nothing needs JavaScript.
 */
import { and, asc, eq } from "drizzle-orm";
import type { Context, Hono } from "hono";
import type { Deps } from "../../core/context";
import { invalid, isAppError, notFound } from "../../core/errors";
import { authorize } from "../../core/scopes";
import { memberships, users } from "../../core/tables";
import { StatusBadge, type Tone } from "../../ui/badge";
import { FilterSelect } from "../../ui/filters";
import { answerForm } from "../../ui/form-answer";
import type { Form } from "../../ui/form-data";
import { when } from "../../ui/format";
import { Csrf } from "../../ui/forms";
import { Layout, render } from "../../ui/layout";
import { Notice } from "../../ui/notice";
import { PageHeader } from "../../ui/page-header";
import { Pager, pageNoOf } from "../../ui/pager";
import { actorOf, canManage, type PageEnv, viewerOf } from "../../ui/signed-in";
import { DataTable } from "../../ui/table";
import { profilesOf } from "../profile/verbs";
import { cancelBooking, getBooking, listBookings, reassignBooking, rescheduleBooking } from "./bookings";
import { freeSlots } from "./free-slots";
import { listPages } from "./pages";
import { bookingCalendarPages, CALENDARS_PATH } from "./portal-calendars";
import { dayLabel, durationText, locationText, timeLabel, zoneName } from "./render";
import { schedulesOf } from "./schedules";
import { DAY, isTimeZone } from "./zoned";

export const BOOKINGS_PATH = "/bookings";
const PER_PAGE = 25;
/** How far ahead the reschedule list looks for free times of the booking's page. */
const RESCHEDULE_DAYS = 21;
/** At most this many times in the reschedule list (a page open all day offers hundreds). */
const RESCHEDULE_MAX = 300;
const MAX_REASON = 1000;

type Listed = Awaited<ReturnType<typeof listBookings>>["items"][number];
type Booking = Awaited<ReturnType<typeof getBooking>>;

const bookingHref = (id: number) => `${BOOKINGS_PATH}/${id}`;

function idOf(c: Context<PageEnv>): number {
  const raw = c.req.param("id") ?? "";
  if (!/^[1-9]\d{0,14}$/.test(raw)) throw notFound(`Booking ${raw.slice(0, 20)} not found.`);
  return Number(raw);
}

const STATUS_TONE: Record<string, Tone> = {
  accepted: "ok",
  pending: "warn",
  cancelled: "neutral",
  declined: "neutral",
  expired: "neutral",
};
const STATUS_WORDS: Record<string, string> = {
  accepted: "confirmed",
  pending: "needs confirmation",
  cancelled: "cancelled",
  declined: "declined",
  expired: "expired",
};
const Status = ({ status }: { status: string }) => (
  <StatusBadge tone={STATUS_TONE[status] ?? "neutral"}>{STATUS_WORDS[status] ?? status}</StatusBadge>
);

/** The zone times are shown in: the viewer's profile, else their booking schedule, else UTC. */
async function zoneOf(c: Context<PageEnv>): Promise<{ tz: string; from: string }> {
  const actor = actorOf(c);
  const userId = viewerOf(c).user.id;
  const profile = (await profilesOf(actor.deps, [userId])).get(userId)?.timeZone;
  if (profile && isTimeZone(profile)) return { tz: profile, from: "your profile" };
  const schedule = (await schedulesOf(actor.deps.db, actor.company.id, [userId]))[0]?.timeZone;
  if (schedule && isTimeZone(schedule)) return { tz: schedule, from: "your booking schedule" };
  return { tz: "UTC", from: "no time zone in your profile" };
}

const dayFormat = new Map<string, Intl.DateTimeFormat>();
/** "Tuesday 5 March 2030" in `tz`. */
function dayHeading(ms: number, tz: string): string {
  let f = dayFormat.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat("en-GB", {
      timeZone: tz,
      weekday: "long",
      day: "numeric",
      month: "long",
      year: "numeric",
    });
    if (dayFormat.size > 500) dayFormat.clear();
    dayFormat.set(tz, f);
  }
  return f.format(ms).replace(",", "");
}
const localDay = (ms: number, tz: string) =>
  new Intl.DateTimeFormat("en-CA", { timeZone: tz, year: "numeric", month: "2-digit", day: "2-digit" }).format(ms);
/** "09:00–09:30 CET": a booking's time on the viewer's clock. */
const span = (start: number, end: number, tz: string) =>
  `${timeLabel(start, tz)}–${timeLabel(end, tz)} ${zoneName(start, tz)}`;
/** "Tue 5 Mar 2030, 09:00–09:30 CET". */
const fullSpan = (start: number, end: number, tz: string) => `${dayHeading(start, tz)}, ${span(start, end, tz)}`;

/** Everyone of the active company, for the member filter (a booking's hosts are members). */
async function membersOf(c: Context<PageEnv>) {
  const actor = actorOf(c);
  return actor.deps.db
    .select({ id: users.id, name: users.name, email: users.email })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.companyId, actor.company.id)))
    .orderBy(asc(users.name), asc(users.id));
}

/** Every booking page of the company (the page filter and the titles of the agenda's rows). */
async function pagesOf(c: Context<PageEnv>) {
  const actor = actorOf(c);
  const out: Awaited<ReturnType<typeof listPages>>["items"] = [];
  for (let offset = 0; offset < 2_000; offset += 100) {
    const r = await listPages(actor, { limit: 100, offset });
    out.push(...r.items);
    if (r.items.length < 100) break;
  }
  return out;
}

// ---------------------------------------------------------------------------
// The agenda

interface Filters {
  host: string;
  bookingPage: string;
  when: "upcoming" | "past";
}

/** The agenda's filters from the query string; a value the list does not know is a 400 naming it. */
function filtersOf(c: Context<PageEnv>): Filters {
  const q = (k: string) => (c.req.query(k) ?? "").trim();
  const f = { host: q("host"), bookingPage: q("bookingPage"), when: q("when") || "upcoming" };
  if (f.host && !/^[1-9]\d{0,14}$/.test(f.host)) throw invalid("Member must be a person of the list.");
  if (f.bookingPage && !/^[1-9]\d{0,14}$/.test(f.bookingPage)) throw invalid("Booking page must be one of the list.");
  if (f.when !== "upcoming" && f.when !== "past") throw invalid("Show must be upcoming or past.");
  return f as Filters;
}

function agendaHref(f: Filters, pageNo = 1): string {
  const p = new URLSearchParams();
  if (f.host) p.set("host", f.host);
  if (f.bookingPage) p.set("bookingPage", f.bookingPage);
  if (f.when !== "upcoming") p.set("when", f.when);
  if (pageNo > 1) p.set("page", String(pageNo));
  const s = p.toString();
  return s ? `${BOOKINGS_PATH}?${s}` : BOOKINGS_PATH;
}

/** Rows grouped by the local day of their start, in the order listed. */
function byDay(items: Listed[], tz: string): { day: string; label: string; items: Listed[] }[] {
  const out: { day: string; label: string; items: Listed[] }[] = [];
  for (const b of items) {
    const ms = Date.parse(b.startsAt!);
    const day = localDay(ms, tz);
    const last = out.at(-1);
    if (last?.day === day) last.items.push(b);
    else out.push({ day, label: dayHeading(ms, tz), items: [b] });
  }
  return out;
}

async function agendaPage(c: Context<PageEnv>) {
  const viewer = viewerOf(c);
  const actor = actorOf(c);
  const f = filtersOf(c);
  const pageNo = pageNoOf(c);
  const now = actor.deps.clock.now().toISOString();
  const [zone, members, pages] = await Promise.all([zoneOf(c), membersOf(c), pagesOf(c)]);
  const list = await listBookings(actor, {
    ...(f.host ? { host: Number(f.host) } : {}),
    ...(f.bookingPage ? { pageId: Number(f.bookingPage) } : {}),
    ...(f.when === "upcoming" ? { status: ["pending", "accepted"], from: now } : { to: now }),
    order: f.when === "upcoming" ? "asc" : "desc",
    limit: PER_PAGE,
    offset: (pageNo - 1) * PER_PAGE,
  });
  const titles = new Map(pages.map((p) => [p.slug, p.title]));
  const pagesTotal = Math.max(1, Math.ceil(list.total / PER_PAGE));
  const filtered = agendaHref(f) !== BOOKINGS_PATH;
  const days = byDay(list.items, zone.tz);
  return render(
    c,
    <Layout title="Bookings" viewer={viewer} path={BOOKINGS_PATH}>
      <PageHeader
        title={`Bookings of ${viewer.active!.name}`}
        lead={`${list.total} ${f.when === "upcoming" ? "upcoming" : "past"} booking${list.total === 1 ? "" : "s"}${filtered ? " match these filters" : ""} · times in ${zone.tz} (${zone.from})`}
      >
        <a class="button secondary" href={CALENDARS_PATH}>
          Your calendars
        </a>
      </PageHeader>
      <form class="card grid-form" method="get" action={BOOKINGS_PATH} id="filters" aria-label="Filter bookings">
        <FilterSelect
          name="host"
          label="Member"
          value={f.host}
          options={[
            ["", "Everyone"],
            ...members.map((m): [string, string] => [
              String(m.id),
              `${m.name ?? m.email}${m.id === viewer.user.id ? " (me)" : ""}`,
            ]),
          ]}
        />
        <FilterSelect
          name="bookingPage"
          label="Booking page"
          value={f.bookingPage}
          options={[["", "Every page"], ...pages.map((p): [string, string] => [String(p.id), p.title])]}
        />
        <FilterSelect
          name="when"
          label="Show"
          value={f.when}
          options={[
            ["upcoming", "Upcoming"],
            ["past", "Past, newest first"],
          ]}
        />
        <div class="actions wide-field">
          <button type="submit">Filter</button>
          {filtered && (
            <a class="button secondary" href={BOOKINGS_PATH}>
              Clear
            </a>
          )}
        </div>
      </form>
      {days.length === 0 && (
        <div class="card">
          <p class="muted">
            {filtered
              ? "No bookings match these filters."
              : "No upcoming bookings. Visitors book on a live booking page (/b/…), agents with bookings_create."}
          </p>
        </div>
      )}
      {days.map((d) => (
        <section aria-labelledby={`day-${d.day}`} class="agenda-day" data-day={d.day}>
          <h2 id={`day-${d.day}`}>{d.label}</h2>
          <DataTable
            label={`Bookings on ${d.label}`}
            class="agenda"
            columns={["Time", "Attendee", "Status", { label: "Page", hideSm: true }, { label: "With", hideSm: true }]}
          >
            {d.items.map((b) => (
              <tr data-booking={b.id}>
                <td class="small">{span(Date.parse(b.startsAt!), Date.parse(b.endsAt!), zone.tz)}</td>
                <td>
                  <a href={bookingHref(b.id)}>{b.attendee.name}</a>
                  <div class="muted small">{b.attendee.email}</div>
                </td>
                <td>
                  <Status status={b.status} />
                </td>
                <td class="hide-sm">{titles.get(b.pageSlug) ?? b.pageSlug}</td>
                <td class="hide-sm">{b.hosts.join(", ")}</td>
              </tr>
            ))}
          </DataTable>
        </section>
      ))}
      <Pager pageNo={pageNo} pages={pagesTotal} href={(n) => agendaHref(f, n)} />
    </Layout>,
  );
}

// ---------------------------------------------------------------------------
// One booking

const NOTICES: Record<string, string> = {
  cancelled: "Booking cancelled; the attendee is emailed.",
  rescheduled: "Booking moved; the attendee gets the new time and an updated invite.",
  reassigned: "Booking handed over; the attendee is told who their host is now and gets an updated invite.",
};

const holdsSlot = (b: Booking) => b.status === "pending" || b.status === "accepted";

/** The page's free times for a move, through booking_availability_get's verb, grouped by the viewer's local day. */
async function freeTimes(c: Context<PageEnv>, b: Booking, tz: string) {
  const actor = actorOf(c);
  const now = actor.deps.clock.now().getTime();
  const r = await freeSlots(actor, {
    pageId: b.pageId!,
    from: new Date(now).toISOString(),
    to: new Date(now + RESCHEDULE_DAYS * DAY).toISOString(),
    timeZone: tz,
    durationMin: b.durationMin,
  });
  const groups: { label: string; slots: { value: string; text: string }[] }[] = [];
  for (const s of r.slots.slice(0, RESCHEDULE_MAX)) {
    const ms = Date.parse(s.startsAt);
    const label = dayHeading(ms, tz);
    // The day is in each option too: a closed select shows the option, not its group.
    const text = `${dayLabel(ms, tz)}, ${timeLabel(ms, tz)} ${zoneName(ms, tz)}`;
    const last = groups.at(-1);
    if (last?.label === label) last.slots.push({ value: s.startsAt, text });
    else groups.push({ label, slots: [{ value: s.startsAt, text }] });
  }
  return { groups, count: r.count, truncated: r.count > RESCHEDULE_MAX };
}

const answerText = (v: string | number | boolean) => (v === true ? "Yes" : String(v));

async function bookingPage(c: Context<PageEnv>, extra: { error?: string; form?: string; reason?: string } = {}) {
  const viewer = viewerOf(c);
  const actor = actorOf(c);
  const b = await getBooking(actor, { id: idOf(c) });
  const zone = await zoneOf(c);
  const manage = canManage(viewer);
  const now = actor.deps.clock.now().getTime();
  const start = Date.parse(b.startsAt!);
  const end = Date.parse(b.endsAt!);
  const canCancel = manage && holdsSlot(b) && end > now;
  const canMove = manage && holdsSlot(b) && start > now && b.pageId !== null;
  // One host can be handed over (bookings_reassign); a booking with all of a page's hosts together cannot.
  const canHand = canMove && b.hosts.length === 1;
  const members = canHand ? await membersOf(c) : [];
  let free: Awaited<ReturnType<typeof freeTimes>> | null = null;
  let freeError: string | null = null;
  if (canMove)
    try {
      free = await freeTimes(c, b, zone.tz);
    } catch (e) {
      if (!isAppError(e)) throw e;
      freeError = e.message;
    }
  const notice = NOTICES[c.req.query("done") ?? ""];
  const here = bookingHref(b.id);
  const err = (form: string) => extra.form === form && extra.error;
  const attendeeZone = b.timeZone !== zone.tz;
  // A refusal whose form is no longer shown (the booking was cancelled meanwhile) is said at the top.
  const topError =
    extra.error && (!extra.form || (extra.form === "move" && !canMove) || (extra.form === "cancel" && !canCancel));
  return render(
    c,
    <Layout title={`${b.pageTitle} with ${b.attendee.name}`} viewer={viewer} path={BOOKINGS_PATH}>
      <p class="crumbs small">
        <a href={BOOKINGS_PATH}>Bookings</a> / Booking {b.id}
      </p>
      <h1>
        {b.pageTitle} <span class="muted">with</span> {b.attendee.name}
      </h1>
      {notice && <Notice kind="ok">{notice}</Notice>}
      {topError && <Notice kind="error">{extra.error}</Notice>}
      <div class="card-layout">
        <div class="card-main">
          <section class="card" aria-labelledby="h-when" id="when">
            <h2 id="h-when">When and where</h2>
            <dl class="facts">
              <dt>When</dt>
              <dd>
                {fullSpan(start, end, zone.tz)}
                <div class="muted small">times in {zone.tz}</div>
              </dd>
              {attendeeZone && (
                <>
                  <dt>Attendee's time</dt>
                  <dd class="small">
                    {fullSpan(start, end, b.timeZone)} ({b.timeZone})
                  </dd>
                </>
              )}
              <dt>Length</dt>
              <dd>{durationText(b.durationMin)}</dd>
              <dt>Where</dt>
              <dd id="location">{locationText(b.location)}</dd>
              <dt>With</dt>
              <dd>{b.hosts.map((h) => h.name ?? h.email).join(", ") || <span class="muted">nobody</span>}</dd>
            </dl>
          </section>
          <section class="card" aria-labelledby="h-answers" id="answers">
            <h2 id="h-answers">The attendee's answers</h2>
            {b.answers.length ? (
              <dl class="facts">
                {b.answers.map((a) => (
                  <>
                    <dt>{a.label}</dt>
                    <dd class="prose">{answerText(a.value)}</dd>
                  </>
                ))}
              </dl>
            ) : (
              <p class="muted">No questions answered.</p>
            )}
            {b.notes && (
              <>
                <h3 class="small">Team notes</h3>
                <p class="prose">{b.notes}</p>
              </>
            )}
          </section>
          {canMove && (
            <section class="card" aria-labelledby="h-move" id="move">
              <h2 id="h-move">Move to another time</h2>
              {err("move") && <Notice kind="error">{err("move")}</Notice>}
              {freeError && <Notice kind="warn">{freeError}</Notice>}
              {free && free.groups.length === 0 && (
                <p class="muted">This page offers no free time in the next {RESCHEDULE_DAYS} days.</p>
              )}
              {free && free.groups.length > 0 && (
                <form method="post" action={`${here}/reschedule`}>
                  <Csrf viewer={viewer} />
                  <label for="move-start">
                    A free time of “{b.pageTitle}” ({durationText(b.durationMin)}, times in {zone.tz})
                  </label>
                  <select id="move-start" name="startsAt" required>
                    {free.groups.map((g) => (
                      <optgroup label={g.label}>
                        {g.slots.map((s) => (
                          <option value={s.value}>{s.text}</option>
                        ))}
                      </optgroup>
                    ))}
                  </select>
                  <p class="muted small">
                    The next {RESCHEDULE_DAYS} days{free.truncated ? `, the first ${RESCHEDULE_MAX} times` : ""}. The
                    attendee is emailed the new time with an updated invite.
                  </p>
                  <label class="inline">
                    <input type="checkbox" name="ignoreCutoff" value="on" /> Move it even inside the page's rescheduling
                    cutoff
                  </label>
                  <div class="actions">
                    <button type="submit">Move booking</button>
                  </div>
                </form>
              )}
            </section>
          )}
          {canHand && (
            <section class="card" aria-labelledby="h-hand" id="hand">
              <h2 id="h-hand">Hand to another host</h2>
              <form method="post" action={`${here}/reassign`}>
                <Csrf viewer={viewer} />
                {err("hand") && <Notice kind="error">{err("hand")}</Notice>}
                <label for="hand-host">New host, one of the page's hosts who is free then</label>
                <select id="hand-host" name="host">
                  <option value="">The next free host (round robin)</option>
                  {members
                    .filter((m) => !b.hosts.some((h) => h.userId === m.id))
                    .map((m) => (
                      <option value={String(m.id)}>{m.name ? `${m.name} (${m.email})` : m.email}</option>
                    ))}
                </select>
                <div class="actions">
                  <button class="secondary" type="submit">
                    Hand over
                  </button>
                </div>
              </form>
            </section>
          )}
          {canCancel && (
            <section class="card" aria-labelledby="h-cancel" id="cancel">
              <h2 id="h-cancel">Cancel</h2>
              <form method="post" action={`${here}/cancel`}>
                <Csrf viewer={viewer} />
                {err("cancel") && <Notice kind="error">{err("cancel")}</Notice>}
                <label for="cancel-reason">Reason, emailed to {b.attendee.email}</label>
                <textarea id="cancel-reason" name="reason" rows={3} maxlength={MAX_REASON}>
                  {extra.reason ?? ""}
                </textarea>
                <label class="inline">
                  <input type="checkbox" name="ignoreCutoff" value="on" /> Cancel it even inside the page's cancellation
                  cutoff
                </label>
                <div class="actions">
                  <button class="danger" type="submit">
                    Cancel booking
                  </button>
                </div>
              </form>
            </section>
          )}
          {!manage && <p class="muted small">You can read this booking; owners and admins move and cancel it.</p>}
        </div>
        <aside class="card card-side" aria-label="Booking details">
          <dl class="facts">
            <dt>Status</dt>
            <dd id="status">
              <Status status={b.status} />
            </dd>
            {b.reason && (
              <>
                <dt>Reason</dt>
                <dd class="prose">{b.reason}</dd>
              </>
            )}
            {b.noShow && (
              <>
                <dt>No-show</dt>
                <dd>{b.noShow}</dd>
              </>
            )}
            <dt>Attendee</dt>
            <dd>
              <div>{b.attendee.name}</div>
              <div class="small">{b.attendee.email}</div>
            </dd>
            <dt>Page</dt>
            <dd>{b.pageTitle}</dd>
            <dt>Booked</dt>
            <dd class="small">
              {when(b.createdAt ? new Date(b.createdAt) : null)} · {b.source === "mcp" ? "by an agent" : "on the page"}
            </dd>
            {b.history.length > 0 && (
              <>
                <dt>Moved from</dt>
                <dd class="small">
                  {b.history
                    .slice(-3)
                    .map(
                      (h) =>
                        `${dayHeading(Date.parse(h.startsAt), zone.tz)} ${timeLabel(Date.parse(h.startsAt), zone.tz)}`,
                    )
                    .join("; ")}
                </dd>
              </>
            )}
          </dl>
          <p class="small">
            <a href={b.manageUrl}>The attendee's page</a>
          </p>
        </aside>
      </div>
    </Layout>,
  );
}

/** Runs a form's verb; a refusal the person can act on re-shows the booking with the reason and the right status. */
async function attempt(
  c: Context<PageEnv>,
  act: (f: Form) => Promise<string>,
  again: (error: string) => Promise<Response>,
): Promise<Response> {
  // Who may act comes before what was typed: a viewer is refused (403) whatever the form holds.
  authorize(actorOf(c), "bookings:write", { write: true });
  return answerForm(c, () => act(c.get("form")), again);
}

const ISO_START = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?Z$/;

// ---------------------------------------------------------------------------
// Routes

export function bookingPortalPages(app: Hono<PageEnv>, _deps: Deps) {
  app.get(BOOKINGS_PATH, agendaPage);
  // The member's calendars (portal-calendars.tsx) before /bookings/:id, which would take "calendars" as an id.
  bookingCalendarPages(app);
  app.get(`${BOOKINGS_PATH}/:id`, (c) => bookingPage(c));

  app.post(`${BOOKINGS_PATH}/:id/cancel`, (c) =>
    attempt(
      c,
      async (f) => {
        const id = idOf(c);
        const reason = f.text("reason", { label: "Reason", max: MAX_REASON });
        await cancelBooking(actorOf(c), { id, ...(reason ? { reason } : {}), ignoreCutoff: f.bool("ignoreCutoff") });
        return `${bookingHref(id)}?done=cancelled`;
      },
      (error) =>
        bookingPage(c, {
          error,
          form: "cancel",
          reason: (c.get("form").params.get("reason") ?? "").slice(0, MAX_REASON),
        }),
    ),
  );

  app.post(`${BOOKINGS_PATH}/:id/reassign`, (c) =>
    attempt(
      c,
      async (f) => {
        const id = idOf(c);
        const host = f.text("host", { label: "New host", max: 20 });
        if (host && !/^[1-9]\d{0,14}$/.test(host)) throw invalid("New host must be a person of the list.");
        await reassignBooking(actorOf(c), { id, ...(host ? { host: Number(host) } : {}) });
        return `${bookingHref(id)}?done=reassigned`;
      },
      (error) => bookingPage(c, { error, form: "hand" }),
    ),
  );

  app.post(`${BOOKINGS_PATH}/:id/reschedule`, (c) =>
    attempt(
      c,
      async (f) => {
        const id = idOf(c);
        const startsAt = f.text("startsAt", { label: "New time", max: 40, required: true });
        if (!ISO_START.test(startsAt) || !Number.isFinite(Date.parse(startsAt)))
          throw invalid("New time must be one of the listed free times.");
        await rescheduleBooking(actorOf(c), { id, startsAt, ignoreCutoff: f.bool("ignoreCutoff") });
        return `${bookingHref(id)}?done=rescheduled`;
      },
      (error) => bookingPage(c, { error, form: "move" }),
    ),
  );
}
