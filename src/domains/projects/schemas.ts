/**
 * Valibot inputs of the projects, kanban and sprints tools. Published to
 * models as JSON Schema (compacted by the registry), so only actions with a
 * JSON Schema form shape what is published; rules that need the database
 * (a label of this project, a member of this company, a column of this
 * board) live in the verbs.
 *
 * Wherever a card is named, its key (WEB-42) works as well as its id; a
 * project takes its key (WEB); a person takes a user id, an email or "me".
 *
 * @public Serves brain (its project lookups take the cards list input).
 */
import * as v from "valibot";
import { pageInput } from "../../core/pagination";
import { PRIORITY_NAMES, PROJECT_HEALTH, PROJECT_STATUSES, SPRINT_STATUSES, STATE_GROUPS } from "./tables";
import { described, idSchema, USER_REF_WORDS } from "../../core/fields";

const MAX_ID = Number.MAX_SAFE_INTEGER;
export const MAX_BULK = 100;
export const MAX_TITLE = 255;
export const MAX_MARKDOWN = 50_000;
export const MAX_POINTS = 1000;
export const MAX_MINUTES = 24 * 60;

// No C0 control characters in one-line text; markdown may hold tab, LF, CR.
const SINGLE_LINE = /^[^\u0000-\u001f\u007f]*$/;
const MULTI_LINE = /^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]*$/;

export const id = idSchema;
/** Inside a union the id's lower bound is left to the lookup (0 is simply not found), so the published alternative stays {"type":"integer"}. */
const anyId = v.pipe(v.number(), v.integer(), v.maxValue(MAX_ID));

export const line = (max: number) =>
  v.pipe(
    v.string(),
    v.minLength(1, "must not be empty"),
    v.maxLength(max),
    v.regex(SINGLE_LINE, "must be one line without control characters"),
    v.regex(/\S/, "must not be blank"),
  );
export const markdown = v.pipe(
  v.string(),
  v.maxLength(MAX_MARKDOWN),
  v.regex(MULTI_LINE, "must not contain control characters"),
);

export const CARD_KEY = /^[A-Za-z][A-Za-z0-9]{1,9}-[0-9]{1,9}$/;
export const PROJECT_KEY = /^[A-Za-z][A-Za-z0-9]{1,9}$/;

// Key forms are checked with v.check, which stays out of the published schema: descriptions say "WEB-42" in fewer bytes.
export const cardRef = described(
  v.union(
    [
      anyId,
      v.pipe(
        v.string(),
        v.check((s) => CARD_KEY.test(s), "must be a card key like WEB-42"),
      ),
    ],
    "must be a card id (42) or key (WEB-42)",
  ),
  "card id or key (WEB-42)",
);
export type CardRef = v.InferOutput<typeof cardRef>;
export const projectRef = described(
  v.union(
    [
      anyId,
      v.pipe(
        v.string(),
        v.check((s) => PROJECT_KEY.test(s), "must be a project key like WEB"),
      ),
    ],
    "must be a project id or key (WEB)",
  ),
  "project id or key (WEB)",
);
export type ProjectRef = v.InferOutput<typeof projectRef>;
/** A person: user id, email, or "me". */
export const userRef = described(
  v.union([anyId, v.pipe(v.string(), v.minLength(1), v.maxLength(254))], 'must be a user id, an email or "me"'),
  USER_REF_WORDS,
);
export type UserRef = v.InferOutput<typeof userRef>;
/** A label of the card's project, by name (case-insensitive). */
const labelRef = v.pipe(v.string(), v.minLength(1), v.maxLength(60));
/** A column of the card's board: id, name ("In Review") or state group ("done"). */
const columnRef = described(
  v.union([anyId, v.pipe(v.string(), v.minLength(1), v.maxLength(60))], "must be a column id, name or state group"),
  "column id, name or state group (done)",
);

const isRealDate = (s: string) => {
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
};
export const date = v.pipe(
  v.string(),
  v.isoDate("must be a date like 2026-03-31"),
  v.check(isRealDate, "must be a real calendar date"),
);

const list = <T extends v.GenericSchema>(item: T, max = MAX_BULK) => v.pipe(v.array(item), v.maxLength(max));
/** A priority as cards show it, number or priorityName ("high"), stored as the number. */
const priority = v.pipe(
  v.union(
    [v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(4)), v.picklist(PRIORITY_NAMES)],
    `must be 0 to 4 or one of ${PRIORITY_NAMES.join(", ")}`,
  ),
  v.description("0 none, 1 urgent, 2 high, 3 medium, 4 low, or the name"),
  v.transform((p): number => (typeof p === "number" ? p : PRIORITY_NAMES.indexOf(p))),
);
const points = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(MAX_POINTS));
const color = v.pipe(v.string(), v.regex(/^#[0-9a-fA-F]{6}$/, "must be a colour like #2563eb"));
const stateGroup = v.picklist(STATE_GROUPS);
const wipLimit = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(1000));
const timeZone = v.pipe(v.string(), v.minLength(1), v.maxLength(64));
const position = v.picklist(["top", "bottom"]);

// ---------------------------------------------------------------------------
// Projects

const columnSpec = v.strictObject({ name: line(60), stateGroup, wipLimit: v.optional(wipLimit) });

export const projectListInput = v.strictObject({
  status: v.optional(v.picklist(PROJECT_STATUSES)),
  archived: v.optional(v.boolean(), false),
  search: v.optional(v.pipe(v.string(), v.maxLength(200))),
  ...pageInput,
});
export const projectRefInput = v.strictObject({ id: projectRef });
export const projectCreateInput = v.strictObject({
  name: line(120),
  key: v.optional(
    v.pipe(v.string(), v.regex(PROJECT_KEY, "must be 2–10 letters or digits starting with a letter, like WEB")),
  ),
  description: v.optional(markdown),
  status: v.optional(v.picklist(PROJECT_STATUSES), "active"),
  health: v.optional(v.picklist(PROJECT_HEALTH)),
  lead: v.optional(userRef),
  members: v.optional(list(userRef)),
  startDate: v.optional(date),
  targetDate: v.optional(date),
  timeZone: v.optional(timeZone),
});
export const projectUpdateInput = v.strictObject({
  id: projectRef,
  name: v.optional(line(120)),
  key: v.optional(
    v.pipe(v.string(), v.regex(PROJECT_KEY, "must be 2–10 letters or digits starting with a letter, like WEB")),
  ),
  description: v.optional(v.nullable(markdown)),
  status: v.optional(v.picklist(PROJECT_STATUSES)),
  health: v.optional(v.nullable(v.picklist(PROJECT_HEALTH))),
  lead: v.optional(v.nullable(userRef)),
  startDate: v.optional(v.nullable(date)),
  targetDate: v.optional(v.nullable(date)),
  timeZone: v.optional(timeZone),
});
export const projectArchiveInput = v.strictObject({ id: projectRef, archived: v.optional(v.boolean(), true) });
export const projectDeleteInput = v.strictObject({ id: projectRef, force: v.optional(v.boolean(), false) });
export const projectMembersInput = v.strictObject({
  projectId: projectRef,
  users: v.pipe(list(userRef), v.minLength(1)),
});

export const labelListInput = v.strictObject({ projectId: projectRef });
export const labelCreateInput = v.strictObject({
  projectId: projectRef,
  name: line(60),
  color: v.optional(color),
  description: v.optional(line(300)),
});
export const labelUpdateInput = v.strictObject({
  id,
  name: v.optional(line(60)),
  color: v.optional(color),
  description: v.optional(v.nullable(line(300))),
});
export const refInput = v.strictObject({ id });

export const milestoneCreateInput = v.strictObject({
  projectId: projectRef,
  name: line(120),
  description: v.optional(markdown),
  targetDate: v.optional(date),
});
export const milestoneUpdateInput = v.strictObject({
  id,
  name: v.optional(line(120)),
  description: v.optional(v.nullable(markdown)),
  targetDate: v.optional(v.nullable(date)),
});

// ---------------------------------------------------------------------------
// Boards and columns

export const boardListInput = v.strictObject({ projectId: projectRef, ...pageInput });
export const boardGetInput = v.strictObject({
  id,
  cardsPerColumn: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(50)), 10),
});
export const boardCreateInput = v.strictObject({
  projectId: projectRef,
  name: line(80),
  columns: v.optional(v.pipe(v.array(columnSpec), v.minLength(1), v.maxLength(20))),
});
export const boardUpdateInput = v.strictObject({ id, name: line(80) });
export const boardDeleteInput = v.strictObject({ id, moveCardsToColumnId: v.optional(id) });
export const columnCreateInput = v.strictObject({
  boardId: id,
  name: line(60),
  stateGroup,
  wipLimit: v.optional(wipLimit),
  afterColumnId: v.optional(id),
});
export const columnUpdateInput = v.strictObject({
  id,
  name: v.optional(line(60)),
  stateGroup: v.optional(stateGroup),
  wipLimit: v.optional(v.nullable(wipLimit)),
});
export const columnReorderInput = v.strictObject({ boardId: id, columnIds: v.pipe(list(id, 50), v.minLength(1)) });
export const columnDeleteInput = v.strictObject({ id, moveCardsToColumnId: v.optional(id) });

// ---------------------------------------------------------------------------
// Cards

const sprintFilter = v.union([anyId, v.picklist(["active", "none"])], 'must be a sprint id, "active" or "none"');
const sprintTarget = v.union([anyId, v.literal("active")], 'must be a sprint id or "active"');

export const CARD_ORDERS = ["board", "updated", "created", "priority", "due"] as const;
export const cardListInput = v.strictObject({
  projectId: v.optional(projectRef),
  boardId: v.optional(id),
  columnId: v.optional(id),
  stateGroups: v.optional(list(stateGroup, 5)),
  assignee: v.optional(userRef),
  labels: v.optional(list(labelRef, 20)),
  priorities: v.optional(list(priority, 5)),
  sprintId: v.optional(sprintFilter),
  milestoneId: v.optional(id),
  dueBefore: v.optional(date),
  dueAfter: v.optional(date),
  search: v.optional(v.pipe(v.string(), v.maxLength(200))),
  orderBy: v.optional(v.picklist(CARD_ORDERS), "board"),
  ...pageInput,
});
export const cardGetInput = v.strictObject({
  id: cardRef,
  include: v.optional(list(v.picklist(["comments", "activity"]), 2), []),
});
export const cardCreateInput = v.strictObject({
  projectId: v.optional(projectRef),
  title: line(MAX_TITLE),
  description: v.optional(markdown),
  columnId: v.optional(columnRef),
  assignees: v.optional(list(userRef, 20)),
  labels: v.optional(list(labelRef, 20)),
  priority: v.optional(priority, 0),
  estimate: v.optional(points),
  dueDate: v.optional(date),
  parentId: v.optional(cardRef),
  milestoneId: v.optional(id),
  sprintId: v.optional(sprintTarget),
  checklist: v.optional(list(line(300), 50)),
});
export const cardUpdateInput = v.strictObject({
  id: cardRef,
  title: v.optional(line(MAX_TITLE)),
  description: v.optional(v.nullable(markdown)),
  assignees: v.optional(list(userRef, 20)),
  labels: v.optional(list(labelRef, 20)),
  priority: v.optional(priority),
  estimate: v.optional(v.nullable(points)),
  dueDate: v.optional(v.nullable(date)),
  parentId: v.optional(v.nullable(cardRef)),
  milestoneId: v.optional(v.nullable(id)),
  sprintId: v.optional(v.nullable(sprintTarget)),
});
export const cardMoveInput = v.strictObject({
  id: cardRef,
  columnId: v.optional(columnRef),
  position: v.optional(position),
  afterCardId: v.optional(cardRef),
  beforeCardId: v.optional(cardRef),
});
export const cardBulkInput = v.strictObject({
  ids: v.pipe(list(cardRef), v.minLength(1)),
  columnId: v.optional(columnRef),
  sprintId: v.optional(v.nullable(sprintTarget)),
  priority: v.optional(priority),
  estimate: v.optional(v.nullable(points)),
  dueDate: v.optional(v.nullable(date)),
  milestoneId: v.optional(v.nullable(id)),
  addLabels: v.optional(list(labelRef, 20)),
  removeLabels: v.optional(list(labelRef, 20)),
  addAssignees: v.optional(list(userRef, 20)),
  removeAssignees: v.optional(list(userRef, 20)),
});
export const cardRefInput = v.strictObject({ id: cardRef });

export const checklistAddInput = v.strictObject({
  cardId: cardRef,
  items: v.pipe(list(line(300), 50), v.minLength(1)),
});
export const checklistUpdateInput = v.strictObject({
  id,
  text: v.optional(line(300)),
  done: v.optional(v.boolean()),
  index: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(1000))),
});

export const RELATION_INPUTS = ["blocks", "blocked_by", "duplicates", "duplicated_by", "relates"] as const;
export const relationInput = v.strictObject({
  cardId: cardRef,
  kind: v.picklist(RELATION_INPUTS),
  otherCardId: cardRef,
});
export const relationRemoveInput = v.strictObject({
  cardId: cardRef,
  otherCardId: cardRef,
  kind: v.optional(v.picklist(RELATION_INPUTS)),
});

export const commentCreateInput = v.strictObject({
  cardId: cardRef,
  body: v.pipe(markdown, v.minLength(1), v.regex(/\S/, "must not be blank")),
});
export const commentUpdateInput = v.strictObject({
  id,
  body: v.pipe(markdown, v.minLength(1), v.regex(/\S/, "must not be blank")),
});
export const attachmentInput = v.strictObject({ cardId: cardRef, mediaId: id });

// ---------------------------------------------------------------------------
// Recurrences

const timeOfDay = v.pipe(
  v.string(),
  v.regex(/^([01][0-9]|2[0-3]):[0-5][0-9]$/, "must be a time like 09:00"),
  v.examples(["09:00"]),
);
const recurrenceFields = {
  title: line(MAX_TITLE),
  description: v.optional(v.nullable(markdown)),
  columnId: v.optional(v.nullable(columnRef)),
  assignees: v.optional(list(userRef, 20)),
  labels: v.optional(list(labelRef, 20)),
  priority: v.optional(priority),
  estimate: v.optional(v.nullable(points)),
  checklist: v.optional(list(line(300), 50)),
  dueInDays: v.optional(v.nullable(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(365)))),
  rule: v.pipe(v.string(), v.minLength(1), v.maxLength(200), v.examples(["FREQ=WEEKLY;BYDAY=MO"])),
  time: v.optional(timeOfDay),
  timeZone: v.optional(timeZone),
  startDate: v.optional(date),
  endDate: v.optional(v.nullable(date)),
  catchUp: v.optional(v.picklist(["all", "latest"])),
};
export const recurrenceCreateInput = v.strictObject({ projectId: projectRef, ...recurrenceFields });
export const recurrenceUpdateInput = v.strictObject({
  id,
  ...v.partial(v.object(recurrenceFields)).entries,
  active: v.optional(v.boolean()),
});
export const recurrenceListInput = v.strictObject({ projectId: v.optional(projectRef), ...pageInput });

// ---------------------------------------------------------------------------
// Sprints

export const sprintListInput = v.strictObject({
  projectId: projectRef,
  status: v.optional(v.picklist(SPRINT_STATUSES)),
  ...pageInput,
});
export const sprintCreateInput = v.strictObject({
  projectId: projectRef,
  name: v.optional(line(80)),
  goal: v.optional(line(500)),
  startDate: date,
  endDate: date,
});
export const sprintUpdateInput = v.strictObject({
  id,
  name: v.optional(line(80)),
  goal: v.optional(v.nullable(line(500))),
  startDate: v.optional(date),
  endDate: v.optional(date),
});
export const sprintCloseInput = v.strictObject({
  id,
  carryOverTo: v.optional(
    v.union([anyId, v.picklist(["next", "backlog"])], 'must be a sprint id, "next" or "backlog"'),
    "next",
  ),
});
export const sprintCardsInput = v.strictObject({ sprintId: id, cardIds: v.pipe(list(cardRef), v.minLength(1)) });
export const velocityInput = v.strictObject({
  projectId: projectRef,
  count: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(12)), 3),
});

// ---------------------------------------------------------------------------
// Time

const minutes = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_MINUTES));
export const timeLogCreateInput = v.strictObject({
  cardId: cardRef,
  minutes,
  workedOn: v.optional(date),
  note: v.optional(line(500)),
  billable: v.optional(v.boolean(), true),
  userId: v.optional(userRef),
});
export const timeLogUpdateInput = v.strictObject({
  id,
  minutes: v.optional(minutes),
  workedOn: v.optional(date),
  note: v.optional(v.nullable(line(500))),
  billable: v.optional(v.boolean()),
});
export const timeLogListInput = v.strictObject({
  projectId: v.optional(projectRef),
  cardId: v.optional(cardRef),
  sprintId: v.optional(id),
  userId: v.optional(userRef),
  from: v.optional(date),
  to: v.optional(date),
  billable: v.optional(v.boolean()),
  ...pageInput,
});
export const timesheetInput = v.strictObject({
  userId: v.optional(userRef),
  from: date,
  to: date,
  projectId: v.optional(projectRef),
});
