/**
 * CRM companies (the organisations a tenant sells to): create (answering
 * with the existing one when the domain is known), read, list, update,
 * delete. The domain is normalised (https://www.Acme.com/x → acme.com) and
 * unique per tenant.
 */
import { and, asc, count, desc, eq, isNull, type SQL } from "drizzle-orm";
import type * as v from "valibot";
import { audit } from "../../core/audit";
import type { ActorContext } from "../../core/context";
import { conflict, invalid } from "../../core/errors";
import { emit } from "../../core/events";
import { page } from "../../core/pagination";
import {
  applyCustom,
  companyOf,
  companyOut,
  companySearch,
  crmRead,
  crmWrite,
  customConds,
  editTags,
  hasTag,
  liveCompany,
  memberOf,
  normaliseDomain,
  uniq,
  userFilter,
  usersById,
  type CompanyRow,
} from "./access";
import { searchCond } from "./contacts";
import { crmCompanyChanged } from "./events";
import type { companyCreateInput, companyListInput, companyUpdateInput } from "./schemas";
import { activities, contacts, crmCompanies, deals, stages } from "./tables";
import { withView } from "./views";

function domainOf(raw: string | null | undefined): string | null {
  if (raw === undefined || raw === null || raw === "") return null;
  const d = normaliseDomain(raw);
  if (!d) throw invalid(`domain ${JSON.stringify(raw.slice(0, 100))} is not a host name like acme.com.`);
  return d;
}

export async function createCompany(ctx: ActorContext, input: v.InferOutput<typeof companyCreateInput>) {
  crmWrite(ctx);
  const domain = domainOf(input.domain);
  return ctx.deps.db.transaction(async (tx) => {
    if (domain) {
      const existing = (
        await tx
          .select()
          .from(crmCompanies)
          .where(and(eq(crmCompanies.companyId, ctx.company.id), eq(crmCompanies.domain, domain)))
          .limit(1)
      )[0];
      if (existing)
        return {
          id: existing.id,
          created: false,
          duplicate: { matchedOn: "domain", value: domain },
          note: `${domain} belongs to company ${existing.id} (${existing.name}); nothing was created.`,
          company: companyOut(existing, await usersById(tx, [existing.ownerId])),
        };
    }
    const now = ctx.deps.clock.now();
    const ownerId = input.ownerId !== undefined ? await memberOf(tx, ctx, input.ownerId) : null;
    const custom = await applyCustom(tx, ctx, "company", {}, input.custom, true);
    const row = (
      await tx
        .insert(crmCompanies)
        .values({
          companyId: ctx.company.id,
          name: input.name,
          domain,
          size: input.size ?? null,
          industry: input.industry ?? null,
          ownerId,
          tags: uniq(input.tags ?? []).sort(),
          custom,
          search: companySearch({ name: input.name, domain }),
          createdAt: now,
          updatedAt: now,
        })
        .returning()
    )[0]!;
    await audit(tx, ctx, "crm.company_create", { type: "crm_company", id: row.id });
    await emit(
      tx,
      ctx,
      crmCompanyChanged,
      { id: row.id },
      { action: "created", name: row.name, domain, ownerUserId: ownerId, changed: [] },
    );
    return { id: row.id, created: true, name: row.name, domain };
  });
}

export async function getCompany(ctx: ActorContext, input: { id: number | string }) {
  crmRead(ctx);
  const db = ctx.deps.db;
  const c = await companyOf(db, ctx, input.id);
  const people = await db
    .select({
      id: contacts.id,
      firstName: contacts.firstName,
      lastName: contacts.lastName,
      emails: contacts.emails,
      jobTitle: contacts.jobTitle,
    })
    .from(contacts)
    .where(and(eq(contacts.crmCompanyId, c.id), isNull(contacts.mergedIntoId)))
    .orderBy(asc(contacts.id))
    .limit(50);
  const dealRows = await db
    .select({
      id: deals.id,
      name: deals.name,
      amountCents: deals.amountCents,
      currency: deals.currency,
      stage: stages.name,
      status: stages.kind,
    })
    .from(deals)
    .innerJoin(stages, eq(stages.id, deals.stageId))
    .where(eq(deals.crmCompanyId, c.id))
    .orderBy(desc(deals.updatedAt))
    .limit(50);
  const contactsTotal = (
    await db
      .select({ n: count() })
      .from(contacts)
      .where(and(eq(contacts.crmCompanyId, c.id), isNull(contacts.mergedIntoId)))
  )[0]!.n;
  return {
    ...companyOut(c, await usersById(db, [c.ownerId])),
    contactsTotal,
    contacts: people.map((p) => ({
      id: p.id,
      name: [p.firstName, p.lastName].filter(Boolean).join(" ") || p.emails[0] || null,
      email: p.emails[0] ?? null,
      jobTitle: p.jobTitle,
    })),
    deals: dealRows,
  };
}

export async function listCompanies(ctx: ActorContext, raw: v.InferOutput<typeof companyListInput>) {
  crmRead(ctx);
  const db = ctx.deps.db;
  const input = await withView(db, ctx, "company", raw);
  const where: (SQL | undefined)[] = [liveCompany(ctx.company.id)];
  if (input.q !== undefined) where.push(searchCond(crmCompanies.search, input.q));
  if (input.ownerId !== undefined) where.push(eq(crmCompanies.ownerId, await userFilter(db, ctx, input.ownerId)));
  if (input.industry !== undefined) where.push(eq(crmCompanies.industry, input.industry));
  if (input.size !== undefined) where.push(eq(crmCompanies.size, input.size));
  if (input.tag !== undefined) where.push(hasTag(crmCompanies.tags, input.tag));
  where.push(...customConds(crmCompanies.custom, input.custom));
  const cond = and(...where);
  const total = (await db.select({ n: count() }).from(crmCompanies).where(cond))[0]!.n;
  const order =
    input.sort === "created"
      ? [desc(crmCompanies.createdAt), desc(crmCompanies.id)]
      : input.sort === "name"
        ? [asc(crmCompanies.search), asc(crmCompanies.id)]
        : [desc(crmCompanies.updatedAt), desc(crmCompanies.id)];
  const rows = await db
    .select()
    .from(crmCompanies)
    .where(cond)
    .orderBy(...order)
    .limit(input.limit)
    .offset(input.offset);
  const u = await usersById(
    db,
    rows.map((r) => r.ownerId),
  );
  return page(
    rows.map((r) => companyOut(r, u)),
    total,
    input.limit,
    input.offset,
  );
}

export async function updateCompany(ctx: ActorContext, input: v.InferOutput<typeof companyUpdateInput>) {
  crmWrite(ctx);
  return ctx.deps.db.transaction(async (tx) => {
    const c = await companyOf(tx, ctx, input.id);
    const set: Partial<CompanyRow> = {};
    const changed: string[] = [];
    if (input.name !== undefined && input.name !== c.name) (set.name = input.name), changed.push("name");
    if (input.domain !== undefined) {
      const d = domainOf(input.domain);
      if (d !== c.domain) {
        if (d) {
          const other = (
            await tx
              .select({ id: crmCompanies.id, name: crmCompanies.name })
              .from(crmCompanies)
              .where(and(eq(crmCompanies.companyId, ctx.company.id), eq(crmCompanies.domain, d)))
              .limit(1)
          )[0];
          if (other)
            throw conflict(
              `${d} belongs to company ${other.id} (${other.name}); merge the two with crm_companies_merge.`,
              { companyId: other.id },
            );
        }
        set.domain = d;
        changed.push("domain");
      }
    }
    for (const k of ["size", "industry"] as const)
      if (input[k] !== undefined && input[k] !== c[k]) {
        set[k] = input[k] as string | null;
        changed.push(k);
      }
    if (input.ownerId !== undefined) {
      const id = input.ownerId === null ? null : await memberOf(tx, ctx, input.ownerId);
      if (id !== c.ownerId) (set.ownerId = id), changed.push("ownerId");
    }
    if (input.addTags || input.removeTags) {
      const t = editTags(c.tags, input.addTags, input.removeTags);
      if (t.join() !== c.tags.join()) (set.tags = t), changed.push("tags");
    }
    if (input.custom) {
      const next = await applyCustom(tx, ctx, "company", c.custom, input.custom, false);
      for (const k of uniq([...Object.keys(next), ...Object.keys(c.custom)]))
        if (JSON.stringify(next[k]) !== JSON.stringify(c.custom[k])) changed.push(`custom.${k}`);
      set.custom = next;
    }
    if (!changed.length) return { id: c.id, changed };
    const next = { ...c, ...set };
    await tx
      .update(crmCompanies)
      .set({ ...set, search: companySearch(next), updatedAt: ctx.deps.clock.now() })
      .where(eq(crmCompanies.id, c.id));
    await audit(tx, ctx, "crm.company_update", { type: "crm_company", id: c.id, detail: { changed } });
    await emit(
      tx,
      ctx,
      crmCompanyChanged,
      { id: c.id },
      { action: "updated", name: next.name, domain: next.domain, ownerUserId: next.ownerId, changed },
    );
    return { id: c.id, changed };
  });
}

export async function deleteCompany(ctx: ActorContext, input: { id: number | string }) {
  crmWrite(ctx);
  return ctx.deps.db.transaction(async (tx) => {
    const c = await companyOf(tx, ctx, input.id);
    const linked = (await tx.select({ n: count() }).from(contacts).where(eq(contacts.crmCompanyId, c.id)))[0]!.n;
    await tx
      .delete(activities)
      .where(and(eq(activities.crmCompanyId, c.id), isNull(activities.dealId), isNull(activities.contactId)));
    await tx
      .delete(crmCompanies)
      .where(and(eq(crmCompanies.companyId, ctx.company.id), eq(crmCompanies.mergedIntoId, c.id)));
    await tx.delete(crmCompanies).where(eq(crmCompanies.id, c.id));
    await audit(tx, ctx, "crm.company_delete", {
      type: "crm_company",
      id: c.id,
      detail: { name: c.name, domain: c.domain },
    });
    await emit(
      tx,
      ctx,
      crmCompanyChanged,
      { id: c.id },
      { action: "deleted", name: c.name, domain: c.domain, ownerUserId: c.ownerId, changed: [] },
    );
    return { id: c.id, status: "deleted", name: c.name, contactsUnlinked: linked };
  });
}
