/**
 * Public approval pages at /approve/<token>: no login to see them; the
 * 256-bit token is the credential for the preview. A reviewer sees what is
 * proposed (rendered with the site's branding, and for updates what changes
 * against the live version), who asked, when the link expires, and decides
 * with Approve or Reject.
 *
 * Holding the link does not make one a person, though: the agent that
 * asked holds it too. Who may decide follows the company's policy
 * (src/domains/approvals/reviewers.ts): under `person` a signed-in owner or
 * admin who is not the requester, or a listed reviewer who asks for a
 * one-time code (POST /approve/<token>/code) and enters it; under `link`
 * anyone with the link, recorded as a link holder, and the company's owners
 * and admins are notified.
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
import { and, eq, inArray } from "drizzle-orm";
import { Hono, type Context } from "hono";
import type { Deps } from "../core/context";
import { AppError } from "../core/errors";
import { csrfMatches, csrfToken, newNonce, readForm, sameOrigin, securityHeaders } from "../core/public-page";
import { companies, memberships } from "../core/tables";
import { TOKEN_RE } from "../domains/approvals/links";
import type { LinkRow } from "../domains/approvals/links";
import {
  CODE_DIGITS,
  CODE_SENDS_PER_HOUR,
  CODE_RE,
  memberMayDecide,
  normaliseAddress,
  redeemCode,
  requestCode,
  settingsOf,
  type ApprovalSettings,
  type Decider,
} from "../domains/approvals/reviewers";
import {
  approvalByToken,
  decideApproval,
  MEMBER_REFUSALS,
  previewCss,
  renderApprovalPreview,
  toView,
  type ApprovalView,
  type DecisionOutcome,
} from "../domains/approvals/verbs";
import { notify } from "../domains/notifications/notify";
import { readSession, type Session } from "../portal/session";
import { decidedNotice, decisionForm, header, messagePage, notice, page, unknownPage, waysToDecide } from "./pages";

const CSRF_COOKIE = "plinth_approve";
const MAX_FORM_BYTES = 16 * 1024;

function send(c: Context, nonce: string, body: string, status: 200 | 400 | 403 | 404 | 409 | 410 | 413 | 415 = 200) {
  securityHeaders(c, nonce);
  c.header("X-Robots-Tag", "noindex, nofollow");
  return c.html(body, status);
}

const csrfFor = (c: Context, deps: Deps, token: string) => csrfToken(c, deps, CSRF_COOKIE, `/approve/${token}`);

async function companyName(deps: Deps, id: number): Promise<string> {
  return (
    (await deps.db.select({ name: companies.name }).from(companies).where(eq(companies.id, id)).limit(1))[0]?.name ??
    "The company"
  );
}

/** Who the page knows is here: the company's policy, and the signed-in member's standing on this link. */
interface Standing {
  settings: ApprovalSettings;
  session: Session | null;
  member: Awaited<ReturnType<typeof memberMayDecide>> | null;
  company: string;
}

async function standing(c: Context, deps: Deps, link: LinkRow): Promise<Standing> {
  const settings = await settingsOf(deps.db, link.companyId);
  const session = await readSession(deps, c);
  const member = session ? await memberMayDecide(deps.db, link, session.user.id) : null;
  return { settings, session, member, company: await companyName(deps, link.companyId) };
}

/** The decision part of a pending link's page for what the page knows (a form, or the ways to decide). */
function decisionPart(c: Context, deps: Deps, token: string, st: Standing): string {
  const action = `/approve/${token}`;
  const csrf = csrfFor(c, deps, token);
  if (st.member?.ok && st.session)
    return decisionForm(action, csrf, {
      kind: "member",
      name: st.member.decider.name,
      email: st.session.user.email,
      role: st.member.role,
      company: st.company,
    });
  if (st.settings.policy === "link") return decisionForm(action, csrf, { kind: "link", company: st.company });
  return waysToDecide({
    action,
    csrf,
    loginUrl: `/login?next=${encodeURIComponent(action)}`,
    reviewers: st.settings.reviewers.length > 0,
    signedInAs:
      st.session && st.member && !st.member.ok
        ? { name: st.session.user.name ?? st.session.user.email, why: MEMBER_REFUSALS[st.member.reason] }
        : null,
  });
}

/**
 * Tells the company's owners and admins that a link holder decided: under
 * `link` nobody proved who they are, so the people responsible hear of it.
 */
async function notifyLinkDecision(deps: Deps, link: LinkRow, outcome: Extract<DecisionOutcome, { ok: true }>) {
  const managers = await deps.db
    .select({ userId: memberships.userId })
    .from(memberships)
    .where(and(eq(memberships.companyId, link.companyId), inArray(memberships.role, ["owner", "admin"])));
  if (managers.length === 0) return;
  const what = link.title ?? `${link.entityType.replace(/_/g, " ")}${link.entityId ? ` ${link.entityId}` : ""}`;
  await notify(deps, {
    companyId: link.companyId,
    userIds: managers.map((m) => m.userId),
    type: "approval.link_decided",
    title: `${outcome.approval.status === "approved" ? "Approved" : "Rejected"} by a link holder: ${what}`.slice(
      0,
      300,
    ),
    body:
      "Someone with the approval link decided this request without signing in or a reviewer code: " +
      "your company lets anyone with the link decide (Approvals settings).",
    link: `/approvals/${link.id}`,
    entity: { type: "approval", id: link.id },
    actorUserId: null,
  });
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

export function approvalRoutes(deps: Deps) {
  const app = new Hono();

  app.get("/:token", async (c) => {
    const nonce = newNonce();
    const token = c.req.param("token");
    const link = TOKEN_RE.test(token) ? await approvalByToken(deps, token) : null;
    if (!link) return send(c, nonce, unknownPage(nonce), 404);
    const view = await toView(deps, link);
    if (view.status === "pending") {
      const st = await standing(c, deps, link);
      return send(c, nonce, await fullPage(deps, nonce, link, view, "", decisionPart(c, deps, token, st)));
    }
    const fresh = c.req.query("done") === view.status;
    const gone = view.status === "expired" || view.status === "superseded" || view.status === "withdrawn";
    if (gone) {
      const title = view.title ?? "Approval request";
      return send(c, nonce, page({ title, nonce, body: `${decidedNotice(view, false)}${header(view, title)}` }), 410);
    }
    return send(c, nonce, await fullPage(deps, nonce, link, view, decidedNotice(view, fresh), ""));
  });

  /**
   * What every POST passes first: a live token, a pending link (anything
   * else is answered with its state and changes nothing), the same-origin
   * check, a bounded urlencoded form and the double-submit token.
   */
  async function guarded(c: Context, nonce: string, token: string) {
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
    return { link, view: current, form };
  }

  /** The pending page again with a notice on top and the given decision part (a code form, the ways to decide). */
  async function again(
    c: Context,
    nonce: string,
    g: { link: LinkRow; view: ApprovalView },
    top: string,
    part: string,
    status: 200 | 400 | 403,
  ) {
    return send(c, nonce, await fullPage(deps, nonce, g.link, g.view, top, part), status);
  }

  const codeForm = (c: Context, token: string, email: string) =>
    decisionForm(`/approve/${token}`, csrfFor(c, deps, token), { kind: "code", email });

  // A listed reviewer asks for a one-time code. The answer is the same whether
  // or not the address is listed (or its hourly sends are used up).
  app.post("/:token/code", async (c) => {
    const nonce = newNonce();
    const token = c.req.param("token");
    const g = await guarded(c, nonce, token);
    if (g instanceof Response) return g;
    const st = await standing(c, deps, g.link);
    const email = normaliseAddress(g.form.get("email") ?? "");
    if (!email)
      return again(
        c,
        nonce,
        g,
        notice("bad", "Enter your email address (the one the company lists as a reviewer)."),
        decisionPart(c, deps, token, st),
        400,
      );
    if (st.settings.policy === "person") await requestCode(deps, g.link, email);
    return again(
      c,
      nonce,
      g,
      notice(
        "info",
        `If ${email} is a reviewer for this request, a ${CODE_DIGITS}-digit code is on its way there. ` +
          `It works once, for 10 minutes; at most ${CODE_SENDS_PER_HOUR} codes an hour are sent for an address, and only the newest works.`,
      ),
      codeForm(c, token, email),
      200,
    );
  });

  app.post("/:token", async (c) => {
    const nonce = newNonce();
    const token = c.req.param("token");
    const g = await guarded(c, nonce, token);
    if (g instanceof Response) return g;
    const { form } = g;
    const decision = form.get("decision");
    if (decision !== "approve" && decision !== "reject")
      return send(c, nonce, messagePage(nonce, "Choose a decision", "Use the Approve or Reject button."), 400);
    const comment = (form.get("comment") ?? "").replace(/\u0000/g, "").trim();
    if (comment.length > 2000)
      return send(c, nonce, messagePage(nonce, "Comment too long", "Keep the comment under 2000 characters."), 400);

    // Who decides: a reviewer with a code (when the form carries one), a
    // signed-in member who may, or under `link` whoever holds the link.
    const st = await standing(c, deps, g.link);
    let decider: Decider;
    const rawEmail = form.get("email");
    const rawCode = form.get("code");
    if (st.settings.policy === "person" && (rawEmail !== null || rawCode !== null)) {
      const email = normaliseAddress(rawEmail ?? "");
      if (!email)
        return again(
          c,
          nonce,
          g,
          notice("bad", "Enter your email address, then ask for a code."),
          decisionPart(c, deps, token, st),
          400,
        );
      const code = (rawCode ?? "").trim();
      if (!CODE_RE.test(code))
        return again(
          c,
          nonce,
          g,
          notice("bad", `Enter the ${CODE_DIGITS}-digit code from the email.`),
          codeForm(c, token, email),
          400,
        );
      const r = await redeemCode(deps, g.link, email, code);
      if (!r.ok && r.reason === "wrong" && r.triesLeft > 0)
        return again(
          c,
          nonce,
          g,
          notice(
            "bad",
            `That code is not right. Nothing was decided. ${r.triesLeft} ${r.triesLeft === 1 ? "try" : "tries"} left for this code.`,
          ),
          codeForm(c, token, email),
          403,
        );
      if (!r.ok)
        return again(
          c,
          nonce,
          g,
          notice(
            "bad",
            "That code no longer works: it expired, was used, was replaced by a newer one, had too many wrong tries, or is not for this request. Nothing was decided. Ask for a new code.",
          ),
          decisionPart(c, deps, token, st),
          403,
        );
      decider = r.decider;
    } else if (st.member?.ok) decider = st.member.decider;
    else if (st.settings.policy === "link") decider = { via: "link" };
    else
      return again(
        c,
        nonce,
        g,
        notice(
          "bad",
          st.member
            ? `${MEMBER_REFUSALS[st.member.reason]} Nothing was decided.`
            : "Holding this link is not enough to decide: sign in, or get a code by email if the company lists you as a reviewer. Nothing was decided.",
        ),
        decisionPart(c, deps, token, st),
        403,
      );

    let outcome;
    try {
      outcome = await decideApproval(deps, { token }, decision, { comment: comment || null, decider });
    } catch (e) {
      if (e instanceof AppError && e.code === "not_found") return send(c, nonce, unknownPage(nonce), 404);
      if (e instanceof AppError && e.code === "forbidden")
        return again(c, nonce, g, notice("bad", e.message), decisionPart(c, deps, token, st), 403);
      throw e;
    }
    if (outcome.ok) {
      if (decider.via === "link") await notifyLinkDecision(deps, g.link, outcome);
      return c.redirect(`/approve/${token}?done=${outcome.approval.status}`, 303);
    }
    const fresh = (await approvalByToken(deps, token))!;
    const view = await toView(deps, fresh);
    if (outcome.reason === "conflict") {
      const top = notice(
        "bad",
        `${outcome.message} Nothing was changed. You can reject the request, or approve again once the problem is fixed.`,
      );
      return send(c, nonce, await fullPage(deps, nonce, fresh, view, top, decisionPart(c, deps, token, st)), 409);
    }
    if (outcome.reason === "already_decided")
      return send(c, nonce, await fullPage(deps, nonce, fresh, view, decidedNotice(view, false), ""), 409);
    const title = view.title ?? "Approval request";
    return send(c, nonce, page({ title, nonce, body: `${decidedNotice(view, false)}${header(view, title)}` }), 410);
  });

  return app;
}
