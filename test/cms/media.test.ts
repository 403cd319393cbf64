/**
 * The media library over MCP and the file route over HTTP: uploads of every
 * kind, refusals, size limit, dimensions and thumbnails, the headers files
 * are served with, register by URL, deletion and its "still in use" rule.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mintRestKey } from "../fixtures/rest";
import { startTestServer, type TestServer } from "../harness";
import { b64, GIF_1X1, jpegBytes, pngBytes, WEBP_1X1, withExifOrientation } from "./media-samples";
import { makeWorld, type World } from "./world";

const MAX = 256 * 1024;
let s: TestServer;
let w: World;
let restKey: string;

beforeAll(async () => {
  s = await startTestServer({ seed: false, config: { maxUploadBytes: MAX } });
  w = await makeWorld(s);
  restKey = (await mintRestKey(s.deps, w.siteA)).key;
});
afterAll(async () => {
  await s?.stop();
});

const upload = (filename: string, bytes: Uint8Array | string, extra: Record<string, unknown> = {}) =>
  w.call(w.owner, "media_upload", { siteId: w.siteA, filename, dataBase64: b64(bytes), ...extra });
const get = (url: string, headers: Record<string, string> = {}) => fetch(w.local(url), { headers });
/** Whether the media store (data dir, database or bucket) holds the file a media URL names. */
const stored = async (url: string) =>
  (await s.deps.blobs.head(new URL(url).pathname.replace(/^\/media\//, ""))) !== null;

const SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="120" height="80"><script>alert(document.cookie)</script><rect width="120" height="80" fill="#2563eb"/></svg>`;

describe("uploads", () => {
  test("a large PNG gets dimensions, a stable URL and a real thumbnail; REST lists it", async () => {
    const r = await upload("hero.png", pngBytes(800, 600), { alt: "Roastery", caption: "Our roaster" });
    expect(r.isError).toBe(false);
    const m = r.data;
    expect(m).toMatchObject({
      filename: "hero.png",
      mimeType: "image/png",
      width: 800,
      height: 600,
      alt: "Roastery",
      caption: "Our roaster",
      stored: true,
    });
    expect(m.url).toMatch(new RegExp(`^${s.config.publicUrl}/media/${w.siteA}/[0-9a-f]{24}\\.png$`));
    expect(m.thumbnailUrl).toMatch(/\.thumb\.png$/);
    expect(await stored(m.url)).toBe(true);
    const file = await get(m.url);
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await file.arrayBuffer()).equals(Buffer.from(pngBytes(800, 600)))).toBe(true);
    const thumb = await get(m.thumbnailUrl);
    expect(thumb.status).toBe(200);
    const tb = new Uint8Array(await thumb.arrayBuffer());
    expect(tb.length).toBeLessThan(
      file.headers.get("content-length") ? Number(file.headers.get("content-length")) : Infinity,
    );
    const served = (
      (await (
        await fetch(`${s.url}/api/v1/sites/${w.siteA}/media`, { headers: { Authorization: `Bearer ${restKey}` } })
      ).json()) as any
    ).data;
    expect(served[0]).toMatchObject({
      id: m.id,
      url: m.url,
      thumbnailUrl: m.thumbnailUrl,
      width: 800,
      height: 600,
      mimeType: "image/png",
    });
  });

  test("JPEG with EXIF rotation, GIF, WebP, SVG, PDF, MP4, CSV and data: URLs", async () => {
    const jpg = (await upload("phone.jpg", withExifOrientation(jpegBytes(900, 300), 6))).data;
    expect(jpg).toMatchObject({ mimeType: "image/jpeg", width: 300, height: 900 });
    expect(jpg.thumbnailUrl).toMatch(/\.thumb\.jpg$/);
    expect((await upload("dot.gif", GIF_1X1)).data).toMatchObject({ mimeType: "image/gif", width: 1, height: 1 });
    const webp = (await upload("dot.webp", WEBP_1X1)).data;
    expect(webp).toMatchObject({ mimeType: "image/webp", width: 1, height: 1 });
    expect(webp.thumbnailUrl).toBe(webp.url);
    expect((await upload("logo.svg", SVG)).data).toMatchObject({ mimeType: "image/svg+xml", width: 120, height: 80 });
    const pdf = (await upload("price list.pdf", "%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF")).data;
    expect(pdf).toMatchObject({ mimeType: "application/pdf", width: null, height: null, thumbnailUrl: null });
    expect(
      (await upload("clip.mp4", Buffer.from("\0\0\0\x18ftypmp42\0\0\0\0mp42isom\0\0\0\x08free"))).data.mimeType,
    ).toBe("video/mp4");
    expect((await upload("prices.csv", "sku,price\nA,100\n", { mimeType: "text/csv" })).data.mimeType).toBe("text/csv");
    const viaDataUrl = await w.call(w.owner, "media_upload", {
      siteId: w.siteA,
      filename: "x.png",
      dataBase64: `data:image/png;base64,${b64(pngBytes(3, 3))}`,
    });
    expect(viaDataUrl.data).toMatchObject({ mimeType: "image/png", width: 3 });
    const wrapped = b64(pngBytes(5, 5)).replace(/(.{20})/g, "$1\n");
    expect((await upload("wrapped.png", "")).isError).toBe(true);
    expect(
      (await w.call(w.owner, "media_upload", { siteId: w.siteA, filename: "wrapped.png", dataBase64: wrapped })).data
        .width,
    ).toBe(5);
  });

  test("media_list filters by type prefix and file name, newest first, paginated; media_get reads one", async () => {
    const all = await w.ok(w.reader, "media_list", { siteId: w.siteA, limit: 100 });
    expect(all.total).toBeGreaterThanOrEqual(10);
    const ids = all.items.map((m: any) => m.id);
    expect(ids).toEqual([...ids].sort((a: number, b: number) => b - a));
    const images = await w.ok(w.owner, "media_list", { siteId: w.siteA, mimeType: "image", limit: 100 });
    expect(images.items.every((m: any) => m.mimeType.startsWith("image/"))).toBe(true);
    expect(images.total).toBeLessThan(all.total);
    expect((await w.ok(w.owner, "media_list", { siteId: w.siteA, mimeType: "all", limit: 1 })).total).toBe(all.total);
    expect((await w.ok(w.owner, "media_list", { siteId: w.siteA, search: "price list" })).items[0].filename).toBe(
      "price list.pdf",
    );
    expect((await w.ok(w.owner, "media_list", { siteId: w.siteA, mimeType: "image%" })).total).toBe(0);
    const one = await w.ok(w.reader, "media_get", { siteId: w.siteA, id: ids[0] });
    expect(one.id).toBe(ids[0]);
  });
});

describe("refusals", () => {
  test("contradicting types, HTML, unknown formats, bad base64 and oversize files are refused; nothing is stored", async () => {
    const before = w.changes();
    const cases: [string, Uint8Array | string, Record<string, unknown>, string][] = [
      ["fake.png", jpegBytes(4, 4), { mimeType: "image/png" }, "bytes are image/jpeg"],
      ["page.png", "<!doctype html><script>alert(1)</script>", { mimeType: "image/png" }, "HTML"],
      ["page.html", "<html><body>x</body></html>", {}, "HTML"],
      ["blob.bin", Buffer.from([0, 1, 2, 3, 4, 5]), {}, "not recognised"],
      ["app.exe", "MZ\x90\0", { mimeType: "application/x-msdownload" }, "not accepted"],
      ["notes.txt", "hello", {}, "give mimeType"],
      ["svg.txt", SVG, { mimeType: "text/plain" }, "image/svg+xml"],
    ];
    for (const [name, bytes, extra, msg] of cases) {
      const r = await upload(name, bytes, extra);
      expect(r.isError).toBe(true);
      expect(r.text).toContain(msg);
    }
    const bad64 = await w.call(w.owner, "media_upload", {
      siteId: w.siteA,
      filename: "x.png",
      dataBase64: "not*base64!",
    });
    expect(bad64.text).toContain("not valid base64");
    const big = await upload("big.png", new Uint8Array(MAX + 10).fill(7));
    expect(big.isError).toBe(true);
    expect(big.text).toStartWith("Too large");
    expect(big.text).toContain(String(MAX));
    expect(
      await w.err(w.owner, "media_upload", { siteId: w.siteA, filename: "../..", dataBase64: b64(pngBytes(1, 1)) }),
    ).toContain("filename");
    expect(w.changes()).toBe(before);
  });

  test("file names are reduced to their last segment; register by URL refuses non-http(s) and unknown types", async () => {
    const r = (await upload("../../secret/dir/photo.png", pngBytes(2, 2))).data;
    expect(r.filename).toBe("photo.png");
    expect(
      await w.err(w.owner, "media_register", { siteId: w.siteA, url: "javascript:alert(1)", mimeType: "image/png" }),
    ).toContain("url");
    expect(
      await w.err(w.owner, "media_register", { siteId: w.siteA, url: "/relative.png", mimeType: "image/png" }),
    ).toContain("absolute");
    expect(
      await w.err(w.owner, "media_register", {
        siteId: w.siteA,
        url: "https://cdn.example/a.exe",
        mimeType: "application/x-msdownload",
      }),
    ).toContain("not accepted");
  });
});

describe("register, update, delete", () => {
  test("register by URL stores the URL without fetching it; update changes alt and caption", async () => {
    const m = await w.ok(w.owner, "media_register", {
      siteId: w.siteA,
      url: "https://cdn.example.com/img/Beans%20Close.jpg",
      mimeType: "image/jpg",
      width: 1200,
      height: 800,
      alt: "Beans",
    });
    expect(m).toMatchObject({
      filename: "Beans Close.jpg",
      mimeType: "image/jpeg",
      url: "https://cdn.example.com/img/Beans%20Close.jpg",
      thumbnailUrl: "https://cdn.example.com/img/Beans%20Close.jpg",
      width: 1200,
      stored: false,
    });
    const u = await w.ok(w.owner, "media_update", { siteId: w.siteA, id: m.id, alt: null, caption: "Close-up" });
    expect(u).toMatchObject({ alt: null, caption: "Close-up" });
    expect(await w.err(w.owner, "media_update", { siteId: w.siteA, id: 999_999, alt: "x" })).toStartWith("Not found");
    expect(await w.err(w.owner, "media_update", { siteId: w.siteA, id: m.id, filename: ".." })).toContain("filename");
    expect(await w.err(w.owner, "media_update", { siteId: w.siteA, id: m.id, alt: "a\u0007b" })).toStartWith(
      "Invalid arguments",
    );
  });

  test("pictures the store uses (product and category images) hold their media too", async () => {
    const m = (await upload("bag.png", pngBytes(300, 300))).data;
    const product = await w.ok(w.owner, "products_create", {
      siteId: w.siteA,
      name: "House blend",
      price: 1800,
      images: [{ url: m.url }],
    });
    const category = await w.ok(w.owner, "product_categories_create", {
      siteId: w.siteA,
      name: "Blends",
      image: m.url,
    });
    const msg = await w.err(w.owner, "media_delete", { siteId: w.siteA, id: m.id });
    expect(msg).toContain(`product ${product.id} ("House blend")`);
    expect(msg).toContain(`product category ${category.id} ("Blends")`);
    expect(await stored(m.url)).toBe(true);
    await w.ok(w.owner, "products_delete", { siteId: w.siteA, id: product.id });
    await w.ok(w.owner, "product_categories_delete", { siteId: w.siteA, id: category.id });
    expect(await w.ok(w.owner, "media_delete", { siteId: w.siteA, id: m.id })).toEqual({ id: m.id, status: "deleted" });
  });

  test("media in use is refused naming what uses it; once free, delete removes the row and the files", async () => {
    const m = (await upload("cover.png", pngBytes(600, 600))).data;
    const post = await w.ok(w.owner, "posts_create", { siteId: w.siteA, title: "With cover", coverImage: m.url });
    const nav = await w.ok(w.owner, "nav_items_create", {
      siteId: w.siteA,
      label: "Promo",
      href: "/promo",
      featuredImage: m.url,
    });
    const tpl = await w.ok(w.owner, "block_templates_create", {
      siteId: w.siteA,
      name: "Gallery",
      blocks: [{ type: "image", props: { src: m.thumbnailUrl, alt: "x" } }],
    });
    const msg = await w.err(w.owner, "media_delete", { siteId: w.siteA, id: m.id });
    expect(msg).toContain(`post ${post.id} ("With cover")`);
    expect(msg).toContain(`navigation item ${nav.id} ("Promo")`);
    expect(msg).toContain(`block template ${tpl.id} ("Gallery")`);
    await w.ok(w.owner, "posts_delete", { siteId: w.siteA, id: post.id });
    await w.ok(w.owner, "nav_items_delete", { siteId: w.siteA, id: nav.id });
    await w.ok(w.owner, "block_templates_delete", { siteId: w.siteA, id: tpl.id });
    expect(await w.ok(w.owner, "media_delete", { siteId: w.siteA, id: m.id })).toEqual({ id: m.id, status: "deleted" });
    expect(await stored(m.url)).toBe(false);
    expect(await stored(m.thumbnailUrl)).toBe(false);
    expect((await get(m.url)).status).toBe(404);
    expect(await w.err(w.owner, "media_get", { siteId: w.siteA, id: m.id })).toStartWith("Not found");
  });
});

describe("the file route", () => {
  test("headers: nosniff, a sandboxing CSP, attachment for non-images with the original name, immutable caching", async () => {
    const img = (await upload("a.png", pngBytes(2, 2))).data;
    const r = await get(img.url);
    expect(r.headers.get("x-content-type-options")).toBe("nosniff");
    expect(r.headers.get("content-security-policy")).toContain("sandbox");
    expect(r.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(r.headers.get("content-disposition")).toBeNull();
    expect(r.headers.get("cache-control")).toContain("immutable");
    const etag = r.headers.get("etag")!;
    expect((await get(img.url, { "If-None-Match": etag })).status).toBe(304);

    const pdf = (await upload("Preisliste für 2025.pdf", "%PDF-1.4\n%%EOF")).data;
    const p = await get(pdf.url);
    expect(p.headers.get("content-type")).toBe("application/pdf");
    expect(p.headers.get("content-disposition")).toBe(
      `attachment; filename="Preisliste f_r 2025.pdf"; filename*=UTF-8''Preisliste%20f%C3%BCr%202025.pdf`,
    );
    const csv = (await upload("data.csv", "a,b\n", { mimeType: "text/csv" })).data;
    const c = await get(csv.url);
    expect(c.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(c.headers.get("content-disposition")).toStartWith("attachment;");
  });

  test("an SVG with script is served under a CSP that forbids running it", async () => {
    const svg = (await upload("evil.svg", SVG)).data;
    const r = await get(svg.url);
    expect(r.headers.get("content-type")).toBe("image/svg+xml");
    const csp = r.headers.get("content-security-policy")!;
    expect(csp).toContain("sandbox");
    expect(csp).not.toContain("script-src");
    expect(csp).toMatch(/default-src 'none'/);
  });

  test("byte ranges for media players; unsatisfiable ranges get 416", async () => {
    const pdf = (await upload("range.pdf", "%PDF-1.4\n0123456789\n%%EOF")).data;
    const r = await get(pdf.url, { Range: "bytes=0-4" });
    expect(r.status).toBe(206);
    expect(r.headers.get("content-range")).toBe("bytes 0-4/25");
    expect(await r.text()).toBe("%PDF-");
    const tail = await get(pdf.url, { Range: "bytes=-6" });
    expect(await tail.text()).toBe("\n%%EOF");
    expect((await get(pdf.url, { Range: "bytes=100-" })).status).toBe(416);
    expect((await get(pdf.url, { Range: "bytes=1-2,4-5" })).status).toBe(200);
  });

  test("paths outside the stored pattern are 404 without touching the disk", async () => {
    const img = (await upload("b.png", pngBytes(2, 2))).data;
    const name = new URL(img.url).pathname.split("/").pop()!;
    for (const path of [
      `/media/${w.siteA}/${name.toUpperCase()}`,
      `/media/${w.siteA}/${name.replace(".png", ".html")}`,
      `/media/${w.siteA}/..%2F..%2Fplinth.sqlite`,
      `/media/${w.siteA}/plinth.sqlite`,
      `/media/0${w.siteA}/${name}`,
      `/media/x/${name}`,
      `/media/${w.siteA}/${name}/extra`,
      `/media/${w.siteA + 1000}/${name}`,
    ]) {
      const r = await fetch(`${s.url}${path}`);
      expect(r.status).toBe(404);
    }
  });
});

describe("security", () => {
  test("another company's media cannot be listed, read, changed or deleted; viewers cannot upload", async () => {
    const theirs = (
      await w.call(w.stranger, "media_upload", {
        siteId: w.siteB,
        filename: "rival.png",
        dataBase64: b64(pngBytes(2, 2)),
      })
    ).data;
    await w.ok(w.viewer, "whoami");
    const before = w.changes();
    for (const [tool, args] of [
      ["media_list", { siteId: w.siteB }],
      ["media_get", { siteId: w.siteA, id: theirs.id }],
      ["media_update", { siteId: w.siteA, id: theirs.id, alt: "mine" }],
      ["media_delete", { siteId: w.siteA, id: theirs.id }],
      ["media_upload", { siteId: w.siteB, filename: "x.png", dataBase64: b64(pngBytes(1, 1)) }],
      ["media_register", { siteId: w.siteB, url: "https://x.example/a.png", mimeType: "image/png" }],
    ] as const) {
      const msg = await w.err(w.owner, tool, args as Record<string, unknown>);
      expect(msg).toStartWith("Not found");
      expect(msg).not.toContain("rival");
    }
    expect(
      await w.err(w.viewer, "media_upload", { siteId: w.siteA, filename: "v.png", dataBase64: b64(pngBytes(1, 1)) }),
    ).toContain("viewer");
    expect(w.changes()).toBe(before);
    expect(await stored(theirs.url)).toBe(true);
  });
});
