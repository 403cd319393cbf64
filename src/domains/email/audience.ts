/**
 * Who a campaign reaches: subscribers with status `subscribed` on at least
 * one of its lists, not blocklisted, and — when it names segments — held by
 * at least one of them. Walked in keyset-paged batches by subscriber id, so
 * queuing 50,000 recipients holds one batch in memory at a time and can
 * resume from a cursor after a crash.
 */
import { and, eq, gt, inArray } from "drizzle-orm";
import type { Db } from "../../core/db";
import { contactFactsByEmails } from "../crm/facts";
import { matches, usesCrm, type Candidate, type Rules } from "./segment-rules";
import { emailMemberships, emailSubscribers } from "./tables";

export const AUDIENCE_BATCH = 500;

export interface Batch {
  recipients: Candidate[];
  /** The last subscriber id looked at (the next cursor). */
  lastId: number;
  done: boolean;
}

/**
 * Loads candidates (with every list status) for subscriber ids of one
 * company; with `crm`, also the CRM contact of each address in the same
 * company (one query for the batch, through the CRM domain's reader).
 */
export async function candidates(db: Pick<Db, "select">, companyId: number, ids: number[], crm = false): Promise<Candidate[]> {
  if (ids.length === 0) return [];
  const subs = await db
    .select({ id: emailSubscribers.id, email: emailSubscribers.email, name: emailSubscribers.name, attributes: emailSubscribers.attributes, createdAt: emailSubscribers.createdAt, blocklisted: emailSubscribers.blocklisted })
    .from(emailSubscribers)
    .where(and(eq(emailSubscribers.companyId, companyId), inArray(emailSubscribers.id, ids)));
  const mems = await db
    .select({ subscriberId: emailMemberships.subscriberId, listId: emailMemberships.listId, status: emailMemberships.status })
    .from(emailMemberships)
    .where(inArray(emailMemberships.subscriberId, ids));
  const lists = new Map<number, Map<number, string>>();
  for (const m of mems) {
    let l = lists.get(m.subscriberId);
    if (!l) lists.set(m.subscriberId, (l = new Map()));
    l.set(m.listId, m.status);
  }
  const live = subs.filter((s) => !s.blocklisted);
  const facts = crm ? await contactFactsByEmails(db, companyId, live.map((s) => s.email)) : null;
  return live
    .map((s) => ({ id: s.id, email: s.email, name: s.name, attributes: s.attributes, createdAt: s.createdAt, lists: lists.get(s.id) ?? new Map(), ...(facts && { crm: facts.get(s.email) ?? null }) }))
    .sort((a, b) => a.id - b.id);
}

export async function audienceBatch(db: Pick<Db, "select" | "selectDistinct">, companyId: number, listIds: number[], segments: Rules[], afterId: number, size = AUDIENCE_BATCH): Promise<Batch> {
  if (listIds.length === 0) return { recipients: [], lastId: afterId, done: true };
  const ids = (
    await db
      .selectDistinct({ id: emailMemberships.subscriberId })
      .from(emailMemberships)
      .where(and(eq(emailMemberships.companyId, companyId), inArray(emailMemberships.listId, listIds), eq(emailMemberships.status, "subscribed"), gt(emailMemberships.subscriberId, afterId)))
      .orderBy(emailMemberships.subscriberId)
      .limit(size)
  ).map((r) => r.id);
  const found = await candidates(db, companyId, ids, usesCrm(segments));
  const recipients = segments.length ? found.filter((c) => segments.some((r) => matches(r, c))) : found;
  return { recipients, lastId: ids.length ? ids[ids.length - 1]! : afterId, done: ids.length < size };
}

/** How many a campaign would reach now, and the first few (for previews). */
export async function audienceSize(db: Pick<Db, "select" | "selectDistinct">, companyId: number, listIds: number[], segments: Rules[], sampleSize = 0): Promise<{ count: number; sample: Candidate[] }> {
  let count = 0;
  let cursor = 0;
  const sample: Candidate[] = [];
  for (;;) {
    const b = await audienceBatch(db, companyId, listIds, segments, cursor, 2000);
    count += b.recipients.length;
    for (const r of b.recipients) if (sample.length < sampleSize) sample.push(r);
    if (b.done) break;
    cursor = b.lastId;
  }
  return { count, sample };
}

/** Subscribers of a company matching rules alone (a segment on its own, whatever their list status). */
export async function segmentMembers(db: Pick<Db, "select">, companyId: number, rules: Rules, sampleSize: number): Promise<{ count: number; sample: Candidate[] }> {
  let count = 0;
  let cursor = 0;
  const sample: Candidate[] = [];
  for (;;) {
    const ids = (
      await db
        .select({ id: emailSubscribers.id })
        .from(emailSubscribers)
        .where(and(eq(emailSubscribers.companyId, companyId), gt(emailSubscribers.id, cursor)))
        .orderBy(emailSubscribers.id)
        .limit(2000)
    ).map((r) => r.id);
    for (const c of await candidates(db, companyId, ids, usesCrm([rules]))) {
      if (!matches(rules, c)) continue;
      count++;
      if (sample.length < sampleSize) sample.push(c);
    }
    if (ids.length < 2000) break;
    cursor = ids[ids.length - 1]!;
  }
  return { count, sample };
}
