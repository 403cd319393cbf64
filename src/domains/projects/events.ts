/**
 * What the verbs of this folder tell the rest of Plinth (docs/events.md is
 * generated from these). Every card event carries the card's key, title and
 * project, and the user ids a receiver would notify (assignees, mentioned
 * people), so a notifications subscriber acts without a second read.
 */
import * as v from "valibot";
import { defineEvent } from "../../core/events";

const card = {
  projectId: v.number(),
  projectKey: v.string(),
  projectName: v.string(),
  key: v.string(),
  title: v.string(),
};
const ids = v.array(v.number());
const changes = v.record(v.string(), v.unknown());
const project = { key: v.string(), name: v.string() };

export const projectCreated = defineEvent({
  type: "project.created",
  entity: "project",
  description: "A project was created (with its first board).",
  payload: v.object({ ...project, leadUserId: v.nullable(v.number()), memberUserIds: ids }),
});
export const projectUpdated = defineEvent({
  type: "project.updated",
  entity: "project",
  description: "A project's fields changed: changes maps each field to [before, after].",
  payload: v.object({ ...project, changes }),
});
export const projectArchived = defineEvent({
  type: "project.archived",
  entity: "project",
  description: "A project was archived (archived: true) or restored (archived: false).",
  payload: v.object({ ...project, archived: v.boolean() }),
});
export const projectDeleted = defineEvent({
  type: "project.deleted",
  entity: "project",
  description: "A project was deleted with everything in it (counts of what went with it).",
  payload: v.object({ ...project, cards: v.number(), sprints: v.number(), timeLogs: v.number() }),
});
export const projectMembersChanged = defineEvent({
  type: "project.members_changed",
  entity: "project",
  description: "People were added to or removed from a project's members.",
  payload: v.object({ ...project, addedUserIds: ids, removedUserIds: ids }),
});
export const labelChanged = defineEvent({
  type: "label.changed",
  entity: "label",
  description: "A project label was created, updated or deleted (action).",
  payload: v.object({
    projectId: v.number(),
    action: v.picklist(["created", "updated", "deleted"]),
    name: v.string(),
    color: v.string(),
  }),
});
export const milestoneChanged = defineEvent({
  type: "milestone.changed",
  entity: "milestone",
  description: "A milestone was created, updated or deleted (action).",
  payload: v.object({
    projectId: v.number(),
    action: v.picklist(["created", "updated", "deleted"]),
    name: v.string(),
    targetDate: v.nullable(v.string()),
  }),
});
export const boardChanged = defineEvent({
  type: "board.changed",
  entity: "board",
  description:
    "A board or its columns changed: created, renamed, deleted, column_created/updated/deleted, columns_reordered.",
  payload: v.object({
    projectId: v.number(),
    name: v.string(),
    action: v.string(),
    columnId: v.nullable(v.number()),
    changes,
  }),
});

export const cardCreated = defineEvent({
  type: "card.created",
  entity: "card",
  description: "A card was created (by a person, or by a recurrence: recurrenceId).",
  payload: v.object({
    ...card,
    columnId: v.number(),
    stateGroup: v.string(),
    assigneeUserIds: ids,
    priority: v.number(),
    dueDate: v.nullable(v.string()),
    recurrenceId: v.nullable(v.number()),
  }),
});
export const cardUpdated = defineEvent({
  type: "card.updated",
  entity: "card",
  description:
    "A card's fields changed (title, description, priority, estimate, due date, labels, parent, milestone, sprint): changes maps field to [before, after].",
  payload: v.object({ ...card, changes, assigneeUserIds: ids }),
});
export const cardMoved = defineEvent({
  type: "card.moved",
  entity: "card",
  description: "A card moved to another column or place; completed is true when it entered a done column.",
  payload: v.object({
    ...card,
    fromColumnId: v.number(),
    toColumnId: v.number(),
    fromStateGroup: v.string(),
    toStateGroup: v.string(),
    completed: v.boolean(),
    assigneeUserIds: ids,
  }),
});
export const cardAssigned = defineEvent({
  type: "card.assigned",
  entity: "card",
  description:
    "People were assigned to a card (assigneeUserIds: the newly assigned; allAssigneeUserIds: everyone now).",
  payload: v.object({
    ...card,
    assigneeUserIds: ids,
    allAssigneeUserIds: ids,
    dueDate: v.nullable(v.string()),
    priority: v.number(),
  }),
});
export const cardUnassigned = defineEvent({
  type: "card.unassigned",
  entity: "card",
  description: "People were taken off a card (unassignedUserIds).",
  payload: v.object({ ...card, unassignedUserIds: ids, allAssigneeUserIds: ids }),
});
export const cardDeleted = defineEvent({
  type: "card.deleted",
  entity: "card",
  description: "A card was deleted; its time logs stay on the project.",
  payload: v.object({ ...card, assigneeUserIds: ids }),
});
export const cardChecklistChanged = defineEvent({
  type: "card.checklist_changed",
  entity: "card",
  description: "A card's checklist changed (added, updated, deleted) with its done/total counts.",
  payload: v.object({ ...card, action: v.string(), item: v.string(), done: v.number(), total: v.number() }),
});
export const cardRelationChanged = defineEvent({
  type: "card.relation_changed",
  entity: "card",
  description: "A relation between two cards was added or removed (kind blocks, duplicates or relates, from → to).",
  payload: v.object({
    ...card,
    action: v.picklist(["added", "removed"]),
    kind: v.string(),
    fromKey: v.string(),
    toKey: v.string(),
  }),
});
export const cardAttachmentChanged = defineEvent({
  type: "card.attachment_changed",
  entity: "card",
  description: "A media item was attached to or detached from a card.",
  payload: v.object({ ...card, action: v.picklist(["added", "removed"]), mediaId: v.number(), filename: v.string() }),
});
export const commentCreated = defineEvent({
  type: "comment.created",
  entity: "comment",
  description:
    "A comment was posted on a card; mentionedUserIds are the members it @mentions, assigneeUserIds the card's assignees.",
  payload: v.object({
    ...card,
    cardId: v.number(),
    authorUserId: v.nullable(v.number()),
    excerpt: v.string(),
    mentionedUserIds: ids,
    assigneeUserIds: ids,
  }),
});
export const commentUpdated = defineEvent({
  type: "comment.updated",
  entity: "comment",
  description: "A comment was edited; newlyMentionedUserIds are mentions it did not have before.",
  payload: v.object({
    ...card,
    cardId: v.number(),
    excerpt: v.string(),
    mentionedUserIds: ids,
    newlyMentionedUserIds: ids,
  }),
});
export const commentDeleted = defineEvent({
  type: "comment.deleted",
  entity: "comment",
  description: "A comment was deleted.",
  payload: v.object({ ...card, cardId: v.number() }),
});

const sprint = {
  projectId: v.number(),
  projectKey: v.string(),
  name: v.string(),
  startDate: v.string(),
  endDate: v.string(),
};
export const sprintChanged = defineEvent({
  type: "sprint.changed",
  entity: "sprint",
  description: "A sprint was created, updated or deleted (action; changes for updates).",
  payload: v.object({ ...sprint, action: v.picklist(["created", "updated", "deleted"]), changes }),
});
export const sprintStarted = defineEvent({
  type: "sprint.started",
  entity: "sprint",
  description: "A sprint became the project's active sprint; committedPoints is its scope at that moment.",
  payload: v.object({
    ...sprint,
    goal: v.nullable(v.string()),
    committedPoints: v.number(),
    cardCount: v.number(),
    assigneeUserIds: ids,
  }),
});
export const sprintClosed = defineEvent({
  type: "sprint.closed",
  entity: "sprint",
  description: "A sprint was closed: committed and completed points, and where its unfinished cards went.",
  payload: v.object({
    ...sprint,
    committedPoints: v.number(),
    completedPoints: v.number(),
    carriedOverCardKeys: v.array(v.string()),
    carriedOverPoints: v.number(),
    carriedOverToSprintId: v.nullable(v.number()),
  }),
});
export const sprintScopeChanged = defineEvent({
  type: "sprint.scope_changed",
  entity: "sprint",
  description: "Cards were added to or removed from a sprint (card keys).",
  payload: v.object({ ...sprint, addedKeys: v.array(v.string()), removedKeys: v.array(v.string()) }),
});

export const timeLogged = defineEvent({
  type: "time_log.changed",
  entity: "time_log",
  description: "Time was logged, corrected or removed (action) on a card: who, minutes, day, billable.",
  payload: v.object({
    action: v.picklist(["created", "updated", "deleted"]),
    projectId: v.number(),
    cardKey: v.nullable(v.string()),
    userId: v.number(),
    minutes: v.number(),
    workedOn: v.string(),
    billable: v.boolean(),
  }),
});
export const recurrenceChanged = defineEvent({
  type: "recurrence.changed",
  entity: "recurrence",
  description: "A card recurrence was created, updated or deleted (action), with its next due instant.",
  payload: v.object({
    projectId: v.number(),
    action: v.picklist(["created", "updated", "deleted"]),
    title: v.string(),
    nextAt: v.nullable(v.string()),
  }),
});

export const projectEvents = [
  projectCreated,
  projectUpdated,
  projectArchived,
  projectDeleted,
  projectMembersChanged,
  labelChanged,
  milestoneChanged,
  boardChanged,
  cardCreated,
  cardUpdated,
  cardMoved,
  cardAssigned,
  cardUnassigned,
  cardDeleted,
  cardChecklistChanged,
  cardRelationChanged,
  cardAttachmentChanged,
  commentCreated,
  commentUpdated,
  commentDeleted,
  sprintChanged,
  sprintStarted,
  sprintClosed,
  sprintScopeChanged,
  timeLogged,
  recurrenceChanged,
];
