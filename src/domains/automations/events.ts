/**
 * What automations and webhooks tell the rest of Plinth: automations
 * created, changed, deleted, a run that failed, a webhook disabled for
 * failing. Subscribable like any other event (an automation can alert on
 * another's failure; loop protection still applies).
 */
import * as v from "valibot";
import { defineEvent } from "../../core/events";

const summary = v.object({
  automationId: v.number(),
  name: v.string(),
  version: v.number(),
  enabled: v.boolean(),
  triggerType: v.string(),
});
export const automationCreated = defineEvent({
  type: "automation.created",
  entity: "automation",
  description: "An automation was created (enabled or not).",
  payload: summary,
});
export const automationUpdated = defineEvent({
  type: "automation.updated",
  entity: "automation",
  description: "An automation changed: a new version, a rollback (fields names what), or enabled/disabled.",
  payload: v.object({ ...summary.entries, fields: v.array(v.string()) }),
});
export const automationDeleted = defineEvent({
  type: "automation.deleted",
  entity: "automation",
  description: "An automation was deleted with its versions and runs.",
  payload: summary,
});
export const automationRunFailed = defineEvent({
  type: "automation.run_failed",
  entity: "automation",
  description: "An automation run failed at a step (error); automation_runs_retry resumes it there.",
  payload: v.object({
    automationId: v.number(),
    name: v.string(),
    runId: v.number(),
    step: v.number(),
    error: v.string(),
  }),
});

export const webhookDisabled = defineEvent({
  type: "webhook.disabled",
  entity: "webhook",
  description:
    "An outgoing webhook was disabled after failing deliveries in a row; its pending deliveries wait until it is enabled.",
  payload: v.object({ webhookId: v.number(), url: v.string(), failureStreak: v.number(), reason: v.string() }),
});

export const automationEvents = [
  automationCreated,
  automationUpdated,
  automationDeleted,
  automationRunFailed,
  webhookDisabled,
];
