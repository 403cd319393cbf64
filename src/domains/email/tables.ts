/**
 * Email marketing: lists, subscribers and their per-list status, segments,
 * templates, campaigns, and the send queue that is also the history.
 *
 * A campaign keeps a snapshot of its content (subject, HTML, text) taken
 * when it was proposed: that snapshot is what its approval link shows and
 * what is sent, so editing the template afterwards changes nothing a person
 * approved. `email_sends` is the durable queue and the record of every
 * message: one row per (campaign, subscriber) — the unique index is what
 * makes queuing exactly once across crashes and racing instances — plus
 * rows for test sends, transactional mail and opt-in confirmations.
 */
import {
  bool,
  createdAt,
  id,
  index,
  integer,
  json,
  table,
  text,
  time,
  uniqueIndex,
  updatedAt,
} from "../../core/columns";
import { companies } from "../../core/tables";

export const emailLists = table(
  "email_lists",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    description: text("description"),
    /** single | double */
    optIn: text("opt_in").notNull(),
    /** The public signup form's key (/e/s/<key>); null while the list has no public form. */
    signupKey: text("signup_key"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("email_lists_name").on(t.companyId, t.name), uniqueIndex("email_lists_signup").on(t.signupKey)],
);

export type Attributes = Record<string, string | number | boolean | null>;

/**
 * What segment rules compare, folded in JS (segment-rules.ts
 * foldSubscriber) and written with the values they come from: SQL cannot
 * drop accents the way the rules mean it, so it compares these instead.
 * e: the address, n: the name (absent when none), a: each present attribute
 * as text, x: each attribute that reads as a number (±Infinity as "inf" /
 * "-inf"). Null on rows written before it existed, until the fold job
 * reaches them (those rows are checked in process meanwhile).
 */
export interface SubscriberFold {
  e: string;
  n?: string;
  a: Record<string, string>;
  x: Record<string, number | string>;
}

export const emailSubscribers = table(
  "email_subscribers",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    /** Lower-cased; one subscriber per address and company. */
    email: text("email").notNull(),
    name: text("name"),
    attributes: json<Attributes>("attributes").notNull(),
    fold: json<SubscriberFold>("fold"),
    /** Never mailed again (a complaint, or set by hand), whatever the list status says. */
    blocklisted: bool("blocklisted").notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("email_subscribers_email").on(t.companyId, t.email)],
);

export const emailMemberships = table(
  "email_memberships",
  {
    id: id(),
    companyId: integer("company_id").notNull(),
    listId: integer("list_id")
      .notNull()
      .references(() => emailLists.id, { onDelete: "cascade" }),
    subscriberId: integer("subscriber_id")
      .notNull()
      .references(() => emailSubscribers.id, { onDelete: "cascade" }),
    /** unconfirmed | subscribed | unsubscribed | bounced | complained */
    status: text("status").notNull(),
    /** SHA-256 of the double opt-in token mailed to the address (cleared once confirmed). */
    confirmTokenHash: text("confirm_token_hash"),
    confirmedAt: time("confirmed_at"),
    unsubscribedAt: time("unsubscribed_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("email_memberships_pair").on(t.listId, t.subscriberId),
    index("email_memberships_subscriber").on(t.subscriberId),
    index("email_memberships_list_status").on(t.listId, t.status, t.subscriberId),
    index("email_memberships_token").on(t.confirmTokenHash),
  ],
);

export const emailSegments = table(
  "email_segments",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** See segment-rules.ts: { match: all|any, conditions: [...] }. */
    rules: json<unknown>("rules").notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("email_segments_name").on(t.companyId, t.name)],
);

export const emailTemplates = table(
  "email_templates",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** Sanitised HTML with {{ variables }}. */
    html: text("html").notNull(),
    /** The plain-text part as written; null: generated from the HTML. */
    text: text("text"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("email_templates_name").on(t.companyId, t.name)],
);

export const emailCampaigns = table(
  "email_campaigns",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    subject: text("subject").notNull(),
    preheader: text("preheader"),
    fromName: text("from_name"),
    fromEmail: text("from_email"),
    replyTo: text("reply_to"),
    templateId: integer("template_id").references(() => emailTemplates.id, { onDelete: "set null" }),
    /** Content snapshot (sanitised HTML with variables, and its text part) taken when proposed. */
    html: text("html").notNull(),
    text: text("text").notNull(),
    listIds: json<number[]>("list_ids").notNull(),
    segmentIds: json<number[]>("segment_ids").notNull(),
    /** draft | pending_approval | scheduled | sending | sent | paused | cancelled */
    status: text("status").notNull(),
    /** Set when the current content was approved; cleared by any change. */
    approvedAt: time("approved_at"),
    approvedBy: text("approved_by"),
    trackOpens: bool("track_opens").notNull().default(false),
    trackClicks: bool("track_clicks").notNull().default(false),
    ratePerMinute: integer("rate_per_minute").notNull(),
    scheduledAt: time("scheduled_at"),
    timeZone: text("time_zone"),
    startedAt: time("started_at"),
    finishedAt: time("finished_at"),
    /** Queuing progress: every recipient has a send row once true; cursor = last subscriber id queued. */
    queuedAll: bool("queued_all").notNull().default(false),
    queueCursor: integer("queue_cursor").notNull().default(0),
    recipientCount: integer("recipient_count").notNull().default(0),
    createdByUserId: integer("created_by_user_id"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("email_campaigns_company").on(t.companyId, t.id),
    index("email_campaigns_status").on(t.status, t.scheduledAt),
  ],
);

export const emailSends = table(
  "email_sends",
  {
    id: id(),
    companyId: integer("company_id").notNull(),
    campaignId: integer("campaign_id").references(() => emailCampaigns.id, { onDelete: "cascade" }),
    subscriberId: integer("subscriber_id").references(() => emailSubscribers.id, { onDelete: "set null" }),
    /** For confirmations: the list being confirmed. */
    listId: integer("list_id"),
    email: text("email").notNull(),
    /** campaign | test | transactional | confirmation */
    kind: text("kind").notNull(),
    /** queued | sent | failed | bounced | cancelled */
    status: text("status").notNull(),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: time("next_attempt_at").notNull(),
    lastAttemptAt: time("last_attempt_at"),
    /** Fixed when queued: every retry carries it, so a receiver can drop a duplicate. */
    messageId: text("message_id").notNull(),
    /** Random, in the message's unsubscribe / tracking links. */
    token: text("token").notNull(),
    /** Pre-rendered content (every kind but campaign, which renders from the campaign at send time). */
    subject: text("subject"),
    html: text("html"),
    text: text("text"),
    fromName: text("from_name"),
    fromEmail: text("from_email"),
    replyTo: text("reply_to"),
    tag: text("tag"),
    smtpResponse: text("smtp_response"),
    sentAt: time("sent_at"),
    openedAt: time("opened_at"),
    clickedAt: time("clicked_at"),
    opens: integer("opens").notNull().default(0),
    clicks: integer("clicks").notNull().default(0),
    unsubscribedAt: time("unsubscribed_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("email_sends_recipient").on(t.campaignId, t.subscriberId),
    uniqueIndex("email_sends_token").on(t.token),
    index("email_sends_due").on(t.status, t.nextAttemptAt),
    index("email_sends_campaign").on(t.campaignId, t.status),
    index("email_sends_subscriber").on(t.subscriberId, t.id),
    // Bounce and complaint reports name the message they are about by its Message-ID.
    index("email_sends_message_id").on(t.messageId),
    // The CRM timeline reads a contact's mail by address.
    index("email_sends_email").on(t.companyId, t.email, t.id),
  ],
);

/**
 * The secret a company's bounce/complaint feedback is posted with
 * (/e/feedback/<secret>): SHA-256 only, shown once when made.
 */
export const emailFeedbackKeys = table(
  "email_feedback_keys",
  {
    companyId: integer("company_id")
      .primaryKey()
      .references(() => companies.id, { onDelete: "cascade" }),
    secretHash: text("secret_hash").notNull(),
    /** The secret's last four characters, to tell keys apart. */
    hint: text("hint").notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("email_feedback_keys_hash").on(t.secretHash)],
);

/**
 * One bounce or complaint report about one address, applied once: the
 * unique `reportKey` (a hash of what the report says) makes a report read
 * twice (a relay's retry, an MTA redelivery) change nothing the second time.
 */
export const emailFeedback = table(
  "email_feedback",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    /** hard_bounce | soft_bounce | complaint */
    kind: text("kind").notNull(),
    email: text("email").notNull(),
    sendId: integer("send_id").references(() => emailSends.id, { onDelete: "set null" }),
    campaignId: integer("campaign_id"),
    subscriberId: integer("subscriber_id"),
    /** The enhanced status code (5.1.1) or feedback type (abuse). */
    status: text("status"),
    diagnostic: text("diagnostic"),
    /** dsn | arf | ses | postmark */
    format: text("format").notNull(),
    reportKey: text("report_key").notNull(),
    receivedAt: time("received_at").notNull(),
  },
  (t) => [
    uniqueIndex("email_feedback_report").on(t.companyId, t.reportKey),
    index("email_feedback_email").on(t.companyId, t.email, t.receivedAt),
    index("email_feedback_campaign").on(t.campaignId, t.kind),
  ],
);

/**
 * A domain a company sends mail from, with the DKIM key its mail is signed
 * with (docs/email.md, "Sending domains"): the private key sealed
 * (src/core/sealed.ts, context `email_domain:<id>:dkim`) and never shown,
 * the public key as published in DNS at `<selector>._domainkey.<domain>`,
 * and what the last check of its SPF, DKIM, DMARC and MX records found.
 */
export const emailSendingDomains = table(
  "email_sending_domains",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    /** Lower-case, no trailing dot. */
    domain: text("domain").notNull(),
    selector: text("selector").notNull(),
    /** PKCS#8 PEM, sealed. */
    privateKeySealed: text("private_key_sealed").notNull(),
    /** The SPKI DER in base64: the DKIM record's p= value. */
    publicKey: text("public_key").notNull(),
    /**
     * A rotation under way (email_domains_rotate): the next key, sealed under
     * `email_domain:<id>:dkim:next`, and its selector. Mail stays signed with
     * the current key until a check finds the next one published, which
     * makes it current.
     */
    nextSelector: text("next_selector"),
    nextPrivateKeySealed: text("next_private_key_sealed"),
    nextPublicKey: text("next_public_key"),
    /** The last email_domains_check: { ok, records: [{ record, status, found, next }] }. */
    lastCheck: json("last_check").$type<Record<string, unknown>>(),
    lastCheckedAt: time("last_checked_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("email_sending_domains_company_domain").on(t.companyId, t.domain)],
);
