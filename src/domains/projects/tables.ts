/**
 * Work management: projects with members, labels and milestones; boards of
 * ordered columns; cards with assignees, labels, checklists, relations,
 * comments, attachments and an activity history; sprints; time logs; card
 * recurrences. Everything hangs from a project, and a project from a company.
 *
 * Dates that people mean as calendar days (due dates, sprint dates, the day
 * time was worked, a recurrence's start) are `YYYY-MM-DD` text: they have no
 * time zone. Instants are times.
 *
 * card_activity is the history the sprint maths replays: every row carries the
 * card's sprint, estimate and state group *after* the change, so the state of
 * any card at any instant is the last row at or before it (sprint-maths.ts).
 * It has no foreign key to cards: a deleted card's history stays, ending in a
 * row that takes it out of its sprint.
 */
import { media } from "../cms/tables";
import {
  bool,
  createdAt,
  id,
  index,
  integer,
  json,
  primaryKey,
  table,
  text,
  time,
  uniqueIndex,
  updatedAt,
} from "../../core/columns";
import { companies, users } from "../../core/tables";

export const PROJECT_STATUSES = ["planned", "active", "paused", "completed", "cancelled"] as const;
export type ProjectStatus = (typeof PROJECT_STATUSES)[number];
export const PROJECT_HEALTH = ["on_track", "at_risk", "off_track"] as const;
export type ProjectHealth = (typeof PROJECT_HEALTH)[number];

export const projects = table(
  "projects",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    /** Upper-case, 2–10 characters: the prefix of card keys (WEB-42). */
    key: text("key").notNull(),
    /** Keys the project had before, so old card keys (OLD-7) still resolve. */
    formerKeys: json<string[]>("former_keys")
      .notNull()
      .$defaultFn(() => []),
    name: text("name").notNull(),
    /** Markdown, written to be shown to the client. */
    description: text("description"),
    status: text("status").$type<ProjectStatus>().notNull().default("active"),
    health: text("health").$type<ProjectHealth>(),
    leadUserId: integer("lead_user_id").references(() => users.id, { onDelete: "set null" }),
    startDate: text("start_date"),
    targetDate: text("target_date"),
    /** IANA zone the project's days are counted in (burndown days, "today" for time logs). */
    timeZone: text("time_zone").notNull().default("UTC"),
    /** The number the next card gets. */
    nextNumber: integer("next_number").notNull().default(1),
    archivedAt: time("archived_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("projects_company_key").on(t.companyId, t.key),
    index("projects_company").on(t.companyId, t.archivedAt),
  ],
);

export const projectMembers = table(
  "project_members",
  {
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.userId] }), index("project_members_user").on(t.userId)],
);

export const projectLabels = table(
  "project_labels",
  {
    id: id(),
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** The name ASCII-lower-cased: label names are unique per project regardless of case. */
    nameKey: text("name_key").notNull(),
    color: text("color").notNull(),
    description: text("description"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("project_labels_project_name").on(t.projectId, t.nameKey)],
);

export const milestones = table(
  "milestones",
  {
    id: id(),
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    description: text("description"),
    targetDate: text("target_date"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("milestones_project").on(t.projectId)],
);

/** A card's priority by number (0…4) and the name its priorityName shows; either is accepted on input. */
export const PRIORITY_NAMES = ["none", "urgent", "high", "medium", "low"] as const;

export const STATE_GROUPS = ["backlog", "unstarted", "started", "done", "cancelled"] as const;
export type StateGroup = (typeof STATE_GROUPS)[number];

export const boards = table(
  "boards",
  {
    id: id(),
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    position: integer("position").notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("boards_project").on(t.projectId, t.position)],
);

export const boardColumns = table(
  "board_columns",
  {
    id: id(),
    boardId: integer("board_id")
      .notNull()
      .references(() => boards.id, { onDelete: "cascade" }),
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    stateGroup: text("state_group").$type<StateGroup>().notNull(),
    /** Most cards the column may hold; null: no limit. */
    wipLimit: integer("wip_limit"),
    position: integer("position").notNull(),
    /**
     * Bumped by every move into the column: concurrent moves into one column
     * then write the same row, so PostgreSQL serialises them (one retries)
     * and the WIP count and neighbour positions each saw stay true.
     */
    version: integer("version").notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("board_columns_board").on(t.boardId, t.position)],
);

export const cardRecurrences = table(
  "card_recurrences",
  {
    id: id(),
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    /** What each card gets: title (may hold {date}), description, priority, estimate, labelIds, assigneeIds, checklist, columnId, dueInDays. */
    template: json<RecurrenceTemplate>("template").notNull(),
    frequency: text("frequency").$type<"daily" | "weekly" | "monthly">().notNull(),
    interval: integer("interval").notNull().default(1),
    /** mo..su; weekly: the days; daily: only these days; monthly with weekOfMonth: the weekday. */
    weekdays: json<string[]>("weekdays")
      .notNull()
      .$defaultFn(() => []),
    /** monthly: day of month 1–31 (short months: their last day), -1 the last day. */
    monthDay: integer("month_day"),
    /** monthly: 1–4 or -1 (last) with one weekday, e.g. the 2nd Tuesday. */
    weekOfMonth: integer("week_of_month"),
    /** Local time of day, HH:MM, in timeZone. */
    timeOfDay: text("time_of_day").notNull(),
    timeZone: text("time_zone").notNull(),
    startDate: text("start_date").notNull(),
    endDate: text("end_date"),
    /** After downtime: "all" makes every missed card, "latest" only the most recent one. */
    catchUp: text("catch_up").$type<"all" | "latest">().notNull().default("all"),
    active: bool("active").notNull().default(true),
    /** The next occurrence not yet made: its local date and the instant it is due. Null when the series ended. */
    nextDate: text("next_date"),
    nextAt: time("next_at"),
    lastDate: text("last_date"),
    createdByUserId: integer("created_by_user_id").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("card_recurrences_due").on(t.active, t.nextAt), index("card_recurrences_project").on(t.projectId)],
);

export interface RecurrenceTemplate {
  title: string;
  description: string | null;
  priority: number;
  estimate: number | null;
  labelIds: number[];
  assigneeIds: number[];
  checklist: string[];
  columnId: number | null;
  dueInDays: number | null;
}

export const SPRINT_STATUSES = ["planned", "active", "closed"] as const;
export type SprintStatus = (typeof SPRINT_STATUSES)[number];

export const sprints = table(
  "sprints",
  {
    id: id(),
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    goal: text("goal"),
    startDate: text("start_date").notNull(),
    endDate: text("end_date").notNull(),
    status: text("status").$type<SprintStatus>().notNull().default("planned"),
    /** The project id while this sprint is active, else null: unique, so a project has one active sprint even under races. */
    activeProjectId: integer("active_project_id"),
    startedAt: time("started_at"),
    closedAt: time("closed_at"),
    /** What closing did with unfinished cards (a record of the close, not a statistic). */
    carriedOver: json<{ toSprintId: number | null; cardIds: number[]; points: number }>("carried_over"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("sprints_one_active").on(t.activeProjectId),
    index("sprints_project").on(t.projectId, t.startDate),
  ],
);

export const PRIORITIES = [0, 1, 2, 3, 4] as const;

export const cards = table(
  "cards",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    number: integer("number").notNull(),
    boardId: integer("board_id")
      .notNull()
      .references(() => boards.id),
    columnId: integer("column_id")
      .notNull()
      .references(() => boardColumns.id),
    /** Gap ordering within the column (ordering.ts): ascending, unique per column. */
    position: integer("position").notNull(),
    title: text("title").notNull(),
    /** Markdown. */
    description: text("description"),
    /** 0 none, 1 urgent, 2 high, 3 medium, 4 low (Linear's scale). */
    priority: integer("priority").notNull().default(0),
    /** Story points. */
    estimate: integer("estimate"),
    dueDate: text("due_date"),
    /** A card of the same project (no foreign key: deleting a parent detaches its sub-cards in the verb). */
    parentId: integer("parent_id"),
    milestoneId: integer("milestone_id").references(() => milestones.id, { onDelete: "set null" }),
    sprintId: integer("sprint_id").references(() => sprints.id, { onDelete: "set null" }),
    recurrenceId: integer("recurrence_id").references(() => cardRecurrences.id, { onDelete: "set null" }),
    /** The recurrence's local date this card was made for: unique per recurrence, so a rerun never duplicates it. */
    occurrence: text("occurrence"),
    createdByUserId: integer("created_by_user_id").references(() => users.id, { onDelete: "set null" }),
    /** When the card last entered a done column; null while not done. */
    completedAt: time("completed_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("cards_project_number").on(t.projectId, t.number),
    uniqueIndex("cards_column_position").on(t.columnId, t.position),
    uniqueIndex("cards_recurrence_occurrence").on(t.recurrenceId, t.occurrence),
    index("cards_project_updated").on(t.projectId, t.updatedAt),
    index("cards_sprint").on(t.sprintId),
    index("cards_parent").on(t.parentId),
    index("cards_company").on(t.companyId),
  ],
);

export const cardAssignees = table(
  "card_assignees",
  {
    cardId: integer("card_id")
      .notNull()
      .references(() => cards.id, { onDelete: "cascade" }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.cardId, t.userId] }), index("card_assignees_user").on(t.userId)],
);

export const cardLabels = table(
  "card_labels",
  {
    cardId: integer("card_id")
      .notNull()
      .references(() => cards.id, { onDelete: "cascade" }),
    labelId: integer("label_id")
      .notNull()
      .references(() => projectLabels.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.cardId, t.labelId] }), index("card_labels_label").on(t.labelId)],
);

export const checklistItems = table(
  "card_checklist_items",
  {
    id: id(),
    cardId: integer("card_id")
      .notNull()
      .references(() => cards.id, { onDelete: "cascade" }),
    text: text("text").notNull(),
    done: bool("done").notNull().default(false),
    position: integer("position").notNull(),
    doneAt: time("done_at"),
    doneByUserId: integer("done_by_user_id").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
  },
  (t) => [index("card_checklist_card").on(t.cardId, t.position)],
);

/** Stored one way: `blocks` and `duplicates` point from → to; "blocked_by" is a blocks row read backwards; `relates` is undirected. */
export const RELATION_KINDS = ["blocks", "duplicates", "relates"] as const;
export type RelationKind = (typeof RELATION_KINDS)[number];

export const cardRelations = table(
  "card_relations",
  {
    id: id(),
    fromCardId: integer("from_card_id")
      .notNull()
      .references(() => cards.id, { onDelete: "cascade" }),
    toCardId: integer("to_card_id")
      .notNull()
      .references(() => cards.id, { onDelete: "cascade" }),
    kind: text("kind").$type<RelationKind>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("card_relations_pair").on(t.fromCardId, t.toCardId, t.kind),
    index("card_relations_to").on(t.toCardId),
  ],
);

export const cardComments = table(
  "card_comments",
  {
    id: id(),
    cardId: integer("card_id")
      .notNull()
      .references(() => cards.id, { onDelete: "cascade" }),
    authorUserId: integer("author_user_id").references(() => users.id, { onDelete: "set null" }),
    /** Markdown. */
    body: text("body").notNull(),
    mentionedUserIds: json<number[]>("mentioned_user_ids")
      .notNull()
      .$defaultFn(() => []),
    editedAt: time("edited_at"),
    createdAt: createdAt(),
  },
  (t) => [index("card_comments_card").on(t.cardId, t.createdAt)],
);

export const cardAttachments = table(
  "card_attachments",
  {
    id: id(),
    cardId: integer("card_id")
      .notNull()
      .references(() => cards.id, { onDelete: "cascade" }),
    /** A media item of one of the company's sites; deleting the media removes the attachment. */
    mediaId: integer("media_id")
      .notNull()
      .references(() => media.id, { onDelete: "cascade" }),
    addedByUserId: integer("added_by_user_id").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("card_attachments_card_media").on(t.cardId, t.mediaId),
    index("card_attachments_media").on(t.mediaId),
  ],
);

export const cardActivity = table(
  "card_activity",
  {
    id: id(),
    cardId: integer("card_id").notNull(),
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    /** Who acted; null for the recurrence job. */
    userId: integer("user_id"),
    /** created, updated, moved, assigned, unassigned, labeled, sprint, comment, checklist, relation, attachment, time, deleted. */
    action: text("action").notNull(),
    /** What changed: { field: [from, to] } or the facts of the action. */
    detail: json<Record<string, unknown>>("detail").notNull(),
    // The card's state after this change (see the file comment).
    sprintId: integer("sprint_id"),
    estimate: integer("estimate"),
    stateGroup: text("state_group").$type<StateGroup | "deleted">().notNull(),
    at: time("at").notNull(),
  },
  (t) => [
    index("card_activity_card").on(t.cardId, t.at),
    index("card_activity_sprint").on(t.sprintId, t.cardId),
    index("card_activity_project").on(t.projectId, t.at),
  ],
);

export const timeLogs = table(
  "time_logs",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    projectId: integer("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    /** Null once the card was deleted: the time stays on the project. */
    cardId: integer("card_id").references(() => cards.id, { onDelete: "set null" }),
    /** The sprint the card was in when the time was logged. */
    sprintId: integer("sprint_id").references(() => sprints.id, { onDelete: "set null" }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    minutes: integer("minutes").notNull(),
    /** The day the work was done (YYYY-MM-DD). */
    workedOn: text("worked_on").notNull(),
    note: text("note"),
    billable: bool("billable").notNull().default(true),
    createdByUserId: integer("created_by_user_id").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("time_logs_project").on(t.projectId, t.workedOn),
    index("time_logs_user").on(t.companyId, t.userId, t.workedOn),
    index("time_logs_card").on(t.cardId),
    index("time_logs_sprint").on(t.sprintId),
  ],
);
