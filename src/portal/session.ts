/**
 * Portal sessions. The cookie carries a random 256-bit id; the database
 * keeps only its SHA-256, so a leaked database cannot be replayed as
 * sessions. The cookie is HttpOnly, SameSite=Lax (the OAuth consent page is
 * reached by a top-level redirect from another site, which Strict would
 * strip), Secure and `__Host-` prefixed when the portal is served over https.
 *
 * Every state-changing form also carries the session's CSRF token, checked
 * in constant time by formGuard (guard.ts), on top of its same-origin check.
 */
import { and, eq, gt, lte } from "drizzle-orm";
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { Deps } from "../core/context";
import { randomHex, safeEqual, sha256Hex } from "../core/secrets";
import { membershipsOf } from "../domains/accounts/verbs";
import { users, type Role } from "../domains/accounts/tables";
import { unreadCount } from "../domains/notifications/verbs";
import { sessions } from "./tables";

export const SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export interface Membership {
  id: number;
  name: string;
  role: Role;
}

export interface Session {
  idHash: string;
  csrfToken: string;
  user: { id: number; email: string; name: string | null };
  /** Live memberships, ordered by company id. */
  companies: Membership[];
  /** The company the portal pages act on; null when the user belongs to none. */
  active: Membership | null;
  /** Unread notifications in the inbox, over every company the user belongs to (the header's count). */
  unread: number;
}

export function isSecure(deps: Deps, c: Context): boolean {
  return deps.config.publicUrl.startsWith("https:") || new URL(c.req.url).protocol === "https:";
}

export function cookieName(deps: Deps, c: Context): string {
  return isSecure(deps, c) ? "__Host-plinth_session" : "plinth_session";
}

/** Starts a fresh session (a new id at every sign-in, so a planted id is worthless). */
export async function startSession(
  deps: Deps,
  c: Context,
  userId: number,
  opts: { activeCompanyId?: number } = {},
): Promise<void> {
  const id = randomHex(32);
  const now = deps.clock.ms();
  // Sweep this user's expired sessions while we are here.
  await deps.db.delete(sessions).where(and(eq(sessions.userId, userId), lte(sessions.expiresAt, new Date(now))));
  await deps.db.insert(sessions).values({
    idHash: sha256Hex(id),
    userId,
    csrfToken: randomHex(32),
    activeCompanyId: opts.activeCompanyId ?? null,
    expiresAt: new Date(now + SESSION_TTL_MS),
    createdAt: new Date(now),
  });
  setCookie(c, cookieName(deps, c), id, {
    path: "/",
    httpOnly: true,
    sameSite: "Lax",
    secure: isSecure(deps, c),
    maxAge: Math.floor(SESSION_TTL_MS / 1000),
  });
}

/** The signed-in session for this request, or null. */
export async function readSession(deps: Deps, c: Context): Promise<Session | null> {
  const id = getCookie(c, cookieName(deps, c));
  if (!id || !/^[0-9a-f]{64}$/.test(id)) return null;
  const row = (
    await deps.db
      .select({ s: sessions, email: users.email, name: users.name })
      .from(sessions)
      .innerJoin(users, eq(users.id, sessions.userId))
      .where(and(eq(sessions.idHash, sha256Hex(id)), gt(sessions.expiresAt, deps.clock.now())))
      .limit(1)
  )[0];
  if (!row) return null;
  const companies = (await membershipsOf(deps, row.s.userId)) as Membership[];
  const active = companies.find((m) => m.id === row.s.activeCompanyId) ?? companies[0] ?? null;
  const unread = await unreadCount({ deps, userId: row.s.userId, companyIds: companies.map((m) => m.id) });
  return {
    unread,
    idHash: row.s.idHash,
    csrfToken: row.s.csrfToken,
    user: { id: row.s.userId, email: row.email, name: row.name },
    companies,
    active,
  };
}

/** Ends a session server-side; its cookie, wherever it is, no longer works. */
export async function dropSession(deps: Deps, session: Session): Promise<void> {
  await deps.db.delete(sessions).where(eq(sessions.idHash, session.idHash));
}

/** Signs this browser out: the session row and the cookie. */
export async function endSession(deps: Deps, c: Context, session: Session | null): Promise<void> {
  if (session) await dropSession(deps, session);
  deleteCookie(c, cookieName(deps, c), { path: "/", secure: isSecure(deps, c) });
}

export async function setActiveCompany(deps: Deps, session: Session, companyId: number): Promise<boolean> {
  if (!session.companies.some((m) => m.id === companyId)) return false;
  await deps.db.update(sessions).set({ activeCompanyId: companyId }).where(eq(sessions.idHash, session.idHash));
  return true;
}

export function csrfValid(session: Session, presented: unknown): boolean {
  return typeof presented === "string" && safeEqual(presented, session.csrfToken);
}
