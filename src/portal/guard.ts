/**
 * What every portal request passes before its handler: cross-site request
 * refusal (hono/csrf checks Origin / Sec-Fetch-Site on every form post), the
 * signed-in session, and for posts the session's CSRF token. Two
 * independent checks, so a browser quirk in one does not open the other.
 */
import type { Context, MiddlewareHandler } from "hono";
import { csrf } from "hono/csrf";
import type { Deps } from "../core/context";
import { AppError } from "../core/errors";
import { readForm, type Form } from "./forms";
import { csrfValid, readSession, type Session } from "./session";

export type PortalEnv = { Variables: { session: Session; form: Form; requestId: string } };

/** Form posts must come from our own pages: the portal origin, or the origin the request arrived at. */
export function sameOrigin(deps: Deps): MiddlewareHandler {
  return csrf({
    origin: (origin, c) => origin === new URL(deps.config.publicUrl).origin || origin === new URL(c.req.url).origin,
    secFetchSite: "same-origin",
  });
}

/** Where to send someone who must sign in first; only same-site paths survive. */
export function loginRedirect(c: Context): Response {
  const url = new URL(c.req.url);
  const next = c.req.method === "GET" ? url.pathname + url.search : "/";
  return c.redirect(`/login?next=${encodeURIComponent(next)}`, 303);
}

/** Requires a session; on posts also reads the form and checks its CSRF token. */
export function signedIn(deps: Deps): MiddlewareHandler<PortalEnv> {
  return async (c, next) => {
    const session = await readSession(deps, c);
    if (!session) return loginRedirect(c);
    c.set("session", session);
    if (c.req.method === "POST") {
      const form = await readForm(c);
      if (!csrfValid(session, form.params.get("_csrf")))
        throw new AppError("forbidden", "This form has expired or did not come from this site. Go back, reload the page and try again.");
      c.set("form", form);
    }
    await next();
  };
}

/** `next` targets after sign-in: a path on this site, never another origin. */
export function safeNext(raw: string | null | undefined): string {
  // Browsers drop tabs and newlines inside URLs and treat \ as /, so "/\t/evil" or "/\evil" would leave the site.
  if (!raw || raw.length > 8000 || !raw.startsWith("/") || raw.startsWith("//") || /[\x00-\x1f\\]/.test(raw)) return "/";
  return raw;
}
