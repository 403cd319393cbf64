/**
 * The email toolset: lists, subscribers, segments, templates, campaigns
 * (approved by people before they can go out), sends and stats, and
 * transactional mail. Thin declarations over the verbs of this folder;
 * every verb re-checks scope and role and keeps to the caller's company.
 */
import { demoEmail } from "./demo";
import * as v from "valibot";
import { jsonObject } from "../../core/json-value";
import { pageInput as paging } from "../../core/pagination";
import { defineTool, type Domain } from "../../mcp/define";
import { emailApprovalKind, emailApprovalSupport } from "./approval-kinds";
import {
  campaignRecipients,
  campaignStats,
  cancelCampaign,
  createCampaign,
  deleteCampaign,
  getCampaign,
  listCampaigns,
  pauseCampaign,
  resumeCampaign,
  scheduleCampaign,
  sendCampaign,
  testCampaign,
  updateCampaign,
} from "./campaigns";
import { CAMPAIGN_STATUSES, MEMBER_STATUSES } from "./access";
import { deliverJob } from "./delivery";
import { foldJob } from "./audience";
import { emailEvents } from "./events";
import { listFeedback, setupFeedback } from "./feedback";
import { createList, deleteList, getList, listLists, updateList } from "./lists";
import { emailPublicPages } from "./public-pages";
import { parseRules } from "./segment-rules";
import { countSegment, createSegment, deleteSegment, getSegment, listSegments, updateSegment } from "./segments";
import {
  addSubscriber,
  deleteSubscriber,
  getSubscriber,
  IMPORT_MAX,
  importSubscribers,
  listSubscribers,
  subscriberHistory,
  unsubscribeSubscriber,
  updateSubscriber,
} from "./subscribers";
import { TEMPLATE_LIMITS } from "./render";
import {
  createTemplate,
  deleteTemplate,
  getTemplate,
  listTemplates,
  renderTemplate,
  updateTemplate,
} from "./templates";
import { sendTransactional } from "./transactional";
import {
  addSendingDomain,
  checkSendingDomain,
  deleteSendingDomain,
  getSendingDomain,
  listSendingDomains,
  rotateSendingDomain,
} from "./sending-domains";
import { PRICES } from "../ai/meter";
import { idSchema } from "../../core/fields";
import { campaignStagedTarget } from "./staged-targets";
import { EMAIL_PATH, emailPages } from "./pages";

const line = (max: number) =>
  v.pipe(
    v.string(),
    v.minLength(1),
    v.maxLength(max),
    v.regex(/^[^\u0000-\u001f\u007f]*$/, "must be one line without control characters"),
  );
const name = line(200);
const search = line(200);
const email = v.pipe(v.string(), v.minLength(3), v.maxLength(254));
const ids = v.pipe(v.array(idSchema), v.maxLength(50));
// Published loosely (short listing); checkAttributes validates names and values in the verb.
const attrs = jsonObject("attributes");
const html = v.pipe(v.string(), v.minLength(1), v.maxLength(TEMPLATE_LIMITS.html));
const text = v.pipe(v.string(), v.maxLength(TEMPLATE_LIMITS.text));
const who = { id: v.optional(idSchema), email: v.optional(email) };
const W = { toolset: "email", scope: "email:write", readOnly: false } as const;
const R = { toolset: "email", scope: "email:read", readOnly: true } as const;
/** What every send says up front: metered companies pay per recipient (the result says what was paid). */
const COST = `Costs ${PRICES["email.send"]} AI credit per recipient.`;
// Every sending verb checks email:write as well (sendAuth): a key with email:send alone is not shown them.
const S = {
  toolset: "email",
  scope: "email:send",
  alsoNeeds: ["email:write"],
  readOnly: false,
  openWorld: true,
} as const;

// Lists

const listsList = defineTool({
  ...R,
  name: "email_lists_list",
  title: "List mailing lists",
  description: "Mailing lists with subscriber counts per status.",
  input: v.object({ search: v.optional(search), ...paging }),
  run: listLists,
});
const listsGet = defineTool({
  ...R,
  name: "email_lists_get",
  title: "Get a list",
  description: "A mailing list with counts per status.",
  input: v.object({ id: idSchema }),
  run: getList,
});
const optIn = v.picklist(["single", "double"]);
const listsCreate = defineTool({
  ...W,
  name: "email_lists_create",
  title: "Create a list",
  description: "Create a mailing list (double opt-in by default); publicSignup: a form.",
  input: v.object({
    name,
    description: v.optional(v.pipe(v.string(), v.maxLength(2000))),
    optIn: v.optional(optIn),
    publicSignup: v.optional(v.boolean()),
  }),
  run: createList,
});
const listsUpdate = defineTool({
  ...W,
  idempotent: true,
  name: "email_lists_update",
  title: "Change a list",
  description: "Change a list; opt-in applies to addresses added later.",
  input: v.object({
    id: idSchema,
    name: v.optional(name),
    description: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(2000)))),
    optIn: v.optional(optIn),
    publicSignup: v.optional(v.boolean()),
  }),
  run: updateList,
});
const listsDelete = defineTool({
  ...W,
  destructive: true,
  name: "email_lists_delete",
  title: "Delete a list",
  description: "Delete a list and its memberships (subscribers stay).",
  input: v.object({ id: idSchema }),
  run: deleteList,
});

// Subscribers

const memberStatus = v.picklist(MEMBER_STATUSES);
const subsList = defineTool({
  ...R,
  name: "email_subscribers_list",
  title: "List subscribers",
  description: "Subscribers with status per list; search: email or name.",
  input: v.object({
    listId: v.optional(idSchema),
    status: v.optional(memberStatus),
    search: v.optional(search),
    blocklisted: v.optional(v.boolean()),
    ...paging,
  }),
  run: listSubscribers,
});
const subsGet = defineTool({
  ...R,
  name: "email_subscribers_get",
  title: "Get a subscriber",
  description: "A subscriber by id or email, with attributes and list statuses.",
  input: v.object(who),
  run: getSubscriber,
});
const subsAdd = defineTool({
  ...W,
  idempotencyKey: true,
  name: "email_subscribers_add",
  title: "Add a subscriber",
  description: "Add an address to lists (double opt-in mails a confirmation); preconfirmed: consent given elsewhere.",
  input: v.object({
    email,
    name: v.optional(v.nullable(name)),
    attributes: v.optional(attrs),
    listIds: v.optional(ids),
    preconfirmed: v.optional(v.boolean()),
  }),
  run: addSubscriber,
});
const subsImport = defineTool({
  ...W,
  idempotencyKey: true,
  name: "email_subscribers_import",
  title: "Import subscribers",
  description: `Add up to ${IMPORT_MAX} rows as email_subscribers_add does; dryRun writes nothing.`,
  input: v.object({
    listIds: v.pipe(ids, v.minLength(1)),
    rows: v.pipe(
      v.array(
        v.object({
          email: v.pipe(v.string(), v.maxLength(1000)),
          name: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(1000)))),
          attributes: v.optional(jsonObject()),
        }),
      ),
      v.minLength(1),
      v.maxLength(IMPORT_MAX),
    ),
    preconfirmed: v.optional(v.boolean()),
    dryRun: v.optional(v.boolean()),
  }),
  run: importSubscribers,
});
const subsUpdate = defineTool({
  ...W,
  idempotent: true,
  name: "email_subscribers_update",
  title: "Change a subscriber",
  description: "Change a subscriber (attributes merge) or set list statuses.",
  input: v.object({
    ...who,
    newEmail: v.optional(email),
    name: v.optional(v.nullable(name)),
    attributes: v.optional(attrs),
    blocklisted: v.optional(v.boolean()),
    lists: v.optional(v.pipe(v.array(v.object({ listId: idSchema, status: memberStatus })), v.maxLength(50))),
  }),
  run: updateSubscriber,
});
const subsUnsub = defineTool({
  ...W,
  idempotent: true,
  name: "email_subscribers_unsubscribe",
  title: "Unsubscribe",
  description: "Unsubscribe an address from listIds (default: every list).",
  input: v.object({ ...who, listIds: v.optional(ids) }),
  run: unsubscribeSubscriber,
});
const subsDelete = defineTool({
  ...W,
  destructive: true,
  name: "email_subscribers_delete",
  title: "Delete a subscriber",
  description: "Delete a subscriber and memberships (send history stays).",
  input: v.object(who),
  run: deleteSubscriber,
});
const subsHistory = defineTool({
  ...R,
  name: "email_subscribers_history",
  title: "Subscriber history",
  description: "What a subscriber was sent, with delivery, opens, clicks.",
  input: v.object({ ...who, ...paging }),
  run: subscriberHistory,
});

// Segments

const RULES_HELP =
  "rules {match: all|any, conditions: [{field, op, value?}]}; field email|name|createdAt|attributes.<key>|list|crm.<field> (CRM contact of the address: lifecycleStage, owner, tags, score, custom.<key>, company.<name|domain|industry|size|tags|custom.<key>>); op eq neq contains not_contains starts_with ends_with gt gte lt lte exists not_exists; createdAt: before/after; list: in/not_in, value listId, status? (default subscribed).";
const segList = defineTool({
  ...R,
  name: "email_segments_list",
  title: "List segments",
  description: "Saved segments with their rules.",
  input: v.object({ search: v.optional(search), ...paging }),
  run: listSegments,
});
const segGet = defineTool({
  ...R,
  name: "email_segments_get",
  title: "Get a segment",
  description: "A segment and its rules.",
  input: v.object({ id: idSchema }),
  run: getSegment,
});
const rules = jsonObject("rules");
const segCreate = defineTool({
  ...W,
  name: "email_segments_create",
  title: "Create a segment",
  description: `Save a segment. ${RULES_HELP}`,
  input: v.object({ name, rules }),
  run: (ctx, i) => createSegment(ctx, { ...i, rules: parseRules(i.rules) }),
});
const segUpdate = defineTool({
  ...W,
  idempotent: true,
  name: "email_segments_update",
  title: "Change a segment",
  description: "Rename a segment or replace its rules (as in create).",
  input: v.object({ id: idSchema, name: v.optional(name), rules: v.optional(rules) }),
  run: (ctx, i) => updateSegment(ctx, { ...i, rules: i.rules === undefined ? undefined : parseRules(i.rules) }),
});
const segDelete = defineTool({
  ...W,
  destructive: true,
  name: "email_segments_delete",
  title: "Delete a segment",
  description: "Delete a segment no open campaign uses.",
  input: v.object({ id: idSchema }),
  run: deleteSegment,
});
const segCount = defineTool({
  ...R,
  name: "email_segments_count",
  title: "Count a segment",
  description: "How many subscribers a segment or rules hold now, with 10 of them.",
  input: v.object({ id: v.optional(idSchema), rules: v.optional(rules) }),
  run: (ctx, i) => countSegment(ctx, { id: i.id, rules: i.rules === undefined ? undefined : parseRules(i.rules) }),
});

// Templates

const VARS =
  "Variables: {{ name }}, {{ email }}, {{ attributes.key }}, {{ data.key }}, {{ unsubscribe_url }}, fallback {{ name | there }}.";
const tplList = defineTool({
  ...R,
  name: "email_templates_list",
  title: "List templates",
  description: "Email templates (without bodies).",
  input: v.object({ search: v.optional(search), ...paging }),
  run: listTemplates,
});
const tplGet = defineTool({
  ...R,
  name: "email_templates_get",
  title: "Get a template",
  description: "A template with its HTML and text.",
  input: v.object({ id: idSchema }),
  run: getTemplate,
});
const tplCreate = defineTool({
  ...W,
  name: "email_templates_create",
  title: "Create a template",
  description: `Save sanitised HTML and optional text (generated if omitted). ${VARS}`,
  input: v.object({ name, html, text: v.optional(text) }),
  run: createTemplate,
});
const tplUpdate = defineTool({
  ...W,
  idempotent: true,
  name: "email_templates_update",
  title: "Change a template",
  description: "Change a template; campaigns keep their copy.",
  input: v.object({ id: idSchema, name: v.optional(name), html: v.optional(html), text: v.optional(v.nullable(text)) }),
  run: updateTemplate,
});
const tplDelete = defineTool({
  ...W,
  destructive: true,
  name: "email_templates_delete",
  title: "Delete a template",
  description: "Delete a template (campaigns keep their copy).",
  input: v.object({ id: idSchema }),
  run: deleteTemplate,
});
const tplRender = defineTool({
  ...R,
  name: "email_templates_render",
  title: "Render a template",
  description: "Render a template with sample values: subject, html, text.",
  input: v.object({
    id: idSchema,
    subject: v.optional(line(900)),
    name: v.optional(name),
    email: v.optional(email),
    attributes: v.optional(attrs),
    data: v.optional(jsonObject("data")),
  }),
  run: renderTemplate,
});

// Campaigns

const content = {
  subject: v.optional(line(900)),
  preheader: v.optional(v.nullable(line(300))),
  fromName: v.optional(v.nullable(name)),
  fromEmail: v.optional(v.nullable(email)),
  replyTo: v.optional(v.nullable(email)),
  templateId: v.optional(idSchema),
  html: v.optional(html),
  text: v.optional(v.nullable(text)),
  listIds: v.optional(ids),
  segmentIds: v.optional(ids),
  trackOpens: v.optional(v.boolean()),
  trackClicks: v.optional(v.boolean()),
  ratePerMinute: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(60_000))),
};
const cList = defineTool({
  ...R,
  name: "email_campaigns_list",
  title: "List campaigns",
  description: "Campaigns, newest first, with status, schedule, recipients.",
  input: v.object({ status: v.optional(v.picklist(CAMPAIGN_STATUSES)), search: v.optional(search), ...paging }),
  run: listCampaigns,
});
const cGet = defineTool({
  ...R,
  name: "email_campaigns_get",
  title: "Get a campaign",
  description: "A campaign: content, audience size now, approval state, schedule.",
  input: v.object({ id: idSchema }),
  run: getCampaign,
});
const cCreate = defineTool({
  ...W,
  approval: "email_campaign",
  name: "email_campaigns_create",
  title: "Draft a campaign",
  description: "Draft a campaign to lists, narrowed by segments; sent once approved.",
  input: v.object({ ...content, name, subject: line(900), listIds: v.pipe(ids, v.minLength(1)) }),
  run: createCampaign,
});
const cUpdate = defineTool({
  ...W,
  idempotent: true,
  approval: "email_campaign",
  name: "email_campaigns_update",
  title: "Change a campaign",
  description: "Change an unsent campaign; it needs approval again and is unscheduled.",
  input: v.object({ id: idSchema, name: v.optional(name), ...content }),
  run: updateCampaign,
});
const cDelete = defineTool({
  ...W,
  destructive: true,
  name: "email_campaigns_delete",
  title: "Delete a campaign",
  description: "Delete a campaign that reached nobody and is not sending.",
  input: v.object({ id: idSchema }),
  run: deleteCampaign,
});
const cSend = defineTool({
  ...S,
  supervised: "staged",
  name: "email_campaigns_send",
  title: "Send a campaign",
  description: `Send an approved campaign now (needs SMTP). ${COST}`,
  input: v.object({ id: idSchema }),
  run: sendCampaign,
});
const cSchedule = defineTool({
  ...S,
  supervised: "staged",
  idempotent: true,
  name: "email_campaigns_schedule",
  title: "Schedule a campaign",
  description: `Send an approved campaign later (at: ISO, or local with timeZone). ${COST}`,
  input: v.object({
    id: idSchema,
    at: v.pipe(v.string(), v.minLength(1), v.maxLength(40)),
    timeZone: v.optional(v.pipe(v.string(), v.maxLength(64))),
  }),
  run: scheduleCampaign,
});
const cPause = defineTool({
  ...S,
  idempotent: true,
  name: "email_campaigns_pause",
  title: "Pause a campaign",
  description: "Pause a sending or scheduled campaign.",
  input: v.object({ id: idSchema }),
  run: pauseCampaign,
});
const cResume = defineTool({
  ...S,
  supervised: "staged",
  name: "email_campaigns_resume",
  title: "Resume a campaign",
  description: "Resume a paused campaign where it stopped.",
  input: v.object({ id: idSchema }),
  run: resumeCampaign,
});
const cCancel = defineTool({
  ...S,
  destructive: true,
  name: "email_campaigns_cancel",
  title: "Cancel a campaign",
  description: "Cancel a scheduled, sending or paused campaign.",
  input: v.object({ id: idSchema }),
  run: cancelCampaign,
});
const cTest = defineTool({
  ...S,
  supervised: "staged",
  name: "email_campaigns_test",
  title: "Send a test",
  description: `Send a [Test] copy to up to 5 addresses (members only until approved). ${COST}`,
  input: v.object({
    id: idSchema,
    to: v.pipe(v.array(email), v.minLength(1), v.maxLength(5)),
    name: v.optional(name),
    attributes: v.optional(attrs),
  }),
  run: testCampaign,
});
const cStats = defineTool({
  ...R,
  name: "email_campaigns_stats",
  title: "Campaign stats",
  description: "A campaign's delivery, open, click, bounce and unsubscribe stats.",
  input: v.object({ id: idSchema }),
  run: campaignStats,
});
const cRecipients = defineTool({
  ...R,
  name: "email_campaigns_recipients",
  title: "Campaign recipients",
  description: "Per-recipient delivery of a campaign.",
  input: v.object({
    id: idSchema,
    status: v.optional(v.picklist(["queued", "sent", "failed", "bounced", "cancelled"])),
    search: v.optional(search),
    ...paging,
  }),
  run: campaignRecipients,
});

const txSend = defineTool({
  ...S,
  supervised: "staged",
  idempotencyKey: true,
  name: "email_transactional_send",
  title: "Send a transactional email",
  description: `Send one message from a template (data fills {{ data.key }}). ${COST}`,
  input: v.object({
    to: email,
    templateId: idSchema,
    subject: line(900),
    name: v.optional(name),
    data: v.optional(attrs),
    fromName: v.optional(name),
    fromEmail: v.optional(email),
    replyTo: v.optional(email),
  }),
  run: sendTransactional,
});

// Bounce and complaint feedback

const fbSetup = defineTool({
  ...W,
  name: "email_feedback_setup",
  title: "Set up bounce feedback",
  description: "Make (or replace) the secret URL for bounce reports; shown once.",
  input: v.object({}),
  run: setupFeedback,
});
const fbList = defineTool({
  ...R,
  name: "email_feedback_list",
  title: "List bounces and complaints",
  description: "Bounce and complaint reports received, newest first.",
  input: v.object({
    kind: v.optional(v.picklist(["hard_bounce", "soft_bounce", "complaint"])),
    email: v.optional(email),
    campaignId: v.optional(idSchema),
    ...paging,
  }),
  run: listFeedback,
});

// Sending domains (DKIM keys and the DNS check)

const domainName = v.pipe(v.string(), v.minLength(1), v.maxLength(260));
const domainRef = { id: v.optional(idSchema), domain: v.optional(domainName) };
const dAdd = defineTool({
  ...W,
  name: "email_domains_add",
  title: "Add a sending domain",
  description: "Make a DKIM key for a sending domain; returns DNS records.",
  input: v.object({ domain: domainName }),
  run: addSendingDomain,
});
const dList = defineTool({
  ...R,
  name: "email_domains_list",
  title: "List sending domains",
  description: "Sending domains with their DKIM selector and last check.",
  input: v.object({ ...paging }),
  run: listSendingDomains,
});
const dGet = defineTool({
  ...R,
  name: "email_domains_get",
  title: "Get a sending domain",
  description: "A sending domain: records to publish and the last check.",
  input: v.object(domainRef),
  run: getSendingDomain,
});
const dCheck = defineTool({
  ...W,
  openWorld: true,
  name: "email_domains_check",
  title: "Check a sending domain",
  description: "Check a sending domain's SPF, DKIM, DMARC and MX in DNS now.",
  input: v.object(domainRef),
  run: checkSendingDomain,
});
const dRotate = defineTool({
  ...W,
  name: "email_domains_rotate",
  title: "Rotate a DKIM key",
  description: "Make a next DKIM key, used once its record is published.",
  input: v.object(domainRef),
  run: rotateSendingDomain,
});
const dDelete = defineTool({
  ...W,
  destructive: true,
  name: "email_domains_delete",
  title: "Delete a sending domain",
  description: "Delete a sending domain and its DKIM key (mail goes unsigned).",
  input: v.object(domainRef),
  run: deleteSendingDomain,
});

export const emailDomain: Domain = {
  demo: demoEmail,
  scopes: [
    {
      area: "email",
      title: "Email",
      words: {
        "email:read": "read campaigns, lists, subscribers and templates",
        "email:write": "create, change and delete them",
        "email:send": "send and schedule campaigns",
      },
    },
  ],
  name: "email",
  title: "Email marketing",
  description:
    "Lists, subscribers, segments, templates, approved campaigns sent over SMTP, stats, and transactional mail.",
  vocabulary: {
    newsletter: ["campaign"],
    mailing: ["campaign"],
    mailout: ["campaign"],
    blast: ["campaign"],
    announcement: ["campaign"],
    audience: ["segment"],
    group: ["segment"],
    opened: ["stats"],
    "open rate": ["stats"],
    clicks: ["stats"],
    performance: ["stats"],
    bounce: ["feedback"],
    bounced: ["feedback"],
    complaint: ["feedback"],
    spam: ["feedback"],
    "mailing list": ["list", "subscriber"],
    "password reset": ["transactional"],
    receipt: ["transactional"],
    confirmation: ["transactional"],
    design: ["template"],
    layout: ["template"],
    stop: ["pause", "cancel"],
    halt: ["pause"],
    hold: ["pause"],
    preview: ["test"],
    "send me": ["test"],
    spreadsheet: ["import"],
    csv: ["import"],
    upload: ["import"],
    "sent to": ["history"],
    received: ["history"],
    someone: ["subscriber"],
    person: ["subscriber"],
    people: ["subscriber"],
    dkim: ["domain"],
    spf: ["domain", "check"],
    dmarc: ["domain", "check"],
    deliverability: ["domain", "check"],
    sender: ["domain"],
  },
  tools: [
    listsList,
    listsGet,
    listsCreate,
    listsUpdate,
    listsDelete,
    subsList,
    subsGet,
    subsAdd,
    subsImport,
    subsUpdate,
    subsUnsub,
    subsDelete,
    subsHistory,
    segList,
    segGet,
    segCreate,
    segUpdate,
    segDelete,
    segCount,
    tplList,
    tplGet,
    tplCreate,
    tplUpdate,
    tplDelete,
    tplRender,
    cList,
    cGet,
    cCreate,
    cUpdate,
    cDelete,
    cSend,
    cSchedule,
    cPause,
    cResume,
    cCancel,
    cTest,
    cStats,
    cRecipients,
    txSend,
    fbSetup,
    fbList,
    dAdd,
    dList,
    dGet,
    dCheck,
    dRotate,
    dDelete,
  ],
  approvalKinds: [emailApprovalKind],
  stagedTargets: [campaignStagedTarget],
  approvalSupport: emailApprovalSupport,
  events: emailEvents,
  jobs: [deliverJob, foldJob],
  notificationTypes: [
    { type: "email.campaign_paused", label: "A campaign paused for want of AI credits", inApp: true, email: true },
  ],
  publicPages: [emailPublicPages],
  portal: { routes: emailPages, nav: [{ href: EMAIL_PATH, label: "Email" }] },
};
