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
import type { Deps } from "../core/context";
import { AppError } from "../core/errors";
import { csrfMatches, csrfToken, newNonce, readForm, sameOrigin, securityHeaders } from "../core/public-page";
import { TOKEN_RE } from "../domains/approvals/links";
import type { LinkRow } from "../domains/approvals/links";
import {
  approvalByToken,
  decideApproval,
  previewCss,
  renderApprovalPreview,
  toView,
  type ApprovalView,
} from "../domains/approvals/verbs";
import { decidedNotice, decisionForm, header, messagePage, notice, page, unknownPage } from "./pages";

const CSRF_COOKIE = "plinth_approve";
const MAX_FORM_BYTES = 16 * 1024;

function send(c: Context, nonce: string, body: string, status: 200 | 400 | 403 | 404 | 409 | 410 | 413 | 415 = 200) {
  securityHeaders(c, nonce);
  c.header("X-Robots-Tag", "noindex, nofollow");
  return c.html(body, status);
}

const csrfFor = (c: Context, deps: Deps, token: string) => csrfToken(c, deps, CSRF_COOKIE, `/approve/${token}`);

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

export function approvalRoutes(deps: Deps) {
  const app = new Hono();

  app.get("/:token", async (c) => {
    const nonce = newNonce();
    const token = c.req.param("token");
    const link = TOKEN_RE.test(token) ? await approvalByToken(deps, token) : null;
    if (!link) return send(c, nonce, unknownPage(nonce), 404);
    const view = await toView(deps, link);
    if (view.status === "pending") {
      return send(
        c,
        nonce,
        await fullPage(deps, nonce, link, view, "", decisionForm(`/approve/${token}`, csrfFor(c, deps, token))),
      );
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
    const nonce = newNonce();
    const token = c.req.param("token");
    const link = TOKEN_RE.test(token) ? await approvalByToken(deps, token) : null;
    if (!link) return send(c, nonce, unknownPage(nonce), 404);
    // A decided or dead link changes nothing whatever is posted: say what happened.
    const current = await toView(deps, link);
    if (current.status !== "pending") {
      if (current.status === "approved" || current.status === "rejected")
        return send(c, nonce, await fullPage(deps, nonce, link, current, decidedNotice(current, false), ""), 409);
      const title = current.title ?? "Approval request";
      return send(
        c,
        nonce,
        page({ title, nonce, body: `${decidedNotice(current, false)}${header(current, title)}` }),
        410,
      );
    }
    if (!sameOrigin(c, deps))
      return send(
        c,
        nonce,
        messagePage(
          nonce,
          "Request refused",
          "This decision was sent from another site. Open the approval link directly and decide there.",
        ),
        403,
      );
    const form = await readForm(c, MAX_FORM_BYTES);
    if (form === "too_large")
      return send(c, nonce, messagePage(nonce, "Request too large", "The comment is too long."), 413);
    if (form === "bad_type")
      return send(
        c,
        nonce,
        messagePage(nonce, "Unsupported request", "Decide with the buttons on the approval page."),
        415,
      );
    if (!csrfMatches(c, CSRF_COOKIE, form))
      return send(
        c,
        nonce,
        messagePage(
          nonce,
          "Please try again",
          "This form has expired or cookies are blocked. Reload the approval page and decide again.",
        ),
        403,
      );
    const decision = form.get("decision");
    if (decision !== "approve" && decision !== "reject")
      return send(c, nonce, messagePage(nonce, "Choose a decision", "Use the Approve or Reject button."), 400);
    const comment = (form.get("comment") ?? "").replace(/\u0000/g, "").trim();
    const name = (form.get("name") ?? "")
      .replace(/[\u0000-\u001f\u007f]/g, "")
      .trim()
      .slice(0, 100);
    if (comment.length > 2000)
      return send(c, nonce, messagePage(nonce, "Comment too long", "Keep the comment under 2000 characters."), 400);
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
      const top = notice(
        "bad",
        `${outcome.message} Nothing was changed. You can reject the request, or approve again once the problem is fixed.`,
      );
      return send(
        c,
        nonce,
        await fullPage(deps, nonce, fresh, view, top, decisionForm(`/approve/${token}`, csrfFor(c, deps, token))),
        409,
      );
    }
    if (outcome.reason === "already_decided")
      return send(c, nonce, await fullPage(deps, nonce, fresh, view, decidedNotice(view, false), ""), 409);
    const title = view.title ?? "Approval request";
    return send(c, nonce, page({ title, nonce, body: `${decidedNotice(view, false)}${header(view, title)}` }), 410);
  });

  return app;
}
