/**
 * The media library: files uploaded as base64 (stored under the key
 * `<siteId>/<24 hex>[.thumb].<ext>` in the media store, deps.blobs: the data
 * dir, the database or an S3 bucket; served by media-files.ts at stable
 * URLs `/media/<key>`) and
 * files registered by URL (recorded, never fetched: fetching arbitrary URLs
 * from the server would let callers probe the private network).
 *
 * An upload's type comes from its bytes (media-sniff.ts); its size is capped
 * by config.maxUploadBytes before it is decoded; images get their pixel
 * dimensions and, for large JPEG/PNG, a thumbnail file (media-image.ts).
 */
import { and, count, desc, eq } from "drizzle-orm";
import { audit } from "../../core/audit";
import { iso } from "../../core/clock";
import type { ActorContext, Deps } from "../../core/context";
import { bumpContentVersion } from "../sites/content-version";
import { AppError, conflict, invalid, notFound } from "../../core/errors";
import { page } from "../../core/pagination";
import { authorize } from "../../core/scopes";
import { randomHex } from "../../core/secrets";
import { isDryRun } from "../approvals/staging";
import { siteForActor } from "../sites/access";
import { checkUrl } from "./common";
import { dimensions, makeThumbnail, THUMB_MAX } from "./media-image";
import { decideType, MEDIA_TYPES, MIME_BY_EXT, normaliseMime } from "./media-sniff";
import { mediaHolders } from "./references";
import { media } from "./tables";
import { containsText, startsWithText } from "../../core/sql";
import { write } from "../../core/fields";
import type { Tx } from "../../core/db";

export type MediaRow = typeof media.$inferSelect;

export function mediaUrl(deps: Deps, storageKey: string): string {
  return `${deps.config.publicUrl}/media/${storageKey}`;
}

export function mediaView(r: MediaRow) {
  return {
    id: r.id,
    filename: r.filename,
    mimeType: r.mimeType,
    url: r.url,
    thumbnailUrl: r.thumbnailUrl,
    alt: r.alt,
    caption: r.caption,
    width: r.width,
    height: r.height,
    sizeBytes: r.sizeBytes,
    stored: r.storageKey !== null,
    createdAt: iso(r.createdAt),
  };
}

/** A display-safe original file name: last path segment, no control characters, bounded. */
export function cleanFilename(name: string): string {
  const last = name.split(/[\\/]/).pop() ?? "";
  const clean = last
    .replace(/[\u0000-\u001f\u007f]/g, "")
    .trim()
    .slice(0, 255);
  if (!clean || clean === "." || clean === "..")
    throw invalid("filename must name a file, like photo.jpg.", { path: "filename" });
  return clean;
}

const B64_RE = /^[A-Za-z0-9+/]*={0,2}$/;

/** Bytes of a base64 string (or data: URL), refusing oversize input before decoding it. */
export function decodeUpload(data: string, maxBytes: number): { bytes: Buffer; declared?: string } {
  let declared: string | undefined;
  let b64 = data;
  const m = /^data:([^;,]{1,100})(?:;[^;,]{0,100})*;base64,/i.exec(b64);
  if (m) {
    declared = m[1];
    b64 = b64.slice(m[0].length);
  }
  b64 = b64.replace(/\s+/g, "").replace(/-/g, "+").replace(/_/g, "/");
  const approxBytes = Math.floor((b64.length * 3) / 4);
  if (approxBytes - 2 > maxBytes)
    throw new AppError(
      "payload_too_large",
      `The file is about ${approxBytes} bytes; the largest upload is ${maxBytes} bytes.`,
      { maxBytes },
    );
  if (!B64_RE.test(b64) || b64.length % 4 === 1)
    throw invalid("dataBase64 is not valid base64.", { path: "dataBase64" });
  const bytes = Buffer.from(b64, "base64");
  if (bytes.length === 0) throw invalid("dataBase64 is empty: the file has no bytes.", { path: "dataBase64" });
  if (bytes.length > maxBytes)
    throw new AppError(
      "payload_too_large",
      `The file is ${bytes.length} bytes; the largest upload is ${maxBytes} bytes.`,
      { maxBytes },
    );
  return { bytes, declared };
}

async function mediaInSite(tx: Tx, siteId: number, id: number): Promise<MediaRow> {
  const r = (
    await tx
      .select()
      .from(media)
      .where(and(eq(media.id, id), eq(media.siteId, siteId)))
      .limit(1)
  )[0];
  if (!r) throw notFound(`Media ${id} not found on site ${siteId}.`);
  return r;
}

export async function listMedia(
  ctx: ActorContext,
  input: { siteId: number; mimeType?: string; search?: string; limit: number; offset: number },
) {
  authorize(ctx, "media:read", { write: false });
  const site = await siteForActor(ctx, input.siteId);
  const db = ctx.deps.db;
  const conds = [eq(media.siteId, site.id)];
  if (input.mimeType && input.mimeType !== "all") {
    conds.push(startsWithText(media.mimeType, input.mimeType));
  }
  if (input.search) {
    conds.push(containsText(media.filename, input.search));
  }
  const where = and(...conds);
  const total = (await db.select({ n: count() }).from(media).where(where).limit(1))[0]?.n ?? 0;
  const rows = await db
    .select()
    .from(media)
    .where(where)
    .orderBy(desc(media.createdAt), desc(media.id))
    .limit(input.limit)
    .offset(input.offset);
  return page(rows.map(mediaView), total, input.limit, input.offset);
}

export async function getMedia(ctx: ActorContext, input: { siteId: number; id: number }) {
  authorize(ctx, "media:read", { write: false });
  const site = await siteForActor(ctx, input.siteId);
  return mediaView(await mediaInSite(ctx.deps.db, site.id, input.id));
}

/**
 * Removes stored files whose rows are gone. Inside a surrounding transaction
 * (an approval being applied) a file outside the database is removed only
 * once that transaction commits, so a rollback never leaves a row without
 * its file; in the database store the removal is part of the transaction.
 */
async function removeFiles(deps: Deps, keys: (string | null)[]) {
  const list = keys.filter((k): k is string => !!k);
  if (!list.length) return;
  if (deps.blobs.kind === "db" || !deps.store.inTransaction()) return deps.blobs.remove(list);
  deps.store.afterCommit(() => {
    deps.blobs.remove(list).catch((e) => console.error(`media: could not remove ${list.join(", ")}:`, e));
  });
}

/** Files an upload wrote, removed again when the upload does not go through. */
async function discardFiles(deps: Deps, keys: (string | null)[]) {
  try {
    await deps.blobs.remove(keys.filter((k): k is string => !!k));
  } catch (e) {
    console.error(`media: could not remove ${keys.filter(Boolean).join(", ")} after a failed upload:`, e);
  }
}

export async function uploadMedia(
  ctx: ActorContext,
  input: {
    siteId: number;
    filename: string;
    dataBase64: string;
    mimeType?: string;
    alt?: string | null;
    caption?: string | null;
  },
) {
  authorize(ctx, "media:write", { write: true });
  const site = await siteForActor(ctx, input.siteId);
  const filename = cleanFilename(input.filename);
  const { bytes, declared } = decodeUpload(input.dataBase64, ctx.deps.config.maxUploadBytes);
  const decided = decideType(bytes, input.mimeType ?? declared);
  if (!decided.ok) throw invalid(decided.message, { path: "dataBase64" });
  const type = decided.type;
  const dims = dimensions(bytes, type.mime);
  const dry = isDryRun(ctx);
  const base = `${site.id}/${randomHex(12)}`;
  const key = `${base}.${type.ext}`;
  const thumb = dry ? null : makeThumbnail(bytes, type.mime, dims);
  const thumbKey = thumb ? `${base}.thumb.${thumb.ext}` : null;
  const url = mediaUrl(ctx.deps, key);
  // Without a thumbnail file: small images and formats browsers scale by
  // themselves use the original; JPEG/PNG too large to decode get none.
  let thumbnailUrl: string | null = null;
  if (thumbKey) thumbnailUrl = mediaUrl(ctx.deps, thumbKey);
  else if (dims) {
    const reducible = type.mime === "image/jpeg" || type.mime === "image/png";
    if (!reducible || Math.max(dims.width, dims.height) <= THUMB_MAX) thumbnailUrl = url;
  }
  if (!dry) {
    try {
      await ctx.deps.blobs.put(key, bytes, type.mime);
      if (thumb && thumbKey) await ctx.deps.blobs.put(thumbKey, thumb.bytes, MIME_BY_EXT[thumb.ext]!);
    } catch (e) {
      await discardFiles(ctx.deps, [key, thumbKey]);
      throw e;
    }
  }
  try {
    return await write(ctx, async (tx) => {
      const row = (
        await tx
          .insert(media)
          .values({
            siteId: site.id,
            filename,
            mimeType: type.mime,
            url,
            storageKey: key,
            thumbnailUrl,
            alt: input.alt ?? null,
            caption: input.caption ?? null,
            width: dims?.width ?? null,
            height: dims?.height ?? null,
            sizeBytes: bytes.length,
            createdAt: ctx.deps.clock.now(),
          })
          .returning()
      )[0];
      await bumpContentVersion(tx, site.id);
      await audit(tx, ctx, "media.upload", {
        type: "media",
        id: row.id,
        siteId: site.id,
        detail: { filename, mimeType: type.mime, sizeBytes: bytes.length },
      });
      return mediaView(row);
    });
  } catch (e) {
    if (!dry) await discardFiles(ctx.deps, [key, thumbKey]);
    throw e;
  }
}

export async function registerMedia(
  ctx: ActorContext,
  input: {
    siteId: number;
    url: string;
    mimeType: string;
    filename?: string;
    alt?: string | null;
    caption?: string | null;
    width?: number | null;
    height?: number | null;
    thumbnailUrl?: string | null;
  },
) {
  authorize(ctx, "media:write", { write: true });
  const site = await siteForActor(ctx, input.siteId);
  checkUrl("url", input.url);
  if (!/^https?:\/\//i.test(input.url))
    throw invalid("url must be an absolute http(s) URL of the file.", { path: "url" });
  checkUrl("thumbnailUrl", input.thumbnailUrl);
  const mime = normaliseMime(input.mimeType);
  if (!MEDIA_TYPES[mime])
    throw invalid(`mimeType "${input.mimeType}" is not accepted. Accepted: ${Object.keys(MEDIA_TYPES).join(", ")}.`, {
      path: "mimeType",
    });
  const filename = cleanFilename(
    input.filename ?? decodeURIComponent(new URL(input.url).pathname.split("/").pop() || "file").slice(0, 255),
  );
  return write(ctx, async (tx) => {
    const row = (
      await tx
        .insert(media)
        .values({
          siteId: site.id,
          filename,
          mimeType: mime,
          url: input.url,
          storageKey: null,
          thumbnailUrl: input.thumbnailUrl ?? (mime.startsWith("image/") ? input.url : null),
          alt: input.alt ?? null,
          caption: input.caption ?? null,
          width: input.width ?? null,
          height: input.height ?? null,
          sizeBytes: null,
          createdAt: ctx.deps.clock.now(),
        })
        .returning()
    )[0];
    await bumpContentVersion(tx, site.id);
    await audit(tx, ctx, "media.register", { type: "media", id: row.id, siteId: site.id, detail: { url: input.url } });
    return mediaView(row);
  });
}

export async function updateMedia(
  ctx: ActorContext,
  input: { siteId: number; id: number; filename?: string; alt?: string | null; caption?: string | null },
) {
  authorize(ctx, "media:write", { write: true });
  const site = await siteForActor(ctx, input.siteId);
  return write(ctx, async (tx) => {
    const cur = await mediaInSite(tx, site.id, input.id);
    const set: Partial<MediaRow> = {};
    if (input.filename !== undefined) set.filename = cleanFilename(input.filename);
    if (input.alt !== undefined) set.alt = input.alt;
    if (input.caption !== undefined) set.caption = input.caption;
    if (Object.keys(set).length) {
      await tx.update(media).set(set).where(eq(media.id, cur.id));
      await bumpContentVersion(tx, site.id);
    }
    await audit(tx, ctx, "media.update", {
      type: "media",
      id: cur.id,
      siteId: site.id,
      detail: { fields: Object.keys(set) },
    });
    return mediaView({ ...cur, ...set });
  });
}

export async function deleteMedia(ctx: ActorContext, input: { siteId: number; id: number }) {
  authorize(ctx, "media:write", { write: true });
  const site = await siteForActor(ctx, input.siteId);
  const removed = await write(ctx, async (tx) => {
    const cur = await mediaInSite(tx, site.id, input.id);
    const held = [
      ...(await mediaHolders(tx, site.id, cur.url)),
      ...(cur.thumbnailUrl && cur.thumbnailUrl !== cur.url ? await mediaHolders(tx, site.id, cur.thumbnailUrl) : []),
    ];
    if (held.length)
      throw conflict(
        `Media ${cur.id} (${cur.filename}) is still used by ${[...new Set(held)].join(", ")}. Remove it from there first.`,
      );
    await tx.delete(media).where(eq(media.id, cur.id));
    await bumpContentVersion(tx, site.id);
    await audit(tx, ctx, "media.delete", {
      type: "media",
      id: cur.id,
      siteId: site.id,
      detail: { filename: cur.filename, url: cur.url },
    });
    return cur;
  });
  if (!isDryRun(ctx) && removed.storageKey) {
    const base = removed.storageKey.replace(/\.[a-z0-9]+$/, "");
    await removeFiles(ctx.deps, [removed.storageKey, `${base}.thumb.jpg`, `${base}.thumb.png`]);
  }
  return { id: removed.id, status: "deleted" };
}
