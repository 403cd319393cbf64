/**
 * Media bytes in an S3-compatible bucket (PLINTH_MEDIA_STORE=s3), through
 * Bun's built-in S3Client. Settings come from PLINTH_S3_BUCKET, _ENDPOINT,
 * _REGION, _ACCESS_KEY_ID and _SECRET_ACCESS_KEY; what is not set there
 * falls back to Bun's usual S3_* / AWS_* variables (credentials, region,
 * endpoint, session token).
 *
 * The bucket can stay private: Plinth streams every file through its own
 * /media route, so URLs, security headers, ETags and ranges are the same
 * as on the other stores. A range read is an S3 GET with a Range header;
 * bodies up to WHOLE_MAX come back as bytes, larger ones as a stream.
 */
import { S3Client } from "bun";
import type { Config } from "../config";
import type { BlobStore, ByteRange } from "./blobs-common";
import { checkKey, checkPrefix, checkRange, WHOLE_MAX } from "./blobs-common";

const REMOVE_PARALLEL = 8;

/** S3's "no such object", however the service words it (a HEAD answers with no body, so only a status). */
function isMissing(e: unknown): boolean {
  const err = e as { code?: unknown; name?: unknown; message?: unknown } | null;
  const code = typeof err?.code === "string" ? err.code : "";
  return (
    code === "NoSuchKey" ||
    code === "NotFound" ||
    (typeof err?.message === "string" && /\b404\b/.test(err.message) && code !== "NoSuchBucket")
  );
}

/** The service's ETag without quotes or anything else a quoted header value cannot hold. */
const cleanEtag = (etag: string) => etag.replace(/[^A-Za-z0-9_-]/g, "");

/** The part [skip, skip + take) of a body, ending it early once that is through. */
function window(body: ReadableStream<Uint8Array>, skip: number, take: number): ReadableStream<Uint8Array> {
  const end = skip + take;
  let seen = 0;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        const from = Math.max(0, skip - seen);
        const to = Math.min(chunk.length, end - seen);
        seen += chunk.length;
        if (to > from) controller.enqueue(from === 0 && to === chunk.length ? chunk : chunk.subarray(from, to));
        if (seen >= end) controller.terminate();
      },
    }),
  );
}

export function s3BlobStore(s3: Config["s3"]): BlobStore {
  // Unset fields are left out, so Bun reads them from S3_* / AWS_* instead.
  const opts: Record<string, string> = {};
  for (const [k, v] of Object.entries(s3)) if (v) opts[k] = v;
  const client = new S3Client(opts);

  return {
    kind: "s3",

    async put(key, bytes, contentType) {
      await client.write(checkKey(key), bytes, { type: contentType });
    },

    async head(key) {
      try {
        const st = await client.file(checkKey(key)).stat();
        return {
          size: st.size,
          etag: cleanEtag(st.etag) || `${st.size.toString(36)}-${st.lastModified.getTime().toString(36)}`,
        };
      } catch (e) {
        if (isMissing(e)) return null;
        throw e;
      }
    },

    async read(key, range?: ByteRange) {
      checkKey(key);
      if (range) checkRange(range);
      // A presigned GET through fetch: its status tells absent (404) and
      // past-the-end (416) apart before any byte is sent on.
      const res = await fetch(client.presign(key, { method: "GET", expiresIn: 300 }), {
        headers: range ? { Range: `bytes=${range.start}-${range.end}` } : {},
      });
      if (res.status === 404 || res.status === 416) {
        const text = await res.text();
        if (res.status === 416) return new Uint8Array(0);
        if (/NoSuchBucket/.test(text)) throw new Error(`S3 bucket of ${key} does not exist`);
        return null;
      }
      if (res.status !== 200 && res.status !== 206)
        throw new Error(`S3 GET ${key}: ${res.status} ${(await res.text()).slice(0, 300)}`);
      // Where the body starts within the object, and how much of it is wanted.
      // Checked rather than trusted: a service that ignores a Range (200) or
      // sends more than asked must not put other bytes into a 206.
      let skip = 0;
      let take = Number.POSITIVE_INFINITY;
      if (range) {
        const cr = /^bytes (\d+)-(\d+)\/(?:\d+|\*)$/.exec(res.headers.get("content-range") ?? "");
        if (res.status === 206 && !cr) throw new Error(`S3 GET ${key}: 206 without a usable Content-Range`);
        const bodyStart = cr ? Number(cr[1]) : 0;
        if (bodyStart > range.start)
          throw new Error(`S3 GET ${key}: asked for bytes from ${range.start}, got them from ${bodyStart}`);
        skip = range.start - bodyStart;
        take = range.end - range.start + 1;
      }
      const sent = Number(res.headers.get("content-length") ?? Number.NaN);
      const length = Math.min(take, Number.isFinite(sent) ? sent - skip : Number.POSITIVE_INFINITY);
      if (length <= WHOLE_MAX) {
        const all = new Uint8Array(await res.arrayBuffer());
        return skip === 0 && all.length <= take ? all : all.subarray(skip, skip + take);
      }
      if (!res.body) return new Uint8Array(0);
      return skip === 0 && !Number.isFinite(take) ? res.body : window(res.body, skip, take);
    },

    async remove(keys) {
      keys.forEach(checkKey);
      for (let i = 0; i < keys.length; i += REMOVE_PARALLEL)
        await Promise.all(
          keys.slice(i, i + REMOVE_PARALLEL).map(async (k) => {
            try {
              await client.delete(k);
            } catch (e) {
              if (!isMissing(e)) throw e;
            }
          }),
        );
    },

    async *keys(prefix = "") {
      checkPrefix(prefix);
      let continuationToken: string | undefined;
      do {
        const page = await client.list({
          ...(prefix ? { prefix } : {}),
          ...(continuationToken ? { continuationToken } : {}),
        });
        for (const o of page.contents ?? []) yield o.key;
        continuationToken = page.isTruncated ? page.nextContinuationToken : undefined;
      } while (continuationToken);
    },
  };
}
