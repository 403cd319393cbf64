/**
 * The root's last answer for an error nothing closer handled: the one
 * mapping src/app.ts's onError and the MCP fast path (src/mcp/routes.ts,
 * which skips the root app but must answer as it would) both use, so the
 * two cannot drift. An engine error bad input can cause becomes its
 * AppError (mapDbError); an AppError leaves with its code's HTTP status and
 * its message; an error that carries its own response (Hono's
 * HTTPException) leaves as that response; anything else is logged with the
 * request id and leaves as a bare 500, revealing nothing.
 *
 * The answer is data, not a Response: the root renders it with Hono's
 * c.json (keeping headers set on the context), the fast path as a plain
 * Response. Sub-apps (REST, MCP's JSON-RPC, OAuth, the portal) map their own
 * errors to their own wire formats before anything reaches here.
 */
import { mapDbError } from "../core/db";
import { AppError, httpStatus } from "../core/errors";

export interface RootErrorBody {
  success: false;
  message: string;
}

export type RootErrorAnswer =
  | { response: Response }
  | { status: (typeof httpStatus)[keyof typeof httpStatus]; body: RootErrorBody };

export function rootErrorAnswer(e: unknown, requestId: string | undefined): RootErrorAnswer {
  const err = mapDbError(e);
  if (err instanceof AppError) return { status: httpStatus[err.code], body: { success: false, message: err.message } };
  if (err instanceof Error && "getResponse" in err && typeof (err as any).getResponse === "function")
    return { response: (err as any).getResponse() };
  console.error(`[${requestId}] unhandled error:`, err instanceof Error ? err.stack : err);
  return { status: 500, body: { success: false, message: "Internal server error" } };
}
