/**
 * What each kind of record holds beyond title and body, in one place: the
 * valibot schema of its `data` (checked on every write, including an
 * approved review re-run), the fields a tool takes for it, the text of it
 * that full-text search indexes, and which columns it fills.
 *
 * References to other records inside data (a task's assignee, a goal's
 * owner, an org unit's parent) are stored as relations or columns, not in
 * data, so renaming or merging a person never leaves a stale copy.
 */
import * as v from "valibot";
import type { RecordKind } from "./tables";

export const TASK_STATUSES = ["open", "in_progress", "done", "cancelled"] as const;
export const GOAL_STATUSES = ["not_started", "on_track", "at_risk", "off_track", "done", "dropped"] as const;

const day = v.pipe(
  v.string(),
  v.regex(/^\d{4}-\d{2}-\d{2}$/, "Use a date as YYYY-MM-DD."),
  v.check(
    (s) => !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && new Date(`${s}T00:00:00Z`).toISOString().startsWith(s),
    "Not a calendar date.",
  ),
);
const line = (max: number) => v.pipe(v.string(), v.trim(), v.maxLength(max));

const actionItem = v.object({
  text: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(500)),
  /** The task record it became. */
  taskId: v.optional(v.number()),
});
const step = v.object({
  title: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(300)),
  detail: v.optional(line(4000)),
});

/** Per kind: the shape of data as stored. */
export const DATA_SCHEMAS: Record<RecordKind, v.GenericSchema<Record<string, unknown>>> = {
  note: v.object({}),
  document: v.object({}),
  meeting: v.object({
    agenda: v.optional(line(4000)),
    decisions: v.optional(v.pipe(v.array(line(1000)), v.maxLength(100))),
    actionItems: v.optional(v.pipe(v.array(actionItem), v.maxLength(100))),
  }),
  task: v.object({}),
  person: v.object({
    email: v.optional(
      v.pipe(v.string(), v.trim(), v.toLowerCase(), v.email("Not an email address."), v.maxLength(254)),
    ),
    jobTitle: v.optional(line(200)),
    organization: v.optional(line(200)),
    phone: v.optional(line(50)),
    internal: v.optional(v.boolean()),
    /** The CRM contact this person is (read live through the CRM, never copied). */
    crmContactId: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
    /** Emails of people merged into this one, so mentions by them still resolve. */
    aliases: v.optional(v.array(v.string())),
  }),
  topic: v.object({}),
  glossary: v.object({ synonyms: v.optional(v.pipe(v.array(line(200)), v.maxLength(50))) }),
  goal: v.object({ progress: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(100))) }),
  initiative: v.object({ progress: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(100))) }),
  playbook: v.object({ steps: v.optional(v.pipe(v.array(step), v.maxLength(200))) }),
  org_unit: v.object({}),
};

export const dateSchema = day;

/** Statuses per kind (null: the kind has none). */
export const STATUSES: Partial<Record<RecordKind, readonly string[]>> = {
  task: TASK_STATUSES,
  goal: GOAL_STATUSES,
  initiative: GOAL_STATUSES,
};
export const DEFAULT_STATUS: Partial<Record<RecordKind, string>> = {
  task: "open",
  goal: "not_started",
  initiative: "not_started",
};

/** Unique per company by title: a topic or a glossary term exists once. */
export const UNIQUE_BY_TITLE: ReadonlySet<RecordKind> = new Set(["topic", "glossary"]);

/** The text of data that full-text search indexes besides title and body. */
export function dataText(kind: RecordKind, data: Record<string, unknown>): string {
  const d = data as Record<string, any>;
  const parts: string[] = [];
  switch (kind) {
    case "meeting":
      if (d.agenda) parts.push(d.agenda);
      for (const x of d.decisions ?? []) parts.push(x);
      for (const a of d.actionItems ?? []) parts.push(a.text);
      break;
    case "person":
      for (const k of ["email", "jobTitle", "organization"]) if (d[k]) parts.push(d[k]);
      break;
    case "glossary":
      for (const s of d.synonyms ?? []) parts.push(s);
      break;
    case "playbook":
      for (const s of d.steps ?? []) parts.push(s.detail ? `${s.title}: ${s.detail}` : s.title);
      break;
  }
  return parts.join("\n");
}

export function searchTextOf(kind: RecordKind, body: string, data: Record<string, unknown>): string {
  const extra = dataText(kind, data);
  return extra ? `${body}\n\n${extra}` : body;
}

export const titleKey = (title: string) => title.normalize("NFKC").trim().replace(/\s+/g, " ").toLowerCase();

export function uniqueKeyOf(kind: RecordKind, title: string, data: Record<string, unknown>): string | null {
  if (UNIQUE_BY_TITLE.has(kind)) return `${kind}:${titleKey(title)}`;
  if (kind === "person" && typeof data.email === "string") return `person:${data.email}`;
  return null;
}

/** Checks stored data against its kind; a failure is a bug or a hostile review payload, reported as validation. */
export function checkData(
  kind: RecordKind,
  data: unknown,
): { ok: true; data: Record<string, unknown> } | { ok: false; message: string } {
  const r = v.safeParse(DATA_SCHEMAS[kind], data);
  if (!r.success)
    return { ok: false, message: r.issues.map((i) => `${v.getDotPath(i) ?? "data"}: ${i.message}`).join("; ") };
  // Drop undefined keys: stored JSON is compared field by field in reviews.
  return { ok: true, data: Object.fromEntries(Object.entries(r.output).filter(([, x]) => x !== undefined)) };
}
