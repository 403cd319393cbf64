/**
 * Valibot inputs of the crm tools. Records are named by id; a contact also
 * by one of its email addresses, a CRM company by its domain, a stage by id
 * or name. Rules that need the database (owners are members, custom field
 * definitions, stages of the pipeline) live in the verbs.
 *
 * @public Serves brain (its CRM lookups take the CRM's list inputs).
 */
import * as v from "valibot";
import { described, USER_REF_WORDS } from "../../core/fields";
import { jsonObject } from "../../core/json-value";
import { pageInput } from "../../core/pagination";
import { ACTIVITY_KINDS, COMPANY_SIZES, FIELD_TYPES, LIFECYCLE_STAGES, OBJECTS, STAGE_KINDS } from "./tables";

const positive = (what: string) =>
  v.pipe(
    v.number(`${what} must be a number.`),
    v.integer(`${what} must be an integer.`),
    v.check((n) => n >= 1 && n <= Number.MAX_SAFE_INTEGER, `${what} must be a positive integer.`),
  );

/** Whole numbers in a range, checked but not published (bounds cost listing bytes; the message says them). */
const intIn = (what: string, lo: number, hi: number) =>
  v.pipe(
    v.number(`${what} must be a number.`),
    v.integer(`${what} must be whole.`),
    v.check((n) => n >= lo && n <= hi, `${what} is ${lo} to ${hi}.`),
  );

export const line = (what: string, max: number) =>
  v.pipe(
    v.string(`${what} must be a string.`),
    v.trim(),
    v.minLength(1, `${what} must not be empty.`),
    v.maxLength(max, `${what} must be at most ${max} characters.`),
  );

const EMAIL_RE = /^[^\s@"'<>(),;:\\]+@[^\s@"'<>(),;:\\]+\.[^\s@"'<>(),;:\\]+$/;
export const isEmail = (s: string) => s.length <= 254 && EMAIL_RE.test(s);
export const emailAddr = (what: string) =>
  v.pipe(
    v.string(`${what} must be a string.`),
    v.trim(),
    v.toLowerCase(),
    v.check(isEmail, `${what} must be an email address.`),
  );

/** A contact: its id or one of its email addresses. */
const contactRef = (what: string) =>
  described(
    v.union([positive(what), emailAddr(what)], `${what} is a contact id or one of its email addresses.`),
    "contact id or email",
  );

/** A CRM company: its id or its domain (acme.com). */
const domainRef = (what: string) =>
  v.pipe(
    v.string(),
    v.trim(),
    v.toLowerCase(),
    v.check(
      (s) => s.length <= 253 && /^[a-z0-9.-]+\.[a-z]{2,}$/.test(s),
      `${what} is a company id or its domain (acme.com).`,
    ),
  );
const COMPANY_REF_WORDS = "company id or domain (acme.com), not name";
const crmCompanyRef = (what: string) =>
  described(
    v.union([positive(what), domainRef(what)], `${what} is a company id or its domain (acme.com).`),
    COMPANY_REF_WORDS,
  );
/** The same or null (unlink), as one flat union: a nested one costs listing bytes. */
const crmCompanyRefOrNull = (what: string) =>
  described(
    v.union([positive(what), domainRef(what), v.null()], `${what} is a company id, its domain, or null.`),
    COMPANY_REF_WORDS,
  );

/** A member of the tenant: user id, email or "me". */
const userStr = (msg: string) =>
  v.pipe(
    v.string(msg),
    v.trim(),
    v.maxLength(254, msg),
    v.check((s) => s === "me" || isEmail(s), msg),
  );
const userRef = (what: string) =>
  described(
    v.union(
      [positive(what), userStr(`${what} is a user id, an email or "me".`)],
      `${what} is a user id, an email or "me".`,
    ),
    USER_REF_WORDS,
  );
const userRefOrNull = (what: string) =>
  described(
    v.union(
      [positive(what), userStr(`${what} is a user id, an email, "me" or null.`), v.null()],
      `${what} is a user id, an email, "me" or null.`,
    ),
    USER_REF_WORDS,
  );

const tag = v.pipe(
  v.string("A tag must be a string."),
  v.trim(),
  v.toLowerCase(),
  v.check((t) => /^[a-z0-9][a-z0-9_:-]{0,39}$/.test(t), "Tags are 1-40 letters, digits, - _ or :, e.g. vip."),
);
const tags = v.pipe(v.array(tag, "tags must be a list of strings."), v.maxLength(30, "At most 30 tags."));

const customOk = (x: unknown) =>
  x === null ||
  typeof x === "boolean" ||
  (typeof x === "number" && Number.isFinite(x)) ||
  (typeof x === "string" && x.length <= 2000) ||
  (Array.isArray(x) && x.length <= 50 && x.every((y) => typeof y === "string" && y.length <= 200));
/** Custom field values by key; null removes a value. Published as a plain object; checked here and against the definitions by the verb. */
const custom = v.pipe(
  jsonObject("custom"),
  v.check(
    (o) => Object.keys(o).length <= 100 && Object.keys(o).every((k) => k.length <= 40),
    "At most 100 custom values, keys up to 40 characters.",
  ),
  v.check(
    (o) => Object.values(o).every(customOk),
    "custom values are text, numbers, true/false, lists of text, or null.",
  ),
);

const date = v.pipe(v.string(), v.isoDate("must be a date, YYYY-MM-DD."));
const instant = v.pipe(v.string(), v.isoTimestamp("must be an ISO time like 2030-01-31T09:00:00Z."));
const q = v.pipe(v.string("q must be a string."), v.trim(), v.minLength(1), v.maxLength(200));
const lifecycle = v.picklist(LIFECYCLE_STAGES, `lifecycleStage is one of ${LIFECYCLE_STAGES.join(", ")}.`);
export const PHONE_RE = /^\+?[0-9 ().\-/]{3,40}(\s*(x|ext\.?)\s*\d{1,6})?$/i;
/** Phones as text; a label goes before a colon: "mobile: +44 7700 900123". */
export function parsePhone(raw: string): { number: string; label: string | null } | null {
  const m = /^(?:([^:+\d][^:]{0,39}):\s*)?(.+)$/.exec(raw.trim());
  if (!m) return null;
  const number = m[2]!.trim();
  if (!PHONE_RE.test(number) || number.replace(/\D/g, "").length < 3) return null;
  return { number, label: m[1]?.trim() || null };
}
const phoneMsg = 'A phone is digits with + ( ) - . / or spaces, label optional: "mobile: +44 7700 900123".';
const phones = v.pipe(
  v.array(
    v.pipe(
      v.string(phoneMsg),
      v.maxLength(80, phoneMsg),
      v.check((x) => parsePhone(x) !== null, phoneMsg),
      v.transform((x) => parsePhone(x)!),
    ),
  ),
  v.maxLength(10, "At most 10 phones."),
);
const emails = v.pipe(v.array(emailAddr("emails")), v.maxLength(10, "At most 10 emails."));
const cents = (what: string) =>
  v.pipe(
    v.number(`${what} must be a number.`),
    v.integer(`${what} is whole cents.`),
    v.check((n) => n >= 0 && n <= 1e15, `${what} is 0 to 10^15 cents.`),
  );
const currency = v.pipe(
  v.string(),
  v.trim(),
  v.toUpperCase(),
  v.regex(/^[A-Z]{3}$/, "currency is an ISO 4217 code like EUR."),
);
const stageRef = described(
  v.union([positive("stage"), line("stage", 80)], "stage is a stage id or name."),
  "stage id or name",
);

export const idInput = v.strictObject({ id: positive("id") });
export const contactRefInput = v.strictObject({ id: contactRef("id") });
export const crmCompanyRefInput = v.strictObject({ id: crmCompanyRef("id") });

export const SORTS = ["updated", "created", "name", "score"] as const;

export const contactFilters = {
  q: v.optional(q),
  companyId: v.optional(crmCompanyRef("companyId")),
  ownerId: v.optional(userRef("ownerId")),
  lifecycleStage: v.optional(lifecycle),
  tag: v.optional(tag),
  minScore: v.optional(v.pipe(v.number(), v.integer())),
  custom: v.optional(custom),
  sort: v.optional(v.picklist(SORTS, "sort is updated, created, name or score.")),
};
export const contactListInput = v.strictObject({
  viewId: v.optional(positive("viewId")),
  ...contactFilters,
  ...pageInput,
});

export const contactCreateInput = v.strictObject({
  firstName: v.optional(line("firstName", 100)),
  lastName: v.optional(line("lastName", 100)),
  emails: v.optional(emails),
  phones: v.optional(phones),
  jobTitle: v.optional(line("jobTitle", 200)),
  companyId: v.optional(crmCompanyRef("companyId")),
  ownerId: v.optional(userRef("ownerId")),
  lifecycleStage: v.optional(lifecycle),
  tags: v.optional(tags),
  custom: v.optional(custom),
});

export const contactUpdateInput = v.strictObject({
  id: contactRef("id"),
  firstName: v.optional(v.nullable(line("firstName", 100))),
  lastName: v.optional(v.nullable(line("lastName", 100))),
  addEmails: v.optional(emails),
  removeEmails: v.optional(emails),
  primaryEmail: v.optional(emailAddr("primaryEmail")),
  phones: v.optional(phones),
  jobTitle: v.optional(v.nullable(line("jobTitle", 200))),
  companyId: v.optional(crmCompanyRefOrNull("companyId")),
  ownerId: v.optional(userRefOrNull("ownerId")),
  lifecycleStage: v.optional(lifecycle),
  addTags: v.optional(tags),
  removeTags: v.optional(tags),
  custom: v.optional(custom),
});

const keepChoice = v.record(v.string(), v.picklist(["survivor", "merged"], "keep values are survivor or merged."));

export const duplicatesInput = v.strictObject({
  object: v.optional(v.picklist(["contact", "company"], "object is contact or company.")),
  id: v.optional(positive("id")),
  minScore: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(1))),
  ...pageInput,
});
export const contactMergeInput = v.strictObject({
  id: contactRef("id"),
  mergeId: contactRef("mergeId"),
  keep: v.optional(keepChoice),
});
export const companyMergeInput = v.strictObject({
  id: crmCompanyRef("id"),
  mergeId: crmCompanyRef("mergeId"),
  keep: v.optional(keepChoice),
});

export const companyFilters = {
  q: v.optional(q),
  ownerId: v.optional(userRef("ownerId")),
  industry: v.optional(line("industry", 100)),
  size: v.optional(v.picklist(COMPANY_SIZES)),
  tag: v.optional(tag),
  custom: v.optional(custom),
  sort: v.optional(v.picklist(["updated", "created", "name"], "sort is updated, created or name.")),
};
export const companyListInput = v.strictObject({
  viewId: v.optional(positive("viewId")),
  ...companyFilters,
  ...pageInput,
});

const domain = v.pipe(v.string("domain must be a string."), v.trim(), v.maxLength(300));
export const companyCreateInput = v.strictObject({
  name: line("name", 200),
  domain: v.optional(domain),
  size: v.optional(v.picklist(COMPANY_SIZES, `size is one of ${COMPANY_SIZES.join(", ")}.`)),
  industry: v.optional(line("industry", 100)),
  ownerId: v.optional(userRef("ownerId")),
  tags: v.optional(tags),
  custom: v.optional(custom),
});
export const companyUpdateInput = v.strictObject({
  id: crmCompanyRef("id"),
  name: v.optional(line("name", 200)),
  domain: v.optional(v.nullable(domain)),
  size: v.optional(v.nullable(v.picklist(COMPANY_SIZES, `size is one of ${COMPANY_SIZES.join(", ")}.`))),
  industry: v.optional(v.nullable(line("industry", 100))),
  ownerId: v.optional(userRefOrNull("ownerId")),
  addTags: v.optional(tags),
  removeTags: v.optional(tags),
  custom: v.optional(custom),
});

export const dealFilters = {
  q: v.optional(q),
  pipelineId: v.optional(positive("pipelineId")),
  stage: v.optional(stageRef),
  status: v.optional(v.picklist(STAGE_KINDS, "status is open, won or lost.")),
  ownerId: v.optional(userRef("ownerId")),
  companyId: v.optional(crmCompanyRef("companyId")),
  contactId: v.optional(contactRef("contactId")),
  closeFrom: v.optional(date),
  closeTo: v.optional(date),
  minAmountCents: v.optional(cents("minAmountCents")),
  custom: v.optional(custom),
  sort: v.optional(v.picklist(["updated", "created", "amount", "close"], "sort is updated, created, amount or close.")),
};
export const dealListInput = v.strictObject({ viewId: v.optional(positive("viewId")), ...dealFilters, ...pageInput });

export const dealCreateInput = v.strictObject({
  name: line("name", 200),
  amountCents: cents("amountCents"),
  currency: v.optional(currency, "USD"),
  pipelineId: v.optional(positive("pipelineId")),
  stage: v.optional(stageRef),
  expectedClose: v.optional(date),
  ownerId: v.optional(userRef("ownerId")),
  companyId: v.optional(crmCompanyRef("companyId")),
  contactIds: v.optional(v.pipe(v.array(contactRef("contactIds")), v.maxLength(50))),
  custom: v.optional(custom),
});
export const dealUpdateInput = v.strictObject({
  id: positive("id"),
  name: v.optional(line("name", 200)),
  amountCents: v.optional(cents("amountCents")),
  currency: v.optional(currency),
  expectedClose: v.optional(v.nullable(date)),
  ownerId: v.optional(userRefOrNull("ownerId")),
  companyId: v.optional(crmCompanyRefOrNull("companyId")),
  addContactIds: v.optional(v.pipe(v.array(contactRef("addContactIds")), v.maxLength(50))),
  removeContactIds: v.optional(v.pipe(v.array(contactRef("removeContactIds")), v.maxLength(50))),
  lostReason: v.optional(v.nullable(line("lostReason", 500))),
  custom: v.optional(custom),
});
export const dealMoveInput = v.strictObject({
  id: positive("id"),
  stage: stageRef,
  pipelineId: v.optional(positive("pipelineId")),
  fromStage: v.optional(stageRef),
  lostReason: v.optional(line("lostReason", 500)),
});

const stageSpec = v.strictObject({
  id: v.optional(positive("stages[].id")),
  name: line("stages[].name", 80),
  probability: v.optional(intIn("probability", 0, 100)),
  kind: v.optional(v.picklist(STAGE_KINDS, "kind is open, won or lost.")),
});
const stageList = v.pipe(
  v.array(stageSpec),
  v.minLength(2, "A pipeline needs at least 2 stages."),
  v.maxLength(30, "At most 30 stages."),
);
export const pipelineCreateInput = v.strictObject({ name: line("name", 100), stages: v.optional(stageList) });
export const pipelineUpdateInput = v.strictObject({
  id: positive("id"),
  name: v.optional(line("name", 100)),
  stages: v.optional(stageList),
});
export const forecastInput = v.strictObject({
  id: positive("id"),
  from: v.optional(
    v.pipe(v.string(), v.regex(/^\d{4}-(0[1-9]|1[0-2])$/, "from is a month, YYYY-MM."), v.examples(["2030-01"])),
  ),
  months: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(24)), 6),
});
export const emptyInput = v.strictObject({ ...pageInput });

export const activityCreateInput = v.strictObject({
  kind: v.picklist(ACTIVITY_KINDS, `kind is ${ACTIVITY_KINDS.join(", ")}.`),
  subject: v.optional(line("subject", 300)),
  body: v.optional(v.pipe(v.string(), v.maxLength(20000))),
  contactId: v.optional(contactRef("contactId")),
  companyId: v.optional(crmCompanyRef("companyId")),
  dealId: v.optional(positive("dealId")),
  occurredAt: v.optional(instant),
  dueAt: v.optional(instant),
  durationMinutes: v.optional(intIn("durationMinutes", 0, 1440)),
  ownerId: v.optional(userRef("ownerId")),
  completed: v.optional(v.boolean()),
});
export const activityUpdateInput = v.strictObject({
  id: positive("id"),
  subject: v.optional(v.nullable(line("subject", 300))),
  body: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(20000)))),
  dueAt: v.optional(v.nullable(instant)),
  durationMinutes: v.optional(v.nullable(intIn("durationMinutes", 0, 1440))),
  ownerId: v.optional(userRefOrNull("ownerId")),
  completed: v.optional(v.boolean()),
});
export const activityListInput = v.strictObject({
  contactId: v.optional(contactRef("contactId")),
  companyId: v.optional(crmCompanyRef("companyId")),
  dealId: v.optional(positive("dealId")),
  kind: v.optional(v.picklist(ACTIVITY_KINDS)),
  openTasks: v.optional(v.boolean()),
  dueBefore: v.optional(instant),
  ownerId: v.optional(userRef("ownerId")),
  ...pageInput,
});
export const timelineInput = v.strictObject({
  contactId: v.optional(contactRef("contactId")),
  companyId: v.optional(crmCompanyRef("companyId")),
  dealId: v.optional(positive("dealId")),
  ...pageInput,
});

export const searchInput = v.strictObject({
  q,
  types: v.optional(v.pipe(v.array(v.picklist(OBJECTS)), v.minLength(1))),
  limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(50)), 10),
});

const fieldKey = v.pipe(
  v.string(),
  v.trim(),
  v.regex(/^[a-z][a-zA-Z0-9_]{0,39}$/, "key is 1-40 letters, digits or _, starting with a lower-case letter."),
);
const options = v.pipe(v.array(line("options[]", 100)), v.maxLength(100));
export const fieldCreateInput = v.strictObject({
  object: v.picklist(OBJECTS, "object is contact, company or deal."),
  key: fieldKey,
  label: line("label", 100),
  type: v.picklist(FIELD_TYPES, `type is ${FIELD_TYPES.join(", ")}.`),
  options: v.optional(options),
  required: v.optional(v.boolean(), false),
});
export const fieldUpdateInput = v.strictObject({
  id: positive("id"),
  label: v.optional(line("label", 100)),
  options: v.optional(options),
  required: v.optional(v.boolean()),
});
export const fieldListInput = v.strictObject({ object: v.optional(v.picklist(OBJECTS)), ...pageInput });

export const viewCreateInput = v.strictObject({
  object: v.picklist(OBJECTS, "object is contact, company or deal."),
  name: line("name", 100),
  filters: v.optional(jsonObject("filters")),
  columns: v.optional(v.pipe(v.array(line("columns[]", 60)), v.maxLength(40))),
});
export const viewUpdateInput = v.strictObject({
  id: positive("id"),
  name: v.optional(line("name", 100)),
  filters: v.optional(jsonObject("filters")),
  columns: v.optional(v.pipe(v.array(line("columns[]", 60)), v.maxLength(40))),
});
export const viewListInput = fieldListInput;

export const ruleCreateInput = v.strictObject({
  name: line("name", 100),
  points: intIn("points", -1000, 1000),
  field: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(60))),
  op: v.optional(v.picklist(["eq", "neq", "contains", "exists", "gt", "lt"])),
  value: v.optional(
    described(
      v.union([v.pipe(v.string(), v.maxLength(200)), v.number(), v.boolean()]),
      "what op compares field with: text, a number or true/false",
    ),
  ),
  activityKind: v.optional(v.picklist(ACTIVITY_KINDS)),
  decayDays: v.optional(v.nullable(intIn("decayDays", 1, 3650))),
});
export const ruleUpdateInput = v.strictObject({
  id: positive("id"),
  name: v.optional(line("name", 100)),
  points: v.optional(intIn("points", -1000, 1000)),
  decayDays: v.optional(v.nullable(intIn("decayDays", 1, 3650))),
});

export const mergeListInput = v.strictObject({ object: v.optional(v.picklist(["contact", "company"])), ...pageInput });

/** The contact fields a CSV column may fill (mapping's values); "ignore" leaves the column out. */
export const IMPORT_TARGETS = [
  "firstName",
  "lastName",
  "name",
  "emails",
  "phones",
  "jobTitle",
  "company",
  "companyDomain",
  "tags",
  "lifecycleStage",
  "ownerId",
  "ignore",
] as const;

export const MAX_IMPORT_BYTES = 5 * 1024 * 1024;
export const importInput = v.strictObject({
  csv: v.optional(
    v.pipe(v.string(), v.maxLength(MAX_IMPORT_BYTES, "csv is at most 5 MB; upload larger files and pass mediaId.")),
  ),
  mediaId: v.optional(positive("mediaId")),
  dryRun: v.optional(v.boolean(), true),
  mapping: v.optional(
    v.pipe(
      v.record(v.string(), v.string()),
      v.check((o) => Object.keys(o).length <= 200, "At most 200 mapped columns."),
      v.description(`CSV header → ${IMPORT_TARGETS.join(", ")} or custom.<key>`),
    ),
  ),
  onDuplicate: v.optional(v.picklist(["update", "skip"]), "update"),
});
export const emptyRecompute = v.strictObject({});
