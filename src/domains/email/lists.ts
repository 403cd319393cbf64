/** Mailing lists: create, change, delete, read with per-status counts. */
import { and, count, desc, eq, inArray } from "drizzle-orm";
import { audit } from "../../core/audit";
import { iso } from "../../core/clock";
import type { ActorContext } from "../../core/context";
import { emit } from "../../core/events";
import { conflict } from "../../core/errors";
import { page } from "../../core/pagination";
import { authorize } from "../../core/scopes";
import { containsText } from "../../core/sql";
import { listIn, MEMBER_STATUSES, type ListRow } from "./access";
import { listCreated, listDeleted, listUpdated } from "./events";
import { emailCampaigns, emailLists, emailMemberships } from "./tables";
import type { Tx } from "../../core/db";
import type { Deps } from "../../core/context";
import { randomHex } from "../../core/secrets";
import { SIGNUP_KEY_BYTES, signupUrl } from "./signup";

async function countsOf(db: Tx, ids: number[]): Promise<Map<number, Record<string, number>>> {
  const out = new Map<number, Record<string, number>>();
  if (ids.length === 0) return out;
  const rows = await db
    .select({ listId: emailMemberships.listId, status: emailMemberships.status, n: count() })
    .from(emailMemberships)
    .where(inArray(emailMemberships.listId, ids))
    .groupBy(emailMemberships.listId, emailMemberships.status);
  for (const id of ids) out.set(id, Object.fromEntries(MEMBER_STATUSES.map((s) => [s, 0])));
  for (const r of rows) out.get(r.listId)![r.status] = r.n;
  return out;
}

function shape(deps: Deps, l: ListRow, counts?: Record<string, number>) {
  return {
    id: l.id,
    name: l.name,
    description: l.description,
    optIn: l.optIn,
    signupUrl: l.signupKey ? signupUrl(deps, l.signupKey) : null,
    ...(counts ? { counts } : {}),
    createdAt: iso(l.createdAt),
  };
}

async function nameFree(tx: Tx, ctx: ActorContext, name: string, except: number | null) {
  const hit = (
    await tx
      .select({ id: emailLists.id })
      .from(emailLists)
      .where(and(eq(emailLists.companyId, ctx.company.id), eq(emailLists.name, name)))
      .limit(1)
  )[0];
  if (hit && hit.id !== except)
    throw conflict(`A list named "${name}" already exists (id ${hit.id}).`, { path: "name", existingId: hit.id });
}

export async function listLists(ctx: ActorContext, i: { search?: string; limit: number; offset: number }) {
  authorize(ctx, "email:read", { write: false });
  const db = ctx.deps.db;
  const where = and(
    eq(emailLists.companyId, ctx.company.id),
    i.search ? containsText(emailLists.name, i.search) : undefined,
  );
  const total = (await db.select({ n: count() }).from(emailLists).where(where))[0]!.n;
  const rows = await db
    .select()
    .from(emailLists)
    .where(where)
    .orderBy(desc(emailLists.id))
    .limit(i.limit)
    .offset(i.offset);
  const counts = await countsOf(
    db,
    rows.map((r) => r.id),
  );
  return page(
    rows.map((r) => shape(ctx.deps, r, counts.get(r.id))),
    total,
    i.limit,
    i.offset,
  );
}

export async function getList(ctx: ActorContext, i: { id: number }) {
  authorize(ctx, "email:read", { write: false });
  const l = await listIn(ctx.deps.db, ctx, i.id);
  return shape(ctx.deps, l, (await countsOf(ctx.deps.db, [l.id])).get(l.id));
}

export async function createList(
  ctx: ActorContext,
  i: { name: string; description?: string; optIn?: "single" | "double"; publicSignup?: boolean },
) {
  authorize(ctx, "email:write", { write: true });
  return ctx.deps.db.transaction(async (tx) => {
    await nameFree(tx, ctx, i.name, null);
    const now = ctx.deps.clock.now();
    const l = (
      await tx
        .insert(emailLists)
        .values({
          companyId: ctx.company.id,
          name: i.name,
          description: i.description ?? null,
          optIn: i.optIn ?? "double",
          signupKey: i.publicSignup ? randomHex(SIGNUP_KEY_BYTES) : null,
          createdAt: now,
          updatedAt: now,
        })
        .returning()
    )[0]!;
    await audit(tx, ctx, "email.lists.create", {
      type: "email_list",
      id: l.id,
      detail: { name: l.name, optIn: l.optIn, publicSignup: l.signupKey !== null },
    });
    await emit(tx, ctx, listCreated, { id: l.id }, { name: l.name, optIn: l.optIn as "single" });
    return shape(ctx.deps, l);
  });
}

export async function updateList(
  ctx: ActorContext,
  i: {
    id: number;
    name?: string;
    description?: string | null;
    optIn?: "single" | "double";
    publicSignup?: boolean;
  },
) {
  authorize(ctx, "email:write", { write: true });
  return ctx.deps.db.transaction(async (tx) => {
    const l = await listIn(tx, ctx, i.id);
    const fields: string[] = [];
    if (i.name !== undefined && i.name !== l.name) {
      await nameFree(tx, ctx, i.name, l.id);
      fields.push("name");
    }
    if (i.description !== undefined && i.description !== l.description) fields.push("description");
    if (i.optIn !== undefined && i.optIn !== l.optIn) fields.push("optIn");
    if (i.publicSignup !== undefined && i.publicSignup !== (l.signupKey !== null)) fields.push("publicSignup");
    if (fields.length === 0) return { ...shape(ctx.deps, l), changed: [] };
    const next = (
      await tx
        .update(emailLists)
        .set({
          name: i.name ?? l.name,
          description: i.description === undefined ? l.description : i.description,
          optIn: i.optIn ?? l.optIn,
          // Turning the form off and on again mints a new key: a copied form of the old one stops working.
          signupKey: fields.includes("publicSignup")
            ? i.publicSignup
              ? randomHex(SIGNUP_KEY_BYTES)
              : null
            : l.signupKey,
          updatedAt: ctx.deps.clock.now(),
        })
        .where(eq(emailLists.id, l.id))
        .returning()
    )[0]!;
    await audit(tx, ctx, "email.lists.update", { type: "email_list", id: l.id, detail: { fields } });
    await emit(tx, ctx, listUpdated, { id: l.id }, { name: next.name, optIn: next.optIn as "single", fields });
    return { ...shape(ctx.deps, next), changed: fields };
  });
}

export async function deleteList(ctx: ActorContext, i: { id: number }) {
  authorize(ctx, "email:write", { write: true });
  return ctx.deps.db.transaction(async (tx) => {
    const l = await listIn(tx, ctx, i.id);
    // A campaign on its way out still needs its audience.
    const busy = (
      await tx
        .select({ id: emailCampaigns.id, listIds: emailCampaigns.listIds })
        .from(emailCampaigns)
        .where(
          and(
            eq(emailCampaigns.companyId, ctx.company.id),
            inArray(emailCampaigns.status, ["scheduled", "sending", "paused"]),
          ),
        )
    ).filter((c) => c.listIds.includes(l.id));
    if (busy.length)
      throw conflict(
        `List ${l.id} is the audience of campaign ${busy.map((c) => c.id).join(", ")}, which is scheduled or sending; cancel it first.`,
      );
    const members = (
      await tx.select({ n: count() }).from(emailMemberships).where(eq(emailMemberships.listId, l.id))
    )[0]!.n;
    await tx.delete(emailMemberships).where(eq(emailMemberships.listId, l.id));
    await tx.delete(emailLists).where(eq(emailLists.id, l.id));
    await audit(tx, ctx, "email.lists.delete", { type: "email_list", id: l.id, detail: { name: l.name, members } });
    await emit(tx, ctx, listDeleted, { id: l.id }, { name: l.name, members });
    return { id: l.id, status: "deleted" as const };
  });
}
