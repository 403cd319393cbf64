/**
 * Two toolsets from one folder: `automations` (trigger → conditions →
 * actions, versions, dry runs, run history) and `webhooks` (outgoing
 * webhook subscriptions and their delivery log). Both use the
 * automations:read / automations:write scopes: a webhook subscription is
 * an automation whose only action is "POST this event there"; the
 * integrations toolset lists them among connected integrations.
 */
import { AUTOMATIONS_PATH, automationPages } from "./pages";
import { idSchema } from "../../core/fields";
import { webhookSettings } from "./settings";
import { demoAutomations } from "./demo";
import * as v from "valibot";
import { jsonObject } from "../../core/json-value";
import { pageInput } from "../../core/pagination";
import { PRICES } from "../ai/meter";
import { webhookIntegrations } from "./integration";
import { defineResource, defineTool, guideResource, type Domain } from "../../mcp/define";
import automationsGuide from "../../../docs/automations.md" with { type: "text" };
import webhooksGuide from "../../../docs/webhooks.md" with { type: "text" };
import { actionShapes, catalogOf, eventShapes } from "./shapes";
import { getHttpSettings, MAX_HOSTS, setHttpSettings } from "./http";
import {
  createAutomation,
  deleteAutomation,
  getAutomation,
  getRun,
  listAutomations,
  listRuns,
  listVersions,
  replayRun,
  retryRun,
  rollbackAutomation,
  testAutomation,
  toggleAutomation,
  updateAutomation,
} from "./automations";
import { actionSchema, conditionSchema, triggerSchema } from "./definition";
import { automationEvents } from "./events";
import { hookRoutes } from "./hooks";
import { automationTrigger, pruneRunsJob, runJob, scheduleJob } from "./runner";
import { RUN_STATUSES, type AutomationDefinition } from "./tables";
import {
  createWebhook,
  deleteWebhook,
  deliverJob,
  getDelivery,
  getWebhook,
  listDeliveries,
  listWebhooks,
  pruneDeliveriesJob,
  redeliver,
  rotateWebhookSecret,
  testWebhook,
  updateWebhook,
  webhookFanout,
} from "./webhooks";

const id = idSchema;
const name = v.pipe(v.string(), v.minLength(1), v.maxLength(120));
const description = v.nullable(v.pipe(v.string(), v.maxLength(2000)));
const conditions = v.pipe(v.array(conditionSchema), v.maxLength(20));
const actions = v.pipe(v.array(actionSchema), v.minLength(1), v.maxLength(20));
const url = v.pipe(v.string(), v.maxLength(2000));
const eventTypes = v.pipe(v.array(v.pipe(v.string(), v.maxLength(100))), v.minLength(1), v.maxLength(100));

const R = { toolset: "automations", scope: "automations:read", readOnly: true } as const;
const W = { toolset: "automations", scope: "automations:write", readOnly: false } as const;

const automationsList = defineTool({
  ...R,
  name: "automations_list",
  description: "List automations by enabled, trigger type or event type.",
  input: v.object({
    enabled: v.optional(v.boolean()),
    triggerType: v.optional(v.picklist(["event", "schedule", "webhook"])),
    eventType: v.optional(v.string()),
    ...pageInput,
  }),
  run: (ctx, i) => listAutomations(ctx, i),
});

const automationsGet = defineTool({
  ...R,
  name: "automations_get",
  description: "An automation with trigger, conditions, actions and version.",
  input: v.object({ id }),
  run: (ctx, i) => getAutomation(ctx, i),
});

const automationsCreate = defineTool({
  ...W,
  name: "automations_create",
  description:
    "Create an automation (disabled unless enabled). trigger.type event | schedule | webhook; with strings take {{trigger.data.x}}, " +
    "{{steps.0.output.x}}; fields: automation_catalog_get; guide: docs://automations. Runs with your rights. " +
    `A send_email action costs ${PRICES["email.send"]} AI credit per recipient.`,
  input: v.object({
    name,
    description: v.optional(description, null),
    trigger: triggerSchema,
    conditions: v.optional(conditions, []),
    actions,
    enabled: v.optional(v.boolean()),
  }),
  run: (ctx, i) => createAutomation(ctx, i as AutomationDefinition & { enabled?: boolean }),
});

const automationsUpdate = defineTool({
  ...W,
  name: "automations_update",
  description: "Change an automation; saves a new, validated version.",
  input: v.object({
    id,
    name: v.optional(name),
    description: v.optional(description),
    trigger: v.optional(triggerSchema),
    conditions: v.optional(conditions),
    actions: v.optional(actions),
  }),
  run: (ctx, i) => updateAutomation(ctx, i as Partial<AutomationDefinition> & { id: number }),
});

const automationsDelete = defineTool({
  ...W,
  destructive: true,
  name: "automations_delete",
  description: "Delete an automation with its versions and run history.",
  input: v.object({ id }),
  run: (ctx, i) => deleteAutomation(ctx, i),
});

const automationsToggle = defineTool({
  ...W,
  idempotent: true,
  name: "automations_toggle",
  description: "Enable or disable an automation; enabling re-validates it.",
  input: v.object({ id, enabled: v.boolean() }),
  run: (ctx, i) => toggleAutomation(ctx, i),
});

const automationsTest = defineTool({
  ...R,
  name: "automations_test",
  description:
    "Dry run with sample trigger data or a recent eventId, checked as a live run would; writes and sends nothing.",
  input: v.object({ id, eventId: v.optional(id), sample: v.optional(jsonObject("sample")) }),
  run: (ctx, i) => testAutomation(ctx, i),
});

const catalogGet = defineTool({
  ...R,
  // Reads the code's schemas, no company data: no clientId.
  companyFree: true,
  name: "automation_catalog_get",
  description:
    "Each action's with fields and the event types; eventType (post.published, post.*) adds its data fields.",
  input: v.object({
    eventType: v.optional(v.pipe(v.string(), v.maxLength(100))),
    actionType: v.optional(actionSchema.entries.type),
  }),
  run: (ctx, i) => catalogOf(ctx.deps, i),
});

const automationsVersions = defineTool({
  ...R,
  name: "automation_versions_list",
  description: "Saved versions of an automation, newest first.",
  input: v.object({ id, ...pageInput }),
  run: (ctx, i) => listVersions(ctx, i),
});

const automationsRollback = defineTool({
  ...W,
  name: "automations_rollback",
  description: "Restore an earlier version's definition as a new version.",
  input: v.object({ id, version: id }),
  run: (ctx, i) => rollbackAutomation(ctx, i),
});

const runsList = defineTool({
  ...R,
  name: "automation_runs_list",
  description: "Run history, newest first.",
  input: v.object({ automationId: v.optional(id), status: v.optional(v.picklist(RUN_STATUSES)), ...pageInput }),
  run: (ctx, i) => listRuns(ctx, i),
});

const runsGet = defineTool({
  ...R,
  name: "automation_runs_get",
  description: "A run: trigger data and each step's input, output and error.",
  input: v.object({ id }),
  run: (ctx, i) => getRun(ctx, i),
});

const guide = guideResource({
  name: "automations",
  title: "Automations guide",
  description:
    "How automations work: triggers, conditions, actions and templates, whose rights they use, runs, retry and replay, the dry run.",
  scope: "automations:read",
  markdown: automationsGuide,
});

const eventsResource = defineResource({
  uri: "automations://events",
  name: "Event data shapes",
  description:
    "Every event type automations and webhooks can subscribe to, with its data fields (JSON Schema) and an example.",
  mimeType: "application/json",
  scope: "automations:read",
  read: ({ deps }) => JSON.stringify(eventShapes(deps)),
});

const actionsResource = defineResource({
  uri: "automations://actions",
  name: "Automation action fields",
  description: "Each automation action type with its with fields (JSON Schema) and an example.",
  mimeType: "application/json",
  scope: "automations:read",
  read: ({ deps }) => JSON.stringify(actionShapes(deps)),
});

const runsRetry = defineTool({
  ...W,
  name: "automation_runs_retry",
  description: "Queue a failed run again from its failed step.",
  input: v.object({ id }),
  run: (ctx, i) => retryRun(ctx, i),
});

const runsReplay = defineTool({
  ...W,
  name: "automation_runs_replay",
  description: "Run a failed or skipped run again on the current version; once.",
  input: v.object({ id }),
  run: (ctx, i) => replayRun(ctx, i),
});

const httpGet = defineTool({
  ...R,
  name: "automation_http_get",
  description: "Hosts http steps may call, and the names of stored secrets.",
  input: v.object({}),
  run: (ctx) => getHttpSettings(ctx),
});

const httpSet = defineTool({
  ...W,
  name: "automation_http_set",
  description: "Set http steps' allowed hosts; store or delete (null) secrets.",
  input: v.object({
    hosts: v.optional(v.pipe(v.array(v.pipe(v.string(), v.maxLength(253))), v.maxLength(MAX_HOSTS))),
    secrets: v.optional(
      v.pipe(
        v.record(v.pipe(v.string(), v.maxLength(40)), v.nullable(v.pipe(v.string(), v.maxLength(4000)))),
        v.description("Name → value, read as {{secrets.NAME}} in http headers; never shown again."),
      ),
    ),
  }),
  run: (ctx, i) => setHttpSettings(ctx, i),
});

const WR = { toolset: "webhooks", scope: "automations:read", readOnly: true } as const;
const WW = { toolset: "webhooks", scope: "automations:write", readOnly: false } as const;

const webhooksList = defineTool({
  ...WR,
  name: "webhooks_list",
  description: "The company's outgoing webhooks.",
  input: v.object({ status: v.optional(v.picklist(["enabled", "disabled"])), ...pageInput }),
  run: (ctx, i) => listWebhooks(ctx, i),
});

const webhooksGet = defineTool({
  ...WR,
  name: "webhooks_get",
  description: "A webhook with its health and delivery counts.",
  input: v.object({ id }),
  run: (ctx, i) => getWebhook(ctx, i),
});

const webhooksCreate = defineTool({
  ...WW,
  openWorld: true,
  name: "webhooks_create",
  description: "Create a webhook: an https URL gets event types; secret shown once.",
  input: v.object({ url, eventTypes, description: v.optional(description) }),
  run: (ctx, i) => createWebhook(ctx, i),
});

const webhooksUpdate = defineTool({
  ...WW,
  name: "webhooks_update",
  description: "Change a webhook; enabled: true resends what waited.",
  input: v.object({
    id,
    url: v.optional(url),
    eventTypes: v.optional(eventTypes),
    description: v.optional(description),
    enabled: v.optional(v.boolean()),
  }),
  run: (ctx, i) => updateWebhook(ctx, i),
});

const webhooksDelete = defineTool({
  ...WW,
  destructive: true,
  name: "webhooks_delete",
  description: "Delete a webhook and its delivery log.",
  input: v.object({ id }),
  run: (ctx, i) => deleteWebhook(ctx, i),
});

const webhooksRotate = defineTool({
  ...WW,
  name: "webhooks_rotate_secret",
  description: "New signing secret (returned once); the old one stops at once.",
  input: v.object({ id }),
  run: (ctx, i) => rotateWebhookSecret(ctx, i),
});

const webhooksTest = defineTool({
  ...WW,
  openWorld: true,
  name: "webhooks_test",
  description: "Send a signed webhook.test payload now and report the answer.",
  input: v.object({ id }),
  run: (ctx, i) => testWebhook(ctx, i),
});

const deliveriesList = defineTool({
  ...WR,
  name: "webhook_deliveries_list",
  description: "Webhook delivery log, newest first.",
  input: v.object({
    webhookId: v.optional(id),
    status: v.optional(v.picklist(["pending", "succeeded", "failed"])),
    eventType: v.optional(v.string()),
    ...pageInput,
  }),
  run: (ctx, i) => listDeliveries(ctx, i),
});

const deliveriesGet = defineTool({
  ...WR,
  name: "webhook_deliveries_get",
  description: "A webhook delivery: payload and every attempt.",
  input: v.object({ id }),
  run: (ctx, i) => getDelivery(ctx, i),
});

const deliveriesRedeliver = defineTool({
  ...WW,
  openWorld: true,
  name: "webhook_deliveries_redeliver",
  description: "Send a delivered or failed delivery again (same webhook-id).",
  input: v.object({ id }),
  run: (ctx, i) => redeliver(ctx, i),
});

export const automationsDomain: Domain = {
  demo: demoAutomations,
  scopes: [
    {
      area: "automations",
      title: "Automations",
      words: {
        "automations:read": "read automations",
        "automations:write": "create, change, delete and switch them on or off",
      },
    },
  ],
  name: "automations",
  title: "Automations",
  description:
    "When something happens (an event, a schedule, a signed incoming webhook), check conditions and run actions: create cards, send emails, notify people, call webhooks or any Plinth tool.",
  vocabulary: {
    workflow: ["automation"],
    rule: ["automation"],
    zap: ["automation"],
    recipe: ["automation"],
    when: ["automation", "create"],
    every: ["automation", "schedule"],
    "turn off": ["toggle"],
    "turn on": ["toggle"],
    disable: ["toggle"],
    enable: ["toggle"],
    "switch off": ["toggle"],
    fail: ["run"],
    failed: ["run"],
    why: ["run"],
    "previous version": ["rollback"],
    revert: ["rollback"],
    "go back": ["rollback"],
    undo: ["rollback"],
    slack: ["webhook"],
  },
  tools: [
    automationsList,
    automationsGet,
    automationsCreate,
    automationsUpdate,
    automationsDelete,
    automationsToggle,
    automationsTest,
    catalogGet,
    automationsVersions,
    automationsRollback,
    runsList,
    runsGet,
    runsRetry,
    runsReplay,
    httpGet,
    httpSet,
  ],
  resources: [guide, eventsResource, actionsResource],
  events: automationEvents,
  subscribers: [automationTrigger],
  jobs: [runJob, scheduleJob, pruneRunsJob],
  publicPages: [{ prefix: "/hooks", routes: hookRoutes }],
  portal: { routes: automationPages, nav: [{ href: AUTOMATIONS_PATH, label: "Automations" }] },
  notificationTypes: [
    { type: "automation.failed", label: "An automation you made failed", inApp: true, email: true },
    { type: "automation.message", label: "Messages from automations", inApp: true, email: false },
  ],
};

export const webhooksDomain: Domain = {
  settings: [webhookSettings],
  name: "webhooks",
  title: "Webhooks",
  description:
    "Outgoing webhooks: signed POSTs of events to your URLs, retried, in order per entity, with a delivery log.",
  vocabulary: {
    "notify our server": ["webhook", "create"],
    callback: ["webhook"],
    endpoint: ["webhook"],
    server: ["webhook"],
    resend: ["redeliver"],
    retry: ["redeliver"],
    replay: ["redeliver"],
    signing: ["secret"],
    leaked: ["rotate", "secret"],
  },
  tools: [
    webhooksList,
    webhooksGet,
    webhooksCreate,
    webhooksUpdate,
    webhooksDelete,
    webhooksRotate,
    webhooksTest,
    deliveriesList,
    deliveriesGet,
    deliveriesRedeliver,
  ],
  resources: [
    guideResource({
      name: "webhooks",
      title: "Outgoing webhooks guide",
      description:
        "Outgoing webhooks: what is sent, signatures and how to verify them, retries, ordering, disabling and redelivery.",
      scope: "automations:read",
      markdown: webhooksGuide,
    }),
  ],
  subscribers: [webhookFanout],
  jobs: [deliverJob, pruneDeliveriesJob],
  integrations: [webhookIntegrations],
  notificationTypes: [
    { type: "webhook.disabled", label: "An outgoing webhook was disabled after failing", inApp: true, email: true },
  ],
};

export const automationDomains = [automationsDomain, webhooksDomain];
