/** Media internals without a server: type sniffing, dimensions with EXIF orientation, the resize and rotate maths. */
import { describe, expect, test } from "bun:test";
import * as jpeg from "jpeg-js";
import { decode as decodePng } from "fast-png";
import { dimensions, downscale, fitWithin, makeThumbnail, orient } from "../../src/domains/cms/media-image";
import { decideType, normaliseMime, sniffMime } from "../../src/domains/cms/media-sniff";
import { contentDisposition } from "../../src/domains/cms/media-files";
import { pngBytes, jpegBytes, withExifOrientation, GIF_1X1, WEBP_1X1 } from "./media-samples";

describe("sniffMime", () => {
  test("recognises formats by their bytes", () => {
    const cases: [Uint8Array, string | null][] = [
      [pngBytes(2, 2), "image/png"],
      [jpegBytes(2, 2), "image/jpeg"],
      [GIF_1X1, "image/gif"],
      [WEBP_1X1, "image/webp"],
      [Buffer.from("%PDF-1.7\n%âãÏÓ\n"), "application/pdf"],
      [Buffer.from("\0\0\0\x18ftypisom\0\0\x02\0isomiso2"), "video/mp4"],
      [Buffer.from("\0\0\0\x14ftypqt  \0\0\x02\0"), "video/quicktime"],
      [Buffer.from("\0\0\0\x1cftypavif\0\0\0\0avifmif1"), "image/avif"],
      [Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 1, 2]), "video/webm"],
      [Buffer.from("ID3\x03\0\0\0\0\0\0"), "audio/mpeg"],
      [Buffer.from("OggS\0\x02"), "audio/ogg"],
      [Buffer.from("RIFF\x24\0\0\0WAVEfmt "), "audio/wav"],
      [Buffer.from("wOF2\0\x01"), "font/woff2"],
      [
        Buffer.from(
          '\ufeff<?xml version="1.0"?>\n<!-- c -->\n<!DOCTYPE svg>\n<svg xmlns="http://www.w3.org/2000/svg"></svg>',
        ),
        "image/svg+xml",
      ],
      [Buffer.from("<!DOCTYPE html><html><script>alert(1)</script>"), "text/html"],
      [Buffer.from("  <html>"), "text/html"],
      [Buffer.from("just some text"), null],
      [Buffer.from([0, 1, 2, 3]), null],
      [new Uint8Array(0), null],
    ];
    for (const [bytes, want] of cases) expect(sniffMime(bytes)).toBe(want);
  });

  test("decideType: bytes win; contradictions, HTML and unknowns are refused; text needs a declaration and UTF-8", () => {
    expect(decideType(pngBytes(1, 1), undefined)).toMatchObject({ ok: true, type: { mime: "image/png", ext: "png" } });
    expect(decideType(jpegBytes(1, 1), "IMAGE/JPG; q=1")).toMatchObject({ ok: true, type: { mime: "image/jpeg" } });
    expect(decideType(jpegBytes(1, 1), "image/png")).toMatchObject({
      ok: false,
      message: expect.stringContaining("bytes are image/jpeg"),
    });
    expect(decideType(Buffer.from("<html><body>hi"), "image/png")).toMatchObject({
      ok: false,
      message: expect.stringContaining("HTML"),
    });
    expect(decideType(Buffer.from("<svg></svg>"), "text/plain")).toMatchObject({ ok: false });
    expect(decideType(Buffer.from("a,b\n1,2\n"), "text/csv")).toMatchObject({ ok: true, type: { mime: "text/csv" } });
    expect(decideType(Buffer.from("a,b\n1,2\n"), undefined)).toMatchObject({ ok: false });
    expect(decideType(Buffer.from([0xff, 0xfe, 0x00, 0x41]), "text/plain")).toMatchObject({ ok: false });
    expect(decideType(Buffer.from("x"), "application/x-msdownload")).toMatchObject({
      ok: false,
      message: expect.stringContaining("not accepted"),
    });
    expect(decideType(Buffer.from("\0\0\0\x18ftypisom\0\0\x02\0"), "audio/mp4")).toMatchObject({
      ok: true,
      type: { mime: "audio/mp4" },
    });
    expect(normaliseMime(" Audio/MP3 ")).toBe("audio/mpeg");
  });
});

describe("images", () => {
  test("dimensions from headers; EXIF orientations 5-8 swap width and height", () => {
    expect(dimensions(pngBytes(640, 480), "image/png")).toEqual({ width: 640, height: 480, orientation: 1 });
    expect(dimensions(GIF_1X1, "image/gif")).toEqual({ width: 1, height: 1, orientation: 1 });
    expect(dimensions(withExifOrientation(jpegBytes(90, 30), 6), "image/jpeg")).toEqual({
      width: 30,
      height: 90,
      orientation: 6,
    });
    expect(dimensions(withExifOrientation(jpegBytes(90, 30), 3), "image/jpeg")).toEqual({
      width: 90,
      height: 30,
      orientation: 3,
    });
    expect(dimensions(Buffer.from("%PDF-1.4"), "application/pdf")).toBeNull();
    expect(dimensions(Buffer.from([0x89, 0x50, 0x4e, 0x47]), "image/png")).toBeNull();
  });

  test("downscale averages areas, weighting colour by alpha", () => {
    // 2x2 → 1x1: red opaque, blue opaque, two transparent greens (their colour must not leak in).
    const src = new Uint8Array([255, 0, 0, 255, 0, 0, 255, 255, 0, 255, 0, 0, 0, 255, 0, 0]);
    expect([...downscale(src, 2, 2, 1, 1)]).toEqual([128, 0, 128, 128]);
    expect(fitWithin(1200, 300)).toEqual({ width: 400, height: 100 });
    expect(fitWithin(100, 50)).toEqual({ width: 100, height: 50 });
    expect(fitWithin(10_000, 1)).toEqual({ width: 400, height: 1 });
  });

  test("orient maps every EXIF orientation like a rotation or mirror", () => {
    // A 3x2 image whose pixels are numbered 1..6 in the red channel:
    //   1 2 3
    //   4 5 6
    const src = new Uint8Array(6 * 4);
    for (let i = 0; i < 6; i++) src[i * 4] = i + 1;
    const red = (o: Awaited<ReturnType<typeof orient>>) => [...o.data].filter((_, i) => i % 4 === 0);
    expect(red(orient(src, 3, 2, 1))).toEqual([1, 2, 3, 4, 5, 6]);
    expect(red(orient(src, 3, 2, 2))).toEqual([3, 2, 1, 6, 5, 4]);
    expect(red(orient(src, 3, 2, 3))).toEqual([6, 5, 4, 3, 2, 1]);
    expect(red(orient(src, 3, 2, 4))).toEqual([4, 5, 6, 1, 2, 3]);
    const r6 = orient(src, 3, 2, 6); // 90° clockwise
    expect([r6.width, r6.height]).toEqual([2, 3]);
    expect(red(r6)).toEqual([4, 1, 5, 2, 6, 3]);
    expect(red(orient(src, 3, 2, 8))).toEqual([3, 6, 2, 5, 1, 4]); // 90° counter-clockwise
    expect(red(orient(src, 3, 2, 5))).toEqual([1, 4, 2, 5, 3, 6]); // transpose
    expect(red(orient(src, 3, 2, 7))).toEqual([6, 3, 5, 2, 4, 1]); // transverse
  });

  test("thumbnails: large PNG and JPEG are reduced (and turned upright); small or other formats get none", () => {
    const png = pngBytes(800, 600);
    const t = makeThumbnail(png, "image/png", dimensions(png, "image/png"))!;
    expect(t).toMatchObject({ ext: "png", width: 400, height: 300 });
    const back = decodePng(t.bytes);
    expect([back.width, back.height]).toEqual([400, 300]);
    const jpg = withExifOrientation(jpegBytes(900, 300), 6);
    const j = makeThumbnail(jpg, "image/jpeg", dimensions(jpg, "image/jpeg"))!;
    expect(j).toMatchObject({ ext: "jpg", width: 133, height: 400 });
    const decoded = jpeg.decode(j.bytes, { useTArray: true });
    expect([decoded.width, decoded.height]).toEqual([133, 400]);
    expect(makeThumbnail(pngBytes(300, 200), "image/png", dimensions(pngBytes(300, 200), "image/png"))).toBeNull();
    expect(makeThumbnail(GIF_1X1, "image/gif", dimensions(GIF_1X1, "image/gif"))).toBeNull();
    // A header that claims a huge image is not decoded.
    expect(makeThumbnail(png, "image/png", { width: 20_000, height: 20_000, orientation: 1 })).toBeNull();
  });

  test("the thumbnail is a faithful reduction: the gradient survives", () => {
    const png = pngBytes(800, 600);
    const t = makeThumbnail(png, "image/png", dimensions(png, "image/png"))!;
    const d = decodePng(t.bytes);
    // pngBytes draws red = x * 255 / width; the reduced image keeps that ramp.
    const redAt = (x: number) => d.data[(10 * d.width + x) * d.channels]!;
    expect(Math.abs(redAt(0) - 0)).toBeLessThan(3);
    expect(Math.abs(redAt(200) - 128)).toBeLessThan(3);
    expect(Math.abs(redAt(399) - 254)).toBeLessThan(3);
  });
});

describe("content disposition", () => {
  test("file names cannot break the header; unicode survives in filename*", () => {
    expect(contentDisposition("attachment", 'price "list".pdf')).toBe(
      `attachment; filename="price _list_.pdf"; filename*=UTF-8''price%20%22list%22.pdf`,
    );
    expect(contentDisposition("attachment", "naïve\r\nSet-Cookie: x=1.pdf")).not.toMatch(/[\r\n]/);
    expect(contentDisposition("attachment", "Ünïcödé.txt")).toContain(
      "filename*=UTF-8''%C3%9Cn%C3%AFc%C3%B6d%C3%A9.txt",
    );
  });
});
