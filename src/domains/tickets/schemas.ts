/**
 * Valibot inputs of the tickets tools. A ticket is named by its number in
 * the company: 1042, "1042" or "#1042" all mean ticket #1042. Rules that
 * need the database (assignee is a member, transitions, merges) live in
 * the verbs.
 */
import * as v from "valibot";
import { described, USER_REF_WORDS } from "../../core/fields";
import { pageInput } from "../../core/pagination";
import { MAILBOX_TLS, TICKET_PRIORITIES, TICKET_STATUSES } from "./tables";

export const MAX_BODY = 64 * 1024;
export const MAX_TAGS = 20;

// Bounds as checks: ids are positive integers everywhere (docs/mcp.md), so the listing need not say it per argument.
const positive = (what: string) =>
  v.pipe(
    v.number(`${what} must be a number.`),
    v.integer(`${what} must be an integer.`),
    v.check((n) => n >= 1 && n <= Number.MAX_SAFE_INTEGER, `${what} must be a positive integer.`),
  );

/** A ticket number: 1042 or "#1042"; read as the number. */
export const ticketNumber = (what: string) => {
  const msg = `${what} is a ticket number: 1042 or "#1042".`;
  return v.pipe(
    // The form is checked, not published as a pattern: the description says it in words.
    v.union(
      [
        positive(what),
        v.pipe(
          v.string(msg),
          v.check((x) => /^#?[1-9]\d{0,14}$/.test(x), msg),
        ),
      ],
      msg,
    ),
    v.description('ticket number: 1042 or "#1042"'),
    v.transform((x): number => (typeof x === "number" ? x : Number(x.replace("#", "")))),
  );
};

const line = (what: string, max: number) =>
  v.pipe(
    v.string(`${what} must be a string.`),
    v.trim(),
    v.minLength(1, `${what} must not be empty.`),
    v.maxLength(max, `${what} must be at most ${max} characters.`),
  );

const body = (what: string) =>
  v.pipe(
    v.string(`${what} must be a string.`),
    v.maxLength(MAX_BODY, `${what} must be at most ${MAX_BODY} characters.`),
    v.regex(/\S/, `${what} must not be blank.`),
  );

const email = v.pipe(
  v.string("requesterEmail must be a string."),
  v.trim(),
  v.maxLength(254, "requesterEmail must be at most 254 characters."),
  v.email("requesterEmail must be an email address."),
);

// Checked, not published: the rule costs listing bytes on five arguments and the message says it.
const tag = v.pipe(
  v.string("A tag must be a string."),
  v.trim(),
  v.toLowerCase(),
  v.check((t) => /^[a-z0-9][a-z0-9_:-]{0,39}$/.test(t), "Tags are 1-40 letters, digits, - _ or :, e.g. billing."),
);
const tags = v.pipe(
  v.array(tag, "tags must be a list of strings."),
  v.maxLength(MAX_TAGS, `At most ${MAX_TAGS} tags.`),
);

export const status = v.picklist(TICKET_STATUSES, `status must be one of ${TICKET_STATUSES.join(", ")}.`);
export const priority = v.picklist(TICKET_PRIORITIES, `priority must be one of ${TICKET_PRIORITIES.join(", ")}.`);

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** A user: their id, their email, or "me" (the caller); `extra` words too ("none"). Published as integer | string. */
const userRef = (what: string, extra: string[] = []) => {
  const msg = `${what} is a user id, an email or ${["me", ...extra].map((x) => `"${x}"`).join(" or ")}.`;
  return described(
    v.union(
      [
        positive(what),
        v.pipe(
          v.string(msg),
          v.trim(),
          v.maxLength(254, msg),
          v.check((s) => s === "me" || extra.includes(s) || EMAIL_RE.test(s), msg),
        ),
      ],
      msg,
    ),
    [USER_REF_WORDS, ...extra.map((x) => `"${x}"`)].join(" or "),
  );
};

export const ticketRef = v.strictObject({ id: ticketNumber("id") });

/** "unsolved" is new, open and pending together: the view agents work from. */
export const LIST_STATUSES = [...TICKET_STATUSES, "unsolved"] as const;

export const ticketListInput = v.strictObject({
  status: v.optional(v.picklist(LIST_STATUSES, `status must be one of ${LIST_STATUSES.join(", ")}.`)),
  assigneeId: v.optional(userRef("assigneeId", ["none"])),
  priority: v.optional(priority),
  tag: v.optional(tag),
  requester: v.optional(v.pipe(v.string("requester must be a string."), v.trim(), v.minLength(1), v.maxLength(254))),
  breached: v.optional(v.boolean("breached must be true or false.")),
  q: v.optional(v.pipe(v.string("q must be a string."), v.trim(), v.minLength(1), v.maxLength(200))),
  sort: v.optional(
    v.picklist(["updated", "created", "due", "priority"], "sort must be updated, created, due or priority."),
    "updated",
  ),
  ...pageInput,
});

export const ticketCreateInput = v.strictObject({
  subject: line("subject", 300),
  requesterEmail: email,
  requesterName: v.optional(line("requesterName", 200)),
  body: body("body"),
  priority: v.optional(priority, "normal"),
  assigneeId: v.optional(userRef("assigneeId")),
  tags: v.optional(tags),
});

// Tags are edited by adding and removing, never by replacing the list: two agents tagging at once both keep theirs.
export const ticketUpdateInput = v.strictObject({
  id: ticketNumber("id"),
  subject: v.optional(line("subject", 300)),
  priority: v.optional(priority),
  addTags: v.optional(tags),
  removeTags: v.optional(tags),
});

export const ticketAssignInput = v.strictObject({
  id: ticketNumber("id"),
  assigneeId: v.nullable(userRef("assigneeId")),
});

export const ticketStatusInput = v.strictObject({ id: ticketNumber("id"), status });

/** The largest per-file limit a company may set (attachments.ts): the server's request bound has to carry it as base64. */
export const MAX_FILE_LIMIT = 25 * 1024 * 1024;
/** Base64 of the largest file a company may allow, with room for a data: prefix. */
const MAX_BASE64 = Math.ceil((MAX_FILE_LIMIT * 4) / 3) + 200;

/** A file on a reply: an upload (filename and its bytes as base64) or an earlier attachment sent again. */
export const attachmentArg = v.strictObject({
  attachmentId: v.optional(positive("attachmentId")),
  filename: v.optional(
    v.pipe(v.string("filename must be a string."), v.maxLength(255, "filename must be at most 255 characters.")),
  ),
  dataBase64: v.optional(
    v.pipe(
      v.string("dataBase64 must be a string."),
      v.maxLength(MAX_BASE64, "dataBase64 is larger than any file a ticket may carry (25 MiB)."),
    ),
  ),
  mimeType: v.optional(
    v.pipe(v.string("mimeType must be a string."), v.maxLength(100, "mimeType must be at most 100 characters.")),
  ),
});

export const ticketReplyInput = v.strictObject({
  id: ticketNumber("id"),
  body: body("body"),
  status: v.optional(v.picklist(["open", "pending", "solved"], "status after a reply is open, pending or solved.")),
  attachments: v.optional(
    v.pipe(v.array(attachmentArg, "attachments must be a list."), v.maxLength(10, "At most 10 attachments.")),
  ),
});

export const ticketNoteInput = v.strictObject({ id: ticketNumber("id"), body: body("body") });

export const ticketMergeInput = v.strictObject({ id: ticketNumber("id"), targetId: ticketNumber("targetId") });

export const messageListInput = v.strictObject({
  ticketId: ticketNumber("ticketId"),
  kind: v.optional(v.picklist(["reply", "note"], "kind must be reply or note.")),
  ...pageInput,
});

const minutes = (what: string) =>
  v.nullable(
    v.pipe(
      v.number(`${what} must be a number.`),
      v.integer(`${what} must be whole minutes.`),
      v.check((n) => n >= 1 && n <= 60 * 24 * 365, `${what} is 1 minute to a year, or null for no target.`),
    ),
  );

const target = v.strictObject({
  firstResponseMinutes: v.optional(minutes("firstResponseMinutes")),
  resolutionMinutes: v.optional(minutes("resolutionMinutes")),
  businessHours: v.optional(v.boolean("businessHours must be true or false.")),
});

const DAY_NAMES = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] as const;
// Interval strings are checked by the verb (parseWeekHours), whose messages name the day and the form.
const day = v.pipe(v.array(v.pipe(v.string(), v.maxLength(20))), v.maxLength(6, "At most 6 intervals a day."));

export const slaPolicyUpdateInput = v.strictObject({
  timeZone: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(64))),
  // Day names are checked by the verb too (parseWeekHours); the description shows the form.
  businessHours: v.optional(
    v.record(
      v.pipe(
        v.string(),
        v.check((d) => (DAY_NAMES as readonly string[]).includes(d), `Days are ${DAY_NAMES.join(", ")}.`),
      ),
      day,
    ),
  ),
  holidays: v.optional(
    v.pipe(
      v.array(v.pipe(v.string(), v.isoDate("Holidays are dates, YYYY-MM-DD."))),
      v.maxLength(400, "At most 400 holidays."),
    ),
  ),
  targets: v.optional(v.record(priority, target)),
  autoCloseDays: v.optional(
    v.nullable(v.pipe(v.number(), v.integer("autoCloseDays must be whole days."), v.minValue(1), v.maxValue(365))),
  ),
});

export const tagListInput = v.strictObject({ ...pageInput });
export const summaryInput = v.strictObject({});

// Macros: every part optional (a macro has at least one, checked by the verb); null clears a part on update.
const macroId = (what: string) => described(positive(what), "macro id (ticket_macros_list)");
const macroStatus = v.picklist(["open", "pending", "solved"], "status of a macro is open, pending or solved.");
const macroFields = {
  body: v.optional(v.nullable(described(body("body"), "reply; {{ticket.requester.name}} etc. are filled in"))),
  status: v.optional(v.nullable(described(macroStatus, "status after the reply"))),
  addTags: v.optional(tags),
  removeTags: v.optional(tags),
  assigneeId: v.optional(v.nullable(userRef("assigneeId"))),
};
export const macroListInput = v.strictObject({
  q: v.optional(v.pipe(v.string("q must be a string."), v.trim(), v.minLength(1), v.maxLength(200))),
  ...pageInput,
});
export const macroCreateInput = v.strictObject({ name: line("name", 120), ...macroFields });
export const macroUpdateInput = v.strictObject({
  id: macroId("id"),
  name: v.optional(line("name", 120)),
  ...macroFields,
});
export const macroRef = v.strictObject({ id: macroId("id") });
export const applyMacroInput = v.strictObject({ ticketId: ticketNumber("ticketId"), macroId: macroId("macroId") });
// Support mailboxes (mailboxes.ts). The password is write-only: no output carries it.
const hostName = v.pipe(
  v.string("host must be a string."),
  v.trim(),
  v.regex(/^[A-Za-z0-9.-]{1,253}$|^\[[0-9A-Fa-f:.]+\]$/, "host is a host name or IP address, e.g. imap.example.com."),
);
const port = v.pipe(
  v.number("port must be a number."),
  v.integer("port must be an integer."),
  v.minValue(1),
  v.maxValue(65535),
);
const tls = v.picklist(MAILBOX_TLS, `tls must be one of ${MAILBOX_TLS.join(", ")}.`);
const secret = v.pipe(
  v.string("password must be a string."),
  v.minLength(1, "password must not be empty."),
  v.maxLength(1000),
);
const folder = v.pipe(v.string("folder must be a string."), v.trim(), v.minLength(1), v.maxLength(200));

export const mailboxConnectInput = v.strictObject({
  host: hostName,
  port: v.optional(port),
  tls: v.optional(tls, "tls"),
  username: line("username", 254),
  password: secret,
  folder: v.optional(folder, "INBOX"),
});

export const mailboxRef = v.strictObject({ id: positive("id") });

export const mailboxUpdateInput = v.strictObject({
  id: positive("id"),
  host: v.optional(hostName),
  port: v.optional(port),
  tls: v.optional(tls),
  username: v.optional(line("username", 254)),
  password: v.optional(secret),
  folder: v.optional(folder),
  paused: v.optional(v.boolean("paused must be true or false.")),
});

export const attachmentListInput = v.strictObject({
  ticketId: ticketNumber("ticketId"),
});
export const attachmentGetInput = v.strictObject({
  id: positive("id"),
});
export const attachmentLimitsInput = v.strictObject({
  maxFileBytes: v.optional(
    v.pipe(
      v.number("maxFileBytes must be a number."),
      v.integer("maxFileBytes must be whole."),
      v.minValue(1024, "maxFileBytes is at least 1024."),
      v.maxValue(MAX_FILE_LIMIT, `maxFileBytes is at most ${MAX_FILE_LIMIT}.`),
    ),
  ),
  maxTotalBytes: v.optional(
    v.pipe(
      v.number("maxTotalBytes must be a number."),
      v.integer("maxTotalBytes must be whole."),
      v.minValue(1024, "maxTotalBytes is at least 1024."),
      v.maxValue(Number.MAX_SAFE_INTEGER, "maxTotalBytes is too large."),
    ),
  ),
});

/** A date (2025-01-31, midnight UTC) or an ISO instant (2025-01-31T12:00:00Z). */
const instant = (what: string) =>
  v.pipe(
    v.string(`${what} must be a string.`),
    v.check(
      (x) => /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?Z)?$/.test(x) && !Number.isNaN(Date.parse(x)),
      `${what} is a date (2025-01-31) or an ISO instant (2025-01-31T12:00:00Z).`,
    ),
  );
export const satisfactionReportInput = v.strictObject({
  from: v.optional(instant("from")),
  to: v.optional(instant("to")),
});
