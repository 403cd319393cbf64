/**
 * What every portal request passes before its handler. `formGuard` is the
 * one place cross-site requests are refused: installed once on the portal
 * app (src/portal/routes.tsx, which also mounts the OAuth consent page), it
 * runs for every request that is not GET or HEAD and applies two
 * independent checks, so a browser quirk in one does not open the other:
 *
 *   1. same origin: `Sec-Fetch-Site`, when sent, must be `same-origin`
 *      (`same-site`, a sibling subdomain, is refused like `cross-site`);
 *      `Origin`, when sent, must be the portal's; a request with neither
 *      is refused. Our pages use `Referrer-Policy: same-origin`, so browsers
 *      send the real Origin on our own forms (under `no-referrer` they send
 *      `Origin: null`).
 *   2. the session's CSRF token in the `_csrf` field, whenever a session
 *      exists (sign-in, which has none yet, relies on check 1 alone).
 *
 * `signedIn` then requires a session on the routes that need one, and
 * hands the page what src/ui/signed-in.ts says a signed-in page receives
 * (the viewer, the actor, the checked form). `pageRoutes` mounts a domain's
 * pages behind it, so those pages never see the session at all.
 */
import { Hono, type Context, type MiddlewareHandler } from "hono";
import type { Deps } from "../core/context";
import { AppError } from "../core/errors";
import { readForm, type Form } from "../ui/form-data";
import type { PageEnv } from "../ui/signed-in";
import { portalActor } from "./actor";
import { csrfValid, readSession, type Session } from "./session";

/** A signed-in page's variables (src/ui/signed-in.ts), plus the session itself for the portal's own pages. */
export type PortalEnv = { Variables: PageEnv["Variables"] & { session: Session } };

/** Methods that change nothing; every other method passes formGuard's checks. */
const SAFE_METHODS = new Set(["GET", "HEAD"]);
/** Sign-in has no session yet, so no token: it is guarded by the same-origin check alone (login CSRF). */
const NO_TOKEN_PATHS = new Set(["/login"]);

export const crossSiteMessage = (why: string) =>
  `This form was sent from another site (${why}), so it was refused. Open the page in Plinth and try again.`;
export const EXPIRED_MESSAGE =
  "This form has expired or did not come from this site. Go back, reload the page and try again.";

/** Our origins: the portal's public one, and the one this request arrived at (equal unless behind a proxy). */
function ownOrigins(deps: Deps, c: Context): string[] {
  return [new URL(deps.config.publicUrl).origin, new URL(c.req.url).origin];
}

/**
 * Why a state-changing request does not look like a form of our own pages,
 * or null when it does. Both headers are checked when both are present.
 */
export function crossSiteProblem(deps: Deps, c: Context): string | null {
  const site = c.req.header("sec-fetch-site");
  const origin = c.req.header("origin");
  if (site !== undefined && site !== "same-origin") return `Sec-Fetch-Site is ${site.slice(0, 20)}`;
  if (origin !== undefined && !ownOrigins(deps, c).includes(origin)) return "Origin is not this site";
  if (site === undefined && origin === undefined) return "neither Origin nor Sec-Fetch-Site was sent";
  return null;
}

/**
 * The portal's cross-site request refusal (see the file comment). On a
 * signed-in request it also reads the form, checks its token and leaves
 * `session` and `form` for the handler.
 */
export function formGuard(deps: Deps): MiddlewareHandler<PortalEnv> {
  const uploads = deps.catalog.portal.flatMap((p) => p.uploads ?? []);
  return async (c, next) => {
    if (SAFE_METHODS.has(c.req.method)) return await next();
    const problem = crossSiteProblem(deps, c);
    if (problem) throw new AppError("forbidden", crossSiteMessage(problem));
    if (!NO_TOKEN_PATHS.has(c.req.path)) {
      const session = await readSession(deps, c);
      if (session) {
        // Multipart only where a domain takes files (PortalPages.uploads); every other form stays urlencoded.
        const upload = uploads.some((re) => re.test(c.req.path));
        const form = await readForm(c, upload ? { uploadBytes: deps.config.maxUploadBytes } : {});
        if (!csrfValid(session, form.params.get("_csrf"))) throw new AppError("forbidden", EXPIRED_MESSAGE);
        c.set("session", session);
        c.set("form", form);
      }
    }
    await next();
  };
}

/** Where to send someone who must sign in first; only same-site paths survive. */
export function loginRedirect(c: Context): Response {
  const url = new URL(c.req.url);
  const next = c.req.method === "GET" ? url.pathname + url.search : "/";
  return c.redirect(`/login?next=${encodeURIComponent(next)}`, 303);
}

/** The form formGuard checked for this request; throws if it did not run (a wiring mistake, never a visitor's). */
export function checkedForm(c: Context<PortalEnv>): Form {
  const form = c.var.form as Form | undefined;
  if (!form) throw new Error(`formGuard did not run for ${c.req.method} ${c.req.path}`);
  return form;
}

/** Requires a session; on posts the form must already have passed formGuard. */
export function signedIn(deps: Deps): MiddlewareHandler<PortalEnv> {
  return async (c, next) => {
    const session = (c.var.session as Session | undefined) ?? (await readSession(deps, c));
    if (!session) return loginRedirect(c);
    if (!SAFE_METHODS.has(c.req.method)) checkedForm(c);
    c.set("session", session);
    // What a page may know of the person (src/ui/signed-in.ts): not the session itself.
    const { csrfToken, user, companies, active, unread } = session;
    c.set("viewer", { csrfToken, user, companies, active, unread });
    c.set("actor", () => portalActor(deps, c, session));
    await next();
  };
}

/**
 * Mounts pages that must not see the session (a domain's, Domain.portal):
 * `register` adds its routes to a fresh app, and each route is added to the
 * portal app behind `signedIn`, so every one of them requires sign-in and
 * receives the viewer, the actor and the checked form (PageEnv, which has
 * no session): a page cannot forget the guard, and needs neither the
 * session nor the guard itself.
 */
export function pageRoutes(app: Hono<PortalEnv>, deps: Deps, register: (pages: Hono<PageEnv>) => void): void {
  const pages = new Hono<PageEnv>();
  register(pages);
  // Middleware on every path would run the guard before sign-in itself: refused when the portal starts.
  const everywhere = pages.routes.find((r) => r.path === "/*" || r.path === "*");
  if (everywhere)
    throw new Error(`a page set may not install middleware on every path (${everywhere.method} ${everywhere.path})`);
  const guard = signedIn(deps);
  for (const r of pages.routes) app.on(r.method, r.path, guard, r.handler as MiddlewareHandler<PortalEnv>);
}

/** `next` targets after sign-in: a path on this site, never another origin. */
export function safeNext(raw: string | null | undefined): string {
  // Browsers drop tabs and newlines inside URLs and treat \ as /, so "/\t/evil" or "/\evil" would leave the site.
  if (!raw || raw.length > 8000 || !raw.startsWith("/") || raw.startsWith("//") || /[\x00-\x1f\\]/.test(raw))
    return "/";
  return raw;
}
