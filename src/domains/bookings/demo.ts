/**
 * Demo bookings: Northwind's team hosts a round-robin "Discovery call"
 * (Priya in London, Leo in New York) and an all-together "Website review
 * workshop" that needs a host's confirmation (the demo user in Berlin with
 * Priya; a video room per booking from the page's `videoLink`); Harbor Coffee's Maya hosts an in-person tasting in Portland.
 * Bookings are placed on times the availability maths itself offers (past
 * ones computed as if "now" were weeks ago), so every seeded booking sits
 * on the grid, inside hours, with buffers respected, like a real one.
 */
import { pageSlots } from "./availability-load";
import { DEFAULTS, type PageConfig, videoLinkFor } from "./config";
import { bookingHosts, bookingPages, bookings, bookingSchedules, bookingTimeOff } from "./tables";
import { DAY } from "./zoned";
import type { DemoPart } from "../../mcp/define";

const WEEKDAYS = (h: string[]) => ({ "1": h, "2": h, "3": h, "4": h, "5": h });

const ATTENDEES = [
  ["Jordan Blake", "jordan@brightlane.example", "Brightlane Dental", "5k-15k"],
  ["Mei Chen", "mei@quillandink.example", "Quill & Ink Stationers", "15k+"],
  ["Tomás Ruiz", "tomas@ruizbikes.example", "Ruiz Bikes", "under 5k"],
  ["Aisha Okafor", "aisha@greenfork.example", "Green Fork Catering", "5k-15k"],
  ["Lukas Weber", "lukas@alpinegear.example", "Alpine Gear Co.", "15k+"],
  ["Sofia Rossi", "sofia@rossiarchitects.example", "Rossi Architects", "5k-15k"],
  ["Ben Carter", "ben@carterlegal.example", "Carter Legal", "under 5k"],
  ["Hana Sato", "hana@satoyoga.example", "Sato Yoga Studio", "under 5k"],
] as const;

export const demoBookings: DemoPart = async (w) => {
  const { tx, clock } = w;
  const now = clock.now().getTime();
  const nw = w.companies.northwind;
  const hb = w.companies.harbor;
  const sched = (
    companyId: number,
    userId: number,
    timeZone: string,
    weekly: Record<string, string[]>,
    overrides: Record<string, string[]> = {},
  ) =>
    tx
      .insert(bookingSchedules)
      .values({ companyId, userId, timeZone, weekly, overrides, version: 1, createdAt: w.at(60), updatedAt: w.at(2) });
  await sched(nw, w.users.priya, "Europe/London", WEEKDAYS(["09:00-12:30", "13:30-17:30"]));
  await sched(nw, w.users.leo, "America/New_York", WEEKDAYS(["10:00-18:00"]));
  await sched(nw, w.users.demo, "Europe/Berlin", { "2": ["14:00-18:00"], "4": ["14:00-18:00"] });
  await sched(hb, w.users.maya, "America/Los_Angeles", {
    "3": ["10:00-14:00"],
    "5": ["10:00-14:00"],
    "6": ["09:00-12:00"],
  });
  const in10 = new Date(now + 10 * DAY).toISOString().slice(0, 10);
  await tx.insert(bookingTimeOff).values({
    companyId: nw,
    userId: w.users.leo,
    startDate: in10,
    endDate: new Date(now + 12 * DAY).toISOString().slice(0, 10),
    reason: "Conference",
    createdAt: w.at(5),
  });

  const page = async (companyId: number, cfg: PageConfig) =>
    (
      await tx
        .insert(bookingPages)
        .values({
          companyId,
          slug: cfg.slug,
          title: cfg.title,
          status: "live",
          config: cfg,
          draft: null,
          version: 1,
          publishedAt: w.at(40),
          createdAt: w.at(42),
          updatedAt: w.at(40),
        })
        .returning()
    )[0]!;

  const discovery = await page(nw, {
    ...DEFAULTS,
    title: "Discovery call with Northwind Studio",
    slug: "northwind-discovery",
    description:
      "A first conversation about your website: what you need, your timeline and budget. We'll follow up with a short proposal.",
    durations: [30, 45],
    location: { kind: "video", value: "https://meet.northwind.example/discovery" },
    questions: [
      { id: "company", label: "Company", type: "short_text", required: true },
      { id: "budget", label: "Budget", type: "select", required: false, options: ["under 5k", "5k-15k", "15k+"] },
      { id: "goals", label: "What would you like to achieve?", type: "long_text", required: false },
    ],
    minNotice: 12 * 60,
    bufferAfter: 10,
    dailyLimit: 4,
    hostMode: "round_robin",
    hostUserIds: [w.users.priya, w.users.leo],
    cancelCutoff: 4 * 60,
    rescheduleCutoff: 4 * 60,
    timeZone: "Europe/London",
  });
  const workshop = await page(nw, {
    ...DEFAULTS,
    title: "Website review workshop",
    slug: "northwind-review-workshop",
    description:
      "Ninety minutes with two of us going through your current site page by page. We confirm each request within a day.",
    durations: [90],
    // A room per booking (the page's video link template), as a Jitsi page would have it.
    location: { kind: "video", value: null },
    videoLink: "https://meet.jit.si/{page}-{uid}",
    questions: [{ id: "site", label: "Your website address", type: "short_text", required: true }],
    minNotice: 48 * 60,
    bufferBefore: 15,
    bufferAfter: 15,
    weeklyLimit: 2,
    hostMode: "collective",
    hostUserIds: [w.users.demo, w.users.priya],
    requiresConfirmation: true,
    cancelCutoff: 24 * 60,
    rescheduleCutoff: 24 * 60,
    timeZone: "Europe/Berlin",
  });
  const tasting = await page(hb, {
    ...DEFAULTS,
    title: "Cupping session at the roastery",
    slug: "harbor-cupping",
    description: "Taste this season's single origins with our head roaster. Free; up to two guests.",
    durations: [60],
    location: { kind: "in_person", value: "Harbor Coffee Roasters, 412 Water St, Portland" },
    questions: [{ id: "guests", label: "Number of guests", type: "select", required: true, options: ["1", "2"] }],
    minNotice: 24 * 60,
    hostMode: "single",
    hostUserIds: [w.users.maya],
    timeZone: "America/Los_Angeles",
  });

  let n = 0;
  /** Books the `k`-th free slot of a page as seen `daysAgo` days before now. */
  const place = async (
    p: typeof discovery,
    k: number,
    daysAgo: number,
    status: "accepted" | "cancelled" | "pending",
    extra: { noShow?: string; reason?: string } = {},
  ) => {
    const seen = now - daysAgo * DAY;
    const { slots } = await pageSlots(tx, p.companyId, p, {
      from: seen,
      to: seen + 14 * DAY,
      now: seen,
      durationMin: p.config.durations[0]!,
    });
    const slot = slots[Math.min(k, slots.length - 1)];
    if (!slot) return;
    const [name, email, company, budget] = ATTENDEES[n++ % ATTENDEES.length]!;
    const hostIds =
      p.config.hostMode === "round_robin" ? [slot.hostUserIds[n % slot.hostUserIds.length]!] : slot.hostUserIds;
    const answers =
      p.id === discovery.id
        ? [
            { id: "company", label: "Company", value: company },
            { id: "budget", label: "Budget", value: budget },
          ]
        : p.id === workshop.id
          ? [{ id: "site", label: "Your website address", value: `https://${email.split("@")[1]}` }]
          : [{ id: "guests", label: "Number of guests", value: "2" }];
    const created = new Date(seen - 2 * DAY);
    const uid = crypto.randomUUID().replace(/-/g, "");
    const b = (
      await tx
        .insert(bookings)
        .values({
          companyId: p.companyId,
          pageId: p.id,
          pageSlug: p.slug,
          pageTitle: p.title,
          uid,
          status,
          startsAt: new Date(slot.start),
          endsAt: new Date(slot.end),
          durationMin: p.config.durations[0]!,
          timeZone: ["Europe/London", "America/Chicago", "Europe/Madrid", "Africa/Lagos"][n % 4]!,
          attendeeName: name,
          attendeeEmail: email,
          answers,
          location: p.config.videoLink
            ? { kind: "video", value: videoLinkFor(p.config.videoLink, p.slug, uid) }
            : p.config.location,
          hostUserIds: hostIds,
          sequence: status === "cancelled" ? 1 : 0,
          reason: extra.reason ?? null,
          cancelledBy: status === "cancelled" ? "attendee" : null,
          cancelledAt: status === "cancelled" ? new Date(seen - DAY) : null,
          confirmedAt: status === "accepted" ? created : null,
          noShow: extra.noShow ?? null,
          source: n % 3 === 0 ? "mcp" : "public",
          history: [],
          createdAt: created,
          updatedAt: created,
        })
        .returning()
    )[0]!;
    const active = status !== "cancelled";
    await tx.insert(bookingHosts).values(
      hostIds.map((userId) => ({
        bookingId: b.id,
        companyId: p.companyId,
        userId,
        pageId: p.id,
        startsAt: b.startsAt,
        endsAt: b.endsAt,
        busyFrom: new Date(slot.start - p.config.bufferBefore * 60_000),
        busyUntil: new Date(slot.end + p.config.bufferAfter * 60_000),
        activeStart: active ? b.startsAt : null,
        active,
      })),
    );
  };
  // Past weeks: calls that happened (one no-show), one cancelled.
  for (const [k, ago] of [
    [1, 28],
    [6, 28],
    [3, 21],
    [9, 21],
    [2, 14],
    [12, 14],
  ] as const)
    await place(discovery, k, ago, "accepted", k === 9 ? { noShow: "attendee" } : {});
  await place(discovery, 5, 7, "cancelled", { reason: "We decided to postpone the redesign until spring." });
  await place(workshop, 0, 21, "accepted");
  await place(tasting, 0, 14, "accepted");
  // Coming up: accepted calls, a workshop request waiting for confirmation, a tasting.
  for (const k of [0, 4, 9, 15]) await place(discovery, k, 0, "accepted");
  await place(workshop, 0, 0, "pending");
  await place(tasting, 1, 0, "accepted");
};
