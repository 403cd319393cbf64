/**
 * The OAuth 2.1 authorization server's machine endpoints: metadata,
 * registration, token and revocation. One file per protocol concern sits
 * beside this one; this file only wires them.
 *
 * These endpoints answer any origin (CORS without credentials) since
 * browser-based MCP clients such as MCP Inspector call them from their own
 * page; they carry no cookies, so nothing ambient can be abused. The consent
 * page (`/oauth/authorize`, src/oauth/consent.tsx) is the opposite:
 * cookie-bound, never framed, same-origin posts only, so it is mounted by
 * the portal (src/portal/routes.tsx) behind the portal's form guard.
 * (The protected-resource document is served by src/mcp/.)
 */
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { cors } from "hono/cors";
import type { Deps } from "../core/context";
import { oauthErrorResponse } from "./errors";
import { MAX_FORM_BYTES } from "./form";
import { PATHS, serveMetadata } from "./metadata";
import { MAX_REGISTRATION_BYTES, registerEndpoint } from "./register";
import { revokeEndpoint } from "./revoke";
import { tokenEndpoint } from "./token";

export function oauthRoutes(deps: Deps) {
  const app = new Hono();
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
        return c.json(
          { error: "invalid_request", error_description: `The body must be at most ${maxSize} bytes.` },
          413,
        );
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

  app.onError((err, c) => oauthErrorResponse(c, err));
  return app;
}
