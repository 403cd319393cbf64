/**
 * Short, real MP4 videos for the demo, written in pure JS: H.264 (Constrained
 * Baseline) in an MP4 container, playable by every browser.
 *
 * A full video encoder is far beyond what a demo needs, so this writes the
 * simplest streams the standard allows and still gets motion:
 *
 * - the first frame is an IDR picture of macroblocks that are either copied
 *   exactly from their left or upper neighbour (Intra 16×16 horizontal or
 *   vertical prediction with no residual: a few bits each, which is what
 *   smooth backdrops become) or stored raw (I_PCM) where the picture has
 *   detail;
 * - every later frame is a P picture that moves the whole previous frame by
 *   a whole, even number of pixels (one motion vector for all macroblocks,
 *   no residual). Even, because colour is stored at half resolution: an odd
 *   move would put colour between samples, and the decoder's rounding there
 *   drifts a little every frame. The picture slides like a slow camera pan;
 *   the edge it uncovers repeats the outermost row or column, so scenes keep
 *   that edge plain backdrop.
 *
 * Deblocking is off and nothing is quantised, so the decoder's pictures are
 * exactly the ones tracked here. Sizes: about 0.4 KB per raw macroblock, a
 * few bytes per predicted one, ~20 bytes per P frame.
 */

/** RBSP bit writer (big-endian bits, Exp-Golomb codes). */
class Bits {
  private out: number[] = [];
  private acc = 0;
  private n = 0;

  u(value: number, count: number) {
    for (let i = count - 1; i >= 0; i--) {
      this.acc = (this.acc << 1) | ((value >>> i) & 1);
      if (++this.n === 8) {
        this.out.push(this.acc);
        this.acc = 0;
        this.n = 0;
      }
    }
  }
  ue(v: number) {
    const len = 31 - Math.clz32(v + 1);
    this.u(0, len);
    this.u(v + 1, len + 1);
  }
  se(v: number) {
    this.ue(v > 0 ? 2 * v - 1 : -2 * v);
  }
  get aligned() {
    return this.n === 0;
  }
  alignZero() {
    if (this.n) this.u(0, 8 - this.n);
  }
  byte(v: number) {
    this.out.push(v); // only called when aligned
  }
  /** rbsp_trailing_bits: a one, then zeros to the byte boundary. */
  trailing(): Uint8Array {
    this.u(1, 1);
    this.alignZero();
    return Uint8Array.from(this.out);
  }
}

/** A NAL unit: header byte, then the RBSP with emulation prevention bytes. */
function nal(refIdc: number, type: number, rbsp: Uint8Array): Uint8Array {
  const out: number[] = [(refIdc << 5) | type];
  let zeros = 0;
  for (const b of rbsp) {
    if (zeros >= 2 && b <= 3) {
      out.push(3);
      zeros = 0;
    }
    out.push(b);
    zeros = b === 0 ? zeros + 1 : 0;
  }
  return Uint8Array.from(out);
}

export interface VideoSpec {
  width: number;
  height: number;
  fps: number;
  frames: number;
  /** Pixels the picture moves per frame: [right, down]; even numbers. */
  motion: [number, number];
}

interface Planes {
  y: Uint8Array;
  cb: Uint8Array;
  cr: Uint8Array;
  /** Coded (macroblock-aligned) luma size. */
  w: number;
  h: number;
}

/** BT.601 limited-range YCbCr 4:2:0 from RGB (0–255 floats), padded to whole macroblocks by repeating edges. */
export function toPlanes(rgb: ArrayLike<number>, width: number, height: number): Planes {
  const w = (width + 15) & ~15;
  const h = (height + 15) & ~15;
  const y = new Uint8Array(w * h);
  const cw = w >> 1;
  const cbSum = new Float32Array(cw * (h >> 1));
  const crSum = new Float32Array(cw * (h >> 1));
  const clamp = (v: number) => (v < 1 ? 1 : v > 254 ? 254 : Math.round(v));
  for (let j = 0; j < h; j++) {
    const sj = j < height ? j : height - 1;
    for (let i = 0; i < w; i++) {
      const k = (sj * width + (i < width ? i : width - 1)) * 3;
      const r = rgb[k]! / 255,
        g = rgb[k + 1]! / 255,
        b = rgb[k + 2]! / 255;
      y[j * w + i] = clamp(16 + 65.481 * r + 128.553 * g + 24.966 * b);
      const c = (j >> 1) * cw + (i >> 1);
      cbSum[c] = cbSum[c]! + (-37.797 * r - 74.203 * g + 112 * b) / 4;
      crSum[c] = crSum[c]! + (112 * r - 93.786 * g - 18.214 * b) / 4;
    }
  }
  return {
    y,
    cb: Uint8Array.from(cbSum, (v) => clamp(128 + v)),
    cr: Uint8Array.from(crSum, (v) => clamp(128 + v)),
    w,
    h,
  };
}

function sps(spec: VideoSpec, p: Planes): Uint8Array {
  const b = new Bits();
  b.u(66, 8); // profile_idc: Baseline
  b.u(0b11000000, 8); // constraint_set0 and set1: Constrained Baseline
  b.u(20, 8); // level 2.0: up to 396 macroblocks a frame, 11,880 a second
  b.ue(0); // seq_parameter_set_id
  b.ue(4); // log2_max_frame_num_minus4: frame_num wraps at 256
  b.ue(2); // pic_order_cnt_type 2: output order = decoding order
  b.ue(1); // max_num_ref_frames
  b.u(0, 1); // gaps_in_frame_num_value_allowed_flag
  b.ue(p.w / 16 - 1);
  b.ue(p.h / 16 - 1);
  b.u(1, 1); // frame_mbs_only_flag
  b.u(1, 1); // direct_8x8_inference_flag
  const cropRight = (p.w - spec.width) / 2,
    cropBottom = (p.h - spec.height) / 2;
  if (cropRight || cropBottom) {
    b.u(1, 1);
    b.ue(0);
    b.ue(cropRight);
    b.ue(0);
    b.ue(cropBottom);
  } else b.u(0, 1);
  b.u(0, 1); // vui_parameters_present_flag: the container carries the timing
  return nal(3, 7, b.trailing());
}

function pps(): Uint8Array {
  const b = new Bits();
  b.ue(0); // pic_parameter_set_id
  b.ue(0); // seq_parameter_set_id
  b.u(0, 1); // entropy_coding_mode_flag: CAVLC
  b.u(0, 1); // bottom_field_pic_order_in_frame_present_flag
  b.ue(0); // num_slice_groups_minus1
  b.ue(0); // num_ref_idx_l0_default_active_minus1
  b.ue(0); // num_ref_idx_l1_default_active_minus1
  b.u(0, 1); // weighted_pred_flag
  b.u(0, 2); // weighted_bipred_idc
  b.se(0); // pic_init_qp_minus26
  b.se(0); // pic_init_qs_minus26
  b.se(0); // chroma_qp_index_offset
  b.u(1, 1); // deblocking_filter_control_present_flag (so slices can turn it off)
  b.u(0, 1); // constrained_intra_pred_flag
  b.u(0, 1); // redundant_pic_cnt_present_flag
  return nal(3, 8, b.trailing());
}

/** Largest difference between a macroblock's samples and a prediction that copies a column (horizontal) or a row (vertical). */
function predError(
  target: Uint8Array,
  rec: Uint8Array,
  stride: number,
  x0: number,
  y0: number,
  size: number,
  dir: "h" | "v",
): number {
  let worst = 0;
  for (let j = 0; j < size; j++) {
    for (let i = 0; i < size; i++) {
      const pred = dir === "h" ? rec[(y0 + j) * stride + x0 - 1]! : rec[(y0 - 1) * stride + x0 + i]!;
      const d = Math.abs(target[(y0 + j) * stride + x0 + i]! - pred);
      if (d > worst) worst = d;
    }
  }
  return worst;
}

function applyPred(rec: Uint8Array, stride: number, x0: number, y0: number, size: number, dir: "h" | "v") {
  for (let j = 0; j < size; j++)
    for (let i = 0; i < size; i++)
      rec[(y0 + j) * stride + x0 + i] =
        dir === "h" ? rec[(y0 + j) * stride + x0 - 1]! : rec[(y0 - 1) * stride + x0 + i]!;
}

function copyBlock(src: Uint8Array, dst: Uint8Array, stride: number, x0: number, y0: number, size: number, b: Bits) {
  for (let j = 0; j < size; j++)
    for (let i = 0; i < size; i++) {
      const v = src[(y0 + j) * stride + x0 + i]!;
      dst[(y0 + j) * stride + x0 + i] = v;
      b.byte(v);
    }
}

/**
 * The IDR picture. `tolerance` is how far (in 8-bit levels) a predicted
 * macroblock may differ from the picture; 0 keeps it exact.
 */
function idrSlice(p: Planes, tolerance: number): Uint8Array {
  const b = new Bits();
  b.ue(0); // first_mb_in_slice
  b.ue(7); // slice_type: I (all slices)
  b.ue(0); // pic_parameter_set_id
  b.u(0, 8); // frame_num
  b.ue(0); // idr_pic_id
  b.u(0, 1); // no_output_of_prior_pics_flag
  b.u(0, 1); // long_term_reference_flag
  b.se(0); // slice_qp_delta
  b.ue(1); // disable_deblocking_filter_idc: off

  const mbw = p.w / 16,
    mbh = p.h / 16,
    cw = p.w / 2;
  const recY = new Uint8Array(p.y.length),
    recCb = new Uint8Array(p.cb.length),
    recCr = new Uint8Array(p.cr.length);
  const pcm = new Uint8Array(mbw * mbh); // 1 where the macroblock is I_PCM (its blocks count as 16 coefficients for nC)
  for (let my = 0; my < mbh; my++) {
    for (let mx = 0; mx < mbw; mx++) {
      // Copying from the left needs a left neighbour, from above one above.
      const dirs: ("h" | "v")[] = [];
      if (mx > 0) dirs.push("h");
      if (my > 0) dirs.push("v");
      let luma: "h" | "v" | null = null;
      let best = tolerance + 1;
      for (const d of dirs) {
        const e = predError(p.y, recY, p.w, mx * 16, my * 16, 16, d);
        if (e < best) [luma, best] = [d, e];
      }
      const chroma =
        dirs.find(
          (d) =>
            predError(p.cb, recCb, cw, mx * 8, my * 8, 8, d) <= tolerance &&
            predError(p.cr, recCr, cw, mx * 8, my * 8, 8, d) <= tolerance,
        ) ?? null;
      if (luma && chroma) {
        b.ue(1 + (luma === "v" ? 0 : 1)); // I_16x16_<mode>_0_0: no coded luma AC, no chroma
        b.ue(chroma === "h" ? 1 : 2); // intra_chroma_pred_mode
        b.se(0); // mb_qp_delta
        // Intra16x16DCLevel with no coefficients: coeff_token depends on the neighbours' counts (I_PCM counts 16).
        const a = mx > 0 ? pcm[my * mbw + mx - 1]! * 16 : -1;
        const t = my > 0 ? pcm[(my - 1) * mbw + mx]! * 16 : -1;
        const nC = a >= 0 && t >= 0 ? (a + t + 1) >> 1 : a >= 0 ? a : t >= 0 ? t : 0;
        if (nC < 2) b.u(0b1, 1);
        else if (nC < 4) b.u(0b11, 2);
        else if (nC < 8) b.u(0b1111, 4);
        else b.u(0b000011, 6);
        applyPred(recY, p.w, mx * 16, my * 16, 16, luma);
        applyPred(recCb, cw, mx * 8, my * 8, 8, chroma);
        applyPred(recCr, cw, mx * 8, my * 8, 8, chroma);
      } else {
        b.ue(25); // I_PCM
        b.alignZero(); // pcm_alignment_zero_bit
        copyBlock(p.y, recY, p.w, mx * 16, my * 16, 16, b);
        copyBlock(p.cb, recCb, cw, mx * 8, my * 8, 8, b);
        copyBlock(p.cr, recCr, cw, mx * 8, my * 8, 8, b);
        pcm[my * mbw + mx] = 1;
      }
    }
  }
  return nal(3, 5, b.trailing());
}

/**
 * A P picture moving the previous one by `motion`. Macroblocks of the top
 * row and left column carry the motion vector (each predicts it from its
 * neighbours, so only the very first sends it); the others are P_Skip,
 * whose derived vector is the same.
 */
function movingSlice(frameNum: number, mbw: number, mbh: number, motion: [number, number]): Uint8Array {
  const b = new Bits();
  b.ue(0); // first_mb_in_slice
  b.ue(5); // slice_type: P (all slices)
  b.ue(0); // pic_parameter_set_id
  b.u(frameNum & 255, 8); // frame_num
  b.u(0, 1); // num_ref_idx_active_override_flag
  b.u(0, 1); // ref_pic_list_modification_flag_l0
  b.u(0, 1); // adaptive_ref_pic_marking_mode_flag: sliding window
  b.se(0); // slice_qp_delta
  b.ue(1); // disable_deblocking_filter_idc: off
  // A block at x takes its pixels from x - motion, in quarter pixels.
  const mvx = -motion[0] * 4,
    mvy = -motion[1] * 4;
  const still = mvx === 0 && mvy === 0;
  let run = 0;
  for (let my = 0; my < mbh; my++) {
    for (let mx = 0; mx < mbw; mx++) {
      if (still || (mx > 0 && my > 0)) {
        run++;
        continue;
      }
      b.ue(run); // mb_skip_run
      run = 0;
      b.ue(0); // mb_type: P_L0_16x16
      const first = mx === 0 && my === 0; // the only one with no neighbour to predict from
      b.se(first ? mvx : 0);
      b.se(first ? mvy : 0);
      b.ue(0); // coded_block_pattern 0 (inter mapping)
    }
  }
  if (run) b.ue(run);
  return nal(2, 1, b.trailing());
}

// --- MP4 ------------------------------------------------------------------

function u32(v: number) {
  return [(v >>> 24) & 255, (v >>> 16) & 255, (v >>> 8) & 255, v & 255];
}
function u16(v: number) {
  return [(v >>> 8) & 255, v & 255];
}
function box(type: string, ...parts: (Uint8Array | number[])[]): Uint8Array {
  const size = 8 + parts.reduce((n, p) => n + p.length, 0);
  const out = new Uint8Array(size);
  out.set(u32(size), 0);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  let o = 8;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}
function full(type: string, version: number, flags: number, ...parts: (Uint8Array | number[])[]) {
  return box(type, [version, (flags >> 16) & 255, (flags >> 8) & 255, flags & 255], ...parts);
}
const MATRIX = [
  ...u32(0x10000),
  ...u32(0),
  ...u32(0),
  ...u32(0),
  ...u32(0x10000),
  ...u32(0),
  ...u32(0),
  ...u32(0),
  ...u32(0x40000000),
];

function mp4(spec: VideoSpec, spsNal: Uint8Array, ppsNal: Uint8Array, samples: Uint8Array[]): Uint8Array {
  const timescale = spec.fps * 1000;
  const durationMs = Math.round((spec.frames * 1000) / spec.fps);
  const ftyp = box(
    "ftyp",
    [..."isom"].map((c) => c.charCodeAt(0)),
    u32(512),
    [..."isomiso2avc1mp41"].map((c) => c.charCodeAt(0)),
  );
  const avcC = box(
    "avcC",
    [1, spsNal[1]!, spsNal[2]!, spsNal[3]!, 0xff, 0xe1, ...u16(spsNal.length)],
    spsNal,
    [1, ...u16(ppsNal.length)],
    ppsNal,
  );
  const avc1 = box(
    "avc1",
    [0, 0, 0, 0, 0, 0, ...u16(1)], // reserved, data_reference_index
    new Array(16).fill(0),
    [...u16(spec.width), ...u16(spec.height), ...u32(0x480000), ...u32(0x480000), ...u32(0), ...u16(1)],
    new Array(32).fill(0), // compressorname
    [...u16(0x18), 0xff, 0xff],
    avcC,
  );
  const moov = (chunkOffset: number) =>
    box(
      "moov",
      full(
        "mvhd",
        0,
        0,
        u32(0),
        u32(0),
        u32(1000),
        u32(durationMs),
        u32(0x10000),
        u16(0x100),
        new Array(10).fill(0),
        MATRIX,
        new Array(24).fill(0),
        u32(2),
      ),
      box(
        "trak",
        full(
          "tkhd",
          0,
          3,
          u32(0),
          u32(0),
          u32(1),
          u32(0),
          u32(durationMs),
          new Array(8).fill(0),
          u16(0),
          u16(0),
          u16(0),
          u16(0),
          MATRIX,
          u32(spec.width << 16),
          u32(spec.height << 16),
        ),
        box(
          "mdia",
          full("mdhd", 0, 0, u32(0), u32(0), u32(timescale), u32(spec.frames * 1000), u16(0x55c4), u16(0)), // language "und"
          full(
            "hdlr",
            0,
            0,
            u32(0),
            [..."vide"].map((c) => c.charCodeAt(0)),
            new Array(12).fill(0),
            [..."Plinth demo\0"].map((c) => c.charCodeAt(0)),
          ),
          box(
            "minf",
            full("vmhd", 0, 1, new Array(8).fill(0)),
            box("dinf", full("dref", 0, 0, u32(1), full("url ", 0, 1))),
            box(
              "stbl",
              full("stsd", 0, 0, u32(1), avc1),
              full("stts", 0, 0, u32(1), u32(spec.frames), u32(1000)),
              full("stss", 0, 0, u32(1), u32(1)),
              full("stsc", 0, 0, u32(1), u32(1), u32(samples.length), u32(1)),
              full(
                "stsz",
                0,
                0,
                u32(0),
                u32(samples.length),
                samples.flatMap((s) => u32(s.length)),
              ),
              full("stco", 0, 0, u32(1), u32(chunkOffset)),
            ),
          ),
        ),
      ),
    );
  const moovSize = moov(0).length;
  const mdat = box("mdat", ...samples);
  const head = moov(ftyp.length + moovSize + 8);
  const out = new Uint8Array(ftyp.length + head.length + mdat.length);
  out.set(ftyp, 0);
  out.set(head, ftyp.length);
  out.set(mdat, ftyp.length + head.length);
  return out;
}

/** AVCC sample: each NAL unit prefixed with its 4-byte length. */
function sample(...nals: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(nals.reduce((n, x) => n + 4 + x.length, 0));
  let o = 0;
  for (const x of nals) {
    out.set(u32(x.length), o);
    out.set(x, o + 4);
    o += 4 + x.length;
  }
  return out;
}

/**
 * An MP4 whose first frame is `rgb` (width × height × 3, 0–255) and whose
 * picture then moves by `spec.motion` each frame.
 */
export function encodeMovingPicture(rgb: ArrayLike<number>, spec: VideoSpec, tolerance = 2): Uint8Array {
  if (spec.width % 2 || spec.height % 2) throw new Error("video sizes must be even (4:2:0 cropping works in pairs)");
  if (spec.motion.some((m) => m % 2))
    throw new Error("video motion must be an even number of pixels (whole chroma samples)");
  const planes = toPlanes(rgb, spec.width, spec.height);
  const samples = [sample(idrSlice(planes, tolerance))];
  for (let f = 1; f < spec.frames; f++) samples.push(sample(movingSlice(f, planes.w / 16, planes.h / 16, spec.motion)));
  return mp4(spec, sps(spec, planes), pps(), samples);
}
