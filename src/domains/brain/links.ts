/**
 * How records point at each other: typed relationships (stored once, read
 * from both ends with the inverse name: "Ana works_in Design" is also
 * "Design has_member Ana") and references in markdown (`[[Title]]`,
 * `[[#12]]`, `@email`), from which backlinks are computed when read.
 */
import { and, eq, inArray, or } from "drizzle-orm";
import { titleKey } from "./kinds";
import type { Q, RecordRow } from "./access";
import { brainRecords, brainRefs, brainRelations, brainRevisions } from "./tables";

/** Relationship types and how each reads from the other end. */
export const RELATION_TYPES = {
  relates_to: "relates_to",
  works_in: "has_member",
  reports_to: "manages",
  serves: "served_by",
  mentions: "mentioned_in",
  supersedes: "superseded_by",
  about: "subject_of",
  part_of: "has_part",
  depends_on: "blocks",
  owns: "owned_by",
  attended: "attendee",
  from_meeting: "action_item",
  references: "referenced_by",
} as const;
export type RelationType = keyof typeof RELATION_TYPES;
/**
 * Every name a relation is shown by, from one end or the other: what
 * brain_relations_add/remove/list accept is what records show ("Review
 * attendee Ana" is "Ana attended Review", "Design has_member Ana" is "Ana
 * works_in Design"), so a name read back can be written again.
 */
export type RelationName = RelationType | (typeof RELATION_TYPES)[RelationType];
export const RELATION_NAMES = [
  ...new Set([...Object.keys(RELATION_TYPES), ...Object.values(RELATION_TYPES)]),
] as RelationName[];
const STORED_AS = new Map<string, RelationType>(
  (Object.entries(RELATION_TYPES) as [RelationType, string][]).map(([type, inverse]) => [inverse, type]),
);

/**
 * How a relation named from `fromId`'s end is stored: its type, and whether
 * the stored edge runs the other way (an inverse name: "attendee" from a
 * meeting is the person's "attended").
 */
export function storedRelation(name: RelationName): { type: RelationType; reversed: boolean } {
  if (name in RELATION_TYPES) return { type: name as RelationType, reversed: false };
  const type = STORED_AS.get(name);
  if (!type) throw new Error(`unknown relation name ${name}`);
  return { type, reversed: true };
}

// ---------------------------------------------------------------------------
// [[links]] and @mentions in markdown

const LINK_RE = /\[\[([^[\]\n|]{1,200})(?:\|[^[\]\n]{0,200})?\]\]/g;
const MENTION_RE = /(?:^|[\s(])@([A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,})/g;

/** What a record's markdown points at, as stored targets: a title key, "#12" or "@email". */
export function refsIn(markdown: string): string[] {
  const out = new Set<string>();
  for (const m of markdown.matchAll(LINK_RE)) {
    const inner = m[1]!.trim();
    if (/^#\d{1,15}$/.test(inner)) out.add(inner);
    else if (inner) out.add(titleKey(inner));
    if (out.size >= 200) break;
  }
  for (const m of markdown.matchAll(MENTION_RE)) {
    out.add(`@${m[1]!.toLowerCase()}`);
    if (out.size >= 250) break;
  }
  return [...out];
}

const LINK_LABEL_RE = /\[\[([^[\]\n|]{1,200})(\|[^[\]\n]{0,200})?\]\]/g;

/** A title that can stand inside [[…]] as written: no brackets, no pipe, not too long. */
const linkable = (title: string) => title.length <= 200 && !/[[\]|\n]/.test(title);

/**
 * `markdown` with every `[[Old title]]` / `[[Old title|label]]` (matched
 * like links resolve: case- and space-insensitively) pointing at the
 * record's new title. When the new title is shared with another record (so
 * `[[New]]` would be ambiguous) or cannot be written inside brackets, the
 * link becomes `[[#id|label]]`, which never breaks; the label shown stays
 * what it was (the old text when there was none, as Obsidian keeps
 * display text when it updates links).
 */
export function rewriteLinks(
  markdown: string,
  oldKey: string,
  target: { id: number; title: string },
  newTitleShared: boolean,
): string {
  return markdown.replace(LINK_LABEL_RE, (whole, inner: string, label: string | undefined) => {
    if (/^#\d{1,15}$/.test(inner.trim()) || titleKey(inner) !== oldKey) return whole;
    if (!newTitleShared && linkable(target.title)) return `[[${target.title}${label ?? ""}]]`;
    return `[[#${target.id}${label ?? (linkable(target.title) ? `|${target.title}` : "")}]]`;
  });
}

/**
 * Title keys a record was known by before (from its revisions) that no
 * record of the company holds now: a `[[Former title]]` written after a
 * rename (a writer racing it, an agent remembering the old name) still
 * resolves to the record, until another record takes that title.
 */
export async function formerTitleKeys(q: Q, row: RecordRow): Promise<string[]> {
  const titles = await q
    .selectDistinct({ title: brainRevisions.title })
    .from(brainRevisions)
    .where(and(eq(brainRevisions.companyId, row.companyId), eq(brainRevisions.recordId, row.id)))
    .limit(200);
  const keys = [...new Set(titles.map((t) => titleKey(t.title)))].filter((k) => k !== row.titleKey);
  if (!keys.length) return [];
  const held = new Set(
    (
      await q
        .select({ key: brainRecords.titleKey })
        .from(brainRecords)
        .where(and(eq(brainRecords.companyId, row.companyId), inArray(brainRecords.titleKey, keys)))
    ).map((r) => r.key),
  );
  return keys.filter((k) => !held.has(k));
}

/** Replaces a record's stored references with those of its text. */
export async function syncRefs(tx: Q, companyId: number, fromId: number, text: string): Promise<string[]> {
  const targets = refsIn(text);
  await tx.delete(brainRefs).where(eq(brainRefs.fromId, fromId));
  if (targets.length) await tx.insert(brainRefs).values(targets.map((target) => ({ companyId, fromId, target })));
  return targets;
}

/** The records stored references resolve to now (for events: who was mentioned). */
export async function resolveRefs(q: Q, companyId: number, targets: readonly string[]): Promise<number[]> {
  if (!targets.length) return [];
  const ids = targets.filter((t) => t.startsWith("#")).map((t) => Number(t.slice(1)));
  const emails = targets.filter((t) => t.startsWith("@")).map((t) => `person:${t.slice(1)}`);
  const keys = targets.filter((t) => !t.startsWith("#") && !t.startsWith("@"));
  const rows = await q
    .select({ id: brainRecords.id })
    .from(brainRecords)
    .where(
      and(
        eq(brainRecords.companyId, companyId),
        or(
          ids.length ? inArray(brainRecords.id, ids) : undefined,
          emails.length ? inArray(brainRecords.uniqueKey, emails) : undefined,
          keys.length ? inArray(brainRecords.titleKey, keys) : undefined,
        ),
      ),
    )
    .limit(200);
  return rows.map((r) => r.id);
}

/** Records whose markdown links to or mentions `row`. */
export async function backlinksOf(q: Q, row: RecordRow): Promise<{ id: number; kind: string; title: string }[]> {
  const targets = [`#${row.id}`, row.titleKey, ...(await formerTitleKeys(q, row))];
  if (row.kind === "person") {
    if (typeof row.data.email === "string") targets.push(`@${row.data.email}`);
    for (const a of (row.data.aliases as string[] | undefined) ?? []) targets.push(`@${a}`);
  }
  return await q
    .selectDistinct({ id: brainRecords.id, kind: brainRecords.kind, title: brainRecords.title })
    .from(brainRefs)
    .innerJoin(brainRecords, eq(brainRecords.id, brainRefs.fromId))
    .where(and(eq(brainRefs.companyId, row.companyId), inArray(brainRefs.target, targets)))
    .orderBy(brainRecords.id)
    .limit(100);
}

// ---------------------------------------------------------------------------
// Typed relationships

export interface RelationView {
  id: number;
  /** As read from this record: works_in, or the inverse has_member. */
  type: string;
  direction: "out" | "in";
  record: { id: number; kind: string; title: string };
}

/** A record's relationships from both ends. */
export async function relationsOf(q: Q, row: RecordRow, type?: string): Promise<RelationView[]> {
  const out = await q
    .select({
      id: brainRelations.id,
      type: brainRelations.type,
      rid: brainRecords.id,
      kind: brainRecords.kind,
      title: brainRecords.title,
    })
    .from(brainRelations)
    .innerJoin(brainRecords, eq(brainRecords.id, brainRelations.toId))
    .where(eq(brainRelations.fromId, row.id))
    .orderBy(brainRelations.id)
    .limit(500);
  const inc = await q
    .select({
      id: brainRelations.id,
      type: brainRelations.type,
      rid: brainRecords.id,
      kind: brainRecords.kind,
      title: brainRecords.title,
    })
    .from(brainRelations)
    .innerJoin(brainRecords, eq(brainRecords.id, brainRelations.fromId))
    .where(eq(brainRelations.toId, row.id))
    .orderBy(brainRelations.id)
    .limit(500);
  const views: RelationView[] = [
    ...out.map((r) => ({
      id: r.id,
      type: r.type,
      direction: "out" as const,
      record: { id: r.rid, kind: r.kind, title: r.title },
    })),
    ...inc.map((r) => ({
      id: r.id,
      type: RELATION_TYPES[r.type as RelationType] ?? `${r.type}_of`,
      direction: "in" as const,
      record: { id: r.rid, kind: r.kind, title: r.title },
    })),
  ];
  return type ? views.filter((v) => v.type === type) : views;
}

/** Adds an edge unless it is there; true when added. */
export async function addEdge(
  tx: Q,
  companyId: number,
  fromId: number,
  toId: number,
  type: RelationType,
  userId: number | null,
  at: Date,
): Promise<boolean> {
  const r = await tx
    .insert(brainRelations)
    .values({ companyId, fromId, toId, type, createdByUserId: userId, createdAt: at })
    .onConflictDoNothing()
    .returning({ id: brainRelations.id });
  return r.length > 0;
}

/**
 * Makes the edges of one type from `fromId` (or, with `incoming`, into
 * `toId`) exactly `ids`: what a record's own fields say (a meeting's
 * attendees, an initiative's goals, a unit's members).
 */
export async function setEdges(
  tx: Q,
  companyId: number,
  anchor: number,
  type: RelationType,
  ids: readonly number[],
  opts: { incoming: boolean; userId: number | null; at: Date },
): Promise<void> {
  const col = opts.incoming ? brainRelations.toId : brainRelations.fromId;
  const other = opts.incoming ? brainRelations.fromId : brainRelations.toId;
  const now = await tx
    .select({ id: brainRelations.id, other })
    .from(brainRelations)
    .where(and(eq(col, anchor), eq(brainRelations.type, type)));
  const want = new Set(ids);
  const drop = now.filter((r) => !want.has(r.other)).map((r) => r.id);
  if (drop.length) await tx.delete(brainRelations).where(inArray(brainRelations.id, drop));
  const have = new Set(now.map((r) => r.other));
  for (const id of want) {
    if (have.has(id)) continue;
    await addEdge(tx, companyId, opts.incoming ? id : anchor, opts.incoming ? anchor : id, type, opts.userId, opts.at);
  }
}

/** Ids at the other end of a record's edges of one type. */
export async function edgeIds(q: Q, anchor: number, type: RelationType, incoming: boolean): Promise<number[]> {
  const col = incoming ? brainRelations.toId : brainRelations.fromId;
  const other = incoming ? brainRelations.fromId : brainRelations.toId;
  return (
    await q
      .select({ other })
      .from(brainRelations)
      .where(and(eq(col, anchor), eq(brainRelations.type, type)))
      .orderBy(brainRelations.id)
  ).map((r) => r.other);
}
