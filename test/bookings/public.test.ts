/**
 * The public booking page over real HTTP, without a browser: what it
 * refuses (other origins, missing double-submit token, honeypot, forged
 * fields and times, oversized forms), its headers, the version-keyed cache
 * (fresh nonce per response, dropped when a booking lands), visitors racing
 * for one slot over HTTP, and the invite download.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/core/clock";
import { bookings } from "../../src/domains/bookings/tables";
import { startTestServer, type TestServer } from "../harness";
import { makeWorld, type World } from "../cms/world";

let s: TestServer;
let w: World;
let slug: string;

beforeAll(async () => {
  s = await startTestServer({ seed: false, clock: new ManualClock(Date.UTC(2030, 2, 4, 8, 0, 0)) });
  w = await makeWorld(s);
  const me = (await w.ok(w.owner, "whoami", {})).userId;
  const week = ["09:00-17:00"];
  await w.ok(w.owner, "booking_schedules_set", {
    member: me,
    timeZone: "UTC",
    weeklyHours: { mon: week, tue: week, wed: week, thu: week, fri: week },
  });
  const p = await w.ok(w.owner, "booking_pages_create", {
    title: "Public call",
    minNotice: 0,
    questions: [{ id: "size", label: "Team size", type: "select", options: ["1-10", "11+"], required: true }],
  });
  await w.ok(w.colleague, "approvals_approve", { id: p.approval.id });
  slug = p.slug;
}, 30_000);
afterAll(async () => {
  await s?.stop();
});

/** A visitor's session: the double-submit cookie and token from the form page of `start`. */
async function session(start: string) {
  const r = await fetch(`${s.url}/b/${slug}/book?start=${encodeURIComponent(start)}&tz=UTC`);
  const html = await r.text();
  const cookie = (r.headers.get("set-cookie") ?? "").split(";")[0]!;
  const csrf = /name="csrf" value="([0-9a-f]+)"/.exec(html)?.[1] ?? "";
  return { status: r.status, html, cookie, csrf };
}

function post(path: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return fetch(`${s.url}${path}`, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: s.url, ...headers },
    body: new URLSearchParams(fields).toString(),
  });
}

const form = (start: string, csrf: string, extra: Record<string, string> = {}) => ({
  start,
  tz: "UTC",
  duration: "30",
  csrf,
  name: "Ada",
  email: "ada@example.test",
  q_size: "1-10",
  ...extra,
});

describe("the public page", () => {
  test("headers: strict CSP with a fresh nonce per response, noindex, no framing; the listing names free times", async () => {
    const a = await fetch(`${s.url}/b/${slug}?tz=UTC`);
    const b = await fetch(`${s.url}/b/${slug}?tz=UTC`);
    const [ha, hb] = [await a.text(), await b.text()];
    expect(a.status).toBe(200);
    const csp = a.headers.get("content-security-policy")!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toMatch(/script-src 'nonce-[0-9a-f]{32}'/);
    expect(a.headers.get("x-frame-options")).toBe("DENY");
    expect(a.headers.get("x-robots-tag")).toBe("noindex");
    const nonceA = /nonce-([0-9a-f]{32})/.exec(csp)![1]!;
    const nonceB = /nonce-([0-9a-f]{32})/.exec(b.headers.get("content-security-policy")!)![1]!;
    expect(nonceA).not.toBe(nonceB);
    expect(ha).toContain(`<script nonce="${nonceA}">`);
    // The same cached page, nonce apart.
    expect(ha.replaceAll(nonceA, "N")).toBe(hb.replaceAll(nonceB, "N"));
    expect(ha).toContain(`href="/b/${slug}/book?start=2030-03-04T09%3A00%3A00.000Z&amp;tz=UTC&amp;duration=30"`);
  });

  test("a pending or unknown page is 404; a hostile slug or query is harmless", async () => {
    const pending = await w.ok(w.owner, "booking_pages_create", { title: "Not yet" });
    expect((await fetch(`${s.url}/b/${pending.slug}`)).status).toBe(404);
    expect((await fetch(`${s.url}/b/nope`)).status).toBe(404);
    expect((await fetch(`${s.url}/b/%3Cscript%3E`)).status).toBe(404);
    const r = await fetch(`${s.url}/b/${slug}?tz=%3Cscript%3Ealert(1)%3C/script%3E&week=9999-99-99&duration=-5`);
    expect(r.status).toBe(200);
    const html = await r.text();
    expect(html).not.toContain("<script>alert");
    expect(html).toContain("<option selected>UTC</option>");
  });

  test("the cache is dropped when a booking lands: the taken time leaves the listing at once", async () => {
    const url = `${s.url}/b/${slug}?tz=UTC&week=2030-03-05`;
    expect(await (await fetch(url)).text()).toContain("start=2030-03-05T09%3A00%3A00.000Z");
    await w.ok(w.owner, "bookings_create", {
      pageSlug: slug,
      startsAt: "2030-03-05T09:00:00Z",
      name: "Bo",
      email: "bo@example.test",
      answers: { size: "11+" },
    });
    expect(await (await fetch(url)).text()).not.toContain("start=2030-03-05T09%3A00%3A00.000Z");
  });

  test("posts from another origin, without the token, or with the honeypot filled book nothing", async () => {
    const start = "2030-03-06T09:00:00.000Z";
    const { cookie, csrf } = await session(start);
    const before = (await s.deps.db.select().from(bookings)).length;
    expect(
      (await post(`/b/${slug}/book`, form(start, csrf), { Cookie: cookie, Origin: "https://evil.example" })).status,
    ).toBe(403);
    expect(
      (await post(`/b/${slug}/book`, form(start, csrf), { Cookie: cookie, "Sec-Fetch-Site": "cross-site" })).status,
    ).toBe(403);
    expect((await post(`/b/${slug}/book`, form(start, csrf))).status).toBe(403);
    expect((await post(`/b/${slug}/book`, form(start, "0".repeat(32)), { Cookie: cookie })).status).toBe(403);
    expect(
      (await post(`/b/${slug}/book`, form(start, csrf, { website: "http://spam.example" }), { Cookie: cookie })).status,
    ).toBe(400);
    const big = await post(`/b/${slug}/book`, form(start, csrf, { q_size: "x".repeat(40_000) }), { Cookie: cookie });
    expect(big.status).toBe(413);
    expect((await s.deps.db.select().from(bookings)).length).toBe(before);
  });

  test("forged fields and times are refused and nothing is booked: unknown question, bad option, past, off-grid, outside hours", async () => {
    const start = "2030-03-06T10:00:00.000Z";
    const { cookie, csrf } = await session(start);
    const before = (await s.deps.db.select().from(bookings)).length;
    const forged = await post(`/b/${slug}/book`, form(start, csrf, { q_admin: "<script>alert(1)</script>" }), {
      Cookie: cookie,
    });
    expect(forged.status).toBe(400);
    const body = await forged.text();
    expect(body).toContain("is not a question of this page");
    expect(body).not.toContain("<script>alert(1)");
    expect((await post(`/b/${slug}/book`, form(start, csrf, { q_size: "9000" }), { Cookie: cookie })).status).toBe(400);
    for (const t of [
      "2030-03-01T10:00:00.000Z",
      "2030-03-06T10:07:00.000Z",
      "2030-03-06T23:00:00.000Z",
      "not a date",
    ]) {
      const r = await post(`/b/${slug}/book`, form(t, csrf), { Cookie: cookie });
      expect([400, 409]).toContain(r.status);
    }
    expect((await s.deps.db.select().from(bookings)).length).toBe(before);
    // The form page for a time that does not exist on the grid says so.
    expect((await session("2030-03-06T10:07:00.000Z")).status).toBe(409);
  });

  test("a visitor books: 303 to the attendee's page; the invite downloads as text/calendar; answers are shown escaped", async () => {
    const start = "2030-03-07T11:00:00.000Z";
    const { cookie, csrf } = await session(start);
    const r = await post(`/b/${slug}/book`, form(start, csrf, { name: `<img src=x onerror=alert(1)>` }), {
      Cookie: cookie,
    });
    expect(r.status).toBe(303);
    const loc = r.headers.get("location")!;
    expect(loc).toMatch(new RegExp(`^/b/${slug}/booking/[0-9a-f]{32}\\?tz=UTC&done=booked$`));
    const page = await (await fetch(`${s.url}${loc}`)).text();
    expect(page).toContain("For &lt;img src=x onerror=alert(1)&gt;");
    const uid = /booking\/([0-9a-f]{32})/.exec(loc)![1]!;
    const ics = await fetch(`${s.url}/b/${slug}/booking/${uid}/invite.ics`);
    expect(ics.headers.get("content-type")).toBe("text/calendar; charset=utf-8; method=REQUEST");
    expect(ics.headers.get("content-disposition")).toBe('attachment; filename="invite.ics"');
    expect(await ics.text()).toContain("DTSTART:20300307T110000Z");
    // An unknown or malformed uid is 404 and names nothing.
    expect((await fetch(`${s.url}/b/${slug}/booking/${"0".repeat(32)}`)).status).toBe(404);
    expect((await fetch(`${s.url}/b/${slug}/booking/..%2F..%2Fetc`)).status).toBe(404);
    // A booking under another page's slug redirects to its own.
    expect((await fetch(`${s.url}/b/other-slug/booking/${uid}`, { redirect: "manual" })).status).toBe(301);
  });

  test("an attendee moves their booking from its page: same uid, a new time, SEQUENCE 1; the old time is free again", async () => {
    const start = "2030-03-12T09:00:00.000Z";
    const first = await session(start);
    const made = await post(`/b/${slug}/book`, form(start, first.csrf), { Cookie: first.cookie });
    const uid = /booking\/([0-9a-f]{32})/.exec(made.headers.get("location")!)![1]!;
    const manage = await (await fetch(`${s.url}/b/${slug}/booking/${uid}?tz=UTC`)).text();
    expect(manage).toContain(`/b/${slug}?reschedule=${uid}&amp;tz=UTC&amp;duration=30`);
    const listing = await (await fetch(`${s.url}/b/${slug}?reschedule=${uid}&tz=UTC&week=2030-03-12`)).text();
    expect(listing).toContain("Choose a new time for your booking of");
    const to = "2030-03-12T15:00:00.000Z";
    const r = await post(
      `/b/${slug}/book`,
      { start: to, tz: "UTC", duration: "30", reschedule: uid, csrf: first.csrf },
      { Cookie: first.cookie },
    );
    expect(r.status).toBe(303);
    expect(r.headers.get("location")).toBe(`/b/${slug}/booking/${uid}?tz=UTC&done=rescheduled`);
    const b = await w.ok(w.owner, "bookings_get", { uid });
    expect(b).toMatchObject({ startsAt: to, sequence: 1, history: [{ startsAt: start, by: "attendee" }] });
    expect(await (await fetch(`${s.url}/b/${slug}?tz=UTC&week=2030-03-12`)).text()).toContain(
      "start=2030-03-12T09%3A00%3A00.000Z",
    );
  });

  test("visitors racing over HTTP for one slot: exactly one 303, the others 409 and told to pick another", async () => {
    const start = "2030-03-08T13:00:00.000Z";
    const sessions = await Promise.all(Array.from({ length: 8 }, () => session(start)));
    const answers = await Promise.all(
      sessions.map((x, i) =>
        post(`/b/${slug}/book`, form(start, x.csrf, { email: `racer${i}@example.test` }), { Cookie: x.cookie }),
      ),
    );
    const codes = answers.map((a) => a.status).sort();
    expect(codes).toEqual([303, 409, 409, 409, 409, 409, 409, 409]);
    const loser = await answers.find((a) => a.status === 409)!.text();
    expect(loser).toContain("that time was just taken");
    const rows = (await s.deps.db.select().from(bookings)).filter(
      (b) => b.startsAt.toISOString() === start && b.status === "accepted",
    );
    expect(rows).toHaveLength(1);
  });
});

describe("weeks and months", () => {
  const heading = (html: string) =>
    /<h2>Free times, week of <time datetime="([\d-]+)">([^<]+)<\/time><\/h2>/.exec(html);
  const days = (html: string) => [...html.matchAll(/<li class="bk-day"><h3>([^<]+)<\/h3>/g)].map((m) => m[1]);

  test("a week starts on Monday (ISO) and is named as people read it; a date inside it shows that week", async () => {
    // Thursday 7 March 2030: the week of Monday 4 March.
    const html = await (await fetch(`${s.url}/b/${slug}?tz=UTC&week=2030-03-07`)).text();
    expect(heading(html)?.slice(1)).toEqual(["2030-03-04", "Mon 4 Mar 2030"]);
    expect(days(html)).toEqual([
      "Mon 4 Mar",
      "Tue 5 Mar",
      "Wed 6 Mar",
      "Thu 7 Mar",
      "Fri 8 Mar",
      "Sat 9 Mar",
      "Sun 10 Mar",
    ]);
    // Later steps a whole week, to the next Monday.
    expect(html).toContain(`href="/b/${slug}?tz=UTC&amp;duration=30&amp;week=2030-03-11"`);
    // A British or German browser sees the same; an American one starts on Sunday.
    for (const lang of ["en-GB,en;q=0.8", "de-DE", ""])
      expect(
        heading(
          await (
            await fetch(`${s.url}/b/${slug}?tz=UTC&week=2030-03-14`, { headers: { "Accept-Language": lang } })
          ).text(),
        )?.[2],
      ).toBe("Mon 11 Mar 2030");
    const us = await (
      await fetch(`${s.url}/b/${slug}?tz=UTC&week=2030-03-14`, { headers: { "Accept-Language": "en-US,en;q=0.9" } })
    ).text();
    expect(heading(us)?.[2]).toBe("Sun 10 Mar 2030");
    expect(days(us)[0]).toBe("Sun 10 Mar");
    // A nonsense language tag is the default, not an error.
    const odd = await fetch(`${s.url}/b/${slug}?tz=UTC`, { headers: { "Accept-Language": "x-<script>;;" } });
    expect(odd.status).toBe(200);
    expect(heading(await odd.text())?.[2]).toBe("Mon 4 Mar 2030");
  });

  test("the month picker lists the months of the booking horizon, and ?month= shows the week holding its 1st", async () => {
    const html = await (await fetch(`${s.url}/b/${slug}?tz=UTC`)).text();
    // The default horizon is 60 days from 4 March 2030: to 3 May.
    const months = [...html.matchAll(/<option value="(\d{4}-\d{2})"( selected)?>([^<]+)<\/option>/g)].map((m) => [
      m[1],
      m[3],
      !!m[2],
    ]);
    expect(months).toEqual([
      ["2030-03", "March 2030", true],
      ["2030-04", "April 2030", false],
      ["2030-05", "May 2030", false],
    ]);
    // 1 May 2030 is a Wednesday: its week starts Monday 29 April, and May is the month shown.
    const may = await (await fetch(`${s.url}/b/${slug}?tz=UTC&month=2030-05`)).text();
    expect(heading(may)?.[2]).toBe("Mon 29 Apr 2030");
    expect(may).toContain(`<option value="2030-05" selected>May 2030</option>`);
    // Beyond the horizon: its last week; a month already begun: this week; nonsense: this week.
    expect(heading(await (await fetch(`${s.url}/b/${slug}?tz=UTC&month=2031-01`)).text())?.[2]).toBe("Mon 29 Apr 2030");
    for (const m of ["2030-03", "2029-12", "2030-13", "<x>"])
      expect(heading(await (await fetch(`${s.url}/b/${slug}?tz=UTC&month=${encodeURIComponent(m)}`)).text())?.[2]).toBe(
        "Mon 4 Mar 2030",
      );
  });
});

describe("the approval page says how several hosts share a page", () => {
  test("round robin: hosts take turns; collective: all hosts together; one host: one host", async () => {
    const me = (await w.ok(w.owner, "whoami", {})).userId;
    const other = (await w.ok(w.colleague, "whoami", {})).userId;
    const said = async (args: Record<string, unknown>) => {
      const p = await w.ok(w.owner, "booking_pages_create", { title: `Hosts ${args.hostMode}`, ...args });
      const html = await (await fetch(w.local(p.approval.url))).text();
      return /<dt>Host mode<\/dt><dd>([^<]*)<\/dd>/.exec(html)?.[1];
    };
    expect(await said({ hosts: [me, other], hostMode: "round_robin" })).toBe(
      "hosts take turns (round robin: whoever is free, least recently booked first)",
    );
    expect(await said({ hosts: [me, other], hostMode: "collective" })).toBe(
      "all hosts together (a time is free only when every host is)",
    );
    expect(await said({ hosts: [me], hostMode: "single" })).toBe("one host");
  });
});
