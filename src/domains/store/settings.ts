/**
 * Store settings per site: whether the store is enabled (REST serves
 * products and product categories only for an enabled store, and
 * SiteConfig.storeEnabled reports it), its currency and whether catalog
 * prices include tax. A site has no store until settings are first written.
 */
import { eq } from "drizzle-orm";
import type * as v from "valibot";
import { audit } from "../../core/audit";
import { iso } from "../../core/clock";
import type { ActorContext } from "../../core/context";
import { invalid } from "../../core/errors";
import { mutate, storeRead, storeWrite, type Q } from "./access";
import type { siteOnly, storeSettingsUpdateInput } from "./schemas";
import { stores } from "./tables";

const CURRENCIES = new Set(Intl.supportedValuesOf("currency"));

export async function storeOf(q: Q, siteId: number) {
  return (await q.select().from(stores).where(eq(stores.siteId, siteId)).limit(1))[0] ?? null;
}

function out(siteId: number, row: typeof stores.$inferSelect | null) {
  return {
    siteId,
    configured: row !== null,
    enabled: row?.enabled ?? false,
    currency: row?.currency ?? "USD",
    taxInclusive: row?.taxInclusive ?? false,
    updatedAt: iso(row?.updatedAt ?? null),
  };
}

export async function getStoreSettings(ctx: ActorContext, input: v.InferOutput<typeof siteOnly>) {
  await storeRead(ctx, input.siteId);
  return out(input.siteId, await storeOf(ctx.deps.db, input.siteId));
}

export async function updateStoreSettings(ctx: ActorContext, input: v.InferOutput<typeof storeSettingsUpdateInput>) {
  await storeWrite(ctx, input.siteId);
  const currency = input.currency?.toUpperCase();
  if (currency !== undefined && !CURRENCIES.has(currency))
    throw invalid(`"${input.currency}" is not an ISO 4217 currency code.`);
  const now = ctx.deps.clock.now();
  return mutate(ctx, input.siteId, async (tx) => {
    const set = {
      ...(input.enabled !== undefined && { enabled: input.enabled }),
      ...(currency !== undefined && { currency }),
      ...(input.taxInclusive !== undefined && { taxInclusive: input.taxInclusive }),
    };
    const row = (
      await tx
        .insert(stores)
        .values({ siteId: input.siteId, ...set, createdAt: now, updatedAt: now })
        .onConflictDoUpdate({ target: stores.siteId, set: { ...set, updatedAt: now } })
        .returning()
    )[0];
    await audit(tx, ctx, "store_settings.update", {
      type: "store",
      id: input.siteId,
      siteId: input.siteId,
      detail: set,
    });
    return out(input.siteId, row);
  });
}
