/**
 * The OAuth 2.1 authorization server: metadata, registration, the
 * authorization/consent page, token and revocation. One file per protocol
 * concern sits beside this one; this file only wires them.
 *
 * The machine endpoints answer any origin (CORS without credentials) since
 * browser-based MCP clients such as MCP Inspector call them from their own
 * page; they carry no cookies, so nothing ambient can be abused. The consent
 * page is the opposite: cookie-bound, never framed, same-origin posts only.
 * (The protected-resource document is served by src/mcp/.)
 */
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { cors } from "hono/cors";
import type { Deps } from "../core/context";
import type { PortalEnv } from "../portal/guard";
import { portalErrorResponse } from "../portal/errors";
import { consentRoutes } from "./consent";
import { oauthErrorResponse } from "./errors";
import { MAX_FORM_BYTES } from "./form";
import { PATHS, serveMetadata } from "./metadata";
import { MAX_REGISTRATION_BYTES, registerEndpoint } from "./register";
import { revokeEndpoint } from "./revoke";
import { tokenEndpoint } from "./token";

export function oauthRoutes(deps: Deps) {
  const app = new Hono<PortalEnv>();
  const open = cors({
    origin: "*",
    allowMethods: ["GET", "POST", "OPTIONS"],
    allowHeaders: ["Authorization", "Content-Type", "MCP-Protocol-Version"],
    maxAge: 86400,
  });
  const limit = (maxSize: number) =>
    bodyLimit({
      maxSize,
      onError: (c) => {
        c.header("Cache-Control", "no-store");
        return c.json({ error: "invalid_request", error_description: `The body must be at most ${maxSize} bytes.` }, 413);
      },
    });

  for (const path of [PATHS.metadata, PATHS.register, PATHS.token, PATHS.revoke]) app.use(path, open);
  app.get(PATHS.metadata, serveMetadata(deps));
  app.post(PATHS.register, limit(MAX_REGISTRATION_BYTES), registerEndpoint(deps));
  app.post(PATHS.token, limit(MAX_FORM_BYTES), tokenEndpoint(deps));
  app.post(PATHS.revoke, limit(MAX_FORM_BYTES), revokeEndpoint(deps));
  for (const path of [PATHS.register, PATHS.token, PATHS.revoke])
    app.on(["GET", "PUT", "DELETE", "PATCH"], path, (c) => {
      c.header("Allow", "POST");
      return c.json({ error: "invalid_request", error_description: "Use POST." }, 405);
    });
  consentRoutes(app, deps);

  app.onError(async (err, c) => (c.req.path === PATHS.authorize ? await portalErrorResponse(deps, c, err) : oauthErrorResponse(c, err)));
  return app;
}
