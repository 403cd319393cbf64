/** Customers of a site's store, unique by email (stored lower-cased) per site. */
import { and, desc, eq, ne, or, sql } from "drizzle-orm";
import type * as v from "valibot";
import { audit } from "../../core/audit";
import { iso } from "../../core/clock";
import type { ActorContext } from "../../core/context";
import { conflict, notFound } from "../../core/errors";
import { page } from "../../core/pagination";
import { clean, mutate, storeRead, storeWrite, type Q } from "./access";
import type { customerCreateInput, customerListInput, customerRef, customerUpdateInput } from "./schemas";
import { customers, orders } from "./tables";
import { containsText } from "../../core/sql";
import type { Tx } from "../../core/db";

type CustomerRow = typeof customers.$inferSelect;

export async function customerInSite(q: Q, siteId: number, id: number): Promise<CustomerRow> {
  const c = (
    await q
      .select()
      .from(customers)
      .where(and(eq(customers.id, id), eq(customers.siteId, siteId)))
      .limit(1)
  )[0];
  if (!c) throw notFound(`Customer ${id} not found on site ${siteId}.`);
  return c;
}

async function byEmail(q: Q, siteId: number, email: string, exceptId?: number) {
  return (
    (
      await q
        .select()
        .from(customers)
        .where(
          and(
            eq(customers.siteId, siteId),
            eq(customers.email, email.trim().toLowerCase()),
            exceptId ? ne(customers.id, exceptId) : undefined,
          ),
        )
        .limit(1)
    )[0] ?? null
  );
}

/** The customer with this email, created when new (used by orders_create). */
export async function findOrCreateCustomer(
  tx: Tx,
  siteId: number,
  email: string,
  name: string | undefined,
  now: Date,
): Promise<CustomerRow> {
  return (
    (await byEmail(tx, siteId, email)) ??
    (
      await tx
        .insert(customers)
        .values({ siteId, email: email.trim().toLowerCase(), name: clean(name) ?? null, createdAt: now })
        .returning()
    )[0]
  );
}

const out = (c: CustomerRow) => ({
  id: c.id,
  email: c.email,
  name: c.name,
  phone: c.phone,
  createdAt: iso(c.createdAt)!,
});

export async function createCustomer(ctx: ActorContext, input: v.InferOutput<typeof customerCreateInput>) {
  await storeWrite(ctx, input.siteId);
  const now = ctx.deps.clock.now();
  return mutate(ctx, input.siteId, async (tx) => {
    const dup = await byEmail(tx, input.siteId, input.email);
    if (dup) throw conflict(`A customer with email ${dup.email} already exists (customer ${dup.id}).`);
    const c = (
      await tx
        .insert(customers)
        .values({
          siteId: input.siteId,
          email: input.email.trim().toLowerCase(),
          name: clean(input.name) ?? null,
          phone: clean(input.phone) ?? null,
          createdAt: now,
        })
        .returning()
    )[0];
    await audit(tx, ctx, "customers.create", { type: "customer", id: c.id, siteId: input.siteId });
    return { id: c.id, email: c.email };
  });
}

export async function updateCustomer(ctx: ActorContext, input: v.InferOutput<typeof customerUpdateInput>) {
  await storeWrite(ctx, input.siteId);
  return mutate(ctx, input.siteId, async (tx) => {
    const before = await customerInSite(tx, input.siteId, input.id);
    const set: Partial<CustomerRow> = {};
    if (input.email !== undefined) {
      const dup = await byEmail(tx, input.siteId, input.email, before.id);
      if (dup) throw conflict(`A customer with email ${dup.email} already exists (customer ${dup.id}).`);
      set.email = input.email.trim().toLowerCase();
    }
    if (input.name !== undefined) set.name = clean(input.name) ?? null;
    if (input.phone !== undefined) set.phone = clean(input.phone) ?? null;
    const c = Object.keys(set).length
      ? (await tx.update(customers).set(set).where(eq(customers.id, before.id)).returning())[0]
      : before;
    await audit(tx, ctx, "customers.update", {
      type: "customer",
      id: c.id,
      siteId: input.siteId,
      detail: { fields: Object.keys(set) },
    });
    return { id: c.id, email: c.email };
  });
}

export async function getCustomer(ctx: ActorContext, input: v.InferOutput<typeof customerRef>) {
  await storeRead(ctx, input.siteId);
  const db = ctx.deps.db;
  const c = await customerInSite(db, input.siteId, input.id);
  const stats = (
    await db
      .select({
        n: sql<number>`count(*)`,
        spent: sql<number>`coalesce(sum(case when ${orders.status} in ('paid','fulfilled') then ${orders.total} else 0 end), 0)`,
      })
      .from(orders)
      .where(eq(orders.customerId, c.id))
      .limit(1)
  )[0]!;
  return { ...out(c), orders: stats.n, totalSpent: stats.spent };
}

export async function listCustomers(ctx: ActorContext, input: v.InferOutput<typeof customerListInput>) {
  await storeRead(ctx, input.siteId);
  const db = ctx.deps.db;
  const where = and(
    eq(customers.siteId, input.siteId),
    input.search?.trim()
      ? or(containsText(customers.email, input.search.trim()), containsText(customers.name, input.search.trim()))
      : undefined,
  );
  const total = (await db.select({ n: sql<number>`count(*)` }).from(customers).where(where).limit(1))[0]!.n;
  const rows = await db
    .select()
    .from(customers)
    .where(where)
    .orderBy(desc(customers.createdAt), desc(customers.id))
    .limit(input.limit)
    .offset(input.offset);
  return page(rows.map(out), total, input.limit, input.offset);
}
