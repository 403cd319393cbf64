/**
 * Public approval pages at /approve/<token>: no login; the 256-bit token is
 * the credential. A reviewer sees what is proposed (rendered with the site's
 * branding, and for updates what changes against the live version), who
 * asked, when the link expires, and decides with Approve or Reject.
 *
 * Safety:
 * - strict CSP (no script at all; styles only through the per-response
 *   nonce; embeds rendered as links), nosniff, no framing, no caching;
 * - Referrer-Policy same-origin, so following a link in a preview never
 *   sends the token to another site;
 * - decisions are POSTs guarded twice against cross-site requests: a
 *   same-origin check (Origin / Sec-Fetch-Site) and a double-submit token
 *   (SameSite=Strict cookie scoped to this link's path, echoed in the form);
 * - unknown, malformed (wrong length, upper-case) and other tenants' tokens
 *   all get the same 404 page, which reveals nothing.
 * Decisions are one-way and idempotent: the verb re-reads the link in its
 * transaction, and a second click is told what already happened.
 */
import { Hono, type Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import type { Deps } from "../core/context";
import { AppError } from "../core/errors";
import { randomHex, safeEqual } from "../core/secrets";
import { TOKEN_RE } from "../domains/approvals/links";
import type { LinkRow } from "../domains/approvals/links";
import { approvalByToken, decideApproval, previewCss, renderApprovalPreview, toView, type ApprovalView } from "../domains/approvals/verbs";
import { decidedNotice, decisionForm, header, messagePage, notice, page, unknownPage } from "./pages";

const CSRF_COOKIE = "plinth_approve";
const MAX_FORM_BYTES = 16 * 1024;

function securityHeaders(c: Context, nonce: string) {
  c.header(
    "Content-Security-Policy",
    [
      "default-src 'none'",
      `style-src 'nonce-${nonce}'`,
      // Rendered blocks carry sanitised style attributes (colours, background images, column widths).
      "style-src-attr 'unsafe-inline'",
      "img-src 'self' https: http: data:",
      "media-src 'self' https: http:",
      "font-src 'self' https:",
      "form-action 'self'",
      "frame-ancestors 'none'",
      "base-uri 'none'",
    ].join("; "),
  );
  c.header("X-Content-Type-Options", "nosniff");
  c.header("X-Frame-Options", "DENY");
  c.header("Referrer-Policy", "same-origin");
  c.header("Cache-Control", "no-store");
  c.header("X-Robots-Tag", "noindex, nofollow");
}

function send(c: Context, nonce: string, body: string, status: 200 | 400 | 403 | 404 | 409 | 410 | 413 | 415 = 200) {
  securityHeaders(c, nonce);
  return c.html(body, status);
}

/** Origins this service answers on: the configured public URL, and the origin the request itself came to. */
function sameOrigin(c: Context, deps: Deps): boolean {
  const site = c.req.header("sec-fetch-site");
  if (site && site !== "same-origin" && site !== "none") return false;
  const origin = c.req.header("origin");
  if (!origin) return true;
  const own = new Set([new URL(deps.config.publicUrl).origin, new URL(c.req.url).origin]);
  const host = c.req.header("host");
  if (host) for (const scheme of ["http", "https"]) own.add(`${scheme}://${host}`);
  return own.has(origin);
}

function csrfFor(c: Context, deps: Deps, token: string): string {
  const existing = getCookie(c, CSRF_COOKIE);
  const value = existing && /^[0-9a-f]{32}$/.test(existing) ? existing : randomHex(16);
  setCookie(c, CSRF_COOKIE, value, {
    path: `/approve/${token}`,
    httpOnly: true,
    sameSite: "Strict",
    secure: deps.config.publicUrl.startsWith("https:"),
    maxAge: 60 * 60 * 24,
  });
  return value;
}

async function fullPage(deps: Deps, nonce: string, link: LinkRow, view: ApprovalView, top: string, form: string) {
  const preview = await renderApprovalPreview(deps, link);
  const title = view.title ?? "Approval request";
  return page({
    title: `Approve: ${title}`,
    nonce,
    css: await previewCss(deps, link.siteId),
    body: `${top}${header(view, title)}<section class="ap-card">${preview}</section>${form}`,
  });
}

async function readForm(c: Context): Promise<URLSearchParams | "too_large" | "bad_type"> {
  const type = c.req.header("content-type") ?? "";
  if (!/^application\/x-www-form-urlencoded\b/i.test(type) && !/^multipart\/form-data\b/i.test(type)) return "bad_type";
  const len = Number(c.req.header("content-length") ?? "0");
  if (len > MAX_FORM_BYTES) return "too_large";
  if (/^multipart/i.test(type)) {
    const body = await c.req.parseBody();
    const p = new URLSearchParams();
    for (const [k, v] of Object.entries(body)) if (typeof v === "string") p.set(k, v);
    return p;
  }
  const text = await c.req.text();
  if (text.length > MAX_FORM_BYTES) return "too_large";
  return new URLSearchParams(text);
}

export function approvalRoutes(deps: Deps) {
  const app = new Hono();

  app.get("/:token", async (c) => {
    const nonce = randomHex(16);
    const token = c.req.param("token");
    const link = TOKEN_RE.test(token) ? await approvalByToken(deps, token) : null;
    if (!link) return send(c, nonce, unknownPage(nonce), 404);
    const view = await toView(deps, link);
    if (view.status === "pending") {
      return send(c, nonce, await fullPage(deps, nonce, link, view, "", decisionForm(`/approve/${token}`, csrfFor(c, deps, token))));
    }
    const fresh = c.req.query("done") === view.status;
    const gone = view.status === "expired" || view.status === "superseded" || view.status === "withdrawn";
    if (gone) {
      const title = view.title ?? "Approval request";
      return send(c, nonce, page({ title, nonce, body: `${decidedNotice(view, false)}${header(view, title)}` }), 410);
    }
    return send(c, nonce, await fullPage(deps, nonce, link, view, decidedNotice(view, fresh), ""));
  });

  app.post("/:token", async (c) => {
    const nonce = randomHex(16);
    const token = c.req.param("token");
    const link = TOKEN_RE.test(token) ? await approvalByToken(deps, token) : null;
    if (!link) return send(c, nonce, unknownPage(nonce), 404);
    // A decided or dead link changes nothing whatever is posted: say what happened.
    const current = await toView(deps, link);
    if (current.status !== "pending") {
      if (current.status === "approved" || current.status === "rejected")
        return send(c, nonce, await fullPage(deps, nonce, link, current, decidedNotice(current, false), ""), 409);
      const title = current.title ?? "Approval request";
      return send(c, nonce, page({ title, nonce, body: `${decidedNotice(current, false)}${header(current, title)}` }), 410);
    }
    if (!sameOrigin(c, deps))
      return send(c, nonce, messagePage(nonce, "Request refused", "This decision was sent from another site. Open the approval link directly and decide there."), 403);
    const form = await readForm(c);
    if (form === "too_large") return send(c, nonce, messagePage(nonce, "Request too large", "The comment is too long."), 413);
    if (form === "bad_type") return send(c, nonce, messagePage(nonce, "Unsupported request", "Decide with the buttons on the approval page."), 415);
    const cookie = getCookie(c, CSRF_COOKIE) ?? "";
    const sent = form.get("csrf") ?? "";
    if (!cookie || !sent || !safeEqual(cookie, sent))
      return send(c, nonce, messagePage(nonce, "Please try again", "This form has expired or cookies are blocked. Reload the approval page and decide again."), 403);
    const decision = form.get("decision");
    if (decision !== "approve" && decision !== "reject")
      return send(c, nonce, messagePage(nonce, "Choose a decision", "Use the Approve or Reject button."), 400);
    const comment = (form.get("comment") ?? "").replace(/\u0000/g, "").trim();
    const name = (form.get("name") ?? "").replace(/[\u0000-\u001f\u007f]/g, "").trim().slice(0, 100);
    if (comment.length > 2000) return send(c, nonce, messagePage(nonce, "Comment too long", "Keep the comment under 2000 characters."), 400);
    let outcome;
    try {
      outcome = await decideApproval(deps, { token }, decision, {
              comment: comment || null,
              decidedBy: name ? `${name} (approval link)` : "a reviewer with the approval link",
            });
    } catch (e) {
      if (e instanceof AppError && e.code === "not_found") return send(c, nonce, unknownPage(nonce), 404);
      throw e;
    }
    if (outcome.ok) return c.redirect(`/approve/${token}?done=${outcome.approval.status}`, 303);
    const fresh = (await approvalByToken(deps, token))!;
    const view = await toView(deps, fresh);
    if (outcome.reason === "conflict") {
      const top = notice("bad", `${outcome.message} Nothing was changed. You can reject the request, or approve again once the problem is fixed.`);
      return send(c, nonce, await fullPage(deps, nonce, fresh, view, top, decisionForm(`/approve/${token}`, csrfFor(c, deps, token))), 409);
    }
    if (outcome.reason === "already_decided") return send(c, nonce, await fullPage(deps, nonce, fresh, view, decidedNotice(view, false), ""), 409);
    const title = view.title ?? "Approval request";
    return send(c, nonce, page({ title, nonce, body: `${decidedNotice(view, false)}${header(view, title)}` }), 410);
  });

  return app;
}
