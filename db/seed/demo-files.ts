/**
 * The demo's media files: generated in pure JS (pictures painted by
 * demo-art.ts, videos, PDFs and SVGs), then stored exactly as an upload
 * would be, in the media store (deps.blobs) under `<siteId>/<24 hex>.<ext>`,
 * with a `.thumb.<ext>` beside JPEGs and PNGs larger than the thumbnail
 * size, and served by the media route at `/media/<siteId>/<name>`.
 *
 * The bytes are deterministic, so they are made once per process and only
 * written per seed: the test suite seeds many data dirs, and a compiled
 * binary carries no files of its own. File names come from a hash of the
 * demo file name (stable across seeds, so seeded rows stay identical); the
 * hash input carries a version, because the media route tells browsers to
 * cache its files forever: change the pictures, bump ART_VERSION.
 */
import type { Deps } from "../../src/core/context";
import { sha256Hex } from "../../src/core/secrets";
import { fitWithin, THUMB_MAX } from "../../src/domains/cms/media-image";
import { MEDIA_TYPES, MIME_BY_EXT } from "../../src/domains/cms/media-sniff";
import { SCENES, VIDEO_SCENES } from "./demo-art";
import { PDFS, SVGS } from "./demo-documents";
import { encodeJpeg } from "./demo-jpeg";
import { encodePng } from "./demo-png";
import type { DemoMedia } from "./demo-media";
import { Canvas } from "./demo-paint";
import { encodeMovingPicture } from "./demo-video";

const ART_VERSION = "1";
const VIDEO_FPS = 12;
const VIDEO_FRAMES = 48;

export interface GeneratedFile {
  bytes: Uint8Array;
  ext: string;
  /** A reduced copy, made where an upload would get one (and a poster frame for videos). */
  thumb: { bytes: Uint8Array; ext: "jpg" | "png"; width: number; height: number } | null;
}

export interface StoredDemoFile {
  url: string;
  storageKey: string;
  thumbnailUrl: string | null;
  sizeBytes: number;
}

/** Pixel memory shared by every picture of one generation run (they are painted one after another). */
interface Scratch {
  full: Float64Array;
  thumb: Float64Array;
}

function painted(
  m: DemoMedia,
  paint: (c: Canvas) => void,
  encode: (c: Canvas) => Uint8Array,
  ext: "jpg" | "png",
  scratch: Scratch,
): GeneratedFile {
  const canvas = new Canvas(m.width!, m.height!, scratch.full);
  paint(canvas);
  let thumb: GeneratedFile["thumb"] = null;
  if (Math.max(m.width!, m.height!) > THUMB_MAX) {
    const t = fitWithin(m.width!, m.height!);
    thumb = {
      bytes: encode(canvas.downscale(t.width, t.height, scratch.thumb)),
      ext,
      width: t.width,
      height: t.height,
    };
  }
  return { bytes: encode(canvas), ext, thumb };
}

const jpeg = (c: Canvas) => encodeJpeg(c.px, c.width, c.height);
const png = (c: Canvas) => encodePng(c.rgb(), c.width, c.height);

function need<T>(table: Record<string, T>, file: string): T {
  const v = table[file];
  if (v === undefined) throw new Error(`demo seed: no generator for ${file}`);
  return v;
}

function generate(m: DemoMedia, scratch: Scratch): GeneratedFile {
  switch (m.mimeType) {
    case "image/jpeg":
      return painted(m, need(SCENES, m.file), jpeg, "jpg", scratch);
    case "image/png":
      return painted(m, need(SCENES, m.file), png, "png", scratch);
    case "image/svg+xml":
      return { bytes: new TextEncoder().encode(need(SVGS, m.file)), ext: "svg", thumb: null };
    case "application/pdf":
      return { bytes: need(PDFS, m.file)(), ext: "pdf", thumb: null };
    case "video/mp4": {
      const { scene, motion } = need(VIDEO_SCENES, m.file);
      const first = new Canvas(m.width!, m.height!, scratch.full);
      scene(first);
      const bytes = encodeMovingPicture(first.px, {
        width: m.width!,
        height: m.height!,
        fps: VIDEO_FPS,
        frames: VIDEO_FRAMES,
        motion,
      });
      const t = fitWithin(m.width!, m.height!);
      const poster = t.width === m.width ? first : first.downscale(t.width, t.height, scratch.thumb);
      return { bytes, ext: "mp4", thumb: { bytes: jpeg(poster), ext: "jpg", width: t.width, height: t.height } };
    }
  }
}

let generated: Map<string, GeneratedFile> | undefined;

/** Every demo file's bytes, made on first use and kept for the life of the process. */
export function demoFiles(items: DemoMedia[]): Map<string, GeneratedFile> {
  generated ??= new Map();
  const missing = items.filter((m) => !generated!.has(m.file));
  const most = Math.max(0, ...missing.map((m) => (m.width ?? 0) * (m.height ?? 0) * 3));
  const scratch: Scratch = { full: new Float64Array(most), thumb: new Float64Array(THUMB_MAX * THUMB_MAX * 3) };
  for (const m of missing) {
    const f = generate(m, scratch);
    if (MEDIA_TYPES[m.mimeType]?.ext !== f.ext)
      throw new Error(`demo seed: ${m.file} is ${m.mimeType} but was made as .${f.ext}`);
    generated.set(m.file, f);
  }
  return generated;
}

/** Where a demo file lives on a site: the same key shapes as an upload, under a relative URL (immune to public URL changes). */
export function storedDemoFile(siteId: number, m: DemoMedia, f: GeneratedFile): StoredDemoFile {
  const base = `${siteId}/${sha256Hex(`plinth-demo-media/${ART_VERSION}/${m.file}`).slice(0, 24)}`;
  const storageKey = `${base}.${f.ext}`;
  const url = `/media/${storageKey}`;
  // As for uploads: the thumbnail file if there is one, else the original for images that need none.
  const thumbnailUrl = f.thumb ? `/media/${base}.thumb.${f.thumb.ext}` : m.mimeType.startsWith("image/") ? url : null;
  return { url, storageKey, thumbnailUrl, sizeBytes: f.bytes.length };
}

/**
 * Writes the files into the media store. On failure removes what it wrote and
 * rethrows, so the caller's transaction can roll back with nothing left behind
 * (in the database store the writes are part of that transaction anyway).
 */
export async function writeDemoFiles(
  deps: Pick<Deps, "blobs">,
  placed: { stored: StoredDemoFile; file: GeneratedFile }[],
) {
  const written: string[] = [];
  try {
    for (const { stored, file } of placed) {
      const key = stored.storageKey;
      await deps.blobs.put(key, file.bytes, mimeOf(file.ext));
      written.push(key);
      if (file.thumb) {
        const thumbKey = key.replace(/\.[a-z0-9]+$/, `.thumb.${file.thumb.ext}`);
        await deps.blobs.put(thumbKey, file.thumb.bytes, mimeOf(file.thumb.ext));
        written.push(thumbKey);
      }
    }
  } catch (e) {
    await deps.blobs.remove(written).catch(() => {});
    throw e;
  }
}

function mimeOf(ext: string): string {
  const mime = MIME_BY_EXT[ext];
  if (!mime) throw new Error(`demo seed: no media type for .${ext}`);
  return mime;
}
