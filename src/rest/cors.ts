/**
 * CORS for REST v1. Any origin may read (the API serves public site content
 * to browser renderers; keys travel in headers, never cookies, so `*` grants
 * nothing a script could not do with the key anyway). Browser code may send
 * the key headers and If-None-Match, and may read the ETag and rate-limit
 * headers. Because the answer is the same for every origin, responses do
 * not vary on Origin.
 */
export const CORS_HEADERS: Record<string, string> = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Expose-Headers": "ETag, X-RateLimit-Limit, X-RateLimit-Remaining, Retry-After, X-Request-Id",
};

export const PREFLIGHT_HEADERS: Record<string, string> = {
  ...CORS_HEADERS,
  "Access-Control-Allow-Methods": "GET, HEAD, OPTIONS",
  "Access-Control-Allow-Headers": "Authorization, X-API-Key, If-None-Match",
  "Access-Control-Max-Age": "86400",
};

/** Responses depend on the key headers (401 versus 200, private versus public caching). */
export const VARY = "Authorization, X-API-Key";
