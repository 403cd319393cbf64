/**
 * Custom field definitions per object (contact, company, deal). Values
 * live on the records (custom) and are checked against these on every
 * write (access.ts applyCustom). Removing a select option still in use is
 * refused; deleting a definition removes its values from every record.
 */
import { and, asc, eq, sql } from "drizzle-orm";
import type * as v from "valibot";
import { audit } from "../../core/audit";
import type { ActorContext } from "../../core/context";
import type { Db } from "../../core/db";
import { conflict, invalid, notFound } from "../../core/errors";
import { emit } from "../../core/events";
import { page } from "../../core/pagination";
import { jsonFieldText } from "../../core/sql";
import { crmRead, crmWrite, type Q } from "./access";
import { crmSettingsChanged } from "./events";
import type { fieldCreateInput, fieldUpdateInput } from "./schemas";
import { contacts, crmCompanies, deals, fieldDefs, type CrmObject, type CustomValues } from "./tables";

type Def = typeof fieldDefs.$inferSelect;
// One shape for the three tables (id, companyId, custom): typed as contacts' for the query builder.
const TABLE = { contact: contacts, company: crmCompanies, deal: deals } as unknown as Record<
  CrmObject,
  typeof contacts
>;
const fieldOut = (d: Def) => ({
  id: d.id,
  object: d.object,
  key: d.key,
  label: d.label,
  type: d.type,
  options: d.options,
  required: d.required,
});

async function defOf(q: Q, ctx: ActorContext, id: number): Promise<Def> {
  const d = (
    await q
      .select()
      .from(fieldDefs)
      .where(and(eq(fieldDefs.companyId, ctx.company.id), eq(fieldDefs.id, id)))
      .limit(1)
  )[0];
  if (!d) throw notFound(`Field ${id} not found; see crm_fields_list.`);
  return d;
}

/** Records of the object that hold a value for `key` (id and value). */
async function holders(
  tx: Q,
  companyId: number,
  object: CrmObject,
  key: string,
): Promise<{ id: number; custom: CustomValues }[]> {
  const t = TABLE[object];
  return tx
    .select({ id: t.id, custom: t.custom })
    .from(t)
    .where(and(eq(t.companyId, companyId), sql`${jsonFieldText(t.custom, key)} is not null`));
}

export async function createField(ctx: ActorContext, input: v.InferOutput<typeof fieldCreateInput>) {
  crmWrite(ctx);
  const selecty = input.type === "select" || input.type === "multi_select";
  const options = [...new Set(input.options ?? [])];
  if (selecty && !options.length) throw invalid(`A ${input.type} field needs options.`);
  if (!selecty && input.options) throw invalid("options are for select and multi_select fields.");
  return ctx.deps.db.transaction(async (tx) => {
    const taken = (
      await tx
        .select({ id: fieldDefs.id })
        .from(fieldDefs)
        .where(
          and(
            eq(fieldDefs.companyId, ctx.company.id),
            eq(fieldDefs.object, input.object),
            eq(fieldDefs.key, input.key),
          ),
        )
        .limit(1)
    )[0];
    if (taken) throw conflict(`The ${input.object} field ${input.key} exists (id ${taken.id}).`, { id: taken.id });
    if (input.required) {
      const t = TABLE[input.object];
      const any = (await tx.select({ id: t.id }).from(t).where(eq(t.companyId, ctx.company.id)).limit(1))[0];
      if (any)
        throw conflict(
          `Existing ${input.object}s have no ${input.key}; create the field optional, fill it, then make it required.`,
        );
    }
    const row = (
      await tx
        .insert(fieldDefs)
        .values({
          companyId: ctx.company.id,
          object: input.object,
          key: input.key,
          label: input.label,
          type: input.type,
          options,
          required: input.required,
          createdAt: ctx.deps.clock.now(),
        })
        .returning()
    )[0]!;
    await audit(tx, ctx, "crm.field_create", { type: "crm_field", id: row.id });
    await emit(
      tx,
      ctx,
      crmSettingsChanged,
      { id: row.id },
      { what: "field", action: "created", name: `${row.object}.${row.key}` },
    );
    return fieldOut(row);
  });
}

export async function updateField(ctx: ActorContext, input: v.InferOutput<typeof fieldUpdateInput>) {
  crmWrite(ctx);
  return ctx.deps.db.transaction(async (tx: Db) => {
    const d = await defOf(tx, ctx, input.id);
    let options = d.options;
    if (input.options) {
      if (d.type !== "select" && d.type !== "multi_select")
        throw invalid("options are for select and multi_select fields.");
      options = [...new Set(input.options)];
      if (!options.length) throw invalid("A select field keeps at least one option.");
      const removed = d.options.filter((o) => !options.includes(o));
      if (removed.length) {
        const inUse = (await holders(tx, ctx.company.id, d.object, d.key)).filter((h) => {
          const val = h.custom[d.key];
          return Array.isArray(val) ? val.some((x) => removed.includes(x)) : removed.includes(String(val));
        });
        if (inUse.length)
          throw conflict(
            `Options ${removed.join(", ")} are in use on ${inUse.length} ${d.object}(s) (e.g. id ${inUse[0]!.id}); change those first.`,
          );
      }
    }
    if (input.required && !d.required) {
      const t = TABLE[d.object];
      const total = (await tx.select({ id: t.id }).from(t).where(eq(t.companyId, ctx.company.id))).length;
      const filled = (await holders(tx, ctx.company.id, d.object, d.key)).length;
      if (filled < total)
        throw conflict(`${total - filled} ${d.object}(s) have no ${d.key}; fill them before making it required.`);
    }
    const row = (
      await tx
        .update(fieldDefs)
        .set({ label: input.label ?? d.label, options, required: input.required ?? d.required })
        .where(eq(fieldDefs.id, d.id))
        .returning()
    )[0]!;
    await audit(tx, ctx, "crm.field_update", { type: "crm_field", id: d.id });
    await emit(
      tx,
      ctx,
      crmSettingsChanged,
      { id: d.id },
      { what: "field", action: "updated", name: `${d.object}.${d.key}` },
    );
    return fieldOut(row);
  });
}

export async function deleteField(ctx: ActorContext, input: { id: number }) {
  crmWrite(ctx);
  return ctx.deps.db.transaction(async (tx: Db) => {
    const d = await defOf(tx, ctx, input.id);
    const t = TABLE[d.object];
    const hs = await holders(tx, ctx.company.id, d.object, d.key);
    for (const h of hs) {
      const { [d.key]: _, ...rest } = h.custom;
      await tx.update(t).set({ custom: rest }).where(eq(t.id, h.id));
    }
    await tx.delete(fieldDefs).where(eq(fieldDefs.id, d.id));
    await audit(tx, ctx, "crm.field_delete", {
      type: "crm_field",
      id: d.id,
      detail: { key: d.key, valuesRemoved: hs.length },
    });
    await emit(
      tx,
      ctx,
      crmSettingsChanged,
      { id: d.id },
      { what: "field", action: "deleted", name: `${d.object}.${d.key}` },
    );
    return { id: d.id, status: "deleted", key: d.key, valuesRemoved: hs.length };
  });
}

export async function listFields(ctx: ActorContext, input: { object?: CrmObject; limit: number; offset: number }) {
  crmRead(ctx);
  const rows = await ctx.deps.db
    .select()
    .from(fieldDefs)
    .where(and(eq(fieldDefs.companyId, ctx.company.id), input.object ? eq(fieldDefs.object, input.object) : undefined))
    .orderBy(asc(fieldDefs.object), asc(fieldDefs.id));
  return page(
    rows.slice(input.offset, input.offset + input.limit).map(fieldOut),
    rows.length,
    input.limit,
    input.offset,
  );
}
