/**
 * Media URLs leave REST absolute. Plinth serves stored media at
 * `/media/<site>/<file>`, and rows may hold that path relative (the demo
 * seed does, so a data dir keeps working when the public URL changes); a
 * renderer on another host cannot load a relative path, so every URL field
 * of a REST body that starts with `/media/` gets the public URL in front.
 * Other relative paths are left alone: they name pages of the site itself.
 * Runs when a body is built, never on a cache hit.
 */
const URL_FIELDS = new Set([
  "url",
  "thumbnailUrl",
  "coverImage",
  "ogImage",
  "image",
  "featuredImage",
  "logoUrl",
  "logoSquareUrl",
  "logoRectUrl",
  "logoIconUrl",
  "faviconUrl",
  "ogImageUrl",
]);

export function absoluteMediaUrls<T>(value: T, publicUrl: string): T {
  const walk = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(walk);
    if (!x || typeof x !== "object") return x;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(x)) {
      out[k] = typeof v === "string" ? (URL_FIELDS.has(k) && v.startsWith("/media/") ? publicUrl + v : v) : walk(v);
    }
    return out;
  };
  return walk(value) as T;
}
