/**
 * Who a campaign reaches: subscribers with status `subscribed` on at least
 * one of its lists, not blocklisted, and — when it names segments — held by
 * at least one of them. Walked in keyset-paged batches by subscriber id, so
 * queuing 50,000 recipients holds one batch in memory at a time and can
 * resume from a cursor after a crash.
 *
 * Conditions are pushed into the query (segment-rules.ts planRules); the
 * few SQL cannot take (a company whose older subscribers are not folded
 * yet, a CRM condition listing past 5,000 values) are checked in process
 * on what the query lets through. A segment made only of SQL conditions is
 * counted by the database without loading a row.
 */
import { and, count, countDistinct, eq, gt, inArray, isNull, or, type SQL } from "drizzle-orm";
import type { Db } from "../../core/db";
import { contactFactsByEmails, factContext, type FactContext } from "../crm/facts";
import type { Deps } from "../../core/context";
import { anyRow, type JobDef } from "../../core/jobs";
import { foldSubscriber, matches, planRules, usesCrm, type Candidate, type Rules } from "./segment-rules";

const usesLists = (rules: Rules[]) => rules.some((r) => r.conditions.some((c) => c.field === "list"));
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
export async function candidates(
  db: Pick<Db, "select">,
  companyId: number,
  ids: number[],
  crm = false,
  withLists = true,
): Promise<Candidate[]> {
  if (ids.length === 0) return [];
  const subs = await db
    .select({
      id: emailSubscribers.id,
      email: emailSubscribers.email,
      name: emailSubscribers.name,
      attributes: emailSubscribers.attributes,
      createdAt: emailSubscribers.createdAt,
      blocklisted: emailSubscribers.blocklisted,
    })
    .from(emailSubscribers)
    .where(and(eq(emailSubscribers.companyId, companyId), inArray(emailSubscribers.id, ids)));
  const mems = withLists
    ? await db
        .select({
          subscriberId: emailMemberships.subscriberId,
          listId: emailMemberships.listId,
          status: emailMemberships.status,
        })
        .from(emailMemberships)
        .where(inArray(emailMemberships.subscriberId, ids))
    : [];
  const lists = new Map<number, Map<number, string>>();
  for (const m of mems) {
    let l = lists.get(m.subscriberId);
    if (!l) lists.set(m.subscriberId, (l = new Map()));
    l.set(m.listId, m.status);
  }
  const live = subs.filter((s) => !s.blocklisted);
  const facts = crm
    ? await contactFactsByEmails(
        db,
        companyId,
        live.map((s) => s.email),
      )
    : null;
  return live
    .map((s) => ({
      id: s.id,
      email: s.email,
      name: s.name,
      attributes: s.attributes,
      createdAt: s.createdAt,
      lists: lists.get(s.id) ?? new Map(),
      ...(facts && { crm: facts.get(s.email) ?? null }),
    }))
    .sort((a, b) => a.id - b.id);
}

type Q = Pick<Db, "select" | "selectDistinct">;

const usesText = (rules: Rules[]) =>
  rules.some((r) =>
    r.conditions.some((c) => c.field === "email" || c.field === "name" || c.field.startsWith("attributes.")),
  );

/**
 * What planning the rules needs: the CRM facts context when they name CRM
 * fields, and whether every subscriber of the company has its folded copy
 * (rows written before it existed wait for the fold job; until then text
 * conditions are checked in process, so answers never depend on it).
 */
export async function planContext(
  db: Q,
  companyId: number,
  rules: Rules[],
): Promise<{ crm: FactContext | null; folded: boolean }> {
  const crm = usesCrm(rules)
    ? await factContext(
        db,
        companyId,
        rules.flatMap((r) =>
          r.conditions
            .filter((c) => c.field.startsWith("crm."))
            .map((c) => ({ field: c.field.slice(4), op: c.op, value: c.value })),
        ),
      )
    : null;
  const folded = usesText(rules)
    ? !(
        await db
          .select({ id: emailSubscribers.id })
          .from(emailSubscribers)
          .where(and(eq(emailSubscribers.companyId, companyId), isNull(emailSubscribers.fold)))
          .limit(1)
      ).length
    : true;
  return { crm, folded };
}

/** The SQL that selects exactly the segments' members, or null when some segment needs checking in process. */
async function exactSegments(db: Q, companyId: number, segments: Rules[]): Promise<SQL | undefined | null> {
  if (!segments.length) return undefined;
  const pc = await planContext(db, companyId, segments);
  const plans = segments.map((r) => planRules(r, companyId, pc.crm, { folded: pc.folded }));
  if (plans.some((p) => p.rest)) return null;
  return or(...plans.map((p) => p.sql ?? eq(emailSubscribers.companyId, companyId)));
}

const audienceWhere = (companyId: number, listIds: number[], seg: SQL | undefined) =>
  and(
    eq(emailSubscribers.companyId, companyId),
    eq(emailSubscribers.blocklisted, false),
    eq(emailMemberships.companyId, companyId),
    inArray(emailMemberships.listId, listIds),
    eq(emailMemberships.status, "subscribed"),
    seg,
  );

export async function audienceBatch(
  db: Q,
  companyId: number,
  listIds: number[],
  segments: Rules[],
  afterId: number,
  size = AUDIENCE_BATCH,
): Promise<Batch> {
  if (listIds.length === 0) return { recipients: [], lastId: afterId, done: true };
  const seg = await exactSegments(db, companyId, segments);
  if (seg !== null) {
    const ids = (
      await db
        .selectDistinct({ id: emailSubscribers.id })
        .from(emailSubscribers)
        .innerJoin(emailMemberships, eq(emailMemberships.subscriberId, emailSubscribers.id))
        .where(and(audienceWhere(companyId, listIds, seg), gt(emailSubscribers.id, afterId)))
        .orderBy(emailSubscribers.id)
        .limit(size)
    ).map((r) => r.id);
    return {
      recipients: await candidates(db, companyId, ids),
      lastId: ids.length ? ids[ids.length - 1]! : afterId,
      done: ids.length < size,
    };
  }
  const ids = (
    await db
      .selectDistinct({ id: emailMemberships.subscriberId })
      .from(emailMemberships)
      .where(
        and(
          eq(emailMemberships.companyId, companyId),
          inArray(emailMemberships.listId, listIds),
          eq(emailMemberships.status, "subscribed"),
          gt(emailMemberships.subscriberId, afterId),
        ),
      )
      .orderBy(emailMemberships.subscriberId)
      .limit(size)
  ).map((r) => r.id);
  const found = await candidates(db, companyId, ids, usesCrm(segments), usesLists(segments));
  const recipients = segments.length ? found.filter((c) => segments.some((r) => matches(r, c))) : found;
  return { recipients, lastId: ids.length ? ids[ids.length - 1]! : afterId, done: ids.length < size };
}

/** How many a campaign would reach now, and the first few (for previews). */
export async function audienceSize(
  db: Q,
  companyId: number,
  listIds: number[],
  segments: Rules[],
  sampleSize = 0,
): Promise<{ count: number; sample: Candidate[] }> {
  if (listIds.length === 0) return { count: 0, sample: [] };
  const seg = await exactSegments(db, companyId, segments);
  if (seg !== null) {
    const n = (
      await db
        .select({ n: countDistinct(emailSubscribers.id) })
        .from(emailSubscribers)
        .innerJoin(emailMemberships, eq(emailMemberships.subscriberId, emailSubscribers.id))
        .where(audienceWhere(companyId, listIds, seg))
    )[0]!.n;
    return {
      count: Number(n),
      sample: sampleSize ? (await audienceBatch(db, companyId, listIds, segments, 0, sampleSize)).recipients : [],
    };
  }
  let total = 0;
  let cursor = 0;
  const sample: Candidate[] = [];
  for (;;) {
    const b = await audienceBatch(db, companyId, listIds, segments, cursor, 2000);
    total += b.recipients.length;
    for (const r of b.recipients) if (sample.length < sampleSize) sample.push(r);
    if (b.done) break;
    cursor = b.lastId;
  }
  return { count: total, sample };
}

/** Subscribers of a company matching rules alone (a segment on its own, whatever their list status; blocklisted left out). */
export async function segmentMembers(
  db: Q,
  companyId: number,
  rules: Rules,
  sampleSize: number,
  opts: { inProcess?: boolean } = {},
): Promise<{ count: number; sample: Candidate[] }> {
  const pc = opts.inProcess ? { crm: null, folded: false } : await planContext(db, companyId, [rules]);
  const plan = planRules(rules, companyId, pc.crm, { folded: pc.folded, inProcess: opts.inProcess });
  const base = and(eq(emailSubscribers.companyId, companyId), eq(emailSubscribers.blocklisted, false), plan.sql);
  if (!plan.rest) {
    const n = (await db.select({ n: count() }).from(emailSubscribers).where(base))[0]!.n;
    const ids = sampleSize
      ? (
          await db
            .select({ id: emailSubscribers.id })
            .from(emailSubscribers)
            .where(base)
            .orderBy(emailSubscribers.id)
            .limit(sampleSize)
        ).map((r) => r.id)
      : [];
    return { count: Number(n), sample: await candidates(db, companyId, ids) };
  }
  const rest = plan.rest;
  let total = 0;
  let cursor = 0;
  const sample: Candidate[] = [];
  for (;;) {
    const ids = (
      await db
        .select({ id: emailSubscribers.id })
        .from(emailSubscribers)
        .where(and(base, gt(emailSubscribers.id, cursor)))
        .orderBy(emailSubscribers.id)
        .limit(2000)
    ).map((r) => r.id);
    for (const c of await candidates(db, companyId, ids, usesCrm([rest]), usesLists([rest]))) {
      if (!matches(rest, c)) continue;
      total++;
      if (sample.length < sampleSize) sample.push(c);
    }
    if (ids.length < 2000) break;
    cursor = ids[ids.length - 1]!;
  }
  return { count: total, sample };
}

/** Subscribers without their folded copy: what the fold job folds. */
const unfolded = () => isNull(emailSubscribers.fold);

/**
 * Folds subscribers written before the folded copy existed (a batch per
 * run, oldest first) so their segments go back to SQL; rows it has not
 * reached are checked in process meanwhile (planContext).
 */
export const foldJob: JobDef = {
  name: "email.fold_subscribers",
  description:
    "Write the folded copy segment rules compare for subscribers that lack one (rows from before it existed).",
  everyMs: 60_000,
  pending: (deps) =>
    anyRow(deps.db.select({ id: emailSubscribers.id }).from(emailSubscribers).where(unfolded()).limit(1)),
  async run(deps: Deps) {
    const db = deps.db;
    for (let n = 0; n < 10; n++) {
      const rows = await db
        .select({
          id: emailSubscribers.id,
          email: emailSubscribers.email,
          name: emailSubscribers.name,
          attributes: emailSubscribers.attributes,
        })
        .from(emailSubscribers)
        .where(unfolded())
        .orderBy(emailSubscribers.id)
        .limit(1000);
      if (!rows.length) return;
      await db.transaction(async (tx) => {
        for (const r of rows)
          await tx
            .update(emailSubscribers)
            .set({ fold: foldSubscriber(r) })
            .where(and(eq(emailSubscribers.id, r.id), unfolded()));
      });
    }
  },
};
