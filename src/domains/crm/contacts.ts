/**
 * Contacts: create (answering with the existing contact when an address is
 * already known), read, list (filters, saved views), update, delete.
 *
 * Addresses live twice: on the row (emails, primary first) and in
 * crm_contact_emails under a unique (company, email) key, written in the
 * same transaction. That key is what makes a racing second create of the
 * same address answer with the first contact instead of duplicating it.
 *
 * @public Serves brain (its CRM lookups list and read contacts with the CRM's
 * verbs).
 */
import { and, asc, count, desc, eq, inArray, isNull, sql, type SQL, type SQLWrapper } from "drizzle-orm";
import type * as v from "valibot";
import { audit } from "../../core/audit";
import type { ActorContext } from "../../core/context";
import type { Db } from "../../core/db";
import { conflict, invalid } from "../../core/errors";
import { emit } from "../../core/events";
import { page } from "../../core/pagination";
import {
  applyCustom,
  companyOf,
  contactExtras,
  contactOf,
  contactOut,
  contactSearch,
  crmRead,
  crmWrite,
  customConds,
  editTags,
  emailDomain,
  fold,
  FREE_MAIL,
  fullName,
  hasTag,
  liveContact,
  memberOf,
  phoneDigits,
  uniq,
  userFilter,
  type ContactRow,
  type Q,
} from "./access";
import { contactCreated, contactDeleted, contactUpdated } from "./events";
import type { contactCreateInput, contactListInput, contactUpdateInput } from "./schemas";
import { rescore, rulesOf, scoreOf } from "./scoring";
import { activities, contactEmails, contacts, crmCompanies, dealContacts, deals, stages, type Phone } from "./tables";
import { withView } from "./views";

export const toPhones = (list: Phone[] | undefined): Phone[] => list ?? [];

/** The live contact holding any of these addresses, if one does. */
export async function contactByEmails(
  q: Q,
  companyId: number,
  emails: string[],
): Promise<{ contactId: number; email: string } | null> {
  if (!emails.length) return null;
  return (
    (
      await q
        .select({ contactId: contactEmails.contactId, email: contactEmails.email })
        .from(contactEmails)
        .where(and(eq(contactEmails.companyId, companyId), inArray(contactEmails.email, emails)))
        .limit(1)
    )[0] ?? null
  );
}

export type NewContact = v.InferOutput<typeof contactCreateInput>;

/**
 * Inserts a contact in `tx` after the caller checked for duplicates. A
 * company is linked from the primary address's domain when none is given
 * and a CRM company has that domain (not for webmail).
 */
export async function insertContact(
  tx: Db,
  ctx: ActorContext,
  input: NewContact,
  source: "tool" | "import",
): Promise<ContactRow> {
  const now = ctx.deps.clock.now();
  const emails = uniq(input.emails ?? []);
  const phones = toPhones(input.phones);
  let crmCompanyId: number | null =
    input.companyId !== undefined ? (await companyOf(tx, ctx, input.companyId, "companyId")).id : null;
  if (crmCompanyId === null && emails[0] && !FREE_MAIL.has(emailDomain(emails[0]))) {
    crmCompanyId =
      (
        await tx
          .select({ id: crmCompanies.id })
          .from(crmCompanies)
          .where(and(eq(crmCompanies.companyId, ctx.company.id), eq(crmCompanies.domain, emailDomain(emails[0]))))
          .limit(1)
      )[0]?.id ?? null;
  }
  const ownerId = input.ownerId !== undefined ? await memberOf(tx, ctx, input.ownerId) : null;
  const custom = await applyCustom(tx, ctx, "contact", {}, input.custom, true);
  const base = { firstName: input.firstName ?? null, lastName: input.lastName ?? null, emails, phones };
  const row = (
    await tx
      .insert(contacts)
      .values({
        companyId: ctx.company.id,
        ...base,
        jobTitle: input.jobTitle ?? null,
        crmCompanyId,
        ownerId,
        lifecycleStage: input.lifecycleStage ?? "lead",
        tags: uniq(input.tags ?? []).sort(),
        custom,
        score: 0,
        search: contactSearch(base),
        createdAt: now,
        updatedAt: now,
      })
      .returning()
  )[0]!;
  if (emails.length)
    await tx
      .insert(contactEmails)
      .values(emails.map((email) => ({ companyId: ctx.company.id, email, contactId: row.id })));
  await audit(tx, ctx, "crm.contact_create", { type: "contact", id: row.id, detail: { source } });
  await emit(
    tx,
    ctx,
    contactCreated,
    { id: row.id },
    {
      name: fullName(row),
      emails,
      companyId: crmCompanyId,
      ownerUserId: ownerId,
      lifecycleStage: row.lifecycleStage,
      tags: row.tags,
      source,
    },
  );
  await rescore(tx, ctx, ctx.company.id, [row.id]);
  return (await tx.select().from(contacts).where(eq(contacts.id, row.id)))[0]!;
}

export async function createContact(ctx: ActorContext, input: NewContact) {
  crmWrite(ctx);
  if (!input.firstName && !input.lastName && !input.emails?.length)
    throw invalid("A contact needs a name or an email address.");
  return ctx.deps.db.transaction(async (tx) => {
    const dup = await contactByEmails(tx, ctx.company.id, uniq(input.emails ?? []));
    if (dup) {
      const existing = await contactOf(tx, ctx, dup.contactId);
      return {
        id: existing.id,
        created: false,
        duplicate: { matchedOn: "email", value: dup.email },
        note: `${dup.email} belongs to contact ${existing.id}; nothing was created. Change it with contacts_update or merge with contacts_merge.`,
        contact: contactOut(existing, await contactExtras(tx, [existing])),
      };
    }
    const row = await insertContact(tx, ctx, input, "tool");
    return {
      id: row.id,
      created: true,
      name: fullName(row),
      email: row.emails[0] ?? null,
      companyId: row.crmCompanyId,
      score: row.score,
    };
  });
}

export async function getContact(ctx: ActorContext, input: { id: number | string }) {
  crmRead(ctx);
  const db = ctx.deps.db;
  const c = await contactOf(db, ctx, input.id);
  const [x, dealRows, rules, acts, openTasks] = [
    await contactExtras(db, [c]),
    await db
      .select({
        id: deals.id,
        name: deals.name,
        amountCents: deals.amountCents,
        currency: deals.currency,
        stage: stages.name,
        status: stages.kind,
      })
      .from(dealContacts)
      .innerJoin(deals, eq(deals.id, dealContacts.dealId))
      .innerJoin(stages, eq(stages.id, deals.stageId))
      .where(eq(dealContacts.contactId, c.id))
      .orderBy(desc(deals.updatedAt)),
    await rulesOf(db, ctx.company.id),
    await db
      .select({ kind: activities.kind, occurredAt: activities.occurredAt })
      .from(activities)
      .where(eq(activities.contactId, c.id)),
    (
      await db
        .select({ n: count() })
        .from(activities)
        .where(and(eq(activities.contactId, c.id), eq(activities.kind, "task"), sql`${activities.completedAt} is null`))
    )[0]!.n,
  ];
  return {
    ...contactOut(c, x),
    deals: dealRows,
    openTasks,
    scoreBreakdown: scoreOf(c, rules, acts, ctx.deps.clock.now()).breakdown,
  };
}

export async function listContacts(ctx: ActorContext, raw: v.InferOutput<typeof contactListInput>) {
  crmRead(ctx);
  const db = ctx.deps.db;
  const input = await withView(db, ctx, "contact", raw);
  const where: (SQL | undefined)[] = [liveContact(ctx.company.id)];
  if (input.q !== undefined) where.push(searchCond(contacts.search, input.q));
  if (input.companyId !== undefined)
    where.push(eq(contacts.crmCompanyId, (await companyOf(db, ctx, input.companyId, "companyId")).id));
  if (input.ownerId !== undefined) where.push(eq(contacts.ownerId, await userFilter(db, ctx, input.ownerId)));
  if (input.lifecycleStage !== undefined) where.push(eq(contacts.lifecycleStage, input.lifecycleStage));
  if (input.tag !== undefined) where.push(hasTag(contacts.tags, input.tag));
  if (input.minScore !== undefined) where.push(sql`${contacts.score} >= ${input.minScore}`);
  where.push(...customConds(contacts.custom, input.custom));
  const cond = and(...where);
  const total = (await db.select({ n: count() }).from(contacts).where(cond))[0]!.n;
  const order =
    input.sort === "created"
      ? [desc(contacts.createdAt), desc(contacts.id)]
      : input.sort === "name"
        ? [asc(contacts.search), asc(contacts.id)]
        : input.sort === "score"
          ? [desc(contacts.score), desc(contacts.id)]
          : [desc(contacts.updatedAt), desc(contacts.id)];
  const rows = await db
    .select()
    .from(contacts)
    .where(cond)
    .orderBy(...order)
    .limit(input.limit)
    .offset(input.offset);
  const x = await contactExtras(db, rows);
  return page(
    rows.map((r) => contactOut(r, x)),
    total,
    input.limit,
    input.offset,
  );
}

/**
 * Every word of `q` (folded) appears in the search text; phone-like words
 * match by digits. The column is folded already, so a plain LIKE does (no
 * lower() per row), and an index on it can be scanned instead of the table.
 */
export function searchCond(col: SQLWrapper, q: string): SQL {
  const like = (needle: string) => sql`${col} like ${`%${needle.replace(/[\\%_]/g, (m) => `\\${m}`)}%`} escape '\\'`;
  const phoneLike = /^[+\d\s().-]+$/.test(q) && q.replace(/\D/g, "").length >= 4;
  if (phoneLike) return like(phoneDigits(q));
  const words = fold(q).split(" ").filter(Boolean).slice(0, 8);
  return and(...words.map(like))!;
}

export async function updateContact(ctx: ActorContext, input: v.InferOutput<typeof contactUpdateInput>) {
  crmWrite(ctx);
  return ctx.deps.db.transaction(async (tx) => {
    const c = await contactOf(tx, ctx, input.id);
    const changed: string[] = [];
    const set: Partial<typeof contacts.$inferInsert> = {};
    for (const k of ["firstName", "lastName", "jobTitle"] as const)
      if (input[k] !== undefined && input[k] !== c[k]) {
        set[k] = input[k];
        changed.push(k);
      }
    let emails = c.emails;
    if (input.addEmails || input.removeEmails || input.primaryEmail) {
      const adding = uniq([
        ...(input.addEmails ?? []),
        ...(input.primaryEmail && !c.emails.includes(input.primaryEmail) ? [input.primaryEmail] : []),
      ]).filter((e) => !c.emails.includes(e));
      const taken = await contactByEmails(tx, ctx.company.id, adding);
      if (taken)
        throw conflict(`${taken.email} belongs to contact ${taken.contactId}; merge the two with contacts_merge.`, {
          contactId: taken.contactId,
        });
      emails = uniq([...c.emails, ...adding]).filter((e) => !(input.removeEmails ?? []).includes(e));
      if (input.primaryEmail) emails = [input.primaryEmail, ...emails.filter((e) => e !== input.primaryEmail)];
      if (emails.length > 10) throw invalid("A contact holds at most 10 email addresses.");
      if (emails.join() !== c.emails.join()) {
        const gone = c.emails.filter((e) => !emails.includes(e));
        if (gone.length)
          await tx
            .delete(contactEmails)
            .where(and(eq(contactEmails.companyId, ctx.company.id), inArray(contactEmails.email, gone)));
        if (adding.length)
          await tx
            .insert(contactEmails)
            .values(adding.map((email) => ({ companyId: ctx.company.id, email, contactId: c.id })));
        set.emails = emails;
        changed.push("emails");
      }
    }
    if (input.phones !== undefined) {
      set.phones = toPhones(input.phones);
      changed.push("phones");
    }
    if (input.companyId !== undefined) {
      const id = input.companyId === null ? null : (await companyOf(tx, ctx, input.companyId, "companyId")).id;
      if (id !== c.crmCompanyId) {
        set.crmCompanyId = id;
        changed.push("companyId");
      }
    }
    if (input.ownerId !== undefined) {
      const id = input.ownerId === null ? null : await memberOf(tx, ctx, input.ownerId);
      if (id !== c.ownerId) {
        set.ownerId = id;
        changed.push("ownerId");
      }
    }
    if (input.lifecycleStage !== undefined && input.lifecycleStage !== c.lifecycleStage) {
      set.lifecycleStage = input.lifecycleStage;
      changed.push("lifecycleStage");
    }
    if (input.addTags || input.removeTags) {
      const t = editTags(c.tags, input.addTags, input.removeTags);
      if (t.join() !== c.tags.join()) {
        set.tags = t;
        changed.push("tags");
      }
    }
    if (input.custom) {
      const next = await applyCustom(tx, ctx, "contact", c.custom, input.custom, false);
      for (const k of uniq([...Object.keys(next), ...Object.keys(c.custom)]))
        if (JSON.stringify(next[k]) !== JSON.stringify(c.custom[k])) changed.push(`custom.${k}`);
      set.custom = next;
    }
    if (!changed.length) return { id: c.id, changed: [] as string[] };
    const merged = { ...c, ...set } as ContactRow;
    const row = (
      await tx
        .update(contacts)
        .set({ ...set, search: contactSearch(merged), updatedAt: ctx.deps.clock.now() })
        .where(eq(contacts.id, c.id))
        .returning()
    )[0]!;
    await audit(tx, ctx, "crm.contact_update", { type: "contact", id: c.id, detail: { changed } });
    await emit(
      tx,
      ctx,
      contactUpdated,
      { id: c.id },
      {
        name: fullName(row),
        emails: row.emails,
        companyId: row.crmCompanyId,
        ownerUserId: row.ownerId,
        lifecycleStage: row.lifecycleStage,
        changed,
        previousOwnerUserId: c.ownerId,
        previousLifecycleStage: c.lifecycleStage,
      },
    );
    await rescore(tx, ctx, ctx.company.id, [c.id]);
    const score = (await tx.select({ s: contacts.score }).from(contacts).where(eq(contacts.id, c.id)))[0]!.s;
    return { id: c.id, changed, score };
  });
}

export async function deleteContact(ctx: ActorContext, input: { id: number | string }) {
  crmWrite(ctx);
  return ctx.deps.db.transaction(async (tx) => {
    const c = await contactOf(tx, ctx, input.id);
    // Contacts merged into this one go with it: their merges can no longer be undone.
    await tx.delete(contacts).where(and(eq(contacts.companyId, ctx.company.id), eq(contacts.mergedIntoId, c.id)));
    await tx
      .delete(activities)
      .where(and(eq(activities.contactId, c.id), isNull(activities.dealId), isNull(activities.crmCompanyId)));
    await tx.delete(contacts).where(eq(contacts.id, c.id));
    await audit(tx, ctx, "crm.contact_delete", {
      type: "contact",
      id: c.id,
      detail: { name: fullName(c), emails: c.emails },
    });
    await emit(tx, ctx, contactDeleted, { id: c.id }, { name: fullName(c), emails: c.emails });
    return { id: c.id, status: "deleted", name: fullName(c) };
  });
}
