/**
 * Video links per booking, over a real server, MCP clients, the public
 * booking page over HTTP and a real SMTP sink: a page's `videoLink`
 * template gives each booking its own room, stored on the booking and in
 * the confirmation email, the invite and the booking's page.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/core/clock";
import { makeWorld, type World } from "../cms/world";
import { startTestServer, type TestServer } from "../harness";
import { startSmtp, type TestSmtp } from "../infra/smtp";
import { sendDueMail } from "../jobs";

const NOW = Date.UTC(2030, 2, 4, 8, 0, 0); // Monday 4 March 2030, 08:00Z
const WEEK = ["09:00-17:00"];
const HOURS = { mon: WEEK, tue: WEEK, wed: WEEK, thu: WEEK, fri: WEEK };

let s: TestServer;
let w: World;
let smtp: TestSmtp;
let me = 0;
let colleague = 0;
let video = "";

beforeAll(async () => {
  smtp = await startSmtp();
  s = await startTestServer({
    seed: false,
    clock: new ManualClock(NOW),
    config: { smtpUrl: smtp.url(), mailFrom: "Acme <bookings@plinth.test>" },
  });
  await s.jobs.stop();
  w = await makeWorld(s);
  me = (await w.ok(w.owner, "whoami", {})).userId;
  const c = await w.ok(w.colleague, "whoami", {});
  colleague = c.userId;
  for (const member of [me, colleague])
    await w.ok(w.owner, "booking_schedules_set", { member, timeZone: "UTC", weeklyHours: HOURS });
  const live = async (args: Record<string, unknown>) => {
    const p = await w.ok(w.owner, "booking_pages_create", { durations: [60], minNotice: 0, ...args });
    await w.ok(w.colleague, "approvals_approve", { id: p.approval.id });
    return p.slug as string;
  };
  video = await live({ title: "Video room", location: "video", videoLink: "https://meet.jit.si/{page}-{uid}" });
}, 60_000);
afterAll(async () => {
  await s?.stop();
  await smtp?.stop();
});

/** Mails to `to` sent so far, after delivering events and the outbox; waits for at least `atLeast`. */
async function mailsTo(to: string, atLeast: number) {
  for (const until = Date.now() + 10_000; Date.now() < until; await Bun.sleep(25)) {
    await s.dispatcher.drain();
    await sendDueMail(s.deps);
    const got = smtp.messages.filter((m) => m.envelope.to.includes(to));
    if (got.length >= atLeast) return await Promise.all(got.map(async (m) => ({ raw: m.raw, p: await m.parse() })));
  }
  throw new Error(`fewer than ${atLeast} mails to ${to}`);
}
const unfold = (t: string) => t.replace(/\r\n /g, "");
const inviteOf = (m: { p: { attachments: { filename?: string; content: Buffer }[] } }) =>
  unfold(m.p.attachments.find((a) => a.filename === "invite.ics")!.content.toString("utf8"));

const book = (slug: string, startsAt: string, email: string) =>
  w.ok(w.owner, "bookings_create", { pageSlug: slug, startsAt, name: "Ada Lovelace", email });

describe("video links", () => {
  test("each booking gets its own room from the page's template: stored, in the email, the invite and its page", async () => {
    const a = await book(video, "2030-03-04T10:00:00Z", "ada@example.test");
    const b = await book(video, "2030-03-04T11:00:00Z", "bob@example.test");
    const link = `https://meet.jit.si/video-room-${a.uid}`;
    const got = await w.ok(w.owner, "bookings_get", { uid: a.uid, include: ["ics"] });
    expect(got.location).toEqual({ kind: "video", value: link });
    expect(unfold(got.ics)).toContain(`LOCATION:${link}`);
    expect((await w.ok(w.owner, "bookings_get", { uid: b.uid })).location.value).toBe(
      `https://meet.jit.si/video-room-${b.uid}`,
    );

    const [mail] = await mailsTo("ada@example.test", 1);
    expect(mail!.p.text).toContain(`Video call: ${link}`);
    expect(inviteOf(mail!)).toContain(`URL;VALUE=URI:${link}`);
    const page = await (await fetch(`${s.url}/b/${video}/booking/${a.uid}`)).text();
    expect(page).toContain(`<a href="${link}"`);
  });

  test("the template is checked: known placeholders, https, video pages only, not with a fixed where", async () => {
    const bad = async (args: Record<string, unknown>) =>
      await w.err(w.owner, "booking_pages_create", { title: "Bad video", location: "video", ...args });
    expect(await bad({ videoLink: "https://meet.jit.si/{host}" })).toContain("{host} is not one of them");
    expect(await bad({ videoLink: "http://meet.example/{uid}" })).toContain("videoLink must be an https meeting URL");
    expect(await bad({ videoLink: "https://a.example/{uid}", where: "https://b.example/x" })).toContain("not both");
    expect(await bad({ location: "phone", where: "+1 555 0100", videoLink: "https://a.example/{uid}" })).toContain(
      'videoLink goes with location "video"',
    );
    // A fixed personal link is a template without placeholders: every booking gets it.
    const p = await w.ok(w.owner, "booking_pages_create", {
      title: "Personal room",
      location: "video",
      videoLink: "https://zoom.example/j/1234567890",
    });
    expect((await w.ok(w.owner, "booking_pages_get", { id: p.id })).videoLink).toBe(
      "https://zoom.example/j/1234567890",
    );
  });
});
