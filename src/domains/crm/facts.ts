/**
 * What other domains may read about CRM contacts by email address (email
 * segments: `crm.<field>` conditions). Reads only, always inside one
 * company: the caller has checked its own scope and passes its own
 * company id, so another company's contact with the same address is never
 * seen.
 *
 * Fields, as a segment names them after `crm.`:
 *   contact                      whether a live contact holds the address
 *   firstName, lastName, jobTitle, lifecycleStage        text
 *   owner                        the owner's user id or email
 *   tags                         a list (eq: has the tag)
 *   score                        number
 *   createdAt                    date-time
 *   custom.<key>                 typed by its definition (number, date, boolean, select, multi_select, text, url)
 *   company.name|domain|industry|size   text
 *   company.tags                 a list
 *   company.custom.<key>         typed by the company field's definition
 *
 * One query per batch of addresses (the subscribers' emails of an audience
 * page), never one per subscriber.
 *
 * @public Serves email (segment conditions on CRM fields).
 */
import { aliasedTable, and, eq, gt, inArray, isNull, lt, sql, type SQL, type SQLWrapper } from "drizzle-orm";
import { jsonAsText, jsonFieldText, jsonPathBool, jsonPathNumber, numberParam } from "../../core/sql";
import { users } from "../../core/tables";
import type { Q } from "./access";
import {
  contactEmails,
  contacts,
  crmCompanies,
  fieldDefs,
  LIFECYCLE_STAGES,
  type CustomValues,
  type FieldType,
} from "./tables";

export interface ContactFacts {
  id: number;
  firstName: string | null;
  lastName: string | null;
  jobTitle: string | null;
  lifecycleStage: string;
  ownerId: number | null;
  ownerEmail: string | null;
  tags: string[];
  score: number;
  createdAt: Date;
  custom: CustomValues;
  company: {
    id: number;
    name: string;
    domain: string | null;
    industry: string | null;
    size: string | null;
    tags: string[];
    custom: CustomValues;
  } | null;
}

/** How a field's values compare: text (folded), number, date (YYYY-MM-DD), datetime, boolean, list (of text), user. */
export type FactKind = "exists" | "text" | "number" | "date" | "datetime" | "boolean" | "list" | "user";

const CONTACT_FIELDS: Record<string, FactKind> = {
  contact: "exists",
  firstName: "text",
  lastName: "text",
  jobTitle: "text",
  lifecycleStage: "text",
  owner: "user",
  tags: "list",
  score: "number",
  createdAt: "datetime",
};
const COMPANY_FIELDS: Record<string, FactKind> = {
  name: "text",
  domain: "text",
  industry: "text",
  size: "text",
  tags: "list",
};
const BY_TYPE: Record<FieldType, FactKind> = {
  text: "text",
  url: "text",
  select: "text",
  number: "number",
  date: "date",
  boolean: "boolean",
  multi_select: "list",
};

export const FACT_FIELDS = `${Object.keys(CONTACT_FIELDS).join(", ")}, custom.<key>, company.${Object.keys(COMPANY_FIELDS).join("|")}, company.custom.<key>`;
export { LIFECYCLE_STAGES };

/** A custom field's type and (select, multi_select) options. */
export interface FieldSpec {
  type: FieldType;
  options: string[];
}
export type FieldTypes = Map<string, FieldSpec>;

/** Custom field definitions of the company's contacts and CRM companies ("contact.key" / "company.key" → type and options). */
export async function customFieldTypes(q: Q, companyId: number): Promise<FieldTypes> {
  const defs = await q
    .select({ object: fieldDefs.object, key: fieldDefs.key, type: fieldDefs.type, options: fieldDefs.options })
    .from(fieldDefs)
    .where(eq(fieldDefs.companyId, companyId));
  return new Map(
    defs.filter((d) => d.object !== "deal").map((d) => [`${d.object}.${d.key}`, { type: d.type, options: d.options }]),
  );
}

/**
 * The kind of a field named after `crm.`, or null when there is no such
 * field (an unknown custom key included: `types` from customFieldTypes).
 */
export function factKind(field: string, types: FieldTypes): FactKind | null {
  if (CONTACT_FIELDS[field]) return CONTACT_FIELDS[field]!;
  const [a, b, c, ...more] = field.split(".");
  if (more.length) return null;
  if (a === "custom" && b && c === undefined)
    return types.has(`contact.${b}`) ? BY_TYPE[types.get(`contact.${b}`)!.type] : null;
  if (a === "company" && b && c === undefined) return COMPANY_FIELDS[b] ?? null;
  if (a === "company" && b === "custom" && c)
    return types.has(`company.${c}`) ? BY_TYPE[types.get(`company.${c}`)!.type] : null;
  return null;
}

/** The values of a field on a contact (several for lists and owners: id and email); [] when unset. */
export function factValues(f: ContactFacts, field: string): unknown[] {
  const one = (x: unknown) => (x === null || x === undefined || x === "" ? [] : Array.isArray(x) ? x : [x]);
  switch (field) {
    case "contact":
      return [true];
    case "owner":
      return f.ownerId === null ? [] : [f.ownerId, f.ownerEmail];
    case "createdAt":
      return [f.createdAt.toISOString()];
    case "firstName":
    case "lastName":
    case "jobTitle":
    case "lifecycleStage":
    case "tags":
    case "score":
      return one(f[field]);
  }
  if (field.startsWith("custom.")) return one(f.custom[field.slice(7)]);
  if (!f.company) return [];
  if (field.startsWith("company.custom.")) return one(f.company.custom[field.slice(15)]);
  const k = field.slice(8) as "name" | "domain" | "industry" | "size" | "tags";
  return one(f.company[k]);
}

/** The live contacts holding these (lower-case) addresses in the company, by address. */
export async function contactFactsByEmails(
  q: Q,
  companyId: number,
  emails: string[],
): Promise<Map<string, ContactFacts>> {
  const out = new Map<string, ContactFacts>();
  if (!emails.length) return out;
  const owner = aliasedTable(users, "crm_fact_owner");
  for (let i = 0; i < emails.length; i += 2000) {
    // Only the columns a segment reads (not the wide search, emails and phones).
    const rows = await q
      .select({
        email: contactEmails.email,
        c: {
          id: contacts.id,
          firstName: contacts.firstName,
          lastName: contacts.lastName,
          jobTitle: contacts.jobTitle,
          lifecycleStage: contacts.lifecycleStage,
          ownerId: contacts.ownerId,
          tags: contacts.tags,
          score: contacts.score,
          createdAt: contacts.createdAt,
          custom: contacts.custom,
        },
        ownerEmail: owner.email,
        co: {
          id: crmCompanies.id,
          name: crmCompanies.name,
          domain: crmCompanies.domain,
          industry: crmCompanies.industry,
          size: crmCompanies.size,
          tags: crmCompanies.tags,
          custom: crmCompanies.custom,
        },
      })
      .from(contactEmails)
      .innerJoin(
        contacts,
        and(eq(contacts.id, contactEmails.contactId), eq(contacts.companyId, companyId), isNull(contacts.mergedIntoId)),
      )
      .leftJoin(crmCompanies, and(eq(crmCompanies.id, contacts.crmCompanyId), eq(crmCompanies.companyId, companyId)))
      .leftJoin(owner, eq(owner.id, contacts.ownerId))
      .where(and(eq(contactEmails.companyId, companyId), inArray(contactEmails.email, emails.slice(i, i + 2000))));
    for (const r of rows) {
      const c = r.c;
      out.set(r.email, {
        id: c.id,
        firstName: c.firstName,
        lastName: c.lastName,
        jobTitle: c.jobTitle,
        lifecycleStage: c.lifecycleStage,
        ownerId: c.ownerId,
        ownerEmail: r.ownerEmail ?? null,
        tags: c.tags,
        score: c.score,
        createdAt: c.createdAt,
        custom: c.custom,
        company: r.co
          ? {
              id: r.co.id,
              name: r.co.name,
              domain: r.co.domain,
              industry: r.co.industry,
              size: r.co.size,
              tags: r.co.tags,
              custom: r.co.custom,
            }
          : null,
      });
    }
  }
  return out;
}

/**
 * What factSql needs beyond the field types, loaded once per evaluation:
 * the tenant's CRM companies when rules name company fields (a few
 * thousand rows at most: a company condition is decided on each of them in
 * JS and becomes "the contact's company is one of these"), and the
 * contacts' owners when an owner is named by email (users' emails are not
 * folded in SQL).
 */
export interface FactContext {
  types: FieldTypes;
  companies:
    | {
        id: number;
        name: string;
        domain: string | null;
        industry: string | null;
        size: string | null;
        tags: string[];
        custom: CustomValues;
      }[]
    | null;
  owners: { id: number; email: string }[] | null;
  /** The distinct values of single-valued text fields the rules name (firstName, custom.<text key>…) among the tenant's live contacts. */
  distinct: Map<string, (string | null)[]>;
}

/**
 * Contact fields decided over their distinct stored values: single-valued
 * text (names, job title, stage, custom text/url/select) as the text, and
 * lists (tags, custom multi_select) as their stored JSON text, decoded for
 * the test. Null for other fields.
 */
function distinctExpr(field: string, types: FieldTypes): { x: SQL; list: boolean } | null {
  if (field === "firstName") return { x: sql`${contacts.firstName}`, list: false };
  if (field === "lastName") return { x: sql`${contacts.lastName}`, list: false };
  if (field === "jobTitle") return { x: sql`${contacts.jobTitle}`, list: false };
  if (field === "lifecycleStage") return { x: sql`${contacts.lifecycleStage}`, list: false };
  if (field === "tags") return { x: jsonAsText(contacts.tags), list: true };
  const key = /^custom\.([A-Za-z0-9_]+)$/.exec(field)?.[1];
  const type = key ? types.get(`contact.${key}`)?.type : undefined;
  if (key && (type === "text" || type === "url" || type === "select"))
    return { x: jsonFieldText(contacts.custom, key), list: false };
  if (key && type === "multi_select") return { x: jsonFieldText(contacts.custom, key), list: true };
  return null;
}

/** At most this many values (company ids, distinct stored values) go into one SQL list; beyond, the caller checks in process. */
const COMPANY_IDS_MAX = 5000;

/** Conditions with a direct SQL form (no distinct values needed): a stage's existence or eq/neq a known stage, a select's existence or eq/neq. */
function direct(field: string, op: string, value: unknown, types: FieldTypes): boolean {
  const simple = op === "exists" || op === "not_exists" || op === "eq" || op === "neq";
  if (field === "lifecycleStage")
    return (
      op === "exists" ||
      op === "not_exists" ||
      (simple && typeof value === "string" && (LIFECYCLE_STAGES as readonly string[]).includes(value.toLowerCase()))
    );
  const key = /^custom\.([A-Za-z0-9_]+)$/.exec(field)?.[1];
  return Boolean(
    key &&
      types.get(`contact.${key}`)?.type === "select" &&
      simple &&
      (op.endsWith("exists") || typeof value === "string"),
  );
}

export async function factContext(
  q: Q,
  companyId: number,
  conds: { field: string; op: string; value?: unknown }[],
): Promise<FactContext> {
  const fields = conds.map((c) => c.field);
  const types = await customFieldTypes(q, companyId);
  const companies = fields.some((f) => f.startsWith("company."))
    ? await q
        .select({
          id: crmCompanies.id,
          name: crmCompanies.name,
          domain: crmCompanies.domain,
          industry: crmCompanies.industry,
          size: crmCompanies.size,
          tags: crmCompanies.tags,
          custom: crmCompanies.custom,
        })
        .from(crmCompanies)
        .where(eq(crmCompanies.companyId, companyId))
    : null;
  const owners = fields.includes("owner")
    ? await q
        .select({ id: users.id, email: users.email })
        .from(users)
        .where(
          sql`exists (select 1 from ${contacts} where ${contacts.companyId} = ${companyId} and ${contacts.ownerId} = ${users.id})`,
        )
    : null;
  const distinct = new Map<string, (string | null)[]>();
  for (const f of new Set(conds.filter((c) => !direct(c.field, c.op, c.value, types)).map((c) => c.field))) {
    const d = distinctExpr(f, types);
    if (!d) continue;
    const rows = await q
      .select({ v: sql<string | null>`${d.x}` })
      .from(contacts)
      .where(and(eq(contacts.companyId, companyId), isNull(contacts.mergedIntoId)))
      .groupBy(sql`1`);
    distinct.set(
      f,
      rows.map((r) => r.v),
    );
  }
  return { types, companies, owners, distinct };
}

const NO_FACTS: Omit<ContactFacts, "company"> = {
  id: 0,
  firstName: null,
  lastName: null,
  jobTitle: null,
  lifecycleStage: "other",
  ownerId: null,
  ownerEmail: null,
  tags: [],
  score: 0,
  createdAt: new Date(0),
  custom: {},
};

/**
 * The same test as a SQL condition over rows holding an address
 * (`emailCol`, lower-case), for the fields and operators where SQL gives
 * exactly the answer `factValues` + the caller's comparison (`test`) would:
 * existence, stage, score, owner, createdAt, custom dates, numbers and
 * booleans directly; text and list fields over their distinct stored
 * values, company fields over the tenant's companies, an owner's email
 * over the owners (each decided by `test`, so folding stays the caller's).
 * Null when that would list too many values: the caller then evaluates in
 * process. Like the in-process test, a condition on a field
 * never holds for an address without a contact (but `contact not_exists`).
 */
export function factSql(
  companyId: number,
  emailCol: SQLWrapper,
  field: string,
  op: string,
  value: unknown,
  ctx: FactContext,
  test: (f: ContactFacts) => boolean,
): SQL | null {
  const types = ctx.types;
  const holds = (pred: SQL) =>
    sql`exists (select 1 from ${contactEmails} inner join ${contacts} on ${contacts.id} = ${contactEmails.contactId} and ${contacts.companyId} = ${companyId} and ${contacts.mergedIntoId} is null where ${contactEmails.companyId} = ${companyId} and ${contactEmails.email} = ${emailCol} and ${pred})`;
  const num = typeof value === "number" && Number.isFinite(value) ? value : null;
  if (field.startsWith("company.") && ctx.companies) {
    // Decided on each of the tenant's companies (and on "no company") by
    // the caller's own test, so SQL gives exactly its answer.
    const hits = ctx.companies.filter((co) => test({ ...NO_FACTS, company: co })).map((co) => co.id);
    if (hits.length > COMPANY_IDS_MAX) return null;
    const none = test({ ...NO_FACTS, company: null });
    const inHits = hits.length
      ? sql`${contacts.crmCompanyId} in (${sql.join(
          hits.map((h) => sql`${h}`),
          sql`, `,
        )})`
      : sql`1 = 0`;
    if (!none) return holds(inHits);
    const noCompany = sql`(${contacts.crmCompanyId} is null or not exists (select 1 from ${crmCompanies} where ${crmCompanies.id} = ${contacts.crmCompanyId} and ${crmCompanies.companyId} = ${companyId}))`;
    return holds(sql`(${inHits} or ${noCompany})`);
  }
  if (field === "owner" && typeof value === "string" && ctx.owners) {
    // Decided per owner (every user owning a contact of the tenant) and for "no owner", as above.
    const ids = ctx.owners
      .filter((u) => test({ ...NO_FACTS, ownerId: u.id, ownerEmail: u.email, company: null }))
      .map((u) => u.id);
    const isHit = ids.length
      ? sql`${contacts.ownerId} in (${sql.join(
          ids.map((h) => sql`${h}`),
          sql`, `,
        )})`
      : sql`1 = 0`;
    return holds(test({ ...NO_FACTS, company: null }) ? sql`(${contacts.ownerId} is null or ${isHit})` : isHit);
  }
  const values = ctx.distinct.get(field);
  const d = values ? distinctExpr(field, types) : null;
  if (values && d && !direct(field, op, value, types)) {
    const x = d.x;
    // Decided on each distinct stored value by the caller's test (folding
    // in JS), then "the contact's value is one of these" (or, when that
    // list is long, "none of the others").
    const fact = (t: string | null): ContactFacts => {
      const v = t !== null && d.list ? (JSON.parse(t) as unknown) : t;
      if (field.startsWith("custom."))
        return { ...NO_FACTS, custom: v === null ? {} : ({ [field.slice(7)]: v } as CustomValues), company: null };
      return { ...NO_FACTS, [field]: field === "tags" && v === null ? [] : v, company: null } as ContactFacts;
    };
    const known = values.filter((v): v is string => v !== null);
    const hits = known.filter((v) => test(fact(v)));
    const misses = known.filter((v) => !test(fact(v)));
    const nullHit = test(fact(null));
    const list = (vs: string[]) =>
      sql.join(
        vs.map((v) => sql`${v}`),
        sql`, `,
      );
    if (Math.min(hits.length, misses.length) > COMPANY_IDS_MAX) return null;
    const inHits =
      hits.length <= misses.length
        ? hits.length
          ? sql`${x} in (${list(hits)})`
          : sql`1 = 0`
        : misses.length
          ? sql`(${x} is not null and ${x} not in (${list(misses)}))`
          : sql`${x} is not null`;
    return holds(nullHit ? sql`(${x} is null or ${inHits})` : inHits);
  }
  if (field === "createdAt" && typeof value === "string" && (op === "before" || op === "after")) {
    const t = Date.parse(value);
    if (Number.isNaN(t)) return sql`1 = 0`;
    return holds(op === "before" ? lt(contacts.createdAt, new Date(t)) : gt(contacts.createdAt, new Date(t)));
  }
  switch (field) {
    case "contact":
      return op === "exists" ? holds(sql`1 = 1`) : op === "not_exists" ? sql`not ${holds(sql`1 = 1`)}` : null;
    case "lifecycleStage": {
      const v = typeof value === "string" ? value.toLowerCase() : null;
      if (op === "exists") return holds(sql`1 = 1`);
      if (op === "not_exists") return sql`1 = 0`;
      if (v === null || !(LIFECYCLE_STAGES as readonly string[]).includes(v)) return null;
      return op === "eq"
        ? holds(sql`${contacts.lifecycleStage} = ${v}`)
        : op === "neq"
          ? holds(sql`${contacts.lifecycleStage} <> ${v}`)
          : null;
    }
    case "score": {
      if (op === "exists") return holds(sql`1 = 1`);
      if (op === "not_exists") return sql`1 = 0`;
      const cmp = { eq: "=", gt: ">", gte: ">=", lt: "<", lte: "<=" }[op];
      if (num === null) return null;
      if (op === "neq") return holds(sql`${contacts.score} <> ${num}`);
      return cmp ? holds(sql`${contacts.score} ${sql.raw(cmp)} ${num}`) : null;
    }
    case "owner":
      if (op === "exists") return holds(sql`${contacts.ownerId} is not null`);
      if (op === "not_exists") return holds(sql`${contacts.ownerId} is null`);
      if (num === null || !Number.isSafeInteger(num)) return null;
      return op === "eq"
        ? holds(sql`${contacts.ownerId} = ${num}`)
        : op === "neq"
          ? holds(sql`(${contacts.ownerId} is null or ${contacts.ownerId} <> ${num})`)
          : null;
  }
  const key = /^custom\.([A-Za-z0-9_]+)$/.exec(field)?.[1];
  const spec = key ? types?.get(`contact.${key}`) : undefined;
  // A select holds one of its options: the options equal to the value once
  // folded are exactly the stored values the folded comparison accepts.
  if (key && spec?.type === "select") {
    const x = jsonFieldText(contacts.custom, key);
    if (op === "exists") return holds(sql`${x} is not null and ${x} <> ''`);
    if (op === "not_exists") return holds(sql`(${x} is null or ${x} = '')`);
    if (typeof value !== "string" || (op !== "eq" && op !== "neq")) return null;
    // The same folding as the in-process test (email/segment-rules.ts).
    const fold = (t: string) => t.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase();
    const hits = spec.options.filter((o) => fold(o) === fold(value));
    const isHit = hits.length
      ? sql`${x} in (${sql.join(
          hits.map((h) => sql`${h}`),
          sql`, `,
        )})`
      : sql`1 = 0`;
    return op === "eq" ? holds(isHit) : holds(sql`(${x} is null or not (${isHit}))`);
  }
  // Numbers and booleans are stored as their JSON type (checked on write;
  // a field's type never changes and deleting it removes its values).
  if (key && spec?.type === "number") {
    const n = jsonPathNumber(contacts.custom, [key]);
    if (op === "exists") return holds(sql`${n} is not null`);
    if (op === "not_exists") return holds(sql`${n} is null`);
    if (num === null) return null;
    if (op === "neq") return holds(sql`(${n} is null or ${n} <> ${numberParam(num)})`);
    const cmp = { eq: "=", gt: ">", gte: ">=", lt: "<", lte: "<=" }[op];
    return cmp ? holds(sql`${n} ${sql.raw(cmp)} ${numberParam(num)}`) : null;
  }
  if (key && spec?.type === "boolean") {
    const b = jsonPathBool(contacts.custom, [key]);
    if (op === "exists") return holds(sql`${b} is not null`);
    if (op === "not_exists") return holds(sql`${b} is null`);
    if (typeof value !== "boolean") return null;
    if (op === "eq") return holds(sql`${b} = ${String(value)}`);
    if (op === "neq") return holds(sql`(${b} is null or ${b} <> ${String(value)})`);
    return null;
  }
  if (key && spec?.type === "date") {
    const x = jsonFieldText(contacts.custom, key);
    if (op === "exists") return holds(sql`${x} is not null`);
    if (op === "not_exists") return holds(sql`${x} is null`);
    if (typeof value !== "string" || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return null;
    if (op === "eq") return holds(sql`${x} = ${value}`);
    if (op === "neq") return holds(sql`(${x} is null or ${x} <> ${value})`);
    if (op === "before") return holds(sql`${x} < ${value}`);
    if (op === "after") return holds(sql`${x} > ${value}`);
  }
  return null;
}
