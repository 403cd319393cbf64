/**
 * The service's own icon, so /favicon.ico answers on every public page
 * (browsers ask for it whether or not a page links one; a 404 there shows
 * in every visitor's console and every access log). Public pages also link
 * it (`<link rel="icon">` in src/core/public-page.ts), or the site's
 * branding favicon where a page knows its site.
 *
 * Both forms are drawn here, not read from disk, so the single binary
 * carries them: /favicon.ico is a 32×32 32-bit BMP icon (what every browser
 * and crawler understands), /favicon.svg the same mark for sharp rendering.
 * The mark is a plinth: a dark rounded square with a stepped pedestal.
 */
import { Hono, type Context } from "hono";

const SIZE = 32;
const BG = [0x1c, 0x23, 0x30] as const; // #1c2330, the approval pages' ink
const FG = [0xff, 0xff, 0xff] as const;
/** The pedestal, top to bottom: [x0, y0, x1, y1) in a 32-pixel square. */
const BARS: [number, number, number, number][] = [
  [13, 7, 19, 18],
  [10, 18, 22, 22],
  [7, 22, 25, 26],
];
const RADIUS = 7;

/** Inside the rounded square: the corners cut by a circle of RADIUS. */
function inside(x: number, y: number): boolean {
  const cx = x < RADIUS ? RADIUS : x >= SIZE - RADIUS ? SIZE - RADIUS - 1 : x;
  const cy = y < RADIUS ? RADIUS : y >= SIZE - RADIUS ? SIZE - RADIUS - 1 : y;
  return (x - cx) ** 2 + (y - cy) ** 2 <= RADIUS * RADIUS;
}

function pixel(x: number, y: number): [number, number, number, number] {
  if (!inside(x, y)) return [0, 0, 0, 0];
  const fg = BARS.some(([x0, y0, x1, y1]) => x >= x0 && x < x1 && y >= y0 && y < y1);
  const [r, g, b] = fg ? FG : BG;
  return [r, g, b, 255];
}

/** ICONDIR + one ICONDIRENTRY + BITMAPINFOHEADER + BGRA rows bottom-up + the AND mask (all zero: alpha decides). */
function icoBytes(): Uint8Array {
  const pixels = SIZE * SIZE * 4;
  const mask = SIZE * 4; // 32 one-bit columns = 4 bytes a row, already a multiple of 4
  const image = 40 + pixels + mask;
  const buf = new Uint8Array(6 + 16 + image);
  const v = new DataView(buf.buffer);
  v.setUint16(2, 1, true); // type: icon
  v.setUint16(4, 1, true); // one image
  buf[6] = SIZE;
  buf[7] = SIZE;
  v.setUint16(10, 1, true); // colour planes
  v.setUint16(12, 32, true); // bits per pixel
  v.setUint32(14, image, true);
  v.setUint32(18, 22, true); // offset of the image
  const h = 22;
  v.setUint32(h, 40, true);
  v.setInt32(h + 4, SIZE, true);
  v.setInt32(h + 8, SIZE * 2, true); // XOR bitmap and AND mask stacked, as ICO wants
  v.setUint16(h + 12, 1, true);
  v.setUint16(h + 14, 32, true);
  v.setUint32(h + 20, pixels + mask, true);
  let at = h + 40;
  for (let y = SIZE - 1; y >= 0; y--)
    for (let x = 0; x < SIZE; x++) {
      const [r, g, b, a] = pixel(x, y);
      buf[at++] = b;
      buf[at++] = g;
      buf[at++] = r;
      buf[at++] = a;
    }
  return buf;
}

const hex = (c: readonly number[]) => `#${c.map((n) => n.toString(16).padStart(2, "0")).join("")}`;

export const FAVICON_ICO = icoBytes();
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${SIZE} ${SIZE}"><rect width="${SIZE}" height="${SIZE}" rx="${RADIUS}" fill="${hex(BG)}"/>${BARS.map(
  ([x0, y0, x1, y1]) => `<rect x="${x0}" y="${y0}" width="${x1 - x0}" height="${y1 - y0}" fill="${hex(FG)}"/>`,
).join("")}</svg>`;

/** GET/HEAD /favicon.ico and /favicon.svg: static bytes, cached for a day by browsers and proxies. */
export function faviconRoutes(): Hono {
  const app = new Hono();
  const answer = (body: Uint8Array | string, type: string) => (c: Context) => {
    c.header("Content-Type", type);
    c.header("Cache-Control", "public, max-age=86400");
    c.header("X-Content-Type-Options", "nosniff");
    return c.body(body as never);
  };
  app.get("/favicon.ico", answer(FAVICON_ICO, "image/x-icon"));
  app.get("/favicon.svg", answer(FAVICON_SVG, "image/svg+xml"));
  return app;
}
