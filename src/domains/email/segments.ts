/** Segments: named rules over subscribers (segment-rules.ts), counted and sampled on demand. */
import { and, count, desc, eq } from "drizzle-orm";
import * as v from "valibot";
import { audit } from "../../core/audit";
import { iso } from "../../core/clock";
import type { ActorContext } from "../../core/context";
import { emit } from "../../core/events";
import { conflict } from "../../core/errors";
import { page } from "../../core/pagination";
import { authorize } from "../../core/scopes";
import { containsText } from "../../core/sql";
import { segmentMembers } from "./audience";
import { listsIn, segmentIn, type SegmentRow } from "./access";
import { segmentCreated, segmentDeleted, segmentUpdated } from "./events";
import { customFieldTypes } from "../crm/facts";
import { checkRules, rulesSchema, usesCrm, type Rules } from "./segment-rules";
import { emailCampaigns, emailSegments } from "./tables";
import type { Tx } from "../../core/db";

const shape = (s: SegmentRow) => ({
  id: s.id,
  name: s.name,
  rules: s.rules,
  createdAt: iso(s.createdAt),
  updatedAt: iso(s.updatedAt),
});

/** Rules checked in full, with every list they name belonging to the caller's company. */
async function validRules(tx: Tx, ctx: ActorContext, raw: Rules): Promise<Rules> {
  const crmTypes = usesCrm([raw]) ? await customFieldTypes(tx, ctx.company.id) : undefined;
  const { rules, listIds } = checkRules(raw, crmTypes);
  await listsIn(tx, ctx, listIds, "rules");
  return rules;
}

async function nameFree(tx: Tx, ctx: ActorContext, name: string, except: number | null) {
  const hit = (
    await tx
      .select({ id: emailSegments.id })
      .from(emailSegments)
      .where(and(eq(emailSegments.companyId, ctx.company.id), eq(emailSegments.name, name)))
      .limit(1)
  )[0];
  if (hit && hit.id !== except)
    throw conflict(`A segment named "${name}" already exists (id ${hit.id}).`, { path: "name", existingId: hit.id });
}

export async function listSegments(ctx: ActorContext, i: { search?: string; limit: number; offset: number }) {
  authorize(ctx, "email:read", { write: false });
  const where = and(
    eq(emailSegments.companyId, ctx.company.id),
    i.search ? containsText(emailSegments.name, i.search) : undefined,
  );
  const total = (await ctx.deps.db.select({ n: count() }).from(emailSegments).where(where))[0]!.n;
  const rows = await ctx.deps.db
    .select()
    .from(emailSegments)
    .where(where)
    .orderBy(desc(emailSegments.id))
    .limit(i.limit)
    .offset(i.offset);
  return page(rows.map(shape), total, i.limit, i.offset);
}

export async function getSegment(ctx: ActorContext, i: { id: number }) {
  authorize(ctx, "email:read", { write: false });
  return shape(await segmentIn(ctx.deps.db, ctx, i.id));
}

export async function createSegment(ctx: ActorContext, i: { name: string; rules: Rules }) {
  authorize(ctx, "email:write", { write: true });
  return ctx.deps.db.transaction(async (tx) => {
    await nameFree(tx, ctx, i.name, null);
    const rules = await validRules(tx, ctx, i.rules);
    const now = ctx.deps.clock.now();
    const s = (
      await tx
        .insert(emailSegments)
        .values({ companyId: ctx.company.id, name: i.name, rules, createdAt: now, updatedAt: now })
        .returning()
    )[0]!;
    await audit(tx, ctx, "email.segments.create", { type: "email_segment", id: s.id, detail: { name: s.name } });
    await emit(tx, ctx, segmentCreated, { id: s.id }, { name: s.name });
    return shape(s);
  });
}

export async function updateSegment(ctx: ActorContext, i: { id: number; name?: string; rules?: Rules }) {
  authorize(ctx, "email:write", { write: true });
  return ctx.deps.db.transaction(async (tx) => {
    const s = await segmentIn(tx, ctx, i.id);
    if (i.name !== undefined) await nameFree(tx, ctx, i.name, s.id);
    const rules = i.rules ? await validRules(tx, ctx, i.rules) : s.rules;
    const next = (
      await tx
        .update(emailSegments)
        .set({ name: i.name ?? s.name, rules, updatedAt: ctx.deps.clock.now() })
        .where(eq(emailSegments.id, s.id))
        .returning()
    )[0]!;
    await audit(tx, ctx, "email.segments.update", { type: "email_segment", id: s.id, detail: { name: next.name } });
    await emit(tx, ctx, segmentUpdated, { id: s.id }, { name: next.name });
    return shape(next);
  });
}

export async function deleteSegment(ctx: ActorContext, i: { id: number }) {
  authorize(ctx, "email:write", { write: true });
  return ctx.deps.db.transaction(async (tx) => {
    const s = await segmentIn(tx, ctx, i.id);
    const users = (
      await tx
        .select({ id: emailCampaigns.id, segmentIds: emailCampaigns.segmentIds, status: emailCampaigns.status })
        .from(emailCampaigns)
        .where(eq(emailCampaigns.companyId, ctx.company.id))
    ).filter((c) => c.segmentIds.includes(s.id) && !["sent", "cancelled"].includes(c.status));
    if (users.length)
      throw conflict(
        `Segment ${s.id} is used by campaign ${users.map((c) => c.id).join(", ")}; change or cancel those first.`,
      );
    await tx.delete(emailSegments).where(eq(emailSegments.id, s.id));
    await audit(tx, ctx, "email.segments.delete", { type: "email_segment", id: s.id, detail: { name: s.name } });
    await emit(tx, ctx, segmentDeleted, { id: s.id }, { name: s.name });
    return { id: s.id, status: "deleted" as const };
  });
}

/** How many subscribers a segment (saved, or rules given inline) holds now, with a few of them. */
export async function countSegment(ctx: ActorContext, i: { id?: number; rules?: Rules }) {
  authorize(ctx, "email:read", { write: false });
  const db = ctx.deps.db;
  let rules: Rules;
  if (i.id !== undefined) rules = v.parse(rulesSchema, (await segmentIn(db, ctx, i.id)).rules);
  else if (i.rules) rules = await validRules(db, ctx, i.rules);
  else throw conflict("Give a segment id or rules to count.");
  const r = await segmentMembers(db, ctx.company.id, checkRules(rules).rules, 10);
  return { count: r.count, sample: r.sample.map((s) => ({ id: s.id, email: s.email, name: s.name })) };
}
