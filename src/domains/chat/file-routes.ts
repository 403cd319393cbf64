/**
 * The sealed download links of chat files: GET /chat-files/<token>, no
 * sign-in. Handed out by chat_attachments_get (15 minutes) and in the
 * visitor's own thread (a day; attachments.ts). An expired, altered or
 * unknown link answers a plain 404 that says no more than that; a file is
 * served as every ticket file is (tickets/files.ts): a download, never a
 * page.
 */
import { Hono } from "hono";
import type { Deps } from "../../core/context";
import { chatFileOfLink, fileResponse } from "./attachments";

export function chatFileLinkRoutes(deps: Deps) {
  const app = new Hono();
  app.get("/:token", async (c) => {
    const a = await chatFileOfLink(deps, c.req.param("token"));
    if (!a) return c.text("This download link is unknown or has expired; ask for a new one.", 404);
    return fileResponse(deps, a);
  });
  return app;
}
