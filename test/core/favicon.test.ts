/**
 * /favicon.ico and /favicon.svg over real HTTP: browsers ask for the icon on
 * every page, the public ones above all, and used to get a 404. The ICO is
 * read back as an ICO (directory, BMP header, pixels), so a broken encoder
 * fails here rather than as a blank tab icon; public pages link it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../harness";

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ seed: false });
}, 30_000);
afterAll(async () => {
  await s?.stop();
});

describe("the service's icon", () => {
  test("/favicon.ico: 200, image/x-icon, cached for a day, a 32×32 32-bit icon: the dark square, the white pedestal, transparent corners", async () => {
    const r = await fetch(`${s.url}/favicon.ico`);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("image/x-icon");
    expect(r.headers.get("cache-control")).toBe("public, max-age=86400");
    expect(r.headers.get("x-content-type-options")).toBe("nosniff");
    const b = new Uint8Array(await r.arrayBuffer());
    const v = new DataView(b.buffer);
    // ICONDIR: reserved 0, type 1 (icon), one image; the entry says 32×32, 32 bpp, where the image is and how long.
    expect([v.getUint16(0, true), v.getUint16(2, true), v.getUint16(4, true)]).toEqual([0, 1, 1]);
    expect([b[6], b[7], v.getUint16(12, true)]).toEqual([32, 32, 32]);
    const size = v.getUint32(14, true);
    const at = v.getUint32(18, true);
    expect(at + size).toBe(b.length);
    // BITMAPINFOHEADER: 40 bytes, 32 wide, 64 high (image and mask), 32 bpp.
    expect([
      v.getUint32(at, true),
      v.getInt32(at + 4, true),
      v.getInt32(at + 8, true),
      v.getUint16(at + 14, true),
    ]).toEqual([40, 32, 64, 32]);
    // Rows are stored bottom-up as BGRA.
    const px = (x: number, y: number) => [
      ...b.slice(at + 40 + ((31 - y) * 32 + x) * 4, at + 40 + ((31 - y) * 32 + x) * 4 + 4),
    ];
    expect(px(0, 0)[3]).toBe(0); // a cut corner
    expect(px(3, 16)).toEqual([0x30, 0x23, 0x1c, 255]); // #1c2330
    expect(px(16, 10)).toEqual([255, 255, 255, 255]); // the column
    expect(px(8, 24)).toEqual([255, 255, 255, 255]); // the base
    const head = await fetch(`${s.url}/favicon.ico`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-type")).toBe("image/x-icon");
  });

  test("/favicon.svg: 200, image/svg+xml, cached; the same mark", async () => {
    const r = await fetch(`${s.url}/favicon.svg`);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("image/svg+xml");
    expect(r.headers.get("cache-control")).toBe("public, max-age=86400");
    const svg = await r.text();
    expect(svg).toStartWith('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">');
    expect(svg).toContain('fill="#1c2330"');
    expect(svg).not.toContain("<script");
  });

  test("a public page links the icon; an unknown public page still does", async () => {
    for (const path of ["/b/no-such-page", "/s/no-such-survey"]) {
      const html = await (await fetch(`${s.url}${path}`)).text();
      expect(html).toContain('<link rel="icon" href="/favicon.ico" sizes="32x32">');
      expect(html).toContain('<link rel="icon" href="/favicon.svg" type="image/svg+xml">');
    }
  });
});
