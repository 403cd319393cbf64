/**
 * Post versions: the history of what a post was while live (post_versions).
 *
 * Recorded by the post approval kind (approval-kinds.ts) every time an
 * approval changes what a post is: a first publication, a republication of
 * an edited offline post, an applied revision of a live one. A version holds
 * the whole post right after that approval (content, SEO, terms, status)
 * and who approved it, numbered per post from 1. Versions are never edited
 * and never written anywhere else.
 *
 * Restoring a version proposes its content again as an ordinary posts_update
 * (updatePost): a published post gets a pending revision with its approval
 * link, so nothing goes live until a person approves, whoever asks.
 *
 * History began with this table. A post already live then has no stored
 * version until an approval first changes it: that approval stores the
 * post as it was live before (version 1, source "backfill") and then its
 * own result (version 2). Until then the reads show the live post as
 * version 1 (source "live", not stored), so every published post has at
 * least one version to list, diff and come back to. Nothing is written on
 * migration or by a read.
 */
import { and, asc, count, desc, eq, max } from "drizzle-orm";
import { iso } from "../../core/clock";
import type { ActorContext } from "../../core/context";
import type { Tx } from "../../core/db";
import { invalid, notFound } from "../../core/errors";
import { page } from "../../core/pagination";
import { authorize } from "../../core/scopes";
import { renderBlocksHtml } from "../blocks/render";
import type { Decision } from "../approvals/kinds";
import { siteForActor } from "../sites/access";
import type { Include } from "./common";
import { postInSite, updatePost, type PostFields, type PostRow, type WriteResult } from "./posts";
import { postCategories, postRevisions, posts, postTags, postTypes, postVersions, type BlockContent } from "./tables";

/** A post as one version keeps it; the keys a diff and a restore read. */
export interface VersionSnapshot {
  title: string;
  slug: string;
  postType: string | null;
  excerpt: string | null;
  content: BlockContent;
  coverImage: string | null;
  ogImage: string | null;
  seoTitle: string | null;
  seoDescription: string | null;
  canonicalUrl: string | null;
  customCss: string | null;
  customJs: string | null;
  noIndex: boolean | null;
  parentPostId: number | null;
  categoryIds: number[];
  tagIds: number[];
  /** Custom field values (absent in versions kept before custom fields existed: none). */
  fields?: Record<string, unknown> | null;
  status: string;
  published: boolean;
  publishedAt: string | null;
  unpublishAt: string | null;
}

/** The fields restoring a version proposes again (not its status or schedule: those follow approval). */
const RESTORED = [
  "title",
  "slug",
  "postType",
  "excerpt",
  "content",
  "coverImage",
  "ogImage",
  "seoTitle",
  "seoDescription",
  "canonicalUrl",
  "customCss",
  "customJs",
  "noIndex",
  "parentPostId",
  "categoryIds",
  "tagIds",
  "fields",
] as const satisfies readonly (keyof VersionSnapshot)[];

/** Fields a diff compares, in the order it lists them (content is compared block by block, after them). */
const COMPARED = [...RESTORED.filter((k) => k !== "content"), "status", "publishedAt", "unpublishAt"] as const;

export async function snapshotOf(tx: Tx, post: PostRow): Promise<VersionSnapshot> {
  const type = (
    await tx.select({ slug: postTypes.slug }).from(postTypes).where(eq(postTypes.id, post.postTypeId)).limit(1)
  )[0];
  const categoryIds = (
    await tx
      .select({ id: postCategories.categoryId })
      .from(postCategories)
      .where(eq(postCategories.postId, post.id))
      .orderBy(asc(postCategories.categoryId))
  ).map((r) => r.id);
  const tagIds = (
    await tx
      .select({ id: postTags.tagId })
      .from(postTags)
      .where(eq(postTags.postId, post.id))
      .orderBy(asc(postTags.tagId))
  ).map((r) => r.id);
  return {
    title: post.title,
    slug: post.slug,
    postType: type?.slug ?? null,
    excerpt: post.excerpt,
    content: post.content ?? { blocks: [], version: "1" },
    coverImage: post.coverImage,
    ogImage: post.ogImage,
    seoTitle: post.seoTitle,
    seoDescription: post.seoDescription,
    canonicalUrl: post.canonicalUrl,
    customCss: post.customCss,
    customJs: post.customJs,
    noIndex: post.noIndex,
    parentPostId: post.parentPostId,
    categoryIds,
    tagIds,
    fields: post.fields ?? null,
    status: post.awaitingGoLive ? "scheduled" : post.status,
    published: post.published,
    publishedAt: iso(post.publishedAt),
    unpublishAt: iso(post.unpublishAt),
  };
}

async function storedCount(tx: Tx, postId: number): Promise<number> {
  return (await tx.select({ n: count() }).from(postVersions).where(eq(postVersions.postId, postId)))[0]?.n ?? 0;
}

/**
 * Called by the approval kind before it applies a change: the live post as
 * a snapshot when it is live and has no stored history yet (it was live
 * before history began), so recordVersion can keep it as version 1.
 */
export async function liveBeforeHistory(tx: Tx, post: PostRow): Promise<VersionSnapshot | null> {
  if (!post.published) return null;
  return (await storedCount(tx, post.id)) === 0 ? await snapshotOf(tx, post) : null;
}

/** Stores the post as it is after an approval, as its next version (after the backfilled live one, if any). */
export async function recordVersion(
  tx: Tx,
  postId: number,
  approvalId: number,
  d: Decision,
  backfill: VersionSnapshot | null,
): Promise<number> {
  const post = (await tx.select().from(posts).where(eq(posts.id, postId)).limit(1))[0]!;
  const last = (
    await tx
      .select({ n: max(postVersions.version) })
      .from(postVersions)
      .where(eq(postVersions.postId, postId))
  )[0]?.n;
  let next = Number(last ?? 0) + 1;
  if (backfill && next === 1) {
    await tx.insert(postVersions).values({
      postId,
      siteId: post.siteId,
      version: 1,
      snapshot: backfill as unknown as Record<string, unknown>,
      source: "backfill",
      createdAt: d.now,
    });
    next = 2;
  }
  await tx.insert(postVersions).values({
    postId,
    siteId: post.siteId,
    version: next,
    snapshot: (await snapshotOf(tx, post)) as unknown as Record<string, unknown>,
    source: "approval",
    approvalId,
    approvedBy: d.decidedBy.slice(0, 200),
    approvedByUserId: d.userId,
    approvedVia: d.via ?? (d.userId !== null ? "member" : "link"),
    createdAt: d.now,
  });
  return next;
}

// ---------------------------------------------------------------------------
// Reads

type VersionRow = typeof postVersions.$inferSelect;

interface Version {
  version: number;
  source: "approval" | "backfill" | "live";
  approvalId: number | null;
  approvedBy: string | null;
  approvedVia: string | null;
  recordedAt: string | null;
  snapshot: VersionSnapshot;
}

function fromRow(r: VersionRow): Version {
  return {
    version: r.version,
    source: r.source as Version["source"],
    approvalId: r.approvalId,
    approvedBy: r.approvedBy,
    approvedVia: r.approvedVia,
    recordedAt: iso(r.createdAt),
    snapshot: r.snapshot as unknown as VersionSnapshot,
  };
}

/** The live post standing in as version 1 while a post live before history began has none stored. */
async function liveAsVersion(tx: Tx, post: PostRow): Promise<Version | null> {
  if (!post.published) return null;
  return {
    version: 1,
    source: "live",
    approvalId: null,
    approvedBy: null,
    approvedVia: null,
    recordedAt: null,
    snapshot: await snapshotOf(tx, post),
  };
}

/** The post of the actor's site, checked inside the lookup (another company's id is not found). */
async function target(ctx: ActorContext, siteId: number, postId: number) {
  authorize(ctx, "sites:read", { write: false });
  const site = await siteForActor(ctx, siteId);
  return await postInSite(ctx.deps.db, site.id, postId);
}

async function versionOf(tx: Tx, post: PostRow, version: number): Promise<Version> {
  const row = (
    await tx
      .select()
      .from(postVersions)
      .where(
        and(eq(postVersions.postId, post.id), eq(postVersions.siteId, post.siteId), eq(postVersions.version, version)),
      )
      .limit(1)
  )[0];
  if (row) return fromRow(row);
  if (version === 1 && (await storedCount(tx, post.id)) === 0) {
    const live = await liveAsVersion(tx, post);
    if (live) return live;
  }
  throw notFound(
    `Post ${post.id} has no version ${version}. post_versions_list lists its versions${post.published ? "" : " (a post has versions once approved)"}.`,
  );
}

/** What changed from one snapshot to the next, as field names (content as "content"). */
function changedKeys(a: VersionSnapshot | null, b: VersionSnapshot): string[] {
  if (!a) return [];
  const out: string[] = COMPARED.filter((k) => JSON.stringify(a[k] ?? null) !== JSON.stringify(b[k] ?? null));
  if (JSON.stringify(a.content.blocks) !== JSON.stringify(b.content.blocks)) out.push("content");
  return out;
}

export async function listVersions(
  ctx: ActorContext,
  input: { siteId: number; postId: number; limit: number; offset: number },
) {
  const post = await target(ctx, input.siteId, input.postId);
  const db = ctx.deps.db;
  const total = await storedCount(db, post.id);
  if (total === 0) {
    const live = await liveAsVersion(db, post);
    const items = live && input.offset === 0 ? [summary(live, null)] : [];
    return page(items, live ? 1 : 0, input.limit, input.offset);
  }
  // One more than the page, so the oldest shown can say what it changed from the one before it.
  const rows = await db
    .select()
    .from(postVersions)
    .where(and(eq(postVersions.postId, post.id), eq(postVersions.siteId, post.siteId)))
    .orderBy(desc(postVersions.version))
    .limit(input.limit + 1)
    .offset(input.offset);
  const vs = rows.map(fromRow);
  const items = vs.slice(0, input.limit).map((v, i) => summary(v, vs[i + 1]?.snapshot ?? null));
  return page(items, total, input.limit, input.offset);
}

function summary(v: Version, previous: VersionSnapshot | null) {
  return {
    version: v.version,
    source: v.source,
    approvalId: v.approvalId,
    approvedBy: v.approvedBy,
    approvedVia: v.approvedVia,
    recordedAt: v.recordedAt,
    title: v.snapshot.title,
    slug: v.snapshot.slug,
    status: v.snapshot.status,
    blockCount: v.snapshot.content.blocks.length,
    ...(previous ? { changed: changedKeys(previous, v.snapshot) } : {}),
  };
}

export async function getVersion(
  ctx: ActorContext,
  input: { siteId: number; postId: number; version: number; include?: Include },
) {
  const post = await target(ctx, input.siteId, input.postId);
  const v = await versionOf(ctx.deps.db, post, input.version);
  const { content, ...fields } = v.snapshot;
  const include = input.include ?? [];
  return {
    postId: post.id,
    version: v.version,
    source: v.source,
    approvalId: v.approvalId,
    approvedBy: v.approvedBy,
    approvedVia: v.approvedVia,
    recordedAt: v.recordedAt,
    ...fields,
    blockCount: content.blocks.length,
    ...(include.includes("blocks") ? { blocks: content.blocks } : {}),
    ...(include.includes("html") ? { html: renderBlocksHtml(content) } : {}),
  };
}

// ---------------------------------------------------------------------------
// Diff

const SHOWN = 300;

/** A value as a diff line shows it: text as it is (bounded), anything else as JSON. */
function shown(v: unknown): unknown {
  if (typeof v === "string") return v.length > SHOWN ? `${v.slice(0, SHOWN)}… (${v.length} characters)` : v;
  if (v === undefined) return null;
  const s = JSON.stringify(v);
  return s.length > SHOWN ? `${s.slice(0, SHOWN)}… (${s.length} characters)` : v;
}

function blockType(b: unknown): string {
  return b && typeof b === "object" && typeof (b as { type?: unknown }).type === "string"
    ? (b as { type: string }).type
    : "block";
}

/** The words of a block (its text props, its children's), for reading what a block says. */
function blockText(b: unknown, out: string[] = []): string[] {
  if (!b || typeof b !== "object" || out.join(" ").length > SHOWN) return out;
  const { props, children } = b as { props?: unknown; children?: unknown };
  const walk = (x: unknown) => {
    if (typeof x === "string") {
      if (!/^(https?:|\/|#|mailto:)/.test(x) && x.trim()) out.push(x.trim());
    } else if (Array.isArray(x)) x.forEach(walk);
    else if (x && typeof x === "object") Object.values(x).forEach(walk);
  };
  walk(props);
  if (Array.isArray(children)) for (const c of children) blockText(c, out);
  return out;
}

const textOf = (b: unknown) => shown(blockText(b).join(" ")) as string;

/** A block-level change: position is 1-based, in the newer list (in the older one for a removal). */
export interface BlockChange {
  change: "added" | "removed" | "changed";
  position: number;
  type: string;
  before?: string;
  after?: string;
  /** For a changed block: the props that differ, and "children" when nested blocks do. */
  props?: { prop: string; before: unknown; after: unknown }[];
}

/**
 * Blocks compared block by block: the longest common run of identical
 * blocks is kept in place (so inserting one block reads as one addition,
 * not as every later block changed), and between kept blocks a removed and
 * an added block of the same type pair up as one changed block.
 */
export function diffBlocks(before: unknown[], after: unknown[]): BlockChange[] {
  const a = before.map((b) => JSON.stringify(b));
  const b = after.map((x) => JSON.stringify(x));
  const n = a.length;
  const m = b.length;
  type Op = { op: "same" | "del" | "add"; i: number; j: number };
  const ops: Op[] = [];
  if (n * m <= 1_000_000) {
    // lcs[i][j]: length of the longest common subsequence of a[i..] and b[j..].
    const lcs = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
    for (let i = n - 1; i >= 0; i--)
      for (let j = m - 1; j >= 0; j--)
        lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && a[i] === b[j]) ops.push({ op: "same", i: i++, j: j++ });
      else if (j < m && (i >= n || lcs[i]![j + 1]! >= lcs[i + 1]![j]!)) ops.push({ op: "add", i, j: j++ });
      else ops.push({ op: "del", i: i++, j });
    }
  } else {
    // Too long to align: compared position by position.
    for (let k = 0; k < Math.max(n, m); k++) {
      if (k < n && k < m && a[k] === b[k]) ops.push({ op: "same", i: k, j: k });
      else {
        if (k < n) ops.push({ op: "del", i: k, j: k });
        if (k < m) ops.push({ op: "add", i: k, j: k });
      }
    }
  }
  const out: BlockChange[] = [];
  let k = 0;
  while (k < ops.length) {
    if (ops[k]!.op === "same") {
      k++;
      continue;
    }
    const dels: number[] = [];
    const adds: number[] = [];
    for (; k < ops.length && ops[k]!.op !== "same"; k++) (ops[k]!.op === "del" ? dels : adds).push(k);
    const usedAdds = new Set<number>();
    for (const d of dels) {
      const bi = ops[d]!.i;
      const pair = adds.find((x) => !usedAdds.has(x) && blockType(after[ops[x]!.j]) === blockType(before[bi]));
      if (pair === undefined) {
        out.push({ change: "removed", position: bi + 1, type: blockType(before[bi]), before: textOf(before[bi]) });
        continue;
      }
      usedAdds.add(pair);
      const aj = ops[pair]!.j;
      out.push({
        change: "changed",
        position: aj + 1,
        type: blockType(after[aj]),
        before: textOf(before[bi]),
        after: textOf(after[aj]),
        props: propChanges(before[bi], after[aj]),
      });
    }
    for (const x of adds)
      if (!usedAdds.has(x)) {
        const aj = ops[x]!.j;
        out.push({ change: "added", position: aj + 1, type: blockType(after[aj]), after: textOf(after[aj]) });
      }
  }
  return out;
}

function propChanges(a: unknown, b: unknown) {
  const pa = ((a as { props?: Record<string, unknown> }).props ?? {}) as Record<string, unknown>;
  const pb = ((b as { props?: Record<string, unknown> }).props ?? {}) as Record<string, unknown>;
  const out: { prop: string; before: unknown; after: unknown }[] = [];
  for (const k of [...new Set([...Object.keys(pa), ...Object.keys(pb)])].sort())
    if (JSON.stringify(pa[k] ?? null) !== JSON.stringify(pb[k] ?? null))
      out.push({ prop: k, before: shown(pa[k] ?? null), after: shown(pb[k] ?? null) });
  const ca = JSON.stringify((a as { children?: unknown }).children ?? null);
  const cb = JSON.stringify((b as { children?: unknown }).children ?? null);
  if (ca !== cb) out.push({ prop: "children", before: shown(ca), after: shown(cb) });
  return out;
}

export async function diffVersions(
  ctx: ActorContext,
  input: { siteId: number; postId: number; from: number; to?: number },
) {
  const post = await target(ctx, input.siteId, input.postId);
  const db = ctx.deps.db;
  const from = await versionOf(db, post, input.from);
  const to = input.to === undefined ? null : await versionOf(db, post, input.to);
  const a = from.snapshot;
  const b = to ? to.snapshot : await snapshotOf(db, post);
  const fields: { field: string; before: unknown; after: unknown }[] = [];
  for (const k of COMPARED) {
    if (JSON.stringify(a[k] ?? null) === JSON.stringify(b[k] ?? null)) continue;
    if (k !== "fields") {
      fields.push({ field: k, before: shown(a[k]), after: shown(b[k]) });
      continue;
    }
    // Custom fields one by one, named as a write names them (fields.client).
    const fa = a.fields ?? {};
    const fb = b.fields ?? {};
    for (const name of [...new Set([...Object.keys(fa), ...Object.keys(fb)])].sort())
      if (JSON.stringify(fa[name] ?? null) !== JSON.stringify(fb[name] ?? null))
        fields.push({ field: `fields.${name}`, before: shown(fa[name] ?? null), after: shown(fb[name] ?? null) });
  }
  const blocks = diffBlocks(a.content.blocks, b.content.blocks);
  return {
    postId: post.id,
    from: from.version,
    to: to ? to.version : "live",
    identical: fields.length === 0 && blocks.length === 0,
    fields,
    blocks: { before: a.content.blocks.length, after: b.content.blocks.length, changes: blocks },
  };
}

// ---------------------------------------------------------------------------
// Restore

/**
 * Proposes a version's content again, as posts_update would: every field
 * that differs from the live post, and every field a pending revision
 * changes (so what waits for approval is exactly the version, not the
 * version merged with an earlier proposal). Nothing is applied here.
 */
export async function restoreVersion(
  ctx: ActorContext,
  input: { siteId: number; postId: number; version: number },
): Promise<WriteResult> {
  authorize(ctx, "sites:write", { write: true });
  const post = await target(ctx, input.siteId, input.postId);
  const db = ctx.deps.db;
  const v = await versionOf(db, post, input.version);
  const live = await snapshotOf(db, post);
  const pending = await pendingChanges(db, post.id);
  const pendingKeys = new Set(Object.keys(pending));
  const pendingFieldKeys = Object.keys((pending.fields as Record<string, unknown> | null | undefined) ?? {});
  const fields: PostFields = {};
  const set = fields as Record<string, unknown>;
  for (const k of RESTORED) {
    const wanted = v.snapshot[k];
    const key = k === "content" ? "blocks" : k;
    const pendingKey = k === "postType" ? "postTypeId" : k;
    const differs =
      k === "content"
        ? JSON.stringify(wanted as BlockContent) !== JSON.stringify(live.content)
        : JSON.stringify(wanted ?? null) !== JSON.stringify(live[k] ?? null);
    if (!differs && !pendingKeys.has(pendingKey)) continue;
    if (k === "postType" && wanted === null) continue;
    set[key] = k === "content" ? (wanted as BlockContent) : (wanted ?? null);
  }
  // fields given to posts_update merge over the current ones: clear those the version did not have.
  if (fields.fields) {
    const cleared = Object.fromEntries([...Object.keys(live.fields ?? {}), ...pendingFieldKeys].map((n) => [n, null]));
    fields.fields = { ...cleared, ...fields.fields };
  }
  if (Object.keys(fields).length === 0)
    return {
      id: post.id,
      slug: post.slug,
      status: post.status,
      restoredFrom: v.version,
      message: `Nothing to restore: version ${v.version} is what the post is now.`,
    };
  if (fields.title === null) throw invalid("The version has no title.");
  const out = await updatePost(ctx, { siteId: input.siteId, id: post.id, ...fields }, { restoredFrom: v.version });
  return { ...out, restoredFrom: v.version, fields: Object.keys(fields) };
}

async function pendingChanges(tx: Tx, postId: number): Promise<Record<string, unknown>> {
  const rev = (
    await tx
      .select({ changes: postRevisions.changes })
      .from(postRevisions)
      .where(and(eq(postRevisions.postId, postId), eq(postRevisions.status, "pending")))
      .orderBy(desc(postRevisions.id))
      .limit(1)
  )[0];
  return rev?.changes ?? {};
}
