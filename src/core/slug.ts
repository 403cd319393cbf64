/** Slugs: generated from titles when omitted, validated when given. */

const SLUG_RE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const MAX_SLUG = 120;

export function isSlug(s: string): boolean {
  return s.length <= MAX_SLUG && SLUG_RE.test(s);
}

/** "Héllo, World!" → "hello-world". Never empty: falls back to `fallback`. */
export function slugify(title: string, fallback = "item"): string {
  const s = title
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, MAX_SLUG)
    .replace(/-+$/g, "");
  return s || fallback;
}

/**
 * What a create result says when its generated slug had to move off the
 * one its title gives, because another item has it: a retried create must
 * not make a silent duplicate (pass idempotencyKey to make retries safe).
 */
export function slugNote(base: string, slug: string, noun: string): { note?: string } {
  if (base === slug) return {};
  return {
    note: `slug "${base}" is already used by another ${noun} here, so this one is "${slug}". If this call was a retry, delete the duplicate or pass idempotencyKey.`,
  };
}

/**
 * The first of base, base-2, base-3 … that `taken` says is free. Used when a
 * slug is generated; a slug the caller chose is never altered (a taken one is
 * a conflict error instead).
 */
export async function uniqueSlug(base: string, taken: (slug: string) => boolean | Promise<boolean>): Promise<string> {
  if (!(await taken(base))) return base;
  for (let i = 2; ; i++) {
    const suffix = `-${i}`;
    const candidate = base.slice(0, MAX_SLUG - suffix.length) + suffix;
    if (!(await taken(candidate))) return candidate;
  }
}
