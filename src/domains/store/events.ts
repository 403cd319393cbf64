/**
 * What the store tells the rest of Plinth (automations, outgoing webhooks,
 * a renderer revalidating product pages): products created, changed,
 * withdrawn or deleted, and orders placed, moved on or deleted. Payloads
 * carry slugs and cache tags (src/domains/sites/cache-tags.ts); order
 * events carry the customer and the lines, so a receiver can send a
 * confirmation without reading the order back. Money is integer cents.
 */
import * as v from "valibot";
import { defineEvent } from "../../core/events";
import { cacheTags } from "../sites/cache-tags";
import type { products } from "./tables";

const product = {
  productId: v.number(),
  slug: v.string(),
  name: v.string(),
  status: v.string(),
  price: v.number(),
  cacheTags: v.array(v.string()),
};

export const productCreated = defineEvent({
  type: "product.created",
  entity: "product",
  description: "A product was added (status draft, active or inactive); active ones are on sale at once.",
  payload: v.object(product),
});

export const productUpdated = defineEvent({
  type: "product.updated",
  entity: "product",
  description: "A product's fields changed (fields; previousSlug on a rename); revalidate cacheTags.",
  payload: v.object({ ...product, fields: v.array(v.string()), previousSlug: v.nullable(v.string()) }),
});

export const productStatusChanged = defineEvent({
  type: "product.status_changed",
  entity: "product",
  description: "A product was activated, withdrawn or archived (previousStatus → status).",
  payload: v.object({ ...product, previousStatus: v.string() }),
});

export const productDeleted = defineEvent({
  type: "product.deleted",
  entity: "product",
  description: "A product was deleted; its pages are gone.",
  payload: v.object(product),
});

const order = {
  orderId: v.number(),
  status: v.string(),
  currency: v.string(),
  total: v.number(),
  customerEmail: v.nullable(v.string()),
  customerName: v.nullable(v.string()),
  /** Stock shown on these products' pages may have changed. */
  cacheTags: v.array(v.string()),
};

export const orderCreated = defineEvent({
  type: "order.created",
  entity: "order",
  description: "An order was placed (pending), with its lines, totals in cents and the customer.",
  payload: v.object({
    ...order,
    subtotal: v.number(),
    discountTotal: v.number(),
    discountCode: v.nullable(v.string()),
    items: v.array(
      v.object({
        productId: v.nullable(v.number()),
        variantId: v.nullable(v.number()),
        name: v.string(),
        sku: v.nullable(v.string()),
        quantity: v.number(),
        lineTotal: v.number(),
      }),
    ),
  }),
});

export const orderStatusChanged = defineEvent({
  type: "order.status_changed",
  entity: "order",
  description: "An order moved on (paid, fulfilled, cancelled, refunded); restocked says whether stock went back.",
  payload: v.object({ ...order, previousStatus: v.string(), restocked: v.boolean() }),
});

export const orderDeleted = defineEvent({
  type: "order.deleted",
  entity: "order",
  description: "A pending or cancelled order was deleted (a pending one gave its stock back).",
  payload: v.object({ ...order, previousStatus: v.string(), restocked: v.boolean() }),
});

export const storeEvents = [
  productCreated,
  productUpdated,
  productStatusChanged,
  productDeleted,
  orderCreated,
  orderStatusChanged,
  orderDeleted,
];

export function productEventData(p: typeof products.$inferSelect, extraSlugs: (string | null)[] = []) {
  return {
    productId: p.id,
    slug: p.slug,
    name: p.name,
    status: p.status,
    price: p.price,
    cacheTags: cacheTags(p.siteId, "product", p.id, [p.slug, ...extraSlugs]),
  };
}

/** Tags for an order: the products whose stock it touched. */
export function orderCacheTags(siteId: number, productIds: (number | null)[]): string[] {
  const tags = [`site:${siteId}:orders`];
  for (const id of new Set(productIds)) if (id !== null) tags.push(`site:${siteId}:product:${id}`);
  return tags;
}
