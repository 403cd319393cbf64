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
 * `matches` is the reference meaning; planRules turns every condition into
 * SQL that answers the same (subscriber text over the folded copy
 * tables.ts SubscriberFold, CRM fields through crm/facts.ts factSql), and
 * what cannot be (see docs/email.md) is checked in process on keyset-paged
 * batches of what the SQL lets through.
 */
import { and, gt, lt, not, or, sql, type SQL } from "drizzle-orm";
import { jsonPathNumber, jsonPathText, likeFolded, numberParam } from "../../core/sql";
import * as v from "valibot";
import { invalid } from "../../core/errors";
import {
  FACT_FIELDS,
  factKind,
  factSql,
  factValues,
  LIFECYCLE_STAGES,
  type ContactFacts,
  type FactContext,
  type FactKind,
  type FieldTypes,
} from "../crm/facts";
import { emailMemberships, emailSubscribers, type Attributes, type SubscriberFold } from "./tables";

export const OPS = [
  "eq",
  "neq",
  "contains",
  "not_contains",
  "starts_with",
  "ends_with",
  "gt",
  "gte",
  "lt",
  "lte",
  "exists",
  "not_exists",
  "before",
  "after",
  "in",
  "not_in",
] as const;
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
  if (!kind)
    throw invalid(
      `${where}: unknown CRM field "${c.field.slice(0, 60)}"; use crm.${FACT_FIELDS.replaceAll(", ", ", crm.")} (custom keys from crm_fields_list).`,
      { path: where },
    );
  if (!CRM_OPS[kind].includes(c.op))
    throw invalid(`${where}: ${c.field} takes ${CRM_OPS[kind].join(", ")}.`, { path: where });
  if (c.op === "exists" || c.op === "not_exists") return;
  const val = c.value;
  const bad = (what: string) => invalid(`${where}: ${c.field} ${c.op} needs ${what}.`, { path: where });
  if (kind === "number" && typeof val !== "number") throw bad("a number");
  if (kind === "boolean" && typeof val !== "boolean") throw bad("true or false");
  if (kind === "date" && (typeof val !== "string" || !/^\d{4}-\d{2}-\d{2}$/.test(val))) throw bad("a date, YYYY-MM-DD");
  if (kind === "datetime" && (typeof val !== "string" || Number.isNaN(Date.parse(val)))) throw bad("an ISO date-time");
  if (
    kind === "user" &&
    (typeof val !== "number" || !Number.isSafeInteger(val)) &&
    (typeof val !== "string" || !val.includes("@"))
  )
    throw bad("a user id or email");
  if ((kind === "text" || kind === "list") && typeof val !== "string") throw bad("text");
  if (
    field === "lifecycleStage" &&
    (c.op === "eq" || c.op === "neq") &&
    !(LIFECYCLE_STAGES as readonly string[]).includes(String(val).toLowerCase())
  )
    throw bad(`one of ${LIFECYCLE_STAGES.join(", ")}`);
}

/** Longer than any stored value a rule compares with (attributes: 1,000; names: 200). */
export const VALUE_MAX = 1000;

const TEXT_OPS = new Set<Op>([
  "eq",
  "neq",
  "contains",
  "not_contains",
  "starts_with",
  "ends_with",
  "exists",
  "not_exists",
  "in",
  "not_in",
]);
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
    if (typeof c.value === "string") {
      // Compared as written (LIKE wildcards are literal); what no stored value can hold is refused, alike on both engines.
      if (c.value.length > VALUE_MAX)
        throw invalid(`${where}: value is over ${VALUE_MAX} characters.`, { path: where });
      if (c.value.includes("\u0000") || !c.value.isWellFormed())
        throw invalid(`${where}: value holds a NUL or a broken character.`, { path: where });
    }
    if (c.field === "list") {
      if (c.op !== "in" && c.op !== "not_in")
        throw invalid(`${where}: a list condition takes op in or not_in.`, { path: where });
      if (typeof c.value !== "number" || !Number.isSafeInteger(c.value) || c.value < 1)
        throw invalid(`${where}: value must be a list id.`, { path: where });
      listIds.push(c.value);
      return;
    }
    if (c.status !== undefined) throw invalid(`${where}: status applies to list conditions only.`, { path: where });
    if (c.field === "email" || c.field === "name") {
      if (!TEXT_OPS.has(c.op) || c.op === "in" || c.op === "not_in")
        throw invalid(
          `${where}: ${c.field} takes eq, neq, contains, not_contains, starts_with, ends_with, exists or not_exists.`,
          { path: where },
        );
    } else if (c.field === "createdAt") {
      if (c.op !== "before" && c.op !== "after")
        throw invalid(`${where}: createdAt takes before or after.`, { path: where });
      if (typeof c.value !== "string" || Number.isNaN(Date.parse(c.value)))
        throw invalid(`${where}: value must be an ISO date-time.`, { path: where });
    } else if (ns === "attributes" && key && more.length === 0) {
      if (c.op === "in" || c.op === "not_in" || c.op === "before" || c.op === "after")
        throw invalid(`${where}: ${c.op} does not apply to attributes.`, { path: where });
    } else if (ns === "crm" && key) {
      if (crmTypes) checkCrm(c, where, crmTypes);
      return;
    } else {
      throw invalid(
        `${where}: unknown field "${c.field.slice(0, 60)}"; use email, name, createdAt, attributes.<key>, list or crm.<field>.`,
        { path: where },
      );
    }
    if (c.op !== "exists" && c.op !== "not_exists" && (c.value === undefined || c.value === null))
      throw invalid(`${where}: ${c.op} needs a value.`, { path: where });
    if (
      NUM_OPS.has(c.op) &&
      ["gt", "gte", "lt", "lte"].includes(c.op) &&
      typeof c.value !== "number" &&
      Number.isNaN(Number(c.value))
    )
      throw invalid(`${where}: ${c.op} compares numbers.`, { path: where });
  });
  return { rules, listIds: [...new Set(listIds)] };
}

/** Case and accents dropped: "Zoë" → "zoe". The one fold rules mean, in process and in the stored fold columns. */
export const fold = (s: string) => s.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase();

/** An attribute as rules see it: own keys only (a key named "constructor" is not Object's). */
const attribute = (a: Attributes, key: string) => (Object.hasOwn(a, key) ? a[key] : undefined);
const present = (raw: unknown) => raw !== null && raw !== undefined && raw !== "";

/** The folded copy of a subscriber's compared values (tables.ts SubscriberFold), written with them. */
export function foldSubscriber(s: { email: string; name: string | null; attributes: Attributes }): SubscriberFold {
  const out: SubscriberFold = { e: fold(s.email), a: {}, x: {} };
  if (present(s.name)) out.n = fold(s.name!);
  for (const [k, raw] of Object.entries(s.attributes)) {
    if (!present(raw)) continue;
    out.a[k] = fold(String(raw));
    const n = Number(raw);
    if (!Number.isNaN(n)) out.x[k] = n === Infinity ? "inf" : n === -Infinity ? "-inf" : n;
  }
  return out;
}

/** A crm.<field> condition: typed by the stored values (CRM checks them on write), any of several values (tags, owner id/email). */
function testCrm(c: Condition, s: Candidate): boolean {
  const f = s.crm;
  const field = c.field.slice(4);
  if (!f) return field === "contact" && c.op === "not_exists";
  const vals = factValues(f, field);
  const want = c.value;
  const same = (x: unknown) =>
    typeof x === "number" || typeof x === "boolean"
      ? String(x) === String(want)
      : typeof x === "string" && fold(x) === fold(String(want));
  const text = (p: (a: string, b: string) => boolean) =>
    vals.some((x) => typeof x === "string" && p(fold(x), fold(String(want))));
  const num = (p: (a: number, b: number) => boolean) =>
    vals.some((x) => typeof x === "number" && typeof want === "number" && p(x, want));
  // Dates (YYYY-MM-DD) compare as text; date-times (crm.createdAt) as
  // instants, whatever form the value takes ("2026-01-01" included).
  const instant = field === "createdAt";
  const when = (x: unknown) => (instant && typeof x === "string" ? Date.parse(x) : x);
  const w = when(want);
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
  const raw =
    c.field === "email"
      ? s.email
      : c.field === "name"
        ? s.name
        : attribute(s.attributes, c.field.slice("attributes.".length));
  if (c.op === "exists") return present(raw);
  if (c.op === "not_exists") return !present(raw);
  if (!present(raw)) return c.op === "neq" || c.op === "not_contains";
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

const ATTRIBUTE_KEY = /^[a-zA-Z_][\w-]{0,49}$/;

/**
 * A subscriber text condition (email, name, attributes.<key>) over the
 * folded copy (`fold`, never null where this is used: see planRules):
 * the same fold as `test`, then =, LIKE with wildcards escaped (both
 * sides are folded to lower case, so SQLite's ASCII-insensitive LIKE and
 * PostgreSQL's case-sensitive one agree), and numbers compared exactly
 * (numeric on PostgreSQL, doubles on SQLite) with ±Infinity kept as text.
 * A key no attribute can have (checkAttributes' names) is a missing value.
 */
function subscriberSql(c: Condition): SQL {
  const col = emailSubscribers.fold;
  const yes = sql`1 = 1`;
  const no = sql`1 = 0`;
  const key = c.field.startsWith("attributes.") ? c.field.slice(11) : null;
  if (key !== null && !ATTRIBUTE_KEY.test(key))
    return c.op === "not_exists" || c.op === "neq" || c.op === "not_contains" ? yes : no;
  const a = jsonPathText(col, key === null ? [c.field === "email" ? "e" : "n"] : ["a", key]);
  if (c.op === "exists") return sql`${a} is not null`;
  if (c.op === "not_exists") return sql`${a} is null`;
  if (c.op === "gt" || c.op === "gte" || c.op === "lt" || c.op === "lte") {
    if (key === null) return no;
    const b = Number(c.value);
    if (Number.isNaN(b)) return no;
    const n = jsonPathNumber(col, ["x", key]);
    const t = jsonPathText(col, ["x", key]);
    const up = c.op === "gt" || c.op === "gte";
    const strict = c.op === "gt" || c.op === "lt";
    if (b === Infinity)
      return up
        ? strict
          ? no
          : sql`${t} = 'inf'`
        : strict
          ? sql`(${n} is not null or ${t} = '-inf')`
          : sql`${t} is not null`;
    if (b === -Infinity)
      return up
        ? strict
          ? sql`(${n} is not null or ${t} = 'inf')`
          : sql`${t} is not null`
        : strict
          ? no
          : sql`${t} = '-inf'`;
    const cmp = sql.raw({ gt: ">", gte: ">=", lt: "<", lte: "<=" }[c.op]);
    return sql`(${n} ${cmp} ${numberParam(b)} or ${t} = ${up ? "inf" : "-inf"})`;
  }
  const b = fold(String(c.value));
  switch (c.op) {
    case "eq":
      return sql`${a} = ${b}`;
    case "neq":
      return sql`(${a} is null or ${a} <> ${b})`;
    case "contains":
      return likeFolded(a, b, "contains");
    case "not_contains":
      return sql`(${a} is null or not ${likeFolded(a, b, "contains")})`;
    case "starts_with":
      return likeFolded(a, b, "starts");
    case "ends_with":
      return likeFolded(a, b, "ends");
  }
  return no;
}

/**
 * A condition as SQL over email_subscribers rows, answering exactly as
 * `matches` does (test/email/segments-sql.test.ts checks both on every
 * operator and field type, on both engines). Subscriber text conditions
 * read the folded copy, so they are pushed down only when every row of
 * the company has one (`folded`); otherwise null, and they are checked in
 * process. CRM conditions are null where facts.ts cannot express them.
 */
export function conditionSql(c: Condition, companyId: number, crm: FactContext | null, folded = true): SQL | null {
  if (c.field === "list") {
    const member = sql`exists (select 1 from ${emailMemberships} where ${emailMemberships.subscriberId} = ${emailSubscribers.id} and ${emailMemberships.listId} = ${c.value as number} and ${emailMemberships.status} = ${c.status ?? "subscribed"})`;
    return c.op === "in" ? member : not(member);
  }
  if (c.field === "createdAt")
    return c.op === "before"
      ? lt(emailSubscribers.createdAt, new Date(c.value as string))
      : gt(emailSubscribers.createdAt, new Date(c.value as string));
  if (c.field.startsWith("crm."))
    return crm
      ? factSql(companyId, emailSubscribers.email, c.field.slice(4), c.op, c.value, crm, (f) =>
          testCrm(c, {
            id: 0,
            email: "",
            name: null,
            attributes: {},
            createdAt: new Date(0),
            lists: new Map(),
            crm: f,
          }),
        )
      : null;
  return folded ? subscriberSql(c) : null;
}

/**
 * Rules split for evaluation: `sql` must hold (exact, pushed to the
 * database), `rest` is checked in process on what it lets through (null
 * when nothing is left to check). With match any, only rules whose every
 * condition is exact go to SQL; otherwise everything is checked in process.
 * `inProcess` keeps everything in process (the reference, for tests).
 */
export function planRules(
  rules: Rules,
  companyId: number,
  crm: FactContext | null,
  opts: { folded?: boolean; inProcess?: boolean } = {},
): { sql: SQL | undefined; rest: Rules | null } {
  if (opts.inProcess) return { sql: undefined, rest: rules };
  const parts = rules.conditions.map((c) => ({ c, q: conditionSql(c, companyId, crm, opts.folded ?? true) }));
  if (rules.match === "any") {
    if (parts.every((p) => p.q)) return { sql: or(...parts.map((p) => p.q!)), rest: null };
    return { sql: undefined, rest: rules };
  }
  const exact = parts.filter((p) => p.q).map((p) => p.q!);
  const left = parts.filter((p) => !p.q).map((p) => p.c);
  return {
    sql: exact.length ? and(...exact) : undefined,
    rest: left.length ? { match: "all", conditions: left } : null,
  };
}
