/**
 * Work management for agents, as three toolsets over the verbs of this
 * folder: `projects` (projects, members, labels, milestones, time logs),
 * `kanban` (boards, columns, cards and their parts, recurrences) and
 * `sprints`. Cards are named by id or key (WEB-42) everywhere, projects by
 * id or key (WEB), people by id, email or "me", columns by id, name or
 * state group. Descriptions stay short: the listing is read into every
 * client's context.
 */
import { projectNotices } from "./notices";
import { defineTool, type Domain } from "../../mcp/define";
import { createBoard, createColumn, deleteBoard, deleteColumn, getBoard, reorderColumns, updateBoard, updateColumn } from "./boards";
import {
  addAttachment,
  addChecklistItems,
  addRelation,
  createComment,
  deleteChecklistItem,
  deleteComment,
  removeAttachment,
  removeRelation,
  updateChecklistItem,
  updateComment,
} from "./card-parts";
import { createCard, deleteCard, getCard, listCards, updateCard } from "./cards";
import { projectEvents } from "./events";
import { bulkUpdateCards, moveCard } from "./moves";
import {
  addProjectMembers,
  archiveProject,
  createLabel,
  createMilestone,
  createProject,
  deleteLabel,
  deleteMilestone,
  deleteProject,
  getProject,
  listLabels,
  listProjects,
  removeProjectMembers,
  updateLabel,
  updateMilestone,
  updateProject,
} from "./projects";
import { createRecurrence, deleteRecurrence, listRecurrences, recurrenceJob, updateRecurrence } from "./recurrences";
import * as s from "./schemas";
import { addSprintCards, closeSprint, createSprint, deleteSprint, getSprint, listSprints, removeSprintCards, sprintBurndown, sprintVelocity, startSprint, updateSprint } from "./sprints";
import { createTimeLog, deleteTimeLog, getTimesheet, listTimeLogs, updateTimeLog } from "./time-logs";

const R = { scope: "projects:read", readOnly: true } as const;
const W = { scope: "projects:write", readOnly: false } as const;
const P = { toolset: "projects" } as const;
const K = { toolset: "kanban" } as const;
const S = { toolset: "sprints" } as const;

// --- projects ---------------------------------------------------------------

const projectTools = [
  defineTool({ name: "projects_list", ...P, ...R, title: "List projects", description: "Projects with key, status, health, lead, open cards and active sprint. archived: true lists archived ones.", input: s.projectListInput, run: listProjects }),
  defineTool({ name: "projects_get", ...P, ...R, title: "Get a project", description: "A project by id or key (WEB): members, labels, milestones with progress, boards and columns with card counts, active sprint, time logged.", input: s.projectRefInput, run: getProject }),
  defineTool({ name: "projects_create", ...P, ...W, title: "Create a project", description: "Create a project with a board (Backlog, To do, In progress, In review, Done, Cancelled). key (WEB) prefixes card keys; derived from name if omitted.", input: s.projectCreateInput, run: createProject }),
  defineTool({ name: "projects_update", ...P, ...W, idempotent: true, title: "Update a project", description: "Change a project's fields; null clears. A new key keeps old card keys resolving.", input: s.projectUpdateInput, run: updateProject }),
  defineTool({ name: "projects_archive", ...P, ...W, idempotent: true, title: "Archive or restore a project", description: "Archive a project (archived: false restores it). Archiving pauses its recurrences.", input: s.projectArchiveInput, run: archiveProject }),
  defineTool({ name: "projects_delete", ...P, ...W, destructive: true, title: "Delete a project", description: "Delete a project. Refused, listing what depends on it (cards, sprints, time), unless force: true.", input: s.projectDeleteInput, run: deleteProject }),
  defineTool({ name: "project_members_add", ...P, ...W, idempotent: true, title: "Add project members", description: "Add company members to a project (ids, emails or \"me\").", input: s.projectMembersInput, run: addProjectMembers }),
  defineTool({ name: "project_members_remove", ...P, ...W, idempotent: true, title: "Remove project members", description: "Remove people from a project's members; their cards stay assigned.", input: s.projectMembersInput, run: removeProjectMembers }),
  defineTool({ name: "project_labels_list", ...P, ...R, title: "List labels", description: "A project's labels with their colours.", input: s.labelListInput, run: listLabels }),
  defineTool({ name: "project_labels_create", ...P, ...W, title: "Create a label", description: "Add a label to a project (name unique per project; colour #rrggbb, picked if omitted).", input: s.labelCreateInput, run: createLabel }),
  defineTool({ name: "project_labels_update", ...P, ...W, idempotent: true, title: "Update a label", description: "Rename or recolour a label.", input: s.labelUpdateInput, run: updateLabel }),
  defineTool({ name: "project_labels_delete", ...P, ...W, destructive: true, title: "Delete a label", description: "Delete a label; it is removed from its cards.", input: s.refInput, run: deleteLabel }),
  defineTool({ name: "milestones_create", ...P, ...W, title: "Create a milestone", description: "Add a milestone (name, targetDate) to a project; set cards' milestoneId to track progress.", input: s.milestoneCreateInput, run: createMilestone }),
  defineTool({ name: "milestones_update", ...P, ...W, idempotent: true, title: "Update a milestone", description: "Change a milestone's name, description or targetDate.", input: s.milestoneUpdateInput, run: updateMilestone }),
  defineTool({ name: "milestones_delete", ...P, ...W, destructive: true, title: "Delete a milestone", description: "Delete a milestone; its cards keep going without one.", input: s.refInput, run: deleteMilestone }),
  defineTool({ name: "time_logs_create", ...P, ...W, title: "Log time", description: "Log minutes on a card: workedOn (default today), note, billable (default true), userId (default me).", input: s.timeLogCreateInput, run: createTimeLog }),
  defineTool({ name: "time_logs_list", ...P, ...R, title: "List time logs", description: "Time logs filtered by project, card, sprint, person, from/to dates, billable; with totals.", input: s.timeLogListInput, run: listTimeLogs }),
  defineTool({ name: "time_logs_update", ...P, ...W, idempotent: true, title: "Correct a time log", description: "Change a time log's minutes, workedOn, note or billable.", input: s.timeLogUpdateInput, run: updateTimeLog }),
  defineTool({ name: "time_logs_delete", ...P, ...W, destructive: true, title: "Delete a time log", description: "Delete a time log (wrong card or day).", input: s.refInput, run: deleteTimeLog }),
  defineTool({ name: "timesheet_get", ...P, ...R, title: "Timesheet", description: "Minutes per day and per project for one person (userId) or everyone, from–to (≤ 92 days).", input: s.timesheetInput, run: getTimesheet }),
];

// --- kanban -----------------------------------------------------------------

const kanbanTools = [
  defineTool({ name: "boards_get", ...K, ...R, title: "Get a board", description: "A board's columns in order with WIP limits, counts, points and their top cards.", input: s.boardGetInput, run: getBoard }),
  defineTool({ name: "boards_create", ...K, ...W, title: "Create a board", description: "Add a board to a project, with columns [{name, stateGroup, wipLimit}] or the default workflow.", input: s.boardCreateInput, run: createBoard }),
  defineTool({ name: "boards_update", ...K, ...W, idempotent: true, title: "Rename a board", description: "Rename a board of a project.", input: s.boardUpdateInput, run: updateBoard }),
  defineTool({ name: "boards_delete", ...K, ...W, destructive: true, title: "Delete a board", description: "Delete a board. With cards on it: refused, saying what is there, unless moveCardsToColumnId.", input: s.boardDeleteInput, run: deleteBoard }),
  defineTool({ name: "board_columns_create", ...K, ...W, title: "Add a column", description: "Add a column (stateGroup backlog/unstarted/started/done/cancelled, optional wipLimit) after afterColumnId or at the end.", input: s.columnCreateInput, run: createColumn }),
  defineTool({ name: "board_columns_update", ...K, ...W, idempotent: true, title: "Update a column", description: "Rename a column, change its state group, or set/clear (null) its WIP limit.", input: s.columnUpdateInput, run: updateColumn }),
  defineTool({ name: "board_columns_reorder", ...K, ...W, idempotent: true, title: "Reorder columns", description: "Set the order of a board's columns: every column id once.", input: s.columnReorderInput, run: reorderColumns }),
  defineTool({ name: "board_columns_delete", ...K, ...W, destructive: true, title: "Delete a column", description: "Delete a column. With cards: refused, listing them, unless moveCardsToColumnId.", input: s.columnDeleteInput, run: deleteColumn }),
  defineTool({
    name: "cards_list",
    ...K,
    ...R,
    title: "List or search cards",
    description: "Find cards: filter by project, board, column, stateGroups, assignee (or \"me\"/\"none\"), labels (any), priorities, sprintId (id/active/none), due dates, search text or key.",
    input: s.cardListInput,
    run: listCards,
  }),
  defineTool({ name: "cards_get", ...K, ...R, title: "Get a card", description: "A card by id or key (WEB-42): fields, checklist, relations, sub-cards, attachments, time; include comments/activity.", input: s.cardGetInput, run: getCard }),
  defineTool({
    name: "cards_create",
    ...K,
    ...W,
    title: "Create a card",
    description: "Create a card. priority 0 none, 1 urgent … 4 low; estimate in points; columnId by id, name or state group; labels by name; sprintId or \"active\".",
    input: s.cardCreateInput,
    run: createCard,
  }),
  defineTool({ name: "cards_update", ...K, ...W, idempotent: true, title: "Update a card", description: "Change a card's fields; null clears; assignees and labels replace the lists. Use cards_move for columns.", input: s.cardUpdateInput, run: updateCard }),
  defineTool({ name: "cards_move", ...K, ...W, title: "Move a card", description: "Move a card to a column (id, name or state group, e.g. \"done\") and/or place it top, bottom, or after/before a card. Respects WIP limits.", input: s.cardMoveInput, run: moveCard }),
  defineTool({ name: "cards_bulk_update", ...K, ...W, title: "Change many cards", description: "Move and/or change up to 100 cards at once (all or nothing): column, sprint, priority, estimate, due date, add/remove labels and assignees.", input: s.cardBulkInput, run: bulkUpdateCards }),
  defineTool({ name: "cards_delete", ...K, ...W, destructive: true, title: "Delete a card", description: "Delete a card; sub-cards are detached, time logs stay on the project.", input: s.cardRefInput, run: deleteCard }),
  defineTool({ name: "card_checklist_items_add", ...K, ...W, idempotencyKey: true, title: "Add checklist items", description: "Append items to a card's checklist.", input: s.checklistAddInput, run: addChecklistItems }),
  defineTool({ name: "card_checklist_items_update", ...K, ...W, idempotent: true, title: "Update a checklist item", description: "Tick (done), rename or move (index) a checklist item.", input: s.checklistUpdateInput, run: updateChecklistItem }),
  defineTool({ name: "card_checklist_items_delete", ...K, ...W, destructive: true, title: "Delete a checklist item", description: "Remove an item from a card's checklist.", input: s.refInput, run: deleteChecklistItem }),
  defineTool({ name: "card_relations_add", ...K, ...W, idempotent: true, title: "Relate two cards", description: "cardId blocks / blocked_by / duplicates / duplicated_by / relates otherCardId. Cycles are refused.", input: s.relationInput, run: addRelation }),
  defineTool({ name: "card_relations_remove", ...K, ...W, destructive: true, title: "Remove a relation", description: "Remove the relation(s) between two cards (of one kind if given).", input: s.relationRemoveInput, run: removeRelation }),
  defineTool({ name: "card_comments_create", ...K, ...W, title: "Comment on a card", description: "Post a markdown comment; @name (email's local part) or @email mentions members.", input: s.commentCreateInput, run: createComment }),
  defineTool({ name: "card_comments_update", ...K, ...W, idempotent: true, title: "Edit a comment", description: "Edit the body of a comment you wrote.", input: s.commentUpdateInput, run: updateComment }),
  defineTool({ name: "card_comments_delete", ...K, ...W, destructive: true, title: "Delete a comment", description: "Delete a comment you wrote.", input: s.refInput, run: deleteComment }),
  defineTool({ name: "card_attachments_add", ...K, ...W, idempotent: true, title: "Attach media", description: "Attach a media item (mediaId from media_list/media_upload) to a card.", input: s.attachmentInput, run: addAttachment }),
  defineTool({ name: "card_attachments_remove", ...K, ...W, destructive: true, title: "Detach media", description: "Detach a media item from a card (the media stays).", input: s.attachmentInput, run: removeAttachment }),
  defineTool({ name: "card_recurrences_list", ...K, ...R, title: "List recurrences", description: "Card recurrences with their schedule, next due time and cards made.", input: s.recurrenceListInput, run: listRecurrences }),
  defineTool({
    name: "card_recurrences_create",
    ...K,
    ...W,
    title: "Create a recurrence",
    description: "Make a card on a schedule. rule: RRULE subset, e.g. FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TH, FREQ=MONTHLY;BYMONTHDAY=-1 or BYDAY=2TU. time HH:MM in timeZone; {date} in title; catchUp all|latest.",
    input: s.recurrenceCreateInput,
    run: createRecurrence,
  }),
  defineTool({ name: "card_recurrences_update", ...K, ...W, idempotent: true, title: "Update a recurrence", description: "Change a recurrence's template or schedule, or pause it (active: false).", input: s.recurrenceUpdateInput, run: updateRecurrence }),
  defineTool({ name: "card_recurrences_delete", ...K, ...W, destructive: true, title: "Delete a recurrence", description: "Stop and delete a recurrence; cards it made stay.", input: s.refInput, run: deleteRecurrence }),
];

// --- sprints ----------------------------------------------------------------

const sprintTools = [
  defineTool({ name: "sprints_list", ...S, ...R, title: "List sprints", description: "A project's sprints, newest first, with status, dates, cards and points.", input: s.sprintListInput, run: listSprints }),
  defineTool({ name: "sprints_get", ...S, ...R, title: "Get a sprint", description: "A sprint with committed, scope, completed and remaining points, time logged and its cards.", input: s.refInput, run: getSprint }),
  defineTool({ name: "sprints_create", ...S, ...W, title: "Plan a sprint", description: "Plan a sprint (startDate, endDate, goal); name defaults to Sprint N.", input: s.sprintCreateInput, run: createSprint }),
  defineTool({ name: "sprints_update", ...S, ...W, idempotent: true, title: "Update a sprint", description: "Change a sprint's name, goal or dates.", input: s.sprintUpdateInput, run: updateSprint }),
  defineTool({ name: "sprints_start", ...S, ...W, title: "Start a sprint", description: "Start a planned sprint (one active per project); its scope now is the committed points.", input: s.refInput, run: startSprint }),
  defineTool({ name: "sprints_close", ...S, ...W, title: "Close a sprint", description: "Close the active sprint; unfinished cards go to carryOverTo: \"next\" planned sprint (default), \"backlog\" or a sprint id.", input: s.sprintCloseInput, run: closeSprint }),
  defineTool({ name: "sprints_delete", ...S, ...W, destructive: true, title: "Delete a sprint", description: "Delete a planned sprint; its cards go back to the backlog.", input: s.refInput, run: deleteSprint }),
  defineTool({ name: "sprint_cards_add", ...S, ...W, idempotent: true, title: "Add cards to a sprint", description: "Put cards of the sprint's project into it (moving them out of another sprint).", input: s.sprintCardsInput, run: addSprintCards }),
  defineTool({ name: "sprint_cards_remove", ...S, ...W, idempotent: true, title: "Remove cards from a sprint", description: "Take cards out of a sprint, back to the backlog.", input: s.sprintCardsInput, run: removeSprintCards }),
  defineTool({ name: "sprints_burndown", ...S, ...R, title: "Sprint burndown", description: "Per day of a sprint (project time zone): scope, completed and remaining points, and the ideal line; from card history.", input: s.refInput, run: sprintBurndown }),
  defineTool({ name: "sprints_velocity", ...S, ...R, title: "Velocity", description: "Committed and completed points of the last count closed sprints (default 3) and their average.", input: s.velocityInput, run: sprintVelocity }),
];

export const projectsDomain: Domain = {
  name: "projects",
  title: "Projects",
  description: "Client projects: members, labels, milestones, time logs and timesheets.",
  tools: projectTools,
  events: projectEvents,
  subscribers: [projectNotices],
  jobs: [recurrenceJob],
};

export const kanbanDomain: Domain = {
  name: "kanban",
  title: "Kanban",
  description: "Boards, columns with WIP limits, cards (WEB-42) with checklists, relations, comments, attachments, recurrences.",
  tools: kanbanTools,
  notificationTypes: [
    { type: "card.assigned", label: "You were assigned a card", inApp: true, email: true },
    { type: "comment.mentioned", label: "You were mentioned in a comment", inApp: true, email: true },
  ],
};

export const sprintsDomain: Domain = {
  name: "sprints",
  title: "Sprints",
  description: "Sprints: plan, start, close with carry-over; burndown and velocity from card history.",
  tools: sprintTools,
};

export const workDomains = [projectsDomain, kanbanDomain, sprintsDomain];
