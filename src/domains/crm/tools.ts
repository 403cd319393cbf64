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
    description: "Find contacts, companies and deals by name, email, domain or phone; case and accents ignored. Returns type, id, name per hit and totals per type.",
    input: s.searchInput,
    run: search,
  }),
  defineTool({
    ...read,
    name: "contacts_list",
    title: "List contacts",
    description: "Contacts. Filters: q, companyId, ownerId, lifecycleStage, tag, minScore, custom {key: value}; sort updated|created|name|score; viewId applies a saved view.",
    input: s.contactListInput,
    run: listContacts,
  }),
  defineTool({
    ...read,
    name: "contacts_get",
    title: "Get a contact",
    description: "A contact by id or email, with deals, open task count and the score per rule.",
    input: s.contactRefInput,
    run: getContact,
  }),
  defineTool({
    ...write,
    name: "contacts_create",
    title: "Create a contact",
    description: "Create a contact (name or email needed). A known email creates nothing and returns the existing contact (created: false). Links the company by email domain when none given.",
    input: s.contactCreateInput,
    run: createContact,
  }),
  defineTool({
    ...write,
    name: "contacts_update",
    idempotent: true,
    title: "Update a contact",
    description: "Change fields; emails by addEmails/removeEmails/primaryEmail, tags by addTags/removeTags, phones replaced; custom values merge (null removes).",
    input: s.contactUpdateInput,
    run: updateContact,
  }),
  defineTool({ ...del, name: "contacts_delete", title: "Delete a contact", description: "Delete a contact, its deal links and activities on it alone.", input: s.contactRefInput, run: deleteContact }),
  defineTool({
    ...write,
    name: "contacts_merge",
    title: "Merge contacts",
    description: "Merge mergeId into id. Emails, phones, tags, activities, deal links all kept; per field the survivor's value unless empty or keep {field: \"merged\"}. Undo with crm_merges_undo (30 days).",
    input: s.contactMergeInput,
    run: mergeContacts,
  }),
  defineTool({
    ...write,
    name: "contacts_import",
    title: "Import contacts from CSV",
    description: "Import contacts from csv text or mediaId. dryRun (default true) reports per line: create, update, skip or refuse with reason. Headers auto-mapped; mapping {header: field} overrides.",
    input: s.importInput,
    run: importContacts,
  }),
  defineTool({
    ...read,
    name: "crm_companies_list",
    title: "List CRM companies",
    description: "Companies the tenant sells to. Filters: q, ownerId, industry, size, tag, custom; sort updated|created|name; viewId.",
    input: s.companyListInput,
    run: listCompanies,
  }),
  defineTool({ ...read, name: "crm_companies_get", title: "Get a CRM company", description: "A company by id or domain, with its contacts and deals.", input: s.crmCompanyRefInput, run: getCompany }),
  defineTool({
    ...write,
    name: "crm_companies_create",
    title: "Create a CRM company",
    description: "Create a company; domain is normalised (https://www.x.com → x.com). A known domain creates nothing and returns the existing company.",
    input: s.companyCreateInput,
    run: createCompany,
  }),
  defineTool({ ...write, name: "crm_companies_update", idempotent: true, title: "Update a CRM company", description: "Change a company's fields; tags by addTags/removeTags; custom merges.", input: s.companyUpdateInput, run: updateCompany }),
  defineTool({ ...del, name: "crm_companies_delete", title: "Delete a CRM company", description: "Delete a company; its contacts and deals stay, unlinked.", input: s.crmCompanyRefInput, run: deleteCompany }),
  defineTool({
    ...write,
    name: "crm_companies_merge",
    title: "Merge CRM companies",
    description: "Merge mergeId into id: contacts, deals, activities move; per-field keep as contacts_merge. Reversible 30 days.",
    input: s.companyMergeInput,
    run: mergeCompanies,
  }),
  defineTool({ ...read, name: "crm_merges_list", title: "List merges", description: "Merges, newest first, with undoable.", input: s.mergeListInput, run: listMerges }),
  defineTool({
    ...write,
    name: "crm_merges_undo",
    title: "Undo a merge",
    description: "Undo a merge within 30 days: the merged record, its emails, activities and links return; fields edited since stay (listed in warnings).",
    input: s.idInput,
    run: undoMerge,
  }),
  defineTool({
    ...read,
    name: "deals_list",
    title: "List deals",
    description: "Deals. Filters: q, pipelineId, stage, status open|won|lost, ownerId, companyId, contactId, closeFrom/closeTo, minAmountCents, custom; sort updated|created|amount|close; viewId.",
    input: s.dealListInput,
    run: listDeals,
  }),
  defineTool({ ...read, name: "deals_get", title: "Get a deal", description: "A deal with contacts and stage history (who moved it, when).", input: s.idInput, run: getDeal }),
  defineTool({
    ...write,
    name: "deals_create",
    title: "Create a deal",
    description: "Create a deal: amountCents, currency, pipelineId (default first), stage (id or name; default first open), owner defaults to you.",
    input: s.dealCreateInput,
    run: createDeal,
  }),
  defineTool({ ...write, name: "deals_update", idempotent: true, title: "Update a deal", description: "Change a deal's fields and contacts (not stage: deals_move_stage).", input: s.dealUpdateInput, run: updateDeal }),
  defineTool({
    ...write,
    name: "deals_move_stage",
    idempotent: true,
    title: "Move a deal",
    description: "Move to a stage (id or name; pipelineId to switch pipeline). Lost stages need lostReason. fromStage refuses the move if someone moved it first.",
    input: s.dealMoveInput,
    run: moveDeal,
  }),
  defineTool({ ...del, name: "deals_delete", title: "Delete a deal", description: "Delete a deal and its history.", input: s.idInput, run: deleteDeal }),
  defineTool({ ...read, name: "pipelines_list", title: "List pipelines", description: "Pipelines with ordered stages, probabilities, deal counts and amounts.", input: s.emptyInput, run: listPipelines }),
  defineTool({ ...read, name: "pipelines_get", title: "Get a pipeline", description: "One pipeline with stages and deal counts.", input: s.idInput, run: getPipeline }),
  defineTool({
    ...write,
    name: "pipelines_create",
    title: "Create a pipeline",
    description: "Create a pipeline. stages [{name, probability 0-100, kind open|won|lost}] in order; default Lead..Negotiation, Won, Lost.",
    input: s.pipelineCreateInput,
    run: createPipeline,
  }),
  defineTool({
    ...write,
    name: "pipelines_update",
    idempotent: true,
    title: "Update a pipeline",
    description: "Rename, or give the full ordered stages list: with id keeps a stage, without adds, omitted removes (refused while deals are in it).",
    input: s.pipelineUpdateInput,
    run: updatePipeline,
  }),
  defineTool({ ...del, name: "pipelines_delete", title: "Delete a pipeline", description: "Delete an empty pipeline.", input: s.idInput, run: deletePipeline }),
  defineTool({
    ...read,
    name: "pipelines_forecast",
    title: "Forecast a pipeline",
    description: "Weighted amount (amount × probability) per open stage and per expected-close month, won per month; per currency.",
    input: s.forecastInput,
    run: forecast,
  }),
  defineTool({
    ...read,
    name: "crm_activities_list",
    title: "List activities",
    description: "Notes, calls, meetings, tasks. Filters: contactId, companyId, dealId, kind, openTasks, dueBefore, ownerId.",
    input: s.activityListInput,
    run: listActivities,
  }),
  defineTool({
    ...write,
    name: "crm_activities_create",
    title: "Log an activity",
    description: "Log a note, call, meeting or task on a contactId, companyId and/or dealId. Tasks take subject, dueAt, completed.",
    input: s.activityCreateInput,
    run: createActivity,
  }),
  defineTool({ ...write, name: "crm_activities_update", idempotent: true, title: "Update an activity", description: "Edit an activity; completed true/false completes or reopens a task.", input: s.activityUpdateInput, run: updateActivity }),
  defineTool({ ...del, name: "crm_activities_delete", title: "Delete an activity", description: "Delete an activity.", input: s.idInput, run: deleteActivity }),
  defineTool({
    ...read,
    name: "crm_timeline_get",
    title: "Timeline of a record",
    description: "Newest first for one contactId, companyId or dealId: activities, stage changes, merges, support tickets by the contact's emails.",
    input: s.timelineInput,
    run: timeline,
  }),
  defineTool({ ...read, name: "crm_fields_list", title: "List custom fields", description: "Custom field definitions, by object.", input: s.fieldListInput, run: listFields }),
  defineTool({
    ...write,
    name: "crm_fields_create",
    title: "Define a custom field",
    description: "Define a custom field on contact, company or deal: text, number, date, select, multi_select (options), boolean, url. Values are checked on every write.",
    input: s.fieldCreateInput,
    run: createField,
  }),
  defineTool({ ...write, name: "crm_fields_update", idempotent: true, title: "Update a custom field", description: "Change label, options (in-use ones stay) or required.", input: s.fieldUpdateInput, run: updateField }),
  defineTool({ ...del, name: "crm_fields_delete", title: "Delete a custom field", description: "Delete a field definition and its values.", input: s.idInput, run: deleteField }),
  defineTool({ ...read, name: "crm_views_list", title: "List saved views", description: "Saved views (filters, columns) by object.", input: s.viewListInput, run: listViews }),
  defineTool({
    ...write,
    name: "crm_views_create",
    title: "Save a view",
    description: "Save a list view: filters are the list tool's arguments (incl. sort), columns to show. Apply with viewId on the list tool.",
    input: s.viewCreateInput,
    run: createView,
  }),
  defineTool({ ...write, name: "crm_views_update", idempotent: true, title: "Update a saved view", description: "Change a view's name, filters or columns.", input: s.viewUpdateInput, run: updateView }),
  defineTool({ ...del, name: "crm_views_delete", title: "Delete a saved view", description: "Delete a saved view.", input: s.idInput, run: deleteView }),
  defineTool({ ...read, name: "scoring_rules_list", title: "List scoring rules", description: "Lead scoring rules with points and decay.", input: s.emptyInput, run: listRules }),
  defineTool({
    ...write,
    name: "scoring_rules_create",
    title: "Add a scoring rule",
    description: "Points while a contact field matches (field, op eq|neq|contains|exists|gt|lt, value; custom.<key> ok), or per activityKind fading over decayDays. Rescores all.",
    input: s.ruleCreateInput,
    run: createRule,
  }),
  defineTool({ ...write, name: "scoring_rules_update", idempotent: true, title: "Update a scoring rule", description: "Change name, points or decayDays; rescores.", input: s.ruleUpdateInput, run: updateRule }),
  defineTool({ ...del, name: "scoring_rules_delete", title: "Delete a scoring rule", description: "Delete a rule; rescores.", input: s.idInput, run: deleteRule }),
  defineTool({
    ...write,
    name: "scoring_rules_recompute",
    idempotent: true,
    title: "Recompute lead scores",
    description: "Recompute every contact's score now; returns how many changed.",
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
