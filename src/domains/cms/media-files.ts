/**
 * Serving stored media files at /media/<siteId>/<name>: the stable URLs the
 * media library hands out. Names are random (24 hex) and never reused, so
 * responses are cacheable forever.
 *
 * Every response is built to be harmless whatever the bytes are:
 * - Content-Type comes from our own extension table (the type was sniffed
 *   at upload), with `X-Content-Type-Options: nosniff`;
 * - non-images are served as attachments with an RFC 6266 file name, so a
 *   PDF or text file never renders as a page of our origin;
 * - a sandboxing CSP on every file, which is what keeps an SVG opened
 *   directly from running script;
 * - only names matching the stored pattern are looked at, so no path can
 *   leave the media directory.
 *
 * The bytes come from the media store (deps.blobs: data dir, database or S3
 * bucket) and always pass through here, so the URLs and the headers are the
 * same whichever store holds them; a Range is read as a range from the store.
 */
import { and, eq } from "drizzle-orm";
import { Hono } from "hono";
import type { BlobBody } from "../../core/blobs";
import type { Deps } from "../../core/context";
import { MEDIA_TYPES, MIME_BY_EXT } from "./media-sniff";
import { media } from "./tables";

const NAME_RE = /^([0-9a-f]{24})(\.thumb)?\.([a-z0-9]{2,5})$/;
const SITE_RE = /^[1-9]\d{0,11}$/;

export const MEDIA_CSP =
  "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; media-src 'self'; sandbox";

/** `attachment; filename="ascii"; filename*=UTF-8''encoded` with nothing that could break the header. */
export function contentDisposition(kind: "inline" | "attachment", filename: string): string {
  const ascii =
    filename
      .replace(/[^\x20-\x7e]/g, "_")
      .replace(/["\\]/g, "_")
      .slice(0, 150) || "file";
  const encoded = encodeURIComponent(filename.slice(0, 200)).replace(
    /['()*]/g,
    (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

function parseRange(header: string, size: number): { start: number; end: number } | "unsatisfiable" | null {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === "" && m[2] === "")) return null; // multiple or malformed ranges: serve the whole file
  let start: number;
  let end: number;
  if (m[1] === "") {
    const suffix = Number(m[2]);
    if (suffix === 0) return "unsatisfiable";
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (start >= size || start > end) return "unsatisfiable";
  return { start, end };
}

/** A store's answer as a response body (Hono takes a stream or an ArrayBuffer-backed array). */
function body(b: BlobBody): ReadableStream<Uint8Array> | Uint8Array<ArrayBuffer> {
  return b as ReadableStream<Uint8Array> | Uint8Array<ArrayBuffer>;
}

export function mediaFileRoutes(deps: Deps) {
  const app = new Hono();

  app.get("/:siteId/:name", async (c) => {
    const siteId = c.req.param("siteId");
    const name = c.req.param("name");
    const m = NAME_RE.exec(name);
    const mime = m ? MIME_BY_EXT[m[3]!] : undefined;
    if (!SITE_RE.test(siteId) || !m || !mime) return c.json({ success: false, message: "Not found" }, 404);
    const key = `${siteId}/${name}`;
    const info = await deps.blobs.head(key);
    if (!info) return c.json({ success: false, message: "Not found" }, 404);
    const size = info.size;
    const type = MEDIA_TYPES[mime]!;
    // The local store's tag is size and mtime: the same ETag as before there were stores.
    const etag = `"${m[1]}${m[2] ?? ""}-${info.etag}"`;
    const headers: Record<string, string> = {
      "Content-Type": mime.startsWith("text/") || mime === "application/json" ? `${mime}; charset=utf-8` : mime,
      "X-Content-Type-Options": "nosniff",
      "Content-Security-Policy": MEDIA_CSP,
      "Cache-Control": "public, max-age=31536000, immutable",
      "Cross-Origin-Resource-Policy": "cross-origin",
      "Access-Control-Allow-Origin": "*",
      "Accept-Ranges": "bytes",
      ETag: etag,
    };
    if (!type.inline) {
      // The original name (for the download dialog) lives on the media row.
      const row = (
        await deps.db
          .select({ filename: media.filename })
          .from(media)
          .where(and(eq(media.siteId, Number(siteId)), eq(media.storageKey, key)))
          .limit(1)
      )[0];
      headers["Content-Disposition"] = contentDisposition("attachment", row?.filename ?? name);
    }
    if (c.req.header("if-none-match") === etag) return c.body(null, 304, headers);
    const rangeHeader = c.req.header("range");
    if (rangeHeader) {
      const r = parseRange(rangeHeader, size);
      if (r === "unsatisfiable") return c.body(null, 416, { ...headers, "Content-Range": `bytes */${size}` });
      if (r) {
        const part = await deps.blobs.read(key, r);
        if (!part) return c.json({ success: false, message: "Not found" }, 404);
        return c.body(body(part), 206, {
          ...headers,
          "Content-Range": `bytes ${r.start}-${r.end}/${size}`,
          "Content-Length": String(r.end - r.start + 1),
        });
      }
    }
    const whole = await deps.blobs.read(key);
    if (!whole) return c.json({ success: false, message: "Not found" }, 404);
    return c.body(body(whole), 200, { ...headers, "Content-Length": String(size) });
  });

  return app;
}
