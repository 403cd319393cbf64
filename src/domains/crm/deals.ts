/**
 * Deals in pipelines: create, read (with stage history), list, update,
 * move stage (recorded with who and when), delete.
 *
 * A deal's status is its stage's kind (open, won, lost). Moving into a
 * lost stage needs a lostReason; closedAt is set on entering won or lost
 * and cleared when a deal is reopened. `fromStage` on a move makes it
 * conditional: two people moving the same deal at once cannot silently
 * undo each other.
 *
 * @public Serves brain (its CRM lookups list deals with the CRM's verbs).
 */
import { and, asc, count, desc, eq, gte, inArray, lte, sql, type SQL } from "drizzle-orm";
import type * as v from "valibot";
import { audit } from "../../core/audit";
import { iso } from "../../core/clock";
import type { ActorContext } from "../../core/context";
import type { Db } from "../../core/db";
import { conflict, invalid } from "../../core/errors";
import { emit } from "../../core/events";
import { page } from "../../core/pagination";
import {
  applyCustom,
  companyOf,
  contactOf,
  crmRead,
  crmWrite,
  customConds,
  dealOf,
  dealSearch,
  fullName,
  memberOf,
  pipelineOf,
  stageIn,
  stagesOf,
  uniq,
  userFilter,
  usersById,
  type DealRow,
  type Q,
  type StageRow,
} from "./access";
import { searchCond } from "./contacts";
import { dealCreated, dealDeleted, dealStageChanged, dealUpdated } from "./events";
import type { dealCreateInput, dealListInput, dealMoveInput, dealUpdateInput } from "./schemas";
import { activities, contacts, crmCompanies, dealContacts, deals, pipelines, stageMoves, stages } from "./tables";
import { withView } from "./views";

async function contactIdsOf(q: Q, dealId: number): Promise<number[]> {
  return (await q.select({ id: dealContacts.contactId }).from(dealContacts).where(eq(dealContacts.dealId, dealId)))
    .map((r) => r.id)
    .sort((a, b) => a - b);
}

function facts(d: DealRow, stage: StageRow, contactIds: number[]) {
  return {
    name: d.name,
    amountCents: d.amountCents,
    currency: d.currency,
    pipelineId: d.pipelineId,
    stageId: stage.id,
    stage: stage.name,
    status: stage.kind,
    ownerUserId: d.ownerId,
    companyId: d.crmCompanyId,
    contactIds,
  };
}

async function resolveContacts(
  q: Q,
  ctx: ActorContext,
  refs: (number | string)[] | undefined,
  what: string,
): Promise<number[]> {
  const out: number[] = [];
  for (const r of refs ?? []) out.push((await contactOf(q, ctx, r, what)).id);
  return uniq(out);
}

export async function createDeal(ctx: ActorContext, input: v.InferOutput<typeof dealCreateInput>) {
  crmWrite(ctx);
  return ctx.deps.db.transaction(async (tx) => {
    let pipelineId = input.pipelineId;
    if (pipelineId === undefined) {
      pipelineId = (
        await tx
          .select({ id: pipelines.id })
          .from(pipelines)
          .where(eq(pipelines.companyId, ctx.company.id))
          .orderBy(asc(pipelines.id))
          .limit(1)
      )[0]?.id;
      if (pipelineId === undefined)
        throw invalid(`${ctx.company.name} has no pipeline yet; create one with pipelines_create.`);
    }
    const p = await pipelineOf(tx, ctx, pipelineId);
    const list = await stagesOf(tx, p.id);
    const stage = input.stage !== undefined ? stageIn(list, input.stage, p.name) : list.find((s) => s.kind === "open")!;
    if (stage.kind === "lost")
      throw invalid("A deal cannot be created lost; create it open and move it with a lostReason.");
    const now = ctx.deps.clock.now();
    const contactIds = await resolveContacts(tx, ctx, input.contactIds, "contactIds");
    const row = (
      await tx
        .insert(deals)
        .values({
          companyId: ctx.company.id,
          name: input.name,
          amountCents: input.amountCents,
          currency: input.currency,
          pipelineId: p.id,
          stageId: stage.id,
          expectedClose: input.expectedClose ?? null,
          ownerId: input.ownerId !== undefined ? await memberOf(tx, ctx, input.ownerId) : ctx.principal.userId,
          crmCompanyId:
            input.companyId !== undefined ? (await companyOf(tx, ctx, input.companyId, "companyId")).id : null,
          lostReason: null,
          custom: await applyCustom(tx, ctx, "deal", {}, input.custom, true),
          search: dealSearch(input),
          stageChangedAt: now,
          closedAt: stage.kind === "won" ? now : null,
          createdAt: now,
          updatedAt: now,
        })
        .returning()
    )[0]!;
    if (contactIds.length)
      await tx.insert(dealContacts).values(contactIds.map((contactId) => ({ dealId: row.id, contactId })));
    await tx.insert(stageMoves).values({
      dealId: row.id,
      fromStageId: null,
      toStageId: stage.id,
      fromStage: null,
      toStage: stage.name,
      byUserId: ctx.principal.userId,
      at: now,
    });
    await audit(tx, ctx, "crm.deal_create", { type: "deal", id: row.id });
    await emit(tx, ctx, dealCreated, { id: row.id }, facts(row, stage, contactIds));
    return {
      id: row.id,
      name: row.name,
      pipelineId: p.id,
      stage: stage.name,
      stageId: stage.id,
      status: stage.kind,
      amountCents: row.amountCents,
      currency: row.currency,
    };
  });
}

export async function dealView(
  q: Q,
  d: DealRow,
  stage: StageRow | undefined,
  pipelineName: string | undefined,
  x: { users: Map<number, { id: number; name: string | null; email: string }>; companies: Map<number, string> },
) {
  return {
    id: d.id,
    name: d.name,
    amountCents: d.amountCents,
    currency: d.currency,
    pipelineId: d.pipelineId,
    pipeline: pipelineName ?? null,
    stageId: d.stageId,
    stage: stage?.name ?? null,
    probability: stage?.probability ?? null,
    status: stage?.kind ?? "open",
    expectedClose: d.expectedClose,
    owner: d.ownerId === null ? null : (x.users.get(d.ownerId) ?? null),
    company: d.crmCompanyId === null ? null : { id: d.crmCompanyId, name: x.companies.get(d.crmCompanyId) ?? null },
    lostReason: d.lostReason,
    custom: d.custom,
    stageChangedAt: iso(d.stageChangedAt)!,
    closedAt: iso(d.closedAt),
    createdAt: iso(d.createdAt)!,
    updatedAt: iso(d.updatedAt)!,
  };
}

async function extras(q: Q, rows: DealRow[]) {
  const stageRows = rows.length
    ? await q
        .select()
        .from(stages)
        .where(inArray(stages.id, uniq(rows.map((r) => r.stageId))))
    : [];
  const pipes = rows.length
    ? await q
        .select()
        .from(pipelines)
        .where(inArray(pipelines.id, uniq(rows.map((r) => r.pipelineId))))
    : [];
  const cids = uniq(rows.map((r) => r.crmCompanyId).filter((x): x is number => x !== null));
  const comps = cids.length
    ? await q
        .select({ id: crmCompanies.id, name: crmCompanies.name })
        .from(crmCompanies)
        .where(inArray(crmCompanies.id, cids))
    : [];
  return {
    stages: new Map(stageRows.map((s) => [s.id, s])),
    pipes: new Map(pipes.map((p) => [p.id, p.name])),
    users: await usersById(
      q,
      rows.map((r) => r.ownerId),
    ),
    companies: new Map(comps.map((c) => [c.id, c.name])),
  };
}

export async function getDeal(ctx: ActorContext, input: { id: number }) {
  crmRead(ctx);
  const db = ctx.deps.db;
  const d = await dealOf(db, ctx, input.id);
  const x = await extras(db, [d]);
  const people = await db
    .select()
    .from(contacts)
    .innerJoin(dealContacts, eq(dealContacts.contactId, contacts.id))
    .where(eq(dealContacts.dealId, d.id))
    .orderBy(asc(contacts.id));
  const history = await db
    .select()
    .from(stageMoves)
    .where(eq(stageMoves.dealId, d.id))
    .orderBy(asc(stageMoves.at), asc(stageMoves.id));
  const movers = await usersById(
    db,
    history.map((h) => h.byUserId),
  );
  return {
    ...(await dealView(db, d, x.stages.get(d.stageId), x.pipes.get(d.pipelineId), x)),
    contacts: people.map(({ crm_contacts: c }) => ({ id: c.id, name: fullName(c), email: c.emails[0] ?? null })),
    stageHistory: history.map((h) => ({
      from: h.fromStage,
      to: h.toStage,
      by: h.byUserId === null ? null : (movers.get(h.byUserId) ?? null),
      at: iso(h.at)!,
    })),
  };
}

export async function listDeals(ctx: ActorContext, raw: v.InferOutput<typeof dealListInput>) {
  crmRead(ctx);
  const db = ctx.deps.db;
  const input = await withView(db, ctx, "deal", raw);
  const where: (SQL | undefined)[] = [eq(deals.companyId, ctx.company.id)];
  if (input.q !== undefined) where.push(searchCond(deals.search, input.q));
  if (input.pipelineId !== undefined) where.push(eq(deals.pipelineId, input.pipelineId));
  if (input.stage !== undefined) {
    if (typeof input.stage === "number") where.push(eq(deals.stageId, input.stage));
    else {
      if (input.pipelineId === undefined) throw invalid("stage by name needs pipelineId; or give the stage id.");
      const p = await pipelineOf(db, ctx, input.pipelineId);
      where.push(eq(deals.stageId, stageIn(await stagesOf(db, p.id), input.stage, p.name).id));
    }
  }
  if (input.status !== undefined)
    where.push(
      inArray(
        deals.stageId,
        db
          .select({ id: stages.id })
          .from(stages)
          .innerJoin(pipelines, eq(pipelines.id, stages.pipelineId))
          .where(and(eq(pipelines.companyId, ctx.company.id), eq(stages.kind, input.status))),
      ),
    );
  if (input.ownerId !== undefined) where.push(eq(deals.ownerId, await userFilter(db, ctx, input.ownerId)));
  if (input.companyId !== undefined)
    where.push(eq(deals.crmCompanyId, (await companyOf(db, ctx, input.companyId, "companyId")).id));
  if (input.contactId !== undefined) {
    const c = await contactOf(db, ctx, input.contactId, "contactId");
    where.push(
      inArray(
        deals.id,
        db.select({ id: dealContacts.dealId }).from(dealContacts).where(eq(dealContacts.contactId, c.id)),
      ),
    );
  }
  if (input.closeFrom !== undefined) where.push(gte(deals.expectedClose, input.closeFrom));
  if (input.closeTo !== undefined) where.push(lte(deals.expectedClose, input.closeTo));
  if (input.minAmountCents !== undefined) where.push(gte(deals.amountCents, input.minAmountCents));
  where.push(...customConds(deals.custom, input.custom));
  const cond = and(...where);
  const total = (await db.select({ n: count() }).from(deals).where(cond))[0]!.n;
  const order =
    input.sort === "created"
      ? [desc(deals.createdAt), desc(deals.id)]
      : input.sort === "amount"
        ? [desc(deals.amountCents), desc(deals.id)]
        : input.sort === "close"
          ? [asc(sql`${deals.expectedClose} is null`), asc(deals.expectedClose), asc(deals.id)]
          : [desc(deals.updatedAt), desc(deals.id)];
  const rows = await db
    .select()
    .from(deals)
    .where(cond)
    .orderBy(...order)
    .limit(input.limit)
    .offset(input.offset);
  const x = await extras(db, rows);
  const items = [];
  for (const r of rows) items.push(await dealView(db, r, x.stages.get(r.stageId), x.pipes.get(r.pipelineId), x));
  return page(items, total, input.limit, input.offset);
}

export async function updateDeal(ctx: ActorContext, input: v.InferOutput<typeof dealUpdateInput>) {
  crmWrite(ctx);
  return ctx.deps.db.transaction(async (tx) => {
    const d = await dealOf(tx, ctx, input.id);
    const set: Partial<DealRow> = {};
    const changed: string[] = [];
    for (const k of ["name", "amountCents", "currency", "expectedClose", "lostReason"] as const)
      if (input[k] !== undefined && input[k] !== d[k]) {
        (set as Record<string, unknown>)[k] = input[k];
        changed.push(k);
      }
    const stage = (await tx.select().from(stages).where(eq(stages.id, d.stageId)))[0]!;
    if (set.lostReason !== undefined && stage.kind !== "lost")
      throw invalid("lostReason is for lost deals; move the deal to a lost stage with deals_move_stage.");
    if (set.lostReason === null && stage.kind === "lost")
      throw invalid("A lost deal keeps its lostReason; reopen it by moving it to an open stage.");
    if (input.ownerId !== undefined) {
      const id = input.ownerId === null ? null : await memberOf(tx, ctx, input.ownerId);
      if (id !== d.ownerId) (set.ownerId = id), changed.push("ownerId");
    }
    if (input.companyId !== undefined) {
      const id = input.companyId === null ? null : (await companyOf(tx, ctx, input.companyId, "companyId")).id;
      if (id !== d.crmCompanyId) (set.crmCompanyId = id), changed.push("companyId");
    }
    let contactIds = await contactIdsOf(tx, d.id);
    const add = (await resolveContacts(tx, ctx, input.addContactIds, "addContactIds")).filter(
      (id) => !contactIds.includes(id),
    );
    const remove = (await resolveContacts(tx, ctx, input.removeContactIds, "removeContactIds")).filter((id) =>
      contactIds.includes(id),
    );
    if (add.length) await tx.insert(dealContacts).values(add.map((contactId) => ({ dealId: d.id, contactId })));
    if (remove.length)
      await tx.delete(dealContacts).where(and(eq(dealContacts.dealId, d.id), inArray(dealContacts.contactId, remove)));
    if (add.length || remove.length) {
      contactIds = await contactIdsOf(tx, d.id);
      changed.push("contactIds");
    }
    if (input.custom) {
      const next = await applyCustom(tx, ctx, "deal", d.custom, input.custom, false);
      for (const k of uniq([...Object.keys(next), ...Object.keys(d.custom)]))
        if (JSON.stringify(next[k]) !== JSON.stringify(d.custom[k])) changed.push(`custom.${k}`);
      set.custom = next;
    }
    if (!changed.length) return { id: d.id, changed };
    const row = (
      await tx
        .update(deals)
        .set({ ...set, search: dealSearch({ name: set.name ?? d.name }), updatedAt: ctx.deps.clock.now() })
        .where(eq(deals.id, d.id))
        .returning()
    )[0]!;
    await audit(tx, ctx, "crm.deal_update", { type: "deal", id: d.id, detail: { changed } });
    await emit(tx, ctx, dealUpdated, { id: d.id }, { ...facts(row, stage, contactIds), changed });
    return { id: d.id, changed };
  });
}

export async function moveDeal(ctx: ActorContext, input: v.InferOutput<typeof dealMoveInput>) {
  crmWrite(ctx);
  return ctx.deps.db.transaction(async (tx) => {
    const d = await dealOf(tx, ctx, input.id);
    const from = (await tx.select().from(stages).where(eq(stages.id, d.stageId)))[0]!;
    const p = await pipelineOf(tx, ctx, input.pipelineId ?? d.pipelineId);
    const to = stageIn(await stagesOf(tx, p.id), input.stage, p.name);
    if (input.fromStage !== undefined) {
      const expected =
        typeof input.fromStage === "number"
          ? input.fromStage === from.id
          : input.fromStage.toLowerCase() === from.name.toLowerCase();
      if (!expected)
        throw conflict(
          `Deal ${d.id} is in stage "${from.name}" now, not ${JSON.stringify(input.fromStage)}; someone moved it. Check with deals_get.`,
          { stageId: from.id, stage: from.name },
        );
    }
    if (to.id === from.id) return { id: d.id, stage: to.name, stageId: to.id, status: to.kind, unchanged: true };
    if (to.kind === "lost" && !input.lostReason) throw invalid(`Moving to "${to.name}" (lost) needs lostReason.`);
    if (to.kind !== "lost" && input.lostReason)
      throw invalid(`lostReason is only for lost stages; "${to.name}" is ${to.kind}.`);
    const now = ctx.deps.clock.now();
    const closing = to.kind !== "open";
    const row = (
      await tx
        .update(deals)
        .set({
          pipelineId: p.id,
          stageId: to.id,
          stageChangedAt: now,
          closedAt: closing ? (from.kind === to.kind ? d.closedAt : now) : null,
          lostReason: to.kind === "lost" ? input.lostReason! : null,
          updatedAt: now,
        })
        .where(eq(deals.id, d.id))
        .returning()
    )[0]!;
    await tx.insert(stageMoves).values({
      dealId: d.id,
      fromStageId: from.id,
      toStageId: to.id,
      fromStage: from.name,
      toStage: to.name,
      byUserId: ctx.principal.userId,
      at: now,
    });
    await audit(tx, ctx, "crm.deal_move", { type: "deal", id: d.id, detail: { from: from.name, to: to.name } });
    await emit(
      tx,
      ctx,
      dealStageChanged,
      { id: d.id },
      {
        ...facts(row, to, await contactIdsOf(tx, d.id)),
        fromStageId: from.id,
        fromStage: from.name,
        fromPipelineId: d.pipelineId,
        byUserId: ctx.principal.userId,
        lostReason: row.lostReason,
      },
    );
    return {
      id: d.id,
      pipelineId: p.id,
      stage: to.name,
      stageId: to.id,
      status: to.kind,
      previousStage: from.name,
      movedAt: iso(now)!,
    };
  });
}

export async function deleteDeal(ctx: ActorContext, input: { id: number }) {
  crmWrite(ctx);
  return ctx.deps.db.transaction(async (tx: Db) => {
    const d = await dealOf(tx, ctx, input.id);
    const stage = (await tx.select().from(stages).where(eq(stages.id, d.stageId)))[0]!;
    const contactIds = await contactIdsOf(tx, d.id);
    await tx
      .delete(activities)
      .where(
        and(eq(activities.dealId, d.id), sql`${activities.contactId} is null`, sql`${activities.crmCompanyId} is null`),
      );
    await tx.delete(deals).where(eq(deals.id, d.id));
    await audit(tx, ctx, "crm.deal_delete", { type: "deal", id: d.id, detail: { name: d.name } });
    await emit(tx, ctx, dealDeleted, { id: d.id }, facts(d, stage, contactIds));
    return { id: d.id, status: "deleted", name: d.name };
  });
}
