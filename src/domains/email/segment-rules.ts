/**
 * Segment rules: which subscribers a segment holds.
 *
 *   { match: "all" | "any", conditions: [
 *       { field: "email", op: "ends_with", value: "@acme.test" },
 *       { field: "attributes.plan", op: "eq", value: "pro" },
 *       { field: "list", op: "in", value: 3 },             // subscribed to list 3
 *       { field: "createdAt", op: "after", value: "2026-01-01T00:00:00Z" } ] }
 *
 * A field is a namespace and a name: `email`, `name`, `createdAt`,
 * `attributes.<key>`, `list` (membership with status subscribed, or any
 * status given as `status`) and `crm.<field>`: the CRM contact holding the
 * subscriber's address in the same company (crm/facts.ts lists the fields
 * and loads them for a batch of addresses in one query). A subscriber with
 * no CRM contact matches no `crm.` condition but `crm.contact not_exists`.
 *
 * Rules are evaluated in the process over keyset-paged batches of
 * subscribers (segments are small documents; the attribute JSON has no
 * index on either engine), which keeps one code path for both engines.
 */
import { and, gt, lt, not, or, sql, type SQL } from "drizzle-orm";
import * as v from "valibot";
import { invalid } from "../../core/errors";
import { FACT_FIELDS, factKind, factSql, factValues, LIFECYCLE_STAGES, type ContactFacts, type FactKind, type FieldTypes } from "../crm/facts";
import { emailMemberships, emailSubscribers, type Attributes } from "./tables";

export const OPS = ["eq", "neq", "contains", "not_contains", "starts_with", "ends_with", "gt", "gte", "lt", "lte", "exists", "not_exists", "before", "after", "in", "not_in"] as const;
export type Op = (typeof OPS)[number];

export const conditionSchema = v.strictObject({
  field: v.pipe(v.string(), v.minLength(1), v.maxLength(100)),
  op: v.picklist(OPS),
  value: v.optional(v.union([v.string(), v.number(), v.boolean(), v.null()])),
  status: v.optional(v.picklist(["unconfirmed", "subscribed", "unsubscribed", "bounced", "complained"])),
});
export const rulesSchema = v.strictObject({
  match: v.optional(v.picklist(["all", "any"]), "all"),
  conditions: v.pipe(v.array(conditionSchema), v.minLength(1), v.maxLength(50)),
});
export type Condition = v.InferOutput<typeof conditionSchema>;

/** Rules as tools publish them (loosely, to keep the listing short; the shape is in the description), checked here. */
export function parseRules(value: unknown, path = "rules"): Rules {
  const r = v.safeParse(rulesSchema, value);
  if (r.success) return r.output;
  const issue = r.issues[0];
  const sub = (issue.path ?? []).map((p) => (typeof p.key === "number" ? `[${p.key}]` : `.${String(p.key)}`)).join("");
  throw invalid(`${path}${sub} is invalid: ${issue.message.replace(/^Invalid \w+: /, "")}.`, { path: `${path}${sub}` });
}
export type Rules = v.InferOutput<typeof rulesSchema>;

export interface Candidate {
  id: number;
  email: string;
  name: string | null;
  attributes: Attributes;
  createdAt: Date;
  /** listId → status */
  lists: Map<number, string>;
  /** The CRM contact with this address (null: none); loaded only when the rules name crm fields. */
  crm?: ContactFacts | null;
}

/** Whether rules name CRM fields (then candidates need their CRM facts). */
export const usesCrm = (rules: Rules[]) => rules.some((r) => r.conditions.some((c) => c.field.startsWith("crm.")));

const CRM_OPS: Record<FactKind, Op[]> = {
  exists: ["exists", "not_exists"],
  text: ["eq", "neq", "contains", "not_contains", "starts_with", "ends_with", "exists", "not_exists"],
  number: ["eq", "neq", "gt", "gte", "lt", "lte", "exists", "not_exists"],
  date: ["eq", "neq", "before", "after", "exists", "not_exists"],
  datetime: ["before", "after"],
  boolean: ["eq", "neq", "exists", "not_exists"],
  list: ["eq", "neq", "contains", "not_contains", "exists", "not_exists"],
  user: ["eq", "neq", "exists", "not_exists"],
};

function checkCrm(c: Condition, where: string, types: FieldTypes) {
  const field = c.field.slice(4);
  const kind = factKind(field, types);
  if (!kind) throw invalid(`${where}: unknown CRM field "${c.field.slice(0, 60)}"; use crm.${FACT_FIELDS.replaceAll(", ", ", crm.")} (custom keys from crm_fields_list).`, { path: where });
  if (!CRM_OPS[kind].includes(c.op)) throw invalid(`${where}: ${c.field} takes ${CRM_OPS[kind].join(", ")}.`, { path: where });
  if (c.op === "exists" || c.op === "not_exists") return;
  const val = c.value;
  const bad = (what: string) => invalid(`${where}: ${c.field} ${c.op} needs ${what}.`, { path: where });
  if (kind === "number" && typeof val !== "number") throw bad("a number");
  if (kind === "boolean" && typeof val !== "boolean") throw bad("true or false");
  if (kind === "date" && (typeof val !== "string" || !/^\d{4}-\d{2}-\d{2}$/.test(val))) throw bad("a date, YYYY-MM-DD");
  if (kind === "datetime" && (typeof val !== "string" || Number.isNaN(Date.parse(val)))) throw bad("an ISO date-time");
  if (kind === "user" && (typeof val !== "number" || !Number.isSafeInteger(val)) && (typeof val !== "string" || !val.includes("@"))) throw bad("a user id or email");
  if ((kind === "text" || kind === "list") && typeof val !== "string") throw bad("text");
  if (field === "lifecycleStage" && (c.op === "eq" || c.op === "neq") && !(LIFECYCLE_STAGES as readonly string[]).includes(String(val).toLowerCase()))
    throw bad(`one of ${LIFECYCLE_STAGES.join(", ")}`);
}

const TEXT_OPS = new Set<Op>(["eq", "neq", "contains", "not_contains", "starts_with", "ends_with", "exists", "not_exists", "in", "not_in"]);
const NUM_OPS = new Set<Op>(["eq", "neq", "gt", "gte", "lt", "lte", "exists", "not_exists"]);

/**
 * Checks rules against what can be evaluated; returns them with the list
 * ids to check against the company. `crmTypes` (the company's custom CRM
 * field types) is needed when the rules name crm fields; without it those
 * are checked for shape only (rules already saved).
 */
export function checkRules(rules: Rules, crmTypes?: FieldTypes): { rules: Rules; listIds: number[] } {
  const listIds: number[] = [];
  rules.conditions.forEach((c, i) => {
    const where = `conditions[${i}]`;
    const [ns, key, ...more] = c.field.split(".");
    if (c.field === "list") {
      if (c.op !== "in" && c.op !== "not_in") throw invalid(`${where}: a list condition takes op in or not_in.`, { path: where });
      if (typeof c.value !== "number" || !Number.isSafeInteger(c.value) || c.value < 1) throw invalid(`${where}: value must be a list id.`, { path: where });
      listIds.push(c.value);
      return;
    }
    if (c.status !== undefined) throw invalid(`${where}: status applies to list conditions only.`, { path: where });
    if (c.field === "email" || c.field === "name") {
      if (!TEXT_OPS.has(c.op) || c.op === "in" || c.op === "not_in") throw invalid(`${where}: ${c.field} takes eq, neq, contains, not_contains, starts_with, ends_with, exists or not_exists.`, { path: where });
    } else if (c.field === "createdAt") {
      if (c.op !== "before" && c.op !== "after") throw invalid(`${where}: createdAt takes before or after.`, { path: where });
      if (typeof c.value !== "string" || Number.isNaN(Date.parse(c.value))) throw invalid(`${where}: value must be an ISO date-time.`, { path: where });
    } else if (ns === "attributes" && key && more.length === 0) {
      if ((c.op === "in" || c.op === "not_in" || c.op === "before" || c.op === "after")) throw invalid(`${where}: ${c.op} does not apply to attributes.`, { path: where });
    } else if (ns === "crm" && key) {
      if (crmTypes) checkCrm(c, where, crmTypes);
      return;
    } else {
      throw invalid(`${where}: unknown field "${c.field.slice(0, 60)}"; use email, name, createdAt, attributes.<key>, list or crm.<field>.`, { path: where });
    }
    if (c.op !== "exists" && c.op !== "not_exists" && (c.value === undefined || c.value === null))
      throw invalid(`${where}: ${c.op} needs a value.`, { path: where });
    if (NUM_OPS.has(c.op) && ["gt", "gte", "lt", "lte"].includes(c.op) && typeof c.value !== "number" && Number.isNaN(Number(c.value)))
      throw invalid(`${where}: ${c.op} compares numbers.`, { path: where });
  });
  return { rules, listIds: [...new Set(listIds)] };
}

const fold = (s: string) => s.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase();

/** A crm.<field> condition: typed by the stored values (CRM checks them on write), any of several values (tags, owner id/email). */
function testCrm(c: Condition, s: Candidate): boolean {
  const f = s.crm;
  const field = c.field.slice(4);
  if (!f) return field === "contact" && c.op === "not_exists";
  const vals = factValues(f, field);
  const want = c.value;
  const same = (x: unknown) => (typeof x === "number" || typeof x === "boolean" ? String(x) === String(want) : typeof x === "string" && fold(x) === fold(String(want)));
  const text = (p: (a: string, b: string) => boolean) => vals.some((x) => typeof x === "string" && p(fold(x), fold(String(want))));
  const num = (p: (a: number, b: number) => boolean) => vals.some((x) => typeof x === "number" && typeof want === "number" && p(x, want));
  // Dates (YYYY-MM-DD) compare as text; date-times (createdAt) as instants.
  const when = (x: unknown) => (typeof x === "string" && x.length > 10 ? Date.parse(x) : x);
  const w = typeof want === "string" && want.length > 10 ? Date.parse(want) : want;
  switch (c.op) {
    case "exists":
      return vals.length > 0;
    case "not_exists":
      return vals.length === 0;
    case "eq":
      return vals.some(same);
    case "neq":
      return !vals.some(same);
    case "contains":
      return text((a, b) => a.includes(b));
    case "not_contains":
      return !text((a, b) => a.includes(b));
    case "starts_with":
      return text((a, b) => a.startsWith(b));
    case "ends_with":
      return text((a, b) => a.endsWith(b));
    case "gt":
      return num((a, b) => a > b);
    case "gte":
      return num((a, b) => a >= b);
    case "lt":
      return num((a, b) => a < b);
    case "lte":
      return num((a, b) => a <= b);
    case "before":
      return vals.some((x) => (when(x) as number | string) < (w as number | string));
    case "after":
      return vals.some((x) => (when(x) as number | string) > (w as number | string));
  }
  return false;
}

function test(c: Condition, s: Candidate): boolean {
  if (c.field.startsWith("crm.")) return testCrm(c, s);
  if (c.field === "list") {
    const st = s.lists.get(c.value as number);
    const member = st !== undefined && st === (c.status ?? "subscribed");
    return c.op === "in" ? member : !member;
  }
  if (c.field === "createdAt") {
    const t = Date.parse(c.value as string);
    return c.op === "before" ? s.createdAt.getTime() < t : s.createdAt.getTime() > t;
  }
  const raw = c.field === "email" ? s.email : c.field === "name" ? s.name : s.attributes[c.field.slice("attributes.".length)];
  const present = raw !== null && raw !== undefined && raw !== "";
  if (c.op === "exists") return present;
  if (c.op === "not_exists") return !present;
  if (!present) return c.op === "neq" || c.op === "not_contains";
  if (c.op === "gt" || c.op === "gte" || c.op === "lt" || c.op === "lte") {
    const a = Number(raw);
    const b = Number(c.value);
    if (Number.isNaN(a) || Number.isNaN(b)) return false;
    return c.op === "gt" ? a > b : c.op === "gte" ? a >= b : c.op === "lt" ? a < b : a <= b;
  }
  // Text comparisons ignore case and accents: "Zoë" eq "zoe".
  const a = fold(String(raw));
  const b = fold(String(c.value));
  switch (c.op) {
    case "eq":
      return a === b;
    case "neq":
      return a !== b;
    case "contains":
      return a.includes(b);
    case "not_contains":
      return !a.includes(b);
    case "starts_with":
      return a.startsWith(b);
    case "ends_with":
      return a.endsWith(b);
    default:
      return false;
  }
}

export function matches(rules: Rules, s: Candidate): boolean {
  return rules.match === "any" ? rules.conditions.some((c) => test(c, s)) : rules.conditions.every((c) => test(c, s));
}

/**
 * A condition as SQL over email_subscribers rows, when SQL answers exactly
 * as `matches` does: list membership, createdAt, and the CRM fields
 * crm/facts.ts can express (contact, lifecycle stage, score, owner id,
 * custom dates). Null otherwise (text ignoring accents, attributes): those
 * are evaluated in process.
 */
export function conditionSql(c: Condition, companyId: number, crmTypes: FieldTypes | null): SQL | null {
  if (c.field === "list") {
    const member = sql`exists (select 1 from ${emailMemberships} where ${emailMemberships.subscriberId} = ${emailSubscribers.id} and ${emailMemberships.listId} = ${c.value as number} and ${emailMemberships.status} = ${c.status ?? "subscribed"})`;
    return c.op === "in" ? member : not(member);
  }
  if (c.field === "createdAt") return c.op === "before" ? lt(emailSubscribers.createdAt, new Date(c.value as string)) : gt(emailSubscribers.createdAt, new Date(c.value as string));
  if (c.field.startsWith("crm.")) return factSql(companyId, emailSubscribers.email, c.field.slice(4), c.op, c.value, crmTypes);
  return null;
}

/**
 * Rules split for evaluation: `sql` must hold (exact, pushed to the
 * database), `rest` is checked in process on what it lets through (null
 * when nothing is left to check). With match any, only rules whose every
 * condition is exact go to SQL; otherwise everything is checked in process.
 */
export function planRules(rules: Rules, companyId: number, crmTypes: FieldTypes | null): { sql: SQL | undefined; rest: Rules | null } {
  const parts = rules.conditions.map((c) => ({ c, q: conditionSql(c, companyId, crmTypes) }));
  if (rules.match === "any") {
    if (parts.every((p) => p.q)) return { sql: or(...parts.map((p) => p.q!)), rest: null };
    return { sql: undefined, rest: rules };
  }
  const exact = parts.filter((p) => p.q).map((p) => p.q!);
  const left = parts.filter((p) => !p.q).map((p) => p.c);
  return { sql: exact.length ? and(...exact) : undefined, rest: left.length ? { match: "all", conditions: left } : null };
}
