/**
 * The demo's support desks: Harbor Coffee's customers writing to Maya and
 * the demo user (Los Angeles hours, short Saturday), and Northwind Studio's
 * clients writing to the agency (London hours, UK bank holidays). Tickets in
 * every status, public replies, internal notes, a merged duplicate, a
 * follow-up-worthy closed ticket, and one ticket whose first reply is
 * overdue (its breach recorded, as the job would have). Each desk has
 * macros for what it answers most. Harbor Coffee has its support mailbox
 * connected (paused: the demo's server does not exist) and Jo's torn-bag
 * ticket came in through it (its ledger row), with its packing slip attached;
 * Harbor's first solved ticket was rated good.
 *
 * Times are relative to the seed's clock, and chosen so that at seed time
 * exactly that one ticket is breached whatever the weekday: the rest were
 * answered in time, are paused (pending, solved), or are recent enough.
 */
import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import { seal } from "../../core/sealed";
import { DEFAULT_POLICY, dueTimes, slaView, type Policy, type TicketRow } from "./sla";
import {
  ticketAttachments,
  ticketCounters,
  ticketMacros,
  ticketMailboxes,
  ticketMailImports,
  ticketMessages,
  ticketRatings,
  tickets,
  ticketSlaPolicies,
  ticketTags,
  type TicketPriority,
  type TicketStatus,
} from "./tables";
import type { DemoPart, DemoWorld } from "../../mcp/define";

type Who = "requester" | { agent: number } | { note: number };

interface Msg {
  /** Minutes after the ticket was opened. */
  after: number;
  who: Who;
  text: string;
}

interface Spec {
  subject: string;
  email: string;
  name: string | null;
  priority: TicketPriority;
  status: TicketStatus;
  /** Hours before the seed's now. */
  hoursAgo: number;
  assignee: number | null;
  tags: string[];
  body: string;
  thread?: Msg[];
  /** Merged into the spec at this index of the same company (its thread moves there). */
  mergedInto?: number;
}

const HARBOR_POLICY: Policy = {
  ...DEFAULT_POLICY,
  timeZone: "America/Los_Angeles",
  businessHours: {
    mon: ["08:00-17:00"],
    tue: ["08:00-17:00"],
    wed: ["08:00-17:00"],
    thu: ["08:00-17:00"],
    fri: ["08:00-17:00"],
    sat: ["09:00-13:00"],
  },
  holidays: [],
};

const NORTHWIND_POLICY: Policy = {
  ...DEFAULT_POLICY,
  timeZone: "Europe/London",
  businessHours: {
    mon: ["09:00-17:30"],
    tue: ["09:00-17:30"],
    wed: ["09:00-17:30"],
    thu: ["09:00-17:30"],
    fri: ["09:00-17:30"],
  },
  holidays: [
    "2025-12-25",
    "2025-12-26",
    "2026-01-01",
    "2026-04-03",
    "2026-04-06",
    "2026-05-04",
    "2026-05-25",
    "2026-08-31",
    "2026-12-25",
    "2026-12-28",
  ],
  targets: {
    ...DEFAULT_POLICY.targets,
    urgent: { firstResponseMinutes: 30, resolutionMinutes: 6 * 60, businessHours: false },
  },
  autoCloseDays: 7,
};

function harborTickets(u: DemoWorld["users"]): Spec[] {
  return [
    {
      subject: "Order #4821 arrived with a torn bag",
      email: "jo.nguyen@example.com",
      name: "Jo Nguyen",
      priority: "normal",
      status: "closed",
      hoursAgo: 12 * 24,
      assignee: u.maya,
      tags: ["damaged", "shipping"],
      body: "Hi! My Ethiopia Kochere 1kg bag arrived split along the side and about a third of the beans were loose in the box. Photo attached. Can you help?",
      thread: [
        {
          after: 40,
          who: { agent: u.maya },
          text: "So sorry, Jo! That's not how we want your coffee to arrive. I've sent a replacement bag today by priority mail; no need to return the damaged one.",
        },
        {
          after: 45,
          who: { note: u.maya },
          text: "Second torn bag from the Oakland fulfilment batch this week. Flagged to packing; switching to the heavier valve bags.",
        },
        { after: 60 * 26, who: "requester", text: "Replacement arrived this morning. Thanks so much!" },
        { after: 60 * 27, who: { agent: u.maya }, text: "Wonderful, enjoy! Closing this one out." },
      ],
    },
    {
      subject: "Change my subscription grind to espresso?",
      email: "dana.price@example.com",
      name: "Dana Price",
      priority: "low",
      status: "solved",
      hoursAgo: 48,
      assignee: u.demo,
      tags: ["subscription"],
      body: "I just got an espresso machine. Can my monthly House Espresso subscription be ground for espresso from the next shipment?",
      thread: [
        {
          after: 90,
          who: { agent: u.demo },
          text: "Congrats on the machine! Done: your next shipment (the 14th) will be ground fine for espresso. You can change it any time from your account page too.",
        },
      ],
    },
    {
      subject: "Wholesale pricing for about 20 kg a month",
      email: "owner@bluedoorcafe.example",
      name: "Marcus Bell",
      priority: "normal",
      status: "pending",
      hoursAgo: 26,
      assignee: u.maya,
      tags: ["wholesale"],
      body: "We're opening a small cafe in Alameda in June and would like to use your Breakfast Blend. Roughly 20 kg a month to start. What are your wholesale rates?",
      thread: [
        {
          after: 120,
          who: { note: u.maya },
          text: "Alameda is on our Thursday Oakland route, so delivery is free above 10 kg. Offer tier B pricing.",
        },
        {
          after: 150,
          who: { agent: u.maya },
          text: "Hi Marcus, congratulations on the cafe! At 20 kg a month you'd be on our tier B wholesale pricing with free Thursday delivery. Could you tell me which grinder and espresso machine you'll be using, so we can suggest a roast profile?",
        },
      ],
    },
    {
      subject: "Discount code BREW10 not applying at checkout",
      email: "lee.harris@example.com",
      name: "Lee Harris",
      priority: "high",
      status: "open",
      hoursAgo: 5,
      assignee: u.demo,
      tags: ["checkout", "discount"],
      body: "The code from your newsletter (BREW10) says 'invalid' at checkout. I tried on my phone and laptop.",
      thread: [
        {
          after: 35,
          who: { note: u.demo },
          text: "BREW10 expired on the 1st but the newsletter went out on the 3rd with it. Offer a manual 10% and ask Maya whether to extend the code.",
        },
        {
          after: 50,
          who: { agent: u.demo },
          text: "Hi Lee, you're right, and that's our mistake: the code expired before the newsletter went out. I've applied 10% to your cart manually; the link below takes you straight to checkout.",
        },
      ],
    },
    {
      subject: "Do you ship to Canada?",
      email: "amelie.roy@example.com",
      name: "Amélie Roy",
      priority: "low",
      status: "new",
      hoursAgo: 0.4,
      assignee: null,
      tags: ["shipping"],
      body: "Bonjour! I'm in Montréal. Do you ship there, and roughly how much would shipping be for two 340 g bags?",
    },
    {
      subject: "Grinder in my Barista Pro makes a clicking noise",
      email: "sam.okafor@example.com",
      name: "Sam Okafor",
      priority: "normal",
      status: "new",
      // Four days: the first reply (8 business hours) is overdue whatever day the demo is seeded; resolution (40) is not.
      hoursAgo: 4 * 24,
      assignee: null,
      tags: ["equipment"],
      body: "The grinder I bought from you in January started clicking loudly and the dose is inconsistent. Is it under warranty?",
    },
    {
      subject: "Where is my order #4907?",
      email: "rita.gomez@example.com",
      name: "Rita Gomez",
      priority: "normal",
      status: "open",
      hoursAgo: 30,
      assignee: u.maya,
      tags: ["shipping"],
      body: "Tracking for #4907 hasn't moved in four days. Is it lost?",
      thread: [
        {
          after: 60,
          who: { agent: u.maya },
          text: "Hi Rita, I've opened a trace with the carrier and will update you tomorrow morning at the latest.",
        },
      ],
    },
    {
      subject: "Order 4907 still not here",
      email: "rita.gomez@example.com",
      name: "Rita Gomez",
      priority: "normal",
      status: "closed",
      hoursAgo: 20,
      assignee: null,
      tags: ["shipping"],
      body: "Writing again about order 4907, still nothing. Should I order again?",
      mergedInto: 6,
    },
  ];
}

function northwindTickets(u: DemoWorld["users"]): Spec[] {
  return [
    {
      subject: "Update opening hours on the homepage",
      email: "anna@lumenbakery.example",
      name: "Anna Lindqvist",
      priority: "low",
      status: "closed",
      hoursAgo: 20 * 24,
      assignee: u.leo,
      tags: ["content"],
      body: "From next week we open at 7:00 on weekdays instead of 7:30. Could you change it on the homepage and the contact page?",
      thread: [
        {
          after: 180,
          who: { agent: u.leo },
          text: "Done on both pages, and in the Google Business profile data on the site. Have a look and let us know if anything else needs changing.",
        },
        { after: 60 * 20, who: "requester", text: "Perfect, thank you Leo!" },
      ],
    },
    {
      subject: "SSL certificate warning on the staging site",
      email: "it@fjordoutdoor.example",
      name: "Henrik Dahl",
      priority: "high",
      status: "solved",
      hoursAgo: 60,
      assignee: u.priya,
      tags: ["hosting", "ssl"],
      body: "Our team gets a certificate warning on staging.fjordoutdoor.example since this morning. Production looks fine.",
      thread: [
        {
          after: 25,
          who: { note: u.priya },
          text: "Staging cert is the old manual one; renewal cron was never set up there. Moving staging to the managed cert.",
        },
        {
          after: 55,
          who: { agent: u.priya },
          text: "Hi Henrik, staging was still on a manually issued certificate that expired last night. It's now on the same auto-renewing certificate as production; the warning is gone.",
        },
      ],
    },
    {
      subject: "Newsletter sign-up not sending confirmation emails",
      email: "marketing@greenleafyoga.example",
      name: "Chloe Martin",
      priority: "normal",
      status: "pending",
      hoursAgo: 28,
      assignee: u.demo,
      tags: ["email", "forms"],
      body: "People sign up in the footer form but never get the confirmation email. Two members told us this week.",
      thread: [
        {
          after: 70,
          who: { note: u.demo },
          text: "Sending domain fails DKIM since they moved DNS to a new registrar. Need the client to add two TXT records; can't do it ourselves.",
        },
        {
          after: 85,
          who: { agent: u.demo },
          text: "Hi Chloe, we found it: since your domain moved registrar, two DNS records that prove our emails are really from you are missing. Could you give us access to the new registrar, or forward these two records to whoever manages it?",
        },
      ],
    },
    {
      subject: "Add a team page for our two new hires",
      email: "office@harrowlaw.example",
      name: "Grace Harrow",
      priority: "normal",
      status: "open",
      hoursAgo: 6,
      assignee: u.leo,
      tags: ["content"],
      body: "We've hired two associates. Could you add a Team page with everyone's photo and a short bio? Text and photos are in the shared folder.",
      thread: [
        {
          after: 45,
          who: { agent: u.leo },
          text: "Hi Grace, happy to. I'll put a draft page together today and send you the approval link.",
        },
        {
          after: 50,
          who: { note: u.leo },
          text: "Photos in the shared drive are 6000px; resize before upload. Bios for the partners are on the old About page.",
        },
      ],
    },
    {
      subject: "Checkout page returns 502 after this morning's deploy",
      email: "dev@kestrelbikes.example",
      name: "Ollie Park",
      priority: "urgent",
      status: "open",
      hoursAgo: 2,
      assignee: u.priya,
      tags: ["outage", "store"],
      body: "Since the deploy at 9 our checkout shows a 502 for everyone. We're losing orders.",
      thread: [
        {
          after: 12,
          who: { agent: u.priya },
          text: "On it, Ollie. Rolling back to the previous release now; I'll confirm in ten minutes.",
        },
        {
          after: 20,
          who: { note: u.priya },
          text: "Rolled back to v2.3.1. Root cause: PAYMENTS_WEBHOOK_SECRET missing in the new release's env. Fix before redeploying.",
        },
        {
          after: 24,
          who: { agent: u.priya },
          text: "Checkout is working again on the previous release. We'll redeploy the new version once the missing setting is fixed, and let you know before we do.",
        },
      ],
    },
    {
      subject: "March invoice shows our old VAT number",
      email: "accounts@lumenbakery.example",
      name: "Anna Lindqvist",
      priority: "normal",
      status: "new",
      hoursAgo: 0.7,
      assignee: null,
      tags: ["billing"],
      body: "The March invoice still has our old VAT number (SE5566778899). Could you reissue it with the new one, SE5599001122?",
    },
    {
      subject: "Quote for moving our shop to Shopify",
      email: "hello@mossandstone.example",
      name: null,
      priority: "low",
      status: "new",
      hoursAgo: 0.2,
      assignee: null,
      tags: ["sales"],
      body: "We sell about 300 products and would like to move from WooCommerce to Shopify. Could you give us a rough quote and timeline?",
    },
  ];
}

async function seedCompany(w: DemoWorld, companyId: number, policy: Policy, specs: Spec[]) {
  const { tx } = w;
  const now = w.clock.now();
  await tx.insert(ticketSlaPolicies).values({ companyId, ...policy, updatedAt: w.at(30) });
  const rows: { id: number; number: number }[] = [];
  let number = 1000;
  // Numbers follow the order tickets were opened, as they would have been handed out.
  const order = specs.map((s, i) => i).sort((a, b) => specs[b]!.hoursAgo - specs[a]!.hoursAgo);
  const numbers = new Map(order.map((i) => [i, ++number]));
  for (const [i, s] of specs.entries()) {
    const created = new Date(now.getTime() - s.hoursAgo * 3_600_000);
    const at = (m: Msg) => new Date(created.getTime() + m.after * 60_000);
    const thread = s.thread ?? [];
    const agentReplies = thread.filter((m) => typeof m.who === "object" && "agent" in m.who);
    const last = thread.length ? at(thread[thread.length - 1]!) : created;
    const pausedSince = s.status === "open" || s.status === "new" ? null : last;
    const dues = dueTimes(
      { createdAt: created, priority: s.priority, status: s.status, slaPausedAt: pausedSince, slaPauses: [] },
      policy,
    );
    const row: typeof tickets.$inferInsert & { createdAt: Date } = {
      companyId,
      number: numbers.get(i)!,
      subject: s.subject,
      requesterEmail: s.email,
      requesterName: s.name,
      status: s.status,
      priority: s.priority,
      assigneeId: s.assignee,
      createdAt: created,
      updatedAt: last,
      lastMessageAt: last,
      firstRespondedAt: agentReplies.length ? at(agentReplies[0]!) : null,
      solvedAt: (s.status === "solved" || s.status === "closed") && s.mergedInto === undefined ? last : null,
      closedAt:
        s.status === "closed"
          ? s.mergedInto !== undefined
            ? created
            : new Date(last.getTime() + policy.autoCloseDays! * 86_400_000)
          : null,
      slaPausedAt: pausedSince,
      slaPauses: [],
      ...dues,
      firstResponseBreachedAt: null,
      resolutionBreachedAt: null,
    };
    // What the breach job would have recorded by now.
    const view = slaView(
      { ...row, id: 0, mergedIntoId: s.mergedInto === undefined ? null : 0, followUpOfId: null } as TicketRow,
      now,
    );
    if (view.firstResponse.state === "breached") row.firstResponseBreachedAt = dues.firstResponseDueAt;
    if (view.resolution.state === "breached") row.resolutionBreachedAt = dues.resolutionDueAt;
    const inserted = (await tx.insert(tickets).values(row).returning({ id: tickets.id }))[0]!;
    rows.push({ id: inserted.id, number: row.number });
    if (s.tags.length) await tx.insert(ticketTags).values(s.tags.map((tag) => ({ ticketId: inserted.id, tag })));
    await tx.insert(ticketMessages).values([
      {
        ticketId: inserted.id,
        kind: "reply" as const,
        author: "requester" as const,
        userId: null,
        body: s.body,
        createdAt: created,
      },
      ...thread.map((m) => ({
        ticketId: inserted.id,
        kind: typeof m.who === "object" && "note" in m.who ? ("note" as const) : ("reply" as const),
        author: m.who === "requester" ? ("requester" as const) : ("agent" as const),
        userId: m.who === "requester" ? null : "agent" in m.who ? m.who.agent : m.who.note,
        body: m.text,
        createdAt: at(m),
      })),
    ]);
  }
  for (const [i, s] of specs.entries()) {
    if (s.mergedInto === undefined) continue;
    const src = rows[i]!;
    const dst = rows[s.mergedInto]!;
    await tx
      .update(ticketMessages)
      .set({ ticketId: dst.id, mergedFromNumber: src.number })
      .where(sql`${ticketMessages.ticketId} = ${src.id}`);
    await tx.update(tickets).set({ mergedIntoId: dst.id }).where(sql`${tickets.id} = ${src.id}`);
    await tx.insert(ticketMessages).values({
      ticketId: dst.id,
      kind: "note",
      author: "system",
      userId: null,
      body: `Ticket #${src.number} ("${s.subject}", from ${s.name} <${s.email}>) was merged into this ticket; its 1 message(s) moved here.`,
      createdAt: new Date(now.getTime() - s.hoursAgo * 3_600_000 + 5 * 60_000),
    });
  }
  await tx.insert(ticketCounters).values({ companyId, lastNumber: number });
  return rows;
}

/** Harbor's support mailbox, paused (nothing answers at the demo host), and the mail that opened Jo's ticket. */
async function seedMailbox(w: DemoWorld, companyId: number, ticketId: number) {
  const created = w.at(30);
  const box = (
    await w.tx
      .insert(ticketMailboxes)
      .values({
        companyId,
        host: "imap.harborcoffee.example",
        port: 993,
        tls: "tls",
        username: "support@harborcoffee.example",
        passwordSealed: seal(w.deps.config, "demo-mailbox-password", `ticket-mailbox:${companyId}`),
        folder: "INBOX",
        uidValidity: "1",
        lastUid: "1",
        state: "paused",
        lastError: "Demo mailbox: paused, as imap.harborcoffee.example does not exist. Connect a real one to try it.",
        lastPolledAt: w.at(0, 2),
        createdBy: w.users.maya,
        createdAt: created,
        updatedAt: created,
      })
      .returning({ id: ticketMailboxes.id })
  )[0]!;
  await w.tx.insert(ticketMailImports).values({
    companyId,
    source: box.id,
    key: "demo:jo-torn-bag",
    messageId: "<torn-bag.4821@mail.example.com>",
    ticketId,
    outcome: "opened",
    reason: null,
    createdAt: w.at(12),
  });
}

/** The packing slip Jo's mail carried: a ticket file, stored as inbound mail stores one (attachments.ts). */
export const DEMO_SLIP = {
  filename: "packing-slip-4821.txt",
  text: "Harbor Coffee — packing slip\nOrder #4821\n1 × Harbor House Blend, 1 kg, whole bean\nPacked: Oakland fulfilment, batch 0611\n",
};

async function seedAttachment(w: DemoWorld, companyId: number, ticketId: number) {
  const bytes = new TextEncoder().encode(DEMO_SLIP.text);
  const first = (
    await w.tx
      .select({ id: ticketMessages.id })
      .from(ticketMessages)
      .where(sql`${ticketMessages.ticketId} = ${ticketId}`)
      .orderBy(ticketMessages.id)
      .limit(1)
  )[0]!;
  // A fixed name, so the seed's rows stay identical from seed to seed; written with the demo's media files.
  const storageKey = `att/${companyId}/${createHash("sha256").update(`plinth-demo/${DEMO_SLIP.filename}`).digest("hex").slice(0, 24)}.txt`;
  w.storeFile(storageKey, bytes, "txt");
  await w.tx.insert(ticketAttachments).values({
    companyId,
    ticketId,
    messageId: first.id,
    source: "mail",
    filename: DEMO_SLIP.filename,
    mimeType: "text/plain",
    sizeBytes: bytes.length,
    storageKey,
    sha256: createHash("sha256").update(bytes).digest("hex"),
    uploadedBy: null,
    createdAt: w.at(12),
  });
}

/** A rating as the survey would have recorded it: Harbor's first solved ticket, rated good with a comment. */
async function seedRating(w: DemoWorld, companyId: number) {
  const t = (
    await w.tx
      .select({ id: tickets.id, assigneeId: tickets.assigneeId, solvedAt: tickets.solvedAt })
      .from(tickets)
      .where(sql`${tickets.companyId} = ${companyId} and ${tickets.status} in ('solved', 'closed')`)
      .orderBy(tickets.number)
      .limit(1)
  )[0];
  if (!t) throw new Error("demo seed: Harbor has no solved ticket to rate");
  const asked = t.solvedAt ?? w.at(3);
  await w.tx.insert(ticketRatings).values({
    companyId,
    ticketId: t.id,
    agentId: t.assigneeId,
    askedAt: asked,
    rating: "good",
    ratedAt: new Date(asked.getTime() + 2 * 3_600_000),
    comment: DEMO_RATING_COMMENT,
  });
}

export const DEMO_RATING_COMMENT = "Quick and friendly, thank you!";

export const demoTickets: DemoPart = async (w) => {
  const harbor = await seedCompany(w, w.companies.harbor, HARBOR_POLICY, harborTickets(w.users));
  await seedMailbox(w, w.companies.harbor, harbor[0]!.id);
  await seedAttachment(w, w.companies.harbor, harbor[0]!.id);
  await seedRating(w, w.companies.harbor);
  await seedCompany(w, w.companies.northwind, NORTHWIND_POLICY, northwindTickets(w.users));
  const at = w.at(30);
  const macro = (companyId: number, m: Partial<typeof ticketMacros.$inferInsert> & { name: string }) => ({
    companyId,
    body: null,
    status: null,
    addTags: [],
    removeTags: [],
    assigneeId: null,
    createdAt: at,
    updatedAt: at,
    ...m,
  });
  await w.tx.insert(ticketMacros).values([
    macro(w.companies.harbor, {
      name: "Where is my order",
      body: "Hi {{ticket.requester.first_name}}, I've asked the courier about {{ticket.subject}} and will write again as soon as they answer.\n\n{{agent.name}}, Harbor Coffee",
      status: "pending",
      addTags: ["shipping"],
    }),
    macro(w.companies.harbor, {
      name: "Refund issued",
      body: "Hi {{ticket.requester.first_name}}, your refund is on its way; it shows on your statement within 5 business days.",
      status: "solved",
      addTags: ["refund"],
      removeTags: ["shipping"],
    }),
    macro(w.companies.northwind, { name: "Hand to Priya (hosting)", addTags: ["hosting"], assigneeId: w.users.priya }),
  ]);
};
