/**
 * PKCE (RFC 7636), S256 only: OAuth 2.1 and the MCP authorization spec
 * require it, and `plain` protects nothing against a leaked authorization
 * request.
 */
import { createHash } from "node:crypto";
import { safeEqual } from "../core/secrets";

/** A verifier is 43–128 characters of [A-Z a-z 0-9 - . _ ~] (RFC 7636 §4.1). */
const VERIFIER_RE = /^[A-Za-z0-9\-._~]{43,128}$/;
/** An S256 challenge is base64url(SHA-256) without padding: exactly 43 characters. */
const CHALLENGE_RE = /^[A-Za-z0-9\-_]{43}$/;

export function isS256Challenge(challenge: string): boolean {
  return CHALLENGE_RE.test(challenge);
}

export function s256(verifier: string): string {
  return createHash("sha256").update(verifier).digest("base64url");
}

export function verifyPkce(verifier: string, challenge: string): boolean {
  if (!VERIFIER_RE.test(verifier)) return false;
  return safeEqual(s256(verifier), challenge);
}
