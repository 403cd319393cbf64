/**
 * What a signed-in page receives, whoever mounts it. The portal (src/portal)
 * owns sign-in, sessions and the guard; a page (the portal's own, or one a
 * domain brings through Domain.portal) only needs to know who is looking,
 * as whom its verbs act, and the form that already passed the CSRF check.
 * The portal's guard sets these variables before any page handler runs, so
 * pages read them through the accessors below and never touch a session.
 */
import type { Context } from "hono";
import type { ActorContext } from "../core/context";
import type { Role } from "../core/roles";
import type { Form } from "./form-data";

/** One company the viewer belongs to, with their role in it. */
export interface Member {
  id: number;
  name: string;
  role: Role;
}

/** The person looking at the page: what the frame (header, switcher, navigation) and the forms need. */
export interface Viewer {
  /** The token every state-changing form carries (see forms.tsx: Csrf). */
  csrfToken: string;
  user: { id: number; email: string; name: string | null };
  /** Live memberships, ordered by company id (the company switcher). */
  companies: Member[];
  /** The company the pages act on; null when the person belongs to none. */
  active: Member | null;
  /** Unread notifications over every company (the navigation's count). */
  unread: number;
}

/**
 * Hono variables of a signed-in page. `actor` is a function because a
 * person without any company has no ActorContext: asking for it is then a
 * clear 404 ("You do not belong to any company yet"), thrown by the page
 * that needs one, not by the guard. `form` is set on posts only.
 */
export type PageEnv = {
  Variables: { viewer: Viewer; actor: () => ActorContext; form: Form; requestId: string };
};

const unwired = (c: Context, what: string) =>
  new Error(`the portal's guard did not set ${what} for ${c.req.method} ${c.req.path}`);

/** Who is looking. Throws if the guard did not run (a wiring mistake, never a visitor's). */
export function viewerOf(c: Context<PageEnv>): Viewer {
  const viewer = c.var.viewer as Viewer | undefined;
  if (!viewer) throw unwired(c, "the viewer");
  return viewer;
}

/** The viewer acting in the active company, as every domain verb takes it (their role decides, as for any credential). */
export function actorOf(c: Context<PageEnv>): ActorContext {
  const actor = c.var.actor as (() => ActorContext) | undefined;
  if (!actor) throw unwired(c, "the actor");
  return actor();
}

/** The posted form, already read and CSRF-checked by the portal's guard. */
export function formOf(c: Context<PageEnv>): Form {
  const form = c.var.form as Form | undefined;
  if (!form) throw unwired(c, "the checked form");
  return form;
}

/** Owners and admins manage; viewers see. Pages use it to choose what to show; the verbs enforce it. */
export function canManage(viewer: Viewer): boolean {
  return viewer.active?.role === "owner" || viewer.active?.role === "admin";
}
