/**
 * A company's billing settings: currency, hourly rate, tax, payment terms
 * and what the invoice PDF says about seller and client. Read by
 * subscriptions and invoices as they are made (a company without settings
 * gets the defaults), changed by the agency's people only.
 */
import { eq } from "drizzle-orm";
import * as v from "valibot";
import { audit } from "../../core/audit";
import type { ActorContext } from "../../core/context";
import type { Db } from "../../core/db";
import { emit } from "../../core/events";
import { CURRENCIES, LIMITS, manage, parse } from "./access";
import { settingsUpdated } from "./events";
import { billingSettings } from "./tables";

type Settings = typeof billingSettings.$inferSelect;

const DEFAULTS = {
  currency: "USD",
  hourlyRateCents: null,
  taxName: null,
  taxBasisPoints: 0,
  paymentTermsDays: 14,
  sellerName: "Your agency",
  sellerDetails: null,
  billingAddress: null,
};

export async function settingsOf(
  q: Pick<Db, "select">,
  companyId: number,
): Promise<Omit<Settings, "id" | "companyId" | "updatedAt">> {
  const s = (await q.select().from(billingSettings).where(eq(billingSettings.companyId, companyId)).limit(1))[0];
  return s ?? DEFAULTS;
}

export const settingsInput = v.object({
  currency: v.picklist(CURRENCIES),
  hourlyRateCents: v.nullable(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(LIMITS.amountCents))),
  taxName: v.nullable(v.pipe(v.string(), v.trim(), v.maxLength(60))),
  taxBasisPoints: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(10_000)),
  paymentTermsDays: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(365)),
  sellerName: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(200)),
  sellerDetails: v.nullable(v.pipe(v.string(), v.maxLength(LIMITS.memo))),
  billingAddress: v.nullable(v.pipe(v.string(), v.maxLength(LIMITS.memo))),
});

export async function saveSettings(ctx: ActorContext, raw: v.InferInput<typeof settingsInput>) {
  manage(ctx);
  const input = parse(settingsInput, raw);
  const taxName = input.taxName || null;
  return ctx.deps.db.transaction(async (tx) => {
    const now = ctx.deps.clock.now();
    const row = { ...input, taxName, companyId: ctx.company.id, updatedAt: now };
    const saved = (
      await tx
        .insert(billingSettings)
        .values(row)
        .onConflictDoUpdate({ target: billingSettings.companyId, set: { ...input, taxName, updatedAt: now } })
        .returning()
    )[0]!;
    await audit(tx, ctx, "billing_settings.update", {
      type: "billing_settings",
      id: saved.id,
      detail: {
        currency: input.currency,
        hourlyRateCents: input.hourlyRateCents,
        taxBasisPoints: input.taxBasisPoints,
      },
    });
    await emit(
      tx,
      ctx,
      settingsUpdated,
      { id: saved.id },
      {
        currency: saved.currency,
        hourlyRateCents: saved.hourlyRateCents,
        taxName: saved.taxName,
        taxBasisPoints: saved.taxBasisPoints,
        paymentTermsDays: saved.paymentTermsDays,
      },
    );
    return { id: saved.id, currency: saved.currency };
  });
}
