/**
 * What a file really is, from its first bytes, and which types the media
 * library accepts.
 *
 * The bytes decide: a declared type that contradicts them is refused (a
 * "PNG" that is really HTML must never be stored, let alone served from our
 * origin). Binary formats are recognised by their magic numbers; SVG by its
 * root element; plain-text types (txt, csv, md, json) cannot be recognised
 * by magic, so they are accepted only when declared, only as valid UTF-8,
 * and only when they do not look like HTML, SVG or XML.
 */

export interface MediaType {
  mime: string;
  ext: string;
  /** Shown inline by the file route; everything else is served as a download. */
  inline: boolean;
}

/** Every type the library stores, by canonical MIME type. */
export const MEDIA_TYPES: Record<string, MediaType> = Object.fromEntries(
  (
    [
      ["image/png", "png", true],
      ["image/jpeg", "jpg", true],
      ["image/gif", "gif", true],
      ["image/webp", "webp", true],
      ["image/avif", "avif", true],
      ["image/svg+xml", "svg", true],
      ["image/x-icon", "ico", true],
      ["application/pdf", "pdf", false],
      ["video/mp4", "mp4", false],
      ["video/webm", "webm", false],
      ["video/quicktime", "mov", false],
      ["audio/mpeg", "mp3", false],
      ["audio/mp4", "m4a", false],
      ["audio/ogg", "ogg", false],
      ["audio/wav", "wav", false],
      ["audio/flac", "flac", false],
      ["audio/webm", "weba", false],
      ["font/woff", "woff", false],
      ["font/woff2", "woff2", false],
      ["application/zip", "zip", false],
      ["text/plain", "txt", false],
      ["text/csv", "csv", false],
      ["text/markdown", "md", false],
      ["application/json", "json", false],
    ] as const
  ).map(([mime, ext, inline]) => [mime, { mime, ext, inline }]),
);

export const MIME_BY_EXT: Record<string, string> = Object.fromEntries(
  Object.values(MEDIA_TYPES).map((t) => [t.ext, t.mime]),
);

/** Types that have no magic number: trusted from the declaration once the bytes pass the text checks. */
const TEXT_TYPES = new Set(["text/plain", "text/csv", "text/markdown", "application/json"]);

const ALIASES: Record<string, string> = {
  "image/jpg": "image/jpeg",
  "image/pjpeg": "image/jpeg",
  "image/vnd.microsoft.icon": "image/x-icon",
  "image/ico": "image/x-icon",
  "audio/mp3": "audio/mpeg",
  "audio/x-wav": "audio/wav",
  "audio/wave": "audio/wav",
  "audio/x-flac": "audio/flac",
  "audio/x-m4a": "audio/mp4",
  "application/x-zip-compressed": "application/zip",
  "text/x-markdown": "text/markdown",
};

/** Types that share one container, where the bytes cannot tell which the author meant. */
const FAMILIES: string[][] = [
  ["video/mp4", "audio/mp4", "video/quicktime"],
  ["video/webm", "audio/webm"],
];

/** "Image/JPG; charset=x" → "image/jpeg". */
export function normaliseMime(declared: string): string {
  const base = declared.split(";")[0]!.trim().toLowerCase();
  return ALIASES[base] ?? base;
}

const ascii = (b: Uint8Array, start: number, s: string) => {
  if (b.length < start + s.length) return false;
  for (let i = 0; i < s.length; i++) if (b[start + i] !== s.charCodeAt(i)) return false;
  return true;
};

/** The start of a text file with BOM, XML declaration, comments, doctype and whitespace removed, lower-cased. */
function textHead(b: Uint8Array): string {
  let s = new TextDecoder("utf-8", { fatal: false }).decode(b.subarray(0, 4096));
  s = s.replace(/^\ufeff/, "");
  for (let i = 0; i < 20; i++) {
    const before = s;
    s = s
      .replace(/^\s+/, "")
      .replace(/^<\?xml[^>]*\?>/i, "")
      .replace(/^<!--[\s\S]*?-->/, "")
      .replace(/^<!doctype\s+svg[^>]*>/i, "");
    if (s === before) break;
  }
  return s.toLowerCase();
}

/** The MIME type the bytes show, or null when they match no recognised format. */
export function sniffMime(b: Uint8Array): string | null {
  if (b.length >= 8 && b[0] === 0x89 && ascii(b, 1, "PNG\r\n\x1a\n")) return "image/png";
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "image/jpeg";
  if (ascii(b, 0, "GIF87a") || ascii(b, 0, "GIF89a")) return "image/gif";
  if (ascii(b, 0, "RIFF") && ascii(b, 8, "WEBP")) return "image/webp";
  if (ascii(b, 0, "RIFF") && ascii(b, 8, "WAVE")) return "audio/wav";
  if (ascii(b, 0, "%PDF-")) return "application/pdf";
  if (ascii(b, 4, "ftyp")) {
    const brand = String.fromCharCode(...b.subarray(8, 12));
    if (brand === "avif" || brand === "avis") return "image/avif";
    if (brand === "qt  ") return "video/quicktime";
    if (brand === "M4A " || brand === "M4B ") return "audio/mp4";
    if (/^(isom|iso[2-9]|mp41|mp42|avc1|dash|M4V |mmp4|MSNV|3gp\d|3g2\w)$/.test(brand)) return "video/mp4";
    return null;
  }
  if (b.length >= 4 && b[0] === 0x1a && b[1] === 0x45 && b[2] === 0xdf && b[3] === 0xa3) return "video/webm";
  if (ascii(b, 0, "OggS")) return "audio/ogg";
  if (ascii(b, 0, "fLaC")) return "audio/flac";
  if (ascii(b, 0, "ID3") || (b.length >= 2 && b[0] === 0xff && (b[1]! & 0xe0) === 0xe0 && (b[1]! & 0x06) !== 0))
    return "audio/mpeg";
  if (b.length >= 4 && b[0] === 0 && b[1] === 0 && b[2] === 1 && b[3] === 0) return "image/x-icon";
  if (ascii(b, 0, "wOFF")) return "font/woff";
  if (ascii(b, 0, "wOF2")) return "font/woff2";
  if (ascii(b, 0, "PK\x03\x04")) return "application/zip";
  const head = textHead(b);
  if (/^<svg[\s>/]/.test(head)) return "image/svg+xml";
  if (
    /^<(!doctype\s+html|html|head|body|script|iframe|object|embed|meta|link|style|title|div|a\s|img|form|\?xml)/.test(
      head,
    )
  )
    return "text/html";
  return null;
}

function isUtf8Text(b: Uint8Array): boolean {
  if (b.includes(0)) return false;
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(b);
    return true;
  } catch {
    return false;
  }
}

export type SniffResult = { ok: true; type: MediaType } | { ok: false; message: string };

/**
 * Decides the stored type of an upload from its bytes and the declared type
 * (optional). Refuses unknown types, HTML, and declarations the bytes contradict.
 */
export function decideType(bytes: Uint8Array, declared: string | undefined): SniffResult {
  const want = declared === undefined ? undefined : normaliseMime(declared);
  if (want !== undefined && !MEDIA_TYPES[want])
    return {
      ok: false,
      message: `mimeType "${declared}" is not accepted. Accepted: ${Object.keys(MEDIA_TYPES).join(", ")}.`,
    };
  const seen = sniffMime(bytes);
  if (seen === "text/html")
    return { ok: false, message: "The file is HTML (or XML), which the media library does not store." };
  if (seen === null) {
    if (want && TEXT_TYPES.has(want)) {
      if (!isUtf8Text(bytes))
        return { ok: false, message: `The file is not valid UTF-8 text, so it cannot be ${want}.` };
      return { ok: true, type: MEDIA_TYPES[want]! };
    }
    return {
      ok: false,
      message: want
        ? `The file's bytes are not ${want}: its format was not recognised. Upload the file itself (base64 of its bytes).`
        : "The file's format was not recognised; give mimeType for text files (text/plain, text/csv, text/markdown, application/json).",
    };
  }
  if (want === undefined || want === seen) return { ok: true, type: MEDIA_TYPES[seen]! };
  if (FAMILIES.some((f) => f.includes(want) && f.includes(seen))) return { ok: true, type: MEDIA_TYPES[want]! };
  return {
    ok: false,
    message: `mimeType says ${want} but the file's bytes are ${seen}. Send the matching mimeType, or omit it to use ${seen}.`,
  };
}
