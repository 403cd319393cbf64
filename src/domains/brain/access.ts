/**
 * The first lines of every brain verb: scope and role, and the tenant
 * filter. Records are named by id, by "#12", or by title (case-insensitive,
 * within the expected kinds); people also by email. A record of another
 * company is "not found", exactly like one that does not exist.
 */
import { and, eq, inArray, or } from "drizzle-orm";
import type { ActorContext } from "../../core/context";
import type { Db } from "../../core/db";
import { invalid, notFound } from "../../core/errors";
import { authorize } from "../../core/scopes";
import { memberships, users } from "../../core/tables";
import { titleKey } from "./kinds";
import { brainRecords, type RecordKind } from "./tables";

export type Q = Db;
export type RecordRow = typeof brainRecords.$inferSelect;
export type RecordRef = number | string;

export function readAccess(ctx: ActorContext) {
  authorize(ctx, "brain:read", { write: false });
}
export function writeAccess(ctx: ActorContext) {
  authorize(ctx, "brain:write", { write: true });
}

export const KIND_LABEL: Record<RecordKind, string> = {
  note: "note",
  document: "document",
  meeting: "meeting",
  task: "task",
  person: "person",
  topic: "topic",
  glossary: "glossary term",
  goal: "goal",
  initiative: "initiative",
  playbook: "playbook",
  org_unit: "org unit",
};

const describeKinds = (kinds: readonly RecordKind[]) => kinds.map((k) => KIND_LABEL[k]).join(" or ");

/** A record of the acting company by id, "#id" or title; `kinds` narrows what may be named. */
export async function recordFor(
  q: Q,
  ctx: ActorContext,
  ref: RecordRef,
  kinds?: readonly RecordKind[],
): Promise<RecordRow> {
  const company = ctx.company.id;
  const id: number | null =
    typeof ref === "number" ? ref : /^#\d{1,15}$/.test(ref.trim()) ? Number(ref.trim().slice(1)) : null;
  if (id !== null) {
    const row = (
      await q
        .select()
        .from(brainRecords)
        .where(and(eq(brainRecords.id, id), eq(brainRecords.companyId, company)))
        .limit(1)
    )[0];
    if (!row) throw notFound(`Record ${id} not found.`);
    if (kinds && !kinds.includes(row.kind))
      throw invalid(`Record ${id} is a ${KIND_LABEL[row.kind]} (“${row.title}”), not a ${describeKinds(kinds)}.`);
    return row;
  }
  const key = titleKey(String(ref));
  if (!key) throw invalid("A record is named by id, #id or title; this one is empty.");
  const rows = await q
    .select()
    .from(brainRecords)
    .where(
      and(
        eq(brainRecords.companyId, company),
        eq(brainRecords.titleKey, key),
        kinds ? inArray(brainRecords.kind, [...kinds]) : undefined,
      ),
    )
    .limit(6);
  if (!rows.length)
    throw notFound(`No ${kinds ? describeKinds(kinds) : "record"} titled “${String(ref).slice(0, 120)}”.`);
  if (rows.length > 1)
    throw invalid(
      `${rows.length > 5 ? "Several" : rows.length} records are titled “${String(ref).slice(0, 120)}”: ${rows
        .slice(0, 5)
        .map((r) => `#${r.id} (${KIND_LABEL[r.kind]})`)
        .join(", ")}. Name one by id.`,
    );
  return rows[0]!;
}

/** A person record by id, "#id", email (or a merged-in alias) or name. */
export async function personFor(q: Q, ctx: ActorContext, ref: RecordRef): Promise<RecordRow | null> {
  if (typeof ref === "string" && /^[^\s@]+@[^\s@]+$/.test(ref.trim())) {
    const email = ref.trim().toLowerCase();
    const row = (
      await q
        .select()
        .from(brainRecords)
        .where(
          and(
            eq(brainRecords.companyId, ctx.company.id),
            eq(brainRecords.kind, "person"),
            eq(brainRecords.uniqueKey, `person:${email}`),
          ),
        )
        .limit(1)
    )[0];
    if (row) return row;
    const aliased = await q
      .select()
      .from(brainRecords)
      .where(and(eq(brainRecords.companyId, ctx.company.id), eq(brainRecords.kind, "person")));
    return aliased.find((r) => Array.isArray(r.data.aliases) && (r.data.aliases as string[]).includes(email)) ?? null;
  }
  try {
    return await recordFor(q, ctx, ref, ["person"]);
  } catch (e) {
    if (
      typeof ref === "string" &&
      e instanceof Error &&
      "code" in e &&
      (e as { code: string }).code === "not_found" &&
      !/^#\d/.test(ref.trim())
    )
      return null;
    throw e;
  }
}

/** A member of the acting company by user id, email or "me" (author filters). */
export async function memberFor(q: Q, ctx: ActorContext, ref: number | string): Promise<number> {
  const s = typeof ref === "string" ? ref.trim().toLowerCase() : null;
  if (s === "me") return ctx.principal.userId;
  const row = (
    await q
      .select({ id: users.id })
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.userId))
      .where(
        and(
          eq(memberships.companyId, ctx.company.id),
          typeof ref === "number" ? eq(users.id, ref) : or(eq(users.email, s!)),
        ),
      )
      .limit(1)
  )[0];
  if (!row)
    throw invalid(
      `${typeof ref === "number" ? `User ${ref}` : `“${String(ref).slice(0, 80)}”`} is not a member of ${ctx.company.name}.`,
    );
  return row.id;
}

export async function titlesOf(
  q: Q,
  companyId: number,
  ids: readonly number[],
): Promise<Map<number, { title: string; kind: RecordKind }>> {
  if (!ids.length) return new Map();
  const rows = await q
    .select({ id: brainRecords.id, title: brainRecords.title, kind: brainRecords.kind })
    .from(brainRecords)
    .where(and(eq(brainRecords.companyId, companyId), inArray(brainRecords.id, [...new Set(ids)])));
  return new Map(rows.map((r) => [r.id, { title: r.title, kind: r.kind }]));
}
