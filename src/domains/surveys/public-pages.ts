/**
 * The public survey at /s/<slug>: an approved, open survey as a plain HTML
 * form that works without JavaScript (multi-page, skip logic decided on
 * the server), in the visitor's language.
 *
 * Protection on every POST, in this order: a bounded form body; the survey
 * must be open; same origin and the double-submit cookie (core
 * public-page kit); a token bucket per client address; the honeypot (a bot
 * that fills it is thanked and nothing is stored); the one-time form token,
 * which names the response, so a double submit stores one response.
 *
 * The first page is what nearly every visitor asks for, so it is rendered
 * once per (survey, version, language) and kept as text with holes for what
 * differs per response (CSP nonce, tokens, hidden fields, language links):
 * a hit does no database work while no table it depends on changed, and
 * costs string joins. `version` moves with every approval, close and
 * reopen, so a kept page is never stale, only unused.
 *
 * JavaScript, where it runs, only improves: it moves focus to the error
 * summary and stops a second click from sending the form twice (the server
 * would store one response anyway).
 */
import { Hono, type Context } from "hono";
import { eq } from "drizzle-orm";
import { BoundedMap } from "../../core/bounded-map";
import type { Deps } from "../../core/context";
import {
  clientAddress,
  csrfMatches,
  csrfToken,
  escapeHtml as esc,
  honeypotFilled,
  honeypotHtml,
  newNonce,
  publicPage,
  readForm,
  sameOrigin,
  securityHeaders,
} from "../../core/public-page";
import { rateLimiter } from "../../core/limits";
import { BUDGET, ENTRY_OVERHEAD, stringBytes } from "../../core/memory-budget";
import { randomHex, sha256Hex } from "../../core/secrets";
import { storedBranding } from "../branding/public-reads";
import { cleanText } from "./answers";
import { acceptance, type SurveyRow } from "./access";
import type { Definition } from "./definition";
import { translator } from "./definition";
import { brandVars, languageLinks, PAGE_CSS, renderEnding, renderFormPage, renderMessage, SURVEY_CSS } from "./render";
import { submitPage, type SubmitOutcome } from "./submit";
import { surveys } from "./tables";
import { ui } from "./ui-text";

const CSRF_COOKIE = "plinth_survey";
const MAX_FORM_BYTES = 256 * 1024;
/** Page submissions per minute per client address: a long survey needs one per page; a flood does not get through. */
export const SUBMITS_PER_MINUTE = 60;
const SLUG_RE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const TOKEN_RE = /^[0-9a-f]{32}$/;
const MAX_HIDDEN = 500;

const SCRIPT = `(function(){var f=document.querySelector("form.sv-form");if(!f)return;var s=document.getElementById("sv-errors");if(s)s.focus();f.addEventListener("submit",function(e){if(f.getAttribute("data-sent")){e.preventDefault();return}f.setAttribute("data-sent","1");var b=e.submitter;if(b&&b.name){var h=document.createElement("input");h.type="hidden";h.name=b.name;h.value=b.value;f.appendChild(h)}setTimeout(function(){f.querySelectorAll("button").forEach(function(x){x.disabled=true})},0)});window.addEventListener("pageshow",function(){f.removeAttribute("data-sent");f.querySelectorAll("button").forEach(function(x){x.disabled=false})})})();`;

/** Holes in a kept page, filled per response. Control characters cannot appear in any survey text, so these cannot collide. */
const HOLE = { nonce: "\u0001N\u0001", hidden: "\u0001H\u0001", langs: "\u0001L\u0001" } as const;
const HOLE_RE = /\u0001([NHL])\u0001/;

/** The headers of a survey page with a script nonce, as securityHeaders sets them (with a hole for the nonce). */
const PAGE_HEADERS: [string, string][] = (() => {
  const out: [string, string][] = [];
  securityHeaders({ header: (k: string, v: string) => out.push([k, v]) } as unknown as Context, HOLE.nonce, {
    script: true,
  });
  out.push(["X-Robots-Tag", "noindex, nofollow"]);
  return out;
})();

/** What a survey page takes from its site's brand profile. */
interface Brand {
  css: string;
  /** The site's faviconUrl (checked as an http(s) URL or a path when stored), or null for the service's icon. */
  icon: string | null;
}
const NO_BRAND: Brand = { css: "", icon: null };

interface KeptPage {
  /** Alternating text and hole names: [text, name, text, name, text…]. */
  parts: string[];
  /** The language links for a visit without hidden fields (the usual one). */
  links: string;
}

function pickLanguage(def: Definition, wanted: string | undefined, acceptLanguage: string | undefined): string {
  if (wanted && def.languages.includes(wanted)) return wanted;
  if (acceptLanguage) {
    const tags = acceptLanguage
      .split(",")
      .slice(0, 20)
      .map((part) => {
        const [tag, ...params] = part.trim().split(";");
        const q = Number(
          params
            .find((p) => p.trim().startsWith("q="))
            ?.trim()
            .slice(2) ?? "1",
        );
        return { tag: (tag ?? "").trim(), q: Number.isFinite(q) ? q : 0 };
      })
      .filter((x) => x.tag && x.q > 0)
      .sort((a, b) => b.q - a.q);
    for (const { tag } of tags) {
      const exact = def.languages.find((l) => l.toLowerCase() === tag.toLowerCase());
      if (exact) return exact;
      const primary = def.languages.find((l) => l.split("-")[0] === tag.split("-")[0]!.toLowerCase());
      if (primary) return primary;
    }
  }
  return def.languages[0]!;
}

export function surveyPublicRoutes(deps: Deps) {
  const app = new Hono();
  const limiter = rateLimiter(deps, "survey-submit", SUBMITS_PER_MINUTE);
  // Byte-bounded (BUDGET.surveyPages): a survey row carries its whole definition, a page its HTML.
  const bySlug = new BoundedMap<string, SurveyRow | null>({
    maxBytes: BUDGET.surveyPages / 2,
    sizeOf: (slug, row) => ENTRY_OVERHEAD + stringBytes(slug) + (row ? stringBytes(JSON.stringify(row)) : 0),
  });
  const keptPages = new BoundedMap<string, KeptPage>({
    maxBytes: (BUDGET.surveyPages * 3) / 8,
    sizeOf: (key, page) =>
      ENTRY_OVERHEAD + stringBytes(key) + stringBytes(page.links) + page.parts.reduce((n, p) => n + stringBytes(p), 0),
  });
  const brands = new BoundedMap<number, Brand>({
    maxBytes: BUDGET.surveyPages / 8,
    sizeOf: (_, b) => ENTRY_OVERHEAD + stringBytes(b.css) + stringBytes(b.icon ?? ""),
  });
  // One watch over what the kept rows and pages are built from: a survey row, a brand profile.
  const changed = deps.store.changes.watch(["surveys", "brand_profiles"]);

  /** The survey at this address, from memory while neither table changed (asked once per request). */
  function lookup(slug: string): SurveyRow | null | Promise<SurveyRow | null> {
    if (changed.changed()) {
      bySlug.clear();
      brands.clear();
      // Pages are keyed by version, so a changed survey never hits an old one; a brand change alters them in place.
      keptPages.clear();
    }
    const hit = bySlug.get(slug);
    if (hit !== undefined) return hit;
    return deps.db
      .select()
      .from(surveys)
      .where(eq(surveys.slug, slug))
      .limit(1)
      .then((rows) => {
        const row = rows[0] ?? null;
        bySlug.set(slug, row);
        return row;
      });
  }

  /** The site's colours and font as CSS, and its favicon (the tab shows the site's icon, not the service's). */
  async function brandOf(siteId: number | null): Promise<Brand> {
    if (siteId === null) return NO_BRAND;
    const hit = brands.get(siteId);
    if (hit !== undefined) return hit;
    const data = await storedBranding(deps.db, siteId);
    const brand = { css: brandVars(data), icon: typeof data?.faviconUrl === "string" ? data.faviconUrl : null };
    brands.set(siteId, brand);
    return brand;
  }

  function send(
    c: Context,
    nonce: string,
    html: string,
    status: 200 | 400 | 403 | 404 | 410 | 413 | 415 | 429 = 200,
    script = false,
  ) {
    securityHeaders(c, nonce, { script });
    c.header("X-Robots-Tag", "noindex, nofollow");
    return c.html(html, status);
  }

  function messagePage(
    c: Context,
    lang: string,
    titleKey: "closed" | "notFound" | "tooMany" | "expired",
    bodyKey: "closedBody" | "notFoundBody" | "tooManyBody" | "expiredBody",
    status: 400 | 403 | 404 | 410 | 413 | 415 | 429,
    params: Record<string, number> = {},
  ) {
    const nonce = newNonce();
    const title = ui(lang, titleKey);
    return send(
      c,
      nonce,
      publicPage({
        title,
        nonce,
        lang,
        css: SURVEY_CSS + PAGE_CSS,
        body: renderMessage(title, ui(lang, bodyKey, params)),
      }),
      status,
    );
  }

  function hiddenInputs(csrf: string, token: string, lang: string, hidden: Record<string, string>): string {
    let s = `<input type="hidden" name="csrf" value="${esc(csrf)}"><input type="hidden" name="token" value="${esc(token)}"><input type="hidden" name="lang" value="${esc(lang)}">`;
    for (const [k, v] of Object.entries(hidden)) s += `<input type="hidden" name="h.${esc(k)}" value="${esc(v)}">`;
    return s;
  }

  /** Hidden field values: only the survey's own names, as bounded single-line text. */
  function hiddenFrom(def: Definition, get: (name: string) => string | undefined): Record<string, string> {
    const out: Record<string, string> = {};
    for (const name of def.hiddenFields) {
      const v = get(name);
      if (v === undefined) continue;
      const t = cleanText(v, false).slice(0, MAX_HIDDEN);
      if (t !== "") out[name] = t;
    }
    return out;
  }

  function pageHtml(s: SurveyRow, lang: string, nonce: string, brand: Brand, body: string, title: string): string {
    return publicPage({
      title,
      nonce,
      lang,
      css: SURVEY_CSS + PAGE_CSS + brand.css,
      icon: brand.icon,
      body,
      script: SCRIPT,
    });
  }

  /** The kept first page (synchronous on a hit), or a promise of it rendered. */
  function firstPage(s: SurveyRow, lang: string): KeptPage | Promise<KeptPage> {
    return keptPages.get(`${s.id}:${s.version}:${lang}`) ?? renderFirstPage(s, lang);
  }

  async function renderFirstPage(s: SurveyRow, lang: string): Promise<KeptPage> {
    const key = `${s.id}:${s.version}:${lang}`;
    const brand = await brandOf(s.siteId);
    const def = s.definition;
    const t = translator(def, lang);
    const body = renderFormPage({
      def,
      lang,
      t,
      pageIndex: 0,
      values: new Map(),
      errors: {},
      hiddenInputs: HOLE.hidden,
      action: `/s/${s.slug}`,
      canGoBack: false,
      languageLinks: HOLE.langs,
      honeypot: honeypotHtml(),
    });
    const html = pageHtml(s, lang, HOLE.nonce, brand, body, t("title", def.title));
    const parts = html.split(HOLE_RE);
    const page = { parts, links: languageLinks(def, lang, (l) => `/s/${s.slug}?lang=${l}`) };
    keptPages.set(key, page);
    return page;
  }

  const secure = deps.config.publicUrl.startsWith("https:");
  const COOKIE_RE = new RegExp(`(?:^|;\\s*)${CSRF_COOKIE}=([0-9a-f]{32})(?:;|$)`);

  /**
   * The hot path: a first page from the kept text. It does what the public
   * page kit does (csrfToken, securityHeaders) by the kit's own rules, with
   * the cookie read by one regex and the headers from PAGE_HEADERS, because
   * this is the one page served at volume (a link in a newsletter).
   */
  app.get("/:slug", async (c) => {
    const slug = c.req.param("slug");
    const found = SLUG_RE.test(slug) ? lookup(slug) : null;
    const s = found instanceof Promise ? await found : found;
    if (!s || s.approvedAt === null) return messagePage(c, "en", "notFound", "notFoundBody", 404);
    const def = s.definition;
    // Most visits carry no query at all: parse it only when there is one.
    const url = c.req.url;
    const query = url.includes("?") ? new URL(url).searchParams : null;
    const lang = pickLanguage(def, query?.get("lang") ?? undefined, c.req.header("accept-language"));
    if (!acceptance(s, deps.clock.now()).accepting) return messagePage(c, lang, "closed", "closedBody", 410);
    const kept = firstPage(s, lang);
    const page = kept instanceof Promise ? await kept : kept;
    const nonce = newNonce();
    const hidden = query && def.hiddenFields.length ? hiddenFrom(def, (n) => query.get(n) ?? undefined) : {};
    const csrf = COOKIE_RE.exec(c.req.header("cookie") ?? "")?.[1] ?? randomHex(16);
    const fill: Record<string, string> = {
      N: nonce,
      H: hiddenInputs(csrf, randomHex(16), lang, hidden),
      L: Object.keys(hidden).length
        ? languageLinks(def, lang, (l) => `/s/${slug}?${new URLSearchParams({ ...hidden, lang: l })}`)
        : page.links,
    };
    let html = "";
    for (let i = 0; i < page.parts.length; i++) html += i % 2 === 0 ? page.parts[i] : fill[page.parts[i]!]!;
    const headers: Record<string, string> = { "Content-Type": "text/html; charset=UTF-8" };
    for (const [k, v] of PAGE_HEADERS) headers[k] = v.includes(HOLE.nonce) ? v.split(HOLE.nonce).join(nonce) : v;
    // As csrfToken sets it: SameSite=Strict, HttpOnly, a day, scoped to this survey's path.
    headers["Set-Cookie"] =
      `${CSRF_COOKIE}=${csrf}; Max-Age=86400; Path=/s/${slug}; HttpOnly;${secure ? " Secure;" : ""} SameSite=Strict`;
    return new Response(html, { status: 200, headers });
  });

  app.post("/:slug", async (c) => {
    const slug = c.req.param("slug");
    const form = await readForm(c, MAX_FORM_BYTES);
    const s = SLUG_RE.test(slug) ? await lookup(slug) : null;
    if (!s || s.approvedAt === null) return messagePage(c, "en", "notFound", "notFoundBody", 404);
    const def = s.definition;
    const formLang = form instanceof URLSearchParams ? (form.get("lang") ?? undefined) : undefined;
    const lang = pickLanguage(def, formLang, c.req.header("accept-language"));
    if (form === "too_large") return messagePage(c, lang, "expired", "expiredBody", 413);
    if (form === "bad_type") return messagePage(c, lang, "expired", "expiredBody", 415);
    if (!sameOrigin(c, deps) || !csrfMatches(c, CSRF_COOKIE, form))
      return messagePage(c, lang, "expired", "expiredBody", 403);
    const decision = await limiter.take(`addr:${clientAddress(c)}`);
    if (!decision.allowed) {
      c.header("Retry-After", String(decision.retryAfterSec));
      return messagePage(c, lang, "tooMany", "tooManyBody", 429, { n: decision.retryAfterSec });
    }
    const t = translator(def, lang);
    const brand = await brandOf(s.siteId);
    const nonce = newNonce();
    if (honeypotFilled(form)) {
      // Thank the bot as if it had succeeded, and store nothing: it learns nothing to adapt to.
      const ending = def.endings[0]!;
      return send(
        c,
        nonce,
        pageHtml(s, lang, nonce, brand, renderEnding(def, ending, t, lang), t(`${ending.id}.title`, ending.title)),
      );
    }
    const token = form.get("token") ?? "";
    if (!TOKEN_RE.test(token)) return messagePage(c, lang, "expired", "expiredBody", 400);
    const hidden = hiddenFrom(def, (n) => form.get(`h.${n}`) ?? undefined);
    const outcome: SubmitOutcome = await submitPage(deps, {
      surveyId: s.id,
      tokenHash: sha256Hex(`${s.id}:${token}`),
      pageId: (form.get("page") ?? "").slice(0, 100),
      nav: form.get("nav") === "back" ? "back" : "next",
      form,
      lang,
      hidden,
    });
    switch (outcome.kind) {
      case "gone":
        return messagePage(c, lang, "notFound", "notFoundBody", 404);
      case "closed":
        return messagePage(c, lang, "closed", "closedBody", 410);
      case "ending": {
        const ending = outcome.def.endings.find((e) => e.id === outcome.endingId) ?? outcome.def.endings[0]!;
        const tt = translator(outcome.def, lang);
        if (ending.redirectUrl && !outcome.already) return c.redirect(ending.redirectUrl, 303);
        return send(
          c,
          nonce,
          pageHtml(
            s,
            lang,
            nonce,
            brand,
            renderEnding(outcome.def, ending, tt, lang),
            tt(`${ending.id}.title`, ending.title),
          ),
        );
      }
      case "page": {
        const tt = translator(outcome.def, lang);
        const csrf = csrfToken(c, deps, CSRF_COOKIE, `/s/${slug}`);
        const body = renderFormPage({
          def: outcome.def,
          lang,
          t: tt,
          pageIndex: outcome.pageIndex,
          values: outcome.values,
          errors: outcome.errors,
          hiddenInputs: hiddenInputs(csrf, token, lang, hidden),
          action: `/s/${s.slug}`,
          canGoBack: outcome.canGoBack,
          honeypot: honeypotHtml(),
        });
        const status = Object.keys(outcome.errors).length ? 400 : 200;
        return send(c, nonce, pageHtml(s, lang, nonce, brand, body, tt("title", outcome.def.title)), status, true);
      }
    }
  });

  return app;
}
