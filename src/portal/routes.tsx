/**
 * The portal: server-rendered pages for people (sign-in, keys, connected
 * apps, team, approvals, and the OAuth consent screen of src/oauth/consent.tsx).
 * Mounted last at "/" by src/app.ts; each page family lives in its own file
 * and registers its routes here. Pages work without JavaScript and carry no
 * script at all (the CSP forbids it). Every request other than GET and HEAD
 * passes `formGuard` first (same origin and the session's CSRF token).
 */
import { Hono } from "hono";
import type { Deps } from "../core/context";
import { invalid } from "../core/errors";
import { apiKeyRoutes } from "./api-keys";
import { approvalRoutes } from "./approvals";
import { connectionRoutes } from "./connections";
import { dashboardRoutes } from "./dashboard";
import { portalErrorResponse } from "./errors";
import { consentRoutes } from "../oauth/consent";
import { formGuard, pageRoutes, safeNext, signedIn, type PortalEnv } from "./guard";
import { loginRoutes } from "./login";
import { restKeyRoutes } from "./rest-keys";
import { setActiveCompany } from "./session";
import { PORTAL_CSS, PORTAL_CSS_PATH } from "../ui/style";
import { teamRoutes } from "./team";
import { inboxRoutes } from "./inbox";
import { inviteRoutes } from "./invite";
import { profileRoutes } from "./profile";
import { setNavigation } from "../ui/layout";
import { navFor, setDomainNav } from "./nav";

export function portalRoutes(deps: Deps) {
  const app = new Hono<PortalEnv>();
  // Before every route: no form post is handled anywhere in the portal without both checks.
  app.use("*", formGuard(deps));

  app.get(PORTAL_CSS_PATH, (c) => {
    c.header("Cache-Control", "public, max-age=31536000, immutable");
    c.header("X-Content-Type-Options", "nosniff");
    return c.body(PORTAL_CSS, 200, { "Content-Type": "text/css; charset=utf-8" });
  });

  loginRoutes(app, deps);
  dashboardRoutes(app, deps);
  apiKeyRoutes(app, deps);
  restKeyRoutes(app, deps);
  connectionRoutes(app, deps);
  teamRoutes(app, deps);
  inviteRoutes(app, deps);
  inboxRoutes(app, deps);
  profileRoutes(app, deps);
  approvalRoutes(app, deps);
  consentRoutes(app, deps);
  // Pages domains bring (Domain.portal): chat, AI credits…; every route behind signedIn, posts past formGuard like every other.
  for (const p of deps.catalog.portal) pageRoutes(app, deps, (pages) => p.routes(pages, deps));
  setDomainNav(deps.catalog.portal.flatMap((p) => p.nav ?? []));
  setNavigation(navFor);

  app.post("/company", signedIn(deps), async (c) => {
    const form = c.get("form");
    const id = form.id("company_id", { label: "Company", required: true })!;
    if (!(await setActiveCompany(deps, c.get("session"), id))) throw invalid("You do not belong to that company.");
    return c.redirect(safeNext(form.text("next", { max: 2000 })), 303);
  });

  app.onError(async (err, c) => await portalErrorResponse(deps, c, err));
  return app;
}
