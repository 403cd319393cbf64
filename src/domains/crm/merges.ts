/**
 * Merging two contacts or two CRM companies, and undoing it.
 *
 * Nothing is lost: every email, phone and tag of both ends up on the
 * survivor; every activity, deal link (and for companies, every contact and
 * deal) moves over; each other field keeps the survivor's value unless it
 * is empty or `keep` says "merged" for it. The merged record is hidden,
 * not deleted (mergedIntoId), and a crm_merges row records what moved.
 *
 * Undo (crm_merges_undo) within MERGE_UNDO_DAYS brings the merged record
 * back with its addresses, activities and links, and returns the
 * survivor's fields to their pre-merge values, except fields someone
 * changed since the merge (those stay, and the answer lists them).
 */
import { and, desc, eq, inArray } from "drizzle-orm";
import type * as v from "valibot";
import { audit } from "../../core/audit";
import { DAY_MS, iso } from "../../core/clock";
import type { ActorContext } from "../../core/context";
import type { Db } from "../../core/db";
import { conflict, invalid, notFound } from "../../core/errors";
import { emit } from "../../core/events";
import { page } from "../../core/pagination";
import {
  companyOf,
  companySearch,
  contactOf,
  contactSearch,
  crmRead,
  crmWrite,
  fullName,
  phoneDigits,
  uniq,
} from "./access";
import { recordMerged } from "./events";
import type { companyMergeInput, contactMergeInput } from "./schemas";
import { rescore } from "./scoring";
import {
  activities,
  contactEmails,
  contacts,
  crmCompanies,
  dealContacts,
  deals,
  merges,
  type CustomValues,
} from "./tables";

export const MERGE_UNDO_DAYS = 30;

type Fields = Record<string, unknown>;
const CONTACT_FIELDS = ["firstName", "lastName", "jobTitle", "crmCompanyId", "ownerId", "lifecycleStage"] as const;
const COMPANY_FIELDS = ["name", "domain", "size", "industry", "ownerId"] as const;
const PUBLIC: Record<string, string> = { crmCompanyId: "companyId" };
const empty = (x: unknown) => x === null || x === undefined || x === "" || (Array.isArray(x) && !x.length);

/** Field by field: survivor's, unless empty or keep says merged. */
function choose(
  keys: readonly string[],
  s: Fields,
  l: Fields,
  sc: CustomValues,
  lc: CustomValues,
  keep: Record<string, "survivor" | "merged"> = {},
) {
  const known = new Set([
    ...keys.map((k) => PUBLIC[k] ?? k),
    ...uniq([...Object.keys(sc), ...Object.keys(lc)]).map((k) => `custom.${k}`),
  ]);
  for (const k of Object.keys(keep))
    if (!known.has(k)) throw invalid(`keep.${k}: no such field; choose among ${[...known].join(", ")}.`);
  const out: Fields = {};
  for (const k of keys) {
    const pick = keep[PUBLIC[k] ?? k];
    out[k] = pick === "merged" ? l[k] : pick === "survivor" ? s[k] : empty(s[k]) ? l[k] : s[k];
  }
  const custom: CustomValues = {};
  for (const k of uniq([...Object.keys(sc), ...Object.keys(lc)])) {
    const pick = keep[`custom.${k}`];
    const val = pick === "merged" ? lc[k] : pick === "survivor" ? sc[k] : sc[k] === undefined ? lc[k] : sc[k];
    if (val !== undefined) custom[k] = val;
  }
  return { fields: out, custom };
}

export async function mergeContacts(ctx: ActorContext, input: v.InferOutput<typeof contactMergeInput>) {
  crmWrite(ctx);
  return ctx.deps.db.transaction(async (tx) => {
    const s = await contactOf(tx, ctx, input.id);
    const l = await contactOf(tx, ctx, input.mergeId, "mergeId");
    if (s.id === l.id) throw invalid("id and mergeId are the same contact.");
    const now = ctx.deps.clock.now();
    const { fields, custom } = choose(CONTACT_FIELDS, s, l, s.custom, l.custom, input.keep);
    const emails = uniq([...s.emails, ...l.emails]);
    const seen = new Set(s.phones.map((p) => phoneDigits(p.number)));
    const phones = [...s.phones, ...l.phones.filter((p) => !seen.has(phoneDigits(p.number)))];
    const tags = uniq([...s.tags, ...l.tags]).sort();
    if (emails.length > 20 || tags.length > 30)
      throw invalid("Merged, the contact would hold more than 20 addresses or 30 tags; trim one first.");
    const after = { ...fields, emails, phones, tags, custom };
    const before = {
      ...Object.fromEntries(CONTACT_FIELDS.map((k) => [k, s[k]])),
      emails: s.emails,
      phones: s.phones,
      tags: s.tags,
      custom: s.custom,
    };
    const movedActivityIds = (
      await tx.select({ id: activities.id }).from(activities).where(eq(activities.contactId, l.id))
    ).map((r) => r.id);
    if (movedActivityIds.length)
      await tx.update(activities).set({ contactId: s.id }).where(inArray(activities.id, movedActivityIds));
    const loserDeals = (
      await tx.select({ d: dealContacts.dealId }).from(dealContacts).where(eq(dealContacts.contactId, l.id))
    ).map((r) => r.d);
    const survivorDeals = new Set(
      (await tx.select({ d: dealContacts.dealId }).from(dealContacts).where(eq(dealContacts.contactId, s.id))).map(
        (r) => r.d,
      ),
    );
    const dealIdsAdded = loserDeals.filter((d) => !survivorDeals.has(d));
    if (dealIdsAdded.length)
      await tx.insert(dealContacts).values(dealIdsAdded.map((dealId) => ({ dealId, contactId: s.id })));
    await tx.delete(dealContacts).where(eq(dealContacts.contactId, l.id));
    await tx.update(contactEmails).set({ contactId: s.id }).where(eq(contactEmails.contactId, l.id));
    await tx
      .update(contacts)
      .set({
        ...(fields as object),
        emails,
        phones,
        tags,
        custom,
        search: contactSearch({ ...(fields as any), emails, phones }),
        updatedAt: now,
      })
      .where(eq(contacts.id, s.id));
    await tx.update(contacts).set({ mergedIntoId: s.id, updatedAt: now }).where(eq(contacts.id, l.id));
    // Contacts merged earlier into the loser now point at the survivor, so their hints stay right.
    await tx
      .update(contacts)
      .set({ mergedIntoId: s.id })
      .where(and(eq(contacts.companyId, ctx.company.id), eq(contacts.mergedIntoId, l.id)));
    const m = (
      await tx
        .insert(merges)
        .values({
          companyId: ctx.company.id,
          object: "contact",
          survivorId: s.id,
          mergedId: l.id,
          snapshot: { before, after, movedEmails: l.emails, movedActivityIds, loserDeals, dealIdsAdded },
          byUserId: ctx.principal.userId,
          at: now,
        })
        .returning()
    )[0]!;
    await audit(tx, ctx, "crm.contact_merge", { type: "contact", id: s.id, detail: { mergedId: l.id, mergeId: m.id } });
    await emit(
      tx,
      ctx,
      recordMerged,
      { id: m.id },
      {
        object: "contact",
        action: "merged",
        survivorId: s.id,
        mergedId: l.id,
        survivorName: fullName({ ...s, ...(fields as object) } as any),
        mergedName: fullName(l),
      },
    );
    await rescore(tx, ctx, ctx.company.id, [s.id]);
    return {
      id: s.id,
      mergedId: l.id,
      mergeId: m.id,
      emails,
      activitiesMoved: movedActivityIds.length,
      dealsLinked: dealIdsAdded.length,
      undoUntil: iso(now.getTime() + MERGE_UNDO_DAYS * DAY_MS),
    };
  });
}

export async function mergeCompanies(ctx: ActorContext, input: v.InferOutput<typeof companyMergeInput>) {
  crmWrite(ctx);
  return ctx.deps.db.transaction(async (tx) => {
    const s = await companyOf(tx, ctx, input.id);
    const l = await companyOf(tx, ctx, input.mergeId, "mergeId");
    if (s.id === l.id) throw invalid("id and mergeId are the same company.");
    const now = ctx.deps.clock.now();
    const { fields, custom } = choose(COMPANY_FIELDS, s, l, s.custom, l.custom, input.keep);
    const tags = uniq([...s.tags, ...l.tags])
      .sort()
      .slice(0, 30);
    const before = { ...Object.fromEntries(COMPANY_FIELDS.map((k) => [k, s[k]])), tags: s.tags, custom: s.custom };
    const after = { ...fields, tags, custom };
    // The three tables share id and crm_company_id; typed loosely for the query builder.
    const ids = async (t: typeof contacts, col: typeof contacts.crmCompanyId) =>
      (await tx.select({ id: t.id }).from(t).where(eq(col, l.id))).map((r) => r.id);
    const movedContactIds = await ids(contacts, contacts.crmCompanyId);
    const movedDealIds = await ids(
      deals as unknown as typeof contacts,
      deals.crmCompanyId as unknown as typeof contacts.crmCompanyId,
    );
    const movedActivityIds = await ids(
      activities as unknown as typeof contacts,
      activities.crmCompanyId as unknown as typeof contacts.crmCompanyId,
    );
    if (movedContactIds.length)
      await tx.update(contacts).set({ crmCompanyId: s.id }).where(inArray(contacts.id, movedContactIds));
    if (movedDealIds.length) await tx.update(deals).set({ crmCompanyId: s.id }).where(inArray(deals.id, movedDealIds));
    if (movedActivityIds.length)
      await tx.update(activities).set({ crmCompanyId: s.id }).where(inArray(activities.id, movedActivityIds));
    // The loser's domain is freed first: the survivor may take it (unique per tenant).
    await tx
      .update(crmCompanies)
      .set({ domain: null, mergedIntoId: s.id, updatedAt: now })
      .where(eq(crmCompanies.id, l.id));
    await tx
      .update(crmCompanies)
      .set({
        ...(fields as object),
        tags,
        custom,
        search: companySearch(fields as { name: string; domain: string | null }),
        updatedAt: now,
      })
      .where(eq(crmCompanies.id, s.id));
    await tx
      .update(crmCompanies)
      .set({ mergedIntoId: s.id })
      .where(and(eq(crmCompanies.companyId, ctx.company.id), eq(crmCompanies.mergedIntoId, l.id)));
    const m = (
      await tx
        .insert(merges)
        .values({
          companyId: ctx.company.id,
          object: "company",
          survivorId: s.id,
          mergedId: l.id,
          snapshot: { before, after, loserDomain: l.domain, movedContactIds, movedDealIds, movedActivityIds },
          byUserId: ctx.principal.userId,
          at: now,
        })
        .returning()
    )[0]!;
    await audit(tx, ctx, "crm.company_merge", {
      type: "crm_company",
      id: s.id,
      detail: { mergedId: l.id, mergeId: m.id },
    });
    await emit(
      tx,
      ctx,
      recordMerged,
      { id: m.id },
      {
        object: "company",
        action: "merged",
        survivorId: s.id,
        mergedId: l.id,
        survivorName: String(fields.name),
        mergedName: l.name,
      },
    );
    return {
      id: s.id,
      mergedId: l.id,
      mergeId: m.id,
      domain: fields.domain,
      contactsMoved: movedContactIds.length,
      dealsMoved: movedDealIds.length,
      activitiesMoved: movedActivityIds.length,
      undoUntil: iso(now.getTime() + MERGE_UNDO_DAYS * DAY_MS),
    };
  });
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** Survivor fields back to their pre-merge values where nobody changed them since; returns the ones kept. */
function restoreSet(current: Fields, before: Fields, after: Fields, keys: string[]) {
  const set: Fields = {};
  const kept: string[] = [];
  for (const k of keys) {
    if (same(before[k], after[k])) continue;
    if (same(current[k], after[k])) set[k] = before[k];
    else kept.push(PUBLIC[k] ?? k);
  }
  return { set, kept };
}

export async function undoMerge(ctx: ActorContext, input: { id: number }) {
  crmWrite(ctx);
  return ctx.deps.db.transaction(async (tx: Db) => {
    const m = (
      await tx
        .select()
        .from(merges)
        .where(and(eq(merges.companyId, ctx.company.id), eq(merges.id, input.id)))
        .limit(1)
    )[0];
    if (!m) throw notFound(`Merge ${input.id} not found; see crm_merges_list.`);
    if (m.undoneAt) throw conflict(`Merge ${m.id} was undone at ${iso(m.undoneAt)}.`);
    const now = ctx.deps.clock.now();
    if (now.getTime() > m.at.getTime() + MERGE_UNDO_DAYS * DAY_MS)
      throw conflict(`Merge ${m.id} is older than ${MERGE_UNDO_DAYS} days and can no longer be undone.`);
    const later = (
      await tx
        .select({ id: merges.id })
        .from(merges)
        .where(
          and(eq(merges.companyId, ctx.company.id), eq(merges.object, m.object), eq(merges.mergedId, m.survivorId)),
        )
        .orderBy(desc(merges.id))
        .limit(1)
    )[0];
    const snap = m.snapshot as any;
    const warnings: string[] = [];
    if (m.object === "contact") {
      const s = (await tx.select().from(contacts).where(eq(contacts.id, m.survivorId)))[0];
      const l = (await tx.select().from(contacts).where(eq(contacts.id, m.mergedId)))[0];
      if (!s || !l)
        throw conflict(`Contact ${!s ? m.survivorId : m.mergedId} was deleted since the merge; it cannot be undone.`);
      if (s.mergedIntoId !== null)
        throw conflict(`Contact ${s.id} was itself merged since (merge ${later?.id ?? "?"}); undo that first.`);
      const moved: string[] = snap.movedEmails;
      const owned = (
        await tx
          .select()
          .from(contactEmails)
          .where(
            and(
              eq(contactEmails.companyId, ctx.company.id),
              inArray(contactEmails.email, moved.length ? moved : ["-"]),
            ),
          )
      )
        .filter((r) => r.contactId === s.id)
        .map((r) => r.email);
      const back = moved.filter((e) => owned.includes(e) && !(snap.before.emails as string[]).includes(e));
      for (const e of moved)
        if (!back.includes(e) && !(snap.before.emails as string[]).includes(e))
          warnings.push(`${e} stays where it is now.`);
      if (back.length)
        await tx
          .update(contactEmails)
          .set({ contactId: l.id })
          .where(and(eq(contactEmails.companyId, ctx.company.id), inArray(contactEmails.email, back)));
      const sEmails = s.emails.filter((e) => !back.includes(e));
      const { set, kept } = restoreSet({ ...s }, snap.before, snap.after, [
        ...CONTACT_FIELDS,
        "phones",
        "tags",
        "custom",
      ]);
      if (kept.length) warnings.push(`Changed since the merge, kept as they are: ${kept.join(", ")}.`);
      const acts: number[] = snap.movedActivityIds;
      if (acts.length)
        await tx
          .update(activities)
          .set({ contactId: l.id })
          .where(and(inArray(activities.id, acts), eq(activities.contactId, s.id)));
      const stillDeals = (
        await tx
          .select({ id: deals.id })
          .from(deals)
          .where(inArray(deals.id, (snap.loserDeals as number[]).length ? snap.loserDeals : [-1]))
      ).map((r) => r.id);
      if (stillDeals.length)
        await tx
          .insert(dealContacts)
          .values(stillDeals.map((dealId) => ({ dealId, contactId: l.id })))
          .onConflictDoNothing();
      if ((snap.dealIdsAdded as number[]).length)
        await tx
          .delete(dealContacts)
          .where(and(eq(dealContacts.contactId, s.id), inArray(dealContacts.dealId, snap.dealIdsAdded)));
      const sNext = { ...s, ...set, emails: sEmails } as typeof s;
      await tx
        .update(contacts)
        .set({ ...(set as object), emails: sEmails, search: contactSearch(sNext), updatedAt: now })
        .where(eq(contacts.id, s.id));
      await tx
        .update(contacts)
        .set({ mergedIntoId: null, emails: back, search: contactSearch({ ...l, emails: back }), updatedAt: now })
        .where(eq(contacts.id, l.id));
      await rescore(tx, ctx, ctx.company.id, [s.id, l.id]);
      await tx.update(merges).set({ undoneAt: now }).where(eq(merges.id, m.id));
      await audit(tx, ctx, "crm.merge_undo", { type: "crm_merge", id: m.id });
      await emit(
        tx,
        ctx,
        recordMerged,
        { id: m.id },
        {
          object: "contact",
          action: "undone",
          survivorId: s.id,
          mergedId: l.id,
          survivorName: fullName(sNext),
          mergedName: fullName(l),
        },
      );
      return {
        id: m.id,
        status: "undone",
        survivorId: s.id,
        restoredId: l.id,
        emailsBack: back,
        ...(warnings.length && { warnings }),
      };
    }
    const s = (await tx.select().from(crmCompanies).where(eq(crmCompanies.id, m.survivorId)))[0];
    const l = (await tx.select().from(crmCompanies).where(eq(crmCompanies.id, m.mergedId)))[0];
    if (!s || !l)
      throw conflict(`Company ${!s ? m.survivorId : m.mergedId} was deleted since the merge; it cannot be undone.`);
    if (s.mergedIntoId !== null) throw conflict(`Company ${s.id} was itself merged since; undo that first.`);
    const { set, kept } = restoreSet({ ...s }, snap.before, snap.after, [...COMPANY_FIELDS, "tags", "custom"]);
    if (kept.length) warnings.push(`Changed since the merge, kept as they are: ${kept.join(", ")}.`);
    const sNext = { ...s, ...set } as typeof s;
    await tx
      .update(crmCompanies)
      .set({ ...(set as object), search: companySearch(sNext), updatedAt: now })
      .where(eq(crmCompanies.id, s.id));
    let domain: string | null = snap.loserDomain;
    if (
      domain &&
      (
        await tx
          .select({ id: crmCompanies.id })
          .from(crmCompanies)
          .where(and(eq(crmCompanies.companyId, ctx.company.id), eq(crmCompanies.domain, domain)))
          .limit(1)
      )[0]
    ) {
      warnings.push(`${domain} stays with company ${s.id}.`);
      domain = null;
    }
    await tx
      .update(crmCompanies)
      .set({ mergedIntoId: null, domain, search: companySearch({ name: l.name, domain }), updatedAt: now })
      .where(eq(crmCompanies.id, l.id));
    const back = async (t: typeof contacts, col: typeof contacts.crmCompanyId, ids: number[]) => {
      if (ids.length)
        await tx
          .update(t)
          .set({ crmCompanyId: l.id })
          .where(and(inArray(t.id, ids), eq(col, s.id)));
    };
    await back(contacts, contacts.crmCompanyId, snap.movedContactIds);
    await back(
      deals as unknown as typeof contacts,
      deals.crmCompanyId as unknown as typeof contacts.crmCompanyId,
      snap.movedDealIds,
    );
    await back(
      activities as unknown as typeof contacts,
      activities.crmCompanyId as unknown as typeof contacts.crmCompanyId,
      snap.movedActivityIds,
    );
    await tx.update(merges).set({ undoneAt: now }).where(eq(merges.id, m.id));
    await audit(tx, ctx, "crm.merge_undo", { type: "crm_merge", id: m.id });
    await emit(
      tx,
      ctx,
      recordMerged,
      { id: m.id },
      {
        object: "company",
        action: "undone",
        survivorId: s.id,
        mergedId: l.id,
        survivorName: sNext.name,
        mergedName: l.name,
      },
    );
    return { id: m.id, status: "undone", survivorId: s.id, restoredId: l.id, ...(warnings.length && { warnings }) };
  });
}

export async function listMerges(
  ctx: ActorContext,
  input: { object?: "contact" | "company"; limit: number; offset: number },
) {
  crmRead(ctx);
  const rows = await ctx.deps.db
    .select()
    .from(merges)
    .where(and(eq(merges.companyId, ctx.company.id), input.object ? eq(merges.object, input.object) : undefined))
    .orderBy(desc(merges.at), desc(merges.id));
  const now = ctx.deps.clock.now().getTime();
  return page(
    rows.slice(input.offset, input.offset + input.limit).map((m) => ({
      id: m.id,
      object: m.object,
      survivorId: m.survivorId,
      mergedId: m.mergedId,
      byUserId: m.byUserId,
      at: iso(m.at)!,
      undoneAt: iso(m.undoneAt),
      undoable: !m.undoneAt && now <= m.at.getTime() + MERGE_UNDO_DAYS * DAY_MS,
    })),
    rows.length,
    input.limit,
    input.offset,
  );
}
