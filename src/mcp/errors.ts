/**
 * AppError → MCP, decided in this one file.
 *
 * A model can recover from validation, not-found, conflict, forbidden (by
 * role), too-large and rate-limit errors by changing its call, so those come
 * back as tool results with `isError: true` and a message saying what to
 * change. Authentication failures and server faults are protocol problems:
 * JSON-RPC errors (-32001 Unauthorized, -32603 Internal error).
 */
import { ProtocolError } from "@modelcontextprotocol/server";
import { AppError, type ErrorCode } from "../core/errors";
import { mapDbError } from "../core/db";

/** The JSON-RPC code interface.md 5.2 names for a missing or bad credential. */
export const UNAUTHORIZED_CODE = -32001;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;

export interface ToolResult {
  [key: string]: unknown;
  content: { type: "text"; text: string }[];
  isError?: boolean;
}

/** How each AppError code leaves the MCP adapter. */
const TOOL_ERROR: Record<ErrorCode, "tool" | "protocol"> = {
  validation: "tool",
  not_found: "tool",
  conflict: "tool",
  forbidden: "tool",
  payload_too_large: "tool",
  rate_limited: "tool",
  unauthorized: "protocol",
  internal: "protocol",
};

/** Prefixes that tell a model what kind of problem it hit, so it knows whether to retry, fix or stop. */
const PREFIX: Record<ErrorCode, string> = {
  validation: "Invalid input",
  not_found: "Not found",
  conflict: "Conflict",
  forbidden: "Forbidden",
  payload_too_large: "Too large",
  rate_limited: "Rate limited",
  unauthorized: "Unauthorized",
  internal: "Internal error",
};

export function toolError(message: string, details?: Record<string, unknown>): ToolResult {
  const text = details && Object.keys(details).length ? `${message}\n${JSON.stringify(details)}` : message;
  return { content: [{ type: "text", text }], isError: true };
}

/**
 * A result's JSON when it was kept already serialised (a cached read-tool
 * answer, src/mcp/result-cache.ts): the fast path sends these bytes instead
 * of encoding the text a second time. A symbol, so neither JSON nor the
 * SDK's result schema sees it.
 */
export const RESULT_JSON = Symbol("resultJson");

/** The result as its JSON-RPC `result` member. */
export function resultJson(r: ToolResult): string {
  return (r as { [RESULT_JSON]?: string })[RESULT_JSON] ?? JSON.stringify(r);
}

export function toolOk(value: unknown): ToolResult {
  const text = typeof value === "string" ? value : JSON.stringify(value ?? null);
  return { content: [{ type: "text", text }] };
}

/**
 * Maps anything a tool handler threw. Returns a tool result for errors the
 * model can fix; throws a ProtocolError (which the SDK sends as a JSON-RPC
 * error) for the rest. Unknown exceptions are logged with the request id and
 * never shown: their text may hold internals.
 */
export function mapToolError(err: unknown, requestId: string): ToolResult {
  const e = mapDbError(err);
  if (e instanceof AppError) {
    if (TOOL_ERROR[e.code] === "tool") {
      const msg = e.message.startsWith(PREFIX[e.code]) ? e.message : `${PREFIX[e.code]}: ${e.message}`;
      return toolError(msg, e.details);
    }
    if (e.code === "unauthorized") throw new ProtocolError(UNAUTHORIZED_CODE, "Unauthorized");
  }
  console.error(`[${requestId}] tool failed:`, e instanceof Error ? e.stack : e);
  throw new ProtocolError(INTERNAL_ERROR, `Internal error (request ${requestId})`);
}
