/**
 * The one error type of Plinth. Domain verbs throw AppError with a closed set
 * of codes; each adapter (REST, MCP, portal) maps the code once, in one place:
 * REST through `httpStatus`, MCP in src/mcp/errors.ts.
 */
export type ErrorCode =
  | "validation"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "conflict"
  | "payload_too_large"
  | "rate_limited"
  | "internal";

export const httpStatus: Record<ErrorCode, 400 | 401 | 403 | 404 | 409 | 413 | 429 | 500> = {
  validation: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  rate_limited: 429,
  internal: 500,
};

export class AppError extends Error {
  readonly code: ErrorCode;
  /** Extra, safe-to-show facts (e.g. the path of an invalid block, a retry delay). */
  readonly details?: Record<string, unknown>;
  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = "AppError";
    this.code = code;
    this.details = details;
  }
}

export const invalid = (message: string, details?: Record<string, unknown>) =>
  new AppError("validation", message, details);
export const notFound = (message = "Not found") => new AppError("not_found", message);
export const conflict = (message: string, details?: Record<string, unknown>) =>
  new AppError("conflict", message, details);
export const forbidden = (message: string) => new AppError("forbidden", message);
export const unauthorized = (message = "Unauthorized") => new AppError("unauthorized", message);

export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError;
}
