/**
 * How the portal shows an error: an AppError becomes a page with its
 * message and the matching status; a refused cross-site post is a 403 page;
 * anything unexpected is logged with the request id and shown as a short
 * apology (500), without details.
 */
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { Deps } from "../core/context";
import { httpStatus, isAppError } from "../core/errors";
import { Layout, render, type RenderOptions } from "../ui/layout";
import { Notice } from "../ui/notice";
import { readSession } from "./session";
import { mapDbError } from "../core/db";

const TITLES: Record<number, string> = {
  400: "That did not work",
  403: "Not allowed",
  404: "Not found",
  409: "Conflict",
  413: "Too large",
  429: "Slow down",
};

export async function portalErrorResponse(deps: Deps, c: Context, e: unknown): Promise<Response | Promise<Response>> {
  const err = mapDbError(e);
  let status: number;
  let message: string;
  if (isAppError(err) && httpStatus[err.code] !== 500) {
    status = httpStatus[err.code];
    message = err.message;
  } else if (err instanceof HTTPException && err.status === 403) {
    status = 403;
    message = "This form was sent from another site, so it was refused. Open the page in Plinth and try again.";
  } else if (err instanceof HTTPException && err.status < 500) {
    status = err.status;
    message = err.message || "The request could not be handled.";
  } else {
    console.error(`[${c.get("requestId")}] portal error:`, err instanceof Error ? err.stack : err);
    return c.html(
      "<!doctype html><title>Error · Plinth</title><p>Something went wrong on our side. Please try again.</p>",
      500,
    );
  }
  let session = null;
  try {
    session = await readSession(deps, c);
  } catch {
    session = null;
  }
  const title = TITLES[status] ?? "Error";
  return render(
    c,
    <Layout title={title} viewer={session} path={c.req.path} narrow>
      <h1>{title}</h1>
      <Notice kind="error">{message}</Notice>
      <p>
        <a href="/">Back to the portal</a>
      </p>
    </Layout>,
    { status: status as RenderOptions["status"] },
  );
}
