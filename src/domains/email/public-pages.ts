/**
 * Pages under /e that recipients use without signing in:
 *
 *  - /e/u/<token>        unsubscribe: GET shows a page with a button (never
 *                        unsubscribes by itself: mail scanners fetch every
 *                        link); POST from that page (same origin + CSRF), or
 *                        the RFC 8058 one-click POST mail clients send
 *                        (`List-Unsubscribe=One-Click`, no cookies, from
 *                        their own servers — the unguessable token is the
 *                        authority), unsubscribes;
 *  - /e/confirm/<token>  double opt-in: GET shows a button, POST confirms;
 *  - /e/s/<key>          a list's public signup form (signup.ts): GET shows
 *                        it, POST (from that page or the same form embedded
 *                        on any site) mails a confirmation; the answer is
 *                        the same whatever the address's state;
 *  - /e/o/<token>        open pixel, /e/c/<token>/<n> tracked click — both
 *                        record only for campaigns with tracking enabled,
 *                        and a click redirects only to the n-th link of
 *                        that very message (never an open redirect);
 *  - /e/feedback/<secret> bounce and complaint reports (feedback.ts), POSTed
 *                        by an MTA or a relay; JSON answers.
 *
 * Every value shown is escaped; posts are rate limited per client address.
 */
import { and, eq, isNull, sql } from "drizzle-orm";
import { Hono, type Context } from "hono";
import type { Deps } from "../../core/context";
import { rateLimiter } from "../../core/limits";
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
import type { PublicPages } from "../../mcp/define";
import { isAppError } from "../../core/errors";
import { signupByForm, signupList } from "./signup";
import { confirmationFor, confirmByToken, unsubscribeByToken, unsubscribeTarget } from "./subscribers";
import {
  applyReports,
  companyForSecret,
  MAX_REPORT_BYTES,
  parseJsonReport,
  parseRawReport,
  ReportError,
} from "./feedback";
import { linkAt, renderCampaignMessage } from "./render";
import { emailCampaigns, emailSends, emailSubscribers } from "./tables";

const CSRF_COOKIE = "plinth_email";
const TOKEN = /^[0-9a-f]{48}$/;
export const POSTS_PER_MINUTE = 30;
/** Relays post in bursts after a big campaign; a bad secret costs a slot too. */
export const FEEDBACK_PER_MINUTE = 600;

/** The approval pages' look (src/approvals/pages.ts): one card, their type and button, a focus ring; a margin on a phone. */
const CSS = `:root{color-scheme:light}
body{font:16px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1c2330;background:#f4f5f7;margin:0}
main{max-width:32rem;margin:10vh auto 2rem;background:#fff;border:1px solid #dde1e7;border-radius:10px;padding:1.75rem 2rem}
@media (max-width:36rem){main{margin:1rem;padding:1.25rem}}
h1{font-size:1.4rem;line-height:1.25;margin:0 0 1rem}p{overflow-wrap:anywhere}
button{font:inherit;font-weight:600;padding:.6rem 1.4rem;border-radius:8px;border:1px solid transparent;background:#1c2330;color:#fff;cursor:pointer}
button:hover{background:#323d52}
button:focus-visible,input:focus-visible,a:focus-visible{outline:3px solid #93b4f5;outline-offset:2px}
label{display:flex;gap:.5rem;align-items:flex-start;margin:1rem 0}label input{margin:.3rem 0 0;flex:none}
.muted{color:#5b6576;font-size:.9rem}
label.field{display:block}label.field input{display:block;box-sizing:border-box;width:100%;margin:.35rem 0 0;font:inherit;padding:.55rem .7rem;border:1px solid #c5ccd6;border-radius:8px}
.error{color:#b91c1c}`;

function page(c: Context, status: number, title: string, body: string) {
  const nonce = newNonce();
  securityHeaders(c, nonce);
  c.header("X-Robots-Tag", "noindex, nofollow");
  return c.html(publicPage({ title, nonce, css: CSS, body: `<main>${body}</main>` }), status as 200);
}

const message = (c: Context, status: number, title: string, text: string) =>
  page(c, status, title, `<h1>${esc(title)}</h1><p>${esc(text)}</p>`);
const gone = (c: Context) =>
  message(
    c,
    404,
    "Link not recognised",
    "This link is not valid (it may be incomplete, or from a test or preview message). Nothing was changed.",
  );

const PIXEL = Uint8Array.from(atob("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7"), (ch) =>
  ch.charCodeAt(0),
);

export function emailPublicRoutes(deps: Deps): Hono {
  const app = new Hono();
  const limiter = rateLimiter(deps, "email-public", POSTS_PER_MINUTE);

  async function limited(c: Context): Promise<Response | null> {
    const d = await limiter.take(`addr:${clientAddress(c)}`);
    if (d.allowed) return null;
    c.header("Retry-After", String(d.retryAfterSec));
    return message(c, 429, "Too many requests", `Please try again in ${d.retryAfterSec} seconds.`);
  }

  app.get("/u/:token", async (c) => {
    const token = c.req.param("token");
    if (!TOKEN.test(token)) return gone(c);
    const t = await unsubscribeTarget(deps, token);
    if (!t) return gone(c);
    const csrf = csrfToken(c, deps, CSRF_COOKIE, "/e/");
    const active = t.campaignLists.filter((m) => m.status === "subscribed" || m.status === "unconfirmed");
    const others = t.allLists.filter(
      (m) => !t.campaignLists.includes(m) && (m.status === "subscribed" || m.status === "unconfirmed"),
    );
    if (active.length === 0 && others.length === 0)
      return message(c, 200, "You are unsubscribed", `${t.subscriber.email} receives no more mail from these lists.`);
    const names = (active.length ? active : others).map((m) => `“${esc(m.listName)}”`).join(", ");
    return page(
      c,
      200,
      "Unsubscribe",
      `<h1>Unsubscribe</h1><p>Stop sending ${names} to <strong>${esc(t.subscriber.email)}</strong>?</p>
<form method="post" action="/e/u/${token}"><input type="hidden" name="csrf" value="${esc(csrf)}">${honeypotHtml()}
${others.length && active.length ? `<label><input type="checkbox" name="all" value="1"> Also unsubscribe from every other list (${others.map((m) => esc(m.listName)).join(", ")})</label>` : ""}
${!active.length ? `<input type="hidden" name="all" value="1">` : ""}
<button type="submit">Unsubscribe</button></form><p class="muted">You can close this page if you clicked by mistake.</p>`,
    );
  });

  app.post("/u/:token", async (c) => {
    const token = c.req.param("token");
    const form = await readForm(c, 16 * 1024);
    if (form === "too_large") return message(c, 413, "Too large", "The request was too large.");
    if (form === "bad_type") return message(c, 415, "Unsupported", "Send the form from the unsubscribe page.");
    const oneClick = form.get("List-Unsubscribe") === "One-Click";
    if (!oneClick && (!sameOrigin(c, deps) || !csrfMatches(c, CSRF_COOKIE, form)))
      return message(c, 403, "Page expired", "Open the unsubscribe link from your email again and press the button.");
    const over = await limited(c);
    if (over) return over;
    if (!TOKEN.test(token)) return gone(c);
    if (!oneClick && honeypotFilled(form))
      return message(c, 200, "You are unsubscribed", "You will receive no more mail from these lists.");
    const r = await unsubscribeByToken(
      deps,
      token,
      form.get("all") === "1",
      oneClick ? "one_click" : "unsubscribe_page",
    );
    if (!r) return gone(c);
    if (oneClick) return c.text("Unsubscribed.", 200);
    return message(
      c,
      200,
      "You are unsubscribed",
      `${r.email} receives no more mail from ${r.lists.map((l) => `“${l}”`).join(", ") || "these lists"}.`,
    );
  });

  app.get("/confirm/:token", async (c) => {
    const token = c.req.param("token");
    if (!TOKEN.test(token)) return gone(c);
    const hit = await confirmationFor(deps, token);
    if (!hit) return message(c, 404, "Link not recognised", "This confirmation link is not valid or was already used.");
    if (hit.m.status !== "unconfirmed")
      return message(c, 200, "Subscription confirmed", `${hit.email} is on “${hit.listName}”.`);
    const csrf = csrfToken(c, deps, CSRF_COOKIE, "/e/");
    return page(
      c,
      200,
      "Confirm your subscription",
      `<h1>Confirm your subscription</h1><p>Add <strong>${esc(hit.email)}</strong> to “${esc(hit.listName)}”?</p>
<form method="post" action="/e/confirm/${token}"><input type="hidden" name="csrf" value="${esc(csrf)}">${honeypotHtml()}<button type="submit">Yes, subscribe me</button></form>`,
    );
  });

  app.post("/confirm/:token", async (c) => {
    const token = c.req.param("token");
    const form = await readForm(c, 16 * 1024);
    if (form === "too_large" || form === "bad_type")
      return message(c, 400, "Bad request", "Send the form from the confirmation page.");
    if (!sameOrigin(c, deps) || !csrfMatches(c, CSRF_COOKIE, form))
      return message(c, 403, "Page expired", "Open the link from your email again and press the button.");
    const over = await limited(c);
    if (over) return over;
    if (!TOKEN.test(token)) return gone(c);
    if (honeypotFilled(form)) return message(c, 200, "Subscription confirmed", "Thank you.");
    const r = await confirmByToken(deps, token);
    if (!r) return message(c, 404, "Link not recognised", "This confirmation link is not valid or was already used.");
    return message(c, 200, "Subscription confirmed", `${r.email} is on “${r.listName}”. Thank you!`);
  });

  // A list's public signup form. No CSRF cookie: the same form embedded on the client's own site posts here
  // from another origin, and double opt-in is what protects the address (signup.ts).
  const signupForm = (key: string, listName: string, description: string | null, company: string, err?: string) =>
    `<h1>Subscribe to ${esc(listName)}</h1><p class="muted">From ${esc(company)}</p>${description ? `<p>${esc(description)}</p>` : ""}
${err ? `<p class="error" role="alert">${esc(err)}</p>` : ""}<form method="post" action="/e/s/${key}">${honeypotHtml()}
<label class="field">Email address<input type="email" name="email" required maxlength="254" autocomplete="email"></label>
<label class="field">Name (optional)<input type="text" name="name" maxlength="200" autocomplete="name"></label>
<button type="submit">Subscribe</button></form><p class="muted">We will email you a link to confirm. You can unsubscribe from any message.</p>`;

  app.get("/s/:key", async (c) => {
    const hit = await signupList(deps, c.req.param("key"));
    if (!hit) return gone(c);
    return page(
      c,
      200,
      `Subscribe to ${hit.list.name}`,
      signupForm(c.req.param("key"), hit.list.name, hit.list.description, hit.companyName),
    );
  });

  app.post("/s/:key", async (c) => {
    const key = c.req.param("key");
    const form = await readForm(c, 16 * 1024);
    if (form === "too_large") return message(c, 413, "Too large", "The request was too large.");
    if (form === "bad_type") return message(c, 415, "Unsupported", "Send the form from the signup page.");
    const over = await limited(c);
    if (over) return over;
    const hit = await signupList(deps, key);
    if (!hit) return gone(c);
    const done = () =>
      message(
        c,
        200,
        "Check your inbox",
        `If the address can receive “${hit.list.name}”, a message with a confirmation link is on its way. Click it to finish.`,
      );
    if (honeypotFilled(form)) return done();
    try {
      const r = await signupByForm(deps, key, { email: form.get("email") ?? "", name: form.get("name") });
      if (r === null) return gone(c);
    } catch (e) {
      if (!isAppError(e) || e.code !== "validation") throw e;
      return page(
        c,
        400,
        `Subscribe to ${hit.list.name}`,
        signupForm(key, hit.list.name, hit.list.description, hit.companyName, "Please enter a valid email address."),
      );
    }
    return done();
  });

  async function trackedSend(token: string) {
    if (!TOKEN.test(token)) return null;
    const row = (
      await deps.db
        .select({
          send: emailSends,
          trackOpens: emailCampaigns.trackOpens,
          trackClicks: emailCampaigns.trackClicks,
          campaign: emailCampaigns,
        })
        .from(emailSends)
        .innerJoin(emailCampaigns, eq(emailCampaigns.id, emailSends.campaignId))
        .where(and(eq(emailSends.token, token), eq(emailSends.kind, "campaign")))
        .limit(1)
    )[0];
    return row ?? null;
  }

  app.get("/o/:token", async (c) => {
    const row = await trackedSend(c.req.param("token"));
    if (row?.trackOpens) {
      const now = deps.clock.now();
      await deps.db.transaction(async (tx) => {
        await tx
          .update(emailSends)
          .set({ opens: sql`${emailSends.opens} + 1`, updatedAt: now })
          .where(eq(emailSends.id, row.send.id));
        await tx
          .update(emailSends)
          .set({ openedAt: now })
          .where(and(eq(emailSends.id, row.send.id), isNull(emailSends.openedAt)));
      });
    }
    c.header("Cache-Control", "no-store");
    return c.body(PIXEL, 200, { "Content-Type": "image/gif" });
  });

  app.get("/c/:token/:n", async (c) => {
    const n = Number(c.req.param("n"));
    const row = await trackedSend(c.req.param("token"));
    if (!row || !row.trackClicks || !Number.isSafeInteger(n) || n < 0 || n > 10_000) return gone(c);
    const sub =
      row.send.subscriberId === null
        ? undefined
        : (
            await deps.db.select().from(emailSubscribers).where(eq(emailSubscribers.id, row.send.subscriberId)).limit(1)
          )[0];
    // The link as that recipient's message had it (variables filled), before tracking rewrote it.
    const parts = renderCampaignMessage(
      { ...row.campaign, trackClicks: false, trackOpens: false },
      { name: sub?.name ?? null, email: row.send.email, attributes: sub?.attributes ?? {} },
      { unsubscribeUrl: "" },
    );
    const target = linkAt(parts.html, n);
    if (!target) return gone(c);
    const now = deps.clock.now();
    await deps.db.transaction(async (tx) => {
      await tx
        .update(emailSends)
        .set({ clicks: sql`${emailSends.clicks} + 1`, updatedAt: now })
        .where(eq(emailSends.id, row.send.id));
      await tx
        .update(emailSends)
        .set({ clickedAt: now })
        .where(and(eq(emailSends.id, row.send.id), isNull(emailSends.clickedAt)));
      // Opens count only the pixel: a click is not turned into an open, so opened and clicked are two measurements.
    });
    return c.redirect(target, 302);
  });

  // Bounce and complaint feedback (feedback.ts): machines post here, so answers are JSON.
  const feedbackLimiter = rateLimiter(deps, "email-feedback", FEEDBACK_PER_MINUTE);
  app.post("/feedback/:secret", async (c) => {
    const fail = (status: number, code: string, msg: string) =>
      c.json({ error: { code, message: msg } }, status as 400);
    const d = await feedbackLimiter.take(`addr:${clientAddress(c)}`);
    if (!d.allowed) {
      c.header("Retry-After", String(d.retryAfterSec));
      return fail(429, "rate_limited", `Too many reports; retry in ${d.retryAfterSec} s.`);
    }
    const companyId = await companyForSecret(deps, c.req.param("secret"));
    if (companyId === null)
      return fail(401, "unauthorized", "Unknown feedback URL; email_feedback_setup gives the current one.");
    const body = await readCapped(c.req.raw, MAX_REPORT_BYTES);
    if (body === "too_large") return fail(413, "too_large", `Reports are limited to ${MAX_REPORT_BYTES} bytes.`);
    const type = (c.req.header("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
    try {
      let parsed;
      if (type === "application/json" || type === "text/json") {
        let json: unknown;
        try {
          json = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(body));
        } catch {
          return fail(400, "validation", "The body is not valid UTF-8 JSON.");
        }
        parsed = parseJsonReport(json);
      } else if (
        type === "message/rfc822" ||
        type === "text/plain" ||
        type === "application/octet-stream" ||
        type === ""
      )
        parsed = await parseRawReport(Buffer.from(body));
      else
        return fail(
          415,
          "unsupported_media_type",
          "Post raw mail as message/rfc822, or relay notifications as application/json.",
        );
      const r = await applyReports(deps, companyId, parsed.reports);
      return c.json(
        {
          applied: r.applied,
          duplicates: r.duplicates,
          unmatched: r.unmatched,
          ...(parsed.ignored && { ignored: parsed.ignored }),
        },
        200,
      );
    } catch (e) {
      if (e instanceof ReportError) return fail(400, "validation", e.message);
      throw e;
    }
  });

  return app;
}

/** Reads a request body up to `max` bytes (whatever Content-Length claims); "too_large" past it. */
async function readCapped(req: Request, max: number): Promise<Uint8Array | "too_large"> {
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > max) return "too_large";
  if (!req.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of req.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.length;
    if (size > max) return "too_large";
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

export const emailPublicPages: PublicPages = { prefix: "/e", routes: emailPublicRoutes };
