/**
 * A booking page's settings: the valibot inputs the tools publish, the
 * stored shape (`PageConfig`), and the checks that need more than one field.
 * Hosts arrive as user ids or emails and are stored as user ids (checked
 * against the company's members by the verb).
 */
import * as v from "valibot";
import { invalid } from "../../core/errors";
import { described, MEMBER_REF_WORDS } from "../../core/fields";
import { MAX_SLUG } from "../../core/slug";
import { urlProblem } from "../blocks/urls";
import { isTimeZone, parseRange } from "./zoned";

export const PAGE_STATUSES = ["pending", "live", "paused", "rejected"] as const;
export const BOOKING_STATUSES = ["pending", "accepted", "cancelled", "declined", "expired"] as const;
export const HOST_MODES = ["single", "round_robin", "collective"] as const;
export type HostMode = (typeof HOST_MODES)[number];
export const LOCATION_KINDS = ["in_person", "phone", "video"] as const;
export const QUESTION_TYPES = ["short_text", "long_text", "email", "phone", "number", "select", "checkbox"] as const;
export type QuestionType = (typeof QUESTION_TYPES)[number];

export interface Question {
  id: string;
  label: string;
  type: QuestionType;
  required: boolean;
  options?: string[];
}

export interface PageConfig {
  title: string;
  slug: string;
  description: string | null;
  /** Minutes; the first is the default. */
  durations: number[];
  location: { kind: (typeof LOCATION_KINDS)[number]; value: string | null };
  questions: Question[];
  minNotice: number;
  bufferBefore: number;
  bufferAfter: number;
  /** Minutes between start times; null: the meeting's length. */
  slotInterval: number | null;
  dailyLimit: number | null;
  weeklyLimit: number | null;
  /** How far ahead starts may be; null: no limit. */
  maxAdvanceDays: number | null;
  hostMode: HostMode;
  hostUserIds: number[];
  requiresConfirmation: boolean;
  /** Attendees may not cancel / reschedule later than this many minutes before the start. */
  cancelCutoff: number;
  rescheduleCutoff: number;
  /** Reminder emails to the attendee, in minutes before the start (none: []). Pages made before this field: DEFAULT_REMINDERS. */
  reminders?: number[];
  /** Default zone of the public page, and the grid of "all together" pages. */
  timeZone: string;
  /**
   * Video pages: the meeting link each booking gets, with {page} (the slug)
   * and {uid} (the booking's unguessable uid) filled in, e.g. a Jitsi room
   * "https://meet.jit.si/{page}-{uid}", or a fixed personal link. Absent or
   * null: `location.value` (one link for every booking) or none.
   */
  videoLink?: string | null;
}

export interface StoredAnswer {
  id: string;
  label: string;
  value: string | number | boolean;
}
export interface StoredLocation {
  kind: PageConfig["location"]["kind"];
  /** Address, number to call, or meeting URL; for phone with no number, the attendee's number. */
  value: string | null;
}

const CONTROL = /^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]*$/;
const ONE_LINE = /^[^\u0000-\u001f\u007f]*$/;
const lineOf = (max: number) =>
  v.pipe(
    v.string(),
    v.minLength(1),
    v.maxLength(max),
    v.regex(ONE_LINE, "must be one line without control characters"),
    v.regex(/\S/, "must not be blank"),
  );
const textOf = (max: number) =>
  v.pipe(v.string(), v.maxLength(max), v.regex(CONTROL, "must not contain control characters"));
// Bounds are checked on the call but kept out of the published schema (v.check): the registry's byte budget
// is better spent on names and enums than on limits a model rarely meets; the message names them.
const int = (min: number, max: number) =>
  v.pipe(
    v.number(),
    v.integer(),
    v.check((n) => n >= min && n <= max, `must be ${min} to ${max}`),
  );

const SLUG_RE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const slugInput = v.pipe(
  v.string(),
  v.maxLength(MAX_SLUG),
  v.check((s) => SLUG_RE.test(s), "must be lower-case letters, digits and single hyphens, like intro-call"),
);
export const timeZoneInput = v.pipe(
  v.string(),
  v.maxLength(64),
  v.check(isTimeZone, "must be an IANA time zone such as Europe/Berlin or America/New_York"),
);
/** A member: user id, or the email they sign in with. */
export const memberRef = described(
  v.union([
    int(1, Number.MAX_SAFE_INTEGER),
    v.pipe(
      v.string(),
      v.minLength(3),
      v.maxLength(254),
      v.check((s) => /^[^\s@]+@[^\s@]+$/.test(s), "must be a user id or an email"),
    ),
  ]),
  MEMBER_REF_WORDS,
);

const questionInput = v.object({
  id: v.pipe(
    v.string(),
    v.check((s) => /^[a-z][a-z0-9_]{0,39}$/.test(s), "must be a short key like company_size"),
  ),
  label: lineOf(200),
  type: v.picklist(QUESTION_TYPES),
  required: v.optional(v.boolean()),
  options: v.optional(
    v.pipe(
      v.array(lineOf(100)),
      v.check((a) => a.length >= 1 && a.length <= 30, "must list 1 to 30 options"),
    ),
  ),
});

/** Fields of booking_pages_create (all but title optional) and booking_pages_update (all optional). */
export const pageFields = {
  title: lineOf(200),
  slug: slugInput,
  description: textOf(5000),
  durations: v.pipe(
    v.array(int(5, 720)),
    v.check((a) => a.length >= 1 && a.length <= 6, "must list 1 to 6 lengths"),
  ),
  location: v.picklist(LOCATION_KINDS),
  /** The address, the number to call, or the https meeting URL: which one, location says (checked in checkPageConfig). */
  where: v.pipe(
    lineOf(500),
    v.description(
      "by location: in_person the address (required); phone the number to call, or omit it and ask a required phone question; video an https meeting URL",
    ),
  ),
  questions: v.pipe(v.array(questionInput), v.maxLength(20)),
  videoLink: v.pipe(
    lineOf(500),
    v.description("video: a link per booking, {page} {uid} filled in: https://meet.jit.si/{page}-{uid}"),
  ),
  minNotice: int(0, 525_600),
  bufferBefore: int(0, 720),
  bufferAfter: int(0, 720),
  slotInterval: int(5, 720),
  dailyLimit: int(1, 1000),
  weeklyLimit: int(1, 5000),
  maxAdvanceDays: int(1, 730),
  hostMode: v.picklist(HOST_MODES),
  hosts: v.pipe(
    v.array(memberRef),
    v.check((a) => a.length >= 1 && a.length <= 20, "must name 1 to 20 members"),
  ),
  requiresConfirmation: v.boolean(),
  cancelCutoff: int(0, 525_600),
  rescheduleCutoff: int(0, 525_600),
  reminders: v.pipe(
    v.array(int(5, 20_160)),
    v.check((a) => a.length <= 3, "must list at most 3 reminders"),
  ),
  timeZone: timeZoneInput,
};

/** Fields an update may clear with null (back to "none"). */
export const NULLABLE_FIELDS = [
  "description",
  "where",
  "videoLink",
  "slotInterval",
  "dailyLimit",
  "weeklyLimit",
  "maxAdvanceDays",
] as const;

export type PageFieldsInput = Partial<{
  [K in keyof typeof pageFields]:
    | v.InferOutput<(typeof pageFields)[K]>
    | (K extends (typeof NULLABLE_FIELDS)[number] ? null : never);
}>;

export const DEFAULTS: Omit<PageConfig, "title" | "slug" | "hostUserIds" | "timeZone"> = {
  description: null,
  durations: [30],
  location: { kind: "video", value: null },
  questions: [],
  minNotice: 240,
  bufferBefore: 0,
  bufferAfter: 0,
  slotInterval: null,
  dailyLimit: null,
  weeklyLimit: null,
  maxAdvanceDays: 60,
  hostMode: "single",
  requiresConfirmation: false,
  cancelCutoff: 0,
  rescheduleCutoff: 0,
  reminders: [1440, 60],
};

/** A day and an hour before, as people expect of a calendar invite. */
export const DEFAULT_REMINDERS = [1440, 60];
/** The page's reminder offsets, largest first, without repeats. */
export const remindersOf = (c: Pick<PageConfig, "reminders">) =>
  [...new Set(c.reminders ?? DEFAULT_REMINDERS)].sort((a, b) => b - a);

/** A page's video link template with the booking's values filled in (each URL-encoded). */
export function videoLinkFor(template: string, slug: string, uid: string): string {
  return template.replaceAll("{page}", encodeURIComponent(slug)).replaceAll("{uid}", encodeURIComponent(uid));
}

/** Rules across fields, with messages that name the field. */
export function checkConfig(c: PageConfig): void {
  if (new Set(c.durations).size !== c.durations.length)
    throw invalid("durations must not repeat a length.", { path: "durations" });
  if (c.hostMode === "single" && c.hostUserIds.length !== 1)
    throw invalid(
      `hostMode "single" takes exactly one host; give hostMode "round_robin" or "collective" for ${c.hostUserIds.length}.`,
      { path: "hosts" },
    );
  if (new Set(c.hostUserIds).size !== c.hostUserIds.length)
    throw invalid("hosts must not name a member twice.", { path: "hosts" });
  const ids = new Set<string>();
  for (const [i, q] of c.questions.entries()) {
    if (["name", "email"].includes(q.id) || ids.has(q.id))
      throw invalid(`questions[${i}].id "${q.id}" is taken (name and email are always asked); use another key.`, {
        path: `questions[${i}].id`,
      });
    ids.add(q.id);
    if (q.type === "select" && !q.options?.length)
      throw invalid(`questions[${i}] is a select and needs options.`, { path: `questions[${i}].options` });
    if (q.type !== "select" && q.options)
      throw invalid(`questions[${i}].options only go with type "select".`, { path: `questions[${i}].options` });
  }
  if (c.location.kind === "video" && c.location.value) {
    const p = urlProblem(c.location.value, true);
    if (p || !/^https:\/\//i.test(c.location.value))
      throw invalid(`where must be an https meeting URL for a video location${p ? ` (${p})` : ""}.`, { path: "where" });
  }
  if (c.videoLink) {
    if (c.location.kind !== "video") throw invalid('videoLink goes with location "video".', { path: "videoLink" });
    if (c.location.value)
      throw invalid("Give where (one link for every booking) or videoLink (a link per booking), not both.", {
        path: "videoLink",
      });
    const unknown = /\{(?!page\}|uid\})[^}]*\}/.exec(c.videoLink);
    if (unknown)
      throw invalid(`videoLink may fill in {page} and {uid}; ${unknown[0].slice(0, 40)} is not one of them.`, {
        path: "videoLink",
      });
    const sample = videoLinkFor(c.videoLink, "page", "0".repeat(32));
    const p = urlProblem(sample, true);
    if (p || !/^https:\/\//i.test(sample))
      throw invalid(`videoLink must be an https meeting URL${p ? ` (${p})` : ""}.`, { path: "videoLink" });
  }
  if (c.location.kind === "in_person" && !c.location.value)
    throw invalid("where must give the address for an in-person meeting.", { path: "where" });
  if (c.location.kind === "phone" && !c.location.value && !c.questions.some((q) => q.type === "phone" && q.required))
    throw invalid(
      'A phone location without where (the number attendees call) needs a required question of type "phone" for the number the host calls.',
      { path: "where" },
    );
  if (c.dailyLimit !== null && c.weeklyLimit !== null && c.weeklyLimit < c.dailyLimit)
    throw invalid("weeklyLimit must not be below dailyLimit.", { path: "weeklyLimit" });
}

/** Weekly hours as an agent writes them ({ mon: ["09:00-17:00"] }), checked and normalised to ISO weekday keys. */
export const WEEKDAY_KEYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] as const;

const rangeList = v.pipe(v.array(v.pipe(v.string(), v.maxLength(11))), v.maxLength(12));
export const weeklyInput = v.record(v.picklist(WEEKDAY_KEYS), rangeList);
export const dayHoursInput = rangeList;

/** Sorted, non-overlapping minute ranges of "HH:MM-HH:MM" strings, or an error naming `path`. */
export function parseRanges(list: string[], path: string): [number, number][] {
  const out: [number, number][] = [];
  for (const [i, s] of list.entries()) {
    const r = parseRange(s);
    if (!r)
      throw invalid(
        `${path}[${i}] "${s.slice(0, 20)}" must be a time range like "09:00-17:00" (00:00 to 24:00, end after start).`,
        { path: `${path}[${i}]` },
      );
    out.push(r);
  }
  out.sort((a, b) => a[0] - b[0]);
  for (let i = 1; i < out.length; i++)
    if (out[i]![0] < out[i - 1]![1]) throw invalid(`${path} has overlapping ranges; list each stretch once.`, { path });
  return out;
}
