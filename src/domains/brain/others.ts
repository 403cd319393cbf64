/**
 * What the brain reads from other domains without copying it: CRM contacts
 * and deals, project cards. Every read goes through the owning domain's own
 * verb (listContacts, listDeals, getContact, listCards), so its scope check
 * (crm:read, projects:read), its tenancy and its output shape apply
 * unchanged; the brain only marks each item with its `source`.
 *
 * Scope choice: brain:read alone does not open the CRM. A contact's emails
 * and phones and a deal's amount are the CRM's to grant: a key holder who
 * gave an agent brain:read did not thereby give it the sales pipeline. So
 * these reads need brain:read (the tool) and crm:read / projects:read (the
 * owning verb). In brain_search, brain_context and a person's record, other
 * domains' items appear only when the credential holds their scope, and a
 * note says what was left out otherwise.
 */
import * as v from "valibot";
import type { ActorContext } from "../../core/context";
import { isAppError } from "../../core/errors";
import { covers } from "../../core/scopes";
import { contactOf, crmRead } from "../crm/access";
import { getContact, listContacts } from "../crm/contacts";
import { listDeals } from "../crm/deals";
import { contactListInput, dealListInput } from "../crm/schemas";
import { listCards } from "../projects/cards";
import { cardListInput } from "../projects/schemas";
import { and, eq } from "drizzle-orm";
import { readAccess, type Q, type RecordRow } from "./access";
import { brainRecords } from "./tables";

export const canRead = (ctx: ActorContext, scope: "crm:read" | "projects:read") => covers(ctx.principal.scopes, scope);

/** Brain people linked to these CRM contacts: by the stored link, else by a shared email. */
async function peopleOfContacts(
  q: Q,
  companyId: number,
  contacts: { id: number; emails: string[] }[],
): Promise<Map<number, { id: number; title: string }>> {
  const out = new Map<number, { id: number; title: string }>();
  if (!contacts.length) return out;
  const people = await q
    .select({
      id: brainRecords.id,
      title: brainRecords.title,
      data: brainRecords.data,
      uniqueKey: brainRecords.uniqueKey,
    })
    .from(brainRecords)
    .where(and(eq(brainRecords.companyId, companyId), eq(brainRecords.kind, "person")));
  for (const c of contacts) {
    const linked =
      people.find((p) => p.data.crmContactId === c.id) ??
      people.find(
        (p) => p.data.crmContactId === undefined && c.emails.some((e) => p.uniqueKey === `person:${e.toLowerCase()}`),
      );
    if (linked) out.set(c.id, { id: linked.id, title: linked.title });
  }
  return out;
}

export async function brainContacts(ctx: ActorContext, input: { search?: string; limit: number; offset: number }) {
  readAccess(ctx);
  const r = await listContacts(
    ctx,
    v.parse(contactListInput, { q: input.search, limit: input.limit, offset: input.offset }),
  );
  const people = await peopleOfContacts(ctx.deps.db, ctx.company.id, r.items);
  return { source: "crm", ...r, items: r.items.map((c) => ({ ...c, brainPerson: people.get(c.id) ?? null })) };
}

export async function brainDeals(
  ctx: ActorContext,
  input: {
    search?: string;
    contact?: number | string;
    status?: "open" | "won" | "lost";
    limit: number;
    offset: number;
  },
) {
  readAccess(ctx);
  const r = await listDeals(
    ctx,
    v.parse(dealListInput, {
      q: input.search,
      contactId: input.contact,
      status: input.status,
      limit: input.limit,
      offset: input.offset,
    }),
  );
  return { source: "crm", ...r };
}

export async function brainWorkItems(
  ctx: ActorContext,
  input: { project?: number | string; search?: string; limit: number; offset: number },
) {
  readAccess(ctx);
  const cards = await listCards(
    ctx,
    v.parse(cardListInput, {
      projectId: input.project,
      search: input.search,
      limit: input.limit,
      offset: input.offset,
    }),
  );
  return { source: "projects", ...cards };
}

/** The CRM contact id a person record is linked to: `crmContact` (id or email) resolved through the CRM, which checks crm:read. */
export async function linkContact(tx: Q, ctx: ActorContext, ref: number | string): Promise<number> {
  // The CRM's own read check and lookup (its tenancy; merged contacts say where they went): linking to a contact needs seeing it.
  crmRead(ctx);
  return (await contactOf(tx, ctx, typeof ref === "string" ? ref.trim().toLowerCase() : ref)).id;
}

/**
 * A person's CRM contact, live: the stored link, else the contact sharing
 * the person's email. Without crm:read, only that a link exists.
 */
export async function personContact(ctx: ActorContext, row: RecordRow): Promise<Record<string, unknown> | null> {
  const linkedId = typeof row.data.crmContactId === "number" ? row.data.crmContactId : null;
  const email = typeof row.data.email === "string" ? row.data.email : null;
  if (linkedId === null && email === null) return null;
  if (!canRead(ctx, "crm:read"))
    return linkedId !== null
      ? { source: "crm", id: linkedId, note: "Linked to a CRM contact; reading it needs crm:read." }
      : null;
  try {
    const c = await getContact(ctx, { id: linkedId ?? email! });
    return {
      source: "crm",
      linkedBy: linkedId !== null ? "link" : "email",
      id: c.id,
      name: c.name,
      email: c.email,
      jobTitle: c.jobTitle,
      company: c.company,
      lifecycleStage: c.lifecycleStage,
      score: c.score,
      deals: c.deals,
      openTasks: c.openTasks,
    };
  } catch (e) {
    if (isAppError(e) && e.code === "not_found")
      return linkedId !== null
        ? { source: "crm", id: linkedId, missing: true, note: "The linked CRM contact is gone (deleted or merged)." }
        : null;
    throw e;
  }
}

export interface OtherItem {
  source: "crm" | "projects";
  type: "contact" | "deal" | "card";
  id: number;
  title: string;
  detail: string | null;
}

/**
 * Other domains' items matching `words` (all of them, each domain's own
 * search), a few per type, for brain_search's and brain_context's `others`.
 * Only domains the credential may read are asked; `skipped` names the rest.
 */
export async function othersMatching(
  ctx: ActorContext,
  words: readonly string[],
  per = 3,
): Promise<{ items: OtherItem[]; skipped: string[] }> {
  const items: OtherItem[] = [];
  const skipped: string[] = [];
  const q = words.join(" ").slice(0, 200);
  if (!q.trim()) return { items, skipped };
  if (canRead(ctx, "crm:read")) {
    const cs = await listContacts(ctx, v.parse(contactListInput, { q, limit: per, offset: 0 }));
    for (const c of cs.items)
      items.push({
        source: "crm",
        type: "contact",
        id: c.id,
        title: c.name,
        detail: [c.jobTitle, c.company?.name, c.email].filter(Boolean).join(" · ") || null,
      });
    const ds = await listDeals(ctx, v.parse(dealListInput, { q, limit: per, offset: 0 }));
    for (const d of ds.items)
      items.push({
        source: "crm",
        type: "deal",
        id: d.id,
        title: d.name,
        detail: `${d.status}${d.stage ? ` · ${d.stage}` : ""} · ${(d.amountCents / 100).toFixed(2)} ${d.currency}`,
      });
  } else skipped.push("crm (needs crm:read)");
  if (canRead(ctx, "projects:read")) {
    const cards = await listCards(ctx, v.parse(cardListInput, { search: q, limit: per, offset: 0 }));
    for (const c of cards.items)
      items.push({
        source: "projects",
        type: "card",
        id: c.id,
        title: `${c.key} ${c.title}`,
        detail: c.column ?? null,
      });
  } else skipped.push("projects (needs projects:read)");
  return { items, skipped };
}
