/**
 * The demo's live chat: an inbox per demo site (Harbor Coffee's shop with
 * Los Angeles hours, its events site, the retired wholesale site's inbox
 * switched off, Northwind Studio's with London hours), visitors asking what
 * coffee shops and web studios get asked, and conversations in every
 * status: open and waiting, answered and pending, snoozed until tomorrow,
 * resolved with a transcript-worthy thread; internal notes, labels,
 * priorities, assignees and each company's canned responses. Jamie's
 * missing parcel waits on the courier, days away, so that chat became a
 * ticket (chat_conversations_to_ticket, run as the tool runs: the tickets
 * part has seeded its tickets by then, so the ticket takes the next number),
 * and the order confirmation Jamie sent from the widget went with it.
 *
 * Visitors' tokens are random and thrown away (only their hashes are
 * stored, like every secret of the seed): the demo's visitors cannot be
 * impersonated from the seed. Widget keys are public and derived.
 */
import { createHash } from "node:crypto";
import { randomHex, sha256Hex } from "../../core/secrets";
import {
  chatAttachments,
  chatCannedResponses,
  chatConversations,
  chatCounters,
  chatInboxes,
  chatLabels,
  chatMessages,
  chatVisitors,
  type ChatPriority,
  type ChatStatus,
  type InboxHours,
} from "./tables";
import type { DemoPart, DemoWorld } from "../../mcp/define";

type Who = "visitor" | { agent: number } | { note: number };

interface Conv {
  visitor: { name: string | null; email: string | null };
  status: ChatStatus;
  priority: ChatPriority;
  assignee: number | null;
  labels: string[];
  /** Hours before now the conversation started. */
  hoursAgo: number;
  page: string;
  /** [minutes after start, who, text] */
  thread: [number, Who, string][];
  snoozeHours?: number;
  /** A text file on the visitor's last message (attachments.ts), stored as the widget's upload stores one. */
  file?: { filename: string; text: string };
}

const WEEKDAYS = (h: string) => ({ mon: [h], tue: [h], wed: [h], thu: [h], fri: [h] });

async function inbox(
  w: DemoWorld,
  o: {
    companyId: number;
    siteId: number;
    name: string;
    greeting: string;
    away?: string;
    hours: InboxHours | null;
    origins?: string[];
    enabled?: boolean;
    daysAgo: number;
  },
) {
  return (
    await w.tx
      .insert(chatInboxes)
      .values({
        companyId: o.companyId,
        siteId: o.siteId,
        name: o.name,
        greeting: o.greeting,
        awayMessage: o.away ?? null,
        // Public (it is in the embed snippet), so derived rather than random: two seeds with one clock match.
        widgetKey: `ci_${sha256Hex(`demo-chat:${o.siteId}:${o.name}`).slice(0, 24)}`,
        allowedOrigins: o.origins ?? [],
        businessHours: o.hours,
        enabled: o.enabled ?? true,
        createdAt: w.at(o.daysAgo),
        updatedAt: w.at(o.daysAgo),
      })
      .returning()
  )[0]!;
}

async function conversations(
  w: DemoWorld,
  companyId: number,
  inboxId: number,
  list: Conv[],
  first: number,
): Promise<number> {
  let n = first;
  const now = w.clock.now().getTime();
  for (const c of list) {
    const start = now - c.hoursAgo * 3600_000;
    const at = (min: number) => new Date(start + min * 60_000);
    const visitor = (
      await w.tx
        .insert(chatVisitors)
        .values({
          companyId,
          inboxId,
          tokenHash: sha256Hex(randomHex(24)),
          name: c.visitor.name,
          email: c.visitor.email,
          createdAt: at(0),
          lastSeenAt: at(c.thread.at(-1)![0]),
        })
        .returning()
    )[0]!;
    const lastAt = (kind: "visitor" | "agent") => {
      const m = c.thread
        .filter(([, who]) => (kind === "visitor" ? who === "visitor" : typeof who === "object" && "agent" in who))
        .at(-1);
      return m ? at(m[0]) : null;
    };
    const conv = (
      await w.tx
        .insert(chatConversations)
        .values({
          companyId,
          inboxId,
          visitorId: visitor.id,
          number: n,
          status: c.status,
          snoozedUntil: c.status === "snoozed" ? new Date(now + (c.snoozeHours ?? 16) * 3600_000) : null,
          priority: c.priority,
          assigneeId: c.assignee,
          pageUrl: c.page,
          createdAt: at(0),
          updatedAt: at(c.thread.at(-1)![0]),
          lastMessageAt: at(c.thread.at(-1)![0]),
          lastVisitorMessageAt: lastAt("visitor"),
          lastAgentMessageAt: lastAt("agent"),
          resolvedAt: c.status === "resolved" ? at(c.thread.at(-1)![0] + 5) : null,
        })
        .returning()
    )[0]!;
    const msgs = await w.tx
      .insert(chatMessages)
      .values(
        c.thread.map(([min, who, body]) => ({
          companyId,
          conversationId: conv.id,
          kind: who === "visitor" ? ("visitor" as const) : "agent" in who ? ("agent" as const) : ("note" as const),
          userId: who === "visitor" ? null : "agent" in who ? who.agent : who.note,
          body,
          createdAt: at(min),
        })),
      )
      .returning({ id: chatMessages.id, kind: chatMessages.kind, createdAt: chatMessages.createdAt });
    if (c.file) {
      const on = msgs.filter((m) => m.kind === "visitor").at(-1)!;
      const bytes = new TextEncoder().encode(c.file.text);
      // A fixed name, so the seed's rows stay identical from seed to seed; written with the demo's media files.
      const storageKey = `att/${companyId}/${createHash("sha256").update(`plinth-demo/chat/${c.file.filename}`).digest("hex").slice(0, 24)}.txt`;
      w.storeFile(storageKey, bytes, "txt");
      await w.tx.insert(chatAttachments).values({
        companyId,
        conversationId: conv.id,
        messageId: on.id,
        source: "visitor",
        filename: c.file.filename,
        mimeType: "text/plain",
        sizeBytes: bytes.length,
        storageKey,
        sha256: createHash("sha256").update(bytes).digest("hex"),
        uploadedBy: null,
        createdAt: on.createdAt,
      });
    }
    if (c.labels.length)
      await w.tx.insert(chatLabels).values(c.labels.map((label) => ({ conversationId: conv.id, label })));
    n++;
  }
  return n - 1;
}

export const demoChat: DemoPart = async (w) => {
  const { harbor, northwind } = w.companies;
  const { demo, maya, priya, leo } = w.users;
  const la: InboxHours = {
    timeZone: "America/Los_Angeles",
    hours: { ...WEEKDAYS("07:00-18:00"), sat: ["08:00-14:00"] },
  };
  const shop = await inbox(w, {
    companyId: harbor,
    siteId: w.sites.harbor,
    name: "Shop chat",
    greeting: "Hi! Questions about beans, grinders or your order? We're here.",
    away: "We're roasting right now. Leave your email and we'll reply first thing.",
    hours: la,
    daysAgo: 120,
  });
  const events = await inbox(w, {
    companyId: harbor,
    siteId: w.sites.events,
    name: "Events desk",
    greeting: "Ask about cuppings, classes and the throwdown.",
    hours: null,
    daysAgo: 40,
  });
  await inbox(w, {
    companyId: harbor,
    siteId: w.sites.retired,
    name: "Wholesale (retired)",
    greeting: "Wholesale has moved to harborcoffee.example.",
    hours: null,
    enabled: false,
    daysAgo: 900,
  });
  const studio = await inbox(w, {
    companyId: northwind,
    siteId: w.sites.northwind,
    name: "Studio enquiries",
    greeting: "Planning a new site? Tell us about it.",
    hours: { timeZone: "Europe/London", hours: WEEKDAYS("09:00-17:30") },
    origins: ["https://northwind.example", "https://www.northwind.example"],
    daysAgo: 300,
  });

  const harborLast = await conversations(
    w,
    harbor,
    shop.id,
    [
      {
        visitor: { name: "Jamie Ortiz", email: "jamie.ortiz@example.com" },
        status: "open",
        priority: "high",
        assignee: null,
        labels: ["order"],
        hoursAgo: 0.3,
        page: "https://harborcoffee.example/account/orders/10482",
        thread: [
          [0, "visitor", "Hi, my order #10482 says delivered but there's nothing on my porch."],
          [2, "visitor", "It was the Ethiopia Guji 1 kg bag."],
        ],
        file: {
          filename: "order-10482-confirmation.txt",
          text: "Harbor Coffee — order confirmation\nOrder #10482\n1 × Ethiopia Guji, 1 kg, whole bean\nStatus: delivered (courier scan)\n",
        },
      },
      {
        visitor: { name: "Priti Shah", email: null },
        status: "pending",
        priority: "none",
        assignee: maya,
        labels: ["product"],
        hoursAgo: 5,
        page: "https://harborcoffee.example/shop/house-espresso",
        thread: [
          [0, "visitor", "Is the House Espresso good for a moka pot?"],
          [
            3,
            { agent: maya },
            "It is! Grind a touch coarser than espresso. Want me to note a grind size on your next order?",
          ],
          [4, { note: maya }, "Offer the moka grind preset if she orders."],
        ],
      },
      {
        visitor: { name: "Tom Becker", email: "tom@beckerbakes.example" },
        status: "snoozed",
        priority: "medium",
        assignee: demo,
        labels: ["wholesale"],
        hoursAgo: 26,
        page: "https://harborcoffee.example/wholesale",
        snoozeHours: 14,
        thread: [
          [0, "visitor", "We're a bakery opening in March — do you do wholesale for small cafés?"],
          [
            6,
            { agent: demo },
            "We do! Minimum is 5 kg a week. I'll send our price list tomorrow after the roast plan is set.",
          ],
          [8, { note: demo }, "Check with Maya whether we can do 3 kg for the first month."],
        ],
      },
      {
        visitor: { name: null, email: "lena.k@example.com" },
        status: "resolved",
        priority: "low",
        assignee: maya,
        labels: ["subscription"],
        hoursAgo: 72,
        page: "https://harborcoffee.example/subscriptions",
        thread: [
          [0, "visitor", "How do I skip next month's subscription delivery?"],
          [
            4,
            { agent: maya },
            "Account → Subscriptions → Skip next. Done for you this time: nothing ships in December.",
          ],
          [9, "visitor", "Perfect, thank you!"],
        ],
      },
    ],
    1,
  );
  await conversations(
    w,
    harbor,
    events.id,
    [
      {
        visitor: { name: "Ana Lima", email: "ana.lima@example.com" },
        status: "open",
        priority: "none",
        assignee: demo,
        labels: ["events"],
        hoursAgo: 2,
        page: "https://harbor-events.example/latte-art-throwdown",
        thread: [
          [0, "visitor", "Can I still sign up for the latte art throwdown on Friday?"],
          [10, { agent: demo }, "Two spots left! I've pencilled you in — reply with your cafe name for the bracket."],
          [12, "visitor", "Café Lumen. Thanks!"],
        ],
      },
    ],
    harborLast + 1,
  );
  await w.tx.insert(chatCounters).values({ companyId: harbor, lastNumber: harborLast + 1 });

  const northwindLast = await conversations(
    w,
    northwind,
    studio.id,
    [
      {
        visitor: { name: "Grace Ho", email: "grace@hoandpartners.example" },
        status: "open",
        priority: "urgent",
        assignee: priya,
        labels: ["client", "outage"],
        hoursAgo: 0.5,
        page: "https://northwind.example/contact",
        thread: [
          [0, "visitor", "Our site shows a certificate error since this morning!"],
          [3, { agent: priya }, "Looking now — the renewal job failed. Give me ten minutes."],
          [5, { note: priya }, "DNS moved to the client's new registrar without the CAA record. Leo to add it."],
        ],
      },
      {
        visitor: { name: "Oliver Grant", email: null },
        status: "open",
        priority: "none",
        assignee: null,
        labels: ["lead"],
        hoursAgo: 1,
        page: "https://northwind.example/pricing",
        thread: [[0, "visitor", "Hi — what does a five-page site with a blog cost, roughly?"]],
      },
      {
        visitor: { name: "Sofia Marin", email: "sofia@marinyoga.example" },
        status: "resolved",
        priority: "low",
        assignee: leo,
        labels: ["client"],
        hoursAgo: 50,
        page: "https://northwind.example/",
        thread: [
          [0, "visitor", "How do I add a new class to the timetable page?"],
          [
            7,
            { agent: leo },
            "In the CMS: Pages → Timetable → add a block 'Class'. I've recorded a 2-minute video for you.",
          ],
          [15, "visitor", "Got it, all done."],
        ],
      },
    ],
    1,
  );
  await w.tx.insert(chatCounters).values({ companyId: northwind, lastNumber: northwindLast });

  const now = w.clock.now();
  await w.tx.insert(chatCannedResponses).values([
    {
      companyId: harbor,
      shortCode: "grind",
      content: "Hi {{name}}! For a moka pot grind a little coarser than espresso; for pour-over, like coarse sand.",
      createdAt: w.at(90),
      updatedAt: w.at(90),
    },
    {
      companyId: harbor,
      shortCode: "skip",
      content: "You can skip a delivery under Account → Subscriptions → Skip next.",
      createdAt: w.at(60),
      updatedAt: w.at(60),
    },
    {
      companyId: northwind,
      shortCode: "pricing",
      content: "Hi {{name}}, our sites start at £4,800 for five pages; we'll send a proposal after a 30-minute call.",
      createdAt: w.at(200),
      updatedAt: now,
    },
  ]);

  await w.runTool(
    "chat_conversations_to_ticket",
    { conversationId: 1, subject: "Order #10482 shows delivered, not received" },
    { userId: demo, company: { id: harbor, name: "Harbor Coffee Roasters" }, role: "admin", clock: w.clock },
  );
};
