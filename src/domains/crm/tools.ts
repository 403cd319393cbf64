/**
 * The crm toolset: contacts, CRM companies, deals in pipelines, activities
 * and timelines, search, merges, custom fields, saved views, lead scoring
 * and CSV import. Thin declarations over the verbs of this folder; every
 * verb re-checks scope and role and reads within the acting company only.
 */
import { defineTool, type Domain } from "../../mcp/define";
import { createActivity, deleteActivity, listActivities, search, timeline, updateActivity } from "./activities";
import { createCompany, deleteCompany, getCompany, listCompanies, updateCompany } from "./companies";
import { createContact, deleteContact, getContact, listContacts, updateContact } from "./contacts";
import { createDeal, deleteDeal, getDeal, listDeals, moveDeal, updateDeal } from "./deals";
import { crmEvents } from "./events";
import { createField, deleteField, listFields, updateField } from "./fields";
import { findDuplicates } from "./duplicates";
import { importContacts } from "./import";
import { listMerges, mergeCompanies, mergeContacts, undoMerge } from "./merges";
import { createPipeline, deletePipeline, forecast, getPipeline, listPipelines, updatePipeline } from "./pipelines";
import * as s from "./schemas";
import { createRule, deleteRule, listRules, recomputeScores, scoreDecayJob, updateRule } from "./scoring";
import { createView, deleteView, listViews, updateView } from "./views";

const T = { toolset: "crm" } as const;
const read = { ...T, scope: "crm:read", readOnly: true } as const;
const write = { ...T, scope: "crm:write", readOnly: false } as const;
const del = { ...write, destructive: true } as const;

const tools = [
  defineTool({
    ...read,
    name: "crm_search",
    title: "Search the CRM",
    description: "Find contacts, companies, deals by name, email, domain or phone; ignores case and accents.",
    input: s.searchInput,
    run: search,
  }),
  defineTool({
    ...read,
    name: "contacts_list",
    title: "List contacts",
    description: "List contacts; custom {key: value} filters; viewId applies a saved view.",
    input: s.contactListInput,
    run: listContacts,
  }),
  defineTool({
    ...read,
    name: "contacts_get",
    title: "Get a contact",
    description: "A contact by id or email, with deals and score per rule.",
    input: s.contactRefInput,
    run: getContact,
  }),
  defineTool({
    ...write,
    name: "contacts_create",
    title: "Create a contact",
    description: "Create a contact. A known email creates nothing: returns the existing one (created: false). Phones \"label: number\".",
    input: s.contactCreateInput,
    run: createContact,
  }),
  defineTool({
    ...write,
    name: "contacts_update",
    idempotent: true,
    title: "Update a contact",
    description: "Edit a contact. Phones replaced; custom merges, null removes a value.",
    input: s.contactUpdateInput,
    run: updateContact,
  }),
  defineTool({ ...del, name: "contacts_delete", title: "Delete a contact", description: "Delete a contact and activities on it alone.", input: s.contactRefInput, run: deleteContact }),
  defineTool({
    ...read,
    name: "crm_duplicates_find",
    title: "Find likely duplicates",
    description: "Likely duplicate contacts (or companies): same phone, same or similar name, same mailbox name; ranked pairs with reasons. Only records with id if given.",
    input: s.duplicatesInput,
    run: findDuplicates,
  }),
  defineTool({
    ...write,
    name: "contacts_merge",
    title: "Merge contacts",
    description: "Merge mergeId into id, losing nothing; keep {field: \"merged\"} picks the other's value. Undo: crm_merges_undo (30 days).",
    input: s.contactMergeInput,
    run: mergeContacts,
  }),
  defineTool({
    ...write,
    name: "contacts_import",
    // A retried real import must not add a second copy of contacts without an email.
    idempotencyKey: true,
    title: "Import contacts from CSV",
    description: "Import contacts from csv or mediaId. dryRun (default) reports each line: create, update, skip or refuse and why.",
    input: s.importInput,
    run: importContacts,
  }),
  defineTool({
    ...read,
    name: "crm_companies_list",
    title: "List CRM companies",
    description: "List the companies the client sells to; viewId applies a saved view.",
    input: s.companyListInput,
    run: listCompanies,
  }),
  defineTool({ ...read, name: "crm_companies_get", title: "Get a CRM company", description: "A company by id or domain, with contacts and deals.", input: s.crmCompanyRefInput, run: getCompany }),
  defineTool({
    ...write,
    name: "crm_companies_create",
    title: "Create a CRM company",
    description: "Create a company. A known domain creates nothing: returns the existing one.",
    input: s.companyCreateInput,
    run: createCompany,
  }),
  defineTool({ ...write, name: "crm_companies_update", idempotent: true, title: "Update a CRM company", description: "Edit a company; custom merges.", input: s.companyUpdateInput, run: updateCompany }),
  defineTool({ ...del, name: "crm_companies_delete", title: "Delete a CRM company", description: "Delete a company; its contacts and deals stay, unlinked.", input: s.crmCompanyRefInput, run: deleteCompany }),
  defineTool({
    ...write,
    name: "crm_companies_merge",
    title: "Merge CRM companies",
    description: "Merge mergeId into id: contacts, deals, activities move; keep as contacts_merge. Undo 30 days.",
    input: s.companyMergeInput,
    run: mergeCompanies,
  }),
  defineTool({ ...read, name: "crm_merges_list", title: "List merges", description: "Merges, newest first; undoable says if undo still works.", input: s.mergeListInput, run: listMerges }),
  defineTool({
    ...write,
    name: "crm_merges_undo",
    title: "Undo a merge",
    description: "Undo a merge (30 days); fields edited since stay, listed in warnings.",
    input: s.idInput,
    run: undoMerge,
  }),
  defineTool({
    ...read,
    name: "deals_list",
    title: "List deals",
    description: "List deals; status open|won|lost; viewId applies a saved view.",
    input: s.dealListInput,
    run: listDeals,
  }),
  defineTool({ ...read, name: "deals_get", title: "Get a deal", description: "A deal with contacts and stage history (who, when).", input: s.idInput, run: getDeal }),
  defineTool({
    ...write,
    name: "deals_create",
    title: "Create a deal",
    description: "Create a deal; defaults: first pipeline, its first open stage, owner you.",
    input: s.dealCreateInput,
    run: createDeal,
  }),
  defineTool({ ...write, name: "deals_update", idempotent: true, title: "Update a deal", description: "Edit a deal (stage: deals_move_stage).", input: s.dealUpdateInput, run: updateDeal }),
  defineTool({
    ...write,
    name: "deals_move_stage",
    idempotent: true,
    title: "Move a deal",
    description: "Move a deal to a stage (id or name). Lost needs lostReason; fromStage refuses if moved meanwhile.",
    input: s.dealMoveInput,
    run: moveDeal,
  }),
  defineTool({ ...del, name: "deals_delete", title: "Delete a deal", description: "Delete a deal and its history.", input: s.idInput, run: deleteDeal }),
  defineTool({ ...read, name: "pipelines_list", title: "List pipelines", description: "Pipelines with stages, probabilities, deal counts and amounts.", input: s.emptyInput, run: listPipelines }),
  defineTool({ ...read, name: "pipelines_get", title: "Get a pipeline", description: "A pipeline with stages and deal counts.", input: s.idInput, run: getPipeline }),
  defineTool({
    ...write,
    name: "pipelines_create",
    title: "Create a pipeline",
    description: "Create a pipeline; stages in order (default Lead..Negotiation, Won, Lost).",
    input: s.pipelineCreateInput,
    run: createPipeline,
  }),
  defineTool({
    ...write,
    name: "pipelines_update",
    idempotent: true,
    title: "Update a pipeline",
    description: "Rename; or the full stage list: with id keeps, without adds, omitted removes (if empty).",
    input: s.pipelineUpdateInput,
    run: updatePipeline,
  }),
  defineTool({ ...del, name: "pipelines_delete", title: "Delete a pipeline", description: "Delete a pipeline holding no deals.", input: s.idInput, run: deletePipeline }),
  defineTool({
    ...read,
    name: "pipelines_forecast",
    title: "Forecast a pipeline",
    description: "Weighted amounts (amount × probability) per stage and close month; won per month; per currency.",
    input: s.forecastInput,
    run: forecast,
  }),
  defineTool({
    ...read,
    name: "crm_activities_list",
    title: "List activities",
    description: "List notes, calls, meetings, tasks; openTasks lists by due date.",
    input: s.activityListInput,
    run: listActivities,
  }),
  defineTool({
    ...write,
    name: "crm_activities_create",
    title: "Log an activity",
    description: "Log a note, call, meeting or task (dueAt) on a contact, company and/or deal.",
    input: s.activityCreateInput,
    run: createActivity,
  }),
  defineTool({ ...write, name: "crm_activities_update", idempotent: true, title: "Update an activity", description: "Edit an activity; completed completes or reopens a task.", input: s.activityUpdateInput, run: updateActivity }),
  defineTool({ ...del, name: "crm_activities_delete", title: "Delete an activity", description: "Delete a note, call, meeting or task.", input: s.idInput, run: deleteActivity }),
  defineTool({
    ...read,
    name: "crm_timeline_get",
    title: "Timeline of a record",
    description: "One record's history, newest first: activities, stage moves, merges, support tickets.",
    input: s.timelineInput,
    run: timeline,
  }),
  defineTool({ ...read, name: "crm_fields_list", title: "List custom fields", description: "Custom field definitions by object.", input: s.fieldListInput, run: listFields }),
  defineTool({
    ...write,
    name: "crm_fields_create",
    title: "Define a custom field",
    description: "Define a custom field; values are validated on every write.",
    input: s.fieldCreateInput,
    run: createField,
  }),
  defineTool({ ...write, name: "crm_fields_update", idempotent: true, title: "Update a custom field", description: "Change a field's label, options or required.", input: s.fieldUpdateInput, run: updateField }),
  defineTool({ ...del, name: "crm_fields_delete", title: "Delete a custom field", description: "Delete a field definition and its values.", input: s.idInput, run: deleteField }),
  defineTool({ ...read, name: "crm_views_list", title: "List saved views", description: "Saved list views by object.", input: s.viewListInput, run: listViews }),
  defineTool({
    ...write,
    name: "crm_views_create",
    title: "Save a view",
    description: "Save a view: filters are the list tool's arguments (sort too). Apply with viewId.",
    input: s.viewCreateInput,
    run: createView,
  }),
  defineTool({ ...write, name: "crm_views_update", idempotent: true, title: "Update a saved view", description: "Change a view's name, filters or columns.", input: s.viewUpdateInput, run: updateView }),
  defineTool({ ...del, name: "crm_views_delete", title: "Delete a saved view", description: "Delete a saved list view.", input: s.idInput, run: deleteView }),
  defineTool({ ...read, name: "scoring_rules_list", title: "List scoring rules", description: "Lead scoring rules with points.", input: s.emptyInput, run: listRules }),
  defineTool({
    ...write,
    name: "scoring_rules_create",
    title: "Add a scoring rule",
    description: "Add points while a field matches (custom.<key> too), or per activityKind fading over decayDays.",
    input: s.ruleCreateInput,
    run: createRule,
  }),
  defineTool({ ...write, name: "scoring_rules_update", idempotent: true, title: "Update a scoring rule", description: "Change a rule's name, points or decay.", input: s.ruleUpdateInput, run: updateRule }),
  defineTool({ ...del, name: "scoring_rules_delete", title: "Delete a scoring rule", description: "Delete a scoring rule; rescores contacts.", input: s.idInput, run: deleteRule }),
  defineTool({
    ...write,
    name: "scoring_rules_recompute",
    idempotent: true,
    title: "Recompute lead scores",
    description: "Recompute every contact's lead score.",
    input: s.emptyRecompute,
    run: (ctx) => recomputeScores(ctx),
  }),
];

export const crmDomain: Domain = {
  name: "crm",
  title: "CRM",
  description: "Contacts, companies, deals in pipelines, activities and timelines, search, dedupe and reversible merges, custom fields, views, forecasts, lead scoring, CSV import.",
  tools,
  events: crmEvents,
  jobs: [scoreDecayJob],
};
