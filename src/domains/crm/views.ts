/**
 * Saved views: a name, the list tool's own filter arguments (checked with
 * that tool's schema when saved, so a view never holds a filter the list
 * cannot apply), a sort and the columns to show. contacts_list,
 * crm_companies_list and deals_list take viewId; arguments given with it
 * override the view's.
 */
import { and, asc, eq } from "drizzle-orm";
import * as v from "valibot";
import { audit } from "../../core/audit";
import { iso } from "../../core/clock";
import type { ActorContext } from "../../core/context";
import { conflict, invalid, notFound } from "../../core/errors";
import { emit } from "../../core/events";
import { page } from "../../core/pagination";
import { crmRead, crmWrite, type Q } from "./access";
import { crmSettingsChanged } from "./events";
import { companyFilters, contactFilters, dealFilters, type viewCreateInput, type viewUpdateInput } from "./schemas";
import { views, type CrmObject } from "./tables";

const FILTERS: Record<CrmObject, v.GenericSchema> = {
  contact: v.strictObject(contactFilters),
  company: v.strictObject(companyFilters),
  deal: v.strictObject(dealFilters),
};

function checkFilters(object: CrmObject, filters: Record<string, unknown>): Record<string, unknown> {
  const r = v.safeParse(FILTERS[object], filters);
  if (!r.success) throw invalid(`filters: ${r.issues.map((i) => `${v.getDotPath(i) ?? ""} ${i.message}`).join("; ")}`);
  return r.output as Record<string, unknown>;
}

/** The list input with a view's filters under the explicit ones. */
export async function withView<T extends { viewId?: number }>(
  q: Q,
  ctx: ActorContext,
  object: CrmObject,
  input: T,
): Promise<T> {
  if (input.viewId === undefined) return input;
  const view = (
    await q
      .select()
      .from(views)
      .where(and(eq(views.companyId, ctx.company.id), eq(views.id, input.viewId)))
      .limit(1)
  )[0];
  if (!view) throw notFound(`View ${input.viewId} not found; see crm_views_list.`);
  if (view.object !== object) throw invalid(`View ${view.id} ("${view.name}") lists ${view.object}s, not ${object}s.`);
  const explicit = Object.fromEntries(Object.entries(input).filter(([, x]) => x !== undefined));
  return { ...view.filters, ...explicit } as T;
}

const viewOut = (r: typeof views.$inferSelect) => ({
  id: r.id,
  object: r.object,
  name: r.name,
  filters: r.filters,
  columns: r.columns,
  createdByUserId: r.createdByUserId,
  updatedAt: iso(r.updatedAt),
});

export async function createView(ctx: ActorContext, input: v.InferOutput<typeof viewCreateInput>) {
  crmWrite(ctx);
  const filters = checkFilters(input.object, input.filters ?? {});
  return ctx.deps.db.transaction(async (tx) => {
    const taken = (
      await tx
        .select({ id: views.id })
        .from(views)
        .where(and(eq(views.companyId, ctx.company.id), eq(views.object, input.object), eq(views.name, input.name)))
        .limit(1)
    )[0];
    if (taken)
      throw conflict(`A ${input.object} view named "${input.name}" exists (id ${taken.id}).`, { id: taken.id });
    const now = ctx.deps.clock.now();
    const row = (
      await tx
        .insert(views)
        .values({
          companyId: ctx.company.id,
          object: input.object,
          name: input.name,
          filters,
          sort: null,
          columns: input.columns ?? [],
          createdByUserId: ctx.principal.userId,
          createdAt: now,
          updatedAt: now,
        })
        .returning()
    )[0]!;
    await audit(tx, ctx, "crm.view_create", { type: "crm_view", id: row.id });
    await emit(tx, ctx, crmSettingsChanged, { id: row.id }, { what: "view", action: "created", name: row.name });
    return viewOut(row);
  });
}

async function viewOf(q: Q, ctx: ActorContext, id: number) {
  const r = (
    await q
      .select()
      .from(views)
      .where(and(eq(views.companyId, ctx.company.id), eq(views.id, id)))
      .limit(1)
  )[0];
  if (!r) throw notFound(`View ${id} not found; see crm_views_list.`);
  return r;
}

export async function updateView(ctx: ActorContext, input: v.InferOutput<typeof viewUpdateInput>) {
  crmWrite(ctx);
  return ctx.deps.db.transaction(async (tx) => {
    const r = await viewOf(tx, ctx, input.id);
    const filters = input.filters ? checkFilters(r.object, input.filters) : r.filters;
    if (input.name && input.name !== r.name) {
      const taken = (
        await tx
          .select({ id: views.id })
          .from(views)
          .where(and(eq(views.companyId, ctx.company.id), eq(views.object, r.object), eq(views.name, input.name)))
          .limit(1)
      )[0];
      if (taken) throw conflict(`A ${r.object} view named "${input.name}" exists (id ${taken.id}).`);
    }
    const row = (
      await tx
        .update(views)
        .set({
          name: input.name ?? r.name,
          filters,
          columns: input.columns ?? r.columns,
          updatedAt: ctx.deps.clock.now(),
        })
        .where(eq(views.id, r.id))
        .returning()
    )[0]!;
    await audit(tx, ctx, "crm.view_update", { type: "crm_view", id: r.id });
    await emit(tx, ctx, crmSettingsChanged, { id: r.id }, { what: "view", action: "updated", name: row.name });
    return viewOut(row);
  });
}

export async function deleteView(ctx: ActorContext, input: { id: number }) {
  crmWrite(ctx);
  return ctx.deps.db.transaction(async (tx) => {
    const r = await viewOf(tx, ctx, input.id);
    await tx.delete(views).where(eq(views.id, r.id));
    await audit(tx, ctx, "crm.view_delete", { type: "crm_view", id: r.id });
    await emit(tx, ctx, crmSettingsChanged, { id: r.id }, { what: "view", action: "deleted", name: r.name });
    return { id: r.id, status: "deleted" };
  });
}

export async function listViews(ctx: ActorContext, input: { object?: CrmObject; limit: number; offset: number }) {
  crmRead(ctx);
  const rows = await ctx.deps.db
    .select()
    .from(views)
    .where(and(eq(views.companyId, ctx.company.id), input.object ? eq(views.object, input.object) : undefined))
    .orderBy(asc(views.object), asc(views.name));
  return page(
    rows.slice(input.offset, input.offset + input.limit).map(viewOut),
    rows.length,
    input.limit,
    input.offset,
  );
}
