/**
 * OAuth errors on the wire (RFC 6749 §5.2, RFC 7591 §3.2.2, RFC 7009 §2.2.1).
 * They are AppErrors like every other error in Plinth; the OAuth error code
 * rides in `details.oauth` and `oauthErrorResponse` is the one place that
 * turns them into `{ error, error_description }` JSON.
 */
import type { Context } from "hono";
import { AppError, httpStatus, isAppError } from "../core/errors";
import { mapDbError } from "../core/db";

export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "unsupported_response_type"
  | "unsupported_token_type"
  | "invalid_scope"
  | "invalid_target"
  | "access_denied"
  | "invalid_redirect_uri"
  | "invalid_client_metadata"
  | "temporarily_unavailable"
  | "server_error";

export function oauthError(error: OAuthErrorCode, description: string, extra: { retryAfter?: number } = {}): AppError {
  const code =
    error === "invalid_client" ? "unauthorized" : error === "temporarily_unavailable" ? "rate_limited" : "validation";
  return new AppError(code, description, { oauth: error, ...extra });
}

/** Maps any error thrown by a machine-facing OAuth endpoint to the RFC wire format. */
export function oauthErrorResponse(c: Context, e: unknown): Response {
  const err = mapDbError(e);
  c.header("Cache-Control", "no-store");
  if (isAppError(err)) {
    const error = (err.details?.oauth as string | undefined) ?? "invalid_request";
    const status = httpStatus[err.code] === 500 ? 400 : httpStatus[err.code];
    if (status === 401) c.header("WWW-Authenticate", 'Basic realm="plinth-oauth"');
    if (err.details?.retryAfter) c.header("Retry-After", String(err.details.retryAfter));
    return c.json({ error, error_description: err.message }, status);
  }
  console.error(`[${c.get("requestId")}] oauth endpoint failed:`, err instanceof Error ? err.stack : err);
  return c.json({ error: "server_error", error_description: "The server could not complete the request." }, 500);
}
