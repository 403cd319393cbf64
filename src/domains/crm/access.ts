/**
 * What every crm verb shares: scope and role, records looked up within the
 * acting company (another company's record answers exactly like one that
 * does not exist), owners checked as members, custom values checked
 * against their definitions, the folded search text, output shapes.
 *
 * @public Serves brain (CRM records it links to knowledge, read with the
 * CRM's own tenancy).
 */
import { and, eq, inArray, isNull, sql, type SQL, type SQLWrapper } from "drizzle-orm";
import { jsonContains, jsonFieldText } from "../../core/sql";
import { iso } from "../../core/clock";
import type { ActorContext } from "../../core/context";
import type { Db } from "../../core/db";
import { invalid, notFound } from "../../core/errors";
import { authorize } from "../../core/scopes";
import {
  contactEmails,
  contacts,
  crmCompanies,
  deals,
  fieldDefs,
  pipelines,
  stages,
  type CrmObject,
  type CustomValues,
  type Phone,
} from "./tables";
import { users } from "../../core/tables";
import { memberOfCompany } from "../../core/members";

export type Q = Pick<Db, "select">;
export type ContactRow = typeof contacts.$inferSelect;
export type CompanyRow = typeof crmCompanies.$inferSelect;
export type DealRow = typeof deals.$inferSelect;
export type StageRow = typeof stages.$inferSelect;

export function crmRead(ctx: ActorContext) {
  authorize(ctx, "crm:read", { write: false });
}
export function crmWrite(ctx: ActorContext) {
  authorize(ctx, "crm:write", { write: true });
}

/** Case and accents folded, as the search column holds them: "Zoë Ärn" → "zoe arn". */
export function fold(s: string): string {
  return s.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase().replace(/\s+/g, " ").trim();
}

/** Digits of a phone; national leading zeros dropped so "020 7946" finds "+44 20 7946". */
export const phoneDigits = (s: string) => s.replace(/\D/g, "").replace(/^0+/, "");

export function contactSearch(c: {
  firstName: string | null;
  lastName: string | null;
  emails: string[];
  phones: Phone[];
  jobTitle?: string | null;
}): string {
  return fold(
    [c.firstName, c.lastName, ...c.emails, ...c.phones.map((p) => phoneDigits(p.number))].filter(Boolean).join(" "),
  );
}
export const companySearch = (c: { name: string; domain: string | null }) =>
  fold([c.name, c.domain].filter(Boolean).join(" "));
export const dealSearch = (d: { name: string }) => fold(d.name);

export const fullName = (c: { firstName: string | null; lastName: string | null; emails: string[] }) =>
  [c.firstName, c.lastName].filter(Boolean).join(" ") || c.emails[0] || "(no name)";

/** "https://www.Acme.com/about" → "acme.com"; null when it is no host name. */
export function normaliseDomain(raw: string): string | null {
  let s = raw.trim().toLowerCase();
  s = s.replace(/^[a-z][a-z0-9+.-]*:\/\//, "").replace(/^[^@/]*@/, "");
  s = s
    .split(/[/?#:]/)[0]!
    .replace(/^www\./, "")
    .replace(/\.$/, "");
  return /^(?=.{3,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/.test(s) ? s : null;
}

export const emailDomain = (e: string) => e.slice(e.lastIndexOf("@") + 1);

/** Addresses of webmail providers: never a company's domain (no auto-link, no company match). */
export const FREE_MAIL = new Set([
  "gmail.com",
  "googlemail.com",
  "yahoo.com",
  "outlook.com",
  "hotmail.com",
  "live.com",
  "icloud.com",
  "me.com",
  "aol.com",
  "proton.me",
  "protonmail.com",
  "gmx.de",
  "gmx.net",
  "web.de",
  "yandex.ru",
  "mail.ru",
  "qq.com",
]);

/** A member of the company, as an owner: id, email or "me". Viewers may own records (they are who sells). */
export async function memberOf(q: Q, ctx: ActorContext, who: number | string, what = "ownerId"): Promise<number> {
  const row = await memberOfCompany(q, ctx, who);
  if (!row) throw invalid(`${what} ${JSON.stringify(who)} is not a member of ${ctx.company.name}.`);
  return row.id;
}

/** A user filter: "me", an id or an email; unknown → -1 (matches nothing). */
export async function userFilter(q: Q, ctx: ActorContext, who: number | string): Promise<number> {
  if (who === "me") return ctx.principal.userId;
  if (typeof who === "number") return who;
  return (await q.select({ id: users.id }).from(users).where(eq(users.email, who.toLowerCase())).limit(1))[0]?.id ?? -1;
}

export async function usersById(q: Q, ids: (number | null)[]) {
  const want = [...new Set(ids.filter((x): x is number => x !== null))];
  if (!want.length) return new Map<number, { id: number; name: string | null; email: string }>();
  const rows = await q
    .select({ id: users.id, name: users.name, email: users.email })
    .from(users)
    .where(inArray(users.id, want));
  return new Map(rows.map((r) => [r.id, r]));
}

/** A live contact of the company by id or email; a merged one points to where it went. */
export async function contactOf(q: Q, ctx: ActorContext, ref: number | string, what = "Contact"): Promise<ContactRow> {
  let row: ContactRow | undefined;
  if (typeof ref === "string") {
    const hit = (
      await q
        .select({ id: contactEmails.contactId })
        .from(contactEmails)
        .where(and(eq(contactEmails.companyId, ctx.company.id), eq(contactEmails.email, ref)))
        .limit(1)
    )[0];
    if (!hit) throw notFound(`${what} ${ref} not found in ${ctx.company.name}. Search with crm_search.`);
    ref = hit.id;
  }
  row = (
    await q
      .select()
      .from(contacts)
      .where(and(eq(contacts.companyId, ctx.company.id), eq(contacts.id, ref)))
      .limit(1)
  )[0];
  if (!row) throw notFound(`${what} ${ref} not found in ${ctx.company.name}. Search with crm_search.`);
  if (row.mergedIntoId !== null)
    throw notFound(`${what} ${ref} was merged into contact ${row.mergedIntoId}; use that id.`);
  return row;
}

export async function companyOf(q: Q, ctx: ActorContext, ref: number | string, what = "Company"): Promise<CompanyRow> {
  const cond =
    typeof ref === "number" ? eq(crmCompanies.id, ref) : eq(crmCompanies.domain, normaliseDomain(ref) ?? ref);
  const row = (
    await q
      .select()
      .from(crmCompanies)
      .where(and(eq(crmCompanies.companyId, ctx.company.id), cond))
      .limit(1)
  )[0];
  if (!row)
    throw notFound(`${what} ${ref} not found in ${ctx.company.name}'s CRM. Find companies with crm_companies_list.`);
  if (row.mergedIntoId !== null)
    throw notFound(`${what} ${ref} was merged into company ${row.mergedIntoId}; use that id.`);
  return row;
}

export async function dealOf(q: Q, ctx: ActorContext, id: number): Promise<DealRow> {
  const row = (
    await q
      .select()
      .from(deals)
      .where(and(eq(deals.companyId, ctx.company.id), eq(deals.id, id)))
      .limit(1)
  )[0];
  if (!row) throw notFound(`Deal ${id} not found in ${ctx.company.name}. Find deals with deals_list.`);
  return row;
}

export async function pipelineOf(q: Q, ctx: ActorContext, id: number) {
  const row = (
    await q
      .select()
      .from(pipelines)
      .where(and(eq(pipelines.companyId, ctx.company.id), eq(pipelines.id, id)))
      .limit(1)
  )[0];
  if (!row) throw notFound(`Pipeline ${id} not found in ${ctx.company.name}. See pipelines_list.`);
  return row;
}

export async function stagesOf(q: Q, pipelineId: number): Promise<StageRow[]> {
  return (await q.select().from(stages).where(eq(stages.pipelineId, pipelineId))).sort(
    (a, b) => a.position - b.position,
  );
}

/** A stage of the pipeline by id or name (case- and accent-insensitive). */
export function stageIn(list: StageRow[], ref: number | string, pipelineName: string): StageRow {
  const s = typeof ref === "number" ? list.find((x) => x.id === ref) : list.find((x) => fold(x.name) === fold(ref));
  if (!s)
    throw invalid(
      `Stage ${JSON.stringify(ref)} is not in pipeline "${pipelineName}"; its stages: ${list.map((x) => `${x.name} (${x.id})`).join(", ")}.`,
    );
  return s;
}

export const liveContact = (companyId: number) => and(eq(contacts.companyId, companyId), isNull(contacts.mergedIntoId));
export const liveCompany = (companyId: number) =>
  and(eq(crmCompanies.companyId, companyId), isNull(crmCompanies.mergedIntoId));

const URL_RE = /^https?:\/\/[^\s/$.?#][^\s]*$/i;

/**
 * Applies `patch` to `current` after checking every value against the
 * object's definitions; on create (`creating`) and after every update the
 * required fields must hold a value.
 */
export async function applyCustom(
  q: Q,
  ctx: ActorContext,
  object: CrmObject,
  current: CustomValues,
  patch: Record<string, unknown> | undefined,
  creating: boolean,
): Promise<CustomValues> {
  const defs = await q
    .select()
    .from(fieldDefs)
    .where(and(eq(fieldDefs.companyId, ctx.company.id), eq(fieldDefs.object, object)));
  if (!patch && !creating) return current;
  const out: CustomValues = { ...current };
  for (const [key, value] of Object.entries(patch ?? {})) {
    const d = defs.find((f) => f.key === key);
    if (!d)
      throw invalid(
        `custom.${key} is not a ${object} field${defs.length ? `; defined: ${defs.map((f) => f.key).join(", ")}` : ""}. Define it with crm_fields_create.`,
      );
    if (value === null) {
      delete out[key];
      continue;
    }
    out[key] = checkValue(d, value);
  }
  for (const d of defs)
    if (d.required && (out[d.key] === undefined || out[d.key] === ""))
      throw invalid(`custom.${d.key} (${d.label}) is required.`);
  return out;
}

export function checkValue(
  d: { key: string; type: string; options: string[] },
  value: unknown,
): string | number | boolean | string[] {
  const bad = (what: string) => invalid(`custom.${d.key} must be ${what}.`);
  switch (d.type) {
    case "text":
      if (typeof value !== "string") throw bad("text");
      return value;
    case "number":
      if (typeof value !== "number" || !Number.isFinite(value) || Math.abs(value) > 1e15) throw bad("a number");
      return value;
    case "boolean":
      if (typeof value !== "boolean") throw bad("true or false");
      return value;
    case "date": {
      if (typeof value !== "string" || !/^\d{4}-\d{2}-\d{2}$/.test(value)) throw bad("a date, YYYY-MM-DD");
      const t = new Date(`${value}T00:00:00Z`);
      if (Number.isNaN(t.getTime()) || t.toISOString().slice(0, 10) !== value) throw bad("a real date, YYYY-MM-DD");
      return value;
    }
    case "url":
      if (typeof value !== "string" || !URL_RE.test(value) || value.length > 2000) throw bad("an http(s) URL");
      return value;
    case "select":
      if (typeof value !== "string" || !d.options.includes(value)) throw bad(`one of ${d.options.join(", ")}`);
      return value;
    case "multi_select": {
      if (!Array.isArray(value) || value.some((x) => typeof x !== "string" || !d.options.includes(x)))
        throw bad(`a list of ${d.options.join(", ")}`);
      return [...new Set(value as string[])];
    }
  }
  throw bad("valid");
}

export function contactOut(
  c: ContactRow,
  x: {
    users: Map<number, { id: number; name: string | null; email: string }>;
    companies: Map<number, { id: number; name: string }>;
  },
) {
  return {
    id: c.id,
    name: fullName(c),
    firstName: c.firstName,
    lastName: c.lastName,
    email: c.emails[0] ?? null,
    emails: c.emails,
    phones: c.phones,
    jobTitle: c.jobTitle,
    company: c.crmCompanyId === null ? null : (x.companies.get(c.crmCompanyId) ?? null),
    owner: c.ownerId === null ? null : (x.users.get(c.ownerId) ?? null),
    lifecycleStage: c.lifecycleStage,
    tags: c.tags,
    score: c.score,
    custom: c.custom,
    createdAt: iso(c.createdAt)!,
    updatedAt: iso(c.updatedAt)!,
  };
}

export async function contactExtras(q: Q, rows: ContactRow[]) {
  const ids = [...new Set(rows.map((r) => r.crmCompanyId).filter((x): x is number => x !== null))];
  const companies = new Map<number, { id: number; name: string }>();
  if (ids.length)
    for (const r of await q
      .select({ id: crmCompanies.id, name: crmCompanies.name })
      .from(crmCompanies)
      .where(inArray(crmCompanies.id, ids)))
      companies.set(r.id, r);
  return {
    users: await usersById(
      q,
      rows.map((r) => r.ownerId),
    ),
    companies,
  };
}

export function companyOut(c: CompanyRow, u: Map<number, { id: number; name: string | null; email: string }>) {
  return {
    id: c.id,
    name: c.name,
    domain: c.domain,
    size: c.size,
    industry: c.industry,
    owner: c.ownerId === null ? null : (u.get(c.ownerId) ?? null),
    tags: c.tags,
    custom: c.custom,
    createdAt: iso(c.createdAt)!,
    updatedAt: iso(c.updatedAt)!,
  };
}

export const uniq = <T>(xs: T[]) => [...new Set(xs)];
export function editTags(current: string[], add?: string[], remove?: string[]): string[] {
  const s = new Set([...current, ...(add ?? [])]);
  for (const r of remove ?? []) s.delete(r);
  const out = [...s].sort();
  if (out.length > 30) throw invalid(`A record holds at most 30 tags; this would make ${out.length}.`);
  return out;
}

/** Conditions for `custom: { key: value }` list filters: equality; a list value means "has all of these options". */
export function customConds(col: SQLWrapper, filter: Record<string, unknown> | undefined): SQL[] {
  const out: SQL[] = [];
  for (const [key, want] of Object.entries(filter ?? {})) {
    if (!/^[A-Za-z0-9_]+$/.test(key)) throw invalid(`custom.${key} is no field key.`);
    const f = jsonFieldText(col, key);
    if (want === null) out.push(sql`${f} is null`);
    else if (typeof want === "boolean") out.push(inArray(f, want ? ["1", "true"] : ["0", "false"]));
    else if (Array.isArray(want))
      for (const o of want)
        out.push(sql`${f} like ${`%${JSON.stringify(String(o)).replace(/[\\%_]/g, (m) => `\\${m}`)}%`} escape '\\'`);
    else out.push(eq(f, String(want)));
  }
  return out;
}

/** A JSON list of tags holds `tag`, quotes included so "vip" is not found in "vips" (jsonContains takes it literally). */
export function hasTag(col: SQLWrapper, tag: string): SQL {
  return jsonContains(col, JSON.stringify(tag));
}
