/**
 * Product reviews. New reviews wait in `pending` until moderated: approve
 * shows them, hide takes them down (either can be reversed by moderating
 * again). Ratings are whole stars, 1 to 5.
 */
import { and, desc, eq, sql } from "drizzle-orm";
import type * as v from "valibot";
import { audit } from "../../core/audit";
import { iso } from "../../core/clock";
import type { ActorContext } from "../../core/context";
import { notFound } from "../../core/errors";
import { page } from "../../core/pagination";
import { clean, mutate, storeRead, storeWrite } from "./access";
import { productInSite } from "./catalog";
import type { reviewCreateInput, reviewListInput, reviewModerateInput } from "./schemas";
import { products, reviews } from "./tables";

type ReviewRow = typeof reviews.$inferSelect;

const out = (r: ReviewRow, productName?: string) => ({
  id: r.id,
  productId: r.productId,
  ...(productName !== undefined && { productName }),
  authorName: r.authorName,
  authorEmail: r.authorEmail,
  rating: r.rating,
  title: r.title,
  body: r.body,
  status: r.status,
  createdAt: iso(r.createdAt)!,
});

export async function createReview(ctx: ActorContext, input: v.InferOutput<typeof reviewCreateInput>) {
  await storeWrite(ctx, input.siteId);
  const now = ctx.deps.clock.now();
  return mutate(ctx, input.siteId, async (tx) => {
    const product = await productInSite(tx, input.siteId, input.productId);
    const r = (
      await tx
        .insert(reviews)
        .values({
          siteId: input.siteId,
          productId: product.id,
          authorName: input.authorName.trim(),
          authorEmail: input.authorEmail?.trim().toLowerCase() ?? null,
          rating: input.rating,
          title: clean(input.title) ?? null,
          body: clean(input.body) ?? null,
          status: "pending",
          createdAt: now,
        })
        .returning()
    )[0];
    await audit(tx, ctx, "reviews.create", {
      type: "review",
      id: r.id,
      siteId: input.siteId,
      detail: { productId: product.id },
    });
    return { id: r.id, productId: r.productId, status: r.status };
  });
}

export async function moderateReview(ctx: ActorContext, input: v.InferOutput<typeof reviewModerateInput>) {
  await storeWrite(ctx, input.siteId);
  return mutate(ctx, input.siteId, async (tx) => {
    const r = (
      await tx
        .select()
        .from(reviews)
        .where(and(eq(reviews.id, input.id), eq(reviews.siteId, input.siteId)))
        .limit(1)
    )[0];
    if (!r) throw notFound(`Review ${input.id} not found on site ${input.siteId}.`);
    const status = input.action === "approve" ? "approved" : "hidden";
    await tx.update(reviews).set({ status }).where(eq(reviews.id, r.id));
    await audit(tx, ctx, "reviews.moderate", {
      type: "review",
      id: r.id,
      siteId: input.siteId,
      detail: { from: r.status, to: status },
    });
    return { id: r.id, productId: r.productId, status, previousStatus: r.status };
  });
}

export async function listReviews(ctx: ActorContext, input: v.InferOutput<typeof reviewListInput>) {
  await storeRead(ctx, input.siteId);
  const db = ctx.deps.db;
  if (input.productId !== undefined) await productInSite(db, input.siteId, input.productId);
  const where = and(
    eq(reviews.siteId, input.siteId),
    input.productId !== undefined ? eq(reviews.productId, input.productId) : undefined,
    input.status ? eq(reviews.status, input.status) : undefined,
  );
  const stats = (
    await db
      .select({ n: sql<number>`count(*)`, avg: sql<number | null>`avg(${reviews.rating})` })
      .from(reviews)
      .where(where)
      .limit(1)
  )[0]!;
  const rows = await db
    .select({ r: reviews, productName: products.name })
    .from(reviews)
    .innerJoin(products, eq(products.id, reviews.productId))
    .where(where)
    .orderBy(desc(reviews.createdAt), desc(reviews.id))
    .limit(input.limit)
    .offset(input.offset);
  return {
    ...page(
      rows.map((x) => out(x.r, x.productName)),
      stats.n,
      input.limit,
      input.offset,
    ),
    averageRating: stats.avg === null ? null : Math.round(stats.avg * 100) / 100,
  };
}
