/**
 * A small baseline JPEG encoder for the demo's generated pictures.
 *
 * Why not jpeg-js (which the media library uses for thumbnails)? Speed: the
 * demo is seeded many times per test run and on every first start, and
 * jpeg-js encodes about 12 megapixels a second in full-resolution colour.
 * This encoder subsamples colour 2×2 (4:2:0, what cameras and libjpeg
 * write by default), so it transforms half as many blocks, and it works on
 * typed arrays throughout: several times faster, and smaller files.
 *
 * Baseline sequential DCT, the standard quantisation tables scaled by
 * quality (IJG formula) and the standard Huffman tables of ITU T.81
 * Annex K, with a JFIF header. jpeg-js decodes its output in the tests.
 */

/** Zigzag position → natural (row-major) index. */
const ZIGZAG = new Uint8Array([
  0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28,
  35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47,
  55, 62, 63,
]);

// ITU T.81 Annex K.1, natural order.
const LUMA_Q = [
  16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51,
  87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92, 49, 64, 78, 87, 103, 121, 120, 101,
  72, 92, 95, 98, 112, 100, 103, 99,
];
const CHROMA_Q = [
  17,
  18,
  24,
  47,
  99,
  99,
  99,
  99,
  18,
  21,
  26,
  66,
  99,
  99,
  99,
  99,
  24,
  26,
  56,
  99,
  99,
  99,
  99,
  99,
  47,
  66,
  99,
  99,
  99,
  99,
  99,
  99,
  ...new Array<number>(32).fill(99),
];

// ITU T.81 Annex K.3: code counts per length 1..16, then the symbols.
const DC_LUMA = {
  bits: [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0],
  vals: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
};
const DC_CHROMA = {
  bits: [0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0],
  vals: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
};
const AC_LUMA = {
  bits: [0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7d],
  vals: [
    0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12, 0x21, 0x31, 0x41, 0x06, 0x13, 0x51, 0x61, 0x07, 0x22, 0x71, 0x14,
    0x32, 0x81, 0x91, 0xa1, 0x08, 0x23, 0x42, 0xb1, 0xc1, 0x15, 0x52, 0xd1, 0xf0, 0x24, 0x33, 0x62, 0x72, 0x82, 0x09,
    0x0a, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2a, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a,
    0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a, 0x63, 0x64, 0x65,
    0x66, 0x67, 0x68, 0x69, 0x6a, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88,
    0x89, 0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9,
    0xaa, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca,
    0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xe1, 0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea,
    0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa,
  ],
};
const AC_CHROMA = {
  bits: [0, 2, 1, 2, 4, 4, 3, 4, 7, 5, 4, 4, 0, 1, 2, 0x77],
  vals: [
    0x00, 0x01, 0x02, 0x03, 0x11, 0x04, 0x05, 0x21, 0x31, 0x06, 0x12, 0x41, 0x51, 0x07, 0x61, 0x71, 0x13, 0x22, 0x32,
    0x81, 0x08, 0x14, 0x42, 0x91, 0xa1, 0xb1, 0xc1, 0x09, 0x23, 0x33, 0x52, 0xf0, 0x15, 0x62, 0x72, 0xd1, 0x0a, 0x16,
    0x24, 0x34, 0xe1, 0x25, 0xf1, 0x17, 0x18, 0x19, 0x1a, 0x26, 0x27, 0x28, 0x29, 0x2a, 0x35, 0x36, 0x37, 0x38, 0x39,
    0x3a, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a, 0x63, 0x64,
    0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a, 0x82, 0x83, 0x84, 0x85, 0x86,
    0x87, 0x88, 0x89, 0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7,
    0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8,
    0xc9, 0xca, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9,
    0xea, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa,
  ],
};

interface Huff {
  code: Uint16Array;
  len: Uint8Array;
}

/** Canonical codes from the counts per length (T.81 Annex C). */
function huffman(spec: { bits: number[]; vals: number[] }): Huff {
  const code = new Uint16Array(256);
  const len = new Uint8Array(256);
  let c = 0;
  let k = 0;
  for (let l = 1; l <= 16; l++) {
    for (let i = 0; i < spec.bits[l - 1]!; i++, k++) {
      code[spec.vals[k]!] = c++;
      len[spec.vals[k]!] = l;
    }
    c <<= 1;
  }
  return { code, len };
}

const HUFF = { dcY: huffman(DC_LUMA), acY: huffman(AC_LUMA), dcC: huffman(DC_CHROMA), acC: huffman(AC_CHROMA) };

/** Quantisation table for a quality (1–100), natural order, the IJG way. */
function scaleTable(base: number[], quality: number): Uint8Array {
  const q = Math.min(100, Math.max(1, Math.round(quality)));
  const scale = q < 50 ? 5000 / q : 200 - q * 2;
  return Uint8Array.from(base, (v) => Math.min(255, Math.max(1, Math.floor((v * scale + 50) / 100))));
}

const AAN = [1, 1.387039845, 1.306562965, 1.175875602, 1, 0.785694958, 0.5411961, 0.275899379];

/** Reciprocal divisors folding the AAN output scaling into quantisation, in zigzag order. */
function divisors(q: Uint8Array): Float64Array {
  const d = new Float64Array(64);
  for (let i = 0; i < 64; i++) {
    const n = ZIGZAG[i]!;
    d[i] = 1 / (q[n]! * AAN[n >> 3]! * AAN[n & 7]! * 8);
  }
  return d;
}

/** One 8-point AAN forward DCT (as libjpeg's jfdctflt), from src[s + k·ss] into dst[o + k·ds]. */
function dct8(src: Float64Array, s: number, ss: number, dst: Float64Array, o: number, ds: number) {
  const d0 = src[s]!,
    d1 = src[s + ss]!,
    d2 = src[s + 2 * ss]!,
    d3 = src[s + 3 * ss]!;
  const d4 = src[s + 4 * ss]!,
    d5 = src[s + 5 * ss]!,
    d6 = src[s + 6 * ss]!,
    d7 = src[s + 7 * ss]!;
  const t0 = d0 + d7,
    t7 = d0 - d7,
    t1 = d1 + d6,
    t6 = d1 - d6;
  const t2 = d2 + d5,
    t5 = d2 - d5,
    t3 = d3 + d4,
    t4 = d3 - d4;
  const t10 = t0 + t3,
    t13 = t0 - t3,
    t11 = t1 + t2,
    t12 = t1 - t2;
  dst[o] = t10 + t11;
  dst[o + 4 * ds] = t10 - t11;
  const z1 = (t12 + t13) * 0.707106781;
  dst[o + 2 * ds] = t13 + z1;
  dst[o + 6 * ds] = t13 - z1;
  const u10 = t4 + t5,
    u11 = t5 + t6,
    u12 = t6 + t7;
  const z5 = (u10 - u12) * 0.382683433;
  const z2 = 0.5411961 * u10 + z5;
  const z4 = 1.306562965 * u12 + z5;
  const z3 = u11 * 0.707106781;
  const z11 = t7 + z3,
    z13 = t7 - z3;
  dst[o + 5 * ds] = z13 + z2;
  dst[o + 3 * ds] = z13 - z2;
  dst[o + ds] = z11 + z4;
  dst[o + 7 * ds] = z11 - z4;
}

/** The 8×8 block at (x0, y0) of a plane: transformed, then quantised into zigzag order. */
function fdctQuant(
  plane: Float64Array,
  stride: number,
  x0: number,
  y0: number,
  tmp: Float64Array,
  div: Float64Array,
  out: Int32Array,
) {
  for (let r = 0; r < 8; r++) dct8(plane, (y0 + r) * stride + x0, 1, tmp, r * 8, 1);
  for (let c = 0; c < 8; c++) dct8(tmp, c, 8, tmp, c, 8);
  for (let i = 0; i < 64; i++) out[i] = Math.round(tmp[ZIGZAG[i]!]! * div[i]!);
}

/** Bytes out, with 0xFF stuffing inside entropy-coded data. */
class Writer {
  buf = new Uint8Array(16384);
  pos = 0;
  private acc = 0;
  private n = 0;

  private grow(extra: number) {
    if (this.pos + extra <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.pos + extra));
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }
  bytes(...bs: number[]) {
    this.grow(bs.length);
    for (const b of bs) this.buf[this.pos++] = b;
  }
  u16(v: number) {
    this.bytes(v >> 8, v & 0xff);
  }
  bits(value: number, count: number) {
    this.acc = (this.acc << count) | (value & ((1 << count) - 1));
    this.n += count;
    while (this.n >= 8) {
      this.n -= 8;
      const byte = (this.acc >> this.n) & 0xff;
      this.grow(2);
      this.buf[this.pos++] = byte;
      if (byte === 0xff) this.buf[this.pos++] = 0;
    }
    this.acc &= (1 << this.n) - 1;
  }
  /** Pads the last byte with ones, as T.81 F.1.2.3 asks. */
  flushBits() {
    if (this.n > 0) this.bits(0x7f, 8 - this.n);
  }
  result() {
    return this.buf.slice(0, this.pos);
  }
}

const magnitude = (v: number) => (v === 0 ? 0 : 32 - Math.clz32(v < 0 ? -v : v));

function writeBlock(w: Writer, coef: Int32Array, prevDc: number, dc: Huff, ac: Huff): number {
  const diff = coef[0]! - prevDc;
  let size = magnitude(diff);
  w.bits(dc.code[size]!, dc.len[size]!);
  if (size) w.bits(diff < 0 ? diff + (1 << size) - 1 : diff, size);
  let run = 0;
  for (let k = 1; k < 64; k++) {
    const v = coef[k]!;
    if (v === 0) {
      run++;
      continue;
    }
    while (run > 15) {
      w.bits(ac.code[0xf0]!, ac.len[0xf0]!);
      run -= 16;
    }
    size = magnitude(v);
    const sym = (run << 4) | size;
    w.bits(ac.code[sym]!, ac.len[sym]!);
    w.bits(v < 0 ? v + (1 << size) - 1 : v, size);
    run = 0;
  }
  if (run > 0) w.bits(ac.code[0]!, ac.len[0]!);
  return coef[0]!;
}

function writeDht(w: Writer, cls: number, id: number, spec: { bits: number[]; vals: number[] }) {
  w.bytes(0xff, 0xc4);
  w.u16(2 + 1 + 16 + spec.vals.length);
  w.bytes((cls << 4) | id, ...spec.bits, ...spec.vals);
}

/** Plane memory reused from one picture to the next (every sample is overwritten), so encoding touches no fresh pages. */
let planeMemory = new Float64Array(0);
function scratchPlanes(n: number): Float64Array {
  if (planeMemory.length < n) planeMemory = new Float64Array(n);
  return planeMemory;
}

/**
 * Encodes RGB pixels (3 values of 0–255 per pixel, row-major) as a baseline
 * JPEG with 4:2:0 chroma. Dimensions up to 65535.
 */
export function encodeJpeg(rgb: ArrayLike<number>, width: number, height: number, quality = 82): Uint8Array {
  if (rgb.length !== width * height * 3) throw new Error("encodeJpeg: pixel buffer does not match the size");
  const qY = scaleTable(LUMA_Q, quality);
  const qC = scaleTable(CHROMA_Q, quality);
  const divY = divisors(qY);
  const divC = divisors(qC);

  // Colour conversion (JFIF) into level-shifted planes padded to whole 16×16 MCUs by repeating edges.
  const pw = (width + 15) & ~15;
  const ph = (height + 15) & ~15;
  const cw = pw >> 1;
  const ch = ph >> 1;
  const planes = scratchPlanes(pw * ph + 2 * cw * ch);
  const Y = planes.subarray(0, pw * ph);
  for (let y = 0; y < height; y++) {
    const row = y * pw;
    for (let x = 0, i = y * width * 3; x < width; x++, i += 3)
      Y[row + x] = 0.299 * rgb[i]! + 0.587 * rgb[i + 1]! + 0.114 * rgb[i + 2]! - 128;
    Y.fill(Y[row + width - 1]!, row + width, row + pw);
  }
  for (let y = height; y < ph; y++) Y.copyWithin(y * pw, (height - 1) * pw, height * pw);
  // Colour at half resolution: one sample per 2×2 pixels, from their average.
  const Cb = planes.subarray(pw * ph, pw * ph + cw * ch);
  const Cr = planes.subarray(pw * ph + cw * ch, pw * ph + 2 * cw * ch);
  for (let cy = 0; cy < ch; cy++) {
    const ya = Math.min(2 * cy, height - 1) * width,
      yb = Math.min(2 * cy + 1, height - 1) * width;
    for (let cx = 0; cx < cw; cx++) {
      const xa = Math.min(2 * cx, width - 1),
        xb = Math.min(2 * cx + 1, width - 1);
      const p = (ya + xa) * 3,
        q = (ya + xb) * 3,
        s = (yb + xa) * 3,
        t = (yb + xb) * 3;
      const r = (rgb[p]! + rgb[q]! + rgb[s]! + rgb[t]!) * 0.25;
      const g = (rgb[p + 1]! + rgb[q + 1]! + rgb[s + 1]! + rgb[t + 1]!) * 0.25;
      const b = (rgb[p + 2]! + rgb[q + 2]! + rgb[s + 2]! + rgb[t + 2]!) * 0.25;
      Cb[cy * cw + cx] = -0.168736 * r - 0.331264 * g + 0.5 * b;
      Cr[cy * cw + cx] = 0.5 * r - 0.418688 * g - 0.081312 * b;
    }
  }

  const w = new Writer();
  w.bytes(0xff, 0xd8); // SOI
  w.bytes(0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0); // APP0 JFIF 1.1, aspect 1:1
  w.bytes(0xff, 0xdb);
  w.u16(2 + 2 * 65);
  w.bytes(0, ...Array.from(ZIGZAG, (n) => qY[n]!), 1, ...Array.from(ZIGZAG, (n) => qC[n]!));
  w.bytes(0xff, 0xc0, 0, 17, 8); // SOF0, 8-bit
  w.u16(height);
  w.u16(width);
  w.bytes(3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1);
  writeDht(w, 0, 0, DC_LUMA);
  writeDht(w, 1, 0, AC_LUMA);
  writeDht(w, 0, 1, DC_CHROMA);
  writeDht(w, 1, 1, AC_CHROMA);
  w.bytes(0xff, 0xda, 0, 12, 3, 1, 0x00, 2, 0x11, 3, 0x11, 0, 63, 0); // SOS

  const tmp = new Float64Array(64);
  const coef = new Int32Array(64);
  let dcY = 0,
    dcCb = 0,
    dcCr = 0;
  for (let my = 0; my < ph; my += 16) {
    for (let mx = 0; mx < pw; mx += 16) {
      for (let k = 0; k < 4; k++) {
        fdctQuant(Y, pw, mx + (k & 1) * 8, my + (k >> 1) * 8, tmp, divY, coef);
        dcY = writeBlock(w, coef, dcY, HUFF.dcY, HUFF.acY);
      }
      fdctQuant(Cb, cw, mx >> 1, my >> 1, tmp, divC, coef);
      dcCb = writeBlock(w, coef, dcCb, HUFF.dcC, HUFF.acC);
      fdctQuant(Cr, cw, mx >> 1, my >> 1, tmp, divC, coef);
      dcCr = writeBlock(w, coef, dcCr, HUFF.dcC, HUFF.acC);
    }
  }
  w.flushBits();
  w.bytes(0xff, 0xd9); // EOI
  return w.result();
}
