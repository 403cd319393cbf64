/** Real image bytes for media tests, made with the same pure-JS encoders the server uses. */
import * as jpeg from "jpeg-js";
import { encode as encodePng } from "fast-png";

/** An RGBA gradient: red = x·255/width, green = y·255/height, blue 100. */
function gradient(width: number, height: number): Uint8Array {
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      data[i] = Math.floor((x * 255) / width);
      data[i + 1] = Math.floor((y * 255) / height);
      data[i + 2] = 100;
      data[i + 3] = 255;
    }
  return data;
}

export function pngBytes(width: number, height: number): Uint8Array {
  return encodePng({ width, height, data: gradient(width, height), channels: 4, depth: 8 });
}

export function jpegBytes(width: number, height: number): Uint8Array {
  return new Uint8Array(jpeg.encode({ width, height, data: gradient(width, height) }, 85).data);
}

/** The JPEG with an EXIF APP1 segment carrying one tag: Orientation = `o`. */
export function withExifOrientation(jpg: Uint8Array, o: number): Uint8Array {
  const tiff = [0x4d, 0x4d, 0x00, 0x2a, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, o, 0, 0, 0, 0, 0, 0];
  const payload = [...Buffer.from("Exif\0\0", "binary"), ...tiff];
  const len = payload.length + 2;
  const app1 = [0xff, 0xe1, len >> 8, len & 0xff, ...payload];
  return new Uint8Array([...jpg.subarray(0, 2), ...app1, ...jpg.subarray(2)]);
}

export const GIF_1X1 = new Uint8Array(
  Buffer.from("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", "base64"),
);
export const WEBP_1X1 = new Uint8Array(
  Buffer.from("UklGRiQAAABXRUJQVlA4IBgAAAAwAQCdASoBAAEAAwA0JaQAA3AA/vuUAAA=", "base64"),
);

export const b64 = (bytes: Uint8Array | string) => Buffer.from(bytes).toString("base64");
