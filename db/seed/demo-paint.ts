/**
 * A tiny raster painter for the demo's pictures: flat, softly lit
 * illustrations built from anti-aliased shapes (no fonts, no randomness, so
 * every run paints the same pixels).
 *
 * Coordinates are in "units" of the picture's shorter side, origin top-left:
 * a 3:2 landscape picture spans x 0–1.5 and y 0–1, a square one 0–1 both
 * ways. A scene painted at 720×480 and at 400×267 is the same picture, which
 * is how thumbnails are made. Each shape is evaluated only inside its own
 * bounding box, with coverage from a signed distance (one pixel of soft edge).
 */

export type RGB = readonly [number, number, number];

export function hex(s: string): RGB {
  const n = Number.parseInt(s.replace("#", ""), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

export function mix(a: RGB, b: RGB, t: number): RGB {
  return [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t];
}

/** A colour, or a two-colour gradient across the shape's box (`x`: left to right, `y`: top to bottom). */
export type Paint = RGB | { from: RGB; to: RGB; dir?: "x" | "y" };

export interface ShapeOptions {
  /** Opacity, 0–1. */
  alpha?: number;
  /** Rotation in radians about the shape's centre (rect, ellipse). */
  rot?: number;
}

export class Canvas {
  readonly px: Float64Array;
  /** Pixels per unit. */
  readonly u: number;
  /** The picture's extent in units. */
  readonly W: number;
  readonly H: number;

  /**
   * `scratch`, when given and large enough, is reused for the pixels
   * (cleared first): painting many pictures in a row then touches the same
   * memory instead of fresh pages each time, which is most of the cost.
   */
  constructor(
    readonly width: number,
    readonly height: number,
    scratch?: Float64Array,
  ) {
    const n = width * height * 3;
    this.px = scratch && scratch.length >= n ? scratch.subarray(0, n).fill(0) : new Float64Array(n);
    this.u = Math.min(width, height);
    this.W = width / this.u;
    this.H = height / this.u;
  }

  /**
   * Blends `paint` into the pixels of a box (in units) with coverage from
   * `sdf(x, y)`: the signed distance in pixels (negative inside). The
   * distance must never be overstated (exact, or an underestimate), because
   * it is also used to step along each row: a pixel at distance d from the
   * edge has ⌊|d| − ½⌋ more pixels beside it on the same side, so those are
   * filled or skipped without evaluating the shape.
   */
  private shape(
    bx0: number,
    by0: number,
    bx1: number,
    by1: number,
    sdf: (x: number, y: number) => number,
    paint: Paint,
    alpha = 1,
  ) {
    const u = this.u;
    const x0 = Math.max(0, Math.floor(bx0 * u) - 1);
    const y0 = Math.max(0, Math.floor(by0 * u) - 1);
    const x1 = Math.min(this.width, Math.ceil(bx1 * u) + 1);
    const y1 = Math.min(this.height, Math.ceil(by1 * u) + 1);
    if (x0 >= x1 || y0 >= y1) return;
    const grad = "from" in paint ? paint : null;
    const [r0, g0, b0] = grad ? grad.from : (paint as RGB);
    const [r1, g1, b1] = grad ? grad.to : [r0, g0, b0];
    const alongX = grad?.dir === "x";
    const ox = bx0 * u,
      oy = by0 * u;
    const spanX = Math.max(1e-6, (bx1 - bx0) * u);
    const spanY = Math.max(1e-6, (by1 - by0) * u);
    const px = this.px;
    const width = this.width;
    const blend = (x: number, y: number, a: number) => {
      let t = alongX ? (x + 0.5 - ox) / spanX : (y + 0.5 - oy) / spanY;
      t = t < 0 ? 0 : t > 1 ? 1 : t;
      const i = (y * width + x) * 3;
      px[i] = px[i]! + (r0 + (r1 - r0) * t - px[i]!) * a;
      px[i + 1] = px[i + 1]! + (g0 + (g1 - g0) * t - px[i + 1]!) * a;
      px[i + 2] = px[i + 2]! + (b0 + (b1 - b0) * t - px[i + 2]!) * a;
    };
    for (let y = y0; y < y1; y++) {
      const cy = y + 0.5;
      let x = x0;
      while (x < x1) {
        const d = sdf(x + 0.5, cy);
        if (d >= 0.5) {
          x += Math.floor(d - 0.5) + 1; // outside: skip what is surely outside too
        } else if (d <= -0.5) {
          const end = Math.min(x1, x + Math.floor(-d - 0.5) + 1); // inside: fill what is surely inside too
          for (; x < end; x++) blend(x, y, alpha);
        } else {
          blend(x, y, (0.5 - d) * alpha);
          x++;
        }
      }
    }
  }

  /** Vertical gradient over the whole picture: stops at y (units, 0 = top). Depends on y only. */
  vgrad(...stops: [y: number, color: RGB][]) {
    this.band(0, this.H, stops);
  }

  /** A full-width band from y0 to y1 (units), coloured by stops at absolute y. Depends on y only. */
  band(y0: number, y1: number, stops: [y: number, color: RGB][]) {
    const u = this.u;
    const ys = Math.max(0, Math.round(y0 * u));
    const ye = Math.min(this.height, Math.round(y1 * u));
    const px = this.px;
    const rowLen = this.width * 3;
    for (let y = ys; y < ye; y++) {
      const [r, g, b] = at(stops, (y + 0.5) / u);
      for (let i = y * rowLen, end = i + rowLen; i < end; i += 3) {
        px[i] = r;
        px[i + 1] = g;
        px[i + 2] = b;
      }
    }
  }

  /** Horizontal gradient over the whole picture: stops at x (units). Depends on x only. */
  hgrad(...stops: [x: number, color: RGB][]) {
    const u = this.u;
    const row = new Float64Array(this.width * 3);
    for (let x = 0; x < this.width; x++) {
      const c = at(stops, (x + 0.5) / u);
      row.set(c, x * 3);
    }
    for (let y = 0; y < this.height; y++) this.px.set(row, y * this.width * 3);
  }

  rect(x: number, y: number, w: number, h: number, paint: Paint, o: ShapeOptions & { r?: number } = {}) {
    const u = this.u;
    const hx = (w / 2) * u,
      hy = (h / 2) * u;
    const cx = (x + w / 2) * u,
      cy = (y + h / 2) * u;
    const r = Math.min((o.r ?? 0) * u, hx, hy);
    const cos = Math.cos(-(o.rot ?? 0)),
      sin = Math.sin(-(o.rot ?? 0));
    const ext = o.rot ? Math.hypot(w, h) / 2 : 0;
    const box = o.rot ? [x + w / 2 - ext, y + h / 2 - ext, x + w / 2 + ext, y + h / 2 + ext] : [x, y, x + w, y + h];
    const rotated = !!o.rot;
    this.shape(
      box[0]!,
      box[1]!,
      box[2]!,
      box[3]!,
      (px, py) => {
        let dx = px - cx,
          dy = py - cy;
        if (rotated) {
          const t = dx * cos - dy * sin;
          dy = dx * sin + dy * cos;
          dx = t;
        }
        const qx = (dx < 0 ? -dx : dx) - hx + r,
          qy = (dy < 0 ? -dy : dy) - hy + r;
        if (qx <= 0 || qy <= 0) return (qx > qy ? qx : qy) - r;
        return Math.sqrt(qx * qx + qy * qy) - r;
      },
      paint,
      o.alpha,
    );
  }

  ellipse(cx: number, cy: number, rx: number, ry: number, paint: Paint, o: ShapeOptions = {}) {
    const u = this.u;
    const ext = o.rot ? Math.max(rx, ry) : 0;
    const [ex, ey] = o.rot ? [ext, ext] : [rx, ry];
    const pcx = cx * u,
      pcy = cy * u,
      prx = rx * u,
      pry = ry * u;
    const cos = Math.cos(-(o.rot ?? 0)),
      sin = Math.sin(-(o.rot ?? 0));
    const m = Math.min(prx, pry);
    const rotated = !!o.rot;
    const ix = 1 / prx,
      iy = 1 / pry;
    this.shape(
      cx - ex,
      cy - ey,
      cx + ex,
      cy + ey,
      (px, py) => {
        let dx = px - pcx,
          dy = py - pcy;
        if (rotated) {
          const t = dx * cos - dy * sin;
          dy = dx * sin + dy * cos;
          dx = t;
        }
        dx *= ix;
        dy *= iy;
        // Approximate distance: exact for circles, close enough at the edge of an ellipse for 1 px of antialiasing.
        return (Math.sqrt(dx * dx + dy * dy) - 1) * m;
      },
      paint,
      o.alpha,
    );
  }

  circle(cx: number, cy: number, r: number, paint: Paint, o: ShapeOptions = {}) {
    this.ellipse(cx, cy, r, r, paint, o);
  }

  /** An elliptical outline of the given thickness (units). */
  ring(cx: number, cy: number, rx: number, ry: number, thick: number, paint: Paint, o: ShapeOptions = {}) {
    const u = this.u;
    const pcx = cx * u,
      pcy = cy * u,
      prx = rx * u,
      pry = ry * u,
      t = (thick / 2) * u;
    const m = Math.min(prx, pry);
    const e = thick / 2;
    const ix = 1 / prx,
      iy = 1 / pry;
    this.shape(
      cx - rx - e,
      cy - ry - e,
      cx + rx + e,
      cy + ry + e,
      (px, py) => {
        const dx = (px - pcx) * ix,
          dy = (py - pcy) * iy;
        return Math.abs((Math.sqrt(dx * dx + dy * dy) - 1) * m) - t;
      },
      paint,
      o.alpha,
    );
  }

  /** A convex polygon, points in order (either winding). */
  poly(points: [number, number][], paint: Paint, o: ShapeOptions = {}) {
    const u = this.u;
    const pts = points.map(([x, y]) => [x * u, y * u] as const);
    // Signed area decides which side of each edge is inside.
    let area = 0;
    for (let i = 0; i < pts.length; i++) {
      const [ax, ay] = pts[i]!,
        [bx, by] = pts[(i + 1) % pts.length]!;
      area += ax * by - bx * ay;
    }
    const sign = area > 0 ? 1 : -1;
    const edges = pts.map(([ax, ay], i) => {
      const [bx, by] = pts[(i + 1) % pts.length]!;
      const len = Math.hypot(bx - ax, by - ay) || 1;
      // Outward normal.
      return [ax, ay, (sign * (by - ay)) / len, (sign * -(bx - ax)) / len] as const;
    });
    const flat = Float64Array.from(edges.flat());
    const n = edges.length * 4;
    const xs = points.map((p) => p[0]),
      ys = points.map((p) => p[1]);
    this.shape(
      Math.min(...xs),
      Math.min(...ys),
      Math.max(...xs),
      Math.max(...ys),
      (px, py) => {
        let d = -Infinity;
        for (let k = 0; k < n; k += 4) {
          const v = (px - flat[k]!) * flat[k + 2]! + (py - flat[k + 1]!) * flat[k + 3]!;
          if (v > d) d = v;
        }
        return d;
      },
      paint,
      o.alpha,
    );
  }

  /** A stroke with round ends from (x0, y0) to (x1, y1). */
  line(x0: number, y0: number, x1: number, y1: number, width: number, paint: Paint, o: ShapeOptions = {}) {
    const u = this.u;
    const ax = x0 * u,
      ay = y0 * u,
      bx = x1 * u,
      by = y1 * u,
      r = (width / 2) * u;
    const vx = bx - ax,
      vy = by - ay;
    const len2 = vx * vx + vy * vy || 1;
    const e = width / 2;
    this.shape(
      Math.min(x0, x1) - e,
      Math.min(y0, y1) - e,
      Math.max(x0, x1) + e,
      Math.max(y0, y1) + e,
      (px, py) => {
        let t = ((px - ax) * vx + (py - ay) * vy) / len2;
        t = t < 0 ? 0 : t > 1 ? 1 : t;
        const dx = px - ax - vx * t,
          dy = py - ay - vy * t;
        return Math.sqrt(dx * dx + dy * dy) - r;
      },
      paint,
      o.alpha,
    );
  }

  /**
   * Everything below the curve y = base + amp·sin(freq·x + phase), filled
   * from `top` at the crest to `bottom` at the lower edge. The vertical
   * distance to the curve understates the horizontal one while the slope
   * (amp·freq) stays under 1, which is what shape() needs.
   */
  wave(base: number, amp: number, freq: number, phase: number, top: RGB, bottom: RGB, o: ShapeOptions = {}) {
    const u = this.u;
    this.shape(
      0,
      base - Math.abs(amp),
      this.W,
      this.H,
      (px, py) => (base + amp * Math.sin(freq * (px / u) + phase)) * u - py,
      { from: top, to: bottom, dir: "y" },
      o.alpha,
    );
  }

  /** A soft, dark, elliptical contact shadow. */
  shadow(cx: number, cy: number, rx: number, ry: number, alpha = 0.35) {
    this.soft(cx, cy, rx, ry, [20, 14, 10], alpha);
  }

  /** A soft radial light. */
  glow(cx: number, cy: number, r: number, color: RGB, alpha = 0.5) {
    this.soft(cx, cy, r, r, color, alpha);
  }

  private soft(cx: number, cy: number, rx: number, ry: number, color: RGB, alpha: number) {
    const u = this.u;
    const x0 = Math.max(0, Math.floor((cx - rx) * u)),
      x1 = Math.min(this.width, Math.ceil((cx + rx) * u));
    const y0 = Math.max(0, Math.floor((cy - ry) * u)),
      y1 = Math.min(this.height, Math.ceil((cy + ry) * u));
    for (let y = y0; y < y1; y++) {
      const dy = ((y + 0.5) / u - cy) / ry;
      for (let x = x0; x < x1; x++) {
        const dx = ((x + 0.5) / u - cx) / rx;
        const d2 = dx * dx + dy * dy;
        if (d2 >= 1) continue;
        const a = alpha * (1 - d2) * (1 - d2);
        const i = (y * this.width + x) * 3;
        this.px[i] = this.px[i]! + (color[0] - this.px[i]!) * a;
        this.px[i + 1] = this.px[i + 1]! + (color[1] - this.px[i + 1]!) * a;
        this.px[i + 2] = this.px[i + 2]! + (color[2] - this.px[i + 2]!) * a;
      }
    }
  }

  /** Darkens toward the corners, like a lens. */
  vignette(strength = 0.25) {
    const cx = this.width / 2,
      cy = this.height / 2;
    const inv = 1 / (cx * cx + cy * cy);
    for (let y = 0; y < this.height; y++) {
      const dy = y + 0.5 - cy;
      for (let x = 0; x < this.width; x++) {
        const dx = x + 0.5 - cx;
        const k = 1 - strength * (dx * dx + dy * dy) * inv;
        const i = (y * this.width + x) * 3;
        this.px[i] = this.px[i]! * k;
        this.px[i + 1] = this.px[i + 1]! * k;
        this.px[i + 2] = this.px[i + 2]! * k;
      }
    }
  }

  /** An area-averaged reduction (how the media library makes thumbnails). */
  downscale(dw: number, dh: number, scratch?: Float64Array): Canvas {
    const out = new Canvas(dw, dh, scratch);
    const sw = this.width,
      sh = this.height,
      src = this.px,
      dst = out.px;
    // Source column span of each output column, computed once.
    const xs = new Int32Array(dw + 1);
    for (let dx = 0; dx <= dw; dx++) xs[dx] = Math.floor((dx * sw) / dw);
    const row = new Float64Array(dw * 3);
    for (let dy = 0; dy < dh; dy++) {
      const y0 = Math.floor((dy * sh) / dh);
      const y1 = Math.max(y0 + 1, Math.floor(((dy + 1) * sh) / dh));
      row.fill(0);
      for (let y = y0; y < y1; y++) {
        for (let dx = 0; dx < dw; dx++) {
          let r = 0,
            g = 0,
            b = 0;
          const x0 = xs[dx]!;
          for (let x = x0, end = Math.max(x0 + 1, xs[dx + 1]!), i = (y * sw + x0) * 3; x < end; x++, i += 3) {
            r += src[i]!;
            g += src[i + 1]!;
            b += src[i + 2]!;
          }
          row[dx * 3] = row[dx * 3]! + r;
          row[dx * 3 + 1] = row[dx * 3 + 1]! + g;
          row[dx * 3 + 2] = row[dx * 3 + 2]! + b;
        }
      }
      for (let dx = 0; dx < dw; dx++) {
        const n = (y1 - y0) * Math.max(1, xs[dx + 1]! - xs[dx]!);
        const o = (dy * dw + dx) * 3;
        dst[o] = row[dx * 3]! / n;
        dst[o + 1] = row[dx * 3 + 1]! / n;
        dst[o + 2] = row[dx * 3 + 2]! / n;
      }
    }
    return out;
  }

  /** 8-bit RGB, rounded and clamped. */
  rgb(): Uint8Array {
    const src = this.px;
    const out = new Uint8Array(src.length);
    for (let i = 0; i < src.length; i++) {
      const v = src[i]!;
      out[i] = v <= 0 ? 0 : v >= 255 ? 255 : (v + 0.5) | 0;
    }
    return out;
  }
}

function at(stops: [number, RGB][], v: number): RGB {
  if (v <= stops[0]![0]) return stops[0]![1];
  for (let i = 1; i < stops.length; i++) {
    const [p1, c1] = stops[i]!;
    if (v <= p1) {
      const [p0, c0] = stops[i - 1]!;
      return mix(c0, c1, (v - p0) / (p1 - p0 || 1));
    }
  }
  return stops[stops.length - 1]![1];
}
