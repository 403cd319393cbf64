/**
 * Activities (notes, calls, meetings, tasks) on contacts, CRM companies
 * and deals; the timeline of a record; search across the three.
 *
 * The timeline mixes, newest first: the record's activities (for a company
 * also its contacts' and deals'), its deals' stage moves, merges into it,
 * support tickets whose requester is one of the contact's addresses
 * (read through the tickets domain's own list, so a credential without
 * tickets:read simply sees none, and says so), and the email domain's
 * record of mail to those addresses — delivered, opened, clicked, bounced,
 * complained, unsubscribed (email/timeline.ts; email:read, likewise).
 */
import { and, asc, count, desc, eq, inArray, isNotNull, isNull, lte, or, type SQL } from "drizzle-orm";
import type * as v from "valibot";
import { audit } from "../../core/audit";
import { iso } from "../../core/clock";
import type { ActorContext } from "../../core/context";
import { invalid, isAppError, notFound } from "../../core/errors";
import { emit } from "../../core/events";
import { page } from "../../core/pagination";
import { emailTimeline } from "../email/timeline";
import { listTickets } from "../tickets/tickets";
import {
  companyOf,
  contactOf,
  crmRead,
  crmWrite,
  dealOf,
  fullName,
  liveCompany,
  liveContact,
  memberOf,
  uniq,
  userFilter,
  usersById,
  type Q,
} from "./access";
import { searchCond } from "./contacts";
import { crmActivityChanged } from "./events";
import type {
  activityCreateInput,
  activityListInput,
  activityUpdateInput,
  searchInput,
  timelineInput,
} from "./schemas";
import { rescore } from "./scoring";
import { activities, contacts, crmCompanies, dealContacts, deals, merges, stageMoves, stages } from "./tables";

type Row = typeof activities.$inferSelect;

function out(a: Row, u: Map<number, { id: number; name: string | null; email: string }>) {
  return {
    id: a.id,
    kind: a.kind,
    subject: a.subject,
    body: a.body,
    contactId: a.contactId,
    companyId: a.crmCompanyId,
    dealId: a.dealId,
    occurredAt: iso(a.occurredAt)!,
    dueAt: iso(a.dueAt),
    completedAt: iso(a.completedAt),
    durationMinutes: a.durationMinutes,
    owner: a.ownerId === null ? null : (u.get(a.ownerId) ?? null),
    createdByUserId: a.byUserId,
  };
}

const payload = (a: Row, action: "created" | "updated" | "completed" | "reopened" | "deleted") => ({
  action,
  kind: a.kind,
  subject: a.subject,
  contactId: a.contactId,
  companyId: a.crmCompanyId,
  dealId: a.dealId,
  dueAt: iso(a.dueAt),
  ownerUserId: a.ownerId,
});

export async function createActivity(ctx: ActorContext, input: v.InferOutput<typeof activityCreateInput>) {
  crmWrite(ctx);
  if (input.contactId === undefined && input.companyId === undefined && input.dealId === undefined)
    throw invalid("An activity is on a contactId, companyId or dealId (one or more).");
  if (input.kind === "task" && !input.subject) throw invalid("A task needs a subject.");
  if (input.kind !== "task" && (input.dueAt !== undefined || input.completed !== undefined))
    throw invalid("dueAt and completed are for tasks.");
  if (input.kind === "note" && !input.body) throw invalid("A note needs a body.");
  return ctx.deps.db.transaction(async (tx) => {
    const now = ctx.deps.clock.now();
    const contact = input.contactId !== undefined ? await contactOf(tx, ctx, input.contactId, "contactId") : null;
    const company = input.companyId !== undefined ? await companyOf(tx, ctx, input.companyId, "companyId") : null;
    const deal = input.dealId !== undefined ? await dealOf(tx, ctx, input.dealId) : null;
    const occurredAt = input.occurredAt ? new Date(input.occurredAt) : now;
    const row = (
      await tx
        .insert(activities)
        .values({
          companyId: ctx.company.id,
          kind: input.kind,
          subject: input.subject ?? null,
          body: input.body ?? null,
          contactId: contact?.id ?? null,
          crmCompanyId: company?.id ?? null,
          dealId: deal?.id ?? null,
          occurredAt,
          dueAt: input.dueAt ? new Date(input.dueAt) : null,
          completedAt: input.completed ? now : null,
          durationMinutes: input.durationMinutes ?? null,
          ownerId: input.ownerId !== undefined ? await memberOf(tx, ctx, input.ownerId) : ctx.principal.userId,
          byUserId: ctx.principal.userId,
          createdAt: now,
        })
        .returning()
    )[0]!;
    await audit(tx, ctx, "crm.activity_create", { type: "crm_activity", id: row.id });
    await emit(tx, ctx, crmActivityChanged, { id: row.id }, payload(row, "created"));
    if (contact) await rescore(tx, ctx, ctx.company.id, [contact.id]);
    return {
      id: row.id,
      kind: row.kind,
      occurredAt: iso(row.occurredAt),
      dueAt: iso(row.dueAt),
      completedAt: iso(row.completedAt),
    };
  });
}

async function activityOf(q: Q, ctx: ActorContext, id: number): Promise<Row> {
  const r = (
    await q
      .select()
      .from(activities)
      .where(and(eq(activities.companyId, ctx.company.id), eq(activities.id, id)))
      .limit(1)
  )[0];
  if (!r) throw notFound(`Activity ${id} not found in ${ctx.company.name}.`);
  return r;
}

export async function updateActivity(ctx: ActorContext, input: v.InferOutput<typeof activityUpdateInput>) {
  crmWrite(ctx);
  return ctx.deps.db.transaction(async (tx) => {
    const a = await activityOf(tx, ctx, input.id);
    if (a.kind !== "task" && (input.dueAt !== undefined || input.completed !== undefined))
      throw invalid("dueAt and completed are for tasks.");
    const set: Partial<Row> = {};
    if (input.subject !== undefined) set.subject = input.subject;
    if (input.body !== undefined) set.body = input.body;
    if (input.dueAt !== undefined) set.dueAt = input.dueAt === null ? null : new Date(input.dueAt);
    if (input.durationMinutes !== undefined) set.durationMinutes = input.durationMinutes;
    if (input.ownerId !== undefined)
      set.ownerId = input.ownerId === null ? null : await memberOf(tx, ctx, input.ownerId);
    let action: "updated" | "completed" | "reopened" = "updated";
    if (input.completed === true && a.completedAt === null)
      (set.completedAt = ctx.deps.clock.now()), (action = "completed");
    if (input.completed === false && a.completedAt !== null) (set.completedAt = null), (action = "reopened");
    if (a.kind === "task" && set.subject === null) throw invalid("A task needs a subject.");
    if (!Object.keys(set).length) return { id: a.id, unchanged: true };
    const row = (await tx.update(activities).set(set).where(eq(activities.id, a.id)).returning())[0]!;
    await audit(
      tx,
      ctx,
      `crm.activity_${action === "updated" ? "update" : action === "completed" ? "complete" : "reopen"}`,
      { type: "crm_activity", id: a.id },
    );
    await emit(tx, ctx, crmActivityChanged, { id: a.id }, payload(row, action));
    return { id: a.id, action, dueAt: iso(row.dueAt), completedAt: iso(row.completedAt) };
  });
}

export async function deleteActivity(ctx: ActorContext, input: { id: number }) {
  crmWrite(ctx);
  return ctx.deps.db.transaction(async (tx) => {
    const a = await activityOf(tx, ctx, input.id);
    await tx.delete(activities).where(eq(activities.id, a.id));
    await audit(tx, ctx, "crm.activity_delete", { type: "crm_activity", id: a.id });
    await emit(tx, ctx, crmActivityChanged, { id: a.id }, payload(a, "deleted"));
    if (a.contactId) await rescore(tx, ctx, ctx.company.id, [a.contactId]);
    return { id: a.id, status: "deleted" };
  });
}

export async function listActivities(ctx: ActorContext, input: v.InferOutput<typeof activityListInput>) {
  crmRead(ctx);
  const db = ctx.deps.db;
  const where: (SQL | undefined)[] = [eq(activities.companyId, ctx.company.id)];
  if (input.contactId !== undefined)
    where.push(eq(activities.contactId, (await contactOf(db, ctx, input.contactId, "contactId")).id));
  if (input.companyId !== undefined)
    where.push(eq(activities.crmCompanyId, (await companyOf(db, ctx, input.companyId, "companyId")).id));
  if (input.dealId !== undefined) where.push(eq(activities.dealId, (await dealOf(db, ctx, input.dealId)).id));
  if (input.kind !== undefined) where.push(eq(activities.kind, input.kind));
  if (input.openTasks) where.push(and(eq(activities.kind, "task"), isNull(activities.completedAt)));
  if (input.dueBefore !== undefined)
    where.push(and(isNotNull(activities.dueAt), lte(activities.dueAt, new Date(input.dueBefore))));
  if (input.ownerId !== undefined) where.push(eq(activities.ownerId, await userFilter(db, ctx, input.ownerId)));
  const cond = and(...where);
  const total = (await db.select({ n: count() }).from(activities).where(cond))[0]!.n;
  // Open task lists read soonest-due first; everything else newest first.
  const order =
    input.openTasks || input.dueBefore
      ? [asc(activities.dueAt), asc(activities.id)]
      : [desc(activities.occurredAt), desc(activities.id)];
  const rows = await db
    .select()
    .from(activities)
    .where(cond)
    .orderBy(...order)
    .limit(input.limit)
    .offset(input.offset);
  const u = await usersById(
    db,
    rows.map((r) => r.ownerId),
  );
  return page(
    rows.map((r) => out(r, u)),
    total,
    input.limit,
    input.offset,
  );
}

/** Items per source read for a timeline page: enough for offset + limit of the mix. */
const cap = (input: { limit: number; offset: number }) => Math.min(input.offset + input.limit, 1000);

export async function timeline(ctx: ActorContext, input: v.InferOutput<typeof timelineInput>) {
  crmRead(ctx);
  const db = ctx.deps.db;
  const given = [input.contactId, input.companyId, input.dealId].filter((x) => x !== undefined).length;
  if (given !== 1) throw invalid("Give exactly one of contactId, companyId or dealId.");
  const n = cap(input);
  type Item = { at: string; type: string; [k: string]: unknown };
  const items: Item[] = [];
  let actCond: SQL;
  let dealIds: number[] = [];
  let emails: string[] = [];
  let mergeCond: SQL | undefined;
  let subject: Record<string, unknown>;
  if (input.contactId !== undefined) {
    const c = await contactOf(db, ctx, input.contactId, "contactId");
    subject = { type: "contact", id: c.id, name: fullName(c) };
    actCond = eq(activities.contactId, c.id);
    dealIds = (
      await db.select({ id: dealContacts.dealId }).from(dealContacts).where(eq(dealContacts.contactId, c.id))
    ).map((r) => r.id);
    emails = c.emails;
    mergeCond = and(eq(merges.object, "contact"), eq(merges.survivorId, c.id));
    items.push({ at: iso(c.createdAt)!, type: "created" });
  } else if (input.companyId !== undefined) {
    const co = await companyOf(db, ctx, input.companyId, "companyId");
    subject = { type: "company", id: co.id, name: co.name };
    const people = await db
      .select({ id: contacts.id, emails: contacts.emails })
      .from(contacts)
      .where(and(liveContact(ctx.company.id), eq(contacts.crmCompanyId, co.id)))
      .limit(200);
    dealIds = (await db.select({ id: deals.id }).from(deals).where(eq(deals.crmCompanyId, co.id))).map((r) => r.id);
    actCond = or(
      eq(activities.crmCompanyId, co.id),
      people.length
        ? inArray(
            activities.contactId,
            people.map((p) => p.id),
          )
        : undefined,
      dealIds.length ? inArray(activities.dealId, dealIds) : undefined,
    )!;
    emails = uniq(people.flatMap((p) => p.emails)).slice(0, 20);
    mergeCond = and(eq(merges.object, "company"), eq(merges.survivorId, co.id));
    items.push({ at: iso(co.createdAt)!, type: "created" });
  } else {
    const d = await dealOf(db, ctx, input.dealId!);
    subject = { type: "deal", id: d.id, name: d.name };
    actCond = eq(activities.dealId, d.id);
    dealIds = [d.id];
  }
  const acts = await db
    .select()
    .from(activities)
    .where(and(eq(activities.companyId, ctx.company.id), actCond))
    .orderBy(desc(activities.occurredAt), desc(activities.id))
    .limit(n);
  const u = await usersById(
    db,
    acts.map((a) => a.ownerId),
  );
  for (const a of acts) items.push({ at: iso(a.occurredAt)!, type: a.kind, activity: out(a, u) });
  if (dealIds.length) {
    const moves = await db
      .select({
        dealId: stageMoves.dealId,
        name: deals.name,
        from: stageMoves.fromStage,
        to: stageMoves.toStage,
        by: stageMoves.byUserId,
        at: stageMoves.at,
      })
      .from(stageMoves)
      .innerJoin(deals, eq(deals.id, stageMoves.dealId))
      .where(inArray(stageMoves.dealId, dealIds.slice(0, 500)))
      .orderBy(desc(stageMoves.at))
      .limit(n);
    for (const m of moves)
      items.push({
        at: iso(m.at)!,
        type: m.from === null ? "deal_created" : "stage_changed",
        dealId: m.dealId,
        deal: m.name,
        from: m.from,
        to: m.to,
        byUserId: m.by,
      });
  }
  if (mergeCond) {
    for (const m of await db
      .select()
      .from(merges)
      .where(and(eq(merges.companyId, ctx.company.id), mergeCond))
      .orderBy(desc(merges.at))
      .limit(n))
      items.push({ at: iso(m.at)!, type: m.undoneAt ? "merge_undone" : "merged", mergeId: m.id, mergedId: m.mergedId });
  }
  const notes: string[] = [];
  if (emails.length) {
    try {
      for (const email of emails.slice(0, 20)) {
        const t = await listTickets(ctx, { requester: email, limit: Math.min(n, 100), offset: 0, sort: "created" });
        for (const x of t.items)
          items.push({
            at: x.createdAt,
            type: "ticket",
            ticketId: x.id,
            subject: x.subject,
            status: x.status,
            requester: email,
          });
      }
    } catch (e) {
      if (!isAppError(e) || e.code !== "forbidden") throw e;
      notes.push("Tickets are left out: this credential lacks tickets:read.");
    }
    try {
      for (const e of await emailTimeline(ctx, emails, n)) items.push({ ...e });
    } catch (e) {
      if (!isAppError(e) || e.code !== "forbidden") throw e;
      notes.push("Email events are left out: this credential lacks email:read.");
    }
  }
  const note = notes.length ? notes.join(" ") : undefined;
  items.sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
  return {
    subject,
    ...page(items.slice(input.offset, input.offset + input.limit), items.length, input.limit, input.offset),
    ...(note && { note }),
  };
}

/** Across contacts, CRM companies and deals: name, email, domain, phone; case and accents ignored. */
export async function search(ctx: ActorContext, input: v.InferOutput<typeof searchInput>) {
  crmRead(ctx);
  const db = ctx.deps.db;
  const types = input.types ?? ["contact", "company", "deal"];
  const out: { type: string; id: number; name: string; detail: string | null }[] = [];
  const totals: Record<string, number> = {};
  if (types.includes("contact")) {
    const cond = and(liveContact(ctx.company.id), searchCond(contacts.search, input.q));
    totals.contact = (await db.select({ n: count() }).from(contacts).where(cond))[0]!.n;
    for (const c of await db
      .select()
      .from(contacts)
      .where(cond)
      .orderBy(desc(contacts.updatedAt), desc(contacts.id))
      .limit(input.limit))
      out.push({ type: "contact", id: c.id, name: fullName(c), detail: c.emails[0] ?? c.phones[0]?.number ?? null });
  }
  if (types.includes("company")) {
    const cond = and(liveCompany(ctx.company.id), searchCond(crmCompanies.search, input.q));
    totals.company = (await db.select({ n: count() }).from(crmCompanies).where(cond))[0]!.n;
    for (const c of await db
      .select()
      .from(crmCompanies)
      .where(cond)
      .orderBy(desc(crmCompanies.updatedAt), desc(crmCompanies.id))
      .limit(input.limit))
      out.push({ type: "company", id: c.id, name: c.name, detail: c.domain });
  }
  if (types.includes("deal")) {
    const cond = and(eq(deals.companyId, ctx.company.id), searchCond(deals.search, input.q));
    totals.deal = (await db.select({ n: count() }).from(deals).where(cond))[0]!.n;
    for (const d of await db
      .select({ id: deals.id, name: deals.name, stage: stages.name })
      .from(deals)
      .innerJoin(stages, eq(stages.id, deals.stageId))
      .where(cond)
      .orderBy(desc(deals.updatedAt), desc(deals.id))
      .limit(input.limit))
      out.push({ type: "deal", id: d.id, name: d.name, detail: d.stage });
  }
  return { items: out, totals };
}
