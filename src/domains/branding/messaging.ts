/**
 * Brand messaging per site: tagline, tone of voice, elevator pitch, key
 * messages and words to avoid. Not part of the REST Branding object; it is
 * what agents read before writing copy. Updates are partial: a given field
 * replaces, null clears, lists are replaced as a whole.
 */
import { eq } from "drizzle-orm";
import type * as v from "valibot";
import { emit } from "../../core/events";
import { brandMessagingUpdated } from "./events";
import { audit } from "../../core/audit";
import { iso } from "../../core/clock";
import { bumpContentVersion } from "../sites/content-version";
import type { ActorContext } from "../../core/context";
import { invalid } from "../../core/errors";
import { authorize } from "../../core/scopes";
import { siteForActor } from "../sites/access";
import { brandingRead } from "./profiles";
import type { messagingUpdateInput, siteOnly } from "./schemas";
import { brandMessaging } from "./tables";

type Row = typeof brandMessaging.$inferSelect;

export function messagingView(siteId: number, row: Row | null) {
  return {
    siteId,
    tagline: row?.tagline ?? null,
    toneOfVoice: row?.toneOfVoice ?? null,
    elevatorPitch: row?.elevatorPitch ?? null,
    keyMessages: row?.keyMessages ?? [],
    wordsToAvoid: row?.wordsToAvoid ?? [],
    updatedAt: iso(row?.updatedAt ?? null),
  };
}

export async function messagingRow(ctx: Pick<ActorContext, "deps">, siteId: number): Promise<Row | null> {
  return (await ctx.deps.db.select().from(brandMessaging).where(eq(brandMessaging.siteId, siteId)).limit(1))[0] ?? null;
}

export async function getMessaging(ctx: ActorContext, input: v.InferOutput<typeof siteOnly>) {
  const site = await brandingRead(ctx, input.siteId);
  return messagingView(site.id, await messagingRow(ctx, site.id));
}

const text = (s: string | null | undefined) => (s === undefined ? undefined : s === null ? null : s.trim() || null);

/** Trimmed, blank entries dropped, duplicates (case-insensitive) dropped; an empty list clears. */
function list(items: string[] | null | undefined): string[] | null | undefined {
  if (items === undefined || items === null) return items;
  const seen = new Set<string>();
  const out = items.map((s) => s.trim()).filter((s) => s && !seen.has(s.toLowerCase()) && seen.add(s.toLowerCase()));
  return out.length ? out : null;
}

export async function updateMessaging(ctx: ActorContext, input: v.InferOutput<typeof messagingUpdateInput>) {
  authorize(ctx, "branding:write", { write: true });
  const site = await siteForActor(ctx, input.siteId);
  const set: Partial<Row> = {};
  const t = {
    tagline: text(input.tagline),
    toneOfVoice: text(input.toneOfVoice),
    elevatorPitch: text(input.elevatorPitch),
  };
  for (const [k, x] of Object.entries(t)) if (x !== undefined) (set as any)[k] = x;
  const k = list(input.keyMessages);
  const w = list(input.wordsToAvoid);
  if (k !== undefined) set.keyMessages = k;
  if (w !== undefined) set.wordsToAvoid = w;
  if (Object.keys(set).length === 0)
    throw invalid(
      "Nothing to update: give at least one of tagline, toneOfVoice, elevatorPitch, keyMessages, wordsToAvoid (null clears).",
    );
  const now = ctx.deps.clock.now();
  const row = await ctx.deps.db.transaction(async (tx) => {
    const r = (
      await tx
        .insert(brandMessaging)
        .values({ siteId: site.id, ...set, createdAt: now, updatedAt: now })
        .onConflictDoUpdate({ target: brandMessaging.siteId, set: { ...set, updatedAt: now } })
        .returning()
    )[0];
    await audit(tx, ctx, "brand_messaging.update", {
      type: "brand_messaging",
      id: site.id,
      siteId: site.id,
      detail: { fields: Object.keys(set) },
    });
    await emit(
      tx,
      ctx,
      brandMessagingUpdated,
      { id: site.id, siteId: site.id },
      { siteId: site.id, fields: Object.keys(set), cacheTags: [`site:${site.id}`] },
    );
    // Messaging is not served by REST today; bumping anyway keeps "every branding write changes the ETag" true.
    await bumpContentVersion(tx, site.id);
    return r;
  });
  const view = messagingView(site.id, row);
  // Compact echo: which fields now hold a value.
  return {
    siteId: site.id,
    status: "saved",
    fields: Object.entries(view)
      .filter(([k, x]) => k !== "siteId" && k !== "updatedAt" && x !== null && !(Array.isArray(x) && !x.length))
      .map(([k]) => k),
    updatedAt: view.updatedAt,
  };
}
