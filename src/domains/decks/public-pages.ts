/**
 * The public deck at /d/<slug>: the approved version as a presentation, and
 * /d/<slug>.pdf, its PDF. No login; only published decks exist here (a
 * draft, a pending, an archived or an unknown slug all get the same 404).
 *
 * Without JavaScript the page is every slide stacked, a scrollable page
 * (#3 scrolls to slide 3). With it, a small script (carrying the
 * response's CSP nonce; no other script may run) shows one slide at a
 * time: arrow keys, Page Up/Down, Space, Home and End, the slide number in
 * the URL hash (replaceState, so Back leaves the deck instead of stepping
 * through it), and previous/next buttons.
 *
 * Served from memory: the rendered page is cached per version (versions
 * never change), split where the nonce goes, so a hit is a map lookup and a
 * string join; which version a slug serves is cached until the decks table
 * changes on any instance (src/core/changes.ts), so a hit touches no
 * database. PDFs are cached per version the same way and rate limited per
 * address when they must be rendered.
 */
import { and, eq } from "drizzle-orm";
import { Hono, type Context } from "hono";
import { BoundedMap } from "../../core/bounded-map";
import type { Deps } from "../../core/context";
import { rateLimiter } from "../../core/limits";
import type { MaybePromise } from "../../core/maybe";
import { BUDGET, ENTRY_OVERHEAD, partsBytes, stringBytes } from "../../core/memory-budget";
import { clientAddress, escapeHtml, newNonce, publicPage, securityHeaders } from "../../core/public-page";
import { randomHex } from "../../core/secrets";
import { isSlug } from "../../core/slug";
import type { PublicPages } from "../../mcp/define";
import { versionRenderSlides } from "./access";
import { DECK_CSS, renderDeck } from "./render";
import { decks, deckVersions, type VersionRow } from "./tables";

const PAGE_CSS = `html,body{margin:0}
body{background:#e9ebef;color:#1c2330;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{padding:24px 16px 40px}
.dk-nav{display:none}
.dk-footer{text-align:center;font-size:.9rem;color:#4b5563;padding:0 1rem 2rem}
.dk-footer a{color:inherit}
.dk-js body{background:#0d0f12;overflow:hidden}
.dk-js main{padding:0;height:100vh;display:flex;align-items:center;justify-content:center}
.dk-js .dk-deck{gap:0;width:100%}
.dk-js .dk-slide{width:min(100vw,calc(100vh * 16 / 9));max-width:none;border-radius:0;box-shadow:none}
.dk-js .dk-slide[hidden]{display:none}
.dk-js .dk-footer{display:none}
.dk-js .dk-nav{display:flex;position:fixed;bottom:12px;left:50%;transform:translateX(-50%);gap:.5rem;align-items:center;background:rgba(0,0,0,.6);color:#fff;padding:.3rem .7rem;border-radius:999px;font-size:.9rem}
.dk-nav a{color:#fff;text-decoration:none;padding:.1rem .5rem;border-radius:999px}
.dk-nav a:focus-visible{outline:2px solid #fff}
@media print{body{background:#fff}.dk-nav,.dk-footer{display:none}main{padding:0}.dk-deck{gap:0}.dk-slide{box-shadow:none;border-radius:0;break-after:page}.dk-js .dk-slide[hidden]{display:flex}}
`;

/** One slide at a time, keyboard and buttons, slide number in the hash. Works on any page holding .dk-slide sections. */
export const NAV_SCRIPT = `(function(){var d=document,r=d.documentElement,s=[].slice.call(d.querySelectorAll(".dk-slide")),n=s.length,c=1,k=d.getElementById("dk-count"),p=d.getElementById("dk-prev"),x=d.getElementById("dk-next");if(!n||!k)return;r.classList.add("dk-js");
function h(){var m=/^#(\\d+)$/.exec(location.hash);return m?+m[1]:1}
function go(i){i=Math.max(1,Math.min(n,i|0));c=i;for(var j=0;j<n;j++)s[j].hidden=j!==i-1;k.textContent=i+" / "+n;p.href="#"+Math.max(1,i-1);x.href="#"+Math.min(n,i+1);if(location.hash!=="#"+i)history.replaceState(null,"","#"+i)}
d.addEventListener("keydown",function(e){if(e.altKey||e.ctrlKey||e.metaKey)return;var t=e.key,to=null;if(t==="ArrowRight"||t==="ArrowDown"||t==="PageDown")to=c+1;else if(t===" ")to=e.shiftKey?c-1:c+1;else if(t==="ArrowLeft"||t==="ArrowUp"||t==="PageUp")to=c-1;else if(t==="Home")to=1;else if(t==="End")to=n;if(to!==null){e.preventDefault();go(to)}});
p.addEventListener("click",function(e){e.preventDefault();go(c-1)});x.addEventListener("click",function(e){e.preventDefault();go(c+1)});
addEventListener("hashchange",function(){go(h())});go(h())})();`;

/** Stands for the nonce in cached pages: random per process, so no slide text can contain it. */
const NONCE_MARK = `n${randomHex(16)}`;

/** The page of a version, split where each response's nonce goes. */
export function deckPageParts(version: Pick<VersionRow, "title" | "slides" | "theme">, slug: string): string[] {
  const n = version.slides.length;
  const body = `<main>${renderDeck(versionRenderSlides(version.slides), version.theme, { anchors: true })}</main>
<nav class="dk-nav" aria-label="Slides"><a id="dk-prev" href="#1" aria-label="Previous slide">&#8592;</a><span id="dk-count" aria-live="polite">1 / ${n}</span><a id="dk-next" href="#${Math.min(2, n)}" aria-label="Next slide">&#8594;</a><a href="/d/${escapeHtml(slug)}.pdf">PDF</a></nav>
<footer class="dk-footer"><p>${n} slide${n === 1 ? "" : "s"} · <a href="/d/${escapeHtml(slug)}.pdf">Download as PDF</a></p></footer>`;
  return publicPage({
    title: version.title,
    nonce: NONCE_MARK,
    body,
    css: DECK_CSS + PAGE_CSS,
    script: NAV_SCRIPT,
  }).split(NONCE_MARK);
}

interface Live {
  versionId: number;
}

/** Of the deck pages' budget, what slugs (any a visitor types, found or not) may hold. */
const SLUG_BYTES = BUDGET.deckPages / 8;

const UTF8 = new TextEncoder();

/**
 * The deck page's headers: exactly what securityHeaders sets for a page
 * with a nonce script (recorded once, with the nonce marked), plus no
 * indexing. Built per response from plain objects, as Hono's header calls
 * cost more than the rest of a cache hit.
 */
const { PAGE_HEADERS, PAGE_CSP } = (() => {
  const h: Record<string, string> = {};
  securityHeaders({ header: (k: string, v: string) => void (h[k] = v) } as unknown as Context, NONCE_MARK, {
    script: true,
    formAction: "none",
  });
  const csp = h["Content-Security-Policy"]!.split(NONCE_MARK);
  delete h["Content-Security-Policy"];
  // Pitch decks travel by link to a client; they are not for search engines.
  return {
    PAGE_HEADERS: { ...h, "X-Robots-Tag": "noindex, nofollow", "Content-Type": "text/html; charset=UTF-8" },
    PAGE_CSP: csp,
  };
})();

/** parts[0] + sep + parts[1] + sep + …, as one buffer: the cached page with this response's nonce. */
function joinBytes(parts: Uint8Array[], sep: Uint8Array): Uint8Array<ArrayBuffer> {
  let n = sep.length * (parts.length - 1);
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let at = 0;
  parts.forEach((p, i) => {
    if (i) {
      out.set(sep, at);
      at += sep.length;
    }
    out.set(p, at);
    at += p.length;
  });
  return out;
}

function notFoundPage(c: Context) {
  const nonce = newNonce();
  securityHeaders(c, nonce, { formAction: "none" });
  c.header("X-Robots-Tag", "noindex, nofollow");
  return c.html(
    publicPage({
      title: "Deck not found",
      nonce,
      css: "body{font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;color:#1c2330}",
      body: "<main><h1>This deck is not available</h1><p>The link may be mistyped, or the deck is no longer published. Ask whoever sent it for a fresh link.</p></main>",
    }),
    404,
  );
}

export function deckRoutes(deps: Deps) {
  const app = new Hono();
  const watch = deps.store.changes.watch(["decks"]);
  const bySlug = new BoundedMap<string, Live | null>({
    maxBytes: SLUG_BYTES,
    sizeOf: (slug) => ENTRY_OVERHEAD + stringBytes(slug),
  });
  const pages = new BoundedMap<number, Uint8Array[]>({
    maxBytes: BUDGET.deckPages - SLUG_BYTES,
    sizeOf: (_, parts) => partsBytes(parts),
  });
  const pdfs = new BoundedMap<number, Uint8Array>({
    maxBytes: BUDGET.deckPdfs,
    sizeOf: (_, bytes) => ENTRY_OVERHEAD + bytes.byteLength,
  });
  const pdfLimit = rateLimiter(deps, "deck-pdf", 30);

  /** The live version a slug serves, from memory until the decks table changes. */
  function live(slug: string): MaybePromise<Live | null> {
    if (watch.changed()) bySlug.clear();
    const hit = bySlug.get(slug);
    if (hit !== undefined) return hit;
    return (async () => {
      const row = (
        await deps.db
          .select({ versionId: decks.publishedVersionId })
          .from(decks)
          .where(and(eq(decks.slug, slug), eq(decks.status, "published")))
          .limit(1)
      )[0];
      const found = row?.versionId ? { versionId: row.versionId } : null;
      bySlug.set(slug, found);
      return found;
    })();
  }

  async function version(id: number) {
    return (await deps.db.select().from(deckVersions).where(eq(deckVersions.id, id)).limit(1))[0] ?? null;
  }

  async function page(c: Context, slug: string, l: Live) {
    let parts = pages.get(l.versionId);
    if (!parts) {
      const v = await version(l.versionId);
      if (!v) return notFoundPage(c);
      parts = deckPageParts(v, slug).map((p) => UTF8.encode(p));
      pages.set(l.versionId, parts);
    }
    const nonce = newNonce();
    return new Response(joinBytes(parts, UTF8.encode(nonce)), {
      headers: { ...PAGE_HEADERS, "Content-Security-Policy": PAGE_CSP.join(nonce) },
    });
  }

  async function pdf(c: Context, slug: string, l: Live) {
    const etag = `"dkv${l.versionId}"`;
    const headers = {
      "Cache-Control": "no-cache",
      ETag: etag,
      "X-Content-Type-Options": "nosniff",
      "X-Robots-Tag": "noindex, nofollow",
    };
    if (c.req.header("if-none-match") === etag) return new Response(null, { status: 304, headers });
    let bytes = pdfs.get(l.versionId);
    if (!bytes) {
      const d = await pdfLimit.take(`pdf:${clientAddress(c)}`);
      if (!d.allowed)
        return new Response("Too many PDF downloads; try again shortly.", {
          status: 429,
          headers: { "Retry-After": String(d.retryAfterSec), "Content-Type": "text/plain; charset=utf-8" },
        });
      const v = await version(l.versionId);
      if (!v) return notFoundPage(c);
      const { deckPdf } = await import("./pdf"); // pdf-lib loads on the first download
      bytes = await deckPdf(deps, { title: v.title, slides: versionRenderSlides(v.slides), theme: v.theme });
      pdfs.set(l.versionId, bytes);
    }
    return new Response(bytes as Uint8Array<ArrayBuffer>, {
      headers: {
        ...headers,
        "Content-Type": "application/pdf",
        "Content-Disposition": `inline; filename="${slug}.pdf"`,
        "Content-Length": String(bytes.length),
      },
    });
  }

  app.get("/:name", async (c) => {
    const name = c.req.param("name");
    const asPdf = name.endsWith(".pdf");
    const slug = asPdf ? name.slice(0, -4) : name;
    if (!isSlug(slug)) return notFoundPage(c);
    const l = await live(slug);
    if (!l) return notFoundPage(c);
    return asPdf ? await pdf(c, slug, l) : await page(c, slug, l);
  });
  return app;
}

export const deckPublicPages: PublicPages = { prefix: "/d", routes: deckRoutes };
