/** The client address as the portal and OAuth endpoints count attempts by it. */
import type { Context } from "hono";
import { getConnInfo } from "hono/bun";

/** The peer address of the connection (not a forwarded header, which anyone can send). */
export function clientAddress(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? "unknown";
  } catch {
    return "unknown";
  }
}
