/**
 * Lead scoring: rules of the company add points to a contact. A field rule
 * adds its points while the contact matches ({ field, op, value }); an
 * activity rule adds its points for every activity of its kind on the
 * contact, fading linearly to zero over decayDays (a call 3 days old under
 * a 10-day decay counts 70%). The score is the rounded sum.
 *
 * Recomputed in the same transaction when a contact or its activities
 * change, when rules change (scoring_rules_recompute, or the rule tools),
 * and hourly by the decay job (crm.score_decay), so fading points leave the score.
 */
import { and, asc, eq, gt, inArray, isNotNull } from "drizzle-orm";
import type * as v from "valibot";
import { audit } from "../../core/audit";
import { DAY_MS } from "../../core/clock";
import type { ActorContext, Deps } from "../../core/context";
import type { Db } from "../../core/db";
import { invalid } from "../../core/errors";
import { emit, type EventActor } from "../../core/events";
import { anyRow, type JobDef } from "../../core/jobs";
import { page } from "../../core/pagination";
import { crmRead, crmWrite, fold, fullName, type ContactRow, type Q } from "./access";
import { contactScoreChanged, crmSettingsChanged } from "./events";
import type { ruleCreateInput, ruleUpdateInput } from "./schemas";
import { activities, contacts, scoringRules, type ScoreCondition } from "./tables";

type Rule = typeof scoringRules.$inferSelect;
const FIELDS = [
  "firstName",
  "lastName",
  "jobTitle",
  "lifecycleStage",
  "email",
  "emailDomain",
  "tags",
  "companyId",
  "ownerId",
  "phone",
];

function fieldValues(c: ContactRow, field: string): unknown[] {
  switch (field) {
    case "email":
      return c.emails;
    case "emailDomain":
      return c.emails.map((e) => e.slice(e.lastIndexOf("@") + 1));
    case "tags":
      return c.tags;
    case "phone":
      return c.phones.map((p) => p.number);
    case "companyId":
      return c.crmCompanyId === null ? [] : [c.crmCompanyId];
    case "ownerId":
      return c.ownerId === null ? [] : [c.ownerId];
    case "firstName":
    case "lastName":
    case "jobTitle":
    case "lifecycleStage": {
      const x = c[field];
      return x === null || x === undefined ? [] : [x];
    }
  }
  const v = c.custom[field.slice("custom.".length)];
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

/** Whether a field condition holds; text compares folded (case and accents ignored). */
export function matches(c: ContactRow, cond: ScoreCondition): boolean {
  const vals = fieldValues(c, cond.field!);
  const want = cond.value;
  const eqv = (x: unknown) => (typeof x === "string" && typeof want === "string" ? fold(x) === fold(want) : x === want);
  switch (cond.op ?? "eq") {
    case "exists":
      return vals.some((x) => x !== "" && x !== null);
    case "eq":
      return vals.some(eqv);
    case "neq":
      return !vals.some(eqv);
    case "contains":
      return vals.some((x) => typeof x === "string" && typeof want === "string" && fold(x).includes(fold(want)));
    case "gt":
      return vals.some((x) => typeof x === "number" && typeof want === "number" && x > want);
    case "lt":
      return vals.some((x) => typeof x === "number" && typeof want === "number" && x < want);
  }
  return false;
}

/** The score of one contact, with the points each rule gave (for contacts_get). */
export function scoreOf(
  c: ContactRow,
  rules: Rule[],
  acts: { kind: string; occurredAt: Date }[],
  now: Date,
): { score: number; breakdown: { ruleId: number; name: string; points: number }[] } {
  let total = 0;
  const breakdown: { ruleId: number; name: string; points: number }[] = [];
  for (const r of rules) {
    let pts = 0;
    if (r.condition.activityKind) {
      for (const a of acts) {
        if (a.kind !== r.condition.activityKind) continue;
        const ageDays = Math.max(0, (now.getTime() - a.occurredAt.getTime()) / DAY_MS);
        pts += r.decayDays === null ? r.points : r.points * Math.max(0, 1 - ageDays / r.decayDays);
      }
    } else if (matches(c, r.condition)) pts = r.points;
    if (pts !== 0) breakdown.push({ ruleId: r.id, name: r.name, points: Math.round(pts * 100) / 100 });
    total += pts;
  }
  return { score: Math.round(total), breakdown };
}

export async function rulesOf(q: Q, companyId: number): Promise<Rule[]> {
  return q.select().from(scoringRules).where(eq(scoringRules.companyId, companyId)).orderBy(asc(scoringRules.id));
}

/** Recomputes the given contacts' scores in `tx`; emits contact.score_changed for each that moved. */
export async function rescore(tx: Db, actor: EventActor, companyId: number, contactIds: number[]): Promise<number> {
  if (!contactIds.length) return 0;
  const rules = await rulesOf(tx, companyId);
  const now = actor.deps.clock.now();
  let changed = 0;
  for (let i = 0; i < contactIds.length; i += 500) {
    const ids = contactIds.slice(i, i + 500);
    const rows = await tx
      .select()
      .from(contacts)
      .where(and(eq(contacts.companyId, companyId), inArray(contacts.id, ids)));
    const acts = rules.some((r) => r.condition.activityKind)
      ? await tx
          .select({ contactId: activities.contactId, kind: activities.kind, occurredAt: activities.occurredAt })
          .from(activities)
          .where(inArray(activities.contactId, ids))
      : [];
    for (const c of rows) {
      const { score } = scoreOf(
        c,
        rules,
        acts.filter((a) => a.contactId === c.id),
        now,
      );
      if (score === c.score) continue;
      changed++;
      await tx.update(contacts).set({ score }).where(eq(contacts.id, c.id));
      await emit(
        tx,
        actor,
        contactScoreChanged,
        { id: c.id },
        { name: fullName(c), email: c.emails[0] ?? null, from: c.score, to: score, ownerUserId: c.ownerId },
      );
    }
  }
  return changed;
}

async function rescoreAll(tx: Db, actor: EventActor, companyId: number): Promise<number> {
  const ids = (await tx.select({ id: contacts.id }).from(contacts).where(eq(contacts.companyId, companyId))).map(
    (r) => r.id,
  );
  return rescore(tx, actor, companyId, ids);
}

function checkRule(input: { field?: string; op?: string; value?: unknown; activityKind?: string }) {
  if (input.activityKind) {
    if (input.field !== undefined) throw invalid("A rule has either field (with op, value) or activityKind, not both.");
    return;
  }
  if (!input.field) throw invalid("A rule needs field (with op and value) or activityKind.");
  if (!FIELDS.includes(input.field) && !/^custom\.[a-z][a-zA-Z0-9_]{0,39}$/.test(input.field))
    throw invalid(`field is one of ${FIELDS.join(", ")} or custom.<key>.`);
  if ((input.op ?? "eq") !== "exists" && input.value === undefined)
    throw invalid(`op ${input.op ?? "eq"} needs a value.`);
}

export async function createRule(ctx: ActorContext, input: v.InferOutput<typeof ruleCreateInput>) {
  crmWrite(ctx);
  checkRule(input);
  return ctx.deps.db.transaction(async (tx) => {
    const condition: ScoreCondition = input.activityKind
      ? { activityKind: input.activityKind }
      : { field: input.field, op: input.op ?? "eq", ...(input.value !== undefined && { value: input.value }) };
    if (!input.activityKind && input.decayDays) throw invalid("decayDays applies to activity rules only.");
    const row = (
      await tx
        .insert(scoringRules)
        .values({
          companyId: ctx.company.id,
          name: input.name,
          condition,
          points: input.points,
          decayDays: input.decayDays ?? null,
          createdAt: ctx.deps.clock.now(),
        })
        .returning()
    )[0]!;
    await audit(tx, ctx, "crm.scoring_rule_create", { type: "crm_scoring_rule", id: row.id });
    await emit(
      tx,
      ctx,
      crmSettingsChanged,
      { id: row.id },
      { what: "scoring_rule", action: "created", name: row.name },
    );
    const rescored = await rescoreAll(tx, ctx, ctx.company.id);
    return { ...ruleOut(row), contactsRescored: rescored };
  });
}

async function ruleOf(q: Q, ctx: ActorContext, id: number) {
  const r = (
    await q
      .select()
      .from(scoringRules)
      .where(and(eq(scoringRules.companyId, ctx.company.id), eq(scoringRules.id, id)))
      .limit(1)
  )[0];
  if (!r) throw invalid(`Scoring rule ${id} not found in ${ctx.company.name}; see scoring_rules_list.`);
  return r;
}

export async function updateRule(ctx: ActorContext, input: v.InferOutput<typeof ruleUpdateInput>) {
  crmWrite(ctx);
  return ctx.deps.db.transaction(async (tx) => {
    const r = await ruleOf(tx, ctx, input.id);
    if (input.decayDays && !r.condition.activityKind) throw invalid("decayDays applies to activity rules only.");
    const row = (
      await tx
        .update(scoringRules)
        .set({
          name: input.name ?? r.name,
          points: input.points ?? r.points,
          decayDays: input.decayDays === undefined ? r.decayDays : input.decayDays,
        })
        .where(eq(scoringRules.id, r.id))
        .returning()
    )[0]!;
    await audit(tx, ctx, "crm.scoring_rule_update", { type: "crm_scoring_rule", id: r.id });
    await emit(tx, ctx, crmSettingsChanged, { id: r.id }, { what: "scoring_rule", action: "updated", name: row.name });
    return { ...ruleOut(row), contactsRescored: await rescoreAll(tx, ctx, ctx.company.id) };
  });
}

export async function deleteRule(ctx: ActorContext, input: { id: number }) {
  crmWrite(ctx);
  return ctx.deps.db.transaction(async (tx) => {
    const r = await ruleOf(tx, ctx, input.id);
    await tx.delete(scoringRules).where(eq(scoringRules.id, r.id));
    await audit(tx, ctx, "crm.scoring_rule_delete", { type: "crm_scoring_rule", id: r.id });
    await emit(tx, ctx, crmSettingsChanged, { id: r.id }, { what: "scoring_rule", action: "deleted", name: r.name });
    return { id: r.id, status: "deleted", contactsRescored: await rescoreAll(tx, ctx, ctx.company.id) };
  });
}

export async function listRules(ctx: ActorContext, input: { limit: number; offset: number }) {
  crmRead(ctx);
  const all = await rulesOf(ctx.deps.db, ctx.company.id);
  return page(all.slice(input.offset, input.offset + input.limit).map(ruleOut), all.length, input.limit, input.offset);
}

export async function recomputeScores(ctx: ActorContext) {
  crmWrite(ctx);
  return ctx.deps.db.transaction(async (tx) => {
    const changed = await rescoreAll(tx, ctx, ctx.company.id);
    await audit(tx, ctx, "crm.scores_recompute", { detail: { changed } });
    return { contactsChanged: changed };
  });
}

const ruleOut = (r: Rule) => ({ id: r.id, name: r.name, points: r.points, ...r.condition, decayDays: r.decayDays });

/** Rules whose activity points fade: the decay job rescores the tenants that have one. */
const decaying = isNotNull(scoringRules.decayDays);

/** Hourly: fading activity points leave scores (contacts with activities under a decaying rule). */
export const scoreDecayJob: JobDef = {
  name: "crm.score_decay",
  description: "Recompute lead scores whose activity points fade with time (rules with decayDays).",
  everyMs: 60 * 60_000,
  /*
   * The run's own selection: some tenant has a decaying rule. Wider than
   * "a score would change", on purpose: a score moves only while one of its
   * activities' points is still fading or has faded out since the contact
   * was last rescored, and nothing stores when that was (a server down for
   * a week must still drop what faded meanwhile); telling it would take the
   * run's own arithmetic. So a server with such a rule runs this hourly.
   */
  pending: (deps) => anyRow(deps.db.select({ id: scoringRules.id }).from(scoringRules).where(decaying).limit(1)),
  async run(deps: Deps) {
    const tenants = await deps.db
      .selectDistinct({ companyId: scoringRules.companyId })
      .from(scoringRules)
      .where(decaying);
    for (const { companyId } of tenants) {
      await deps.db.transaction(async (tx) => {
        const ids = (
          await tx
            .selectDistinct({ id: activities.contactId })
            .from(activities)
            .where(
              and(
                eq(activities.companyId, companyId),
                isNotNull(activities.contactId),
                gt(activities.occurredAt, new Date(deps.clock.now().getTime() - 3650 * DAY_MS)),
              ),
            )
        ).map((r) => r.id!);
        await rescore(tx, { deps, company: { id: companyId } }, companyId, ids);
      });
    }
  },
};
