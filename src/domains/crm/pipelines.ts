/**
 * Pipelines of ordered stages, each with a win probability and a kind
 * (open, won, lost), and the forecast over them.
 *
 * Stages are edited by giving the whole ordered list: entries with an id
 * keep that stage (renamed, re-weighted, moved), entries without one are
 * new, and stages left out are removed, which is refused while deals sit
 * in them. Every pipeline has at least one open, one won and one lost
 * stage, so every deal can be closed.
 *
 * Forecast: an open deal counts round(amount × probability / 100) in the
 * month of its expected close (no date: "unscheduled"); won deals count in
 * full in the month they were won. Amounts are never converted between
 * currencies: one forecast per currency.
 */
import { and, asc, count, eq, inArray, sql } from "drizzle-orm";
import type * as v from "valibot";
import { audit } from "../../core/audit";
import type { ActorContext } from "../../core/context";
import type { Db } from "../../core/db";
import { conflict, invalid } from "../../core/errors";
import { emit } from "../../core/events";
import { page } from "../../core/pagination";
import { crmRead, crmWrite, pipelineOf, stagesOf, type StageRow } from "./access";
import { crmSettingsChanged } from "./events";
import type { forecastInput, pipelineCreateInput, pipelineUpdateInput } from "./schemas";
import { deals, pipelines, stages, type StageKind } from "./tables";

export const DEFAULT_STAGES: { name: string; probability: number; kind: StageKind }[] = [
  { name: "Lead", probability: 10, kind: "open" },
  { name: "Qualified", probability: 25, kind: "open" },
  { name: "Proposal", probability: 50, kind: "open" },
  { name: "Negotiation", probability: 75, kind: "open" },
  { name: "Won", probability: 100, kind: "won" },
  { name: "Lost", probability: 0, kind: "lost" },
];

type StageSpec = { id?: number; name: string; probability?: number; kind?: StageKind };

function normalise(list: StageSpec[]) {
  const out = list.map((s) => {
    const kind = s.kind ?? "open";
    const probability = kind === "won" ? 100 : kind === "lost" ? 0 : (s.probability ?? 50);
    if (s.probability !== undefined && s.probability !== probability)
      throw invalid(`Stage "${s.name}" is ${kind}: its probability is ${probability}.`);
    return { ...s, kind, probability };
  });
  const names = out.map((s) => s.name.toLowerCase());
  if (new Set(names).size !== names.length) throw invalid("Stage names must differ within a pipeline.");
  for (const k of ["open", "won", "lost"] as const)
    if (!out.some((s) => s.kind === k)) throw invalid(`A pipeline needs at least one ${k} stage.`);
  return out;
}

async function stageCounts(q: Pick<Db, "select">, pipelineId: number) {
  const rows = await q
    .select({
      stageId: deals.stageId,
      currency: deals.currency,
      n: count(),
      amount: sql<number>`coalesce(sum(${deals.amountCents}), 0)`.mapWith(Number),
    })
    .from(deals)
    .where(eq(deals.pipelineId, pipelineId))
    .groupBy(deals.stageId, deals.currency);
  return rows;
}

async function pipelineView(q: Pick<Db, "select">, p: typeof pipelines.$inferSelect) {
  const list = await stagesOf(q, p.id);
  const counts = await stageCounts(q, p.id);
  return {
    id: p.id,
    name: p.name,
    stages: list.map((s) => {
      const mine = counts.filter((c) => c.stageId === s.id);
      return {
        id: s.id,
        name: s.name,
        position: s.position,
        probability: s.probability,
        kind: s.kind,
        deals: mine.reduce((a, c) => a + c.n, 0),
        amountCents: Object.fromEntries(mine.map((c) => [c.currency, c.amount])),
      };
    }),
  };
}

export async function createPipeline(ctx: ActorContext, input: v.InferOutput<typeof pipelineCreateInput>) {
  crmWrite(ctx);
  const list = normalise(input.stages ?? DEFAULT_STAGES);
  if (list.some((s) => s.id !== undefined)) throw invalid("New stages have no id.");
  return ctx.deps.db.transaction(async (tx) => {
    const taken = (
      await tx
        .select({ id: pipelines.id })
        .from(pipelines)
        .where(and(eq(pipelines.companyId, ctx.company.id), eq(pipelines.name, input.name)))
        .limit(1)
    )[0];
    if (taken) throw conflict(`A pipeline named "${input.name}" exists (id ${taken.id}).`, { id: taken.id });
    const p = (
      await tx
        .insert(pipelines)
        .values({ companyId: ctx.company.id, name: input.name, createdAt: ctx.deps.clock.now() })
        .returning()
    )[0]!;
    await tx
      .insert(stages)
      .values(
        list.map((s, i) => ({ pipelineId: p.id, name: s.name, position: i, probability: s.probability, kind: s.kind })),
      );
    await audit(tx, ctx, "crm.pipeline_create", { type: "crm_pipeline", id: p.id });
    await emit(tx, ctx, crmSettingsChanged, { id: p.id }, { what: "pipeline", action: "created", name: p.name });
    return pipelineView(tx, p);
  });
}

export async function updatePipeline(ctx: ActorContext, input: v.InferOutput<typeof pipelineUpdateInput>) {
  crmWrite(ctx);
  return ctx.deps.db.transaction(async (tx) => {
    const p = await pipelineOf(tx, ctx, input.id);
    if (input.name !== undefined && input.name !== p.name) {
      const taken = (
        await tx
          .select({ id: pipelines.id })
          .from(pipelines)
          .where(and(eq(pipelines.companyId, ctx.company.id), eq(pipelines.name, input.name)))
          .limit(1)
      )[0];
      if (taken) throw conflict(`A pipeline named "${input.name}" exists (id ${taken.id}).`);
      await tx.update(pipelines).set({ name: input.name }).where(eq(pipelines.id, p.id));
    }
    if (input.stages) {
      const list = normalise(input.stages);
      const current = await stagesOf(tx, p.id);
      for (const s of list)
        if (s.id !== undefined && !current.some((c) => c.id === s.id))
          throw invalid(`Stage ${s.id} is not in pipeline "${p.name}".`);
      const gone = current.filter((c) => !list.some((s) => s.id === c.id));
      if (gone.length) {
        const busy = await tx
          .select({ stageId: deals.stageId, n: count() })
          .from(deals)
          .where(
            inArray(
              deals.stageId,
              gone.map((g) => g.id),
            ),
          )
          .groupBy(deals.stageId);
        if (busy.length)
          throw conflict(
            `Stages still holding deals cannot be removed: ${busy.map((b) => `${gone.find((g) => g.id === b.stageId)!.name} (${b.n})`).join(", ")}. Move the deals first.`,
          );
        await tx.delete(stages).where(
          inArray(
            stages.id,
            gone.map((g) => g.id),
          ),
        );
      }
      for (const [i, s] of list.entries()) {
        if (s.id !== undefined) {
          const was = current.find((c) => c.id === s.id)!;
          if (was.kind !== s.kind) {
            const n = (await tx.select({ n: count() }).from(deals).where(eq(deals.stageId, was.id)))[0]!.n;
            if (n)
              throw conflict(
                `Stage "${was.name}" holds ${n} deal(s); its kind (${was.kind}) cannot change while it does.`,
              );
          }
          await tx
            .update(stages)
            .set({ name: s.name, position: i, probability: s.probability, kind: s.kind })
            .where(eq(stages.id, s.id));
        } else
          await tx
            .insert(stages)
            .values({ pipelineId: p.id, name: s.name, position: i, probability: s.probability, kind: s.kind });
      }
    }
    await audit(tx, ctx, "crm.pipeline_update", { type: "crm_pipeline", id: p.id });
    await emit(
      tx,
      ctx,
      crmSettingsChanged,
      { id: p.id },
      { what: "pipeline", action: "updated", name: input.name ?? p.name },
    );
    return pipelineView(tx, (await tx.select().from(pipelines).where(eq(pipelines.id, p.id)))[0]!);
  });
}

export async function deletePipeline(ctx: ActorContext, input: { id: number }) {
  crmWrite(ctx);
  return ctx.deps.db.transaction(async (tx) => {
    const p = await pipelineOf(tx, ctx, input.id);
    const n = (await tx.select({ n: count() }).from(deals).where(eq(deals.pipelineId, p.id)))[0]!.n;
    if (n) throw conflict(`Pipeline "${p.name}" holds ${n} deal(s); move or delete them first.`, { deals: n });
    await tx.delete(pipelines).where(eq(pipelines.id, p.id));
    await audit(tx, ctx, "crm.pipeline_delete", { type: "crm_pipeline", id: p.id });
    await emit(tx, ctx, crmSettingsChanged, { id: p.id }, { what: "pipeline", action: "deleted", name: p.name });
    return { id: p.id, status: "deleted", name: p.name };
  });
}

export async function listPipelines(ctx: ActorContext, input: { limit: number; offset: number }) {
  crmRead(ctx);
  const db = ctx.deps.db;
  const all = await db
    .select()
    .from(pipelines)
    .where(eq(pipelines.companyId, ctx.company.id))
    .orderBy(asc(pipelines.id));
  const items = [];
  for (const p of all.slice(input.offset, input.offset + input.limit)) items.push(await pipelineView(db, p));
  return page(items, all.length, input.limit, input.offset);
}

export async function getPipeline(ctx: ActorContext, input: { id: number }) {
  crmRead(ctx);
  return pipelineView(ctx.deps.db, await pipelineOf(ctx.deps.db, ctx, input.id));
}

const monthOf = (d: Date) => d.toISOString().slice(0, 7);
function addMonths(ym: string, n: number): string {
  const [y, m] = ym.split("-").map(Number) as [number, number];
  const t = new Date(Date.UTC(y, m - 1 + n, 1));
  return t.toISOString().slice(0, 7);
}

export async function forecast(ctx: ActorContext, input: v.InferOutput<typeof forecastInput>) {
  crmRead(ctx);
  const db = ctx.deps.db;
  const p = await pipelineOf(db, ctx, input.id);
  const list = await stagesOf(db, p.id);
  const from = input.from ?? monthOf(ctx.deps.clock.now());
  const months = Array.from({ length: input.months }, (_, i) => addMonths(from, i));
  const toExclusive = addMonths(from, input.months);
  const rows = await db
    .select({
      amountCents: deals.amountCents,
      currency: deals.currency,
      stageId: deals.stageId,
      expectedClose: deals.expectedClose,
      closedAt: deals.closedAt,
    })
    .from(deals)
    .where(eq(deals.pipelineId, p.id));
  const byId = new Map<number, StageRow>(list.map((s) => [s.id, s]));
  type Cur = {
    currency: string;
    stages: {
      stageId: number;
      stage: string;
      probability: number;
      deals: number;
      amountCents: number;
      weightedCents: number;
    }[];
    months: { month: string; weightedCents: number; wonCents: number }[];
    unscheduledWeightedCents: number;
    openAmountCents: number;
    weightedCents: number;
  };
  const out = new Map<string, Cur>();
  const cur = (c: string) => {
    let x = out.get(c);
    if (!x) {
      x = {
        currency: c,
        stages: list
          .filter((s) => s.kind === "open")
          .map((s) => ({
            stageId: s.id,
            stage: s.name,
            probability: s.probability,
            deals: 0,
            amountCents: 0,
            weightedCents: 0,
          })),
        months: months.map((m) => ({ month: m, weightedCents: 0, wonCents: 0 })),
        unscheduledWeightedCents: 0,
        openAmountCents: 0,
        weightedCents: 0,
      };
      out.set(c, x);
    }
    return x;
  };
  for (const r of rows) {
    const s = byId.get(r.stageId);
    if (!s || s.kind === "lost") continue;
    const c = cur(r.currency);
    if (s.kind === "won") {
      const m = r.closedAt ? c.months.find((x) => x.month === monthOf(r.closedAt!)) : undefined;
      if (m) m.wonCents += r.amountCents;
      continue;
    }
    const w = Math.round((r.amountCents * s.probability) / 100);
    const st = c.stages.find((x) => x.stageId === s.id)!;
    st.deals++;
    st.amountCents += r.amountCents;
    st.weightedCents += w;
    c.openAmountCents += r.amountCents;
    c.weightedCents += w;
    if (!r.expectedClose) c.unscheduledWeightedCents += w;
    else {
      const m = c.months.find((x) => x.month === r.expectedClose!.slice(0, 7));
      if (m) m.weightedCents += w;
    }
  }
  return {
    pipelineId: p.id,
    pipeline: p.name,
    // Both ends named for what they are: `to` is the last month counted, `toExclusive` the first one after.
    from,
    to: months.at(-1)!,
    toExclusive,
    currencies: [...out.values()].sort((a, b) => (a.currency < b.currency ? -1 : 1)),
  };
}
