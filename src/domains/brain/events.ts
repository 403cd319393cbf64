/**
 * What brain verbs tell the rest of Plinth (docs/events.md is generated
 * from these). Record events carry the kind, title and the ids a receiver
 * acts on: the person a task is assigned to, people mentioned, the member
 * user behind a person record when there is one.
 */
import * as v from "valibot";
import { defineEvent } from "../../core/events";

const rec = { kind: v.string(), title: v.string(), version: v.number() };
const ids = v.array(v.number());

export const recordCreated = defineEvent({
  type: "brain_record.created",
  entity: "brain_record",
  description:
    "A knowledge-base record was created (kind, title; personId of a task's assignee or a goal's owner; mentionedIds of records it links to).",
  payload: v.object({ ...rec, personId: v.nullable(v.number()), mentionedIds: ids, meetingId: v.nullable(v.number()) }),
});
export const recordUpdated = defineEvent({
  type: "brain_record.updated",
  entity: "brain_record",
  description: "A record changed: changed lists the fields; restoredFrom is set when an earlier version was restored.",
  payload: v.object({
    ...rec,
    changed: v.array(v.string()),
    personId: v.nullable(v.number()),
    mentionedIds: ids,
    restoredFrom: v.nullable(v.number()),
  }),
});
export const recordDeleted = defineEvent({
  type: "brain_record.deleted",
  entity: "brain_record",
  description: "A record was deleted (its history stays readable).",
  payload: v.object(rec),
});
export const relationChanged = defineEvent({
  type: "brain_relation.changed",
  entity: "brain_record",
  description: "A typed relationship between two records was added or removed (entity is the from record).",
  payload: v.object({
    action: v.picklist(["added", "removed"]),
    type: v.string(),
    fromId: v.number(),
    toId: v.number(),
    fromTitle: v.string(),
    toTitle: v.string(),
  }),
});
export const peopleMerged = defineEvent({
  type: "brain_person.merged",
  entity: "brain_record",
  description: "Person records were merged into one (mergedIds are gone; their links now point at the kept person).",
  payload: v.object({ title: v.string(), mergedIds: ids, mergedTitles: v.array(v.string()) }),
});
export const reviewPolicyChanged = defineEvent({
  type: "brain_review_policy.changed",
  entity: "brain_review_policy",
  description: "A credential's brain writes now go to review (review: true) or apply directly.",
  payload: v.object({ credentialKind: v.string(), credentialId: v.number(), review: v.boolean() }),
});

export const brainEvents = [
  recordCreated,
  recordUpdated,
  recordDeleted,
  relationChanged,
  peopleMerged,
  reviewPolicyChanged,
];
