/**
 * Valibot inputs of the chat tools. A conversation is named by its number
 * in the company (57); inboxes and canned responses by id (a canned
 * response also by its short code). Rules that need the database (assignee
 * is a member, the site is the company's) live in the verbs.
 */
import * as v from "valibot";
import { described, USER_REF_WORDS } from "../../core/fields";
import { pageInput } from "../../core/pagination";
import { TICKET_PRIORITIES } from "../tickets/intake";
import { CHAT_PRIORITIES, CHAT_STATUSES } from "./tables";

export const LIMITS = {
  body: 8000,
  name: 120,
  greeting: 1000,
  origins: 20,
  labels: 20,
  canned: 8000,
  shortCode: 40,
} as const;

const positive = (what: string) =>
  v.pipe(
    v.number(`${what} must be a number.`),
    v.integer(`${what} must be an integer.`),
    v.check((n) => n >= 1 && n <= Number.MAX_SAFE_INTEGER, `${what} must be a positive integer.`),
  );

/** A conversation is named by its number in the company (integer; the "#57" agents write is shown as ref). */
const convNumber = positive;

const line = (what: string, max: number) =>
  v.pipe(
    v.string(`${what} must be a string.`),
    v.trim(),
    v.minLength(1, `${what} must not be empty.`),
    v.maxLength(max, `${what} must be at most ${max} characters.`),
  );

export const messageBody = (what: string, max: number = LIMITS.body) =>
  v.pipe(
    v.string(`${what} must be a string.`),
    v.maxLength(max, `${what} must be at most ${max} characters.`),
    v.regex(/\S/, `${what} must not be blank.`),
    v.check((s) => !s.includes("\u0000"), `${what} must not contain NUL.`),
  );

const label = v.pipe(
  v.string("A label must be a string."),
  v.trim(),
  v.toLowerCase(),
  v.check((t) => /^[a-z0-9][a-z0-9_:-]{0,39}$/.test(t), "Labels are 1-40 letters, digits, - _ or :, e.g. billing."),
);
const labels = v.pipe(
  v.array(label, "labels must be a list of strings."),
  v.maxLength(LIMITS.labels, `At most ${LIMITS.labels} labels.`),
);

/** An assignee: user id, email or "me". */
const who = described(
  v.union(
    [positive("assigneeId"), v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(254))],
    'assigneeId is a user id, an email or "me".',
  ),
  USER_REF_WORDS,
);

const origin = v.pipe(
  v.string("An origin must be a string."),
  v.trim(),
  v.maxLength(200, "An origin is at most 200 characters."),
  v.check((s) => {
    try {
      const u = new URL(s);
      return (u.protocol === "https:" || u.protocol === "http:") && u.origin === s.replace(/\/$/, "");
    } catch {
      return false;
    }
  }, "An origin is scheme and host only, e.g. https://example.com."),
  v.transform((s) => new URL(s).origin),
);

const hours = v.object({
  timeZone: v.pipe(v.string(), v.maxLength(64)),
  // Days and intervals are checked by the verb (parseWeekHours), with messages that say what is wrong.
  hours: v.pipe(
    v.record(v.pipe(v.string(), v.maxLength(3)), v.pipe(v.array(v.pipe(v.string(), v.maxLength(11))), v.maxLength(6))),
    v.check((o) => Object.keys(o).length <= 7, "hours has at most 7 days."),
  ),
});

const inboxFields = {
  greeting: v.optional(line("greeting", LIMITS.greeting)),
  awayMessage: v.optional(v.nullable(line("awayMessage", LIMITS.greeting))),
  allowedOrigins: v.optional(
    v.pipe(v.array(origin), v.maxLength(LIMITS.origins, `At most ${LIMITS.origins} origins.`)),
  ),
  businessHours: v.optional(v.nullable(hours)),
  enabled: v.optional(v.boolean()),
};

export const inboxListInput = v.object({ siteId: v.optional(positive("siteId")), ...pageInput });
export const inboxRef = v.object({ id: positive("id") });
export const inboxCreateInput = v.object({
  siteId: positive("siteId"),
  name: line("name", LIMITS.name),
  ...inboxFields,
});
export const inboxUpdateInput = v.object({
  id: positive("id"),
  name: v.optional(line("name", LIMITS.name)),
  ...inboxFields,
});

export const conversationListInput = v.object({
  status: v.optional(v.picklist([...CHAT_STATUSES, "all"])),
  inboxId: v.optional(positive("inboxId")),
  assigneeId: v.optional(who),
  priority: v.optional(v.picklist(CHAT_PRIORITIES)),
  label: v.optional(label),
  q: v.optional(line("q", 200)),
  ...pageInput,
});
export const conversationGetInput = v.object({
  id: convNumber("id"),
  limit: pageInput.limit,
  /** Omitted: the newest `limit` messages. */
  offset: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(Number.MAX_SAFE_INTEGER))),
});
export const replyInput = v.object({
  id: convNumber("id"),
  body: v.optional(messageBody("body")),
  cannedId: v.optional(
    described(v.union([positive("cannedId"), line("cannedId", LIMITS.shortCode)]), "canned reply id or shortCode"),
  ),
  status: v.optional(v.picklist(["open", "pending", "resolved"])),
});
export const noteInput = v.object({ id: convNumber("id"), body: messageBody("body") });
export const assignInput = v.object({ id: convNumber("id"), assigneeId: v.nullable(who) });
export const updateInput = v.object({
  id: convNumber("id"),
  priority: v.optional(v.picklist(CHAT_PRIORITIES)),
  addLabels: v.optional(labels),
  removeLabels: v.optional(labels),
});
export const snoozeInput = v.object({
  id: convNumber("id"),
  until: v.optional(v.pipe(v.string(), v.isoTimestamp("until is an ISO instant, e.g. 2026-03-02T09:00:00Z."))),
  minutes: v.optional(v.pipe(positive("minutes"), v.maxValue(60 * 24 * 90, "Snooze at most 90 days."))),
});
export const statusInput = v.object({ id: convNumber("id"), status: v.picklist(["open", "pending", "resolved"]) });
export const transcriptInput = v.object({
  id: convNumber("id"),
  to: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(254), v.email("to must be an email address."))),
});
export const toTicketInput = v.object({
  conversationId: convNumber("conversationId"),
  subject: v.optional(described(line("subject", 300), "default: Chat #57: the visitor's first words")),
  priority: v.optional(
    described(
      v.picklist(TICKET_PRIORITIES, `priority must be one of ${TICKET_PRIORITIES.join(", ")}.`),
      "ticket priority; default from the chat's",
    ),
  ),
  assigneeId: v.optional(described(who, `${USER_REF_WORDS}; default the chat's assignee`)),
});
export const waitInput = v.object({
  after: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(Number.MAX_SAFE_INTEGER))),
  inboxId: v.optional(positive("inboxId")),
  timeoutSeconds: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(8)), 8),
});

export const cannedListInput = v.object({ q: v.optional(line("q", 200)), ...pageInput });
const shortCode = v.pipe(
  v.string("shortCode must be a string."),
  v.trim(),
  v.toLowerCase(),
  v.check((t) => /^[a-z0-9][a-z0-9_-]{0,39}$/.test(t), "shortCode is 1-40 letters, digits, - or _, e.g. pricing."),
);
export const cannedCreateInput = v.object({ shortCode, content: messageBody("content", LIMITS.canned) });
export const cannedUpdateInput = v.object({
  id: positive("id"),
  shortCode: v.optional(shortCode),
  content: v.optional(messageBody("content", LIMITS.canned)),
});
export const cannedRef = v.object({ id: positive("id") });
export const attachmentListInput = v.strictObject({ conversationId: convNumber("conversationId") });
export const attachmentGetInput = v.strictObject({ id: positive("id") });
