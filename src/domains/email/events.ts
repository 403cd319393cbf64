/**
 * What the email domain tells subscribers (automations, webhooks, the CRM
 * timeline). Payloads carry addresses, names and list ids, so a receiver
 * acts without a second call. Opens and clicks are counted on the send rows
 * (email_campaigns_stats), not emitted one by one.
 */
import * as v from "valibot";
import { defineEvent } from "../../core/events";

const MEMBER_STATUS = ["unconfirmed", "subscribed", "unsubscribed", "bounced", "complained"] as const;
const CAMPAIGN_STATUS = ["draft", "pending_approval", "scheduled", "sending", "sent", "paused", "cancelled"] as const;
const listState = v.object({ listId: v.number(), listName: v.string(), status: v.picklist(MEMBER_STATUS) });

export const listCreated = defineEvent({
  type: "email.list_created",
  entity: "email_list",
  description: "A mailing list was created.",
  payload: v.object({ name: v.string(), optIn: v.picklist(["single", "double"]) }),
});
export const listUpdated = defineEvent({
  type: "email.list_updated",
  entity: "email_list",
  description: "A mailing list's name, description or opt-in changed; `fields` names what changed.",
  payload: v.object({ name: v.string(), optIn: v.picklist(["single", "double"]), fields: v.array(v.string()) }),
});
export const listDeleted = defineEvent({
  type: "email.list_deleted",
  entity: "email_list",
  description: "A mailing list was deleted with its memberships (subscribers stay).",
  payload: v.object({ name: v.string(), members: v.number() }),
});

export const subscriberAdded = defineEvent({
  type: "email.subscriber_added",
  entity: "email_subscriber",
  description:
    "An address was added (or found, `created` false) and put on lists; `lists` gives each list's resulting status (unconfirmed until a double opt-in is confirmed).",
  payload: v.object({
    email: v.string(),
    name: v.nullable(v.string()),
    created: v.boolean(),
    lists: v.array(listState),
    source: v.picklist(["tool", "import", "signup_form"]),
  }),
});
export const subscriberUpdated = defineEvent({
  type: "email.subscriber_updated",
  entity: "email_subscriber",
  description: "A subscriber's name, address, attributes or blocklist flag changed.",
  payload: v.object({ email: v.string(), fields: v.array(v.string()), blocklisted: v.boolean() }),
});
export const subscriberDeleted = defineEvent({
  type: "email.subscriber_deleted",
  entity: "email_subscriber",
  description: "A subscriber and their memberships were deleted (their send history stays, without the link).",
  payload: v.object({ email: v.string() }),
});
export const membershipChanged = defineEvent({
  type: "email.subscription_changed",
  entity: "email_subscriber",
  description:
    "A subscriber's status on one list changed: confirmed, unsubscribed (by link, one-click or tool), bounced, complained, or set by hand. `source` says how.",
  payload: v.object({
    email: v.string(),
    listId: v.number(),
    listName: v.string(),
    from: v.nullable(v.picklist(MEMBER_STATUS)),
    to: v.picklist(MEMBER_STATUS),
    source: v.picklist(["tool", "confirm_page", "unsubscribe_page", "one_click", "bounce", "complaint"]),
    campaignId: v.nullable(v.number()),
  }),
});

export const feedbackReceived = defineEvent({
  type: "email.feedback_received",
  entity: "email_feedback",
  description:
    "A bounce or complaint report about one address was applied (DSN, ARF or a relay's webhook): hard_bounce marks it bounced on every list, complaint marks it complained and blocklists it, soft_bounce is counted.",
  payload: v.object({
    email: v.string(),
    kind: v.picklist(["hard_bounce", "soft_bounce", "complaint"]),
    format: v.picklist(["dsn", "arf", "ses", "postmark"]),
    status: v.nullable(v.string()),
    campaignId: v.nullable(v.number()),
    sendId: v.nullable(v.number()),
    subscriberId: v.nullable(v.number()),
    blocklisted: v.boolean(),
  }),
});
export const feedbackSecretSet = defineEvent({
  type: "email.feedback_secret_set",
  entity: "company",
  description: "The company's bounce/complaint feedback secret was made or replaced (the old one stops working).",
  payload: v.object({ hint: v.string(), replaced: v.boolean() }),
});

const named = v.object({ name: v.string() });
export const segmentCreated = defineEvent({
  type: "email.segment_created",
  entity: "email_segment",
  description: "A segment (saved rules over subscribers) was created.",
  payload: named,
});
export const segmentUpdated = defineEvent({
  type: "email.segment_updated",
  entity: "email_segment",
  description: "A segment's name or rules changed.",
  payload: named,
});
export const segmentDeleted = defineEvent({
  type: "email.segment_deleted",
  entity: "email_segment",
  description: "A segment was deleted.",
  payload: named,
});
export const templateCreated = defineEvent({
  type: "email.template_created",
  entity: "email_template",
  description: "An email template was created.",
  payload: named,
});
export const templateUpdated = defineEvent({
  type: "email.template_updated",
  entity: "email_template",
  description: "An email template changed (campaigns keep the content they were approved with).",
  payload: named,
});
export const templateDeleted = defineEvent({
  type: "email.template_deleted",
  entity: "email_template",
  description: "An email template was deleted.",
  payload: named,
});

const campaign = { name: v.string(), subject: v.string() };
export const campaignCreated = defineEvent({
  type: "email.campaign_created",
  entity: "email_campaign",
  description: "An agent drafted a campaign; it waits for approval (approvalId) before it can be sent or scheduled.",
  payload: v.object({
    ...campaign,
    listIds: v.array(v.number()),
    segmentIds: v.array(v.number()),
    approvalId: v.number(),
    createdByUserId: v.number(),
  }),
});
export const campaignUpdated = defineEvent({
  type: "email.campaign_updated",
  entity: "email_campaign",
  description: "A campaign was changed (`fields`); it needs approval again (approvalId).",
  payload: v.object({ ...campaign, fields: v.array(v.string()), approvalId: v.number(), userId: v.number() }),
});
export const campaignApproved = defineEvent({
  type: "email.campaign_approved",
  entity: "email_campaign",
  description: "A person approved a campaign's content and audience: it may now be sent or scheduled.",
  payload: v.object({ ...campaign, decidedBy: v.string(), audience: v.number() }),
});
export const campaignRejected = defineEvent({
  type: "email.campaign_rejected",
  entity: "email_campaign",
  description: "A person rejected a campaign; it stays an unsendable draft until changed and approved.",
  payload: v.object({ ...campaign, decidedBy: v.string(), comment: v.nullable(v.string()) }),
});
export const campaignStatusChanged = defineEvent({
  type: "email.campaign_status_changed",
  entity: "email_campaign",
  description:
    "A campaign was scheduled, started sending, paused, resumed or cancelled (`from` → `to`); `scheduledAt` for schedules.",
  payload: v.object({
    ...campaign,
    from: v.picklist(CAMPAIGN_STATUS),
    to: v.picklist(CAMPAIGN_STATUS),
    scheduledAt: v.nullable(v.string()),
    userId: v.nullable(v.number()),
  }),
});
export const campaignSent = defineEvent({
  type: "email.campaign_sent",
  entity: "email_campaign",
  description: "Every recipient of a campaign has had their message sent or given up on; counts as at that moment.",
  payload: v.object({
    ...campaign,
    recipients: v.number(),
    delivered: v.number(),
    bounced: v.number(),
    failed: v.number(),
  }),
});
export const campaignDeleted = defineEvent({
  type: "email.campaign_deleted",
  entity: "email_campaign",
  description: "A campaign that never sent was deleted.",
  payload: v.object(campaign),
});
export const testSent = defineEvent({
  type: "email.campaign_test_queued",
  entity: "email_campaign",
  description: "A test of a campaign was queued to the given addresses (marked [Test], never counted in stats).",
  payload: v.object({ ...campaign, to: v.array(v.string()), userId: v.number() }),
});
export const transactionalQueued = defineEvent({
  type: "email.transactional_queued",
  entity: "email_send",
  description: "A transactional message (one recipient, from a template) was queued.",
  payload: v.object({
    to: v.string(),
    subject: v.string(),
    templateId: v.number(),
    templateName: v.string(),
    userId: v.number(),
  }),
});

export const emailEvents = [
  listCreated,
  listUpdated,
  listDeleted,
  subscriberAdded,
  subscriberUpdated,
  subscriberDeleted,
  membershipChanged,
  segmentCreated,
  segmentUpdated,
  segmentDeleted,
  templateCreated,
  templateUpdated,
  templateDeleted,
  campaignCreated,
  campaignUpdated,
  campaignApproved,
  campaignRejected,
  campaignStatusChanged,
  campaignSent,
  campaignDeleted,
  testSent,
  transactionalQueued,
  feedbackReceived,
  feedbackSecretSet,
];
