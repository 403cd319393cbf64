/**
 * The brain toolset: a company knowledge base an agent reads before it
 * writes and keeps up to date after a meeting. One search over everything
 * (brain_search), passages to cite (brain_context), a fetch that shows a
 * record with its relations both ways and backlinks (brain_records_get),
 * per-kind create/update tools, history and restore, review.
 */
import { brainSettings } from "./settings";
import { demoBrain } from "./demo";
import { defineTool, type Domain, type ToolDef } from "../../mcp/define";
import { readAccess } from "./access";
import { embeddingStatus, embedJob, queueChunks } from "./embeddings";
import { brainEvents } from "./events";
import {
  deleteRecord,
  getRecord,
  KIND_TOOL,
  listRecords,
  lookupGlossary,
  mergePeople,
  orgTree,
  recordHistory,
  restoreRecord,
  saveRecord,
} from "./records";
import { changeRelation, listRelations } from "./relations";
import { brainStagedTarget, decideReview, getReview, getReviewPolicies, listReviews, setReviewPolicy } from "./review";
import * as s from "./schemas";
import { brainContacts, brainDeals, brainWorkItems } from "./others";
import { BRAIN_PATH, brainPages } from "./pages";
import { brainContext, searchBrain } from "./search";
import { brainRecords, type RecordKind } from "./tables";
import { and, eq } from "drizzle-orm";
import { PRICES } from "../ai/meter";
import { authorize } from "../../core/scopes";

const B = { toolset: "brain" } as const;
const R = { ...B, scope: "brain:read", readOnly: true } as const;
const W = { ...B, scope: "brain:write", readOnly: false } as const;
const A = { ...B, scope: "brain:approve", readOnly: false } as const;

/** Per kind: its label and what its create tool says. */
const KINDS: { kind: RecordKind; label: string; create: string }[] = [
  {
    kind: "note",
    label: "note",
    create: "Write a markdown note: [[Title]] links a record, @email a person.",
  },
  {
    kind: "document",
    label: "document",
    create: "Create a markdown document; every change is a revision.",
  },
  {
    kind: "meeting",
    label: "meeting",
    create: "Record a meeting (body = minutes); actionItems become tasks.",
  },
  { kind: "task", label: "task", create: "Create a task with status, assignee and due date." },
  {
    kind: "person",
    label: "person",
    create: "Add a person, internal or outside; email unique.",
  },
  { kind: "topic", label: "topic", create: "Create a topic (unique name) that records can carry." },
  { kind: "glossary", label: "glossary term", create: "Define a glossary term: title = term, body = definition." },
  { kind: "goal", label: "goal", create: "Create a goal with owner, target date, status and progress %." },
  {
    kind: "initiative",
    label: "initiative",
    create: "Create an initiative with owner, progress and goals it serves.",
  },
  { kind: "playbook", label: "playbook", create: "Create a playbook of ordered steps." },
  { kind: "org_unit", label: "org unit", create: "Create an org unit with its parent unit and members." },
];

const kindTools: ToolDef<any>[] = KINDS.flatMap(({ kind, label, create }) => {
  const base = KIND_TOOL[kind];
  return [
    defineTool({
      name: `${base}_create`,
      ...W,
      title: `Create a ${label}`,
      description: create,
      input: s.createInput(kind),
      run: (ctx, input) => saveRecord(ctx, kind, `${base}_create`, input),
    }),
    defineTool({
      name: `${base}_update`,
      ...W,
      idempotent: true,
      title: `Update a ${label}`,
      description:
        kind === "goal" || kind === "initiative"
          ? `Change ${kind === "goal" ? "a" : "an"} ${label}; null clears. A new owner is reviewed.`
          : kind === "meeting"
            ? "Change a meeting; new actionItems become tasks."
            : `Change ${/^[aeiou]/.test(label) ? "an" : "a"} ${label}; null clears; lists replace.`,
      input: s.updateInput(kind),
      run: (ctx, input) => saveRecord(ctx, kind, `${base}_update`, input),
    }),
  ];
});

const recordTools = [
  defineTool({
    name: "brain_search",
    ...R,
    title: "Search the knowledge base",
    description: 'Search records; others: CRM/project hits. "phrase", word*, a OR b, -word.',
    input: s.searchInput,
    run: searchBrain,
  }),
  defineTool({
    name: "brain_context",
    ...R,
    title: "Passages for a question",
    description: "Best passages for a question, with cite strings. Use before writing.",
    input: s.contextInput,
    run: brainContext,
  }),
  defineTool({
    name: "brain_records_get",
    ...R,
    title: "Fetch a record",
    description: "A record with fields, relations both ways and backlinks.",
    input: s.getInput,
    run: getRecord,
  }),
  defineTool({
    name: "brain_records_list",
    ...R,
    title: "List records",
    description: "Records by kind, status, person, topic, title or dates.",
    input: s.listInput,
    run: listRecords,
  }),
  defineTool({
    name: "brain_records_delete",
    ...W,
    destructive: true,
    title: "Delete a record",
    description: "Delete a record (history stays); documents are reviewed.",
    input: s.refInput,
    run: deleteRecord,
  }),
  defineTool({
    name: "brain_records_history",
    ...R,
    title: "Record history",
    description: "Versions of a record: who, which credential, what changed.",
    input: s.historyInput,
    run: recordHistory,
  }),
  defineTool({
    name: "brain_records_restore",
    ...W,
    title: "Restore a version",
    description: "Make an earlier version current again (as a new version).",
    input: s.restoreInput,
    run: restoreRecord,
  }),
  defineTool({
    name: "brain_relations_add",
    ...W,
    idempotent: true,
    title: "Relate two records",
    description: "Relate fromId <type> toId; either end's name works.",
    input: s.relationInput,
    run: (ctx, i) => changeRelation(ctx, i, "added"),
  }),
  defineTool({
    name: "brain_relations_remove",
    ...W,
    destructive: true,
    title: "Remove a relation",
    description: "Remove a typed relation between two records.",
    input: s.relationInput,
    run: (ctx, i) => changeRelation(ctx, i, "removed"),
  }),
  defineTool({
    name: "brain_relations_list",
    ...R,
    title: "Relations of a record",
    description: "A record's relations both ways.",
    input: s.relationListInput,
    run: listRelations,
  }),
  defineTool({
    name: "brain_people_merge",
    ...W,
    destructive: true,
    title: "Merge people",
    description: "Merge duplicate people (mergeIds) into id; always reviewed.",
    input: s.mergeInput,
    run: mergePeople,
  }),
  defineTool({
    name: "brain_org_units_tree",
    ...R,
    title: "Org chart",
    description: "Org units as a tree with members; root narrows to one unit.",
    input: s.orgTreeInput,
    run: orgTree,
  }),
  defineTool({
    name: "brain_glossary_lookup",
    ...R,
    title: "Look up a term",
    description: "Glossary terms matching a word or synonym, with definitions.",
    input: s.glossaryLookupInput,
    run: lookupGlossary,
  }),
  defineTool({
    name: "brain_work_items_list",
    ...R,
    alsoNeeds: ["projects:read"],
    title: "Project cards, read-only",
    description: "Project cards read live (needs projects:read).",
    input: s.workItemsInput,
    run: brainWorkItems,
  }),
  defineTool({
    name: "brain_contacts_list",
    ...R,
    alsoNeeds: ["crm:read"],
    title: "CRM contacts, read-only",
    description: "CRM contacts read live (needs crm:read), with brain person.",
    input: s.contactsInput,
    run: brainContacts,
  }),
  defineTool({
    name: "brain_deals_list",
    ...R,
    alsoNeeds: ["crm:read"],
    title: "CRM deals, read-only",
    description: "CRM deals read live (needs crm:read).",
    input: s.dealsInput,
    run: brainDeals,
  }),
];

const reviewTools = [
  defineTool({
    name: "brain_reviews_list",
    ...R,
    title: "List reviews",
    description: "Held brain writes, newest first.",
    input: s.reviewListInput,
    run: listReviews,
  }),
  defineTool({
    name: "brain_reviews_get",
    ...R,
    title: "Get a review",
    description: "A held write against the record now: fields, bodyDiff, movedOn.",
    input: s.reviewIdInput,
    run: getReview,
  }),
  defineTool({
    name: "brain_reviews_approve",
    ...A,
    title: "Approve a review",
    description: "Apply a held write; a conflict if its target changed.",
    input: s.reviewApproveInput,
    run: (ctx, i) => decideReview(ctx, i, "approve"),
  }),
  defineTool({
    name: "brain_reviews_reject",
    ...A,
    title: "Reject a review",
    description: "Discard a held write with a reason.",
    input: s.reviewRejectInput,
    run: (ctx, i) => decideReview(ctx, i, "reject"),
  }),
  defineTool({
    name: "brain_review_policy_get",
    ...R,
    title: "Review settings",
    description: "Which credentials' writes go to review.",
    input: s.emptyInput,
    run: getReviewPolicies,
  }),
  defineTool({
    name: "brain_review_policy_set",
    ...W,
    idempotent: true,
    title: "Send writes to review",
    description: "Send a credential's writes to review; others or off need brain:approve.",
    input: s.policySetInput,
    run: setReviewPolicy,
  }),
];

const embeddingTools = [
  defineTool({
    name: "brain_embeddings_status",
    ...R,
    title: "Semantic index status",
    description: "Semantic search state: chunks pending, done, failed.",
    input: s.emptyInput,
    run: (ctx) => (readAccess(ctx), embeddingStatus(ctx.deps, ctx.company.id)),
  }),
  defineTool({
    name: "brain_embeddings_reindex",
    ...W,
    idempotent: true,
    title: "Re-embed records",
    description: `Queue every record for embedding again. Embedding costs ${PRICES.embedding} AI credit per chunk.`,
    input: s.emptyInput,
    run: async (ctx) => {
      authorize(ctx, "brain:write", { write: true });
      if (!ctx.deps.config.embeddingsUrl)
        return { queued: 0, note: "Semantic search is off: PLINTH_EMBEDDINGS_URL is not set." };
      return await ctx.deps.db.transaction(async (tx) => {
        const rows = await tx
          .select({ id: brainRecords.id, title: brainRecords.title, text: brainRecords.searchText })
          .from(brainRecords)
          .where(and(eq(brainRecords.companyId, ctx.company.id)));
        for (const r of rows) await queueChunks(tx, ctx.deps, ctx.company.id, r.id, r.title, r.text);
        return { queued: rows.length };
      });
    },
  }),
];

const allTools = [...recordTools, ...kindTools, ...reviewTools, ...embeddingTools];

/** Writes that can be held for review: every brain write tool except the review settings. */
const heldTools = allTools
  .filter(
    (t) =>
      !t.readOnly &&
      t.scope === "brain:write" &&
      t.name !== "brain_review_policy_set" &&
      t.name !== "brain_embeddings_reindex",
  )
  .map((t) => t.name);

export const brainDomain: Domain = {
  settings: brainSettings,
  demo: demoBrain,
  scopes: [
    {
      area: "brain",
      title: "Knowledge base",
      words: {
        "brain:read": "search notes, meetings, people, tasks and documents",
        "brain:write": "add, change and delete them",
        "brain:approve": "approve review items",
      },
      // Deciding a review means reading it, and the records it changes (as approvals:manage includes approvals:read).
      includes: { "brain:approve": ["brain:read"] },
    },
  ],
  name: "brain",
  title: "Brain",
  description:
    "A company knowledge base: notes, documents, meetings, tasks, people, topics, glossary, goals, initiatives, playbooks, org units; one search; review.",
  vocabulary: {
    "knowledge base": ["brain", "search"],
    wiki: ["brain", "search"],
    "meeting notes": ["meeting"],
    minutes: ["meeting"],
    know: ["search", "context"],
    define: ["glossary"],
    definition: ["glossary"],
    mean: ["glossary"],
    means: ["glossary"],
    jargon: ["glossary"],
    acronym: ["glossary"],
    objective: ["goal"],
    okr: ["goal"],
    process: ["playbook"],
    procedure: ["playbook"],
    "step by step": ["playbook"],
    "how we": ["playbook"],
    "org chart": ["org", "unit", "tree"],
    department: ["org", "unit"],
    hierarchy: ["org", "unit", "tree"],
    undelete: ["restore"],
    recover: ["restore"],
    deleted: ["restore"],
    "who changed": ["history"],
    changes: ["history"],
    edits: ["review"],
    todo: ["task"],
    "to-do": ["task"],
    "action item": ["task"],
  },
  tools: allTools,
  events: brainEvents,
  jobs: [embedJob],
  stagedTargets: [brainStagedTarget(heldTools)],
  portal: { routes: brainPages, nav: [{ href: BRAIN_PATH, label: "Brain" }] },
};
