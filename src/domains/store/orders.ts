/**
 * Orders. Prices come from the catalog at the moment the order is placed
 * (variant price or product price, then the bulk tier for the line's
 * quantity, see pricing.ts); callers never send prices. Totals are integer
 * cents: each line is unit × quantity, the subtotal their exact sum, then
 * one discount code at most.
 *
 * Lifecycle (interface.md leaves it open; decided here):
 *   pending   → paid | cancelled
 *   paid      → fulfilled | refunded
 *   fulfilled → refunded
 *   cancelled, refunded: final
 * Stock: for products with trackInventory, placing an order takes the stock
 * (the variant's quantity for a variant line, the product's otherwise; null
 * counts as 0) and an order that asks for more than there is is refused.
 * Cancelling a pending order or refunding a paid (not yet fulfilled) one puts
 * the stock back; refunding a fulfilled order does not (the goods left; a
 * return is restocked by editing the quantity). Cancelling a pending order
 * also releases its discount-code use.
 *
 * Each line keeps its list price and the bulk rule that applied, and the
 * order keeps the discount code's terms, all as they were when it was
 * placed: later catalog or code changes do not rewrite an order.
 * orders_update edits notes and customer while pending; orders_delete
 * removes pending (giving stock and code use back) or cancelled orders,
 * never paid, fulfilled or refunded ones (those are records of money).
 */
import { and, asc, desc, eq, inArray, sql } from "drizzle-orm";
import type * as v from "valibot";
import { audit } from "../../core/audit";
import { iso } from "../../core/clock";
import type { ActorContext } from "../../core/context";
import { conflict, invalid, notFound } from "../../core/errors";
import { page } from "../../core/pagination";
import { clean, mutate, storeRead, storeWrite, type Q } from "./access";
import { emit } from "../../core/events";
import { orderCacheTags, orderCreated, orderDeleted, orderStatusChanged } from "./events";
import { optionTree, productInSite, type ProductRow, type VariantRow } from "./catalog";
import { customerInSite, findOrCreateCustomer } from "./customers";
import { redeemDiscount, releaseDiscount } from "./discounts";
import { orderTotals, unitPrice, type BulkRule } from "./pricing";
import type {
  OrderCreateInput,
  orderListInput,
  orderRef,
  OrderStatus,
  orderStatusInput,
  orderUpdateInput,
} from "./schemas";
import { storeOf } from "./settings";
import {
  bulkPricingRules,
  customers,
  discounts,
  orderItems,
  orders,
  products,
  productVariants,
  type OrderBulkRule,
} from "./tables";
import { mapSeq } from "../../core/maybe";
import type { Tx } from "../../core/db";

export const ORDER_TRANSITIONS: Record<OrderStatus, readonly OrderStatus[]> = {
  pending: ["paid", "cancelled"],
  paid: ["fulfilled", "refunded"],
  fulfilled: ["refunded"],
  cancelled: [],
  refunded: [],
};

type OrderRow = typeof orders.$inferSelect;

async function orderInSite(q: Q, siteId: number, id: number): Promise<OrderRow> {
  const o = (
    await q
      .select()
      .from(orders)
      .where(and(eq(orders.id, id), eq(orders.siteId, siteId)))
      .limit(1)
  )[0];
  if (!o) throw notFound(`Order ${id} not found on site ${siteId}.`);
  return o;
}

interface PricedLine {
  product: ProductRow;
  variant: VariantRow | null;
  quantity: number;
  /** The variant's or product's price: the unit price before bulk pricing. */
  listPrice: number;
  unitPrice: number;
  bulkRule: OrderBulkRule | null;
  tracked: boolean;
}

async function priceLine(
  tx: Tx,
  siteId: number,
  item: OrderCreateInput["items"][number],
  i: number,
): Promise<PricedLine> {
  const where = `items[${i}]`;
  const product = await productInSite(tx, siteId, item.productId);
  if (product.status !== "active")
    throw conflict(
      `${where}: product ${product.id} ("${product.name}") is ${product.status}; only active products can be ordered.`,
    );
  const hasOptions = (await optionTree(tx, product.id)).length > 0;
  let variant: VariantRow | null = null;
  if (item.variantId !== undefined) {
    variant =
      (
        await tx
          .select()
          .from(productVariants)
          .where(and(eq(productVariants.id, item.variantId), eq(productVariants.productId, product.id)))
          .limit(1)
      )[0] ?? null;
    if (!variant) throw invalid(`${where}: variant ${item.variantId} is not a variant of product ${product.id}.`);
    if (!variant.active)
      throw conflict(`${where}: variant ${variant.id} ("${variant.name}") is inactive and cannot be ordered.`);
  } else if (hasOptions) {
    throw invalid(
      `${where}: product ${product.id} ("${product.name}") has options; give the variantId of the variant ordered.`,
    );
  }
  const rules = (await tx
    .select()
    .from(bulkPricingRules)
    .where(eq(bulkPricingRules.productId, product.id))) as BulkRule[];
  const listPrice = variant?.price ?? product.price;
  const priced = unitPrice(listPrice, rules, item.quantity, variant?.id ?? null);
  const r = priced.rule;
  const bulkRule = r
    ? { id: r.id!, minQuantity: r.minQuantity, maxQuantity: r.maxQuantity, priceType: r.priceType, amount: r.amount }
    : null;
  return {
    product,
    variant,
    quantity: item.quantity,
    listPrice,
    unitPrice: priced.unitPrice,
    bulkRule,
    tracked: product.trackInventory,
  };
}

/** Takes stock for tracked lines; refuses the whole order when any line asks for more than there is. */
async function takeStock(tx: Tx, lines: PricedLine[]) {
  for (const l of lines) {
    if (!l.tracked) continue;
    const table = l.variant ? productVariants : products;
    const id = l.variant?.id ?? l.product.id;
    const taken = (
      await tx
        .update(table)
        .set({ quantity: sql`${table.quantity} - ${l.quantity}` })
        .where(and(eq(table.id, id), sql`coalesce(${table.quantity}, 0) >= ${l.quantity}`))
        .returning({ id: table.id })
    )[0];
    if (!taken) {
      const available = (l.variant ? l.variant.quantity : l.product.quantity) ?? 0;
      const name = l.variant ? `${l.product.name} (${l.variant.name})` : l.product.name;
      throw conflict(
        `Insufficient stock for "${name}": ${l.quantity} requested, ${Math.max(0, available)} available.`,
        {
          productId: l.product.id,
          variantId: l.variant?.id ?? null,
          available: Math.max(0, available),
        },
      );
    }
  }
}

async function restock(tx: Tx, orderId: number) {
  const lines = await tx
    .select()
    .from(orderItems)
    .where(and(eq(orderItems.orderId, orderId), eq(orderItems.stockTaken, true)));
  for (const l of lines) {
    // A line whose product or variant was deleted since has nothing to return to.
    if (l.variantId !== null)
      await tx
        .update(productVariants)
        .set({ quantity: sql`coalesce(${productVariants.quantity}, 0) + ${l.quantity}` })
        .where(eq(productVariants.id, l.variantId));
    else if (l.productId !== null)
      await tx
        .update(products)
        .set({ quantity: sql`coalesce(${products.quantity}, 0) + ${l.quantity}` })
        .where(eq(products.id, l.productId));
  }
  await tx.update(orderItems).set({ stockTaken: false }).where(eq(orderItems.orderId, orderId));
}

async function orderOut(q: Q, o: OrderRow) {
  const items = await q.select().from(orderItems).where(eq(orderItems.orderId, o.id)).orderBy(asc(orderItems.id));
  const customer = o.customerId
    ? ((
        await q
          .select({ id: customers.id, email: customers.email, name: customers.name })
          .from(customers)
          .where(eq(customers.id, o.customerId))
          .limit(1)
      )[0] ?? null)
    : null;
  // Orders placed before the terms were kept name their code through the discount row.
  const legacyCode =
    o.discountCode === null && o.discountId !== null
      ? ((await q.select({ code: discounts.code }).from(discounts).where(eq(discounts.id, o.discountId)).limit(1))[0]
          ?.code ?? null)
      : null;
  const code = o.discountCode ?? legacyCode;
  return {
    id: o.id,
    siteId: o.siteId,
    status: o.status,
    currency: o.currency,
    customer,
    items: items.map((l) => ({
      id: l.id,
      productId: l.productId,
      variantId: l.variantId,
      name: l.name,
      sku: l.sku,
      quantity: l.quantity,
      listPrice: l.listPrice,
      unitPrice: l.unitPrice,
      bulkRule: l.bulkRule ?? null,
      lineTotal: l.lineTotal,
    })),
    subtotal: o.subtotal,
    discountCode: code,
    discount:
      code === null ? null : { code, kind: o.discountKind, amount: o.discountAmount, discountTotal: o.discountTotal },
    discountTotal: o.discountTotal,
    total: o.total,
    notes: o.notes,
    createdAt: iso(o.createdAt)!,
    updatedAt: iso(o.updatedAt)!,
  };
}

/** The common part of an order event, read before the change. */
async function orderEventBase(tx: Q, o: OrderRow) {
  const out = await orderOut(tx, o);
  return {
    orderId: o.id,
    status: o.status,
    currency: o.currency,
    total: o.total,
    customerEmail: out.customer?.email ?? null,
    customerName: out.customer?.name ?? null,
    cacheTags: orderCacheTags(
      o.siteId,
      out.items.map((l) => l.productId),
    ),
  };
}

export async function createOrder(ctx: ActorContext, input: OrderCreateInput) {
  await storeWrite(ctx, input.siteId);
  if (input.customerId !== undefined && input.customer) throw invalid("Give customerId or customer, not both.");
  const seen = new Set<string>();
  input.items.forEach((it, i) => {
    const key = `${it.productId}:${it.variantId ?? ""}`;
    if (seen.has(key))
      throw invalid(`items[${i}] repeats a product/variant already in the order; put the whole quantity on one line.`);
    seen.add(key);
  });
  const now = ctx.deps.clock.now();
  return mutate(ctx, input.siteId, async (tx) => {
    const store = await storeOf(tx, input.siteId);
    if (!store?.enabled)
      throw conflict(`Site ${input.siteId} has no enabled store; enable it with store_settings_update first.`);
    const customer =
      input.customerId !== undefined
        ? await customerInSite(tx, input.siteId, input.customerId)
        : input.customer
          ? await findOrCreateCustomer(tx, input.siteId, input.customer.email, input.customer.name, now)
          : null;
    const lines = await mapSeq(input.items, async (it, i) => await priceLine(tx, input.siteId, it, i));
    const subtotalOnly = orderTotals(lines);
    const discount = input.discountCode
      ? await redeemDiscount(tx, input.siteId, input.discountCode, subtotalOnly.subtotal, now)
      : null;
    const totals = orderTotals(lines, discount?.terms);
    await takeStock(tx, lines);
    const order = (
      await tx
        .insert(orders)
        .values({
          siteId: input.siteId,
          customerId: customer?.id ?? null,
          status: "pending",
          currency: store.currency,
          subtotal: totals.subtotal,
          discountTotal: totals.discountTotal,
          total: totals.total,
          discountId: discount?.row.id ?? null,
          discountCode: discount?.row.code ?? null,
          discountKind: discount?.terms.kind ?? null,
          discountAmount: discount?.terms.amount ?? null,
          notes: clean(input.notes) ?? null,
          createdAt: now,
          updatedAt: now,
        })
        .returning()
    )[0];
    await mapSeq(
      lines,
      async (l, i) =>
        await tx.insert(orderItems).values({
          orderId: order.id,
          productId: l.product.id,
          variantId: l.variant?.id ?? null,
          name: l.variant ? `${l.product.name} — ${l.variant.name}` : l.product.name,
          sku: l.variant?.sku ?? l.product.sku,
          quantity: l.quantity,
          listPrice: l.listPrice,
          unitPrice: l.unitPrice,
          bulkRule: l.bulkRule,
          lineTotal: totals.lineTotals[i]!,
          stockTaken: l.tracked,
        }),
    );
    await audit(tx, ctx, "orders.create", {
      type: "order",
      id: order.id,
      siteId: input.siteId,
      detail: { total: totals.total, lines: lines.length, discount: discount?.row.code ?? null },
    });
    const out = await orderOut(tx, order);
    await emit(
      tx,
      ctx,
      orderCreated,
      { id: order.id, siteId: input.siteId },
      {
        orderId: order.id,
        status: order.status,
        currency: order.currency,
        total: order.total,
        subtotal: order.subtotal,
        discountTotal: order.discountTotal,
        discountCode: order.discountCode,
        customerEmail: out.customer?.email ?? null,
        customerName: out.customer?.name ?? null,
        cacheTags: orderCacheTags(
          input.siteId,
          out.items.map((l) => l.productId),
        ),
        items: out.items.map((l) => ({
          productId: l.productId,
          variantId: l.variantId,
          name: l.name,
          sku: l.sku,
          quantity: l.quantity,
          lineTotal: l.lineTotal,
        })),
      },
    );
    return out;
  });
}

export async function updateOrderStatus(ctx: ActorContext, input: v.InferOutput<typeof orderStatusInput>) {
  await storeWrite(ctx, input.siteId);
  const now = ctx.deps.clock.now();
  return mutate(ctx, input.siteId, async (tx) => {
    const before = await orderInSite(tx, input.siteId, input.id);
    const from = before.status as OrderStatus;
    if (from === input.status) return { id: before.id, status: from, previousStatus: from };
    if (!ORDER_TRANSITIONS[from].includes(input.status))
      throw conflict(
        `An order cannot go from ${from} to ${input.status}. ` +
          (ORDER_TRANSITIONS[from].length
            ? `Allowed from ${from}: ${ORDER_TRANSITIONS[from].join(", ")}.`
            : `${from} is final.`),
      );
    const restocked = input.status === "cancelled" || (input.status === "refunded" && from === "paid");
    if (restocked) await restock(tx, before.id);
    if (input.status === "cancelled" && before.discountId !== null) await releaseDiscount(tx, before.discountId);
    await tx.update(orders).set({ status: input.status, updatedAt: now }).where(eq(orders.id, before.id));
    await audit(tx, ctx, "orders.update_status", {
      type: "order",
      id: before.id,
      siteId: input.siteId,
      detail: { from, to: input.status, restocked },
    });
    await emit(
      tx,
      ctx,
      orderStatusChanged,
      { id: before.id, siteId: input.siteId },
      { ...(await orderEventBase(tx, before)), status: input.status, previousStatus: from, restocked },
    );
    return { id: before.id, status: input.status, previousStatus: from, restocked };
  });
}

/** Notes and customer of a pending order; an order that has moved on keeps what it was placed with. */
export async function updateOrder(ctx: ActorContext, input: v.InferOutput<typeof orderUpdateInput>) {
  await storeWrite(ctx, input.siteId);
  if (input.customerId !== undefined && input.customer) throw invalid("Give customerId or customer, not both.");
  const fields = (["notes", "customerId", "customer"] as const).filter((k) => input[k] !== undefined);
  if (fields.length === 0)
    throw invalid("Nothing to update: give notes, customerId (null for none) or customer {email, name}.");
  const now = ctx.deps.clock.now();
  return mutate(ctx, input.siteId, async (tx) => {
    const before = await orderInSite(tx, input.siteId, input.id);
    if (before.status !== "pending")
      throw conflict(
        `Order ${before.id} is ${before.status}; only pending orders can be edited (its notes and customer stay as they were).`,
      );
    const set: Partial<OrderRow> = { updatedAt: now };
    if (input.notes !== undefined) set.notes = clean(input.notes) ?? null;
    if (input.customerId !== undefined)
      set.customerId = input.customerId === null ? null : (await customerInSite(tx, input.siteId, input.customerId)).id;
    if (input.customer)
      set.customerId = (
        await findOrCreateCustomer(tx, input.siteId, input.customer.email, input.customer.name, now)
      ).id;
    const order = (await tx.update(orders).set(set).where(eq(orders.id, before.id)).returning())[0];
    await audit(tx, ctx, "orders.update", { type: "order", id: order.id, siteId: input.siteId, detail: { fields } });
    const out = await orderOut(tx, order);
    return { id: out.id, status: out.status, customer: out.customer, notes: out.notes };
  });
}

/** Statuses whose orders stay as records: what to do instead of deleting. */
const KEPT: Partial<Record<OrderStatus, string>> = {
  paid: 'a paid order is the record of a payment: refund it instead (orders_update_status, status "refunded")',
  fulfilled:
    'a fulfilled order is the record of a sale: refund it instead (orders_update_status, status "refunded") if the money goes back',
  refunded: "a refunded order is the record of a payment and its refund, and refunded is final",
};

/**
 * Deletes a pending or cancelled order. A pending one first gives back what
 * placing it took (tracked stock, its discount-code use), as cancelling would.
 */
export async function deleteOrder(ctx: ActorContext, input: v.InferOutput<typeof orderRef>) {
  await storeWrite(ctx, input.siteId);
  return mutate(ctx, input.siteId, async (tx) => {
    const before = await orderInSite(tx, input.siteId, input.id);
    const status = before.status as OrderStatus;
    const kept = KEPT[status];
    if (kept)
      throw conflict(`Order ${before.id} is ${status}; only pending or cancelled orders can be deleted, and ${kept}.`);
    const restocked = status === "pending";
    if (restocked) {
      await restock(tx, before.id);
      if (before.discountId !== null) await releaseDiscount(tx, before.discountId);
    }
    const base = await orderEventBase(tx, before);
    await tx.delete(orderItems).where(eq(orderItems.orderId, before.id));
    await tx.delete(orders).where(eq(orders.id, before.id));
    await emit(
      tx,
      ctx,
      orderDeleted,
      { id: before.id, siteId: input.siteId },
      { ...base, status: "deleted", previousStatus: status, restocked },
    );
    await audit(tx, ctx, "orders.delete", {
      type: "order",
      id: before.id,
      siteId: input.siteId,
      detail: { previousStatus: status, total: before.total, restocked },
    });
    return { id: before.id, status: "deleted", previousStatus: status, restocked };
  });
}

export async function getOrder(ctx: ActorContext, input: v.InferOutput<typeof orderRef>) {
  await storeRead(ctx, input.siteId);
  return await orderOut(ctx.deps.db, await orderInSite(ctx.deps.db, input.siteId, input.id));
}

export async function listOrders(ctx: ActorContext, input: v.InferOutput<typeof orderListInput>) {
  await storeRead(ctx, input.siteId);
  const db = ctx.deps.db;
  const where = and(
    eq(orders.siteId, input.siteId),
    input.status ? eq(orders.status, input.status) : undefined,
    input.customerId ? eq(orders.customerId, input.customerId) : undefined,
  );
  const total = (await db.select({ n: sql<number>`count(*)` }).from(orders).where(where).limit(1))[0]!.n;
  const rows = await db
    .select({ o: orders, email: customers.email })
    .from(orders)
    .leftJoin(customers, eq(customers.id, orders.customerId))
    .where(where)
    .orderBy(desc(orders.createdAt), desc(orders.id))
    .limit(input.limit)
    .offset(input.offset);
  const counts = rows.length
    ? await db
        .select({ orderId: orderItems.orderId, n: sql<number>`sum(${orderItems.quantity})` })
        .from(orderItems)
        .where(
          inArray(
            orderItems.orderId,
            rows.map((r) => r.o.id),
          ),
        )
        .groupBy(orderItems.orderId)
    : [];
  const items = rows.map(({ o, email }) => ({
    id: o.id,
    status: o.status,
    currency: o.currency,
    customerId: o.customerId,
    customerEmail: email ?? null,
    units: counts.find((c) => c.orderId === o.id)?.n ?? 0,
    subtotal: o.subtotal,
    discountTotal: o.discountTotal,
    total: o.total,
    createdAt: iso(o.createdAt)!,
  }));
  return page(items, total, input.limit, input.offset);
}
