/**
 * Independent readers for the demo's generated files, so tests check the
 * bytes themselves rather than trust the writers: decoders from other
 * libraries for JPEG and PNG, and small structural readers for MP4 (box
 * tree, track size, timing, sample table) and PDF (cross-reference table).
 */
import { decode as decodePng } from "fast-png";
import { imageSize } from "image-size";
import * as jpeg from "jpeg-js";

export interface Facts {
  width: number | null;
  height: number | null;
  /** Video length in seconds. */
  duration?: number;
  frames?: number;
}

interface Box {
  type: string;
  start: number;
  end: number;
  body: number;
}

function boxes(b: Uint8Array, start: number, end: number): Box[] {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const out: Box[] = [];
  let o = start;
  while (o + 8 <= end) {
    const size = v.getUint32(o);
    if (size < 8 || o + size > end) throw new Error(`MP4: box at ${o} has a bad size ${size}`);
    out.push({ type: String.fromCharCode(...b.subarray(o + 4, o + 8)), start: o, end: o + size, body: o + 8 });
    o += size;
  }
  if (o !== end) throw new Error("MP4: trailing bytes after the last box");
  return out;
}

function child(b: Uint8Array, parent: Box, type: string, skip = 0): Box {
  const found = boxes(b, parent.body + skip, parent.end).find((x) => x.type === type);
  if (!found) throw new Error(`MP4: no ${type} in ${parent.type}`);
  return found;
}

/** Size, length and frame count of an MP4 with one video track, after checking its structure. */
export function readMp4(b: Uint8Array): Facts {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const top = boxes(b, 0, b.length);
  if (top[0]?.type !== "ftyp") throw new Error("MP4: does not start with ftyp");
  const moov = top.find((x) => x.type === "moov")!;
  const mdat = top.find((x) => x.type === "mdat")!;
  const trak = child(b, moov, "trak");
  const tkhd = child(b, trak, "tkhd");
  const width = v.getUint32(tkhd.body + 76) >>> 16;
  const height = v.getUint32(tkhd.body + 80) >>> 16;
  const mdia = child(b, trak, "mdia");
  const mdhd = child(b, mdia, "mdhd");
  const timescale = v.getUint32(mdhd.body + 12);
  const duration = v.getUint32(mdhd.body + 16) / timescale;
  const stbl = child(b, child(b, mdia, "minf"), "stbl");
  const stsd = child(b, stbl, "stsd");
  const avc1 = child(b, stsd, "avc1", 8);
  if (v.getUint16(avc1.body + 24) !== width || v.getUint16(avc1.body + 26) !== height)
    throw new Error("MP4: sample entry size differs from the track's");
  child(b, avc1, "avcC", 78);
  const stsz = child(b, stbl, "stsz");
  const frames = v.getUint32(stsz.body + 8);
  let total = 0;
  for (let i = 0; i < frames; i++) total += v.getUint32(stsz.body + 12 + i * 4);
  const stco = child(b, stbl, "stco");
  const offset = v.getUint32(stco.body + 8);
  if (offset !== mdat.body || offset + total !== mdat.end)
    throw new Error("MP4: the sample table does not cover mdat exactly");
  return { width, height, duration, frames };
}

/** Checks a PDF's header, trailer and that every cross-reference entry points at its object. */
export function checkPdf(b: Uint8Array): { pages: number } {
  const s = new TextDecoder("latin1").decode(b);
  if (!s.startsWith("%PDF-1.")) throw new Error("PDF: no header");
  if (!s.trimEnd().endsWith("%%EOF")) throw new Error("PDF: no %%EOF");
  const xref = Number(/startxref\s+(\d+)\s+%%EOF\s*$/.exec(s)?.[1]);
  if (!s.startsWith("xref", xref)) throw new Error("PDF: startxref does not point at the xref table");
  const [, first, count] = /^xref\s+(\d+) (\d+)\s/.exec(s.slice(xref))!.map(Number) as [number, number, number];
  const entries = s
    .slice(xref)
    .split("\n")
    .slice(2, 2 + count);
  entries.forEach((e, i) => {
    const [off, , kind] = e.trim().split(" ");
    if (kind === "n" && !s.startsWith(`${first + i} 0 obj`, Number(off)))
      throw new Error(`PDF: xref entry ${first + i} points at the wrong place`);
  });
  return { pages: (s.match(/\/Type \/Page\b/g) ?? []).length };
}

/** Decodes a file by its MIME type and returns its pixel size (throws when the bytes are not that format). */
export function readFile(mime: string, b: Uint8Array): Facts {
  switch (mime) {
    case "image/jpeg": {
      const d = jpeg.decode(b, { useTArray: true });
      return { width: d.width, height: d.height };
    }
    case "image/png": {
      const d = decodePng(b);
      return { width: d.width, height: d.height };
    }
    case "image/svg+xml": {
      const text = new TextDecoder().decode(b);
      if (!/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/.test(text)) throw new Error("SVG: no svg root");
      const s = imageSize(b);
      return { width: s.width, height: s.height };
    }
    case "video/mp4":
      return readMp4(b);
    case "application/pdf":
      checkPdf(b);
      return { width: null, height: null };
    default:
      throw new Error(`no reader for ${mime}`);
  }
}
