/**
 * The demo's email marketing: Harbor Coffee's newsletter (double opt-in,
 * 24 addresses: 19 subscribed, 2 unsubscribed, 1 bounced, 1 complained,
 * 1 still unconfirmed), its newsletter template, a "pro customers" segment,
 * and the October roast campaign — approved, sent eight days ago with open
 * and click tracking. Its stats, counted by hand: 22 recipients (everyone
 * but the unconfirmed address and the one that complained later), 21
 * delivered, 1 bounced, 14 opened (66.67 %), 6 clicked (28.57 %), 2
 * unsubscribed through it (9.52 %). A second campaign, the holiday gift
 * guide, is an unapproved draft. Its sending domain, harbor.example, has a
 * DKIM key (made fresh for each seed, sealed like any other) and a last
 * check that passed: SPF, DKIM, DMARC (p=quarantine) and MX all ok.
 */
import { eq } from "drizzle-orm";
import { iso } from "../../core/clock";
import { randomHex } from "../../core/secrets";
import { seal } from "../../core/sealed";
import {
  emailCampaigns,
  emailFeedback,
  emailLists,
  emailMemberships,
  emailSegments,
  emailSendingDomains,
  emailSends,
  emailSubscribers,
  emailTemplates,
} from "./tables";
import { htmlToText, sanitizeTemplate } from "./render";
import { foldSubscriber } from "./segment-rules";
import { dkimContext, dkimName, dkimValue, newKey, type DomainCheck } from "./sending-domains";
import type { DemoPart } from "../../mcp/define";

const PEOPLE: [string, string, string, Record<string, string | number>][] = [
  // name, email, status on the newsletter, attributes
  ["Amelia Hart", "amelia.hart@example.com", "subscribed", { plan: "pro", city: "Portland" }],
  ["Bruno Costa", "bruno.costa@example.com", "subscribed", { plan: "home", city: "Seattle" }],
  ["Chloé Martin", "chloe.martin@example.com", "subscribed", { plan: "pro", city: "Portland" }],
  ["Dev Patel", "dev.patel@example.com", "subscribed", { plan: "home", city: "Tacoma" }],
  ["Elena Rossi", "elena.rossi@example.com", "subscribed", { plan: "pro", city: "Seattle" }],
  ["Farah Khan", "farah.khan@example.com", "subscribed", { plan: "home", city: "Portland" }],
  ["Gus Lindqvist", "gus.lindqvist@example.com", "subscribed", { plan: "home", city: "Eugene" }],
  ["Hana Sato", "hana.sato@example.com", "subscribed", { plan: "pro", city: "Seattle" }],
  ["Ines Duarte", "ines.duarte@example.com", "subscribed", { plan: "home", city: "Portland" }],
  ["Jonah Reed", "jonah.reed@example.com", "subscribed", { plan: "home", city: "Salem" }],
  ["Kofi Mensah", "kofi.mensah@example.com", "subscribed", { plan: "pro", city: "Portland" }],
  ["Lena Vogel", "lena.vogel@example.com", "subscribed", { plan: "home", city: "Seattle" }],
  ["Mateo Silva", "mateo.silva@example.com", "subscribed", { plan: "home", city: "Portland" }],
  ["Nora Byrne", "nora.byrne@example.com", "subscribed", { plan: "pro", city: "Bend" }],
  ["Omar Haddad", "omar.haddad@example.com", "subscribed", { plan: "home", city: "Portland" }],
  ["Priti Shah", "priti.shah@example.com", "subscribed", { plan: "home", city: "Seattle" }],
  ["Quinn Walsh", "quinn.walsh@example.com", "subscribed", { plan: "home", city: "Portland" }],
  ["Rosa Jiménez", "rosa.jimenez@example.com", "subscribed", { plan: "pro", city: "Tacoma" }],
  ["Sami Nieminen", "sami.nieminen@example.com", "subscribed", { plan: "home", city: "Portland" }],
  ["Theo Grant", "theo.grant@example.com", "unsubscribed", { plan: "home", city: "Seattle" }],
  ["Uma Rao", "uma.rao@example.com", "unsubscribed", { plan: "home", city: "Portland" }],
  ["Victor Hale", "victor.hale@oldmail.example", "bounced", { plan: "home", city: "Salem" }],
  ["Wren Doyle", "wren.doyle@example.com", "complained", { plan: "home", city: "Portland" }],
  ["Yara Nasser", "yara.nasser@example.com", "unconfirmed", { plan: "home", city: "Seattle" }],
];

/** Who opened / clicked the October campaign (indexes into PEOPLE, all delivered). */
const OPENED = [0, 1, 2, 4, 5, 7, 8, 10, 11, 13, 14, 17, 19, 20];
const CLICKED = [0, 2, 7, 10, 13, 17];

export const DEMO_EMAIL = {
  listName: "Harbor Coffee Newsletter",
  campaign: "October roast drop",
  recipients: 22,
  delivered: 21,
  bounced: 1,
  opened: OPENED.length,
  clicked: CLICKED.length,
  unsubscribed: 2,
  sendingDomain: "harbor.example",
} as const;

const TEMPLATE = `<table role="presentation" width="100%" cellpadding="0" cellspacing="0">
<tr><td style="padding:28px 32px;background:#3b2f2a;color:#f5efe6"><h1 style="margin:0;font-family:Georgia,serif">Harbor Coffee Roasters</h1></td></tr>
<tr><td style="padding:28px 32px;font-family:Helvetica,Arial,sans-serif;color:#1f2937">
<p>Hi {{ name | coffee friend }},</p>
<p>Our October roast is here: a washed Ethiopian Guji with notes of bergamot, peach and black tea. Roasted Tuesday, shipped Wednesday.</p>
<p><a href="https://harbor.example/shop/october-roast" style="display:inline-block;padding:12px 20px;background:#b45309;color:#fff;text-decoration:none;border-radius:6px">Order the October roast</a></p>
<p>Pro customers: your wholesale price list is <a href="https://harbor.example/pro/prices">here</a>.</p>
<p style="font-size:12px;color:#6b7280">Harbor Coffee Roasters · 12 Pier Street, Portland · <a href="{{ unsubscribe_url }}">Unsubscribe</a></p>
</td></tr></table>`;

export const demoEmail: DemoPart = async ({ deps, tx, at, companies, users }) => {
  const company = companies.harbor;
  await demoSendingDomain(deps.config, tx, company, at);
  const list = (
    await tx
      .insert(emailLists)
      .values({
        companyId: company,
        name: DEMO_EMAIL.listName,
        description: "Monthly roasts, brewing guides and café news.",
        optIn: "double",
        // The café's newsletter has its public signup form on (/e/s/<key>, shown by email_lists_get).
        signupKey: randomHex(24),
        createdAt: at(120),
        updatedAt: at(120),
      })
      .returning({ id: emailLists.id })
  )[0]!;
  const subs: number[] = [];
  for (const [i, [name, email, status, attributes]] of PEOPLE.entries()) {
    const joined = at(110 - i * 3);
    const s = (
      await tx
        .insert(emailSubscribers)
        .values({
          companyId: company,
          email,
          name,
          attributes,
          fold: foldSubscriber({ email, name, attributes }),
          blocklisted: status === "complained",
          createdAt: joined,
          updatedAt: joined,
        })
        .returning({ id: emailSubscribers.id })
    )[0]!;
    subs.push(s.id);
    const left = status === "unsubscribed" ? at(8, -2) : null;
    await tx.insert(emailMemberships).values({
      companyId: company,
      listId: list.id,
      subscriberId: s.id,
      status,
      confirmTokenHash: status === "unconfirmed" ? randomHex(32) : null,
      confirmedAt: status === "unconfirmed" ? null : joined,
      unsubscribedAt: left,
      createdAt: joined,
      updatedAt: left ?? joined,
    });
  }
  const html = sanitizeTemplate(TEMPLATE);
  const tpl = (
    await tx
      .insert(emailTemplates)
      .values({ companyId: company, name: "Harbor monthly", html, text: null, createdAt: at(60), updatedAt: at(60) })
      .returning({ id: emailTemplates.id })
  )[0]!;
  await tx.insert(emailSegments).values({
    companyId: company,
    name: "Pro customers",
    rules: {
      match: "all",
      conditions: [
        { field: "attributes.plan", op: "eq", value: "pro" },
        { field: "list", op: "in", value: list.id },
      ],
    },
    createdAt: at(40),
    updatedAt: at(40),
  });
  const sentAt = at(8);
  const c = (
    await tx
      .insert(emailCampaigns)
      .values({
        companyId: company,
        name: DEMO_EMAIL.campaign,
        subject: "The October roast is here, {{ name | friend }}",
        preheader: "Washed Ethiopian Guji: bergamot, peach, black tea",
        fromName: "Harbor Coffee Roasters",
        fromEmail: "hello@harbor.example",
        replyTo: "roastery@harbor.example",
        templateId: tpl.id,
        html,
        text: htmlToText(html),
        listIds: [list.id],
        segmentIds: [],
        status: "sent",
        approvedAt: at(9),
        approvedBy: "Maya Chen",
        trackOpens: true,
        trackClicks: true,
        ratePerMinute: 600,
        startedAt: sentAt,
        finishedAt: at(8, -1),
        queuedAll: true,
        queueCursor: subs[subs.length - 1]!,
        recipientCount: DEMO_EMAIL.recipients,
        createdByUserId: users.maya,
        createdAt: at(10),
        updatedAt: at(8, -1),
      })
      .returning({ id: emailCampaigns.id })
  )[0]!;
  // Recipients then: everyone but the unconfirmed and the complaint (which came later, from another mail).
  for (const [i, [, email, status]] of PEOPLE.entries()) {
    if (status === "unconfirmed" || status === "complained") continue;
    const bounced = status === "bounced";
    const opened = OPENED.includes(i) ? at(7, 20 - i) : null;
    const clicked = CLICKED.includes(i) ? at(7, 19 - i) : null;
    await tx.insert(emailSends).values({
      companyId: company,
      campaignId: c.id,
      subscriberId: subs[i]!,
      email,
      kind: "campaign",
      status: bounced ? "bounced" : "sent",
      attempts: 1,
      nextAttemptAt: sentAt,
      lastAttemptAt: sentAt,
      messageId: `<${randomHex(16)}@harbor.example>`,
      token: randomHex(24),
      tag: "email.campaign",
      smtpResponse: bounced
        ? "EENVELOPE 550 5.1.1 <victor.hale@oldmail.example>: mailbox unavailable"
        : "250 2.0.0 Ok: queued",
      sentAt: bounced ? null : sentAt,
      openedAt: opened,
      clickedAt: clicked,
      opens: opened ? 1 + (i % 3) : 0,
      clicks: clicked ? 1 : 0,
      unsubscribedAt: status === "unsubscribed" ? at(8, -2) : null,
      createdAt: sentAt,
      updatedAt: sentAt,
    });
  }
  // Wren's complaint came in as an ARF report from her mailbox provider's feedback loop.
  const wren = PEOPLE.findIndex(([, , status]) => status === "complained");
  await tx.insert(emailFeedback).values({
    companyId: company,
    kind: "complaint",
    email: PEOPLE[wren]![1],
    sendId: null,
    campaignId: null,
    subscriberId: subs[wren]!,
    status: "abuse",
    diagnostic: "Yahoo-Mail-Feedback/2.0",
    format: "arf",
    reportKey: randomHex(32),
    receivedAt: at(12),
  });
  await tx.insert(emailCampaigns).values({
    companyId: company,
    name: "Holiday gift guide",
    subject: "Gifts for the coffee people in your life",
    preheader: "Gift boxes, subscriptions and a grinder we love",
    fromName: "Harbor Coffee Roasters",
    fromEmail: "hello@harbor.example",
    templateId: tpl.id,
    html,
    text: htmlToText(html),
    listIds: [list.id],
    segmentIds: [],
    status: "draft",
    ratePerMinute: 600,
    createdByUserId: users.maya,
    createdAt: at(1),
    updatedAt: at(1),
  });
};

/** harbor.example with a DKIM key and a last check (two days ago) that found every record right. */
async function demoSendingDomain(
  config: Parameters<typeof seal>[0],
  tx: Parameters<DemoPart>[0]["tx"],
  company: number,
  at: (daysAgo: number, hoursAgo?: number) => Date,
) {
  const domain = DEMO_EMAIL.sendingDomain;
  const made = at(30);
  const k = newKey(made);
  const row = (
    await tx
      .insert(emailSendingDomains)
      .values({
        companyId: company,
        domain,
        selector: k.selector,
        privateKeySealed: "",
        publicKey: k.publicKey,
        createdAt: made,
        updatedAt: made,
      })
      .returning({ id: emailSendingDomains.id })
  )[0]!;
  const checkedAt = at(2);
  const ok = (record: DomainCheck["records"][number]["record"], name: string, found: string, note: string | null) => ({
    record,
    name,
    status: "ok" as const,
    found: [found],
    note,
    next: null,
  });
  const lastCheck: DomainCheck = {
    ok: true,
    checkedAt: iso(checkedAt)!,
    records: [
      ok("spf", domain, "v=spf1 mx a include:_spf.mailrelay.example ~all", "soft fail (~all)"),
      ok("dkim", dkimName({ selector: k.selector, domain }), dkimValue(k.publicKey), null),
      ok("dmarc", `_dmarc.${domain}`, `v=DMARC1; p=quarantine; rua=mailto:dmarc@${domain}`, "policy quarantine"),
      ok("mx", domain, "10 mx1.harbor.example", null),
    ],
  };
  await tx
    .update(emailSendingDomains)
    .set({
      privateKeySealed: seal(config, k.privatePem, dkimContext(row.id)),
      lastCheck: lastCheck as unknown as Record<string, unknown>,
      lastCheckedAt: checkedAt,
      updatedAt: checkedAt,
    })
    .where(eq(emailSendingDomains.id, row.id));
}
