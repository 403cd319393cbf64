/**
 * A signed-in person acting through the portal, as the ActorContext every
 * domain verb takes. The portal is the person themselves, so the session
 * holds every scope; what they may do is decided by their role in the
 * active company, checked by the verbs exactly as for an MCP credential.
 */
import type { Context } from "hono";
import type { ActorContext, Deps } from "../core/context";
import { AppError } from "../core/errors";
import { canManage } from "../ui/signed-in";
import type { Session } from "./session";

export function portalActor(deps: Deps, c: Context, session: Session): ActorContext {
  if (!session.active)
    throw new AppError(
      "not_found",
      "You do not belong to any company yet. Ask an owner or admin to add you to their team.",
    );
  return {
    deps,
    principal: {
      userId: session.user.id,
      credential: { kind: "session", id: 0, name: "portal" },
      scopes: ["*"],
      companies: session.companies,
      requireCmsApproval: false,
    },
    company: session.active,
    requestId: c.get("requestId") ?? "",
  };
}

export function requireManager(session: Session, what: string): void {
  if (!canManage(session))
    throw new AppError(
      "forbidden",
      `Only owners and admins of ${session.active?.name ?? "this company"} can ${what}; your role is ${session.active?.role ?? "none"}.`,
    );
}
