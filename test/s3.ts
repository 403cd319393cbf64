/**
 * A real S3-compatible server for tests: s3rver (pure JS, an npm
 * devDependency) in this test process, listening on loopback, keeping its
 * objects in a temp dir removed when the process exits. Started once per
 * process on first use; every caller gets a bucket of its own, and
 * Plinth's S3 store talks to it with signed requests (s3rver checks
 * the signatures) through Bun's S3Client, as it would to any provider.
 *
 * s3rver is written for Node; two of its assumptions do not hold under Bun,
 * and both only matter for listings longer than one page (ListObjectsV2
 * with a continuation token), which the S3 store's keys() pages through:
 *
 *  - it walks its folder expecting readdir to return sorted names (Node's
 *    libuv sorts them; Bun returns the file system's order), then continues
 *    a listing after the last key sent, so pages skipped keys. Its own
 *    walk() is replaced, before s3rver loads, by the same walk over sorted
 *    names;
 *  - it encrypts continuation tokens with DES, which Bun's crypto
 *    (BoringSSL) does not offer ("Unknown cipher"). createCipheriv and
 *    createDecipheriv("des", …) hand it an identity transform instead: the
 *    tokens are readable rather than scrambled, which no client may rely
 *    on either way. Every other cipher is untouched.
 */
import type S3rverType from "s3rver";
import { readdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { mkdtempSync, rmSync } from "node:fs";
import { posix } from "node:path";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Config } from "../src/config";

export interface TestS3 {
  endpoint: string;
  /** A new empty bucket, as PLINTH_S3_* settings. */
  bucket(): Promise<Config["s3"]>;
}

let running: Promise<TestS3> | null = null;
let buckets = 0;

function desAsIdentity() {
  // The module object s3rver's require("crypto") returns (an import's namespace is read-only).
  const c = require("node:crypto") as Record<string, (...a: unknown[]) => unknown>;
  if ((c.createCipheriv as { identityDes?: boolean }).identityDes) return;
  const identity = () => ({
    update: (x: string | Uint8Array, enc?: BufferEncoding) =>
      typeof x === "string" ? Buffer.from(x, enc ?? "utf8") : Buffer.from(x),
    final: () => Buffer.alloc(0),
  });
  for (const name of ["createCipheriv", "createDecipheriv"]) {
    const real = c[name]!;
    const patched = (alg: unknown, ...rest: unknown[]) =>
      String(alg).toLowerCase() === "des" ? identity() : real(alg, ...rest);
    Object.assign(patched, { identityDes: true });
    c[name] = patched;
  }
}

const require = createRequire(import.meta.url);

/** s3rver's walk (lib/utils.js), over names in sorted order as Node gives them. */
function* sortedWalk(dir: string, recurse?: (path: string) => boolean): Generator<string> {
  for (const name of readdirSync(dir).sort()) {
    const path = posix.join(dir, name);
    if (!statSync(path).isDirectory()) yield path;
    else if (!recurse || recurse(path)) yield* sortedWalk(path, recurse);
  }
}

function loadS3rver(): typeof S3rverType {
  const utils = require("s3rver/lib/utils") as { walk: unknown };
  utils.walk = sortedWalk;
  desAsIdentity();
  return require("s3rver") as typeof S3rverType;
}

export function testS3(): Promise<TestS3> {
  return (running ??= (async () => {
    const S3rver = loadS3rver();
    const dir = mkdtempSync(join(tmpdir(), "plinth-s3-"));
    process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
    const server = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory: dir });
    const { port } = await server.run();
    // Serves for as long as the test process lives, without keeping it alive.
    server.httpServer?.unref();
    const endpoint = `http://127.0.0.1:${port}`;
    return {
      endpoint,
      async bucket() {
        const bucket = `plinth-${process.pid}-${++buckets}`;
        await server.store.putBucket(bucket);
        return { bucket, endpoint, region: "us-east-1", accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };
      },
    };
  })());
}
