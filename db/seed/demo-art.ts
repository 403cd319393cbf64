/**
 * The demo's pictures, as paintings: one scene per demo file, built from a
 * few props (cups, brewers, bags, people, hills) in Harbor Coffee's palette.
 * Scenes are drawn in units of the picture's shorter side (see
 * demo-paint.ts), so one scene gives the full picture and its thumbnail.
 *
 * They are illustrations, not photographs: soft gradients, flat shapes and
 * contact shadows, recognisable enough for a preview or a product grid to
 * look like a coffee roaster's site.
 */
import { type Canvas, hex, mix, type RGB } from "./demo-paint";

export type Scene = (p: Canvas) => void;

export const C = {
  navy: hex("#1f3a5f"),
  navyDeep: hex("#142840"),
  terracotta: hex("#c8553d"),
  amber: hex("#f2a541"),
  cream: hex("#fbf8f3"),
  ink: hex("#1c1917"),
  sand: hex("#eadcc4"),
  wall: hex("#efe5d6"),
  latte: hex("#d9b48c"),
  crema: hex("#c98a4b"),
  coffee: hex("#5a3622"),
  espresso: hex("#2e1b12"),
  wood: hex("#a4764f"),
  woodDark: hex("#73502f"),
  white: hex("#f6f3ee"),
  porcelain: hex("#e4ddd3"),
  steel: hex("#b8bec4"),
  steelDark: hex("#7d848b"),
  glass: hex("#d3e2e6"),
  leaf: hex("#55804a"),
  leafDark: hex("#365a30"),
  cherry: hex("#b83228"),
  sky: hex("#c4d8e3"),
  dusk: hex("#f0b98a"),
  sea: hex("#41708d"),
  jute: hex("#c7a676"),
  juteDark: hex("#a5854f"),
  teal: hex("#0f766e"),
  slate: hex("#0f172a"),
} as const;

const lighten = (c: RGB, t: number) => mix(c, [255, 255, 255], t);
const darken = (c: RGB, t: number) => mix(c, [0, 0, 0], t);

// --------------------------------------------------------------------------
// Props

/** A table or counter from y to the bottom edge. */
function table(p: Canvas, y: number, top: RGB = C.wood, bottom: RGB = C.woodDark) {
  p.band(y, p.H, [
    [y, lighten(top, 0.08)],
    [p.H, bottom],
  ]);
  p.band(y, y + 0.012, [[y, darken(top, 0.15)]]);
}

/** A wall from the top edge to y, lit from above. */
function wall(p: Canvas, y: number, top: RGB = C.wall, bottom: RGB = darken(C.wall, 0.08)) {
  p.band(0, y, [
    [0, top],
    [y, bottom],
  ]);
}

/** A cup seen from the side, sitting on `base`. */
function cup(
  p: Canvas,
  cx: number,
  base: number,
  s: number,
  body: RGB = C.white,
  drink: RGB = C.coffee,
  saucer = true,
) {
  p.shadow(cx, base, s * 0.75, s * 0.1, 0.4);
  if (saucer) p.ellipse(cx, base - s * 0.03, s * 0.68, s * 0.09, { from: body, to: darken(body, 0.15), dir: "y" });
  const top = base - s * 0.72;
  p.ring(cx + s * 0.46, top + s * 0.3, s * 0.16, s * 0.18, s * 0.07, darken(body, 0.06));
  p.rect(
    cx - s * 0.45,
    top,
    s * 0.9,
    s * 0.68,
    { from: lighten(body, 0.3), to: darken(body, 0.18), dir: "x" },
    { r: s * 0.22 },
  );
  p.rect(cx - s * 0.45, top, s * 0.9, s * 0.2, { from: lighten(body, 0.3), to: darken(body, 0.18), dir: "x" });
  p.ellipse(cx, top, s * 0.45, s * 0.08, darken(body, 0.12));
  p.ellipse(cx, top + s * 0.01, s * 0.4, s * 0.06, drink);
}

/** Latte art seen from above: a heart or a rosetta on a crema circle. */
function latteTop(p: Canvas, cx: number, cy: number, r: number, art: "heart" | "rosetta" | "none" = "heart") {
  p.shadow(cx + r * 0.12, cy + r * 0.16, r * 1.55, r * 1.5, 0.35);
  p.circle(cx, cy, r * 1.45, { from: lighten(C.white, 0.4), to: C.porcelain, dir: "y" });
  p.rect(cx + r * 1.05, cy - r * 0.14, r * 0.75, r * 0.28, C.white, { r: r * 0.14 });
  p.circle(cx, cy, r * 1.08, { from: C.white, to: C.porcelain, dir: "x" });
  p.circle(cx, cy, r, { from: C.crema, to: darken(C.crema, 0.35), dir: "y" });
  const foam = lighten(C.latte, 0.55);
  if (art === "heart") {
    p.circle(cx - r * 0.22, cy - r * 0.12, r * 0.3, foam);
    p.circle(cx + r * 0.22, cy - r * 0.12, r * 0.3, foam);
    p.poly(
      [
        [cx - r * 0.49, cy - r * 0.02],
        [cx + r * 0.49, cy - r * 0.02],
        [cx, cy + r * 0.5],
      ],
      foam,
    );
  } else if (art === "rosetta") {
    for (let k = 0; k < 6; k++) {
      const y = cy + r * 0.45 - k * r * 0.15;
      const w = r * (0.55 - k * 0.065);
      p.ellipse(cx, y, w, r * 0.09, foam);
      p.ellipse(cx, y + r * 0.04, w * 0.8, r * 0.04, mix(foam, C.crema, 0.5));
    }
    p.line(cx, cy - r * 0.55, cx, cy + r * 0.6, r * 0.05, foam);
  }
}

/** A pour-over cone on a glass carafe; base is where the carafe stands. */
function pourOver(p: Canvas, cx: number, base: number, s: number, cone: RGB = C.white) {
  p.shadow(cx, base, s * 0.55, s * 0.08, 0.4);
  // Carafe: glass with coffee.
  const ct = base - s * 0.62;
  p.rect(cx - s * 0.36, ct, s * 0.72, s * 0.62, lighten(C.glass, 0.2), { r: s * 0.16, alpha: 0.7 });
  p.rect(
    cx - s * 0.33,
    ct + s * 0.3,
    s * 0.66,
    s * 0.29,
    { from: C.coffee, to: C.espresso, dir: "y" },
    { r: s * 0.13 },
  );
  p.rect(cx - s * 0.2, ct - s * 0.06, s * 0.4, s * 0.08, darken(C.glass, 0.1), { r: s * 0.03 });
  p.rect(cx - s * 0.25, ct - s * 0.01, s * 0.12, s * 0.4, [255, 255, 255], { r: s * 0.05, alpha: 0.25 });
  // Cone.
  const top = ct - s * 0.5;
  p.poly(
    [
      [cx - s * 0.45, top],
      [cx + s * 0.45, top],
      [cx + s * 0.1, ct - s * 0.04],
      [cx - s * 0.1, ct - s * 0.04],
    ],
    { from: lighten(cone, 0.3), to: darken(cone, 0.2), dir: "x" },
  );
  p.ellipse(cx, top, s * 0.45, s * 0.06, darken(cone, 0.1));
  p.ellipse(cx, top + s * 0.005, s * 0.38, s * 0.045, C.coffee);
  p.rect(cx + s * 0.42, top + s * 0.04, s * 0.12, s * 0.05, darken(cone, 0.08), { r: s * 0.025 });
}

/** A gooseneck kettle spout pouring into a point. */
function kettlePour(p: Canvas, tipX: number, tipY: number, s: number, to: [number, number]) {
  p.line(tipX + s * 0.6, tipY - s * 0.35, tipX + s * 0.15, tipY - s * 0.05, s * 0.06, C.steelDark);
  p.line(tipX + s * 0.15, tipY - s * 0.05, tipX, tipY, s * 0.05, C.steelDark);
  p.rect(
    tipX + s * 0.5,
    tipY - s * 0.65,
    s * 0.8,
    s * 0.6,
    { from: C.steel, to: C.steelDark, dir: "x" },
    { r: s * 0.2 },
  );
  p.line(tipX, tipY + s * 0.02, to[0], to[1], s * 0.018, lighten(C.sky, 0.3), { alpha: 0.85 });
}

function chemex(p: Canvas, cx: number, base: number, s: number) {
  p.shadow(cx, base, s * 0.5, s * 0.07, 0.35);
  const mid = base - s * 0.62;
  const top = base - s * 1.2;
  p.poly(
    [
      [cx - s * 0.42, base - s * 0.02],
      [cx + s * 0.42, base - s * 0.02],
      [cx + s * 0.08, mid],
      [cx - s * 0.08, mid],
    ],
    { from: lighten(C.glass, 0.35), to: C.glass, dir: "x" },
    { alpha: 0.85 },
  );
  p.poly(
    [
      [cx - s * 0.3, base - s * 0.04],
      [cx + s * 0.3, base - s * 0.04],
      [cx + s * 0.16, base - s * 0.24],
      [cx - s * 0.16, base - s * 0.24],
    ],
    C.coffee,
  );
  p.poly(
    [
      [cx - s * 0.4, top],
      [cx + s * 0.4, top],
      [cx + s * 0.08, mid],
      [cx - s * 0.08, mid],
    ],
    { from: lighten(C.glass, 0.35), to: C.glass, dir: "x" },
    { alpha: 0.85 },
  );
  p.poly(
    [
      [cx - s * 0.37, top - s * 0.05],
      [cx + s * 0.37, top - s * 0.05],
      [cx + s * 0.1, mid - s * 0.12],
      [cx - s * 0.1, mid - s * 0.12],
    ],
    lighten(C.cream, 0.3),
  );
  p.rect(cx - s * 0.15, mid - s * 0.17, s * 0.3, s * 0.2, { from: C.wood, to: C.woodDark, dir: "x" }, { r: s * 0.04 });
  p.line(cx, mid - s * 0.07, cx + s * 0.05, mid + s * 0.12, s * 0.025, C.woodDark);
  p.circle(cx + s * 0.05, mid + s * 0.13, s * 0.03, C.espresso);
}

/** An upside-down press brewer on a scale. */
function pressOnScale(p: Canvas, cx: number, base: number, s: number) {
  p.shadow(cx, base, s * 0.7, s * 0.08, 0.4);
  p.rect(
    cx - s * 0.65,
    base - s * 0.12,
    s * 1.3,
    s * 0.12,
    { from: C.ink, to: darken(C.ink, 0.3), dir: "y" },
    { r: s * 0.03 },
  );
  p.rect(cx + s * 0.3, base - s * 0.095, s * 0.25, s * 0.06, hex("#9fe0a6"), { r: s * 0.01 });
  const top = base - s * 1.2;
  p.rect(
    cx - s * 0.26,
    top,
    s * 0.52,
    s * 1.08,
    { from: lighten(C.steelDark, 0.2), to: darken(C.steelDark, 0.35), dir: "x" },
    { r: s * 0.05, alpha: 0.92 },
  );
  p.rect(
    cx - s * 0.22,
    top + s * 0.4,
    s * 0.44,
    s * 0.64,
    { from: C.coffee, to: C.espresso, dir: "y" },
    { r: s * 0.03 },
  );
  p.rect(cx - s * 0.32, base - s * 0.2, s * 0.64, s * 0.08, darken(C.steelDark, 0.4), { r: s * 0.03 });
  p.rect(cx - s * 0.3, top - s * 0.05, s * 0.6, s * 0.1, darken(C.steelDark, 0.3), { r: s * 0.04 });
  for (let k = 1; k <= 4; k++)
    p.line(
      cx + s * 0.14,
      top + s * 0.15 * k + s * 0.1,
      cx + s * 0.22,
      top + s * 0.15 * k + s * 0.1,
      s * 0.015,
      lighten(C.steel, 0.5),
    );
}

/** A coffee bag with a folded top and a label. */
function bag(
  p: Canvas,
  cx: number,
  base: number,
  s: number,
  color: RGB,
  label: RGB = C.cream,
  stripe: RGB = C.terracotta,
) {
  p.shadow(cx + s * 0.05, base, s * 0.62, s * 0.08, 0.45);
  const top = base - s * 1.3;
  p.poly(
    [
      [cx - s * 0.48, base],
      [cx + s * 0.48, base],
      [cx + s * 0.44, top + s * 0.18],
      [cx - s * 0.44, top + s * 0.18],
    ],
    { from: lighten(color, 0.18), to: darken(color, 0.25), dir: "x" },
  );
  p.rect(
    cx - s * 0.46,
    top,
    s * 0.92,
    s * 0.22,
    { from: lighten(color, 0.05), to: darken(color, 0.35), dir: "x" },
    { r: s * 0.02 },
  );
  p.rect(cx - s * 0.46, top + s * 0.2, s * 0.92, s * 0.025, darken(color, 0.4));
  p.rect(cx - s * 0.32, top + s * 0.42, s * 0.64, s * 0.62, label, { r: s * 0.04 });
  p.rect(cx - s * 0.32, top + s * 0.86, s * 0.64, s * 0.1, stripe);
  anchor(p, cx, top + s * 0.6, s * 0.2, C.navy);
  p.rect(cx - s * 0.2, top + s * 0.77, s * 0.4, s * 0.03, darken(label, 0.45), { r: s * 0.015 });
}

/** The Harbor anchor mark, as strokes. */
export function anchor(p: Canvas, cx: number, cy: number, s: number, color: RGB) {
  const w = s * 0.11;
  p.ring(cx, cy - s * 0.72, s * 0.14, s * 0.14, w, color);
  p.line(cx, cy - s * 0.58, cx, cy + s * 0.72, w, color);
  p.line(cx - s * 0.38, cy - s * 0.3, cx + s * 0.38, cy - s * 0.3, w, color);
  const n = 10;
  for (let k = 0; k < n; k++) {
    const a0 = Math.PI * (0.1 + (0.8 * k) / n),
      a1 = Math.PI * (0.1 + (0.8 * (k + 1)) / n);
    p.line(
      cx - Math.cos(a0) * s * 0.62,
      cy + s * 0.1 + Math.sin(a0) * s * 0.62,
      cx - Math.cos(a1) * s * 0.62,
      cy + s * 0.1 + Math.sin(a1) * s * 0.62,
      w,
      color,
    );
  }
}

function jar(p: Canvas, cx: number, base: number, s: number, liquid: RGB = C.espresso) {
  p.shadow(cx, base, s * 0.42, s * 0.06, 0.3);
  const top = base - s;
  p.rect(cx - s * 0.34, top + s * 0.12, s * 0.68, s * 0.88, lighten(C.glass, 0.2), { r: s * 0.1, alpha: 0.75 });
  p.rect(
    cx - s * 0.31,
    top + s * 0.3,
    s * 0.62,
    s * 0.67,
    { from: liquid, to: darken(liquid, 0.3), dir: "x" },
    { r: s * 0.08 },
  );
  p.rect(cx - s * 0.28, top, s * 0.56, s * 0.14, { from: C.steel, to: C.steelDark, dir: "x" }, { r: s * 0.03 });
  p.rect(cx - s * 0.24, top + s * 0.35, s * 0.07, s * 0.5, [255, 255, 255], { r: s * 0.03, alpha: 0.22 });
}

function sack(p: Canvas, cx: number, base: number, s: number, tint: RGB = C.jute, print: RGB = C.navy) {
  p.shadow(cx, base, s * 0.6, s * 0.07, 0.35);
  p.rect(
    cx - s * 0.5,
    base - s * 0.9,
    s,
    s * 0.9,
    { from: lighten(tint, 0.1), to: darken(tint, 0.2), dir: "x" },
    { r: s * 0.22 },
  );
  p.ellipse(cx, base - s * 0.88, s * 0.42, s * 0.1, darken(tint, 0.15));
  p.rect(cx - s * 0.22, base - s * 0.6, s * 0.44, s * 0.3, print, { r: s * 0.04, alpha: 0.6 });
  for (let k = 0; k < 4; k++)
    p.line(
      cx - s * 0.45,
      base - s * 0.15 - k * s * 0.2,
      cx + s * 0.45,
      base - s * 0.15 - k * s * 0.2,
      s * 0.01,
      darken(tint, 0.12),
      { alpha: 0.5 },
    );
}

function bowl(p: Canvas, cx: number, base: number, s: number) {
  p.shadow(cx, base, s * 0.55, s * 0.06, 0.3);
  p.rect(
    cx - s * 0.45,
    base - s * 0.4,
    s * 0.9,
    s * 0.4,
    { from: lighten(C.white, 0.2), to: C.porcelain, dir: "x" },
    { r: s * 0.18 },
  );
  p.rect(cx - s * 0.45, base - s * 0.4, s * 0.9, s * 0.15, { from: lighten(C.white, 0.2), to: C.porcelain, dir: "x" });
  p.ellipse(cx, base - s * 0.4, s * 0.45, s * 0.08, darken(C.porcelain, 0.1));
  p.ellipse(cx, base - s * 0.39, s * 0.4, s * 0.06, C.coffee);
}

/** A person from the chest up; base is the bottom edge of the torso. */
function person(
  p: Canvas,
  cx: number,
  base: number,
  s: number,
  skin: RGB,
  shirt: RGB,
  hair: RGB,
  hairStyle: "short" | "long" | "bun" = "short",
) {
  if (hairStyle === "long")
    p.rect(cx - s * 0.3, base - s * 1.45, s * 0.6, s * 0.75, darken(hair, 0.1), { r: s * 0.25 });
  p.rect(
    cx - s * 0.55,
    base - s * 0.62,
    s * 1.1,
    s * 0.8,
    { from: lighten(shirt, 0.1), to: darken(shirt, 0.2), dir: "x" },
    { r: s * 0.3 },
  );
  p.rect(cx - s * 0.1, base - s * 0.82, s * 0.2, s * 0.25, darken(skin, 0.12), { r: s * 0.06 });
  p.ellipse(cx, base - s * 1.12, s * 0.26, s * 0.31, { from: lighten(skin, 0.08), to: darken(skin, 0.1), dir: "x" });
  if (hairStyle === "bun") p.circle(cx + s * 0.05, base - s * 1.48, s * 0.14, hair);
  p.ellipse(cx, base - s * 1.3, s * 0.28, s * 0.15, hair);
  if (hairStyle !== "short") p.rect(cx - s * 0.29, base - s * 1.32, s * 0.1, s * 0.35, hair, { r: s * 0.05 });
}

/** A pendant lamp hanging from the top edge, with its light. */
function lamp(p: Canvas, cx: number, y: number, s: number, shade: RGB = C.navy) {
  p.glow(cx, y + s * 0.25, s * 1.6, C.amber, 0.22);
  p.line(cx, 0, cx, y, s * 0.02, C.ink);
  p.poly(
    [
      [cx - s * 0.12, y],
      [cx + s * 0.12, y],
      [cx + s * 0.3, y + s * 0.22],
      [cx - s * 0.3, y + s * 0.22],
    ],
    { from: lighten(shade, 0.2), to: darken(shade, 0.2), dir: "x" },
  );
  p.ellipse(cx, y + s * 0.23, s * 0.12, s * 0.04, lighten(C.amber, 0.6));
}

function espressoMachine(p: Canvas, x: number, base: number, w: number, h: number) {
  p.shadow(x + w / 2, base, w * 0.6, h * 0.06, 0.35);
  p.rect(x, base - h, w, h, { from: lighten(C.steel, 0.35), to: C.steelDark, dir: "x" }, { r: h * 0.06 });
  p.rect(x, base - h, w, h * 0.18, C.terracotta, { r: h * 0.05 });
  const n = Math.max(1, Math.round(w / (h * 0.55)));
  for (let k = 0; k < n; k++) {
    const gx = x + (w * (k + 0.5)) / n;
    p.rect(gx - h * 0.1, base - h * 0.55, h * 0.2, h * 0.08, C.ink, { r: h * 0.02 });
    p.line(gx + h * 0.08, base - h * 0.52, gx + h * 0.3, base - h * 0.5, h * 0.04, C.ink);
    p.rect(gx - h * 0.08, base - h * 0.3, h * 0.16, h * 0.14, C.white, { r: h * 0.03 });
  }
  p.rect(x + w * 0.04, base - h * 0.1, w * 0.92, h * 0.05, darken(C.steelDark, 0.3), { r: h * 0.02 });
}

/** Rolling hills: one band below a sine curve. */
function hill(p: Canvas, base: number, amp: number, freq: number, phase: number, top: RGB, bottom: RGB) {
  p.wave(base, amp, freq, phase, top, bottom);
}

function coffeeTree(p: Canvas, x: number, base: number, s: number) {
  p.line(x, base, x + s * 0.05, base - s, s * 0.05, C.woodDark);
  for (let k = 0; k < 5; k++) {
    const y = base - s * (0.25 + k * 0.17);
    const side = k % 2 ? 1 : -1;
    p.ellipse(x + side * s * 0.18, y, s * 0.2, s * 0.07, k % 2 ? C.leaf : C.leafDark, { rot: side * 0.5 });
    p.circle(x + side * s * 0.06, y + s * 0.04, s * 0.03, C.cherry);
  }
}

function cherryBranch(p: Canvas, x0: number, y0: number, x1: number, y1: number, s: number) {
  p.line(x0, y0, x1, y1, s * 0.05, C.woodDark);
  const n = 5;
  for (let k = 0; k < n; k++) {
    const t = (k + 0.7) / (n + 0.5);
    const bx = x0 + (x1 - x0) * t,
      by = y0 + (y1 - y0) * t;
    const side = k % 2 ? 1 : -1;
    p.ellipse(
      bx + side * s * 0.25,
      by - s * 0.12 * side,
      s * 0.32,
      s * 0.11,
      { from: C.leaf, to: C.leafDark, dir: "x" },
      { rot: -0.6 * side },
    );
    for (let c = 0; c < 6; c++) {
      const a = (c / 6) * Math.PI * 2 + k;
      const ripe = (c + k) % 4 !== 0;
      p.circle(
        bx + Math.cos(a) * s * 0.07,
        by + s * 0.06 + Math.sin(a) * s * 0.05,
        s * 0.055,
        ripe
          ? { from: lighten(C.cherry, 0.25), to: darken(C.cherry, 0.2), dir: "x" }
          : { from: hex("#c9a23a"), to: hex("#8d7a2c"), dir: "x" },
      );
    }
  }
}

function windowFrame(p: Canvas, x: number, y: number, w: number, h: number, sky: RGB = C.sky, frame: RGB = C.navy) {
  p.rect(x, y, w, h, { from: lighten(sky, 0.35), to: sky, dir: "y" });
  const t = Math.min(w, h) * 0.04;
  p.rect(x, y, w, t, frame);
  p.rect(x, y + h - t, w, t, frame);
  p.rect(x, y, t, h, frame);
  p.rect(x + w - t, y, t, h, frame);
  p.rect(x + w / 2 - t / 2, y, t, h, frame);
  p.rect(x, y + h / 2 - t / 2, w, t, frame);
}

function pastry(p: Canvas, cx: number, base: number, s: number) {
  p.shadow(cx, base, s * 0.5, s * 0.06, 0.25);
  p.ellipse(cx, base - s * 0.18, s * 0.45, s * 0.2, { from: hex("#e0a55a"), to: hex("#9c5f26"), dir: "y" });
  for (let k = -1; k <= 1; k++)
    p.line(
      cx + k * s * 0.18 - s * 0.06,
      base - s * 0.3,
      cx + k * s * 0.18 + s * 0.06,
      base - s * 0.08,
      s * 0.03,
      hex("#b8732f"),
      { alpha: 0.7 },
    );
}

function roaster(p: Canvas, cx: number, base: number, s: number) {
  p.shadow(cx, base, s * 0.9, s * 0.08, 0.4);
  p.rect(cx - s * 0.55, base - s * 0.5, s * 1.1, s * 0.5, { from: C.navy, to: C.navyDeep, dir: "x" }, { r: s * 0.05 });
  p.circle(cx, base - s * 0.85, s * 0.48, {
    from: lighten(C.terracotta, 0.1),
    to: darken(C.terracotta, 0.35),
    dir: "x",
  });
  p.circle(cx, base - s * 0.85, s * 0.2, { from: C.steel, to: C.steelDark, dir: "x" });
  p.rect(
    cx + s * 0.2,
    base - s * 1.9,
    s * 0.16,
    s * 0.8,
    { from: C.steel, to: C.steelDark, dir: "x" },
    { r: s * 0.03 },
  );
  p.ellipse(cx - s * 0.7, base - s * 0.35, s * 0.35, s * 0.1, { from: C.steel, to: C.steelDark, dir: "y" });
  p.ellipse(cx - s * 0.7, base - s * 0.37, s * 0.3, s * 0.06, C.coffee);
  p.poly(
    [
      [cx + s * 0.3, base - s * 1.3],
      [cx + s * 0.7, base - s * 1.3],
      [cx + s * 0.55, base - s * 1.05],
      [cx + s * 0.45, base - s * 1.05],
    ],
    { from: C.steel, to: C.steelDark, dir: "x" },
  );
}

/** Diagonal beams of morning light. */
function beams(p: Canvas, x: number, spread: number, alpha = 0.16) {
  for (let k = 0; k < 3; k++) {
    const x0 = x + k * spread;
    p.poly(
      [
        [x0, 0],
        [x0 + spread * 0.5, 0],
        [x0 + spread * 0.5 + p.H * 0.7, p.H],
        [x0 + p.H * 0.7 - spread * 0.2, p.H],
      ],
      lighten(C.amber, 0.6),
      { alpha },
    );
  }
}

// --------------------------------------------------------------------------
// Scenes, by demo file name

const portrait =
  (bg: RGB, skin: RGB, shirt: RGB, hair: RGB, style: "short" | "long" | "bun"): Scene =>
  (p) => {
    p.vgrad([0, lighten(bg, 0.25)], [1, darken(bg, 0.1)]);
    p.glow(0.3, 0.25, 0.7, lighten(bg, 0.6), 0.35);
    person(p, 0.5, 1.02, 0.62, skin, shirt, hair, style);
    p.vignette(0.2);
  };

/** A product on a seamless backdrop that varies only top to bottom (which PNG compresses well). */
const productShot =
  (backdrop: RGB, draw: (p: Canvas) => void): Scene =>
  (p) => {
    p.vgrad([0, lighten(backdrop, 0.35)], [0.72, backdrop], [1, darken(backdrop, 0.06)]);
    draw(p);
  };

function mug(p: Canvas, cx: number, base: number, s: number) {
  p.shadow(cx, base, s * 0.6, s * 0.08, 0.4);
  p.ring(cx + s * 0.42, base - s * 0.45, s * 0.17, s * 0.2, s * 0.08, C.white);
  p.ring(cx + s * 0.42, base - s * 0.45, s * 0.21, s * 0.24, s * 0.015, C.navy);
  p.rect(
    cx - s * 0.42,
    base - s * 0.85,
    s * 0.84,
    s * 0.85,
    { from: lighten(C.white, 0.5), to: darken(C.white, 0.14), dir: "x" },
    { r: s * 0.06 },
  );
  p.rect(cx - s * 0.42, base - s * 0.85, s * 0.84, s * 0.04, C.navy, { r: s * 0.02 });
  p.ellipse(cx, base - s * 0.85, s * 0.42, s * 0.05, C.navy);
  p.ellipse(cx, base - s * 0.85, s * 0.38, s * 0.035, darken(C.white, 0.1));
  anchor(p, cx - s * 0.02, base - s * 0.45, s * 0.22, C.navy);
}

function tote(p: Canvas, cx: number, base: number, s: number) {
  p.shadow(cx, base, s * 0.6, s * 0.07, 0.35);
  p.ring(cx, base - s * 1.05, s * 0.22, s * 0.35, s * 0.05, darken(C.sand, 0.12));
  p.rect(
    cx - s * 0.5,
    base - s * 1.05,
    s,
    s * 1.05,
    { from: lighten(C.sand, 0.25), to: darken(C.sand, 0.1), dir: "x" },
    { r: s * 0.03 },
  );
  p.rect(cx - s * 0.5, base - s * 1.05, s, s * 0.06, darken(C.sand, 0.08));
  p.circle(cx, base - s * 0.5, s * 0.24, C.navy);
  anchor(p, cx, base - s * 0.5, s * 0.18, C.cream);
}

function tee(p: Canvas, cx: number, cy: number, s: number, color: RGB, print: RGB) {
  p.shadow(cx, cy + s * 0.62, s * 0.55, s * 0.06, 0.3);
  const body: [number, number][] = [
    [cx - s * 0.34, cy - s * 0.48],
    [cx + s * 0.34, cy - s * 0.48],
    [cx + s * 0.36, cy + s * 0.6],
    [cx - s * 0.36, cy + s * 0.6],
  ];
  p.poly(
    [
      [cx + s * 0.3, cy - s * 0.48],
      [cx + s * 0.62, cy - s * 0.25],
      [cx + s * 0.5, cy - s * 0.05],
      [cx + s * 0.32, cy - s * 0.15],
    ],
    darken(color, 0.12),
  );
  p.poly(
    [
      [cx - s * 0.3, cy - s * 0.48],
      [cx - s * 0.62, cy - s * 0.25],
      [cx - s * 0.5, cy - s * 0.05],
      [cx - s * 0.32, cy - s * 0.15],
    ],
    darken(color, 0.05),
  );
  p.poly(body, { from: lighten(color, 0.12), to: darken(color, 0.12), dir: "x" });
  p.ellipse(cx, cy - s * 0.48, s * 0.13, s * 0.07, darken(color, 0.25));
  anchor(p, cx + s * 0.14, cy - s * 0.22, s * 0.07, print);
}

/** A browser window with a site inside; `site` paints the page area (x, y, w, h in units). */
function browser(
  p: Canvas,
  x: number,
  y: number,
  w: number,
  h: number,
  site: (x: number, y: number, w: number, h: number) => void,
) {
  p.shadow(x + w / 2, y + h, w * 0.55, h * 0.06, 0.35);
  p.rect(x, y, w, h, C.white, { r: 0.02 });
  p.rect(x, y, w, h * 0.07, hex("#e6e8eb"), { r: 0.02 });
  p.rect(x, y + h * 0.05, w, h * 0.02, hex("#e6e8eb"));
  for (let k = 0; k < 3; k++) p.circle(x + 0.03 + k * 0.03, y + h * 0.035, 0.009, [C.terracotta, C.amber, C.leaf][k]!);
  p.rect(x + w * 0.25, y + h * 0.015, w * 0.5, h * 0.04, C.white, { r: 0.01 });
  site(x, y + h * 0.07, w, h * 0.93);
}

/** The Harbor Coffee shop, as a page mockup. */
function harborPage(p: Canvas, x: number, y: number, w: number, h: number, cols = 4) {
  p.rect(x, y, w, h * 0.1, C.navy);
  p.rect(x + w * 0.04, y + h * 0.035, w * 0.16, h * 0.03, C.cream, { r: 0.005 });
  p.rect(x, y + h * 0.1, w, h * 0.38, { from: hex("#e8d4b4"), to: C.dusk, dir: "x" });
  p.rect(x + w * 0.06, y + h * 0.18, w * 0.4, h * 0.05, C.ink, { r: 0.005 });
  p.rect(x + w * 0.06, y + h * 0.26, w * 0.3, h * 0.025, darken(C.sand, 0.3), { r: 0.005 });
  p.rect(x + w * 0.06, y + h * 0.33, w * 0.14, h * 0.06, C.navy, { r: 0.02 });
  const cw = (w * 0.88 - (cols - 1) * w * 0.03) / cols;
  for (let k = 0; k < cols; k++) {
    const cx = x + w * 0.06 + k * (cw + w * 0.03);
    p.rect(cx, y + h * 0.55, cw, h * 0.3, C.cream, { r: 0.008 });
    p.rect(cx + cw * 0.3, y + h * 0.58, cw * 0.4, h * 0.17, [C.terracotta, C.navy, C.amber, C.teal][k % 4]!, {
      r: 0.006,
    });
    p.rect(cx + cw * 0.1, y + h * 0.78, cw * 0.8, h * 0.02, C.ink, { r: 0.004 });
  }
}

/** A member portal: sidebar, a chart and a table. */
function portalPage(p: Canvas, x: number, y: number, w: number, h: number) {
  p.rect(x, y, w * 0.2, h, hex("#14532d"));
  for (let k = 0; k < 6; k++)
    p.rect(x + w * 0.03, y + h * (0.1 + k * 0.08), w * 0.13, h * 0.025, hex("#bbf7d0"), {
      r: 0.004,
      alpha: k === 1 ? 1 : 0.55,
    });
  p.rect(x + w * 0.24, y + h * 0.06, w * 0.3, h * 0.05, C.slate, { r: 0.005 });
  for (let k = 0; k < 3; k++) {
    const bx = x + w * (0.24 + k * 0.25);
    p.rect(bx, y + h * 0.16, w * 0.22, h * 0.16, hex("#f0fdf4"), { r: 0.01 });
    p.rect(bx + w * 0.02, y + h * 0.2, w * 0.1, h * 0.04, hex("#166534"), { r: 0.004 });
  }
  const bars = [0.4, 0.55, 0.48, 0.7, 0.62, 0.8, 0.75, 0.9];
  bars.forEach((v, k) =>
    p.rect(x + w * (0.26 + k * 0.045), y + h * (0.7 - v * 0.3), w * 0.03, h * v * 0.3, hex("#22c55e"), { r: 0.004 }),
  );
  for (let k = 0; k < 5; k++) {
    p.rect(x + w * 0.66, y + h * (0.4 + k * 0.06), w * 0.3, h * 0.04, k % 2 ? hex("#f8fafc") : hex("#eef2f5"), {
      r: 0.004,
    });
    p.rect(x + w * 0.68, y + h * (0.41 + k * 0.06), w * 0.12, h * 0.018, C.slate, { r: 0.003, alpha: 0.6 });
  }
  for (let k = 0; k < 3; k++)
    p.rect(x + w * 0.24, y + h * (0.78 + k * 0.06), w * 0.72, h * 0.04, k % 2 ? hex("#f8fafc") : hex("#eef2f5"), {
      r: 0.004,
    });
}

export const SCENES: Record<string, Scene> = {
  "bag-ethiopia-kochere.png": productShot(C.sand, (p) => bag(p, 0.5, 0.86, 0.52, C.terracotta)),
  "bag-house-espresso.png": productShot(hex("#dfe4ea"), (p) => bag(p, 0.5, 0.86, 0.52, C.navy, C.cream, C.amber)),
  "bag-breakfast-blend.png": productShot(hex("#f1e3cf"), (p) => bag(p, 0.5, 0.86, 0.52, C.amber, C.cream, C.navy)),
  "bag-colombia-huila.png": productShot(hex("#dde8e2"), (p) => bag(p, 0.5, 0.86, 0.52, C.teal, C.cream, C.terracotta)),
  "mug-enamel.png": productShot(hex("#e3e9ee"), (p) => mug(p, 0.47, 0.8, 0.5)),
  "tote-bag.png": productShot(hex("#e9e1d3"), (p) => tote(p, 0.5, 0.86, 0.55)),
  "tee-sand.png": productShot(hex("#e8e4dc"), (p) => tee(p, 0.5, 0.45, 0.62, C.sand, C.navy)),
  "tee-navy.png": productShot(hex("#e4e7ea"), (p) => tee(p, 0.5, 0.45, 0.62, C.navy, C.cream)),
  "og-default.png": (p) => {
    p.vgrad([0, lighten(C.sand, 0.3)], [p.H, C.sand]);
    p.circle(1.62, 0.18, 0.42, C.amber, { alpha: 0.85 });
    p.circle(0.42, 0.5, 0.3, C.navy);
    anchor(p, 0.42, 0.5, 0.2, C.cream);
    p.rect(0.88, 0.36, 0.78, 0.09, C.navy, { r: 0.02 });
    p.rect(0.88, 0.5, 0.6, 0.09, C.navy, { r: 0.02 });
    p.rect(0.88, 0.66, 0.5, 0.04, C.terracotta, { r: 0.02 });
  },
  "northwind-harbor-case-study.png": (p) => {
    p.vgrad([0, hex("#ccfbf1")], [p.H, hex("#99f6e4")]);
    // Laptop.
    p.shadow(0.78, 0.9, 0.62, 0.05, 0.35);
    p.rect(0.3, 0.16, 0.96, 0.62, C.slate, { r: 0.025 });
    harborPage(p, 0.33, 0.19, 0.9, 0.56);
    p.poly(
      [
        [0.2, 0.78],
        [1.36, 0.78],
        [1.3, 0.86],
        [0.26, 0.86],
      ],
      { from: C.steel, to: C.steelDark, dir: "y" },
    );
    // Phone.
    p.shadow(1.3, 0.92, 0.15, 0.03, 0.4);
    p.rect(1.18, 0.36, 0.25, 0.54, C.slate, { r: 0.035 });
    harborPage(p, 1.2, 0.39, 0.21, 0.48, 2);
  },
  "northwind-tidewater-portal.png": (p) => {
    p.vgrad([0, hex("#f1f5f9")], [p.H, hex("#dbe3ea")]);
    browser(p, 0.12, 0.08, p.W - 0.24, p.H - 0.18, (x, y, w, h) => portalPage(p, x, y, w, h));
  },
  "pour-over-v60.jpg": (p) => {
    wall(p, 0.68, lighten(C.wall, 0.2), C.sand);
    p.glow(0.35, 0.2, 0.8, lighten(C.amber, 0.5), 0.3);
    table(p, 0.68);
    pourOver(p, 0.72, 0.9, 0.48);
    kettlePour(p, 0.84, 0.28, 0.38, [0.73, 0.42]);
    cup(p, 1.2, 0.92, 0.22);
    p.vignette(0.2);
  },
  "pour-over-poster.jpg": (p) => {
    wall(p, 0.7, lighten(C.wall, 0.15), C.sand);
    p.glow(0.5, 0.15, 0.9, lighten(C.amber, 0.5), 0.25);
    table(p, 0.7, C.woodDark, darken(C.woodDark, 0.3));
    pourOver(p, 0.9, 0.92, 0.45);
    kettlePour(p, 1.0, 0.33, 0.34, [0.91, 0.45]);
    p.vignette(0.25);
  },
  "driftwood-cafe-bar.jpg": (p) => {
    wall(p, 0.62, hex("#dfe7e4"), hex("#c4d0cc"));
    windowFrame(p, 0.08, 0.1, 0.32, 0.36, C.sky, C.woodDark);
    lamp(p, 0.62, 0.12, 0.3, C.teal);
    lamp(p, 1.05, 0.12, 0.3, C.teal);
    person(p, 0.58, 0.64, 0.28, hex("#c68e6b"), C.navy, C.espresso, "bun");
    person(p, 1.18, 0.64, 0.27, hex("#8d5b3f"), C.terracotta, C.ink, "short");
    table(p, 0.62, hex("#b9a58b"), hex("#7f6c55"));
    espressoMachine(p, 0.72, 0.62, 0.34, 0.22);
    cup(p, 0.3, 0.86, 0.14);
    cup(p, 0.45, 0.88, 0.14, C.terracotta);
    p.vignette(0.2);
  },
  "farm-kochere-washing-station.jpg": (p) => {
    p.vgrad([0, lighten(C.sky, 0.3)], [0.5, hex("#e8e3cf")]);
    hill(p, 0.42, 0.05, 3.2, 0.4, hex("#7d9b6a"), hex("#5c7c4d"));
    hill(p, 0.55, 0.04, 4.5, 1.7, hex("#668b52"), C.leafDark);
    p.band(0.7, 1, [
      [0.7, hex("#b7a17f")],
      [1, hex("#8e7755")],
    ]);
    for (let k = 0; k < 3; k++) {
      const x = 0.2 + k * 0.42;
      p.rect(x, 0.66, 0.36, 0.2, { from: hex("#d7cfc0"), to: hex("#a79e8f"), dir: "y" }, { r: 0.015 });
      p.rect(x + 0.02, 0.68, 0.32, 0.07, { from: hex("#8fb1b8"), to: hex("#5f8890"), dir: "x" });
      for (let c = 0; c < 7; c++) p.circle(x + 0.05 + c * 0.043, 0.715, 0.014, C.cherry, { alpha: 0.8 });
    }
    p.poly(
      [
        [1.05, 0.2],
        [1.5, 0.2],
        [1.5, 0.3],
        [1.0, 0.3],
      ],
      C.steelDark,
    );
    p.rect(1.1, 0.3, 0.02, 0.36, C.woodDark);
    p.rect(1.42, 0.3, 0.02, 0.36, C.woodDark);
    coffeeTree(p, 0.08, 0.68, 0.3);
    p.vignette(0.15);
  },
  "green-beans-sacks.jpg": (p) => {
    wall(p, 0.7, hex("#d9d2c6"), hex("#b3aa9b"));
    for (let k = 0; k < 5; k++) p.rect(0.05 + k * 0.3, 0, 0.02, 0.7, hex("#a49a8a"));
    table(p, 0.7, hex("#9c948a"), hex("#6b645c"));
    sack(p, 0.3, 0.95, 0.38, C.jute, C.navy);
    sack(p, 0.7, 0.97, 0.4, C.juteDark, C.terracotta);
    sack(p, 1.12, 0.94, 0.38, C.jute, C.leafDark);
    sack(p, 0.5, 0.6, 0.32, C.jute, C.terracotta);
    sack(p, 0.9, 0.6, 0.33, C.juteDark, C.navy);
    p.vignette(0.3);
  },
  "cupping-table.jpg": (p) => {
    wall(p, 0.55, lighten(C.wall, 0.25), C.wall);
    windowFrame(p, 0.9, 0.06, 0.45, 0.38);
    table(p, 0.55, lighten(C.wood, 0.15), C.wood);
    for (let row = 0; row < 2; row++)
      for (let k = 0; k < 5; k++) bowl(p, 0.22 + k * 0.27 + row * 0.1, 0.74 + row * 0.2, 0.17 + row * 0.03);
    p.line(0.1, 0.95, 0.35, 0.85, 0.02, C.steel);
    p.ellipse(0.37, 0.845, 0.04, 0.025, C.steel);
    p.vignette(0.2);
  },
  "cold-brew-jars.jpg": (p) => {
    p.vgrad([0, hex("#e6eef2")], [1, hex("#b8c7cf")]);
    p.glow(0.75, -0.05, 0.9, [255, 255, 255], 0.5);
    p.rect(0, 0.34, p.W, 0.02, hex("#9fb0b9"));
    p.rect(0, 0.9, p.W, 0.1, hex("#a8b8c1"));
    jar(p, 0.4, 0.9, 0.5);
    jar(p, 0.78, 0.9, 0.56, C.coffee);
    jar(p, 1.15, 0.9, 0.48);
    for (let k = 0; k < 4; k++)
      p.rect(0.15 + k * 0.35, 0.12, 0.2, 0.22, k % 2 ? C.terracotta : C.amber, { r: 0.03, alpha: 0.8 });
    p.vignette(0.2);
  },
  "espresso-shot.jpg": (p) => {
    p.vgrad([0, hex("#3b3430")], [0.72, hex("#231d1a")]);
    p.glow(0.75, 0.45, 0.6, C.amber, 0.18);
    table(p, 0.8, hex("#4b4540"), hex("#2a2522"));
    p.rect(0.45, 0.08, 0.6, 0.14, { from: C.steel, to: C.steelDark, dir: "x" }, { r: 0.02 });
    p.rect(
      0.6,
      0.22,
      0.3,
      0.1,
      { from: lighten(C.steelDark, 0.3), to: darken(C.steelDark, 0.3), dir: "x" },
      { r: 0.03 },
    );
    p.line(0.9, 0.27, 1.35, 0.3, 0.07, C.ink);
    p.rect(0.68, 0.32, 0.14, 0.05, darken(C.coffee, 0.2), { r: 0.02 });
    p.line(0.73, 0.37, 0.735, 0.7, 0.014, C.crema);
    p.line(0.77, 0.37, 0.765, 0.7, 0.014, C.crema);
    cup(p, 0.75, 0.9, 0.26, C.white, C.crema);
    p.vignette(0.35);
  },
  "latte-art-poster.jpg": (p) => {
    p.hgrad([0, C.woodDark], [0.5, C.wood], [1, C.woodDark]);
    latteTop(p, 0.5, p.H * 0.52, 0.28, "heart");
    p.vignette(0.3);
  },
  "latte-art-rosetta.jpg": (p) => {
    p.vgrad([0, hex("#d7c7b2")], [1, hex("#b7a184")]);
    latteTop(p, 0.75, 0.5, 0.28, "rosetta");
    p.rect(1.2, 0.2, 0.1, 0.5, C.steel, { r: 0.05, rot: 0.3, alpha: 0.9 });
    p.vignette(0.25);
  },
  "farm-nyeri-cherries.jpg": (p) => {
    p.vgrad([0, hex("#cfe1d0")], [1, hex("#8fb08a")]);
    p.glow(1.2, 0.1, 0.6, [255, 250, 220], 0.5);
    p.circle(0.25, 0.75, 0.35, hex("#7fa276"), { alpha: 0.5 });
    p.circle(1.35, 0.85, 0.4, hex("#6c9465"), { alpha: 0.5 });
    cherryBranch(p, -0.05, 0.75, 1.55, 0.35, 0.45);
    p.vignette(0.2);
  },
  "saltbox-bakery-counter.jpg": (p) => {
    wall(p, 0.6, hex("#f3e6d2"), hex("#e2cfb2"));
    for (let k = 0; k < 6; k++) p.rect(k * 0.27, 0, 0.135, 0.6, hex("#efdcc0"), { alpha: 0.6 });
    table(p, 0.6, hex("#f2efe9"), hex("#c9c3b8"));
    p.rect(1.0, 0.22, 0.3, 0.4, { from: C.steel, to: C.steelDark, dir: "x" }, { r: 0.02 });
    p.rect(1.05, 0.3, 0.2, 0.05, C.ink, { r: 0.01 });
    p.rect(1.08, 0.42, 0.14, 0.17, { from: C.glass, to: darken(C.glass, 0.2), dir: "x" }, { r: 0.02 });
    for (let k = 0; k < 4; k++) pastry(p, 0.18 + k * 0.2, 0.78 + (k % 2) * 0.1, 0.18);
    p.rect(0.05, 0.5, 0.75, 0.12, C.white, { r: 0.02, alpha: 0.8 });
    p.vignette(0.2);
  },
  "chemex-brew.jpg": (p) => {
    wall(p, 0.66, hex("#e9ece6"), hex("#cfd4cb"));
    p.glow(0.2, 0.2, 0.7, [255, 255, 240], 0.4);
    table(p, 0.66);
    chemex(p, 0.75, 0.92, 0.62);
    p.rect(1.12, 0.74, 0.22, 0.16, C.navy, { r: 0.02 });
    p.rect(1.12, 0.74, 0.22, 0.03, darken(C.navy, 0.3));
    p.vignette(0.2);
  },
  "aeropress-inverted.jpg": (p) => {
    wall(p, 0.72, hex("#f0e4da"), hex("#dcc7b6"));
    table(p, 0.72, hex("#d5c2a6"), hex("#a99473"));
    pressOnScale(p, 0.75, 0.92, 0.6);
    cup(p, 1.2, 0.94, 0.2, C.navy);
    p.vignette(0.2);
  },
  "hotel-room-coffee.jpg": (p) => {
    wall(p, 0.55, hex("#e8e1d8"), hex("#d3c8ba"));
    windowFrame(p, 0.1, 0.05, 0.5, 0.4, hex("#f1c9a5"), hex("#f7f3ee"));
    table(p, 0.55, hex("#e7dfd3"), hex("#c7bba9"));
    p.shadow(0.85, 0.85, 0.55, 0.12, 0.3);
    p.rect(0.35, 0.62, 1.0, 0.28, { from: C.woodDark, to: darken(C.woodDark, 0.25), dir: "y" }, { r: 0.04 });
    cup(p, 0.7, 0.84, 0.22);
    p.line(0.7, 0.63, 0.78, 0.45, 0.006, C.ink);
    p.rect(0.76, 0.41, 0.06, 0.05, C.terracotta, { r: 0.006 });
    p.rect(1.0, 0.7, 0.22, 0.12, C.cream, { r: 0.01 });
    anchor(p, 1.11, 0.76, 0.05, C.navy);
    p.vignette(0.2);
  },
  "team-maya-ortiz.jpg": portrait(C.amber, hex("#c99a74"), C.terracotta, C.espresso, "long"),
  "team-dev-patel.jpg": portrait(C.sky, hex("#9a6a4a"), C.navy, C.ink, "short"),
  "team-lucia-santos.jpg": portrait(hex("#b8d4b0"), hex("#d8ab86"), C.teal, hex("#4a2a1a"), "bun"),
  "storefront-waterfront.jpg": (p) => {
    p.vgrad([0, hex("#4c5f86")], [0.35, hex("#c98d84")], [0.58, C.dusk]);
    p.glow(1.25, 0.55, 0.35, hex("#ffd9a0"), 0.7);
    p.rect(0.2, 0.3, 0.8, 0.32, { from: hex("#6b4a3a"), to: hex("#4a3128"), dir: "x" });
    p.poly(
      [
        [0.15, 0.31],
        [1.05, 0.31],
        [0.9, 0.16],
        [0.3, 0.16],
      ],
      hex("#3a2b26"),
    );
    for (let k = 0; k < 4; k++) p.rect(0.27 + k * 0.18, 0.4, 0.12, 0.14, hex("#ffc978"), { r: 0.01 });
    p.glow(0.6, 0.47, 0.45, hex("#ffc978"), 0.25);
    p.rect(0.05, 0.6, 1.45, 0.04, hex("#5a4336"));
    p.band(0.64, 1, [
      [0.64, hex("#7b6a87")],
      [1, hex("#2f3e5c")],
    ]);
    for (let k = 0; k < 9; k++)
      p.line(0.15 + (k % 3) * 0.3, 0.68 + k * 0.035, 0.35 + (k % 3) * 0.3, 0.68 + k * 0.035, 0.008, hex("#ffc978"), {
        alpha: 0.35,
      });
    p.rect(1.2, 0.2, 0.012, 0.42, C.ink);
    p.poly(
      [
        [1.15, 0.64],
        [1.45, 0.64],
        [1.4, 0.7],
        [1.2, 0.7],
      ],
      C.ink,
    );
    p.vignette(0.25);
  },
  "hero-roastery-morning.jpg": (p) => {
    wall(p, 0.72, hex("#e8dccb"), hex("#cdb89c"));
    windowFrame(p, 0.1, 0.08, 0.45, 0.45, hex("#f6d9a8"), C.navy);
    windowFrame(p, 0.65, 0.08, 0.45, 0.45, hex("#f6d9a8"), C.navy);
    beams(p, 0.2, 0.3, 0.14);
    table(p, 0.72, hex("#8c8378"), hex("#5d554c"));
    roaster(p, 1.35, 0.9, 0.4);
    sack(p, 0.45, 0.95, 0.26, C.jute, C.navy);
    sack(p, 0.7, 0.97, 0.26, C.juteDark, C.terracotta);
    p.vignette(0.25);
  },
  "northwind-priya-shah.jpg": portrait(hex("#99f6e4"), hex("#a8714e"), C.teal, C.espresso, "long"),
  "northwind-leo-martin.jpg": portrait(C.sky, hex("#e0b591"), C.navy, hex("#6b4a3a"), "short"),
  "northwind-sam-rivera.jpg": portrait(hex("#f3d9b1"), hex("#8f5e3f"), C.terracotta, C.ink, "bun"),
  "northwind-studio-loft.jpg": (p) => {
    p.vgrad([0, hex("#e7ecef")], [0.6, hex("#cbd3d8")]);
    for (let k = 0; k < 4; k++) windowFrame(p, 0.08 + k * 0.36, 0.06, 0.3, 0.4, hex("#d9ecf2"), C.slate);
    p.rect(0, 0.0, p.W, 0.03, C.slate);
    p.band(0.6, 1, [
      [0.6, hex("#b9a58b")],
      [1, hex("#8e7a61")],
    ]);
    const people: [number, RGB, RGB][] = [
      [0.3, C.teal, hex("#c8956e")],
      [0.6, C.terracotta, hex("#8f5e3f")],
      [0.9, C.navy, hex("#e0b591")],
      [1.2, C.amber, hex("#a8714e")],
    ];
    for (const [x, shirt, skin] of people) person(p, x, 0.72, 0.2, skin, shirt, C.espresso, x > 1 ? "long" : "short");
    p.poly(
      [
        [0.1, 0.7],
        [1.4, 0.7],
        [1.5, 0.86],
        [0.0, 0.86],
      ],
      { from: hex("#d9c3a0"), to: hex("#b39670"), dir: "y" },
    );
    for (let k = 0; k < 4; k++) {
      p.rect(0.22 + k * 0.3, 0.73, 0.16, 0.06, C.slate, { r: 0.005 });
      p.rect(0.24 + k * 0.3, 0.74, 0.12, 0.04, hex("#5eb8c4"), { alpha: 0.8 });
    }
    p.vignette(0.15);
  },
};

/**
 * First frames of the demo videos. The picture slides (demo-video.ts), and
 * the edge it uncovers repeats the outermost column or row, so that edge is
 * plain backdrop: nothing touches the left edge of a picture that moves
 * right, or the top edge of one that moves down.
 */
export const VIDEO_SCENES: Record<string, { scene: Scene; motion: [right: number, down: number] }> = {
  "brew-guide-pour-over.mp4": {
    motion: [2, 0],
    scene: (p) => {
      wall(p, 0.7, lighten(C.wall, 0.15), C.sand);
      table(p, 0.7, C.woodDark, darken(C.woodDark, 0.3));
      pourOver(p, 0.6, 0.92, 0.45);
      kettlePour(p, 0.7, 0.33, 0.34, [0.61, 0.45]);
      cup(p, 1.35, 0.94, 0.2);
    },
  },
  "latte-art-slowmo.mp4": {
    motion: [0, 2],
    scene: (p) => {
      p.hgrad([0, C.woodDark], [0.5, C.wood], [1, C.woodDark]);
      latteTop(p, 0.5, 0.62, 0.28, "heart");
    },
  },
  "roastery-tour.mp4": {
    motion: [2, 0],
    scene: (p) => {
      wall(p, 0.72, hex("#e8dccb"), hex("#cdb89c"));
      table(p, 0.72, hex("#8c8378"), hex("#5d554c"));
      windowFrame(p, 0.15, 0.08, 0.4, 0.42, hex("#f6d9a8"), C.navy);
      sack(p, 0.72, 0.95, 0.24, C.jute, C.navy);
      roaster(p, 1.25, 0.9, 0.36);
    },
  },
};
