/**
 * The media stores (src/core/blobs*.ts): one contract suite run against each
 * kind — the data dir, the database (this run's engine: SQLite under
 * `make test`, PostgreSQL under scripts/with-postgres.ts) and S3 (s3rver,
 * a real S3-compatible server on loopback, test/s3.ts) — then the S3 store
 * end to end over HTTP, and two instances on one PostgreSQL database
 * serving each other's uploads.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { S3Client } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bodyBytes, type BlobBody, type BlobStore } from "../../src/core/blobs";
import { CHUNK, dbBlobStore } from "../../src/core/blobs-db";
import { localBlobStore } from "../../src/core/blobs-local";
import { s3BlobStore } from "../../src/core/blobs-s3";
import type { Config } from "../../src/config";
import type { Store } from "../../src/core/db";
import { ON_PG, openTestStore } from "../db";
import { startTestServer, type TestServer } from "../harness";
import { testS3 } from "../s3";
import { b64, pngBytes } from "./media-samples";
import { makeWorld } from "./world";

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);

async function bytesOf(body: BlobBody | null): Promise<Uint8Array | null> {
  return body === null ? null : bodyBytes(body);
}

async function allKeys(store: BlobStore, prefix?: string): Promise<string[]> {
  const out: string[] = [];
  for await (const k of store.keys(prefix)) out.push(k);
  return out.sort();
}

/** Deterministic bytes that are not a repeating pattern (so a misplaced chunk shows). */
function noise(n: number, seed = 1): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

const equal = (a: Uint8Array | null, b: Uint8Array) => a !== null && Buffer.from(a).equals(Buffer.from(b));

interface Kind {
  name: "local" | "db" | "s3";
  open(): Promise<{ store: BlobStore; close(): Promise<void> }>;
}

const KINDS: Kind[] = [
  {
    name: "local",
    async open() {
      const dir = mkdtempSync(join(tmpdir(), "plinth-blobs-"));
      return { store: localBlobStore(dir), close: async () => rmSync(dir, { recursive: true, force: true }) };
    },
  },
  {
    name: "db",
    async open() {
      const s: Store = await openTestStore();
      return { store: dbBlobStore(s), close: () => s.close() };
    },
  },
  {
    name: "s3",
    async open() {
      const bucket = await (await testS3()).bucket();
      return { store: s3BlobStore(bucket), close: async () => {} };
    },
  },
];

for (const kind of KINDS) {
  describe(`BlobStore contract: ${kind.name}${kind.name === "db" ? ` (${ON_PG ? "PostgreSQL" : "SQLite"})` : ""}`, () => {
    let store: BlobStore;
    let close: () => Promise<void>;
    beforeAll(async () => {
      ({ store, close } = await kind.open());
    });
    afterAll(async () => {
      await close?.();
    });

    test("kind", () => {
      expect(store.kind).toBe(kind.name);
    });

    test("put, head and read the whole object; the ETag is stable; a put replaces", async () => {
      await store.put("1/aaaaaaaaaaaaaaaaaaaaaaaa.txt", enc("hello, world"), "text/plain");
      const h = await store.head("1/aaaaaaaaaaaaaaaaaaaaaaaa.txt");
      expect(h).not.toBeNull();
      expect(h!.size).toBe(12);
      expect(h!.etag).toMatch(/^[A-Za-z0-9_-]+$/);
      expect((await store.head("1/aaaaaaaaaaaaaaaaaaaaaaaa.txt"))!.etag).toBe(h!.etag);
      expect(dec((await bytesOf(await store.read("1/aaaaaaaaaaaaaaaaaaaaaaaa.txt")))!)).toBe("hello, world");
      await store.put("1/replaced.bin", enc("first"), "application/octet-stream");
      await Bun.sleep(5); // a later modification time for the local store
      await store.put("1/replaced.bin", enc("second, longer"), "application/octet-stream");
      expect((await store.head("1/replaced.bin"))!.size).toBe(14);
      expect(dec((await bytesOf(await store.read("1/replaced.bin")))!)).toBe("second, longer");
    });

    test("ranges are inclusive; an end past the object is cut to it; a start past it reads nothing", async () => {
      await store.put("2/range.txt", enc("0123456789"), "text/plain");
      const r = async (start: number, end: number) =>
        dec((await bytesOf(await store.read("2/range.txt", { start, end })))!);
      expect(await r(0, 4)).toBe("01234");
      expect(await r(3, 3)).toBe("3");
      expect(await r(7, 9)).toBe("789");
      expect(await r(0, 9)).toBe("0123456789");
      expect(await r(8, 100)).toBe("89");
      expect(await r(10, 20)).toBe("");
      await expect(store.read("2/range.txt", { start: 5, end: 4 })).rejects.toThrow("range");
      await expect(store.read("2/range.txt", { start: -1, end: 4 })).rejects.toThrow("range");
    });

    test("missing keys: head and read answer null, remove is fine", async () => {
      expect(await store.head("9/missing.png")).toBeNull();
      expect(await store.read("9/missing.png")).toBeNull();
      expect(await store.read("9/missing.png", { start: 0, end: 10 })).toBeNull();
      await store.remove(["9/missing.png", "9/also-missing.png"]);
      await store.remove([]);
    });

    test("an empty file", async () => {
      await store.put("3/empty.txt", new Uint8Array(0), "text/plain");
      expect(await store.head("3/empty.txt")).toMatchObject({ size: 0 });
      const body = await bytesOf(await store.read("3/empty.txt"));
      expect(body).not.toBeNull();
      expect(body!.length).toBe(0);
      expect(await allKeys(store, "3/")).toEqual(["3/empty.txt"]);
    });

    test("a 5 MB file, whole and in ranges across chunk boundaries", async () => {
      const big = noise(5 * 1024 * 1024 + 17, 42);
      await store.put("4/big.mp4", big, "video/mp4");
      expect((await store.head("4/big.mp4"))!.size).toBe(big.length);
      const whole = await store.read("4/big.mp4");
      expect(equal(await bytesOf(whole), big)).toBe(true);
      for (const [start, end] of [
        [0, 0],
        [CHUNK - 3, CHUNK + 3],
        [CHUNK - 1, big.length - 2],
        [CHUNK + 5, CHUNK + 5],
        [big.length - 100, big.length - 1],
        [1, big.length - 2],
      ] as const) {
        const part = await bytesOf(await store.read("4/big.mp4", { start, end }));
        expect(part!.length).toBe(end - start + 1);
        expect(equal(part, big.subarray(start, end + 1))).toBe(true);
      }
    });

    test("concurrent puts of different keys all land", async () => {
      const items = Array.from({ length: 24 }, (_, i) => ({
        key: `5/c${String(i).padStart(2, "0")}.bin`,
        bytes: noise(1000 + i * 997, i + 7),
      }));
      await Promise.all(items.map((it) => store.put(it.key, it.bytes, "application/octet-stream")));
      expect(await allKeys(store, "5/")).toEqual(items.map((i) => i.key));
      for (const it of items) expect(equal(await bytesOf(await store.read(it.key)), it.bytes)).toBe(true);
    });

    test("remove takes exactly the keys given", async () => {
      await Promise.all(["6/a.txt", "6/b.txt", "6/c.txt"].map((k) => store.put(k, enc(k), "text/plain")));
      await store.remove(["6/a.txt", "6/c.txt", "6/never.txt"]);
      expect(await store.head("6/a.txt")).toBeNull();
      expect(await store.read("6/c.txt")).toBeNull();
      expect(dec((await bytesOf(await store.read("6/b.txt")))!)).toBe("6/b.txt");
      expect(await allKeys(store, "6/")).toEqual(["6/b.txt"]);
    });

    test("keys by prefix, across more than one page of listing", async () => {
      await Promise.all(
        ["70/a.txt", "70/b.thumb.png", "700/c.txt", "71/d.txt"].map((k) => store.put(k, enc(k), "text/plain")),
      );
      expect(await allKeys(store, "70/")).toEqual(["70/a.txt", "70/b.thumb.png"]);
      expect(await allKeys(store, "70")).toEqual(["70/a.txt", "70/b.thumb.png", "700/c.txt"]);
      expect(await allKeys(store, "70/b")).toEqual(["70/b.thumb.png"]);
      expect(await allKeys(store, "nothing/")).toEqual([]);
      const all = await allKeys(store);
      for (const k of ["1/replaced.bin", "4/big.mp4", "70/a.txt", "71/d.txt"]) expect(all).toContain(k);
      // Listings come in pages of 1000 (S3's and the database store's): 1005 keys take two.
      const many = Array.from({ length: 1005 }, (_, i) => `8/k${String(i).padStart(4, "0")}`);
      for (let i = 0; i < many.length; i += 50)
        await Promise.all(many.slice(i, i + 50).map((k) => store.put(k, enc("x"), "text/plain")));
      expect(await allKeys(store, "8/")).toEqual(many);
    }, 60_000);

    test("keys that could leave the store are refused before any store sees them", async () => {
      for (const bad of [
        "../x.txt",
        "/etc/passwd",
        "a//b",
        ".hidden",
        "1/../../x",
        "a/./b",
        "a\\b",
        "a b",
        "",
        `${"a".repeat(600)}`,
      ])
        await expect(store.put(bad, enc("x"), "text/plain")).rejects.toThrow("not a blob key");
      await expect(store.head("1/../x")).rejects.toThrow("not a blob key");
      await expect(store.read("..")).rejects.toThrow("not a blob key");
      await expect(store.remove(["ok.txt", "../x"])).rejects.toThrow("not a blob key");
    });
  });
}

test.skipIf(!ON_PG)(
  "PostgreSQL keeps media bytes uncompressed (STORAGE EXTERNAL), so a range reads only the chunks it needs",
  async () => {
    const s = await openTestStore();
    try {
      const r = await s.query<{ attstorage: string }>(
        "SELECT attstorage FROM pg_attribute WHERE attrelid = 'media_blobs'::regclass AND attname = 'bytes'",
      );
      expect(r).toEqual([{ attstorage: "e" }]);
    } finally {
      await s.close();
    }
  },
);

describe("the S3 store end to end over HTTP (s3rver on loopback)", () => {
  let s: TestServer;
  let bucket: Config["s3"];
  let direct: S3Client;
  beforeAll(async () => {
    bucket = await (await testS3()).bucket();
    // An S3 client of the test's own, to look into the bucket behind Plinth's back.
    direct = new S3Client({ ...bucket } as Record<string, string>);
    s = await startTestServer({ seed: false, config: { mediaStore: "s3", s3: bucket } });
  });
  afterAll(async () => {
    await s?.stop();
  });

  test("upload through MCP lands in the bucket; /media serves it whole, in ranges and with 304; delete empties the bucket", async () => {
    expect(s.deps.blobs.kind).toBe("s3");
    const w = await makeWorld(s);
    const png = pngBytes(600, 400);
    const m = await w.ok(w.owner, "media_upload", { siteId: w.siteA, filename: "hero.png", dataBase64: b64(png) });
    const key = new URL(m.url).pathname.replace(/^\/media\//, "");
    const thumbKey = new URL(m.thumbnailUrl).pathname.replace(/^\/media\//, "");
    expect(thumbKey).toMatch(/\.thumb\.png$/);
    // In the bucket, under the same key as in the data dir.
    expect(await direct.file(key).exists()).toBe(true);
    expect(Buffer.from(await direct.file(key).arrayBuffer()).equals(Buffer.from(png))).toBe(true);
    expect(await direct.file(thumbKey).exists()).toBe(true);

    const whole = await fetch(w.local(m.url));
    expect(whole.status).toBe(200);
    expect(whole.headers.get("content-type")).toBe("image/png");
    expect(whole.headers.get("content-length")).toBe(String(png.length));
    expect(whole.headers.get("x-content-type-options")).toBe("nosniff");
    expect(whole.headers.get("content-security-policy")).toContain("sandbox");
    expect(whole.headers.get("cache-control")).toContain("immutable");
    expect(whole.headers.get("accept-ranges")).toBe("bytes");
    expect(Buffer.from(await whole.arrayBuffer()).equals(Buffer.from(png))).toBe(true);
    const etag = whole.headers.get("etag")!;
    expect(etag).toMatch(/^"[0-9a-f]{24}-[A-Za-z0-9_-]+"$/);
    expect((await fetch(w.local(m.url), { headers: { "If-None-Match": etag } })).status).toBe(304);

    const part = await fetch(w.local(m.url), { headers: { Range: "bytes=100-199" } });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 100-199/${png.length}`);
    expect(part.headers.get("content-length")).toBe("100");
    expect(Buffer.from(await part.arrayBuffer()).equals(Buffer.from(png.subarray(100, 200)))).toBe(true);
    const tail = await fetch(w.local(m.url), { headers: { Range: "bytes=-8" } });
    expect(Buffer.from(await tail.arrayBuffer()).equals(Buffer.from(png.subarray(png.length - 8)))).toBe(true);
    expect((await fetch(w.local(m.url), { headers: { Range: `bytes=${png.length}-` } })).status).toBe(416);
    expect((await fetch(w.local(m.thumbnailUrl))).status).toBe(200);

    // A PDF keeps its attachment name from the row.
    const pdf = await w.ok(w.owner, "media_upload", {
      siteId: w.siteA,
      filename: "Price list.pdf",
      dataBase64: b64("%PDF-1.4\n%%EOF"),
    });
    expect((await fetch(w.local(pdf.url))).headers.get("content-disposition")).toStartWith(
      `attachment; filename="Price list.pdf"`,
    );

    expect(await w.ok(w.owner, "media_delete", { siteId: w.siteA, id: m.id })).toEqual({ id: m.id, status: "deleted" });
    expect(await direct.file(key).exists()).toBe(false);
    expect(await direct.file(thumbKey).exists()).toBe(false);
    expect((await fetch(w.local(m.url))).status).toBe(404);
    // Only the PDF is left in the bucket.
    expect((await direct.list()).contents?.map((o) => o.key)).toEqual([
      new URL(pdf.url).pathname.replace(/^\/media\//, ""),
    ]);
  });
});

describe.skipIf(!ON_PG)("two instances on one PostgreSQL database serve each other's uploads", () => {
  for (const mediaStore of ["db", "s3"] as const) {
    test(`media store ${mediaStore}`, async () => {
      const s3 = mediaStore === "s3" ? await (await testS3()).bucket() : undefined;
      const a = await startTestServer({ seed: false, config: { mediaStore, ...(s3 ? { s3 } : {}) } });
      // The same database and media store, another data dir.
      const b = await startTestServer({
        seed: false,
        config: { databaseUrl: a.config.databaseUrl, mediaStore, s3: a.config.s3 },
      });
      try {
        expect(b.dataDir).not.toBe(a.dataDir);
        const w = await makeWorld(a);
        const on = (srv: TestServer, url: string) => `${srv.url}${new URL(url).pathname}`;
        const png = pngBytes(500, 300);
        const m = await w.ok(w.owner, "media_upload", {
          siteId: w.siteA,
          filename: "shared.png",
          dataBase64: b64(png),
        });
        for (const srv of [a, b]) {
          const r = await fetch(on(srv, m.url));
          expect(r.status).toBe(200);
          expect(Buffer.from(await r.arrayBuffer()).equals(Buffer.from(png))).toBe(true);
          expect((await fetch(on(srv, m.thumbnailUrl))).status).toBe(200);
          const part = await fetch(on(srv, m.url), { headers: { Range: "bytes=0-7" } });
          expect(part.status).toBe(206);
          expect(Buffer.from(await part.arrayBuffer()).equals(Buffer.from(png.subarray(0, 8)))).toBe(true);
        }
        // Both answer with the same ETag, so a renderer's cache works across the balancer.
        expect((await fetch(on(a, m.url))).headers.get("etag")).toBe((await fetch(on(b, m.url))).headers.get("etag"));
        // Deleted through b: gone on a too.
        const wb = await makeWorld(b);
        const other = await wb.ok(wb.owner, "media_upload", {
          siteId: wb.siteA,
          filename: "from-b.pdf",
          dataBase64: b64("%PDF-1.4\n%%EOF"),
        });
        expect((await fetch(on(a, other.url))).status).toBe(200);
        await wb.ok(wb.owner, "media_delete", { siteId: wb.siteA, id: other.id });
        expect((await fetch(on(a, other.url))).status).toBe(404);
      } finally {
        await b.stop();
        await a.stop();
      }
    }, 60_000);
  }
});
