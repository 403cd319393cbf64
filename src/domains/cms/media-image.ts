/**
 * Image facts for the media library: pixel dimensions (from headers, via
 * image-size: every common format, no decoding) and thumbnails.
 *
 * Thumbnails are pure JS (no native binaries): JPEG and PNG are decoded
 * (jpeg-js, fast-png), reduced with an area-average filter (premultiplied
 * alpha, so transparent edges do not darken), turned upright per the JPEG
 * EXIF orientation, and encoded back to the same format. GIF, WebP, AVIF and
 * ICO have no pure-JS encoder worth shipping, and SVG scales by itself: for
 * those, and for images already small, the thumbnail is the original.
 * Images above MAX_THUMB_SOURCE_PIXELS get no thumbnail (decoding cost and
 * decompression bombs); they still get their dimensions.
 */
import { imageSize } from "image-size";
import * as jpeg from "jpeg-js";
import { convertIndexedToRgb, decode as decodePng, encode as encodePng } from "fast-png";

export const THUMB_MAX = 400;
export const MAX_THUMB_SOURCE_PIXELS = 40_000_000;
const DIMENSIONED = new Set([
  "image/png",
  "image/jpeg",
  "image/gif",
  "image/webp",
  "image/avif",
  "image/svg+xml",
  "image/x-icon",
]);

export interface Dimensions {
  width: number;
  height: number;
  /** EXIF orientation (1–8) for JPEG; 1 when absent. */
  orientation: number;
}

/** Display dimensions (EXIF rotation applied), or null when the format has none or the header is unreadable. */
export function dimensions(bytes: Uint8Array, mime: string): Dimensions | null {
  if (!DIMENSIONED.has(mime)) return null;
  try {
    const s = imageSize(bytes);
    if (!s.width || !s.height) return null;
    const orientation =
      mime === "image/jpeg" && s.orientation && s.orientation >= 1 && s.orientation <= 8 ? s.orientation : 1;
    // Orientations 5–8 are quarter turns: the displayed image is the stored one on its side.
    const swap = orientation >= 5;
    return { width: swap ? s.height : s.width, height: swap ? s.width : s.height, orientation };
  } catch {
    return null;
  }
}

/** Area-average downscale of RGBA pixels, weighting colour by alpha. */
export function downscale(src: Uint8Array, sw: number, sh: number, dw: number, dh: number): Uint8Array {
  const out = new Uint8Array(dw * dh * 4);
  for (let dy = 0; dy < dh; dy++) {
    const y0 = Math.floor((dy * sh) / dh);
    const y1 = Math.max(y0 + 1, Math.floor(((dy + 1) * sh) / dh));
    for (let dx = 0; dx < dw; dx++) {
      const x0 = Math.floor((dx * sw) / dw);
      const x1 = Math.max(x0 + 1, Math.floor(((dx + 1) * sw) / dw));
      let r = 0,
        g = 0,
        b = 0,
        a = 0,
        n = 0;
      for (let y = y0; y < y1; y++) {
        let i = (y * sw + x0) * 4;
        for (let x = x0; x < x1; x++, i += 4) {
          const al = src[i + 3]!;
          r += src[i]! * al;
          g += src[i + 1]! * al;
          b += src[i + 2]! * al;
          a += al;
          n++;
        }
      }
      const o = (dy * dw + dx) * 4;
      if (a > 0) {
        out[o] = Math.round(r / a);
        out[o + 1] = Math.round(g / a);
        out[o + 2] = Math.round(b / a);
      }
      out[o + 3] = Math.round(a / n);
    }
  }
  return out;
}

/** Applies EXIF orientation (2–8) to RGBA pixels; returns the upright pixels and size. */
export function orient(
  src: Uint8Array,
  w: number,
  h: number,
  orientation: number,
): { data: Uint8Array; width: number; height: number } {
  if (orientation <= 1 || orientation > 8) return { data: src, width: w, height: h };
  const swap = orientation >= 5;
  const W = swap ? h : w;
  const H = swap ? w : h;
  const out = new Uint8Array(W * H * 4);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      let sx: number, sy: number;
      switch (orientation) {
        case 2:
          sx = w - 1 - x;
          sy = y;
          break;
        case 3:
          sx = w - 1 - x;
          sy = h - 1 - y;
          break;
        case 4:
          sx = x;
          sy = h - 1 - y;
          break;
        case 5:
          sx = y;
          sy = x;
          break;
        case 6:
          sx = y;
          sy = h - 1 - x;
          break;
        case 7:
          sx = w - 1 - y;
          sy = h - 1 - x;
          break;
        default:
          sx = w - 1 - y;
          sy = x;
          break; // 8
      }
      const si = (sy * w + sx) * 4;
      const di = (y * W + x) * 4;
      out[di] = src[si]!;
      out[di + 1] = src[si + 1]!;
      out[di + 2] = src[si + 2]!;
      out[di + 3] = src[si + 3]!;
    }
  }
  return { data: out, width: W, height: H };
}

/** RGBA8 pixels of a PNG, or null for layouts not worth supporting (sub-byte greyscale). */
function pngRgba(bytes: Uint8Array): { data: Uint8Array; width: number; height: number } | null {
  const d = decodePng(bytes);
  const px = d.width * d.height;
  let src: ArrayLike<number>;
  let ch: number;
  let shift = 0;
  if (d.palette) {
    src = convertIndexedToRgb(d);
    ch = d.palette[0]?.length ?? 3;
  } else {
    if (d.depth < 8) return null;
    src = d.data;
    ch = d.channels;
    shift = d.depth === 16 ? 8 : 0;
  }
  const out = new Uint8Array(px * 4);
  for (let p = 0; p < px; p++) {
    const i = p * ch;
    const o = p * 4;
    const v = (k: number) => (src[i + k]! >> shift) & 0xff;
    if (ch === 1 || ch === 2) {
      out[o] = out[o + 1] = out[o + 2] = v(0);
      out[o + 3] = ch === 2 ? v(1) : 255;
    } else {
      out[o] = v(0);
      out[o + 1] = v(1);
      out[o + 2] = v(2);
      out[o + 3] = ch === 4 ? v(3) : 255;
    }
  }
  return { data: out, width: d.width, height: d.height };
}

export interface Thumbnail {
  bytes: Uint8Array;
  ext: "jpg" | "png";
  width: number;
  height: number;
}

/** Size that fits in THUMB_MAX×THUMB_MAX keeping the aspect ratio. */
export function fitWithin(w: number, h: number, max = THUMB_MAX): { width: number; height: number } {
  const k = Math.min(1, max / Math.max(w, h));
  return { width: Math.max(1, Math.round(w * k)), height: Math.max(1, Math.round(h * k)) };
}

/**
 * A reduced copy of a JPEG or PNG larger than THUMB_MAX, or null when none
 * is made (other formats, small or huge images, undecodable data).
 */
export function makeThumbnail(bytes: Uint8Array, mime: string, dims: Dimensions | null): Thumbnail | null {
  if (!dims || (mime !== "image/jpeg" && mime !== "image/png")) return null;
  if (Math.max(dims.width, dims.height) <= THUMB_MAX) return null;
  if (dims.width * dims.height > MAX_THUMB_SOURCE_PIXELS) return null;
  try {
    const img =
      mime === "image/jpeg"
        ? (() => {
            const d = jpeg.decode(bytes, {
              useTArray: true,
              formatAsRGBA: true,
              maxResolutionInMP: 40,
              maxMemoryUsageInMB: 512,
            });
            return { data: d.data, width: d.width, height: d.height };
          })()
        : pngRgba(bytes);
    if (!img) return null;
    // Reduce in stored orientation, then turn upright: rotating the small image is cheaper.
    const stored = fitWithin(img.width, img.height);
    const small = downscale(img.data, img.width, img.height, stored.width, stored.height);
    const up = orient(small, stored.width, stored.height, dims.orientation);
    if (mime === "image/jpeg") {
      const enc = jpeg.encode({ data: up.data, width: up.width, height: up.height }, 80);
      return { bytes: new Uint8Array(enc.data), ext: "jpg", width: up.width, height: up.height };
    }
    return {
      bytes: encodePng({ width: up.width, height: up.height, data: up.data, channels: 4, depth: 8 }),
      ext: "png",
      width: up.width,
      height: up.height,
    };
  } catch {
    return null;
  }
}
