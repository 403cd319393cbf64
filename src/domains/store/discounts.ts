/**
 * Discount codes: percent (basis points) or fixed (cents) off an order's
 * subtotal, with an optional minimum subtotal, validity window and usage
 * limit. Codes are case-insensitive (stored upper-cased). A use is counted
 * when an order is placed with the code and released when that order is
 * cancelled before payment.
 */
import { and, desc, eq, isNull, lt, or, sql } from "drizzle-orm";
import type * as v from "valibot";
import { audit } from "../../core/audit";
import { iso } from "../../core/clock";
import type { ActorContext } from "../../core/context";
import { conflict, invalid, notFound } from "../../core/errors";
import { page } from "../../core/pagination";
import { mutate, storeRead, storeWrite, type Q } from "./access";
import { MAX_BASIS_POINTS, MAX_CENTS } from "./money";
import type { DiscountTerms } from "./pricing";
import type { discountCreateInput, discountListInput, discountRef, discountUpdateInput } from "./schemas";
import { discounts, orders } from "./tables";
import { greatest } from "../../core/sql";
import type { Tx } from "../../core/db";

type DiscountRow = typeof discounts.$inferSelect;

function checkAmount(kind: "percent" | "fixed", amount: number) {
  if (kind === "percent" && amount > MAX_BASIS_POINTS)
    throw invalid(`A percent discount is in basis points, 1 to ${MAX_BASIS_POINTS} (1000 = 10 %); got ${amount}.`);
  if (kind === "fixed" && amount > MAX_CENTS)
    throw invalid(`A fixed discount is in cents, at most ${MAX_CENTS}; got ${amount}.`);
}

function checkWindow(startsAt: Date | null, endsAt: Date | null) {
  if (startsAt && endsAt && endsAt <= startsAt) throw invalid("endsAt must be after startsAt.");
}

const toDate = (s: string | null | undefined) => (s === undefined ? undefined : s === null ? null : new Date(s));

export async function discountInSite(q: Q, siteId: number, id: number): Promise<DiscountRow> {
  const d = (
    await q
      .select()
      .from(discounts)
      .where(and(eq(discounts.id, id), eq(discounts.siteId, siteId)))
      .limit(1)
  )[0];
  if (!d) throw notFound(`Discount ${id} not found on site ${siteId}.`);
  return d;
}

/** Why the code cannot be used now for this subtotal, or null. */
export function discountProblem(d: DiscountRow, subtotal: number, now: Date): string | null {
  if (!d.active) return "is not active";
  if (d.startsAt && now < d.startsAt) return `is valid from ${iso(d.startsAt)}`;
  if (d.endsAt && now >= d.endsAt) return `expired at ${iso(d.endsAt)}`;
  if (d.usageLimit !== null && d.usedCount >= d.usageLimit) return `has reached its usage limit of ${d.usageLimit}`;
  if (d.minSubtotal !== null && subtotal < d.minSubtotal)
    return `needs a subtotal of at least ${d.minSubtotal} cents (this order has ${subtotal})`;
  return null;
}

/**
 * Checks a code against an order and counts the use, atomically: the
 * conditional update cannot pass a usage limit even under concurrent orders.
 */
export async function redeemDiscount(
  tx: Tx,
  siteId: number,
  code: string,
  subtotal: number,
  now: Date,
): Promise<{ row: DiscountRow; terms: DiscountTerms }> {
  const d = (
    await tx
      .select()
      .from(discounts)
      .where(and(eq(discounts.siteId, siteId), eq(discounts.code, code.trim().toUpperCase())))
      .limit(1)
  )[0];
  if (!d) throw invalid(`The discount code "${code}" does not exist on this site.`);
  const problem = discountProblem(d, subtotal, now);
  if (problem) throw invalid(`The discount code ${d.code} ${problem}.`);
  const counted = (
    await tx
      .update(discounts)
      .set({ usedCount: sql`${discounts.usedCount} + 1` })
      .where(
        and(eq(discounts.id, d.id), or(isNull(discounts.usageLimit), lt(discounts.usedCount, discounts.usageLimit))),
      )
      .returning({ id: discounts.id })
  )[0];
  if (!counted) throw invalid(`The discount code ${d.code} has reached its usage limit of ${d.usageLimit}.`);
  return { row: d, terms: { kind: d.kind, amount: d.amount } };
}

export async function releaseDiscount(tx: Tx, discountId: number) {
  await tx
    .update(discounts)
    .set({ usedCount: greatest(sql`${discounts.usedCount} - 1`, 0) })
    .where(eq(discounts.id, discountId));
}

const out = (d: DiscountRow, now: Date) => ({
  id: d.id,
  code: d.code,
  kind: d.kind,
  amount: d.amount,
  minSubtotal: d.minSubtotal,
  startsAt: iso(d.startsAt),
  endsAt: iso(d.endsAt),
  usageLimit: d.usageLimit,
  usedCount: d.usedCount,
  active: d.active,
  /** Usable right now (ignoring any minimum subtotal). */
  usableNow: discountProblem(d, Number.MAX_SAFE_INTEGER, now) === null,
  createdAt: iso(d.createdAt)!,
});

const compact = (d: DiscountRow) => ({ id: d.id, code: d.code, status: d.active ? "active" : "inactive" });

export async function createDiscount(ctx: ActorContext, input: v.InferOutput<typeof discountCreateInput>) {
  await storeWrite(ctx, input.siteId);
  checkAmount(input.kind, input.amount);
  const startsAt = toDate(input.startsAt) ?? null;
  const endsAt = toDate(input.endsAt) ?? null;
  checkWindow(startsAt, endsAt);
  const code = input.code.toUpperCase();
  const now = ctx.deps.clock.now();
  return mutate(ctx, input.siteId, async (tx) => {
    const dup = (
      await tx
        .select({ id: discounts.id })
        .from(discounts)
        .where(and(eq(discounts.siteId, input.siteId), eq(discounts.code, code)))
        .limit(1)
    )[0];
    if (dup) throw conflict(`The discount code ${code} already exists (discount ${dup.id}).`);
    const d = (
      await tx
        .insert(discounts)
        .values({
          siteId: input.siteId,
          code,
          kind: input.kind,
          amount: input.amount,
          minSubtotal: input.minSubtotal ?? null,
          startsAt,
          endsAt,
          usageLimit: input.usageLimit ?? null,
          active: input.active,
          createdAt: now,
        })
        .returning()
    )[0];
    await audit(tx, ctx, "discounts.create", { type: "discount", id: d.id, siteId: input.siteId, detail: { code } });
    return compact(d);
  });
}

export async function updateDiscount(ctx: ActorContext, input: v.InferOutput<typeof discountUpdateInput>) {
  await storeWrite(ctx, input.siteId);
  return mutate(ctx, input.siteId, async (tx) => {
    const before = await discountInSite(tx, input.siteId, input.id);
    const set: Partial<DiscountRow> = {};
    if (input.amount !== undefined) checkAmount(before.kind, input.amount), (set.amount = input.amount);
    if (input.minSubtotal !== undefined) set.minSubtotal = input.minSubtotal;
    if (input.startsAt !== undefined) set.startsAt = toDate(input.startsAt)!;
    if (input.endsAt !== undefined) set.endsAt = toDate(input.endsAt)!;
    if (input.usageLimit !== undefined) set.usageLimit = input.usageLimit;
    if (input.active !== undefined) set.active = input.active;
    checkWindow(
      set.startsAt !== undefined ? set.startsAt : before.startsAt,
      set.endsAt !== undefined ? set.endsAt : before.endsAt,
    );
    const d = Object.keys(set).length
      ? (await tx.update(discounts).set(set).where(eq(discounts.id, before.id)).returning())[0]
      : before;
    await audit(tx, ctx, "discounts.update", {
      type: "discount",
      id: d.id,
      siteId: input.siteId,
      detail: { fields: Object.keys(set) },
    });
    return compact(d);
  });
}

export async function deleteDiscount(ctx: ActorContext, input: v.InferOutput<typeof discountRef>) {
  await storeWrite(ctx, input.siteId);
  return mutate(ctx, input.siteId, async (tx) => {
    const d = await discountInSite(tx, input.siteId, input.id);
    const used = (
      await tx.select({ n: sql<number>`count(*)` }).from(orders).where(eq(orders.discountId, d.id)).limit(1)
    )[0]!.n;
    if (used)
      throw conflict(
        `Discount ${d.code} is recorded on ${used} orders and cannot be deleted; set active: false instead.`,
      );
    await tx.delete(discounts).where(eq(discounts.id, d.id));
    await audit(tx, ctx, "discounts.delete", {
      type: "discount",
      id: d.id,
      siteId: input.siteId,
      detail: { code: d.code },
    });
    return { id: d.id, code: d.code, status: "deleted" };
  });
}

export async function getDiscount(ctx: ActorContext, input: v.InferOutput<typeof discountRef>) {
  await storeRead(ctx, input.siteId);
  return out(await discountInSite(ctx.deps.db, input.siteId, input.id), ctx.deps.clock.now());
}

export async function listDiscounts(ctx: ActorContext, input: v.InferOutput<typeof discountListInput>) {
  await storeRead(ctx, input.siteId);
  const db = ctx.deps.db;
  const where = and(eq(discounts.siteId, input.siteId), input.activeOnly ? eq(discounts.active, true) : undefined);
  const total = (await db.select({ n: sql<number>`count(*)` }).from(discounts).where(where).limit(1))[0]!.n;
  const rows = await db
    .select()
    .from(discounts)
    .where(where)
    .orderBy(desc(discounts.createdAt), desc(discounts.id))
    .limit(input.limit)
    .offset(input.offset);
  const now = ctx.deps.clock.now();
  return page(
    rows.map((d) => out(d, now)),
    total,
    input.limit,
    input.offset,
  );
}
