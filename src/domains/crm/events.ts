/**
 * What the crm domain tells subscribers. Payloads carry what an automation
 * needs without a second call: names, primary emails, owners' user ids,
 * stages by id and name, amounts with their currency.
 */
import * as v from "valibot";
import { defineEvent } from "../../core/events";

const userId = v.nullable(v.number());
const contactBase = {
  name: v.string(),
  emails: v.array(v.string()),
  companyId: v.nullable(v.number()),
  ownerUserId: userId,
  lifecycleStage: v.string(),
};

export const contactCreated = defineEvent({
  type: "contact.created",
  entity: "contact",
  description: "A CRM contact was created (source: tool or import).",
  payload: v.object({ ...contactBase, tags: v.array(v.string()), source: v.picklist(["tool", "import"]) }),
});
export const contactUpdated = defineEvent({
  type: "contact.updated",
  entity: "contact",
  description: "A contact changed; changed names the fields (emails, ownerId, lifecycleStage, custom.<key>…).",
  payload: v.object({
    ...contactBase,
    changed: v.array(v.string()),
    previousOwnerUserId: userId,
    previousLifecycleStage: v.string(),
  }),
});
export const contactDeleted = defineEvent({
  type: "contact.deleted",
  entity: "contact",
  description: "A contact was deleted with its activities.",
  payload: v.object({ name: v.string(), emails: v.array(v.string()) }),
});
export const contactScoreChanged = defineEvent({
  type: "contact.score_changed",
  entity: "contact",
  description: "A contact's lead score changed after recomputation (rules, activities, decay).",
  payload: v.object({
    name: v.string(),
    email: v.nullable(v.string()),
    from: v.number(),
    to: v.number(),
    ownerUserId: userId,
  }),
});
export const crmCompanyChanged = defineEvent({
  type: "crm_company.changed",
  entity: "crm_company",
  description: "A CRM company was created, updated or deleted; changed names the fields.",
  payload: v.object({
    action: v.picklist(["created", "updated", "deleted"]),
    name: v.string(),
    domain: v.nullable(v.string()),
    ownerUserId: userId,
    changed: v.array(v.string()),
  }),
});
export const recordMerged = defineEvent({
  type: "crm_record.merged",
  entity: "crm_merge",
  description: "Two contacts or two CRM companies were merged (or a merge undone); entity id is the merge id.",
  payload: v.object({
    object: v.picklist(["contact", "company"]),
    action: v.picklist(["merged", "undone"]),
    survivorId: v.number(),
    mergedId: v.number(),
    survivorName: v.string(),
    mergedName: v.string(),
  }),
});

const dealBase = {
  name: v.string(),
  amountCents: v.number(),
  currency: v.string(),
  pipelineId: v.number(),
  stageId: v.number(),
  stage: v.string(),
  status: v.picklist(["open", "won", "lost"]),
  ownerUserId: userId,
  companyId: v.nullable(v.number()),
  contactIds: v.array(v.number()),
};
export const dealCreated = defineEvent({
  type: "deal.created",
  entity: "deal",
  description: "A deal was created in a pipeline stage.",
  payload: v.object(dealBase),
});
export const dealUpdated = defineEvent({
  type: "deal.updated",
  entity: "deal",
  description: "A deal's fields changed (not its stage: deal.stage_changed); changed names them.",
  payload: v.object({ ...dealBase, changed: v.array(v.string()) }),
});
export const dealStageChanged = defineEvent({
  type: "deal.stage_changed",
  entity: "deal",
  description:
    "A deal moved stage (maybe pipeline): from/to ids and names, status after (won/lost/open), who moved it.",
  payload: v.object({
    ...dealBase,
    fromStageId: v.number(),
    fromStage: v.string(),
    fromPipelineId: v.number(),
    byUserId: v.number(),
    lostReason: v.nullable(v.string()),
  }),
});
export const dealDeleted = defineEvent({
  type: "deal.deleted",
  entity: "deal",
  description: "A deal was deleted.",
  payload: v.object(dealBase),
});

export const crmActivityChanged = defineEvent({
  type: "crm_activity.changed",
  entity: "crm_activity",
  description:
    "A note, call, meeting or task was created, updated, completed, reopened or deleted; the records it is on.",
  payload: v.object({
    action: v.picklist(["created", "updated", "completed", "reopened", "deleted"]),
    kind: v.string(),
    subject: v.nullable(v.string()),
    contactId: v.nullable(v.number()),
    companyId: v.nullable(v.number()),
    dealId: v.nullable(v.number()),
    dueAt: v.nullable(v.string()),
    ownerUserId: userId,
  }),
});

export const crmSettingsChanged = defineEvent({
  type: "crm_settings.changed",
  entity: "crm_setting",
  description:
    "A pipeline, custom field, saved view or scoring rule was created, updated or deleted (what names which).",
  payload: v.object({
    what: v.picklist(["pipeline", "field", "view", "scoring_rule"]),
    action: v.picklist(["created", "updated", "deleted"]),
    name: v.string(),
  }),
});

export const crmEvents = [
  contactCreated,
  contactUpdated,
  contactDeleted,
  contactScoreChanged,
  crmCompanyChanged,
  recordMerged,
  dealCreated,
  dealUpdated,
  dealStageChanged,
  dealDeleted,
  crmActivityChanged,
  crmSettingsChanged,
];
