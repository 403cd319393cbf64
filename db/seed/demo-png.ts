/**
 * PNG writing for the demo's pictures: 8-bit RGB, every row filtered "Up"
 * (the difference from the row above), compressed with the runtime's native
 * zlib.
 *
 * Why not fast-png (which the media library uses)? It compresses with a JS
 * deflate and no row filter: about ten times slower here, and larger files
 * for pictures whose rows repeat, which is what product shots on a plain
 * backdrop are. fast-png decodes the output in the tests.
 */
import { crc32, deflateSync } from "node:zlib";

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

/** RGB pixels (3 bytes per pixel, row-major) as a PNG file. */
export function encodePng(rgb: Uint8Array, width: number, height: number): Uint8Array {
  const stride = width * 3;
  if (rgb.length !== stride * height) throw new Error("encodePng: pixel buffer does not match the size");
  const raw = new Uint8Array((stride + 1) * height);
  for (let y = 0; y < height; y++) {
    const o = y * (stride + 1);
    const s = y * stride;
    raw[o] = 2; // filter: Up
    if (y === 0) raw.set(rgb.subarray(0, stride), o + 1);
    else for (let i = 0; i < stride; i++) raw[o + 1 + i] = rgb[s + i]! - rgb[s - stride + i]!; // Uint8Array wraps: mod 256, as PNG wants
  }
  const ihdr = new Uint8Array(13);
  const v = new DataView(ihdr.buffer);
  v.setUint32(0, width);
  v.setUint32(4, height);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit, truecolour, deflate, standard filters, no interlace
  const parts = [
    Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(raw, { level: 6 })),
    chunk("IEND", new Uint8Array(0)),
  ];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}
