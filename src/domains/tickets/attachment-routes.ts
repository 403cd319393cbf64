/**
 * The download links ticket_attachments_get hands out: GET
 * /ticket-files/<sealed token>, no sign-in, for LINK_TTL_MS. The token is
 * sealed (core/sealed.ts) over company, attachment and expiry, so it can be
 * neither made nor altered; an expired, altered or unknown link answers a
 * plain 404 that says no more than that. The file is served as
 * attachments.ts serves every ticket file: a download, never a page.
 */
import { Hono } from "hono";
import type { Deps } from "../../core/context";
import { attachmentOfLink, fileResponse } from "./attachments";

export function attachmentLinkRoutes(deps: Deps) {
  const app = new Hono();
  app.get("/:token", async (c) => {
    const a = await attachmentOfLink(deps, c.req.param("token"));
    if (!a) return c.text("This download link is unknown or has expired; ask for a new one.", 404);
    return fileResponse(deps, a);
  });
  return app;
}
